package org.ctorch.optim;

import java.lang.ref.Reference;
import org.ctorch.InvalidArgumentException;
import org.ctorch.NativeObject;
import org.ctorch.jni.Access;
import org.ctorch.jni.CTorchNative;
import org.ctorch.jni.CTorchNativeConstants;

/**
 * A learning-rate schedule bound to one optimizer (torch.optim.lr_scheduler's StepLR, MultiStepLR,
 * ExponentialLR, CosineAnnealingLR, CosineAnnealingWarmRestarts, LinearLR, ConstantLR,
 * PolynomialLR), computed by the library with torch's formulas. Creating
 * one takes the optimizer's lr as the base lr and applies step 0 (LinearLR multiplies the lr by
 * its start factor); call {@link #step()} after each {@link Optimizer#step()} (or each epoch).
 * The schedule holds its own reference to the optimizer.
 *
 * <pre>{@code
 * try (LrScheduler sched = LrScheduler.stepLR(opt, 30, 0.1)) {
 *   for (int epoch = 0; epoch < 90; epoch++) { train(opt); sched.step(); }
 * }
 * }</pre>
 */
public final class LrScheduler implements AutoCloseable {
  // The layout of the double[] the JNI layer converts (jni_training.i): kind, step_size, gamma,
  // t_max, eta_min, start_factor, end_factor, total_iters, factor, power, t_0, t_mult, then the
  // milestones.
  private static final int FIELDS = 12;
  private static final int STEP_SIZE = 1, GAMMA = 2, T_MAX = 3, ETA_MIN = 4, START = 5, END = 6, TOTAL = 7;
  private static final int FACTOR = 8, POWER = 9, T_0 = 10, T_MULT = 11;

  private final NativeObject owner;

  private LrScheduler(Optimizer opt, double[] options) {
    if (opt == null) {
      throw new InvalidArgumentException("argument optimizer is null. Pass the optimizer to schedule");
    }
    try {
      long h = CTorchNative.ct_lr_scheduler_create(opt.handle(), options);
      owner = Access.get().own(h, "LrScheduler", CTorchNative::ct_lr_scheduler_release);
    } finally {
      Reference.reachabilityFence(opt);
    }
  }

  private static double[] defaults(int kind) {
    double[] v = new double[FIELDS];
    CTorchNative.ct_lr_scheduler_options_default(kind, v);
    return v;
  }

  /**
   * StepLR: the lr is multiplied by gamma every stepSize steps.
   *
   * @param opt the optimizer
   * @param stepSize the period, at least 1
   * @param gamma the factor, at least 0
   * @return the schedule
   */
  public static LrScheduler stepLR(Optimizer opt, long stepSize, double gamma) {
    double[] v = defaults(CTorchNativeConstants.CT_LR_SCHEDULER_STEP);
    v[STEP_SIZE] = stepSize;
    v[GAMMA] = gamma;
    return new LrScheduler(opt, v);
  }

  /**
   * StepLR with torch's default gamma 0.1.
   *
   * @param opt the optimizer
   * @param stepSize the period, at least 1
   * @return the schedule
   */
  public static LrScheduler stepLR(Optimizer opt, long stepSize) {
    double[] v = defaults(CTorchNativeConstants.CT_LR_SCHEDULER_STEP);
    return stepLR(opt, stepSize, v[GAMMA]);
  }

  /**
   * CosineAnnealingLR: from the base lr down to etaMin over tMax steps (and back up, periodically,
   * after).
   *
   * @param opt the optimizer
   * @param tMax the half period in steps, at least 1
   * @param etaMin the least lr, at least 0
   * @return the schedule
   */
  public static LrScheduler cosineAnnealingLR(Optimizer opt, long tMax, double etaMin) {
    double[] v = defaults(CTorchNativeConstants.CT_LR_SCHEDULER_COSINE);
    v[T_MAX] = tMax;
    v[ETA_MIN] = etaMin;
    return new LrScheduler(opt, v);
  }

  /**
   * CosineAnnealingLR with torch's default etaMin 0.
   *
   * @param opt the optimizer
   * @param tMax the half period in steps, at least 1
   * @return the schedule
   */
  public static LrScheduler cosineAnnealingLR(Optimizer opt, long tMax) {
    double[] v = defaults(CTorchNativeConstants.CT_LR_SCHEDULER_COSINE);
    return cosineAnnealingLR(opt, tMax, v[ETA_MIN]);
  }

  /**
   * LinearLR: the lr's factor goes linearly from startFactor to endFactor over totalIters steps
   * (a warm-up), then stays.
   *
   * @param opt the optimizer
   * @param startFactor in (0, 1]
   * @param endFactor in [0, 1]
   * @param totalIters at least 0
   * @return the schedule
   */
  public static LrScheduler linearLR(Optimizer opt, double startFactor, double endFactor, long totalIters) {
    double[] v = defaults(CTorchNativeConstants.CT_LR_SCHEDULER_LINEAR);
    v[START] = startFactor;
    v[END] = endFactor;
    v[TOTAL] = totalIters;
    return new LrScheduler(opt, v);
  }

