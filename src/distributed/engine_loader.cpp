// engine_loader.cpp - load_engine: where a module is looked for, and what a failure says.
#include "distributed/engine_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <vector>

#include "core/error.h"

namespace ct::dist {
namespace {

struct Known {
  const char* name;
  const char* install;  // what a machine without the engine needs
};
constexpr Known kKnown[] = {
    {"gloo", "install libgloo-dev and rebuild ctorch"},
    {"mpi", "install libopenmpi-dev and openmpi-bin, rebuild ctorch, and launch with mpirun"},
    {"nccl", "build ctorch with CUDA and NCCL (nccl.h and libnccl), and run on a machine with a CUDA GPU"},
};

/// The directory holding libctorch (or the program it is linked into).
std::string own_directory() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&load_engine), &info) == 0 || !info.dli_fname) return {};
  std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

struct Loaded {
  const ct_engine* engine = nullptr;
  std::string error;  // why it did not load, kept so every later call says the same
};

Loaded open_engine(const Known& k) {
  const std::string file = str("libctorch_", k.name, ".so");
  // Beside the library first, so a build tree's or an installation's modules go with its library.
  std::vector<std::string> candidates;
  const std::string own = own_directory();
  if (!own.empty()) candidates.push_back(own + "/" + file);
#ifdef CTORCH_ENGINE_BUILD_DIR
  candidates.push_back(str(CTORCH_ENGINE_BUILD_DIR, "/", file));
#endif
#ifdef CTORCH_ENGINE_INSTALL_DIR
  candidates.push_back(str(CTORCH_ENGINE_INSTALL_DIR, "/", file));
#endif
  candidates.push_back(file);  // LD_LIBRARY_PATH and the loader's own search
  std::string errors;
  for (const std::string& path : candidates) {
    // RTLD_GLOBAL: Open MPI's own plugins resolve libmpi's symbols from the global scope, which a
    // module opened locally would hide from them. A module exports nothing but ct_engine_get.
    void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
      const char* why = ::dlerror();
      // A module that exists but fails to load (a missing libmpi, say) is the error worth reporting.
      if (why && path.find('/') != std::string::npos && ::access(path.c_str(), F_OK) == 0)
        errors += str("\n  ", why);
      continue;
    }
    auto get = reinterpret_cast<ct_engine_get_fn>(::dlsym(h, "ct_engine_get"));
    const ct_engine* e = get ? get() : nullptr;
    if (!e || e->abi != CT_ENGINE_ABI)
      return {nullptr, str("distributed backend '", k.name, "': ", path,
                           e ? " was built for another engine interface version" : " has no ct_engine_get",
                           "; rebuild ctorch so its modules match the library")};
    return {e, {}};
  }
  if (!errors.empty())
    return {nullptr, str("distributed backend '", k.name, "': its module ", file, " did not load:", errors,
                         "\nInstall what it links (", k.install, ")")};
  return {nullptr, str("distributed backend '", k.name, "' is not built into this ctorch (no ", file,
                       " beside the library): ", k.install)};
}

}  // namespace

const ct_engine& load_engine(const std::string& name) {
  const Known* known = nullptr;
  for (const Known& k : kKnown)
    if (name == k.name) known = &k;
  CT_CHECK(known, CT_ERROR_INVALID_ARGUMENT, "init_process_group: unknown backend '", name,
           "'. Known backends: gloo (CPU), mpi (CPU, under mpirun), nccl (CUDA)");
  static std::mutex mu;
  static std::map<std::string, Loaded> loaded;
  std::lock_guard<std::mutex> lock(mu);
  auto it = loaded.find(name);
  if (it == loaded.end()) it = loaded.emplace(name, open_engine(*known)).first;
  CT_CHECK(it->second.engine, CT_ERROR_BACKEND, it->second.error);
  return *it->second.engine;
}

}  // namespace ct::dist
