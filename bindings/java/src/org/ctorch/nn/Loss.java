package org.ctorch.nn;

import org.ctorch.InvalidArgumentException;
import org.ctorch.Tensor;

/** Loss functions (torch.nn.functional's), each one operator of the library. */
public final class Loss {
  private Loss() {}

  /** How the elementwise losses are combined (torch's reduction argument). */
  public enum Reduction {
    /** Keep one loss per element. */
    NONE(0),
    /** Their mean (torch's default). */
    MEAN(1),
    /** Their sum. */
    SUM(2);

    final long code;

    Reduction(long code) {
      this.code = code;
    }
  }

  private static long code(Reduction r) {
    if (r == null) {
      throw new InvalidArgumentException("argument reduction is null. Pass Loss.Reduction.MEAN (torch's default)");
    }
    return r.code;
  }

  /**
   * Cross entropy of logits against class indices, averaged (F.cross_entropy with its defaults:
   * no weight, ignore index -100, no label smoothing).
   *
   * @param input logits [N, C] (or [N, C, d...])
   * @param target int64 class indices [N] (or [N, d...])
   * @return the 0-dim loss
   */
  public static Tensor crossEntropy(Tensor input, Tensor target) {
    return nonNull(input, "input").crossEntropyLoss(target);
  }

  /**
   * Cross entropy with every option (F.cross_entropy).
   *
   * @param input logits [N, C] (or [N, C, d...])
   * @param target int64 class indices
   * @param weight a weight per class [C], or null
   * @param reduction how to combine the losses
   * @param ignoreIndex a target value that contributes nothing (torch's default -100)
   * @param labelSmoothing in [0, 1] (torch's default 0)
   * @return the loss
   */
  public static Tensor crossEntropy(Tensor input, Tensor target, Tensor weight, Reduction reduction, long ignoreIndex,
      double labelSmoothing) {
    return nonNull(input, "input").crossEntropyLoss(target, weight, code(reduction), ignoreIndex, labelSmoothing);
  }

  /**
   * Mean squared error (F.mse_loss).
   *
   * @param input the prediction
   * @param target the target, of input's sizes
   * @return the 0-dim mean loss
   */
  public static Tensor mseLoss(Tensor input, Tensor target) {
    return nonNull(input, "input").mseLoss(target);
  }

  /**
   * Squared error with a reduction (F.mse_loss).
   *
   * @param input the prediction
   * @param target the target
   * @param reduction how to combine the losses
   * @return the loss
   */
  public static Tensor mseLoss(Tensor input, Tensor target, Reduction reduction) {
    return nonNull(input, "input").mseLoss(target, code(reduction));
  }

  /**
   * Mean absolute error (F.l1_loss).
   *
   * @param input the prediction
   * @param target the target
   * @return the 0-dim mean loss
   */
  public static Tensor l1Loss(Tensor input, Tensor target) {
    return nonNull(input, "input").l1Loss(target);
  }

  private static Tensor nonNull(Tensor t, String what) {
    if (t == null) {
      throw new InvalidArgumentException("argument " + what + " is null. Pass a tensor");
    }
    return t;
  }
}
