package org.ctorch;

import java.lang.ref.Reference;
import org.ctorch.jni.CTorchNative;
import org.ctorch.jni.CTorchNativeConstants;

/**
 * Grad modes and gradients of several tensors. Modes are per thread:
 *
 * <pre>{@code
 * try (var g = Grad.noGrad()) {
 *   w.subInPlace(w.grad().mulScalar(0.1));   // not recorded
 * }
 * }</pre>
 */
public final class Grad {
  /** Keep the graph's saved tensors so backward can run through it again. */
  public static final int RETAIN_GRAPH = CTorchNativeConstants.CT_GRAD_RETAIN_GRAPH;
  /** Record the backward computation, for higher derivatives. */
  public static final int CREATE_GRAPH = CTorchNativeConstants.CT_GRAD_CREATE_GRAPH;
  /** {@link #grad}: an input the outputs do not depend on gets null instead of an error. */
  public static final int ALLOW_UNUSED = CTorchNativeConstants.CT_GRAD_ALLOW_UNUSED;

  private Grad() {}

  private static Guard mode(int mode) {
    int previous = (int) CTorchNative.ct_grad_mode_set(mode);
    return Native.threadGuard(() -> CTorchNative.ct_grad_mode_set(previous));
  }

  /**
   * Turns recording off on this thread until the guard closes.
   *
   * @return the guard restoring the previous mode
   */
  public static Guard noGrad() {
    return mode(CTorchNativeConstants.CT_GRAD_MODE_NO_GRAD);
  }

  /**
   * Turns recording on on this thread until the guard closes.
   *
   * @return the guard restoring the previous mode
   */
  public static Guard enableGrad() {
    return mode(CTorchNativeConstants.CT_GRAD_MODE_ENABLED);
  }

  /**
   * Inference mode on this thread until the guard closes: nothing recorded, tensors marked as
   * inference tensors.
   *
   * @return the guard restoring the previous mode
   */
  public static Guard inferenceMode() {
    return mode(CTorchNativeConstants.CT_GRAD_MODE_INFERENCE);
  }

  /**
   * Whether operators record gradients on this thread.
   *
   * @return true in the enabled mode
   */
  public static boolean isEnabled() {
    return CTorchNative.ct_grad_mode_get() == CTorchNativeConstants.CT_GRAD_MODE_ENABLED;
  }

  /**
   * Backward from several outputs at once (torch.autograd.backward).
   *
   * @param outputs the roots
   * @param grads one gradient per output, or null (one-element outputs get ones)
   * @param flags {@link #RETAIN_GRAPH}, {@link #CREATE_GRAPH}, or 0
   */
  public static void backward(Tensor[] outputs, Tensor[] grads, int flags) {
    try {
      CTorchNative.ct_java_autograd_backward(Native.handles(outputs, "outputs"), grads == null ? null : Native.handles(grads, "grads"), flags);
    } finally {
      Reference.reachabilityFence(outputs);
      Reference.reachabilityFence(grads);
    }
  }

  /**
   * The gradients of outputs with respect to inputs, without touching {@link Tensor#grad()}
   * (torch.autograd.grad).
   *
   * @param outputs the roots
   * @param inputs the tensors to differentiate with respect to
   * @param gradOutputs one gradient per output, or null
   * @param flags {@link #RETAIN_GRAPH}, {@link #CREATE_GRAPH}, {@link #ALLOW_UNUSED}, or 0
   * @return one gradient per input (null for an unused one under ALLOW_UNUSED)
   */
  public static Tensor[] grad(Tensor[] outputs, Tensor[] inputs, Tensor[] gradOutputs, int flags) {
    try {
      return Native.tensors(CTorchNative.ct_java_autograd_grad(Native.handles(outputs, "outputs"),
          gradOutputs == null ? null : Native.handles(gradOutputs, "gradOutputs"), Native.handles(inputs, "inputs"), flags));
    } finally {
      Reference.reachabilityFence(outputs);
      Reference.reachabilityFence(inputs);
      Reference.reachabilityFence(gradOutputs);
    }
  }
}
