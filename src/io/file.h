// file.h - InputFile: a file the library reads, opened so that no path can block or exhaust it.
//
// Note [Reading files from a path]
// A path names whatever the caller (or an attacker who chose the path) put there. Opening a FIFO
// for reading blocks until a writer comes; a character device (/dev/zero) never ends; a directory
// opens but cannot be read. So InputFile opens without blocking (O_NONBLOCK) and accepts regular
// files only, with a CT_ERROR_IO that says what the path is instead; its size, from fstat, bounds
// every read, and readers check a file's header before they read the rest.
#pragma once

#include <cstddef>
#include <functional>

namespace ct::io {

class InputFile {
 public:
  /// Opens path for reading; CT_ERROR_IO naming fn and the path when it cannot be opened or is not
  /// a regular file (a directory, FIFO, socket or device).
  InputFile(const char* path, const char* fn);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  int fd() const { return fd_; }
  /// The file's size when it was opened.
  size_t size() const { return size_; }
  /// Reads exactly n bytes at offset into buf; CT_ERROR_IO when the file ends first (it shrank)
  /// or the read fails.
  void read_at(void* buf, size_t n, size_t offset) const;

 private:
  int fd_ = -1;
  size_t size_ = 0;
  const char* path_;
  const char* fn_;
};

/// Where a writer puts bytes, in order.
using ByteSink = std::function<void(const void*, size_t)>;

/// Writes a file whole or not at all: produce() writes the bytes to a temporary file beside path
/// ("<path>.tmp.<pid>.<n>"), which is synced and renamed over path, so a failure or a crash never
/// leaves a half-written file there (the temporary is removed on failure). CT_ERROR_IO naming fn
/// when the file cannot be created, written, synced or renamed; produce's own failures propagate.
void write_file_atomically(const char* path, const char* fn, const std::function<void(const ByteSink&)>& produce);

}  // namespace ct::io
