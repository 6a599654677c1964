// checkpoint.cpp - opening safetensors checkpoints: the mapping, the index, lazy tensors.
// See Note [Checkpoint mappings].
#include "io/checkpoint.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include "core/fault_injection.h"
#include "core/tensor_impl.h"
#include "io/file.h"
#include "ops/functions.h"

namespace ct::io {
namespace {

// A zero-copy tensor's storage ends its reference to the bytes with this (Note [Checkpoint mappings]).
void release_bytes(void* /*data*/, void* bytes) { static_cast<CheckpointBytes*>(bytes)->release(); }

const char* const kReadable = "BOOL, U8, I8, I16, I32, I64, F16, BF16, F32, F64";

}  // namespace

CheckpointBytesRef CheckpointBytes::map_file(const char* path, const char* fn) {
  const InputFile file(path, fn);  // see Note [Reading files from a path]
  const size_t size = file.size();
  void* p = nullptr;
  if (size > 0) {
    // Private and writable: an in-place write to a tensor copies its page and never reaches the
    // file. MAP_NORESERVE: untouched pages need no swap reservation, so a large checkpoint maps
    // under strict overcommit accounting too.
    p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_NORESERVE, file.fd(), 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      fail(err == ENOMEM ? CT_ERROR_OUT_OF_MEMORY : CT_ERROR_IO,
           str(fn, ": cannot map '", path, "' (", size, " bytes): ", std::strerror(err)));
    }
  }
  // The mapping keeps the file's pages reachable after the file is closed.
  auto* b = new (std::nothrow) CheckpointBytes();
  if (!b) {
    if (p) ::munmap(p, size);
    throw std::bad_alloc();
  }
  b->data_ = static_cast<uint8_t*>(p);
  b->size_ = size;
  b->mapped_ = p != nullptr;
  return CheckpointBytesRef(b);
}

CheckpointBytesRef CheckpointBytes::copy_of(const void* data, size_t size) {
  // 64-byte aligned like the allocator's memory, so aligned tensors in the buffer stay aligned.
  void* p = size ? ct::fault::aligned_alloc(64, (size + 63) / 64 * 64) : nullptr;
  if (size && !p) throw std::bad_alloc();
  if (size) std::memcpy(p, data, size);
  auto* b = new (std::nothrow) CheckpointBytes();
  if (!b) {
    std::free(p);
    throw std::bad_alloc();
  }
  b->data_ = static_cast<uint8_t*>(p);
  b->size_ = size;
  return CheckpointBytesRef(b);
}

void ReleaseCheckpointBytes::operator()(CheckpointBytes* b) const { b->release(); }

void CheckpointBytes::release() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (mapped_) ::munmap(data_, size_);
  else std::free(data_);
  delete this;
}

Checkpoint::Checkpoint(CheckpointBytesRef bytes, const std::string& context) : bytes_(std::move(bytes)) {
  header_ = parse_header(bytes_->data(), bytes_->size(), context);
  index_.reserve(header_.entries.size());
  for (size_t i = 0; i < header_.entries.size(); ++i) index_.emplace(header_.entries[i].name, i);
}

Tensor Checkpoint::get(const char* name, const char* fn) const {
  const auto it = index_.find(name);
  CT_CHECK(it != index_.end(), CT_ERROR_INDEX, fn, ": the checkpoint has no tensor named '", name, "' (it has ",
           size(), "). List the names with ct_checkpoint_name");
  const HeaderEntry& e = header_.entries[it->second];
  CT_CHECK(e.dtype->ctorch >= 0, CT_ERROR_DTYPE, fn, ": tensor '", name, "' has dtype ", e.dtype->name,
           ", which ctorch has no dtype for (it reads ", kReadable, "). Convert it to one of those when saving");
  const auto dtype = static_cast<DType>(e.dtype->ctorch);
  const IntArrayRef shape(e.shape.data(), e.shape.size());
  const uint8_t* p = bytes_->data() + header_.data_start + e.begin;
  const size_t nbytes = e.end - e.begin;
  if (dtype == DType::Bool) {
    // A bool byte other than 0 and 1 is undefined behaviour in C++ kernels: refuse it here.
    size_t bad = 0;
    while (bad < nbytes && p[bad] <= 1) ++bad;
    CT_CHECK(bad == nbytes, CT_ERROR_FORMAT, fn, ": tensor '", name, "' (BOOL) holds the byte ", int{p[bad]},
             " at byte ", header_.data_start + e.begin + bad,
             " of the file; bool elements must be 0 or 1. The file is damaged; write it again");
  }
  if (nbytes == 0 || reinterpret_cast<uintptr_t>(p) % itemsize(dtype) != 0) {
    Tensor t = ops::empty(shape, dtype, kCPU);
    if (nbytes) std::memcpy(t->data(), p, nbytes);
    return t;
  }
  bytes_->retain();
  StorageImpl* storage;
  try {
    storage = StorageImpl::from_blob(const_cast<uint8_t*>(p), nbytes, &release_bytes, bytes_.get(), kCPU);
  } catch (...) {
    bytes_->release();
    throw;
  }
  try {
    return Tensor::adopt(TensorImpl::create(storage, shape, contiguous_strides(shape), 0, dtype));
  } catch (...) {
    storage->release();  // runs release_bytes: the reference taken above
    throw;
  }
}

std::string Checkpoint::metadata_json() const {
  if (!header_.has_metadata) return "null";
  std::string out = "{";
  for (const auto& [key, value] : header_.metadata) {
    if (out.size() > 1) out += ',';
    append_json_string(out, key);
    out += ':';
    append_json_string(out, value);
  }
  return out + "}";
}

const std::string* Checkpoint::metadata_value(const char* key) const {
  for (const auto& [k, v] : header_.metadata)
    if (k == key) return &v;
  return nullptr;
}

}  // namespace ct::io
