// trace.h - tracing a function into a Graph by running it on proxy tensors.
//
// Note [Tracing]
// The function runs once on proxies: meta tensors (no data) of the inputs' dtypes with the sizes
// the caller chose, static or symbolic, all in one ShapeEnv. While it runs, the thread includes the
// Tracer dispatch key, whose one boxed fallback records every operator call as a graph node and
// then computes the call on the meta device, so the same meta functions that check eager calls
// give each result's dtype and (symbolic) sizes. A tensor the function captured from outside (a
// real tensor, say a weight) becomes a constant node, held by reference. Reading a proxy's data
// (item, copy out, a data pointer) cannot be traced: it is a graph break (CT_ERROR_GRAPH_BREAK
// naming the operation), and the caller decides whether to fail or to run the function eagerly.
// Reading a symbolic size as a plain integer specializes it (a guard s0 == 8), as int() of a
// SymInt does in PyTorch; sym_item() of a proxy gives an unbacked symbol bound by an item node.
#pragma once

#include <functional>

#include "compile/graph.h"

namespace ct::compile {

/// What one input's proxy looks like. sizes may hold symbols of the env given to trace().
struct ProxySpec {
  SymDimVector sizes;
  std::vector<int64_t> strides;  // empty: contiguous; else static strides (sizes must be static)
  DType dtype = DType::Float32;
  Device device;  // the real input's device; the proxy itself is meta
};

/// The traced function: computes nouts outputs from the inputs with ctorch operators, throwing
/// ct::Error on failure.
using TraceFn = std::function<void(const TensorImpl* const* inputs, size_t n, Tensor* outs, size_t nouts)>;

/// Runs fn on proxies of inputs inside env and returns the graph it recorded. sources says where
/// each symbol already in env comes from (item symbols created while tracing are appended).
Graph trace(sym::ShapeEnv* env, const std::vector<ProxySpec>& inputs, std::vector<SymbolSource> sources,
            const TraceFn& fn, size_t nouts);

/// Note [Joint forward/backward graphs]
/// A compiled function whose inputs (or captured tensors) require grad is traced a second time
/// with autograd live, as AOTAutograd does: the Tracer records each operator and then runs it
/// with only itself switched off, so the Autograd kernel below records a backward node over the
/// proxies. A composite whose inputs require grad is not recorded as one node: its kernel runs
/// and the operators it calls record themselves, as autograd sees them eagerly. Then a tangent
/// placeholder is made per differentiable output and autograd.grad runs over the proxies, the
/// Tracer recording every operator the derivatives call. Saved tensors come back from a backward
/// node as new aliases of a proxy (Note [Saved inputs]): the trace knows them by storage and
/// geometry. A meta device argument made by the backward (zeros for a missing gradient) means the
/// inputs' device. partition() (joint.h) then splits the graph in two.

/// The tensor each gradient output of a joint graph is the gradient of.
struct GradLeaf {
  int32_t input = -1;     // an input, by number
  int64_t constant = -1;  // else a captured tensor: an index into the graph's constants
};

struct JointTrace {
  /// Placeholders: the inputs, then one tangent per differentiable output (numbered after the
  /// inputs, in output order). Outputs: the function's, then one gradient per leaf.
  Graph graph;
  size_t num_outputs = 0;
  std::vector<int32_t> tangent;  // per function output: its tangent's number among the tangents, or -1
  std::vector<GradLeaf> leaves;  // per gradient output
};

/// Traces fn on static proxies of inputs with autograd live (requires_grad[i]: input i requires
/// grad; captured tensors as they do), then its backward: see Note [Joint forward/backward
/// graphs]. Fails (CT_ERROR_NOT_IMPLEMENTED) where the graph would not say what eager autograd
/// does: a write in place, an output that is an input or a captured tensor, or a composite that
/// left its result without history.
JointTrace trace_joint(sym::ShapeEnv* env, const std::vector<ProxySpec>& inputs, const std::vector<bool>& requires_grad,
                       const TraceFn& fn, size_t nouts);

/// True on a thread that is tracing and t is one of its proxies (or a tensor computed from them).
bool is_proxy(const TensorImpl& t);
/// Raises CT_ERROR_GRAPH_BREAK for what (e.g. "ct_tensor_item") when t is a proxy being traced.
void check_data_read(const TensorImpl& t, const char* what);
/// Records, on a thread that is tracing, that symbol (an unbacked symbol made by sym_item) takes
/// the value of proxy t when the graph runs.
void record_item(const TensorImpl& t, SymInt symbol);

}  // namespace ct::compile
