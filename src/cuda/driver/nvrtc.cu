// nvrtc.cu - run-time compilation (NVRTC, no device needed) and loading and launching the result
// through the runtime's library API (cudaLibraryLoadData / cudaLibraryGetKernel / cudaLaunchKernel),
// so this library links cudart only and loads where no driver is installed.
#include <nvrtc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "status.h"

namespace ct::cuda {
namespace {

int nvrtc_fail(nvrtcResult r, const char* what, const char* name) {
  return fail(CT_CUDA_ERR_NVRTC, "nvrtc_compile: %s for '%s' failed: %s", what, name, nvrtcGetErrorString(r));
}

char* copy_string(const char* s, size_t n) {
  char* p = static_cast<char*>(std::malloc(n + 1));
  if (p) {
    std::memcpy(p, s, n);
    p[n] = '\0';
  }
  return p;
}

}  // namespace

int nvrtc_compile(const char* source, const char* name, int arch_major, int arch_minor, char** image, size_t* size,
                  char** log) {
  if (log) *log = nullptr;
  CT_CUDA_ARG(source && image && size, "nvrtc_compile: NULL source, image or size");
  CT_CUDA_ARG(arch_major > 0 && arch_minor >= 0 && arch_minor < 10, "nvrtc_compile: arch %d.%d is not a compute "
              "capability. Pass e.g. 8, 0 for sm_80", arch_major, arch_minor);
  if (!name) name = "kernel.cu";
  *image = nullptr;
  *size = 0;
  nvrtcProgram prog = nullptr;
  nvrtcResult r = nvrtcCreateProgram(&prog, source, name, 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS) return nvrtc_fail(r, "nvrtcCreateProgram", name);
  char arch[48];
  std::snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", arch_major, arch_minor);
  const char* opts[] = {arch, "-std=c++17", "--fmad=false"};
  const nvrtcResult compiled = nvrtcCompileProgram(prog, 3, opts);
  size_t log_size = 0;
  char* log_text = nullptr;
  if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 0) {
    log_text = static_cast<char*>(std::malloc(log_size));
    if (log_text && nvrtcGetProgramLog(prog, log_text) != NVRTC_SUCCESS) log_text[0] = '\0';
  }
  if (!log_text) log_text = copy_string("", 0);
  int status = 0;
  if (compiled != NVRTC_SUCCESS) {
    status = fail(CT_CUDA_ERR_NVRTC, "nvrtc_compile: compiling '%s' for sm_%d%d failed (%s):\n%s", name, arch_major,
                  arch_minor, nvrtcGetErrorString(compiled), log_text ? log_text : "");
  } else {
    size_t n = 0;
    r = nvrtcGetCUBINSize(prog, &n);
    if (r == NVRTC_SUCCESS) {
      *image = static_cast<char*>(std::malloc(n));
      if (!*image) {
        status = fail(CT_CUDA_ERR_OOM, "nvrtc_compile: could not allocate %zu bytes for the CUBIN of '%s'", n, name);
      } else if ((r = nvrtcGetCUBIN(prog, *image)) != NVRTC_SUCCESS) {
        std::free(*image);
        *image = nullptr;
        status = nvrtc_fail(r, "nvrtcGetCUBIN", name);
      } else {
        *size = n;
      }
    } else {
      status = nvrtc_fail(r, "nvrtcGetCUBINSize", name);
    }
  }
  nvrtcDestroyProgram(&prog);
  if (log) *log = log_text;
  else std::free(log_text);
  return status;
}

int buffer_free(void* buffer) {
  std::free(buffer);
  return 0;
}

int module_load(const void* image, void** module) {
  CT_CUDA_ARG(image && module, "module_load: NULL image or module");
  cudaLibrary_t lib = nullptr;
  CT_CUDA_TRY(cudaLibraryLoadData(&lib, image, nullptr, nullptr, 0, nullptr, nullptr, 0));
  *module = lib;
  return 0;
}

int module_unload(void* module) {
  if (!module) return 0;
  CT_CUDA_TRY(cudaLibraryUnload(static_cast<cudaLibrary_t>(module)));
  return 0;
}

int module_get_function(void* module, const char* name, void** fn) {
  CT_CUDA_ARG(module && name && fn, "module_get_function: NULL module, name or fn");
  cudaKernel_t k = nullptr;
  const cudaError_t e = cudaLibraryGetKernel(&k, static_cast<cudaLibrary_t>(module), name);
  if (e != cudaSuccess) {
    const int st = check(e, "cudaLibraryGetKernel");
    return fail(st, "module_get_function: no kernel '%s' in the module: %s (%s). Declare it extern \"C\" "
                "__global__", name, cudaGetErrorString(e), cudaGetErrorName(e));
  }
  *fn = k;
  return 0;
}

int launch(void* fn, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz,
           uint32_t shared_bytes, void* stream, void** args) {
  CT_CUDA_ARG(fn, "launch: fn is NULL");
  // A cudaKernel_t from cudaLibraryGetKernel is accepted wherever a kernel symbol is.
  CT_CUDA_TRY(cudaLaunchKernel(static_cast<const void*>(fn), dim3(gx, gy, gz), dim3(bx, by, bz), args,
                               shared_bytes, as_stream(stream)));
  return 0;
}

}  // namespace ct::cuda
