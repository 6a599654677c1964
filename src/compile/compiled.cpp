#include "compile/compiled.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "compile/cuda_graph.h"
#include "compile/fuse.h"
#include "compile/joint.h"
#include "compile/passes.h"
#include "compile/run.h"
#include "dispatch/grad_mode.h"
#include "runtime/defaults.h"
#include "runtime/determinism.h"
#include "runtime/log.h"
#include "symbolic/program.h"

namespace ct::compile {

namespace {

const std::vector<std::string> kModes = {"default", "reduce-overhead", "max-autotune"};
// Boolean option keys and their defaults.
const std::vector<std::pair<std::string, bool>> kFlags = {
    {"fusion", true}, {"cse", true}, {"dce", true}, {"constant_folding", true}};
// A boolean or "auto", and a number of milliseconds (Note [Building C++ kernels in the background]);
// CompileOptions::cpp_kernels reads them.
const char kCppKernelsKey[] = "cpp_kernels";
const char kHotMsKey[] = "cpp_kernels_hot_ms";

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + ("\"" + x + "\"");
  return s;
}

bool parse_flag(const std::string& key, const std::string& v) {
  if (v == "1" || v == "true" || v == "True") return true;
  if (v == "0" || v == "false" || v == "False") return false;
  fail(CT_ERROR_INVALID_ARGUMENT, str("ct_compile: option \"", key, "\" = \"", v,
                                      "\" is not a boolean. Use \"true\" or \"false\"",
                                      key == kCppKernelsKey ? " (or \"auto\")" : ""));
}

CppKernels::When parse_cpp_kernels(const std::string& v) {
  if (v == "auto") return CppKernels::WhenHot;
  return parse_flag(kCppKernelsKey, v) ? CppKernels::Always : CppKernels::Never;
}

int64_t parse_hot_ns(const std::string& v) {
  char* end = nullptr;
  const double ms = std::strtod(v.c_str(), &end);
  CT_CHECK(!v.empty() && *end == '\0' && ms >= 0 && ms <= 1e12, CT_ERROR_INVALID_ARGUMENT, "ct_compile: option \"",
           kHotMsKey, "\" = \"", v, "\" is not a number of milliseconds from 0 to 1e12 (\"100\", \"0.5\")");
  return static_cast<int64_t>(ms * 1e6);
}

/// The global switches a traced graph's results depend on.
struct Globals {
  int grad_mode, deterministic, default_dtype, matmul_precision;
  Device device;
  bool operator==(const Globals& o) const {
    return grad_mode == o.grad_mode && deterministic == o.deterministic && default_dtype == o.default_dtype &&
           matmul_precision == o.matmul_precision && device == o.device;
  }
  static Globals now() {
    return Globals{static_cast<int>(autograd::grad_mode()), static_cast<int>(runtime::deterministic_mode()),
                   static_cast<int>(runtime::default_dtype()), static_cast<int>(runtime::matmul_precision()),
                   runtime::current_device()};
  }
};

/// What an entry requires of one input. sizes[d] is the static size, or -1 - k where symbol k
/// stands (inputs sharing a symbol must have equal sizes there).
struct InputGuard {
  DType dtype;
  Device device;
  bool requires_grad;
  DimVector sizes;
  DimVector strides;  // empty: contiguous
};

/// Releases a ShapeEnv made for one trace (graphs retain what they keep).
struct EnvRef {
  sym::ShapeEnv* env;
  ~EnvRef() { env->release(); }
};

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

struct CompiledFunction::Entry {
  std::vector<InputGuard> inputs;
  Globals globals;
  size_t nouts = 0;
  std::string break_reason;  // non-empty: a graph break, run the function eagerly
  Graph graph;
  sym::Program guard_code;
  size_t num_guards = 0;
  std::unique_ptr<CudaGraphReplay> replay;  // mode "reduce-overhead" on CUDA, when replayable
  // Where gradients are needed: the compiled forward and backward (Note [Partitioning a joint
  // graph]), or null, and then why (graph replays its calls through autograd instead).
  std::shared_ptr<const JointPlan> joint;
  std::string joint_reason;
  // A graph with symbolic sizes that needs gradients: a compiled forward and backward per set of
  // input sizes it runs at, traced static on first use (null: that trace failed, see
  // joint_reason), up to recompile_limit of them; other sizes replay through autograd.
  bool sized_joints = false;
  std::vector<std::pair<std::vector<DimVector>, std::shared_ptr<const JointPlan>>> sized;
  // Every captured tensor and whether it required grad when traced, a guard like the inputs':
  // a parameter frozen or unfrozen since changes what the graph must record.
  std::vector<std::pair<Tensor, bool>> captured;
};

// ---- options ----

const std::vector<std::string>& known_backends() {
  static const std::vector<std::string> k = {"fused", "eager"};
  return k;
}

void CompileOptions::validate(bool whole) const {
  const auto& backends = known_backends();
  CT_CHECK(std::find(backends.begin(), backends.end(), backend) != backends.end(), CT_ERROR_INVALID_ARGUMENT,
           "ct_compile: unknown backend \"", backend, "\". Known backends: ", join(backends));
  CT_CHECK(std::find(kModes.begin(), kModes.end(), mode) != kModes.end(), CT_ERROR_INVALID_ARGUMENT,
           "ct_compile: unknown mode \"", mode, "\". Known modes: ", join(kModes));
  CT_CHECK(!whole || mode == "default" || options.empty(), CT_ERROR_INVALID_ARGUMENT, "ct_compile: mode \"", mode,
           "\" and options were both given; a mode is a preset of options, so give one or the other");
  CT_CHECK(recompile_limit >= 1, CT_ERROR_INVALID_ARGUMENT, "ct_compile: recompile_limit ", recompile_limit,
           " must be at least 1");
  for (const auto& option : options) {
    // Not a structured binding: clang before 16 cannot capture one in the lambda below.
    const std::string& key = option.first;
    if (key == kCppKernelsKey) {
      parse_cpp_kernels(option.second);
      continue;
    }
    if (key == kHotMsKey) {
      parse_hot_ns(option.second);
      continue;
    }
    auto it = std::find_if(kFlags.begin(), kFlags.end(), [&](const auto& f) { return f.first == key; });
    if (it == kFlags.end()) {
      std::vector<std::string> known;
      for (const auto& f : kFlags) known.push_back(f.first);
      known.push_back(kCppKernelsKey);
      known.push_back(kHotMsKey);
      fail(CT_ERROR_INVALID_ARGUMENT, str("ct_compile: unknown option \"", key, "\". Known options: ", join(known)));
    }
    parse_flag(key, option.second);
  }
}

bool CompileOptions::flag(const std::string& key) const {
  for (auto it = options.rbegin(); it != options.rend(); ++it)
    if (it->first == key) return parse_flag(key, it->second);
  for (const auto& f : kFlags)
    if (f.first == key) return f.second;
  return false;
}

CppKernels CompileOptions::cpp_kernels() const {
  // Mode "max-autotune" spends compile time for speed: every cpu kernel is built while compiling.
  // Otherwise compiling stays quick, and the kernels that turn out hot are built in the background.
  CppKernels k;
  k.when = mode == "max-autotune" ? CppKernels::Always : CppKernels::WhenHot;
  for (const auto& [key, value] : options) {  // the last setting of a key wins
    if (key == kCppKernelsKey) k.when = parse_cpp_kernels(value);
    if (key == kHotMsKey) k.hot_after_ns = parse_hot_ns(value);
  }
  return k;
}

// ---- metrics ----

// See Note [Bounded latency percentiles]. Bucket of v >= 16: its power of two (2^e, e >= 4) and the
// next two bits below the leading one.
int LatencyHistogram::bucket_of(uint64_t v) {
  if (v < static_cast<uint64_t>(kExact)) return static_cast<int>(v);
  const int e = 63 - __builtin_clzll(v);
  const int sub = static_cast<int>((v >> (e - 2)) & (kSplit - 1));
  return std::min(kExact + (e - 4) * kSplit + sub, kBuckets - 1);
}

int64_t LatencyHistogram::middle_of(int b) {
  if (b < kExact) return b;
  const int e = 4 + (b - kExact) / kSplit, sub = (b - kExact) % kSplit;
  const uint64_t lo = (uint64_t{1} << e) + (static_cast<uint64_t>(sub) << (e - 2));
  return static_cast<int64_t>(lo + (uint64_t{1} << (e - 3)));
}

void LatencyHistogram::record(int64_t us) {
  ++counts_[bucket_of(static_cast<uint64_t>(std::max<int64_t>(us, 0)))];
  ++total_;
}

int64_t LatencyHistogram::percentile(double p) const {
  if (total_ == 0) return 0;
  // The value of rank round(p% of n - 1), counted from 0, as a sorted list would give it.
  const int64_t rank = std::min(total_ - 1, static_cast<int64_t>(p / 100.0 * static_cast<double>(total_ - 1) + 0.5));
  int64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += counts_[b];
    if (seen > rank) return middle_of(b);
  }
  return middle_of(kBuckets - 1);
}

