// passes.h - graph-to-graph optimizations that keep a graph's meaning: dead code, common
// subexpressions and constant folding (fusion is in fuse.h). Each keeps the graph's printed form
// valid and its Refs pointing backwards.
#pragma once

#include <functional>
#include <vector>

#include "compile/graph.h"

namespace ct::compile {

/// True for an operator whose result is not a function of its arguments alone: it takes a
/// Generator (rand, dropout), so two calls differ and a call cannot run at compile time.
bool is_random(const OperatorDef& op);

/// Keeps the nodes i with keep[i], in order, after rewriting every Ref r (arguments, fused inputs,
/// item sources, outputs) to forward(r), a Ref in the old numbering (identity when empty); every
/// rewritten Ref must name a kept node. Renumbers the Refs, the Item nodes of g.sources, and
/// g.constants down to the constants that kept Constant nodes use.
void compact(Graph& g, const std::vector<bool>& keep, const std::function<Ref(Ref)>& forward = {});

/// Drops nodes whose results nobody uses: never placeholders, item nodes, operators that write an
/// argument or random operators.
void eliminate_dead_code(Graph& g);

/// Merges call nodes with the same operator and equal arguments into the first. Random and
/// mutating operators are never merged, and a graph with any mutating call is left unchanged (an
/// in-place write between two equal calls would make them differ).
void eliminate_common_subexpressions(Graph& g);

/// Evaluates, once, each call whose tensor arguments are all folded constants (Node::folded: never
/// a tensor captured from the caller, whose values may change between calls), with no symbolic
/// ints, neither random nor mutating, with one result of at most kMaxFoldedNumel elements that is
/// not a graph output (the caller may write an output; a constant is shared by every call), and
/// turns it into a folded constant. Then drops the nodes that folding left unused.
void fold_constants(Graph& g);

/// Rewrites each binary elementwise call whose second operand is a wrapped number (the 0-dim cpu
/// tensor a composite's ops::mul(x, Scalar) makes, which no caller holds or changes) into the
/// operator's Scalar overload (mul.Tensor(x, c) -> mul.Scalar(x, 0.5)), so fusion, which reads
/// numbers but not tensors of another dtype, takes it into a group.
void scalarize_wrapped_numbers(Graph& g);

/// Replaces an operand expand(r, sizes) of a binary elementwise call by r where broadcasting r
/// against the other operand gives the call's result sizes anyway (a sum's gradient, expanded and
/// multiplied), so a fused group reads r as a broadcast input instead of falling back for a
/// stride-0 tensor. The expands left unused go with dead code.
void absorb_expands(Graph& g);

/// Results larger than this stay computed at run time: folding trades memory for time.
constexpr int64_t kMaxFoldedNumel = 65536;

}  // namespace ct::compile
