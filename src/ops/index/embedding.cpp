// embedding.cpp - embedding: rows of a weight matrix picked by an index tensor; padding_idx's row
// gets no gradient.
#include "dispatch/dispatcher.h"
#include "dispatch/grad_ctx.h"
#include "ops/functions.h"
#include "ops/index/index_common.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False)
void embedding_meta(const Frame& f, MetaResult& m) {
  const TensorImpl& weight = f.tensor(0);
  const TensorImpl& indices = f.tensor(1);
  CT_CHECK(weight.dim() == 2, CT_ERROR_SHAPE, "embedding: weight must be 2-D (rows, features), got ", weight.sym_sizes(),
           ". Reshape weight");
  indexing::check_index_dtype("embedding", indices, true);
  CT_CHECK(!f.arg(3).to_bool() && !f.arg(4).to_bool(), CT_ERROR_NOT_IMPLEMENTED,
           "embedding: scale_grad_by_freq and sparse are not supported. Pass False for both");
  SymDimVector s(indices.sym_sizes());
  s.push_back(weight.sym_size(1));
  m.compute = weight.dtype();
  set_output(m, 0, s, weight.dtype(), common_device(f));
}

void embedding_cpu(const Frame& f, const MetaResult&, Tensor* outs) {
  const TensorImpl& weight = f.tensor(0);
  const Tensor idx = indexing::checked_index("embedding", f.tensor(1), weight.size(0), 0, false);
  indexing::index_select_into(view(outs[0], {idx->numel(), weight.size(1)}), weight, 0, idx);
}

// Rows add up the gradients of every position that picked them (index_add: the same bits for any
// thread count); positions holding padding_idx contribute nothing.
void embedding_backward(autograd::GradCtx& c) {
  const Tensor& g = c.grad();
  const int64_t d = c.sizes("weight")[1];
  const Tensor idx = reshape(c.saved("indices"), {-1});
  Tensor rows = reshape(g, {-1, d});
  const int64_t padding_idx = c.arg("padding_idx").to_int();
  if (padding_idx >= 0) {
    const Tensor keep = to(ne(idx, Scalar(padding_idx)), g->dtype());
    rows = mul(rows, unsqueeze(keep, 1));
  }
  c.set("weight", indexing::index_add(zeros(c.sizes("weight"), g->dtype(), g->device()), 0, idx, rows, Scalar(1)));
}

}  // namespace

void define_embedding(Registry& r) {
  r.def("embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False, "
        "bool sparse=False) -> Tensor")
      .meta(embedding_meta)
      .compute(DispatchKey::CPU, embedding_cpu, Determinism::Bitwise)
      .derivative(embedding_backward, save("indices"));
}

}  // namespace ct::ops