void CompileMetrics::record_compile(int64_t us, int64_t guards) {
  compiles.fetch_add(1, std::memory_order_relaxed);
  last_guards.store(guards, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(mu);
  latency_us.record(us);
}

int64_t CompileMetrics::latency_percentile(double p) const {
  std::lock_guard<std::mutex> lock(mu);
  return latency_us.percentile(p);
}

std::string CompileMetrics::to_json() const {
  auto field = [](const char* k, int64_t v) { return str("\"", k, "\": ", v); };
  return str("{", field("calls", calls.load()), ", ", field("compiles", compiles.load()), ", ",
             field("recompiles", recompiles.load()), ", ", field("graph_breaks", graph_breaks.load()), ", ",
             field("eager_calls", eager_calls.load()), ", ", field("guard_misses", guard_misses.load()), ", ",
             field("guards", last_guards.load()), ", ", field("compile_latency_p50_us", latency_percentile(50)), ", ",
             field("compile_latency_p95_us", latency_percentile(95)), "}");
}

CompileMetrics& global_metrics() {
  static CompileMetrics* m = new CompileMetrics();  // never destroyed: read by metrics until exit
  return *m;
}

// ---- the cache ----

// Warnings are once per compiled function: keyed by an id, since a new function may reuse a freed
// one's address.
std::atomic<uint64_t> g_next_id{0};

CompiledFunction::CompiledFunction(TraceFn fn, CompileOptions options)
    : fn_(std::move(fn)), options_(std::move(options)), id_(g_next_id.fetch_add(1, std::memory_order_relaxed)) {
  options_.validate();
}
CompiledFunction::~CompiledFunction() = default;

size_t CompiledFunction::num_entries() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return entries_.size();
}

