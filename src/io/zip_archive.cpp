// zip_archive.cpp - see Note [PyTorch's zip archives].
#include "io/zip_archive.h"

#include <cstring>

#include "core/error.h"

namespace ct::io {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50, kZip64LocatorSig = 0x07064b50;
constexpr uint16_t kZip64Extra = 0x0001, kPaddingExtra = 0x4246;  // "FB", as torch pads
constexpr uint64_t kMax32 = 0xffffffffu;
constexpr const char* kFix = "The file is damaged, or is not a zip archive written by torch.save; save it again";

uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
uint32_t le32(const uint8_t* p) { return le16(p) | static_cast<uint32_t>(le16(p + 2)) << 16; }
uint64_t le64(const uint8_t* p) { return le32(p) | static_cast<uint64_t>(le32(p + 4)) << 32; }

[[noreturn]] void bad(const std::string& context, const std::string& what, uint64_t at) {
  fail(CT_ERROR_FORMAT, str(context, ": ", what, ", at byte ", at, ". ", kFix));
}

// Slicing by 8: v[k][b] is the CRC of byte b followed by k zero bytes, so eight bytes fold in
// with eight independent lookups (about 8x the byte-at-a-time loop; checkpoints are gigabytes).
struct Table {
  uint32_t v[8][256];
  Table() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      v[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int k = 1; k < 8; ++k) v[k][i] = v[0][v[k - 1][i] & 0xff] ^ (v[k - 1][i] >> 8);
  }
};

// The zip64 extra field of a central header replaces, in this order, whichever of the sizes and
// the offset are 0xffffffff there.
void apply_zip64(const uint8_t* extra, size_t n, uint64_t* size, uint64_t* csize, uint64_t* offset,
                 const std::string& context, uint64_t at) {
  for (size_t i = 0; i + 4 <= n;) {
    const uint16_t id = le16(extra + i), len = le16(extra + i + 2);
    if (i + 4 + len > n) bad(context, "an extra field runs past its header", at);
    if (id == kZip64Extra) {
      size_t k = i + 4;
      for (uint64_t* field : {size, csize, offset}) {
        if (*field != kMax32) continue;
        if (k + 8 > i + 4 + len) bad(context, "a zip64 extra field is too short for the values it replaces", at);
        *field = le64(extra + k);
        k += 8;
      }
      return;
    }
    i += 4 + len;
  }
  if (*size == kMax32 || *csize == kMax32 || *offset == kMax32)
    bad(context, "an entry's size or offset needs a zip64 extra field, and it has none", at);
}

}  // namespace

uint32_t crc32(uint32_t crc, const void* data, size_t n) {
  static const Table t;
  const uint8_t* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  for (; n >= 8; n -= 8, p += 8) {
    const uint32_t lo = crc ^ (uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24);
    crc = t.v[7][lo & 0xff] ^ t.v[6][(lo >> 8) & 0xff] ^ t.v[5][(lo >> 16) & 0xff] ^ t.v[4][lo >> 24] ^
          t.v[3][p[4]] ^ t.v[2][p[5]] ^ t.v[1][p[6]] ^ t.v[0][p[7]];
  }
  for (; n > 0; --n, ++p) crc = t.v[0][(crc ^ *p) & 0xff] ^ (crc >> 8);
  return ~crc;
}

