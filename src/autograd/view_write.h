// view_write.h - in-place operations through a view while recording: the base takes the change
// into its history (Note [Writing through a view]).
#pragma once

#include <memory>

#include "autograd/node.h"

namespace ct::autograd {

/// Note [Writing through a view]
/// An in-place operation on a view (out[:, :k] = y, h[t].mul_(g)) changes its base's elements, so
/// the base's history must change with them, as in PyTorch. The base gets a CopySlices node whose
/// backward takes the base's gradient, hands the view's part of it to the operator's derivative,
/// writes the derivative's answer for the view's old value back into that part, and passes the
/// rest on to the base's old history; the operator's other inputs get their gradients from the
/// same derivative. The view itself becomes as_strided of the base, reading the new history.
/// A view made earlier (v = out[0]) still points at the base's old history: it is brought up to
/// date the next time an operator records it (refresh_view_history), as PyTorch regenerates a
/// view's grad_fn once its base's version changed.

/// Whether an in-place operation on view can be recorded by moving its base's history; refuses
/// (naming op) a view of a leaf that requires grad, as PyTorch does. False, without raising, when
/// the base cannot take it (another storage by now, another dtype, symbolic or non-contiguous).
bool can_write_through(const TensorImpl& view, const char* op);
/// After fn, the node of an in-place operation on view, has run: gives the base a CopySlices node
/// over fn and the view the history as_strided of the base. fn's first edge (self) is replaced.
void write_through(const TensorImpl& view, const std::shared_ptr<Node>& fn);
/// Notes, on a view an operator just made, which history its base had then.
void note_view_made(const TensorImpl& view);
/// A view recorded when its base had another history than its base has now: its history becomes
/// as_strided of the base (Note [Writing through a view]). Cheap for every other tensor.
void refresh_view_history(const TensorImpl& t);

}  // namespace ct::autograd
