// reduce.cu - sum, prod, mean, max/min (with indices), argmax/argmin, var/std and logsumexp over
// the middle dim of a contiguous [outer, reduce, inner] input. See Note [Deterministic CUDA
// reductions] in block_reduce.h.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>

#include "block_reduce.h"
#include "device_math.h"
#include "dtype.h"
#include "status.h"

namespace ct::cuda {
namespace {

constexpr int kThreads = 512;

// Every op: Acc init(), Acc step(Acc, V x, int64 r), Acc combine(Acc, Acc),
// write(out, dt_out, out_index, position, Acc).
template <typename V>
struct Sum {
  using Acc = V;
  bool product;
  bool mean;  // divide the sum by count (0 / 0 is NaN, as PyTorch's mean of nothing)
  int64_t count;
  __device__ Acc init() const { return product ? V(1) : V(0); }
  __device__ Acc combine(Acc a, Acc b) const {
    if constexpr (std::is_integral_v<V>)  // wraps, as in PyTorch (unsigned: no signed-overflow UB)
      return static_cast<V>(product ? static_cast<uint64_t>(a) * static_cast<uint64_t>(b)
                                    : static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    else return product ? a * b : a + b;
  }
  __device__ Acc step(Acc a, V x, int64_t) const { return combine(a, x); }
  __device__ void write(char* out, int dt, int64_t*, int64_t pos, Acc a) const {
    if (mean) a = a / static_cast<V>(count);
    store<V>(out + pos * itemsize(dt), dt, a);
  }
};

// max/min with the first index of the winner; the first NaN wins (PyTorch's rule).
template <typename V>
struct ArgExt {
  struct Acc {
    V v;
    int64_t i;  // -1: nothing seen
  };
  bool max;
  int mode;  // 0: value to out, index to out_index if given; 1: index to out
  __device__ Acc init() const { return Acc{V(0), -1}; }
  __device__ bool first_wins(const Acc& a, const Acc& b) const {  // a over b
    if (dm::is_nan(a.v)) return !dm::is_nan(b.v) || a.i < b.i;
    if (dm::is_nan(b.v)) return false;
    if (a.v == b.v) return a.i < b.i;
    return max ? a.v > b.v : a.v < b.v;
  }
  __device__ Acc combine(Acc a, Acc b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    return first_wins(a, b) ? a : b;
  }
  __device__ Acc step(Acc a, V x, int64_t r) const { return combine(a, Acc{x, r}); }
  __device__ void write(char* out, int dt, int64_t* out_index, int64_t pos, Acc a) const {
    if (mode == 1) {
      reinterpret_cast<int64_t*>(out)[pos] = a.i;
      return;
    }
    store<V>(out + pos * itemsize(dt), dt, a.v);
    if (out_index) out_index[pos] = a.i;
  }
};

// Welford per thread, Chan et al.'s pairwise merge in the tree.
template <typename V>
struct Variance {
  struct Acc {
    int64_t n;
    V mean, m2;
  };
  double correction;
  bool take_sqrt;
  bool mean_only;  // write the running mean instead (CT_CUDA_REDUCE_WELFORD_MEAN)
  __device__ Acc init() const { return Acc{0, V(0), V(0)}; }
  __device__ Acc step(Acc a, V x, int64_t) const {
    a.n += 1;
    const V d = x - a.mean;
    a.mean += d / static_cast<V>(a.n);
    a.m2 += d * (x - a.mean);
    return a;
  }
  __device__ Acc combine(Acc a, Acc b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const int64_t n = a.n + b.n;
    const V d = b.mean - a.mean, nb_over_n = static_cast<V>(b.n) / static_cast<V>(n);
    return Acc{n, a.mean + d * nb_over_n, a.m2 + b.m2 + d * d * static_cast<V>(a.n) * nb_over_n};
  }
  __device__ void write(char* out, int dt, int64_t*, int64_t pos, Acc a) const {
    if (mean_only) {
      store<V>(out + pos * itemsize(dt), dt, a.n == 0 ? V(NAN) : a.mean);
      return;
    }
    const double dof = static_cast<double>(a.n) - correction;
    V v = a.m2 / static_cast<V>(dof > 0 ? dof : 0.0);
    if (take_sqrt) v = dm::sqrt(v);
    store<V>(out + pos * itemsize(dt), dt, v);
  }
};

// Online logsumexp: (max m, sum s of exp(x - m)).
template <typename V>
struct LogSumExp {
  struct Acc {
    V m, s;
  };
  __device__ Acc init() const { return Acc{-INFINITY, V(0)}; }
  __device__ Acc combine(Acc a, Acc b) const {
    if (dm::is_nan(a.m)) return a;
    if (dm::is_nan(b.m)) return b;
    const V m = a.m > b.m ? a.m : b.m;
    if (m == -INFINITY || m == INFINITY) return Acc{m, V(1)};  // write gives m itself
    return Acc{m, a.s * dm::exp(a.m - m) + b.s * dm::exp(b.m - m)};
  }
  __device__ Acc step(Acc a, V x, int64_t) const { return combine(a, Acc{x, V(1)}); }
  __device__ void write(char* out, int dt, int64_t*, int64_t pos, Acc a) const {
    const V r = dm::is_nan(a.m) || a.m == -INFINITY || a.m == INFINITY ? a.m : a.m + dm::log(a.s);
    store<V>(out + pos * itemsize(dt), dt, r);
  }
};

// all / any / count_nonzero: an int64 fold of x != 0 (NaN is nonzero), written as 0/1 or a count.
template <typename V>
struct Logical {
  using Acc = int64_t;
  int op;
  __device__ Acc init() const { return op == CT_CUDA_REDUCE_ALL ? 1 : 0; }
  __device__ Acc combine(Acc a, Acc b) const {
    return op == CT_CUDA_REDUCE_ALL ? (a & b) : op == CT_CUDA_REDUCE_ANY ? (a | b) : a + b;
  }
  __device__ Acc step(Acc a, V x, int64_t) const { return combine(a, x != V(0) ? 1 : 0); }
  __device__ void write(char* out, int dt, int64_t*, int64_t pos, Acc a) const {
    store<int64_t>(out + pos * itemsize(dt), dt, a);
  }
};

// The vector p-norm as ops/reduce/norm.cpp composes it: kind 0: p = 2, 1: p = 1, 2: +inf, 3: -inf,
// 4: p = 0, 5: any other p.
template <typename V>
struct Norm {
  using Acc = V;
  int kind;
  double p;
  __device__ Acc init() const { return kind == 2 ? V(-INFINITY) : kind == 3 ? V(INFINITY) : V(0); }
  __device__ Acc combine(Acc a, Acc b) const {
    if (kind == 2 || kind == 3) {  // NaN wins
      if (dm::is_nan(a)) return a;
      if (dm::is_nan(b)) return b;
      return (kind == 2 ? b > a : b < a) ? b : a;
    }
    return a + b;
  }
  __device__ Acc step(Acc a, V x, int64_t) const {
    const V ax = x < V(0) ? -x : x;
    switch (kind) {
      case 0: return a + x * x;
      case 4: return a + (x != V(0) ? V(1) : V(0));
      case 5: return a + dm::pow(ax, static_cast<V>(p));
      default: return combine(a, ax);
    }
  }
  __device__ void write(char* out, int dt, int64_t*, int64_t pos, Acc a) const {
    if (kind == 0) a = dm::sqrt(a);
    else if (kind == 5) a = dm::pow(a, static_cast<V>(1.0 / p));
    store<V>(out + pos * itemsize(dt), dt, a);
  }
};

// Note [Split reductions]: one block per output column chunk leaves most of the GPU idle when
// there are few outputs (a full sum is one block). Then the reduced dim is split into `splits`
// chunks of at least kMinPerThread elements per thread: the first pass writes one partial Acc per
// (output, split) to a stream-ordered workspace, the second combines each output's partials in a
// fixed tree. The split count, like TX and TY, is a function of the shape alone, so the bits stay
// the same from run to run (Note [Deterministic CUDA reductions]).
constexpr int64_t kSplitTargetBlocks = 1024;
constexpr int64_t kMinPerThread = 16;

// Block b owns columns [cb * TX, cb * TX + TX) of outer row o and the reduce indices of its split s,
// [s * chunk, s * chunk + chunk); thread (tx, ty) folds indices ty, ty + TY, ... of those. With
// partial set, the block's results are the partial Accs of split s, else the outputs.
template <typename V, typename Op>
__global__ void __launch_bounds__(kThreads) reduce_kernel(const char* in, int dt_in, char* out, int dt_out,
                                                          int64_t* out_index, int64_t R, int64_t inner,
                                                          int64_t col_blocks, int64_t splits, int64_t chunk,
                                                          typename Op::Acc* partial, Op op) {
  using Acc = typename Op::Acc;
  const int TX = blockDim.x, TY = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
  const int64_t s = blockIdx.x % splits, b = blockIdx.x / splits;
  const int64_t o = b / col_blocks, i = (b % col_blocks) * TX + tx;
  const int64_t r_end = min(R, (s + 1) * chunk);
  const int isz = itemsize(dt_in);
  Acc acc = op.init();
  if (i < inner) {
    const char* base = in + (o * R * inner + i) * isz;
    for (int64_t r = s * chunk + ty; r < r_end; r += TY) acc = op.step(acc, load<V>(base + r * inner * isz, dt_in), r);
  }
  acc = tree_reduce(acc, shared_as<Acc>(), tx, ty, TX, TY, [&](Acc a, Acc b) { return op.combine(a, b); });
  if (ty != 0 || i >= inner) return;
  if (partial) partial[(o * splits + s) * inner + i] = acc;
  else op.write(out, dt_out, out_index, o * inner + i, acc);
}

// The second pass of a split reduction: column i of outer row o combines its splits' partials.
template <typename Op>
__global__ void __launch_bounds__(kThreads) combine_kernel(const typename Op::Acc* partial, char* out, int dt_out,
                                                           int64_t* out_index, int64_t splits, int64_t inner,
                                                           int64_t col_blocks, Op op) {
  using Acc = typename Op::Acc;
  const int TX = blockDim.x, TY = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
  const int64_t o = blockIdx.x / col_blocks, i = (blockIdx.x % col_blocks) * TX + tx;
  Acc acc = op.init();
  if (i < inner)
    for (int64_t s = ty; s < splits; s += TY) acc = op.combine(acc, partial[(o * splits + s) * inner + i]);
  acc = tree_reduce(acc, shared_as<Acc>(), tx, ty, TX, TY, [&](Acc a, Acc b) { return op.combine(a, b); });
  if (ty == 0 && i < inner) op.write(out, dt_out, out_index, o * inner + i, acc);
}

template <typename V, typename Op>
int launch(const char* name, const Op& op, const void* in, int dt_in, void* out, int dt_out, int64_t* out_index,
           int64_t outer, int64_t R, int64_t inner, void* stream) {
  using Acc = typename Op::Acc;
  int tx = 1;  // a function of the shape only: see the Note
  while (tx < 32 && tx < inner) tx *= 2;
  const int64_t col_blocks = (inner + tx - 1) / tx, blocks = outer * col_blocks, ty = kThreads / tx;
  if (blocks == 0) return 0;
  int64_t splits = 1, chunk = R;
  if (blocks < kSplitTargetBlocks && R >= 2 * kMinPerThread * ty) {
    splits = std::min((kSplitTargetBlocks + blocks - 1) / blocks, R / (kMinPerThread * ty));
    chunk = (R + splits - 1) / splits;
    splits = (R + chunk - 1) / chunk;
  }
  CT_CUDA_ARG(blocks * splits <= INT32_MAX, "reduce: %lld blocks exceed the grid limit. Split the call",
              static_cast<long long>(blocks * splits));
  const dim3 block(tx, static_cast<unsigned>(ty));
  const size_t shared = kThreads * sizeof(Acc);
  Acc* partial = nullptr;
  if (splits > 1)
    CT_CUDA_TRY(cudaMallocAsync(reinterpret_cast<void**>(&partial), outer * splits * inner * sizeof(Acc),
                                as_stream(stream)));
  reduce_kernel<V><<<static_cast<unsigned>(blocks * splits), block, shared, as_stream(stream)>>>(
      static_cast<const char*>(in), dt_in, static_cast<char*>(out), dt_out, out_index, R, inner, col_blocks, splits,
      chunk, partial, op);
  int st = check_launch(name);
  if (splits > 1) {
    if (st == 0)
      combine_kernel<<<static_cast<unsigned>(blocks), block, shared, as_stream(stream)>>>(
          partial, static_cast<char*>(out), dt_out, out_index, splits, inner, col_blocks, op);
    if (st == 0) st = check_launch(name);
    const int freed = check(cudaFreeAsync(partial, as_stream(stream)), "cudaFreeAsync");
    if (st == 0) st = freed;
  }
  return st;
}

const char* const kReduceNames[] = {"sum", "prod", "mean", "max", "min", "amax", "amin",
                                    "argmax", "argmin", "var", "std", "logsumexp", "all", "any",
                                    "count_nonzero", "norm", "var_mean's mean"};
constexpr int kNumReduce = sizeof(kReduceNames) / sizeof(kReduceNames[0]);

}  // namespace

int reduce(int op, int dtype_out, int dtype_in, void* out, void* out_index, const void* in, int64_t outer,
           int64_t R, int64_t inner, double correction, void* stream) {
  CT_CUDA_ARG(op >= 0 && op < kNumReduce, "reduce: unknown op code %d. Pass a ct_cuda_reduce_op", op);
  const char* name = kReduceNames[op];
  CT_CUDA_ARG(valid_dtype(dtype_in) && valid_dtype(dtype_out), "reduce: %s got dtype codes %d (in) and %d (out). "
              "Pass ct_dtype values", name, dtype_in, dtype_out);
  CT_CUDA_ARG(outer >= 0 && R >= 0 && inner >= 0, "reduce: %s got the view [%lld, %lld, %lld]. Sizes must be >= 0",
              name, static_cast<long long>(outer), static_cast<long long>(R), static_cast<long long>(inner));
  // An empty reduced dim (R = 0) reads nothing: its input may have no memory (NULL), and every
  // output element is the op's identity (0, 1, NaN for mean and var, -inf for logsumexp).
  CT_CUDA_ARG(outer * inner == 0 || (out && (in || R == 0)), "reduce: %s got a NULL input or output", name);
  const bool inf_norm = op == CT_CUDA_REDUCE_NORM && (correction == INFINITY || correction == -INFINITY);
  const bool extremum = (op >= CT_CUDA_REDUCE_MAX && op <= CT_CUDA_REDUCE_ARGMIN) || inf_norm;
  CT_CUDA_ARG(!extremum || R > 0 || outer * inner == 0, "reduce: %s over an empty dim (size 0) has no identity. "
              "Reduce a non-empty dim", name);
  const bool arg = op == CT_CUDA_REDUCE_ARGMAX || op == CT_CUDA_REDUCE_ARGMIN;
  CT_CUDA_ARG(!arg || dtype_out == kI64, "reduce: %s writes int64 indices, dtype_out is %s", name,
              dtype_name(dtype_out));
  int64_t* index = op == CT_CUDA_REDUCE_MAX || op == CT_CUDA_REDUCE_MIN ? static_cast<int64_t*>(out_index) : nullptr;
  const bool floating_only = op == CT_CUDA_REDUCE_MEAN || (op >= CT_CUDA_REDUCE_VAR && op <= CT_CUDA_REDUCE_LOGSUMEXP) ||
                             op == CT_CUDA_REDUCE_NORM || op == CT_CUDA_REDUCE_WELFORD_MEAN;
  if (floating_only && !is_floating(dtype_in))
    return fail(CT_CUDA_ERR_UNSUPPORTED, "reduce: %s needs a floating input, got %s. Convert to a floating dtype",
                name, dtype_name(dtype_in));
  auto run = [&](auto v) {
    using V = decltype(v);
    const bool max = op == CT_CUDA_REDUCE_MAX || op == CT_CUDA_REDUCE_AMAX || op == CT_CUDA_REDUCE_ARGMAX;
    switch (op) {
      case CT_CUDA_REDUCE_SUM: case CT_CUDA_REDUCE_PROD:
        return launch<V>(name, Sum<V>{op == CT_CUDA_REDUCE_PROD, false, R}, in, dtype_in, out, dtype_out, nullptr, outer, R,
                         inner, stream);
      case CT_CUDA_REDUCE_MEAN:
        if constexpr (std::is_floating_point_v<V>)
          return launch<V>(name, Sum<V>{false, true, R}, in, dtype_in, out, dtype_out, nullptr, outer, R, inner,
                           stream);
        break;
      case CT_CUDA_REDUCE_VAR: case CT_CUDA_REDUCE_STD: case CT_CUDA_REDUCE_WELFORD_MEAN:
        if constexpr (std::is_floating_point_v<V>)
          return launch<V>(name, Variance<V>{correction, op == CT_CUDA_REDUCE_STD, op == CT_CUDA_REDUCE_WELFORD_MEAN},
                           in, dtype_in, out, dtype_out, nullptr, outer, R, inner, stream);
        break;
      case CT_CUDA_REDUCE_LOGSUMEXP:
        if constexpr (std::is_floating_point_v<V>)
          return launch<V>(name, LogSumExp<V>{}, in, dtype_in, out, dtype_out, nullptr, outer, R, inner, stream);
        break;
      case CT_CUDA_REDUCE_ALL: case CT_CUDA_REDUCE_ANY: case CT_CUDA_REDUCE_COUNT_NONZERO:
        return launch<V>(name, Logical<V>{op}, in, dtype_in, out, dtype_out, nullptr, outer, R, inner, stream);
      case CT_CUDA_REDUCE_NORM:
        if constexpr (std::is_floating_point_v<V>) {
          const double p = correction;
          const int kind = p == 2.0 ? 0 : p == 1.0 ? 1 : p == INFINITY ? 2 : p == -INFINITY ? 3 : p == 0.0 ? 4 : 5;
          return launch<V>(name, Norm<V>{kind, p}, in, dtype_in, out, dtype_out, nullptr, outer, R,
                           inner, stream);
        }
        break;
      default:
        return launch<V>(name, ArgExt<V>{max, arg ? 1 : 0}, in, dtype_in, out, dtype_out, index, outer, R, inner,
                         stream);
    }
    return fail(CT_CUDA_ERR_UNSUPPORTED, "reduce: %s has no kernel for %s", name, dtype_name(dtype_in));
  };
  if (dtype_in == kF64) return run(double{});
  if (is_floating(dtype_in)) return run(float{});
  return run(int64_t{});
}

}  // namespace ct::cuda
