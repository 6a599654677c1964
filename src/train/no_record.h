// no_record.h - the grad mode training updates run in.
#pragma once

#include "dispatch/grad_mode.h"

namespace ct::train {

/// A scope in which operators record nothing: no-grad, or inference mode when the caller is in it
/// (which records nothing too, and keeps inference tensors writable, as the caller expects).
class NoRecordGuard {
 public:
  NoRecordGuard() : guard_(mode()) {}

 private:
  static autograd::GradMode mode() {
    return autograd::grad_mode() == autograd::GradMode::Inference ? autograd::GradMode::Inference
                                                                   : autograd::GradMode::NoGrad;
  }
  autograd::GradModeGuard guard_;
};

}  // namespace ct::train
