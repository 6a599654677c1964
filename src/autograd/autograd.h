// autograd.h - installing autograd into the dispatcher.
//
// Note [The autograd kernel]
// One boxed kernel on the Autograd key serves every operator. The Autograd key is in a call's key
// set when some tensor argument requires grad and the thread's grad mode is on. The kernel runs
// the operator below Autograd, then records a node holding the operator's derivative, the edges to
// its inputs' gradients and what the derivative said it reads (Saves), and links the results to it.
// Composite operators pass through untouched: the operators they call record themselves.
#pragma once

#include "dispatch/registry.h"

namespace ct::autograd {

/// Registers the autograd kernel as the Autograd key's fallback.
void install(Registry& r);

/// Whether a tensor among args (one, or in a list) requires grad: what puts a call on the Autograd
/// key when grad mode is on.
bool any_requires_grad(const Value* args, size_t n);

}  // namespace ct::autograd