std::string CompiledFunction::graph_string(size_t i) const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  CT_CHECK(i < entries_.size(), CT_ERROR_INDEX, "ct_compiled_graph: entry ", i, " does not exist; the function has ",
           entries_.size(), " compiled entries");
  const Entry& e = *entries_[i];
  if (!e.break_reason.empty()) return "graph break (runs eagerly): " + e.break_reason + "\n";
  if (e.joint) return e.joint->to_string();
  if (e.sized_joints) {
    size_t compiled = 0;
    for (const auto& s : e.sized) compiled += s.second != nullptr;
    return e.graph.to_string() + str("# backward compiled for each size it runs at: ", compiled, " of ", e.sized.size(),
                                     " sizes so far", e.joint_reason.empty() ? "" : "; not: " + e.joint_reason, "\n");
  }
  if (!e.joint_reason.empty()) return e.graph.to_string() + "# backward runs eagerly: " + e.joint_reason + "\n";
  return e.graph.to_string();
}

CompiledFunction::Entry* CompiledFunction::lookup(ArrayRef<const TensorImpl*> inputs, size_t nouts,
                                                  std::vector<sym::BoundValue>& binding) const {
  const Globals g = Globals::now();
  for (const auto& up : entries_) {
    Entry& e = *up;
    if (e.nouts != nouts || e.inputs.size() != inputs.size() || !(e.globals == g)) continue;
    bool ok = true;
    for (size_t i = 0; ok && i < inputs.size(); ++i) {
      const TensorImpl& t = *inputs[i];
      const InputGuard& ig = e.inputs[i];
      ok = t.dtype() == ig.dtype && t.device() == ig.device && t.requires_grad() == ig.requires_grad &&
           t.dim() == ig.sizes.size() && !t.is_symbolic();
      if (ok) ok = ig.strides.empty() ? t.is_contiguous() : t.strides().equals(IntArrayRef(ig.strides));
    }
    for (size_t i = 0; ok && i < e.captured.size(); ++i) ok = e.captured[i].first->requires_grad() == e.captured[i].second;
    if (!ok) continue;
    if (!e.break_reason.empty()) return &e;
    // Bind each symbol from its first use; later uses must agree. Symbols come in the range they
    // were made with (>= 2: sizes 0 and 1 stay static).
    binding.assign(e.graph.sources.size(), sym::BoundValue{-1});
    for (size_t i = 0; ok && i < inputs.size(); ++i) {
      const IntArrayRef sizes = inputs[i]->sizes();
      const DimVector& want = e.inputs[i].sizes;
      for (size_t d = 0; ok && d < want.size(); ++d) {
        if (want[d] >= 0) {
          ok = want[d] == sizes[d];
          continue;
        }
        sym::BoundValue& b = binding[static_cast<size_t>(-1 - want[d])];
        ok = sizes[d] >= 2 && (b.i < 0 || b.i == sizes[d]);
        b.i = sizes[d];
      }
    }
    if (ok && e.num_guards) ok = e.guard_code.first_false(binding) < 0;
    if (ok) return &e;
  }
  return nullptr;
}

