// view_write.cpp - CopySlices and the history of views written in place (Note [Writing through a
// view] in view_write.h).
#include "autograd/view_write.h"

#include "autograd/meta.h"
#include "core/error.h"
#include "ops/functions.h"

namespace ct::autograd {
namespace {

bool base_can_take(const TensorImpl& view, const TensorImpl& base) {
  return base.storage() == view.storage() && base.dtype() == view.dtype() && !base.is_symbolic() &&
         !view.is_symbolic() && base.is_contiguous();
}

// The base's node after a write through one of its views. Its edges are the operator's (fn's),
// with the first (self) leading to the base's old history.
class CopySlices final : public Node {
 public:
  CopySlices(const TensorImpl& view, const TensorImpl& base, std::shared_ptr<Node> fn)
      : sizes_(view.sizes()),
        strides_(view.strides()),
        offset_(view.storage_offset() - base.storage_offset()),
        fn_(std::move(fn)) {}

  std::string name() const override { return "CopySlices"; }

  std::vector<Tensor> apply(std::vector<Tensor>& grads, const std::vector<bool>& wanted) override {
    const OutputInfo& base = outputs[0];
    // The base's gradient, laid out as the base is (contiguous), so the view's geometry finds its part.
    Tensor result = ops::zeros(base.sizes, base.dtype, base.device);
    if (grads[0].defined()) ops::copy_(result, grads[0]);
    const Tensor part = ops::as_strided(result, sizes_, strides_, offset_);
    std::vector<Tensor> fn_grads{ops::clone(part)};
    std::vector<Tensor> out = fn_->apply(fn_grads, wanted);
    // The view's old elements get what the derivative says of them; none: they no longer count.
    if (out[0].defined()) ops::copy_(part, out[0]);
    else ops::zero_(part);
    out[0] = std::move(result);
    return out;
  }
  void release_saved() override { fn_->release_saved(); }

 private:
  DimVector sizes_, strides_;
  int64_t offset_;  // from the base's first element
  std::shared_ptr<Node> fn_;
};

// view's history as as_strided of its base, and the base's node it was made from.
void view_of_base_history(const TensorImpl& view, const TensorImpl& base) {
  const Tensor v = ops::as_strided(Tensor::borrow(&base), view.sizes(), view.strides(), view.storage_offset());
  const AutogradMeta* vm = meta_of(*v);
  CT_CHECK(vm && vm->grad_fn, CT_ERROR_INTERNAL, "as_strided of a base that requires grad recorded no history");
  set_history(view, vm->grad_fn, 0);
  AutogradMeta& m = meta_for(view);
  m.tracks_base = true;
  m.base_fn = meta_for(base).grad_fn;
}

}  // namespace

bool can_write_through(const TensorImpl& view, const char* op) {
  const TensorImpl* base = view.view_base();
  if (!base) return false;
  CT_CHECK(!(base->requires_grad() && is_leaf(*base)), CT_ERROR_INVALID_ARGUMENT, op,
           ": a view (sizes ", view.sizes(), ") of a leaf tensor that requires grad (sizes ", base->sizes(),
           ") is used in an in-place operation. Change the leaf under no_grad (as optimizers do), or work on a clone");
  return base_can_take(view, *base);
}

void write_through(const TensorImpl& view, const std::shared_ptr<Node>& fn) {
  const TensorImpl& base = *view.view_base();
  fn->next_edges[0] = gradient_edge(base);
  auto node = std::make_shared<CopySlices>(view, base, fn);
  node->next_edges = fn->next_edges;
  node->outputs.push_back(OutputInfo{DimVector(base.sizes()), base.dtype(), base.device()});
  set_history(base, node, 0);
  view_of_base_history(view, base);
}

void note_view_made(const TensorImpl& view) {
  const TensorImpl* base = view.view_base();
  if (!base) return;
  AutogradMeta& m = meta_for(view);
  m.tracks_base = true;
  const AutogradMeta* bm = meta_of(*base);
  m.base_fn = bm ? bm->grad_fn : nullptr;
}

void refresh_view_history(const TensorImpl& t) {
  const TensorImpl* base = t.view_base();
  if (!base) return;
  const AutogradMeta* bm = meta_of(*base);
  if (!bm || !bm->grad_fn || !base->requires_grad()) return;
  const AutogradMeta* m = meta_of(t);
  // A view no operator recorded was made while its base had no history, or under no_grad: only a
  // write through another view can have changed what it reads since.
  const bool stale = m && m->tracks_base ? bm->grad_fn != m->base_fn
                                         : dynamic_cast<const CopySlices*>(bm->grad_fn.get()) != nullptr;
  if (stale && base_can_take(t, *base)) view_of_base_history(t, *base);
}

}  // namespace ct::autograd