  /**
   * LinearLR with torch's defaults: start factor 1/3, end factor 1, 5 steps.
   *
   * @param opt the optimizer
   * @return the schedule
   */
  public static LrScheduler linearLR(Optimizer opt) {
    return new LrScheduler(opt, defaults(CTorchNativeConstants.CT_LR_SCHEDULER_LINEAR));
  }

  /**
   * MultiStepLR: the lr is multiplied by gamma at each milestone (twice at one listed twice).
   *
   * @param opt the optimizer
   * @param milestones the steps at which the lr decays
   * @param gamma the factor, at least 0 (torch's default 0.1)
   * @return the schedule
   */
  public static LrScheduler multiStepLR(Optimizer opt, long[] milestones, double gamma) {
    if (milestones == null) {
      throw new InvalidArgumentException("argument milestones is null. Pass the steps at which the lr decays");
    }
    double[] v = java.util.Arrays.copyOf(defaults(CTorchNativeConstants.CT_LR_SCHEDULER_MULTISTEP),
                                         FIELDS + milestones.length);
    v[GAMMA] = gamma;
    for (int i = 0; i < milestones.length; ++i) v[FIELDS + i] = milestones[i];
    return new LrScheduler(opt, v);
  }

  /**
   * ExponentialLR: the lr is multiplied by gamma every step.
   *
   * @param opt the optimizer
   * @param gamma the factor, at least 0
   * @return the schedule
   */
  public static LrScheduler exponentialLR(Optimizer opt, double gamma) {
    double[] v = defaults(CTorchNativeConstants.CT_LR_SCHEDULER_EXPONENTIAL);
    v[GAMMA] = gamma;
    return new LrScheduler(opt, v);
  }

  /**
   * ConstantLR: the lr is multiplied by factor until totalIters steps have passed.
   *
   * @param opt the optimizer
   * @param factor in (0, 1] (torch's default 1/3)
   * @param totalIters at least 0 (torch's default 5)
   * @return the schedule
   */
  public static LrScheduler constantLR(Optimizer opt, double factor, long totalIters) {
    double[] v = defaults(CTorchNativeConstants.CT_LR_SCHEDULER_CONSTANT);
    v[FACTOR] = factor;
    v[TOTAL] = totalIters;
    return new LrScheduler(opt, v);
  }

  /**
   * PolynomialLR: the lr decays as (1 - step / totalIters)^power, to 0 at totalIters.
   *
   * @param opt the optimizer
   * @param totalIters at least 0 (torch's default 5)
   * @param power the exponent (torch's default 1)
   * @return the schedule
   */
  public static LrScheduler polynomialLR(Optimizer opt, long totalIters, double power) {
    double[] v = defaults(CTorchNativeConstants.CT_LR_SCHEDULER_POLYNOMIAL);
    v[TOTAL] = totalIters;
    v[POWER] = power;
    return new LrScheduler(opt, v);
  }

  /**
   * CosineAnnealingWarmRestarts: a cosine from the base lr to etaMin over t0 steps, then again over
   * periods tMult times longer each.
   *
   * @param opt the optimizer
   * @param t0 the first period, at least 1
   * @param tMult the factor of each next period, at least 1 (torch's default 1)
   * @param etaMin the least lr, at least 0
   * @return the schedule
   */
  public static LrScheduler cosineAnnealingWarmRestarts(Optimizer opt, long t0, long tMult, double etaMin) {
    double[] v = defaults(CTorchNativeConstants.CT_LR_SCHEDULER_COSINE_WARM_RESTARTS);
    v[T_0] = t0;
    v[T_MULT] = tMult;
    v[ETA_MIN] = etaMin;
    return new LrScheduler(opt, v);
  }

  private long handle() {
    return Access.get().handle(owner, "scheduler");
  }

  /** Advances one step and sets the optimizer's lr (scheduler.step()). */
  public void step() {
    try {
      CTorchNative.ct_lr_scheduler_step(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Starts the schedule again from its base lr (scheduler.step(0), what torch's SequentialLR does at
   * a milestone): the step count becomes 0 and the lr the schedule's value at step 0.
   */
  public void restart() {
    try {
      CTorchNative.ct_lr_scheduler_restart(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The lr the last step (or the creation) set (scheduler.get_last_lr()[0]).
   *
   * @return the lr
   */
  public double lastLr() {
    try {
      return Double.longBitsToDouble(CTorchNative.ct_lr_scheduler_get_last_lr(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The step count (scheduler.last_epoch; 0 right after creation).
   *
   * @return the count
   */
  public long lastEpoch() {
    try {
      return CTorchNative.ct_lr_scheduler_get_last_epoch(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Whether {@link #close()} ran.
   *
   * @return true once closed
   */
  public boolean isClosed() {
    return owner.isClosed();
  }

  /** Releases the schedule (and its reference to the optimizer); idempotent. */
  @Override
  public void close() {
    owner.close();
  }
}