void CompiledFunction::run_eager(ArrayRef<const TensorImpl*> inputs, size_t nouts, std::vector<Tensor>& outs) {
  metrics_.eager_calls.fetch_add(1, std::memory_order_relaxed);
  outs.assign(nouts, Tensor());
  fn_(inputs.data(), inputs.size(), outs.data(), nouts);
}

CompiledFunction::Entry* CompiledFunction::compile(ArrayRef<const TensorImpl*> inputs, size_t nouts) {
  const int64_t start = now_us();
  auto e = std::make_unique<Entry>();
  e->globals = Globals::now();
  e->nouts = nouts;
  // Which dims become symbols.
  // One allocation each, checked whole: an allocation failure leaves the old history or none.
  if (seen_.size() != inputs.size()) seen_.assign(inputs.size(), {});
  sym::ShapeEnv* env = sym::ShapeEnv::create();
  const EnvRef hold{env};
  std::vector<ProxySpec> specs;
  std::vector<SymbolSource> sources;
  bool needs_grad = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorImpl& t = *inputs[i];
    CT_CHECK(!t.is_symbolic(), CT_ERROR_INVALID_ARGUMENT, "ct_compiled_call: input ", i, " has symbolic sizes ",
             t.sym_sizes(), "; pass tensors with concrete sizes");
    InputGuard ig{t.dtype(), t.device(), t.requires_grad(), DimVector(t.sizes()), {}};
    needs_grad |= t.requires_grad();
    const bool dense = t.is_contiguous();
    if (!dense) ig.strides = DimVector(t.strides());
    std::vector<int64_t>& seen = seen_[i].sizes;
    std::vector<bool>& dyn = seen_[i].dynamic;
    if (seen.size() != t.dim() || dyn.size() != t.dim()) {  // both: a failure may come between
      seen.assign(t.sizes().begin(), t.sizes().end());
      dyn.assign(t.dim(), false);
    }
    ProxySpec spec;
    spec.dtype = t.dtype();
    spec.device = t.device();
    for (size_t d = 0; d < t.dim(); ++d) {
      const int64_t n = t.sizes()[d];
      if (options_.dynamic == Dynamic::Automatic && n != seen[d]) dyn[d] = true;
      const bool symbolic = dense && n >= 2 &&
                            (options_.dynamic == Dynamic::On || (options_.dynamic == Dynamic::Automatic && dyn[d]));
      if (symbolic) {
        // Duck sizing, as in PyTorch: dims of equal size share one symbol, so the graph knows
        // they are equal (x + y of two [s0, 8] inputs needs no guard, and fuses as one shape).
        auto same = std::find_if(sources.begin(), sources.end(), [&](const SymbolSource& s) {
          return inputs[s.input]->sizes()[s.dim] == n;
        });
        const size_t k = static_cast<size_t>(same - sources.begin());
        if (same == sources.end()) {
          env->create_symbol(n, 2, sym::Range::kPosInf);
          SymbolSource src;
          src.input = static_cast<int32_t>(i);
          src.dim = static_cast<int32_t>(d);
          sources.push_back(src);
        }
        spec.sizes.push_back(SymInt(env->symbols()[k].node));
        ig.sizes[d] = -1 - static_cast<int64_t>(k);
      } else {
        spec.sizes.push_back(SymInt(n));
      }
    }
    if (!dense) spec.strides.assign(t.strides().begin(), t.strides().end());
    specs.push_back(std::move(spec));
    e->inputs.push_back(std::move(ig));
  }
  needs_grad &= autograd::grad_enabled();
  try {
    e->graph = trace(env, specs, sources, fn_, nouts);
  } catch (const Error& err) {
    // What tracing cannot do (read data, decide on an unbacked value, run an operator with no
    // meta or symbolic rule) is a graph break; any other failure would fail eagerly too, so it is
    // the caller's error and no entry remembers it.
    const ct_status st = err.status();
    if (st != CT_ERROR_GRAPH_BREAK && st != CT_ERROR_GUARD && st != CT_ERROR_NOT_IMPLEMENTED && st != CT_ERROR_DEVICE)
      throw;
    if (options_.fullgraph)
      fail(CT_ERROR_GRAPH_BREAK, str("ct_compiled_call", options_.name.empty() ? "" : " (" + options_.name + ")",
                                     ": fullgraph compilation failed: ", err.message()));
    e->break_reason = err.message();
    metrics_.graph_breaks.fetch_add(1, std::memory_order_relaxed);
    global_metrics().graph_breaks.fetch_add(1, std::memory_order_relaxed);
    runtime::warn_once(str("graph_break:", id_, ":", err.message()),
                       str("ct_compile", options_.name.empty() ? "" : " (" + options_.name + ")",
                           ": graph break, this signature runs eagerly: ", err.message()));
  }
  if (e->break_reason.empty()) {
    for (const Tensor& c : e->graph.constants) {
      e->captured.emplace_back(c, c->requires_grad());
      needs_grad |= c->requires_grad() && autograd::grad_enabled();
    }
    // Fused kernels record no autograd nodes: a graph that must be differentiated runs as a
    // compiled forward and backward, or else replays its calls through autograd.
    const bool fusing = options_.backend == "fused" && options_.flag("fusion");
    optimize(e->graph, fusing && !needs_grad);
    if (fusing && needs_grad && e->graph.sources.empty()) e->joint = compile_joint(inputs, specs, nouts, e->joint_reason);
    e->sized_joints = fusing && needs_grad && !e->graph.sources.empty();
    for (const sym::Node* g : env->guards()) e->guard_code.add_root(g);
    e->num_guards = env->num_guards();
    if (options_.mode == "reduce-overhead" && !needs_grad) e->replay = CudaGraphReplay::make_if_replayable(e->graph);
  }
  const int64_t us = now_us() - start;
  metrics_.record_compile(us, static_cast<int64_t>(e->num_guards));
  global_metrics().record_compile(us, static_cast<int64_t>(e->num_guards));
  if (!entries_.empty()) {
    metrics_.recompiles.fetch_add(1, std::memory_order_relaxed);
    global_metrics().recompiles.fetch_add(1, std::memory_order_relaxed);
  }
  entries_.push_back(std::move(e));
  return entries_.back().get();
}

