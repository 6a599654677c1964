#include "cuda/context.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "core/error.h"

namespace ct::cuda {
namespace {

struct Loaded {
  const ct_cuda_driver* table = nullptr;
  int count = 0;
  std::string reason;  // why count is 0
};

// Where libctorch_cuda.so is: CTORCH_CUDA_LIBRARY, else beside the libctorch holding this code,
// else wherever the dynamic loader looks (a static libctorch.a has no directory of its own).
std::string library_path() {
  if (const char* p = std::getenv("CTORCH_CUDA_LIBRARY"); p && *p) return p;
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&library_path), &info) && info.dli_fname) {
    std::string self = info.dli_fname;
    const size_t slash = self.rfind('/');
    if (slash != std::string::npos && self.find("libctorch", slash) != std::string::npos)
      return self.substr(0, slash + 1) + "libctorch_cuda.so";
  }
  return "libctorch_cuda.so";
}

void load(Loaded& l) {
  const std::string path = library_path();
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    l.reason = str("the CUDA backend library ", path, " could not be loaded (", e ? e : "unknown error",
                   "). Build ctorch with -DCTORCH_WITH_CUDA=ON, or point CTORCH_CUDA_LIBRARY at libctorch_cuda.so");
    return;
  }
  void* sym = dlsym(h, "ct_cuda_driver_get");
  ct_cuda_driver_get_fn get;
  static_assert(sizeof get == sizeof sym, "function and data pointers differ in size");
  std::memcpy(&get, &sym, sizeof get);
  const ct_cuda_driver* t = get ? get(CT_CUDA_DRIVER_VERSION) : nullptr;
  if (!t || t->struct_size < sizeof(ct_cuda_driver)) {
    l.reason = str(path, " does not implement CUDA driver table version ", CT_CUDA_DRIVER_VERSION,
                   ". Use the libctorch_cuda.so built with this libctorch");
    return;
  }
  l.table = t;  // the library stays loaded: its table is static
  if (t->device_count(&l.count) != CT_CUDA_OK || l.count == 0) {
    l.count = 0;
    l.reason = t->last_error();
  }
}

const Loaded& loaded() {
  static const Loaded* l = [] {
    auto x = std::make_unique<Loaded>();
    load(*x);
    return x.release();  // never destroyed: tensors may be freed during static destruction
  }();
  return *l;
}

}  // namespace

const ct_cuda_driver& driver() {
  const Loaded& l = loaded();
  CT_CHECK(l.table && l.count > 0, CT_ERROR_DEVICE, "cuda: no cuda device is available: ", l.reason);
  return *l.table;
}

const ct_cuda_driver* library() { return loaded().table; }

int device_count() { return loaded().count; }

const char* unavailable_reason() { return loaded().reason.c_str(); }

void check(int status, const char* what) {
  if (status == CT_CUDA_OK) return;
  const ct_status st = status == CT_CUDA_ERR_OOM           ? CT_ERROR_OUT_OF_MEMORY
                       : status == CT_CUDA_ERR_UNSUPPORTED ? CT_ERROR_NOT_IMPLEMENTED
                                                           : CT_ERROR_BACKEND;
  fail(st, str(what, ": ", loaded().table ? loaded().table->last_error() : "CUDA is not loaded"));
}

void set_device(int device) {
  thread_local int current = -1;
  if (device == current) return;
  check(driver().set_device(device), "cuda: set_device");
  current = device;
}

namespace {
thread_local void* t_stream = nullptr;  // a StreamOverride's stream, or null
}  // namespace

void* current_stream(int) { return t_stream ? t_stream : CT_CUDA_STREAM_PER_THREAD; }

StreamOverride::StreamOverride(void* stream) : saved_(t_stream) { t_stream = stream; }
StreamOverride::~StreamOverride() { t_stream = saved_; }

}  // namespace ct::cuda
