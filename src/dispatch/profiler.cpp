#include "dispatch/profiler.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "core/fault_injection.h"
#include "dispatch/operator.h"
#include "dispatch/value.h"
#include "runtime/json.h"
#include "runtime/log.h"

namespace ct {

using runtime::append_json_string;
using runtime::log;
using runtime::LogLevel;

namespace detail {
std::atomic<bool> g_profiling{false};
}

namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Input {
  DType dtype;
  uint32_t first_dim, ndim;  // into ThreadBuffer::dims
};

struct Span {
  const char* name;  // an OperatorDef's full_name: operators are never destroyed
  int64_t ts_ns, dur_ns;
  uint32_t first_input, ninputs;  // into ThreadBuffer::inputs
  Device device;
};

struct ThreadBuffer {
  explicit ThreadBuffer(uint64_t s) : session(s), tid(static_cast<int64_t>(::syscall(SYS_gettid))) {}
  const uint64_t session;
  const int64_t tid;
  std::mutex mu;  // taken by its thread per span, and by the stopping thread once
  std::vector<Span> spans;
  std::vector<Input> inputs;
  std::vector<int64_t> dims;
};

struct Session {
  std::mutex mu;
  bool running = false;  // guarded by mu
  int64_t start_ns = 0;
  std::vector<std::shared_ptr<ThreadBuffer>> buffers;  // guarded by mu
};
Session& session() {
  static Session* s = new Session;  // never destroyed: threads may record during static destruction
  return *s;
}
std::atomic<uint64_t> g_session_id{0};  // changes at each start; a buffer from an older one is stale
// Spans of the running session lost because there was no memory to record them (~OpSpan).
std::atomic<uint64_t> g_dropped_spans{0};

void warn_dropped_spans() {
  const uint64_t n = g_dropped_spans.load(std::memory_order_relaxed);
  if (n) log(LogLevel::Warning, str("profiler: ", n, " operator spans are missing: out of memory while recording them"));
}

thread_local std::shared_ptr<ThreadBuffer> t_buffer;

// This thread's buffer in the running session, registered on first use; null when none runs.
ThreadBuffer* thread_buffer() {
  const uint64_t id = g_session_id.load(std::memory_order_acquire);
  if (t_buffer && t_buffer->session == id) return t_buffer.get();
  Session& s = session();
  std::lock_guard<std::mutex> g(s.mu);
  if (!s.running) return nullptr;
  t_buffer = std::make_shared<ThreadBuffer>(g_session_id.load(std::memory_order_relaxed));
  s.buffers.push_back(t_buffer);
  return t_buffer.get();
}

void add_input(ThreadBuffer& b, const TensorImpl& t) {
  IntArrayRef sizes = t.sizes();
  b.inputs.push_back(Input{t.dtype(), static_cast<uint32_t>(b.dims.size()), static_cast<uint32_t>(sizes.size())});
  b.dims.insert(b.dims.end(), sizes.begin(), sizes.end());
}

// Microseconds (Chrome's unit) with nanosecond digits.
void micros(std::string& out, int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
  out += buf;
}

struct Flat {
  const ThreadBuffer* buffer;
  const Span* span;
};

std::string render(const std::vector<std::shared_ptr<ThreadBuffer>>& buffers, int64_t start_ns) {
  std::vector<Flat> all;
  for (const auto& b : buffers)
    for (const Span& s : b->spans) all.push_back(Flat{b.get(), &s});
  // By start time; a caller before the calls it makes (same start: the longer one first).
  std::stable_sort(all.begin(), all.end(), [](const Flat& a, const Flat& b) {
    if (a.span->ts_ns != b.span->ts_ns) return a.span->ts_ns < b.span->ts_ns;
    return a.span->dur_ns > b.span->dur_ns;
  });
  const long long pid = static_cast<long long>(::getpid());
  std::string out = "{\"traceEvents\":[";
  out.reserve(all.size() * 200 + 64);
  bool first = true;
  for (const Flat& f : all) {
    const Span& s = *f.span;
    out += first ? "\n" : ",\n";
    first = false;
    out += "{\"name\":";
    append_json_string(out, s.name);
    out += ",\"ph\":\"X\",\"ts\":";
    micros(out, s.ts_ns - start_ns);
    out += ",\"dur\":";
    micros(out, s.dur_ns);
    out += str(",\"pid\":", pid, ",\"tid\":", f.buffer->tid, ",\"cat\":\"operator\",\"args\":{\"input_shapes\":[");
    for (uint32_t i = 0; i < s.ninputs; ++i) {
      const Input& in = f.buffer->inputs[s.first_input + i];
      out += i ? ",[" : "[";
      for (uint32_t d = 0; d < in.ndim; ++d) out += str(d ? "," : "", f.buffer->dims[in.first_dim + d]);
      out += ']';
    }
    out += "],\"input_dtypes\":[";
    for (uint32_t i = 0; i < s.ninputs; ++i) {
      if (i) out += ',';
      append_json_string(out, dtype_name(f.buffer->inputs[s.first_input + i].dtype));
    }
    out += "],\"device\":";
    append_json_string(out, device_string(s.device).c_str());
    out += "}}";
  }
  out += "\n],\"displayTimeUnit\":\"ns\"}\n";
  return out;
}

// Ends the running session (CT_ERROR_INVALID_ARGUMENT naming fn when none runs); its buffers.
std::vector<std::shared_ptr<ThreadBuffer>> end_session(const char* fn, int64_t* start_ns) {
  Session& s = session();
  std::vector<std::shared_ptr<ThreadBuffer>> buffers;
  {
    std::lock_guard<std::mutex> g(s.mu);
    CT_CHECK(s.running, CT_ERROR_INVALID_ARGUMENT, fn, ": the profiler is not running. Call ct_profiler_start first");
    s.running = false;
    detail::g_profiling.store(false, std::memory_order_relaxed);
    buffers.swap(s.buffers);
    *start_ns = s.start_ns;
  }
  // A span that ends on another thread right now finishes under its buffer's lock: wait for it.
  for (const auto& b : buffers) std::lock_guard<std::mutex> g(b->mu);
  return buffers;
}

size_t count_spans(const std::vector<std::shared_ptr<ThreadBuffer>>& buffers) {
  size_t n = 0;
  for (const auto& b : buffers) n += b->spans.size();
  return n;
}

}  // namespace

