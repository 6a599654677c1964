// checkpoint.cpp - ct_checkpoint_*: safetensors checkpoints through the C ABI (src/io does the work).
#include <atomic>
#include <memory>

#include "capi/handle.h"
#include "capi/tagged_handle.h"
#include "io/checkpoint.h"

using namespace ct;

struct ct_checkpoint {
  uint32_t tag;
  std::atomic<int32_t> refs{1};
  std::unique_ptr<io::Checkpoint> ckpt;
};

namespace {

constexpr uint32_t kCheckpointTag = 0x4354434bu;  // "CTCK"

const io::Checkpoint& checkpoint_arg(const ct_checkpoint* c, const char* fn) {
  return *capi::live_tagged(const_cast<ct_checkpoint*>(c), kCheckpointTag, fn, "ckpt").ckpt;
}

ct_checkpoint* checkpoint_handle(io::CheckpointBytesRef bytes, const std::string& context) {
  auto ckpt = std::make_unique<io::Checkpoint>(std::move(bytes), context);
  ct_checkpoint* h = capi::new_tagged<ct_checkpoint>(kCheckpointTag);
  h->ckpt = std::move(ckpt);
  return h;
}

// The (name, tensor) pairs of a save call, every argument checked.
std::vector<io::NamedTensor> named_tensors(const char* const* names, const ct_tensor* const* tensors, size_t n,
                                           const char* fn) {
  CT_CHECK(names || n == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": names is NULL but n is ", n);
  std::vector<Tensor> ts = capi::tensor_list(tensors, n, fn, "tensors", false);
  std::vector<io::NamedTensor> out(n);
  for (size_t i = 0; i < n; ++i) {
    CT_CHECK(names[i], CT_ERROR_INVALID_ARGUMENT, fn, ": names[", i, "] is NULL. Give every tensor a name");
    out[i].name = names[i];
    out[i].tensor = std::move(ts[i]);
  }
  return out;
}

}  // namespace

extern "C" {

ct_status ct_checkpoint_open(const char* path, ct_checkpoint** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const char* fn = "ct_checkpoint_open";
    capi::require_out(out, fn, "out");
    CT_CHECK(path, CT_ERROR_INVALID_ARGUMENT, fn, ": path is NULL");
    *out = checkpoint_handle(io::CheckpointBytes::map_file(path, fn), str(fn, ": '", path, "'"));
  });
}

ct_status ct_checkpoint_open_buffer(const void* data, size_t size, ct_checkpoint** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const char* fn = "ct_checkpoint_open_buffer";
    capi::require_out(out, fn, "out");
    CT_CHECK(data || size == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": data is NULL but size is ", size);
    *out = checkpoint_handle(io::CheckpointBytes::copy_of(data, size), fn);
  });
}

ct_status ct_checkpoint_retain(ct_checkpoint* c) {
  return capi::guard([&] {
    capi::live_tagged(c, kCheckpointTag, "ct_checkpoint_retain", "ckpt").refs.fetch_add(1, std::memory_order_relaxed);
  });
}

void ct_checkpoint_release(ct_checkpoint* c) { capi::release_tagged(c, kCheckpointTag); }

ct_status ct_checkpoint_num_tensors(const ct_checkpoint* c, size_t* out) {
  return capi::guard([&] {
    const io::Checkpoint& ckpt = checkpoint_arg(c, "ct_checkpoint_num_tensors");
    capi::require_out(out, "ct_checkpoint_num_tensors", "out");
    *out = ckpt.size();
  });
}

ct_status ct_checkpoint_name(const ct_checkpoint* c, size_t index, const char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const char* fn = "ct_checkpoint_name";
    const io::Checkpoint& ckpt = checkpoint_arg(c, fn);
    capi::require_out(out, fn, "out");
    CT_CHECK(index < ckpt.size(), CT_ERROR_INDEX, fn, ": index ", index, " is out of range (the checkpoint has ",
             ckpt.size(), " tensors)");
    *out = ckpt.name(index).c_str();
  });
}

ct_status ct_checkpoint_get(const ct_checkpoint* c, const char* name, ct_tensor** out) {
  return capi::tensor_result(out, "ct_checkpoint_get", [&] {
    const io::Checkpoint& ckpt = checkpoint_arg(c, "ct_checkpoint_get");
    CT_CHECK(name, CT_ERROR_INVALID_ARGUMENT, "ct_checkpoint_get: name is NULL");
    return ckpt.get(name, "ct_checkpoint_get");
  });
}

ct_status ct_checkpoint_metadata_json(const ct_checkpoint* c, char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const io::Checkpoint& ckpt = checkpoint_arg(c, "ct_checkpoint_metadata_json");
    capi::require_out(out, "ct_checkpoint_metadata_json", "out");
    *out = capi::copy_string(ckpt.metadata_json());
  });
}

ct_status ct_checkpoint_metadata_get(const ct_checkpoint* c, const char* key, const char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const char* fn = "ct_checkpoint_metadata_get";
    const io::Checkpoint& ckpt = checkpoint_arg(c, fn);
    capi::require_out(out, fn, "out");
    CT_CHECK(key, CT_ERROR_INVALID_ARGUMENT, fn, ": key is NULL");
    const std::string* v = ckpt.metadata_value(key);
    *out = v ? v->c_str() : nullptr;
  });
}

ct_status ct_checkpoint_save(const char* path, const char* const* names, const ct_tensor* const* tensors, size_t n,
                             const char* metadata_json) {
  return capi::guard([&] {
    const char* fn = "ct_checkpoint_save";
    CT_CHECK(path, CT_ERROR_INVALID_ARGUMENT, fn, ": path is NULL");
    io::save(path, named_tensors(names, tensors, n, fn), metadata_json, fn);
  });
}

ct_status ct_checkpoint_save_buffer(const char* const* names, const ct_tensor* const* tensors, size_t n,
                                    const char* metadata_json, char** data, size_t* size) {
  if (data) *data = nullptr;
  if (size) *size = 0;
  return capi::guard([&] {
    const char* fn = "ct_checkpoint_save_buffer";
    capi::require_out(data, fn, "data");
    capi::require_out(size, fn, "size");
    size_t n_bytes = 0;
    auto bytes = io::save_buffer(named_tensors(names, tensors, n, fn), metadata_json, fn, &n_bytes);
    *data = bytes.release();  // malloc'ed, as ct_string_release expects
    *size = n_bytes;
  });
}

}  // extern "C"
