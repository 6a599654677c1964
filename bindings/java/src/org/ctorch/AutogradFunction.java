package org.ctorch;

import java.lang.ref.Reference;
import org.ctorch.jni.CTorchNative;

/**
 * A differentiable function given by its forward and backward (torch.autograd.Function).
 *
 * <pre>{@code
 * AutogradFunction cube = new AutogradFunction("Cube",
 *     (ctx, x) -> { ctx.saveForBackward(x[0]); return new Tensor[] {x[0].powScalar(3)}; },
 *     (ctx, g) -> {
 *       Tensor x = ctx.savedTensors()[0];
 *       return new Tensor[] {g[0].mul(x.square()).mulScalar(3)};
 *     });
 * Tensor y = cube.apply(1, t)[0];           // y.gradFnName() is "CubeBackward"
 * }</pre>
 *
 * <p>Forward runs once per {@link #apply}, with grad mode off; backward runs during backward on
 * the thread running it. Both run in their own {@link TensorScope}; what they throw fails the
 * call (apply or backward) with their message, nested under the function's name.
 */
public final class AutogradFunction {
  /** The forward computation. */
  @FunctionalInterface
  public interface Forward {
    /**
     * Computes the outputs.
     *
     * @param ctx saves tensors for backward
     * @param inputs the inputs, borrowed
     * @return the declared number of outputs
     */
    Tensor[] apply(AutogradContext ctx, Tensor[] inputs);
  }

  /** The backward computation. */
  @FunctionalInterface
  public interface Backward {
    /**
     * Computes the gradients of the inputs.
     *
     * @param ctx gives back the saved tensors
     * @param gradOutputs one gradient per output (zeros where none arrived)
     * @return one gradient per input, null for an input that gets none
     */
    Tensor[] apply(AutogradContext ctx, Tensor[] gradOutputs);
  }

  private final String name;
  private final Forward forward;
  private final Backward backward;

  /**
   * A function; nothing runs until {@link #apply}.
   *
   * @param name the name; its graph node is name + "Backward"
   * @param forward the forward computation
   * @param backward the backward computation
   */
  public AutogradFunction(String name, Forward forward, Backward backward) {
    this.name = Native.text(name, "name");
    if (forward == null || backward == null) {
      throw new InvalidArgumentException("AutogradFunction: forward and backward must not be null");
    }
    this.forward = forward;
    this.backward = backward;
  }

  /**
   * Runs forward on inputs and records a node for backward when an input requires grad.
   *
   * @param nOutputs how many tensors forward returns
   * @param inputs the inputs
   * @return the outputs (new tensors)
   */
  public Tensor[] apply(int nOutputs, Tensor... inputs) {
    try {
      return Native.tensors(CTorchNative.ct_java_function_apply(name, this, Native.handles(inputs, "inputs"), nOutputs));
    } finally {
      Reference.reachabilityFence(inputs);
    }
  }

  String name() {
    return name;
  }

  Forward forward() {
    return forward;
  }

  Backward backward() {
    return backward;
  }
}