std::vector<ZipEntry> read_zip(const uint8_t* bytes, size_t size, const std::string& context) {
  // The end record: its signature in the last 22 + 65535 bytes (a comment may follow it).
  if (size < 22) bad(context, str("the file has ", size, " bytes, too few for a zip archive"), 0);
  size_t end = size - 22;
  const size_t lowest = size > 22 + 65535 ? size - 22 - 65535 : 0;
  while (le32(bytes + end) != kEndSig) {
    if (end == lowest) bad(context, "no end-of-central-directory record (not a zip archive)", size);
    --end;
  }
  uint64_t count = le16(bytes + end + 10), dir_size = le32(bytes + end + 12), dir_offset = le32(bytes + end + 16);
  if ((count == 0xffff || dir_size == kMax32 || dir_offset == kMax32) && end >= 20 &&
      le32(bytes + end - 20) == kZip64LocatorSig) {
    const uint64_t z = le64(bytes + end - 20 + 8);
    if (size < 56 || z > size - 56 || le32(bytes + z) != kZip64EndSig) bad(context, "the zip64 end record is missing", end - 20);
    count = le64(bytes + z + 32);
    dir_size = le64(bytes + z + 40);
    dir_offset = le64(bytes + z + 48);
  }
  if (dir_offset > size || dir_size > size - dir_offset)
    bad(context, str("the central directory (", dir_size, " bytes at ", dir_offset, ") lies outside the file"), end);
  std::vector<ZipEntry> out;
  uint64_t at = dir_offset;
  for (uint64_t i = 0; i < count; ++i) {
    if (dir_offset + dir_size - at < 46 || le32(bytes + at) != kCentralSig)
      bad(context, str("central directory entry ", i, " is missing or truncated"), at);
    const uint8_t* h = bytes + at;
    const uint16_t method = le16(h + 10), name_len = le16(h + 28), extra_len = le16(h + 30), comment_len = le16(h + 32);
    const uint32_t crc = le32(h + 16);
    uint64_t csize = le32(h + 20), usize = le32(h + 24), local = le32(h + 42);
    if (46 + uint64_t{name_len} + extra_len + comment_len > dir_offset + dir_size - at)
      bad(context, str("central directory entry ", i, " runs past the directory"), at);
    ZipEntry e;
    e.name.assign(reinterpret_cast<const char*>(h + 46), name_len);
    apply_zip64(h + 46 + name_len, extra_len, &usize, &csize, &local, context, at);
    if (method != 0)
      bad(context, str("entry '", e.name, "' is compressed (method ", method, "); ctorch reads stored entries, as torch.save writes"), at);
    if (csize != usize) bad(context, str("stored entry '", e.name, "' has different stored and original sizes"), at);
    if (local > size || size - local < 30 || le32(bytes + local) != kLocalSig)
      bad(context, str("the local header of entry '", e.name, "' is missing"), local);
    const uint64_t data = local + 30 + le16(bytes + local + 26) + le16(bytes + local + 28);
    if (data > size || usize > size - data)
      bad(context, str("the data of entry '", e.name, "' (", usize, " bytes) runs past the end of the file"), local);
    if (crc32(0, bytes + data, usize) != crc) bad(context, str("entry '", e.name, "' fails its CRC-32 check"), data);
    e.offset = data;
    e.size = usize;
    out.push_back(std::move(e));
    at += 46 + uint64_t{name_len} + extra_len + comment_len;
  }
  return out;
}

void ZipWriter::put(const void* p, size_t n) {
  sink_(p, n);
  at_ += n;
}

namespace {
void w16(std::string& s, uint16_t v) { s.append({static_cast<char>(v), static_cast<char>(v >> 8)}); }
void w32(std::string& s, uint32_t v) { w16(s, static_cast<uint16_t>(v)), w16(s, static_cast<uint16_t>(v >> 16)); }
void w64(std::string& s, uint64_t v) { w32(s, static_cast<uint32_t>(v)), w32(s, static_cast<uint32_t>(v >> 32)); }
uint32_t cap32(uint64_t v) { return v >= kMax32 ? static_cast<uint32_t>(kMax32) : static_cast<uint32_t>(v); }
}  // namespace

