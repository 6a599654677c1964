package org.ctorch;

import org.ctorch.jni.CTorchNative;

/**
 * What an {@link AutogradFunction}'s forward and backward share: the tensors forward saved.
 * Valid only during the callback that received it.
 */
public final class AutogradContext {
  private final long ctx;

  AutogradContext(long ctx) {
    this.ctx = ctx;
  }

  /**
   * In forward: keeps t for backward.
   *
   * @param t a tensor (an input or an output)
   */
  public void saveForBackward(Tensor t) {
    try {
      CTorchNative.ct_autograd_ctx_save(ctx, Native.handle(t, "t"));
    } finally {
      java.lang.ref.Reference.reachabilityFence(t);
    }
  }

  /**
   * In backward: the saved tensors, in saving order (closed when backward returns).
   *
   * @return new references to them
   * @throws InvalidArgumentException outside backward, or when one was changed in place
   */
  public Tensor[] savedTensors() {
    int n = (int) CTorchNative.ct_autograd_ctx_saved_count(ctx);
    Tensor[] out = new Tensor[n];
    for (int i = 0; i < n; i++) {
      out[i] = new Tensor(CTorchNative.ct_autograd_ctx_saved(ctx, i));
    }
    return out;
  }
}