OpSpan::OpSpan(const OperatorDef& op, const Value* args, size_t nargs)
    : op_(op), args_(args), nargs_(nargs), start_ns_(now_ns()) {}

OpSpan::~OpSpan() {
  try {
    record();
  } catch (...) {  // out of memory for the span itself: lose the span, never the operator's result
    g_dropped_spans.fetch_add(1, std::memory_order_relaxed);
    fault::failure_absorbed();
  }
}

void OpSpan::record() {
  const int64_t end = now_ns();
  ThreadBuffer* b = thread_buffer();
  if (!b) return;  // stopped while this operator ran
  std::lock_guard<std::mutex> g(b->mu);
  if (g_session_id.load(std::memory_order_relaxed) != b->session || !profiler_enabled()) return;
  Span s{op_.full_name.c_str(), start_ns_, end - start_ns_, static_cast<uint32_t>(b->inputs.size()), 0, kCPU};
  bool have_device = false;
  for (size_t i = 0; i < nargs_; ++i) {
    const Value& v = args_[i];
    if (v.is_tensor()) {
      add_input(*b, v.tensor());
      if (!have_device) s.device = v.tensor().device();
      have_device = true;
    } else if (v.kind() == Value::Kind::TensorList) {
      for (const TensorImpl* t : v.tensor_list()) {
        add_input(*b, *t);
        if (!have_device) s.device = t->device();
        have_device = true;
      }
    }
  }
  if (!have_device && op_.device_arg >= 0 && args_[op_.device_arg].kind() == Value::Kind::Device)
    s.device = args_[op_.device_arg].device();
  s.ninputs = static_cast<uint32_t>(b->inputs.size()) - s.first_input;
  b->spans.push_back(s);
}

void profiler_start() {
  Session& s = session();
  std::lock_guard<std::mutex> g(s.mu);
  CT_CHECK(!s.running, CT_ERROR_INVALID_ARGUMENT,
           "ct_profiler_start: the profiler is already running. Stop it first (ct_profiler_stop_to_file)");
  s.running = true;
  s.start_ns = now_ns();
  g_dropped_spans.store(0, std::memory_order_relaxed);
  g_session_id.fetch_add(1, std::memory_order_release);
  detail::g_profiling.store(true, std::memory_order_relaxed);
}

std::string profiler_stop() {
  int64_t start = 0;
  auto buffers = end_session("ct_profiler_stop_to_string", &start);
  log(LogLevel::Info, str("profiler: stopped with ", count_spans(buffers), " operator spans"));
  warn_dropped_spans();
  return render(buffers, start);
}

void profiler_stop_to_file(const std::string& path) {
  const char* fn = "ct_profiler_stop_to_file";
  CT_CHECK(!path.empty(), CT_ERROR_INVALID_ARGUMENT, fn, ": path is empty. Pass the trace file's name");
  {
    Session& s = session();
    std::lock_guard<std::mutex> g(s.mu);
    CT_CHECK(s.running, CT_ERROR_INVALID_ARGUMENT, fn, ": the profiler is not running. Call ct_profiler_start first");
  }
  // Create the file's future neighbour first: a path that cannot be written leaves the session
  // running, so the caller loses nothing and can try another path.
  std::string tmp = path + ".XXXXXX";
  const int fd = ::mkstemp(&tmp[0]);
  CT_CHECK(fd >= 0, CT_ERROR_IO, fn, ": cannot create a file beside '", path, "': ", std::strerror(errno),
           ". Pass a path in a writable directory; the profiler keeps running");
  ::fchmod(fd, 0644);
  std::string json;
  int64_t start = 0;
  size_t nspans = 0;
  try {
    auto buffers = end_session(fn, &start);
    warn_dropped_spans();
    nspans = count_spans(buffers);
    json = render(buffers, start);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  size_t done = 0;
  while (done < json.size()) {
    const ssize_t n = ::write(fd, json.data() + done, json.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const int write_errno = done == json.size() ? 0 : (errno ? errno : EIO);
  const bool closed = ::close(fd) == 0;
  if (write_errno || !closed || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = write_errno ? write_errno : errno;
    ::unlink(tmp.c_str());
    fail(CT_ERROR_IO, str(fn, ": could not write '", path, "': ", std::strerror(e), ". The profiler is stopped and ",
                          nspans, " spans were lost; free space or pick another path next time"));
  }
  log(LogLevel::Info, str("profiler: wrote ", nspans, " operator spans to ", path));
}

}  // namespace ct