void CompiledFunction::optimize(Graph& g, bool fusing) const {
  if (fusing) {
    scalarize_wrapped_numbers(g);
    absorb_expands(g);
  }
  if (options_.flag("dce")) eliminate_dead_code(g);
  if (options_.flag("cse")) eliminate_common_subexpressions(g);
  if (options_.flag("constant_folding")) fold_constants(g);
  if (fusing) fuse(g, options_.cpp_kernels());
}

std::shared_ptr<const JointPlan> CompiledFunction::compile_joint(ArrayRef<const TensorImpl*> inputs,
                                                                 const std::vector<ProxySpec>& specs, size_t nouts,
                                                                 std::string& why) const {
  std::vector<bool> requires_grad;
  for (const TensorImpl* t : inputs) requires_grad.push_back(t->requires_grad());
  // Its own env: whatever the joint trace specializes must not become the entry's guards.
  sym::ShapeEnv* env = sym::ShapeEnv::create();
  const EnvRef hold{env};
  try {
    auto plan = std::make_shared<JointPlan>(partition(trace_joint(env, specs, requires_grad, fn_, nouts)));
    optimize(plan->forward, true);
    optimize(plan->backward, true);
    return plan;
  } catch (const Error& err) {
    // What the joint trace refuses (a write in place, an operator with no derivative) runs as
    // before: the graph's calls replayed through autograd, which also reports a real error.
    why = err.message();
    return nullptr;
  }
}

