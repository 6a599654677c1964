// zip_archive.h - the zip container of PyTorch files: reading the entries of an archive held in
// memory, and writing one.
//
// Note [PyTorch's zip archives]
// torch.save writes a zip archive (PKWARE APPNOTE 6.3) of stored, uncompressed entries, each
// data entry aligned to 64 bytes by padding its local header's extra field, with zip64 records
// once an offset or a size passes 4 GiB. The reader takes what that writer and ordinary zip tools
// produce when they store: it reads the central directory (zip64 included), checks each entry's
// local header, offsets, sizes and CRC-32, and refuses a compressed entry (torch never writes
// one) with CT_ERROR_FORMAT, as it refuses anything out of bounds. Checking CRC-32 by hand keeps
// ctorch free of a compression library for the one checksum it needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ct::io {

/// CRC-32 (the zip polynomial) of n bytes, continuing from crc (0 to start).
uint32_t crc32(uint32_t crc, const void* data, size_t n);

struct ZipEntry {
  std::string name;
  uint64_t offset = 0;  // of the entry's data in the archive
  uint64_t size = 0;
};

/// The entries of the archive held in bytes[0, size), validated as Note [PyTorch's zip archives]
/// says; CT_ERROR_FORMAT naming context, the entry and the byte offset otherwise.
std::vector<ZipEntry> read_zip(const uint8_t* bytes, size_t size, const std::string& context);

/// Writes an archive of stored entries, data aligned to 64 bytes, to a sink of bytes.
class ZipWriter {
 public:
  using Sink = std::function<void(const void*, size_t)>;
  explicit ZipWriter(Sink sink) : sink_(std::move(sink)) {}
  /// An entry of n bytes, written by fill(sink) (which must write exactly n bytes with this crc).
  void add(const std::string& name, uint64_t n, uint32_t crc, const std::function<void(const Sink&)>& fill);
  void add(const std::string& name, const std::string& data);
  /// The central directory and the end records; the writer is then done.
  void finish();

 private:
  struct Written {
    std::string name;
    uint64_t header_offset, size;
    uint32_t crc;
  };
  void put(const void* p, size_t n);
  Sink sink_;
  uint64_t at_ = 0;
  std::vector<Written> written_;
};

}  // namespace ct::io
