// grad_ctx.h - GradCtx, what an operator's derivative reads and writes.
//
// Note [Derivatives beside operators]
// An operator's derivative is defined in the same file as its forward, registered with
// OpBuilder::derivative(fn, save("self", "other")), naming the tensors it keeps as the schema
// names them (registration refuses a name the schema lacks). fn receives a GradCtx: the gradient
// of each result, the arguments of the forward call (tensors only where `saves` asked for them,
// their sizes always), and set() for each input's gradient, each by schema name (c.saved("other");
// a helper shared by operators whose arguments differ in name takes the names). set() sums a
// broadcast gradient back to the input's sizes and converts it to the input's dtype, so formulas
// are written for the broadcast result. Formulas use operators, not raw loops: run while backward
// is recorded (create_graph), they record themselves, which is what makes second derivatives work.
//
// It lives in dispatch/, beside OpBuilder::derivative that takes it, so that the operator
// definitions in ops/ include it downward; autograd/ fills it when backward runs.
#pragma once

#include <string_view>

#include "core/scalar.h"
#include "core/tensor.h"
#include "dispatch/schema.h"
#include "dispatch/value.h"

namespace ct::autograd {

class OpNode;

class GradCtx {
 public:
  GradCtx(OpNode& node, const Schema& schema, std::vector<Tensor>& grads, std::vector<Tensor>& out,
          const std::vector<bool>& wanted)
      : node_(node), args_(schema.args), grads_(grads), out_(out), wanted_(wanted) {}

  /// The gradient of result i (zeros when none reached it).
  const Tensor& grad(size_t i = 0);
  /// Whether a gradient reached result i: a formula whose terms divide by gaps between eigenvalues
  /// or singular values skips the terms of results nothing flowed into (0 / 0 would be NaN).
  bool has_grad(size_t i) const { return grads_[i].defined(); }
  /// The operator's result i, saved with save_result (which keeps them all).
  Tensor result(size_t i = 0) const;

  // The arguments of the forward call, named as the schema names them: c.saved("other"),
  // c.set("self", g). A name the schema lacks is CT_ERROR_INTERNAL (the gradient checks run every
  // derivative). Names, not positions, so that a formula reads like the schema it differentiates.

  /// A tensor argument, saved with save (checked against later in-place changes).
  Tensor saved(std::string_view arg) const { return saved(index(arg)); }
  /// A non-tensor argument as the call passed it (None for an omitted optional).
  const Value& arg(std::string_view name) const { return arg(index(name)); }
  /// Sizes of a tensor argument (element j of a tensor list).
  IntArrayRef sizes(std::string_view arg, size_t j = 0) const { return sizes(index(arg), j); }
  size_t list_size(std::string_view arg) const { return list_size(index(arg)); }
  /// Whether a tensor argument (element j of a list) needs a gradient: it requires grad, and it
  /// leads to a gradient this backward pass computes (autograd.grad prunes the others, as torch
  /// does). Skip the work when not.
  bool needs(std::string_view arg, size_t j = 0) const { return needs(index(arg), j); }
  /// The gradient of a tensor argument (element j of a list); reduced and converted to fit.
  void set(std::string_view arg, Tensor g) { set(index(arg), 0, std::move(g)); }
  void set(std::string_view arg, size_t j, Tensor g) { set(index(arg), j, std::move(g)); }

 private:
  /// The schema index of the argument called name. Inline: with a literal name the comparisons
  /// fold to a few integer compares, so naming costs next to nothing per backward step.
  size_t index(std::string_view name) const {
    for (size_t i = 0; i < args_.size(); ++i)
      if (args_[i].name == name) return i;
    unknown_argument(name);
  }
  [[noreturn]] void unknown_argument(std::string_view name) const;

  Tensor saved(size_t arg) const;
  const Value& arg(size_t i) const;
  IntArrayRef sizes(size_t arg, size_t j) const;
  size_t list_size(size_t arg) const;
  bool needs(size_t arg, size_t j) const;
  void set(size_t arg, size_t j, Tensor g);

  OpNode& node_;
  const std::vector<Argument>& args_;
  std::vector<Tensor>& grads_;
  std::vector<Tensor>& out_;
  const std::vector<bool>& wanted_;  // per edge, empty: all (Node::apply)
};

/// g summed over the dims it gained or broadcast from size 1, to have sizes `to`.
Tensor sum_to(const Tensor& g, IntArrayRef to);
/// g * s, without the multiplication when s is 1 (alpha and beta arguments).
Tensor scaled(const Tensor& g, const Scalar& s);

}  // namespace ct::autograd