std::shared_ptr<const JointPlan> CompiledFunction::sized_joint(Entry& e, ArrayRef<const TensorImpl*> inputs) const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  for (const auto& [sizes, plan] : e.sized) {
    bool same = sizes.size() == inputs.size();
    for (size_t i = 0; same && i < inputs.size(); ++i) same = inputs[i]->sizes().equals(IntArrayRef(sizes[i]));
    if (same) return plan;
  }
  if (static_cast<int64_t>(e.sized.size()) >= options_.recompile_limit) return nullptr;
  std::vector<ProxySpec> specs;
  std::vector<DimVector> sizes;
  for (const TensorImpl* t : inputs) {
    ProxySpec spec;
    spec.dtype = t->dtype();
    spec.device = t->device();
    for (int64_t n : t->sizes()) spec.sizes.push_back(SymInt(n));
    if (!t->is_contiguous()) spec.strides.assign(t->strides().begin(), t->strides().end());
    specs.push_back(std::move(spec));
    sizes.emplace_back(t->sizes());
  }
  std::shared_ptr<const JointPlan> plan = compile_joint(inputs, specs, e.nouts, e.joint_reason);
  e.sized.emplace_back(std::move(sizes), plan);
  return plan;
}

void CompiledFunction::call(ArrayRef<const TensorImpl*> inputs, size_t nouts, std::vector<Tensor>& outs) {
  // Called while another function is traced (exporting or compiling a caller): the function is
  // inlined into that trace, as torch.compile is transparent to torch.export.
  if (std::any_of(inputs.begin(), inputs.end(), [](const TensorImpl* t) { return is_proxy(*t); })) {
    outs.assign(nouts, Tensor());
    return fn_(inputs.data(), inputs.size(), outs.data(), nouts);
  }
  metrics_.calls.fetch_add(1, std::memory_order_relaxed);
  if (options_.disable) return run_eager(inputs, nouts, outs);
  std::vector<sym::BoundValue> binding;
  Entry* e;
  {
    std::unique_lock<std::recursive_mutex> lock(mu_);
    e = lookup(inputs, nouts, binding);
    if (!e) {
      if (!entries_.empty()) metrics_.guard_misses.fetch_add(1, std::memory_order_relaxed);
      if (static_cast<int64_t>(entries_.size()) >= options_.recompile_limit) {
        const std::string what = str("ct_compile", options_.name.empty() ? "" : " (" + options_.name + ")",
                                     ": hit the recompile limit (", options_.recompile_limit, " entries)");
        CT_CHECK(!options_.fullgraph, CT_ERROR_RECOMPILE_LIMIT, what,
                 " under fullgraph. Mark the changing sizes dynamic, or raise recompile_limit");
        runtime::warn_once(str("recompile_limit:", id_), what + "; calls that miss run eagerly from now on");
        lock.unlock();
        return run_eager(inputs, nouts, outs);
      }
      e = compile(inputs, nouts);
      if (e->break_reason.empty()) binding = bind_inputs(e->graph, inputs);  // the item symbols stay 0
    }
  }
  if (!e->break_reason.empty()) return run_eager(inputs, nouts, outs);
  if (e->replay) return e->replay->run(e->graph, inputs, binding, outs);
  if (e->joint) return run_joint(e->joint, inputs, outs);
  if (e->sized_joints)
    if (std::shared_ptr<const JointPlan> plan = sized_joint(*e, inputs)) return run_joint(plan, inputs, outs);
  run_graph(e->graph, inputs, binding, outs);
}

}  // namespace ct::compile
