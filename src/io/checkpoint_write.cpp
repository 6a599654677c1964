// checkpoint_write.cpp - writing safetensors checkpoints, laid out as the reference writer lays
// them out (the same header bytes for the same tensors and no metadata).

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <unordered_set>

#include "core/fault_injection.h"
#include "core/tensor_impl.h"
#include "core/utf8.h"
#include "dispatch/grad_mode.h"
#include "io/checkpoint.h"
#include "io/file.h"
#include "ops/functions.h"

// The format is little-endian and tensors are written as they lie in memory.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors writing assumes a little-endian host");

namespace ct::io {
namespace {

// The file's layout, computed before any byte is written.
struct Plan {
  std::string head;           // the 8-byte length and the padded header
  std::vector<size_t> order;  // indices into the tensors, in data order
  uint64_t data_bytes = 0;
};

Plan plan(const std::vector<NamedTensor>& tensors, const char* metadata_json, const char* fn) {
  std::unordered_set<std::string_view> names;
  std::vector<uint64_t> nbytes(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const std::string& name = tensors[i].name;
    const TensorImpl& t = *tensors[i].tensor;
    CT_CHECK(!name.empty(), CT_ERROR_INVALID_ARGUMENT, fn, ": names[", i, "] is empty. Give every tensor a name");
    CT_CHECK(name != "__metadata__", CT_ERROR_INVALID_ARGUMENT, fn, ": names[", i,
             "] is \"__metadata__\", which the format reserves for metadata. Rename the tensor");
    CT_CHECK(valid_utf8(name), CT_ERROR_INVALID_ARGUMENT, fn, ": names[", i,
             "] is not valid UTF-8 (the header is JSON). Use UTF-8 names");
    CT_CHECK(names.insert(name).second, CT_ERROR_INVALID_ARGUMENT, fn, ": the name '", name,
             "' is given twice (names[", i, "]). Names must be unique");
    CT_CHECK(!t.device().is_meta() && !t.is_symbolic(), CT_ERROR_DEVICE, fn, ": tensor '", name, "' (", t.dtype(),
             ", meta) has no data to save. Save a tensor with data");
    nbytes[i] = static_cast<uint64_t>(t.numel()) * itemsize(t.dtype());  // no overflow: numel * itemsize fits in memory
  }
  Plan p;
  p.order.resize(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) p.order[i] = i;
  // The reference writer's order: larger dtypes first (its dtype order), then names bytewise. With
  // the header padded to 8 bytes, every tensor then starts aligned to its item size.
  std::sort(p.order.begin(), p.order.end(), [&](size_t a, size_t b) {
    const int ra = st_dtype_of(tensors[a].tensor->dtype()).rank, rb = st_dtype_of(tensors[b].tensor->dtype()).rank;
    return ra != rb ? ra > rb : tensors[a].name < tensors[b].name;
  });

  std::string header = "{";
  if (metadata_json) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [key, value] : parse_string_map(metadata_json, str(fn, ": metadata_json"))) {
      if (!first) header += ',';
      first = false;
      append_json_string(header, key);
      header += ':';
      append_json_string(header, value);
    }
    header += '}';
  }
  for (const size_t i : p.order) {
    const TensorImpl& t = *tensors[i].tensor;
    if (header.size() > 1) header += ',';
    append_json_string(header, tensors[i].name);
    header += str(":{\"dtype\":\"", st_dtype_of(t.dtype()).name, "\",\"shape\":[");
    for (size_t d = 0; d < t.dim(); ++d) header += str(d ? "," : "", t.size(d));
    header += str("],\"data_offsets\":[", p.data_bytes, ",", p.data_bytes + nbytes[i], "]}");
    p.data_bytes += nbytes[i];
  }
  header += '}';
  header.append((8 - header.size() % 8) % 8, ' ');
  CT_CHECK(header.size() <= kMaxHeaderBytes, CT_ERROR_INVALID_ARGUMENT, fn, ": the header would take ", header.size(),
           " bytes, over the format's limit of ", kMaxHeaderBytes, ". Save fewer tensors per file");
  p.head.resize(8);
  for (int b = 0; b < 8; ++b) p.head[b] = static_cast<char>((header.size() >> (8 * b)) & 0xff);
  p.head += header;
  return p;
}

// Hands sink each tensor's bytes in data order: copied to the host and gathered when needed, one
// tensor at a time, so a device model never has two host copies alive.
void write_data(const std::vector<NamedTensor>& tensors, const Plan& p,
                const std::function<void(const void*, size_t)>& sink) {
  autograd::GradModeGuard no_grad(autograd::GradMode::NoGrad);
  for (const size_t i : p.order) {
    Tensor t = tensors[i].tensor;
    if (!t->device().is_cpu()) t = ops::to(t, kCPU, t->dtype());
    if (!t->is_contiguous()) t = ops::contiguous(t);
    const size_t n = static_cast<size_t>(t->numel()) * itemsize(t->dtype());
    if (n) sink(t->data(), n);
  }
}

}  // namespace

std::unique_ptr<char, void (*)(void*)> save_buffer(const std::vector<NamedTensor>& tensors, const char* metadata_json,
                                                   const char* fn, size_t* size) {
  const Plan p = plan(tensors, metadata_json, fn);
  const size_t total = p.head.size() + p.data_bytes;
  std::unique_ptr<char, void (*)(void*)> out(static_cast<char*>(ct::fault::malloc(total)), &std::free);
  if (!out) throw std::bad_alloc();
  std::memcpy(out.get(), p.head.data(), p.head.size());
  char* at = out.get() + p.head.size();
  write_data(tensors, p, [&](const void* data, size_t n) {
    std::memcpy(at, data, n);
    at += n;
  });
  *size = total;
  return out;
}

void save(const char* path, const std::vector<NamedTensor>& tensors, const char* metadata_json, const char* fn) {
  const Plan p = plan(tensors, metadata_json, fn);
  write_file_atomically(path, fn, [&](const ByteSink& sink) {
    sink(p.head.data(), p.head.size());
    write_data(tensors, p, sink);
  });
}

}  // namespace ct::io
