#include "capi/plugins.h"

#include <dirent.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "capi/handle.h"
#include "core/error.h"
#include "runtime/json.h"
#include "runtime/log.h"

namespace ct::capi {

using runtime::append_json_string;
using runtime::log;
using runtime::LogLevel;

namespace {

constexpr const char* kHint = "set CTORCH_DEVICE_BACKEND_AUTOLOAD=0 to start without plugins";

struct Plugin {
  std::string path;
  std::string error;  // empty when it loaded
};

struct State {
  std::mutex mu;
  bool done = false;  // guarded by mu, like the rest
  bool autoload = false;
  ct_status status = CT_OK;
  std::string message;
  std::vector<Plugin> plugins;
};
State& state() {
  static State* s = new State;  // never destroyed: loaded plugins stay loaded
  return *s;
}
std::atomic<int64_t> g_loaded{0}, g_failures{0}, g_time_us{0};
thread_local bool t_loading = false;  // this thread is inside autoloading (a plugin's init)

bool ends_with_so(const char* name) {
  const size_t n = std::strlen(name);
  return n > 3 && std::strcmp(name + n - 3, ".so") == 0;
}

// The *.so files of dir in sorted order; a directory that cannot be read is skipped with a warning.
std::vector<std::string> shared_objects(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    log(LogLevel::Warning, str("CTORCH_BACKEND_PATH names '", dir, "', which cannot be read (", std::strerror(errno),
                               "); skipped. Fix the path or remove it from CTORCH_BACKEND_PATH"));
    return names;
  }
  while (const dirent* e = ::readdir(d))
    if (ends_with_so(e->d_name)) names.push_back(dir + "/" + e->d_name);
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

// Opens one plugin and runs its init; the reason it failed, or "" when it loaded.
std::string load_one(const std::string& path) {
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = ::dlerror();
    return str("dlopen failed: ", e ? e : "unknown error");
  }
  void* sym = ::dlsym(h, "ct_plugin_init");
  if (!sym) return "it has no ct_plugin_init function (define it extern \"C\" with default visibility)";
  ct_plugin_init_fn init;
  static_assert(sizeof init == sizeof sym, "function and data pointers differ in size");
  std::memcpy(&init, &sym, sizeof init);
  int st;
  try {
    st = capi::call_back("ct_plugin_init", [&] { return init(CT_ABI_VERSION); });
  } catch (const Error& e) {
    return e.message();
  } catch (...) {
    return "ct_plugin_init threw a C++ exception; catch it and return a status with ct_error_set";
  }
  if (st == CT_OK) return "";
  try {
    capi::fail_callback(st, "ct_plugin_init returned " + (capi::is_status(st) ? std::string(ct_status_name(
                                                                                static_cast<ct_status>(st)))
                                                                          : str(st)));
  } catch (const Error& e) {
    return e.message();
  }
  return "ct_plugin_init failed";
}

void load_all(State& s) {
  const char* autoload = std::getenv("CTORCH_DEVICE_BACKEND_AUTOLOAD");
  s.autoload = !(autoload && std::strcmp(autoload, "0") == 0);
  const char* path = std::getenv("CTORCH_BACKEND_PATH");
  if (!s.autoload || !path || !*path) {
    if (!s.autoload && path && *path)
      log(LogLevel::Debug, "CTORCH_DEVICE_BACKEND_AUTOLOAD=0: plugins on CTORCH_BACKEND_PATH are not loaded");
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  std::string list = path;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t colon = list.find(':', pos);
    if (colon == std::string::npos) colon = list.size();
    const std::string dir = list.substr(pos, colon - pos);
    pos = colon + 1;
    if (dir.empty()) continue;
    for (const std::string& file : shared_objects(dir)) {
      std::string why = load_one(file);
      if (why.empty()) {
        g_loaded.fetch_add(1, std::memory_order_relaxed);
        log(LogLevel::Info, str("loaded plugin ", file));
      } else {
        g_failures.fetch_add(1, std::memory_order_relaxed);
        if (s.status == CT_OK) {
          s.status = CT_ERROR_BACKEND;
          s.message = str("ct_init: plugin ", file, " failed to load: ", why, ". Fix or remove it, or ", kHint);
        }
      }
      s.plugins.push_back(Plugin{file, std::move(why)});
    }
  }
  if (g_failures.load(std::memory_order_relaxed) > 1)
    s.message += str(" (", g_failures.load(std::memory_order_relaxed), " plugins failed; ct_plugins_json lists them)");
  g_time_us.store(std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count(),
                  std::memory_order_relaxed);
}

}  // namespace

void autoload_plugins() {
  if (t_loading) return;  // a plugin's init called ct_init
  State& s = state();
  std::lock_guard<std::mutex> g(s.mu);
  if (!s.done) {
    t_loading = true;
    try {
      load_all(s);
    } catch (...) {  // out of memory while listing: report it like a plugin failure
      s.status = CT_ERROR_BACKEND;
      s.message = str("ct_init: loading plugins from CTORCH_BACKEND_PATH failed. ", kHint);
    }
    t_loading = false;
    s.done = true;
  }
  if (s.status != CT_OK) fail(s.status, s.message);
}

int64_t plugins_loaded() { return g_loaded.load(std::memory_order_relaxed); }
int64_t plugin_load_failures() { return g_failures.load(std::memory_order_relaxed); }
int64_t plugin_autoload_time_us() { return g_time_us.load(std::memory_order_relaxed); }

std::string plugins_json() {
  CT_CHECK(!t_loading, CT_ERROR_INVALID_ARGUMENT,
           "ct_plugins_json: called from a plugin's ct_plugin_init, while plugins load. Call it after ct_init");
  State& s = state();
  std::lock_guard<std::mutex> g(s.mu);
  std::string out = str("{\"autoload\":", s.done ? (s.autoload ? "true" : "false") : "null", ",\"plugins\":[");
  for (size_t i = 0; i < s.plugins.size(); ++i) {
    out += i ? ",{\"path\":" : "{\"path\":";
    append_json_string(out, s.plugins[i].path.c_str());
    out += s.plugins[i].error.empty() ? ",\"loaded\":true,\"error\":null}" : ",\"loaded\":false,\"error\":";
    if (!s.plugins[i].error.empty()) {
      append_json_string(out, s.plugins[i].error.c_str());
      out += '}';
    }
  }
  out += "]}";
  return out;
}

}  // namespace ct::capi

using namespace ct;

extern "C" {

ct_status ct_plugins_json(char** out) {
  if (out) *out = nullptr;
  return capi::guard([&] {
    capi::require_out(out, "ct_plugins_json", "out");
    *out = capi::copy_string(capi::plugins_json());
  });
}

}  // extern "C"
