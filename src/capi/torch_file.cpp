// torch_file.cpp - ct_torch_*: PyTorch checkpoint files through the C ABI (src/io/torch_file.cpp
// does the work; Note [A PyTorch file's structure]).
#include <cstring>
#include <memory>

#include "capi/handle.h"
#include "capi/tagged_handle.h"
#include "core/fault_injection.h"
#include "io/checkpoint.h"
#include "io/torch_file.h"

using namespace ct;

struct ct_torch_file {
  uint32_t tag;
  io::TorchFile file;
};

namespace {

constexpr uint32_t kTorchFileTag = 0x43545446u;  // "CTTF"

const io::TorchFile& file_arg(const ct_torch_file* f, const char* fn) {
  return capi::live_tagged(const_cast<ct_torch_file*>(f), kTorchFileTag, fn, "file").file;
}

ct_torch_file* file_handle(const uint8_t* bytes, size_t size, const std::string& context) {
  io::TorchFile loaded = io::load_torch_file(bytes, size, context);
  ct_torch_file* h = capi::new_tagged<ct_torch_file>(kTorchFileTag);
  h->file = std::move(loaded);
  return h;
}

std::string structure_arg(const char* structure, const char* fn) {
  CT_CHECK(structure, CT_ERROR_INVALID_ARGUMENT, fn, ": structure is NULL. Pass the saved object as JSON, e.g. "
           "{\"ordered_dict\": [[\"weight\", {\"tensor\": 0}]]}");
  return structure;
}

}  // namespace

extern "C" {

ct_status ct_torch_load(const char* path, ct_torch_file** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const char* fn = "ct_torch_load";
    capi::require_out(out, fn, "out");
    CT_CHECK(path, CT_ERROR_INVALID_ARGUMENT, fn, ": path is NULL");
    const io::CheckpointBytesRef bytes = io::CheckpointBytes::map_file(path, fn);
    *out = file_handle(bytes->data(), bytes->size(), str(fn, ": '", path, "'"));
  });
}

ct_status ct_torch_load_buffer(const void* data, size_t size, ct_torch_file** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const char* fn = "ct_torch_load_buffer";
    capi::require_out(out, fn, "out");
    CT_CHECK(data || size == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": data is NULL but size is ", size);
    static const uint8_t kNothing = 0;
    *out = file_handle(data ? static_cast<const uint8_t*>(data) : &kNothing, size, fn);
  });
}

void ct_torch_file_release(ct_torch_file* f) { capi::release_single_tagged(f, kTorchFileTag); }

ct_status ct_torch_file_structure(const ct_torch_file* f, const char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const io::TorchFile& file = file_arg(f, "ct_torch_file_structure");
    capi::require_out(out, "ct_torch_file_structure", "out");
    *out = file.structure.c_str();
  });
}

ct_status ct_torch_file_num_tensors(const ct_torch_file* f, size_t* out) {
  return capi::guard([&] {
    const io::TorchFile& file = file_arg(f, "ct_torch_file_num_tensors");
    capi::require_out(out, "ct_torch_file_num_tensors", "out");
    *out = file.tensors.size();
  });
}

ct_status ct_torch_file_tensor(const ct_torch_file* f, size_t index, ct_tensor** out) {
  return capi::tensor_result(out, "ct_torch_file_tensor", [&] {
    const io::TorchFile& file = file_arg(f, "ct_torch_file_tensor");
    CT_CHECK(index < file.tensors.size(), CT_ERROR_INDEX, "ct_torch_file_tensor: index ", index,
             " is out of range (the file holds ", file.tensors.size(), " tensors)");
    return file.tensors[index];
  });
}

ct_status ct_torch_file_tensor_name(const ct_torch_file* f, size_t index, const char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    const char* fn = "ct_torch_file_tensor_name";
    const io::TorchFile& file = file_arg(f, fn);
    capi::require_out(out, fn, "out");
    CT_CHECK(index < file.names.size(), CT_ERROR_INDEX, fn, ": index ", index, " is out of range (the file holds ",
             file.names.size(), " tensors)");
    *out = file.names[index].c_str();
  });
}

ct_status ct_torch_save(const char* path, const char* structure, const ct_tensor* const* tensors, size_t n) {
  return capi::guard([&] {
    const char* fn = "ct_torch_save";
    CT_CHECK(path, CT_ERROR_INVALID_ARGUMENT, fn, ": path is NULL");
    const std::string s = structure_arg(structure, fn);
    const std::vector<Tensor> ts = capi::tensor_list(tensors, n, fn, "tensors", false);
    // Checked in full (without reading data) before the temporary file is created, as ctorch.h says.
    (void)io::torch_file_size(s, ts, fn);
    io::write_file_atomically(path, fn, [&](const io::ByteSink& sink) { io::write_torch_file(s, ts, sink, fn); });
  });
}

ct_status ct_torch_save_buffer(const char* structure, const ct_tensor* const* tensors, size_t n, char** data,
                               size_t* size) {
  if (data) *data = nullptr;
  if (size) *size = 0;
  return capi::guard([&] {
    const char* fn = "ct_torch_save_buffer";
    capi::require_out(data, fn, "data");
    capi::require_out(size, fn, "size");
    const std::string s = structure_arg(structure, fn);
    const std::vector<Tensor> ts = capi::tensor_list(tensors, n, fn, "tensors", false);
    // The size first (no data read), then the bytes straight into the buffer the caller frees.
    const uint64_t total = io::torch_file_size(s, ts, fn);
    CT_CHECK(total < SIZE_MAX, CT_ERROR_OUT_OF_MEMORY, fn, ": the file would hold ", total, " bytes");
    std::unique_ptr<char, void (*)(void*)> out(static_cast<char*>(ct::fault::malloc(static_cast<size_t>(total) + 1)),
                                               &std::free);
    if (!out) throw std::bad_alloc();
    size_t at = 0;
    io::write_torch_file(s, ts, [&](const void* p, size_t k) {
      CT_CHECK(at + k <= total, CT_ERROR_INTERNAL, fn, ": the file grew between its two writes");
      std::memcpy(out.get() + at, p, k);
      at += k;
    }, fn);
    *data = out.release();  // malloc'ed, as ct_string_release expects
    *size = static_cast<size_t>(total);
  });
}

}  // extern "C"
