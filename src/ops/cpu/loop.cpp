#include "ops/cpu/loop.h"

namespace ct::cpu {

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

  // Merge dim d into the previous kept dim when every operand steps across both as one.
  int n = 0;
  for (int d = 0; d < nd; ++d) {
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
    alignas(64) char buf[kMaxOperands - 1][kCastChunk * 8];  // 8: the widest dtype
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
