// profiler.h - operator spans recorded per thread and written as a Chrome trace
// (ct_profiler_start, ct_profiler_stop_to_file, ct_profiler_stop_to_string).
//
// Note [Profiler spans]
// ct::dispatch() asks profiler_enabled() on every call: one relaxed atomic load, the only cost while
// the profiler is off. While it is on, each dispatch() is an OpSpan: nested calls (a composite
// operator's parts, the operators autograd's backward runs) are spans of their own that lie within
// their caller's. A span goes to its thread's buffer, found through a thread_local pointer and
// guarded by that buffer's own mutex, which only the stopping thread ever contends for: no global
// lock per span. The session owns every buffer, so a thread that exits keeps its spans until stop.
// The profiler lives in dispatch/ because what it records is dispatched operator calls.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace ct {

class Value;
struct OperatorDef;

namespace detail {
extern std::atomic<bool> g_profiling;
}

/// Whether spans are being recorded (see Note [Profiler spans]).
inline bool profiler_enabled() { return detail::g_profiling.load(std::memory_order_relaxed); }

/// One operator call on this thread, timed from construction to destruction (an operator that
/// throws is recorded too); the input tensors' shapes and dtypes are read when it ends.
class OpSpan {
 public:
  OpSpan(const OperatorDef& op, const Value* args, size_t nargs);
  ~OpSpan();
  OpSpan(const OpSpan&) = delete;
  OpSpan& operator=(const OpSpan&) = delete;

 private:
  void record();
  const OperatorDef& op_;
  const Value* args_;
  size_t nargs_;
  int64_t start_ns_;
};

/// Starts a session; CT_ERROR_INVALID_ARGUMENT when one is running.
void profiler_start();
/// Ends the session and returns its Chrome trace JSON; CT_ERROR_INVALID_ARGUMENT when none runs.
std::string profiler_stop();
/// Ends the session and writes its trace to path through a temporary file renamed into place.
/// CT_ERROR_IO naming path when the file cannot be created (the session then keeps running) or
/// written (the spans are then lost); the file is never left half-written.
void profiler_stop_to_file(const std::string& path);

}  // namespace ct
