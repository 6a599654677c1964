#include "ops/cpu/loop.h"

namespace ct::cpu {

namespace {

// Note [Loop order follows the output]
// A plan walks dims from the outermost in memory to the innermost, judged by the output first:
// writing a transposed view (y.t().copy_(x.t()), an in-place op on a permuted tensor) then runs
// as one dense loop instead of one element per row. Dims the output does not tell apart
// (stride 0, or equal) are ordered by the first input that does, and otherwise keep their order,
// so a contiguous output always keeps the dims as they are. Every element is still computed once
// by the same function, so the order changes no value; only which memory is touched first.
bool steps_outer(const DimVector* st, int nops, int a, int b) {  // should dim a come before dim b?
  for (int o = 0; o < nops; ++o) {
    const int64_t x = st[o][a] < 0 ? -st[o][a] : st[o][a], y = st[o][b] < 0 ? -st[o][b] : st[o][b];
    if (x == 0 || y == 0 || x == y) continue;
    return x > y;
  }
  return false;
}

}  // namespace

LoopPlan make_plan(const TensorImpl& out, const TensorImpl* const* inputs, int ninputs) {
  LoopPlan p;  // NOLINT: filled below up to ndim
  p.nops = ninputs + 1;
  const TensorImpl* ops[kMaxOperands] = {&out};
  for (int i = 0; i < ninputs; ++i) ops[i + 1] = inputs[i];
  IntArrayRef shape = out.sizes();
  const int nd = static_cast<int>(shape.size());
  p.numel = out.numel();

  // Fast path: every operand dense with the output's sizes, or a single broadcast element.
  bool flat = out.is_contiguous();
  for (int i = 1; flat && i < p.nops; ++i)
    flat = ops[i]->numel() == 1 || (ops[i]->is_contiguous() && ops[i]->sizes().equals(shape));
  if (flat) {
    p.ndim = 1;
    p.shape[0] = p.numel;
    for (int o = 0; o < p.nops; ++o) {
      p.strides[o][0] = ops[o]->numel() == 1 && o > 0 ? 0 : static_cast<int64_t>(itemsize(ops[o]->dtype()));
      p.base[o] = static_cast<char*>(ops[o]->data());
    }
    return p;
  }

  // Broadcast strides in bytes, aligned from the last dim.
  DimVector st[kMaxOperands];
  for (int o = 0; o < p.nops; ++o) {
    const TensorImpl& t = *ops[o];
    const int64_t item = static_cast<int64_t>(itemsize(t.dtype()));
    const int off = nd - static_cast<int>(t.dim());
    st[o].resize(nd);
    for (int d = 0; d < nd; ++d) {
      int td = d - off;
      st[o][d] = (td < 0 || t.size(td) == 1) ? 0 : t.stride(td) * item;
    }
    p.base[o] = static_cast<char*>(t.data());
  }

  // Walk the dims in the output's memory order (Note [Loop order follows the output]).
  int perm[kMaxDims];
  for (int d = 0; d < nd; ++d) perm[d] = d;
  for (int i = 1; i < nd; ++i)
    for (int j = i; j > 0 && steps_outer(st, p.nops, perm[j], perm[j - 1]); --j) std::swap(perm[j], perm[j - 1]);

  // Merge dim d into the previous kept dim when every operand steps across both as one.
  int n = 0;
  for (int k = 0; k < nd; ++k) {
    const int d = perm[k];
    if (shape[d] == 1) continue;
    bool merge = n > 0;
    for (int o = 0; merge && o < p.nops; ++o) merge = p.strides[o][n - 1] == st[o][d] * shape[d];
    if (merge) {
      p.shape[n - 1] *= shape[d];
      for (int o = 0; o < p.nops; ++o) p.strides[o][n - 1] = st[o][d];
    } else {
      p.shape[n] = shape[d];
      for (int o = 0; o < p.nops; ++o) p.strides[o][n] = st[o][d];
      ++n;
    }
  }
  if (n == 0) {  // 0-dim or all-ones: one element
    p.shape[0] = 1;
    for (int o = 0; o < p.nops; ++o) p.strides[o][0] = 0;
    n = 1;
  }
  p.ndim = n;
  return p;
}

namespace {

constexpr int64_t kCastChunk = 256;

// The segment loop of run_plan_casting: converted inputs go through buffers on this stack.
struct CastingSegments {
  const LoopCasts* casts;
  SegmentFn fn;
  const void* ctx;
  int nops;
  void operator()(char** ptrs, const int64_t* strides, int64_t n) const {
    alignas(64) char buf[kMaxOperands - 1][kCastChunk * kMaxItemsize];
    const int64_t item = static_cast<int64_t>(itemsize(casts->compute));
    char* p[kMaxOperands];
    int64_t s[kMaxOperands];
    for (int64_t done = 0; done < n; done += kCastChunk) {
      const int64_t m = std::min(kCastChunk, n - done);
      for (int o = 0; o < nops; ++o) {
        char* at = ptrs[o] + done * strides[o];
        const CastLine line = o > 0 ? casts->line[o - 1] : nullptr;
        if (!line) {
          p[o] = at;
          s[o] = strides[o];
        } else {  // a broadcast input (stride 0) converts its one element
          line(at, strides[o], buf[o - 1], strides[o] == 0 ? 1 : m);
          p[o] = buf[o - 1];
          s[o] = strides[o] == 0 ? 0 : item;
        }
      }
      fn(ctx, p, s, m);
    }
  }
};

}  // namespace

void run_plan_casting(const LoopPlan& p, const LoopCasts& casts, SegmentFn fn, const void* ctx) {
  run_plan(p, CastingSegments{&casts, fn, ctx, p.nops});
}

}  // namespace ct::cpu
