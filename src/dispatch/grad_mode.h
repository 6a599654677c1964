// grad_mode.h - the calling thread's grad mode: enabled, no-grad, or inference.
//
// No-grad removes the Autograd dispatch key from every call on this thread, so operators record
// nothing. Inference mode does the same and also marks every result an inference tensor, which
// autograd refuses to save for backward later (PyTorch's inference_mode contract). A mode is a
// set of dispatch keys, so it lives in dispatch/, where operators below autograd can use it too.
#pragma once

#include "dispatch/dispatch_key.h"

namespace ct::autograd {

enum class GradMode : int { NoGrad = 0, Enabled = 1, Inference = 2 };

inline GradMode grad_mode() {
  const LocalDispatchKeys& l = local_dispatch_keys();
  if (l.inference) return GradMode::Inference;
  return l.excluded.has(DispatchKey::Autograd) ? GradMode::NoGrad : GradMode::Enabled;
}
inline bool grad_enabled() { return grad_mode() == GradMode::Enabled; }

inline void set_grad_mode(GradMode m) {
  LocalDispatchKeys& l = local_dispatch_keys();
  const DispatchKeySet ag(DispatchKey::Autograd);
  l.excluded = m == GradMode::Enabled ? l.excluded - ag : l.excluded | ag;
  l.inference = m == GradMode::Inference;
}

/// Sets a mode for the current scope and restores the previous one on exit.
class GradModeGuard {
 public:
  explicit GradModeGuard(GradMode m) : saved_(grad_mode()) { set_grad_mode(m); }
  ~GradModeGuard() { set_grad_mode(saved_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  GradMode saved_;
};

}  // namespace ct::autograd
