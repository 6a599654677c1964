// compiled.h - CompiledFunction: ct_compile's cache of traced graphs, each behind its guards.
//
// Note [Compiled entries and guards]
// A call looks for a cached entry whose guards hold: per input its dtype, device, rank,
// requires_grad, layout (contiguous, or the exact strides), each static size, and for symbolic
// sizes the facts the ShapeEnv recorded while tracing (s0 == s1, s0 >= 3), compiled to postfix
// code; whether each captured tensor requires grad; and the global switches a result depends on
// (grad mode, deterministic mode, default dtype and device, matmul precision). On a miss it traces
// again. With dynamic "automatic" the first trace is static; a size that differs from the one an
// earlier entry was traced with becomes a symbol (sizes 0 and 1 stay static, as in PyTorch), so
// one new entry serves every size >= 2.
// A trace that fails (a data read, an operator with no meta function) is a graph break: the entry
// remembers it and runs the function eagerly, after one warning; under fullgraph it is an error.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "compile/fuse.h"
#include "compile/trace.h"

namespace ct::compile {

enum class Dynamic : int8_t { Off = 0, On = 1, Automatic = 2 };

struct CompileOptions {
  std::string backend = "fused";
  std::string mode = "default";
  std::vector<std::pair<std::string, std::string>> options;
  Dynamic dynamic = Dynamic::Automatic;
  bool fullgraph = false;
  int64_t recompile_limit = 8;
  std::string name;
  bool disable = false;

  /// CT_ERROR_INVALID_ARGUMENT for an unknown backend, mode or option key (listing the known),
  /// a bad option value or a recompile limit below 1; with whole, also for mode and options
  /// together (setters check each value alone, ct_compile the whole).
  void validate(bool whole = true) const;
  /// The boolean option key ("fusion", "cse", ...), or its default.
  bool flag(const std::string& key) const;
  /// The options "cpp_kernels" ("true", "false" or "auto") and "cpp_kernels_hot_ms", or the mode's
  /// defaults.
  CppKernels cpp_kernels() const;
};

/// The backends, modes and option keys validate() knows, for messages and docs.
const std::vector<std::string>& known_backends();

/// Note [Bounded latency percentiles]
/// Compile latencies are counted in a fixed histogram, never kept one by one: a process that
/// compiles millions of times (a recompiling loop) would otherwise grow by 8 bytes per compile and
/// sort them all for each metrics read. Values below 16 us have a bucket each; above, each power of
/// two is split in four, so a percentile is exact below 16 us and within 12.5% above (it reports
/// the middle of its bucket). Memory and read time stay constant.
class LatencyHistogram {
 public:
  void record(int64_t us);
  /// Percentile p (0..100) of the recorded values; 0 when there are none.
  int64_t percentile(double p) const;

 private:
  static constexpr int kExact = 16, kSplit = 4, kBuckets = kExact + (63 - 4) * kSplit;
  static int bucket_of(uint64_t v);
  static int64_t middle_of(int b);
  int64_t counts_[kBuckets] = {};
  int64_t total_ = 0;
};

/// Counters of one compiled function (and, summed, of the process: global_metrics()).
struct CompileMetrics {
  std::atomic<int64_t> calls{0}, compiles{0}, recompiles{0}, graph_breaks{0}, eager_calls{0}, guard_misses{0};
  std::atomic<int64_t> last_guards{0};  // guards of the most recent graph
  mutable std::mutex mu;
  LatencyHistogram latency_us;  // one value per compile; guarded by mu
  void record_compile(int64_t us, int64_t guards);
  /// Percentile p (0..100) of compile latency in microseconds; 0 before any compile.
  int64_t latency_percentile(double p) const;
  std::string to_json() const;
};
CompileMetrics& global_metrics();

struct JointPlan;  // joint.h

class CompiledFunction {
 public:
  CompiledFunction(TraceFn fn, CompileOptions options);
  ~CompiledFunction();

  /// Runs the function on inputs through a cached graph (compiling one on a miss), filling nouts
  /// outputs.
  void call(ArrayRef<const TensorImpl*> inputs, size_t nouts, std::vector<Tensor>& outs);

  const CompileOptions& options() const { return options_; }
  const CompileMetrics& metrics() const { return metrics_; }
  /// The printed graph of entry i (entries in creation order), or a line saying it runs eagerly
  /// and why; CT_ERROR_INDEX when there is no entry i.
  std::string graph_string(size_t i) const;
  size_t num_entries() const;

 private:
  struct Entry;
  Entry* lookup(ArrayRef<const TensorImpl*> inputs, size_t nouts, std::vector<sym::BoundValue>& binding) const;
  Entry* compile(ArrayRef<const TensorImpl*> inputs, size_t nouts);
  void run_eager(ArrayRef<const TensorImpl*> inputs, size_t nouts, std::vector<Tensor>& outs);
  /// Dead code, common subexpressions and constant folding, as the options say, then fusion.
  void optimize(Graph& g, bool fusing) const;
  /// Traces the function again with autograd live into a compiled forward and backward for
  /// proxies of specs, or null and why it cannot (the entry's graph then replays through autograd).
  std::shared_ptr<const JointPlan> compile_joint(ArrayRef<const TensorImpl*> inputs, const std::vector<ProxySpec>& specs,
                                                 size_t nouts, std::string& why) const;
  /// For an entry with symbolic sizes: the compiled forward and backward for the inputs' sizes,
  /// traced on first use; null past recompile_limit sizes or when that trace failed.
  std::shared_ptr<const JointPlan> sized_joint(Entry& e, ArrayRef<const TensorImpl*> inputs) const;

  TraceFn fn_;
  CompileOptions options_;
  const uint64_t id_;
  CompileMetrics metrics_;
  mutable std::recursive_mutex mu_;
  std::vector<std::unique_ptr<Entry>> entries_;
  // Automatic dynamic, per input: its sizes at the first trace and the dims seen to change since.
  struct SeenInput {
    std::vector<int64_t> sizes;
    std::vector<bool> dynamic;
  };
  std::vector<SeenInput> seen_;
};

}  // namespace ct::compile