void ZipWriter::add(const std::string& name, uint64_t n, uint32_t crc, const std::function<void(const Sink&)>& fill) {
  const uint64_t header_offset = at_;
  const bool big = n >= kMax32;
  std::string h;
  w32(h, kLocalSig);
  w16(h, big ? 45 : 20);  // version needed
  w16(h, 0x0800);         // flags: the name is UTF-8
  w16(h, 0);              // stored
  w16(h, 0), w16(h, 0x21);  // time, date: 1980-01-01, as torch writes (reproducible bytes)
  w32(h, crc);
  w32(h, cap32(n)), w32(h, cap32(n));
  w16(h, static_cast<uint16_t>(name.size()));
  std::string extra;
  if (big) {
    w16(extra, kZip64Extra), w16(extra, 16);
    w64(extra, n), w64(extra, n);
  }
  // Pad so the data starts on a multiple of 64 (an extra field needs at least its 4-byte head).
  const uint64_t before = at_ + 30 + name.size() + extra.size();
  uint64_t pad = (64 - (before + 4) % 64) % 64;
  w16(extra, kPaddingExtra), w16(extra, static_cast<uint16_t>(pad));
  extra.append(pad, 'Z');
  w16(h, static_cast<uint16_t>(extra.size()));
  h += name;
  h += extra;
  put(h.data(), h.size());
  uint64_t wrote = 0;
  fill([&](const void* p, size_t k) {
    put(p, k);
    wrote += k;
  });
  CT_CHECK(wrote == n, CT_ERROR_INTERNAL, "zip: entry '", name, "' wrote ", wrote, " bytes, not ", n);
  written_.push_back({name, header_offset, n, crc});
}

void ZipWriter::add(const std::string& name, const std::string& data) {
  add(name, data.size(), crc32(0, data.data(), data.size()), [&](const Sink& s) { s(data.data(), data.size()); });
}

void ZipWriter::finish() {
  const uint64_t dir_offset = at_;
  for (const Written& e : written_) {
    const bool big = e.size >= kMax32 || e.header_offset >= kMax32;
    std::string h;
    w32(h, kCentralSig);
    w16(h, big ? 45 : 20), w16(h, big ? 45 : 20);
    w16(h, 0x0800), w16(h, 0);
    w16(h, 0), w16(h, 0x21);
    w32(h, e.crc);
    w32(h, cap32(e.size)), w32(h, cap32(e.size));
    w16(h, static_cast<uint16_t>(e.name.size()));
    std::string extra;
    if (big) {
      w16(extra, kZip64Extra), w16(extra, 0);
      if (e.size >= kMax32) w64(extra, e.size), w64(extra, e.size);
      if (e.header_offset >= kMax32) w64(extra, e.header_offset);
      extra[2] = static_cast<char>(extra.size() - 4);
    }
    w16(h, static_cast<uint16_t>(extra.size()));
    w16(h, 0), w16(h, 0), w16(h, 0);  // comment, disk, internal attributes
    w32(h, 0);                          // external attributes
    w32(h, cap32(e.header_offset));
    h += e.name;
    h += extra;
    put(h.data(), h.size());
  }
  const uint64_t dir_size = at_ - dir_offset, count = written_.size();
  std::string tail;
  if (count >= 0xffff || dir_size >= kMax32 || dir_offset >= kMax32) {
    const uint64_t z = at_;
    w32(tail, kZip64EndSig);
    w64(tail, 44);
    w16(tail, 45), w16(tail, 45);
    w32(tail, 0), w32(tail, 0);
    w64(tail, count), w64(tail, count);
    w64(tail, dir_size), w64(tail, dir_offset);
    w32(tail, kZip64LocatorSig);
    w32(tail, 0);
    w64(tail, z);
    w32(tail, 1);
  }
  w32(tail, kEndSig);
  w16(tail, 0), w16(tail, 0);
  w16(tail, static_cast<uint16_t>(count >= 0xffff ? 0xffff : count));
  w16(tail, static_cast<uint16_t>(count >= 0xffff ? 0xffff : count));
  w32(tail, cap32(dir_size)), w32(tail, cap32(dir_offset));
  w16(tail, 0);
  put(tail.data(), tail.size());
}

}  // namespace ct::io
