// checkpoint.h - safetensors checkpoints: an opened file whose tensors are read lazily from a
// memory mapping, and the writer.
//
// Note [Checkpoint mappings]
// ct_checkpoint_open maps the whole file MAP_PRIVATE, readable and writable, and validates the
// header (Note [The safetensors format]) before anything else. A tensor from get() is a view of
// the mapping (no copy) when its first byte is aligned to its item size; it holds a reference to
// the mapping through its storage's blob deleter, so the mapping lives until the checkpoint and
// every such tensor (and view) are released, in any order, on any thread. Pages are read from
// disk only when touched. ctorch tensors are writable, and a private mapping makes an in-place
// write copy the page: the file never changes, and tensors from other processes never see it.
// Tensors got twice for one name share the mapping, so such a write is seen by both (as views of
// one tensor would see it). A tensor whose data is not aligned (a file from a writer that does not
// pad, as the reference writer does) is copied into fresh memory instead: ctorch's kernels may load
// whole elements. A file changed or truncated by another program while mapped is undefined
// behaviour, as for any mapping (SIGBUS on truncation): replace checkpoints by renaming a new file
// over them, which is what save() does.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tensor.h"
#include "io/safetensors_header.h"

namespace ct::io {

class CheckpointBytes;
struct ReleaseCheckpointBytes {
  void operator()(CheckpointBytes* b) const;
};
/// One reference to CheckpointBytes, released when it goes (on every failure path too).
using CheckpointBytesRef = std::unique_ptr<CheckpointBytes, ReleaseCheckpointBytes>;

/// The bytes of one opened file (a private mapping) or buffer (a private copy), refcounted: the
/// checkpoint and every zero-copy tensor hold a reference.
class CheckpointBytes {
 public:
  /// Maps path; CT_ERROR_IO naming fn and path when it cannot be opened, stat'ed or mapped.
  static CheckpointBytesRef map_file(const char* path, const char* fn);
  /// A private, 64-byte aligned copy of data[0, size).
  static CheckpointBytesRef copy_of(const void* data, size_t size);
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  void retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void release();

 private:
  CheckpointBytes() = default;
  std::atomic<int32_t> refs_{1};
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;  // munmap (else free) on the last release
};

/// An opened checkpoint: the validated header and the bytes. Immutable, so any number of threads
/// may call get() at once.
class Checkpoint {
 public:
  /// Takes over the reference (released on failure too) and validates the file; CT_ERROR_FORMAT
  /// naming context on any violation.
  Checkpoint(CheckpointBytesRef bytes, const std::string& context);
  Checkpoint(const Checkpoint&) = delete;
  Checkpoint& operator=(const Checkpoint&) = delete;

  size_t size() const { return header_.entries.size(); }
  /// The i-th name in data order (i < size()).
  const std::string& name(size_t i) const { return header_.entries[i].name; }
  /// The tensor called name, a CPU tensor (Note [Checkpoint mappings]); CT_ERROR_INDEX when there
  /// is none, CT_ERROR_DTYPE for a dtype ctorch does not have. Messages name fn.
  Tensor get(const char* name, const char* fn) const;
  /// The "__metadata__" object as compact JSON, or "null" when the file has none.
  std::string metadata_json() const;
  /// The metadata value of key, or null.
  const std::string* metadata_value(const char* key) const;

 private:
  CheckpointBytesRef bytes_;
  Header header_;
  std::unordered_map<std::string_view, size_t> index_;  // name -> entry; views into header_
};

/// One tensor to write, and its name.
struct NamedTensor {
  std::string name;
  Tensor tensor;
};

/// Checks names (valid UTF-8, non-empty, unique, not "__metadata__") and tensors (with data: not
/// meta) and parses metadata_json (null: no metadata) before anything is written; failures name fn.
/// Then writes the file to a temporary name beside path, syncs it and renames it over path, or
/// returns the bytes (save_buffer). Tensors on other devices are copied to the host one at a time,
/// non-contiguous ones gathered; data is written in the reference writer's order (larger dtypes
/// first, then by name) behind a header padded to 8 bytes, so every tensor is aligned.
void save(const char* path, const std::vector<NamedTensor>& tensors, const char* metadata_json, const char* fn);
/// The file's bytes in malloc'ed memory (free releases it), *size filled.
std::unique_ptr<char, void (*)(void*)> save_buffer(const std::vector<NamedTensor>& tensors, const char* metadata_json,
                                                   const char* fn, size_t* size);

}  // namespace ct::io
