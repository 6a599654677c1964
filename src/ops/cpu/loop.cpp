#include "ops/cpu/loop.h"

namespace ct::cpu {

LoopPlan make_plan(const TensorImpl& out, const TensorImpl* const* inputs, int ninputs) {
  LoopPlan p;
  p.nops = ninputs + 1;
  const TensorImpl* ops[kMaxOperands] = {&out};
  for (int i = 0; i < ninputs; ++i) ops[i + 1] = inputs[i];
  IntArrayRef shape = out.sizes();
  const int nd = static_cast<int>(shape.size());
  p.numel = out.numel();

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

  // Merge dim d into the next-inner kept dim when every operand steps across both as one.
  p.shape.resize(0);
  for (int o = 0; o < p.nops; ++o) p.strides[o].resize(0);
  for (int d = 0; d < nd; ++d) {
    if (shape[d] == 1) continue;
    bool merge = !p.shape.empty();
    for (int o = 0; merge && o < p.nops; ++o) merge = p.strides[o].back() == st[o][d] * shape[d];
    if (merge) {
      p.shape.back() *= shape[d];
      for (int o = 0; o < p.nops; ++o) p.strides[o].back() = st[o][d];
    } else {
      p.shape.push_back(shape[d]);
      for (int o = 0; o < p.nops; ++o) p.strides[o].push_back(st[o][d]);
    }
  }
  if (p.shape.empty()) {  // 0-dim or all-ones: one element
    p.shape.push_back(1);
    for (int o = 0; o < p.nops; ++o) p.strides[o].push_back(0);
  }
  p.ndim = static_cast<int>(p.shape.size());
  return p;
}

}  // namespace ct::cpu
