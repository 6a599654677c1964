#include "runtime/log.h"

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <unordered_set>


namespace ct::runtime {
namespace {

// Note [Swapping the log handler]
// A handler is shared: a call in flight holds it while another thread installs a new one, and the
// old one's destroy(user_data) runs only after its last call returns. The handler runs outside the
// lock, so it may itself log, or install another handler, without deadlock.
struct Handler {
  Handler(ct_log_fn f, void* u, ct_destroy_fn d) : fn(f), user_data(u), destroy(d) {}
  Handler(const Handler&) = delete;
  ct_log_fn fn;
  void* user_data;
  ct_destroy_fn destroy;
  ~Handler() {
    if (destroy) destroy(user_data);
  }
};

std::mutex handler_mu;
std::shared_ptr<Handler> handler;  // guarded by handler_mu; null: stderr
std::atomic<int> threshold{static_cast<int>(LogLevel::Warning)};

const char* level_name(LogLevel l) {
  switch (l) {
    case LogLevel::Debug: return "debug";
    case LogLevel::Info: return "info";
    case LogLevel::Warning: return "warning";
    case LogLevel::Error: return "error";
  }
  return "?";
}

}  // namespace

bool log_enabled(LogLevel level) { return static_cast<int>(level) >= threshold.load(std::memory_order_relaxed); }

void log(LogLevel level, const std::string& message) {
  if (!log_enabled(level)) return;
  std::shared_ptr<Handler> h;
  {
    std::lock_guard<std::mutex> g(handler_mu);
    h = handler;
  }
  if (h)
    h->fn(h->user_data, static_cast<ct_log_level>(level), message.c_str());
  else
    std::fprintf(stderr, "[ctorch %s] %s\n", level_name(level), message.c_str());
}

void set_log_handler(ct_log_fn fn, void* user_data, ct_destroy_fn destroy) {
  std::shared_ptr<Handler> next = fn ? std::make_shared<Handler>(fn, user_data, destroy) : nullptr;
  std::shared_ptr<Handler> old;
  {
    std::lock_guard<std::mutex> g(handler_mu);
    old.swap(handler);
    handler = std::move(next);
  }
}  // old is released here, outside the lock: see Note [Swapping the log handler]

void set_log_threshold(LogLevel level) { threshold.store(static_cast<int>(level), std::memory_order_relaxed); }

LogLevel log_threshold() { return static_cast<LogLevel>(threshold.load(std::memory_order_relaxed)); }

namespace {
std::atomic<bool> always_warn{false};
}

void set_warn_always(bool on) { always_warn.store(on, std::memory_order_relaxed); }
bool warn_always() { return always_warn.load(std::memory_order_relaxed); }

void warn_once(const std::string& key, const std::string& message) {
  if (!log_enabled(LogLevel::Warning)) return;  // not delivered: the key stays unspent
  if (warn_always()) {
    log(LogLevel::Warning, message);
    return;
  }
  static std::mutex mu;
  static std::unordered_set<std::string> seen;
  {
    std::lock_guard<std::mutex> g(mu);
    if (!seen.insert(key).second) return;
  }
  log(LogLevel::Warning, message);
}

}  // namespace ct::runtime
