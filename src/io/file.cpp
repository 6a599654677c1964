#include "io/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/error.h"

namespace ct::io {
namespace {

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  return "not a regular file";
}

// A temporary name beside path, unique within this process and across processes.
std::string temp_name(const char* path) {
  static std::atomic<uint64_t> counter{0};
  return str(path, ".tmp.", ::getpid(), ".", counter.fetch_add(1, std::memory_order_relaxed));
}

}  // namespace

// See Note [Reading files from a path].
InputFile::InputFile(const char* path, const char* fn) : path_(path), fn_(fn) {
  fd_ = ::open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  CT_CHECK(fd_ >= 0, CT_ERROR_IO, fn, ": cannot open '", path, "': ", std::strerror(errno), ". Check the path");
  struct stat st;
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    fail(CT_ERROR_IO, str(fn, ": cannot stat '", path, "': ", std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    fail(CT_ERROR_IO, str(fn, ": '", path, "' is ", kind_of(st.st_mode),
                          ", and only regular files are read. Pass the path of a file, or read the data into memory "
                          "and load it from the buffer"));
  }
  size_ = static_cast<size_t>(st.st_size);
}

InputFile::~InputFile() { ::close(fd_); }

void InputFile::read_at(void* buf, size_t n, size_t offset) const {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    const ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    CT_CHECK(got >= 0, CT_ERROR_IO, fn_, ": reading '", path_, "' failed: ", std::strerror(errno));
    CT_CHECK(got > 0, CT_ERROR_IO, fn_, ": '", path_, "' ended at byte ", offset, ", before the ", size_,
             " bytes it had when opened (it changed while being read). Read it again");
    p += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<size_t>(got);
  }
}

void write_file_atomically(const char* path, const char* fn, const std::function<void(const ByteSink&)>& produce) {
  const std::string tmp = temp_name(path);
  // 0666 less the umask, as for any new file; O_EXCL so two writers never share a temporary.
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  CT_CHECK(fd >= 0, CT_ERROR_IO, fn, ": cannot create '", tmp, "': ", std::strerror(errno),
           ". Check that the directory exists and is writable");
  try {
    produce([&](const void* data, size_t n) {
      const char* c = static_cast<const char*>(data);
      while (n > 0) {
        const ssize_t w = ::write(fd, c, std::min<size_t>(n, size_t{1} << 30));
        const int err = errno;
        if (w < 0 && err == EINTR) continue;
        CT_CHECK(w > 0, CT_ERROR_IO, fn, ": writing '", tmp, "' failed: ", std::strerror(w < 0 ? err : EIO),
                 ". Check the free space");
        c += w;
        n -= static_cast<size_t>(w);
      }
    });
    // Durable before it replaces path: a crash leaves the old file or the new one, whole.
    int err = ::fsync(fd) == 0 ? 0 : errno;
    CT_CHECK(err == 0, CT_ERROR_IO, fn, ": syncing '", tmp, "' failed: ", std::strerror(err));
    err = ::close(fd) == 0 ? 0 : errno;
    fd = -1;
    CT_CHECK(err == 0, CT_ERROR_IO, fn, ": closing '", tmp, "' failed: ", std::strerror(err));
    err = std::rename(tmp.c_str(), path) == 0 ? 0 : errno;
    CT_CHECK(err == 0, CT_ERROR_IO, fn, ": cannot rename '", tmp, "' to '", path, "': ", std::strerror(err));
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
}

}  // namespace ct::io
