package org.ctorch.optim;

import java.util.Arrays;
import org.ctorch.InvalidArgumentException;
import org.ctorch.jni.CTorchNative;
import org.ctorch.jni.CTorchNativeConstants;

/**
 * The hyperparameters of an {@link Optimizer} (torch's param_group entries), as a builder: the
 * factories start from PyTorch's defaults, which the library gives (ct_optimizer_options_default),
 * and each setter returns this.
 *
 * <pre>{@code
 * Optimizer opt = Optimizer.create(model.parameters(), OptimizerOptions.sgd().lr(0.1).momentum(0.9).nesterov(true));
 * }</pre>
 *
 * <p>Values are checked by the library when an optimizer is created or its options are set (an
 * {@link InvalidArgumentException} naming the field); a setter for an option the kind does not have
 * (Adam's {@code momentum}) throws at once, as torch refuses an unknown keyword.
 */
public final class OptimizerOptions {
  /** The update rule (ct_optimizer_kind). */
  public enum Kind {
    /** torch.optim.SGD: momentum, dampening, nesterov, weight decay. */
    SGD(CTorchNativeConstants.CT_OPTIMIZER_SGD, "SGD", "lr momentum dampening weight_decay nesterov maximize"),
    /** torch.optim.Adam: L2 weight decay added to the gradient, amsgrad. */
    ADAM(CTorchNativeConstants.CT_OPTIMIZER_ADAM, "Adam", "lr betas eps weight_decay amsgrad maximize"),
    /** torch.optim.AdamW: decoupled weight decay. */
    ADAMW(CTorchNativeConstants.CT_OPTIMIZER_ADAMW, "AdamW", "lr betas eps weight_decay amsgrad maximize"),
    /** torch.optim.RMSprop: alpha, centered, momentum, weight decay. */
    RMSPROP(CTorchNativeConstants.CT_OPTIMIZER_RMSPROP, "RMSprop", "lr alpha eps weight_decay momentum centered maximize"),
    /** torch.optim.Adagrad: lr decay, initial accumulator value. */
    ADAGRAD(CTorchNativeConstants.CT_OPTIMIZER_ADAGRAD, "Adagrad",
        "lr lr_decay weight_decay initial_accumulator_value eps maximize"),
    /** torch.optim.Adamax: Adam with an infinity-norm second moment. */
    ADAMAX(CTorchNativeConstants.CT_OPTIMIZER_ADAMAX, "Adamax", "lr betas eps weight_decay maximize"),
    /** torch.optim.NAdam: Nesterov momentum in Adam, momentum decay. */
    NADAM(CTorchNativeConstants.CT_OPTIMIZER_NADAM, "NAdam",
        "lr betas eps weight_decay momentum_decay decoupled_weight_decay maximize"),
    /** torch.optim.RAdam: rectified Adam. */
    RADAM(CTorchNativeConstants.CT_OPTIMIZER_RADAM, "RAdam", "lr betas eps weight_decay decoupled_weight_decay maximize"),
    /** torch.optim.Adadelta: rho, lr scaling the delta. */
    ADADELTA(CTorchNativeConstants.CT_OPTIMIZER_ADADELTA, "Adadelta", "lr rho eps weight_decay maximize"),
    /** torch.optim.ASGD: averaged SGD (the average is the state "ax"). */
    ASGD(CTorchNativeConstants.CT_OPTIMIZER_ASGD, "ASGD", "lr lambd alpha t0 weight_decay maximize"),
    /** torch.optim.Rprop: resilient backpropagation, per-element step sizes. */
    RPROP(CTorchNativeConstants.CT_OPTIMIZER_RPROP, "Rprop", "lr etas step_sizes maximize"),
    /** torch.optim.LBFGS: steps with a closure ({@link Optimizer#step(java.util.function.Supplier)}). */
    LBFGS(CTorchNativeConstants.CT_OPTIMIZER_LBFGS, "LBFGS",
        "lr max_iter max_eval tolerance_grad tolerance_change history_size line_search_fn");

    final int code;
    private final String torchName;
    private final String options;

    Kind(int code, String torchName, String options) {
      this.code = code;
      this.torchName = torchName;
      this.options = options;
    }

    /**
     * The torch.optim class name ("Adam").
     *
     * @return the name
     */
    public String torchName() {
      return torchName;
    }

    static Kind of(int code) {
      for (Kind k : values()) {
        if (k.code == code) {
          return k;
        }
      }
      throw new IllegalStateException("unknown optimizer kind " + code);
    }
  }

  // The layout of the double[] the JNI layer converts (jni_training.i): kind, lr, momentum,
  // dampening, weight_decay, beta1, beta2, eps, alpha, nesterov, amsgrad, centered, maximize,
  // lr_decay, initial_accumulator_value, momentum_decay, rho, decoupled_weight_decay, lambd, t0,
  // etaminus, etaplus, step_size_min, step_size_max, max_iter, max_eval, tolerance_grad,
  // tolerance_change, history_size, strong_wolfe.
  static final int FIELDS = 30;
  private static final int KIND = 0, LR = 1, MOMENTUM = 2, DAMPENING = 3, WEIGHT_DECAY = 4, BETA1 = 5, BETA2 = 6,
      EPS = 7, ALPHA = 8, NESTEROV = 9, AMSGRAD = 10, CENTERED = 11, MAXIMIZE = 12, LR_DECAY = 13,
      INITIAL_ACCUMULATOR_VALUE = 14, MOMENTUM_DECAY = 15, RHO = 16, DECOUPLED_WEIGHT_DECAY = 17, LAMBD = 18, T0 = 19,
      ETAMINUS = 20, ETAPLUS = 21, STEP_SIZE_MIN = 22, STEP_SIZE_MAX = 23, MAX_ITER = 24, MAX_EVAL = 25,
      TOLERANCE_GRAD = 26, TOLERANCE_CHANGE = 27, HISTORY_SIZE = 28, STRONG_WOLFE = 29;

  final double[] values;

  OptimizerOptions(double[] values) {
    this.values = values;
  }

  /**
   * PyTorch's defaults for a kind.
   *
   * @param kind the update rule
   * @return new options
   */
  public static OptimizerOptions defaults(Kind kind) {
    if (kind == null) {
      throw new InvalidArgumentException("argument kind is null. Pass an OptimizerOptions.Kind");
    }
    double[] v = new double[FIELDS];
    CTorchNative.ct_optimizer_options_default(kind.code, v);
    return new OptimizerOptions(v);
  }

  /**
   * torch.optim.SGD's defaults: lr 1e-3, no momentum, dampening 0, weight decay 0.
   *
   * @return new options
   */
  public static OptimizerOptions sgd() {
    return defaults(Kind.SGD);
  }

  /**
   * torch.optim.Adam's defaults: lr 1e-3, betas (0.9, 0.999), eps 1e-8, weight decay 0.
   *
   * @return new options
   */
  public static OptimizerOptions adam() {
    return defaults(Kind.ADAM);
  }

  /**
   * torch.optim.AdamW's defaults: lr 1e-3, betas (0.9, 0.999), eps 1e-8, weight decay 1e-2.
   *
   * @return new options
   */
  public static OptimizerOptions adamw() {
    return defaults(Kind.ADAMW);
  }

  /**
   * torch.optim.RMSprop's defaults: lr 1e-2, alpha 0.99, eps 1e-8, weight decay 0, momentum 0.
   *
   * @return new options
   */
  public static OptimizerOptions rmsprop() {
    return defaults(Kind.RMSPROP);
  }

  /**
   * torch.optim.Adagrad's defaults: lr 1e-2, lr decay 0, initial accumulator 0, eps 1e-10.
   *
   * @return new options
   */
  public static OptimizerOptions adagrad() {
    return defaults(Kind.ADAGRAD);
  }

  /**
   * torch.optim.Adamax's defaults: lr 2e-3, betas (0.9, 0.999), eps 1e-8.
   *
   * @return new options
   */
  public static OptimizerOptions adamax() {
    return defaults(Kind.ADAMAX);
  }

  /**
   * torch.optim.NAdam's defaults: lr 2e-3, betas (0.9, 0.999), eps 1e-8, momentum decay 4e-3.
   *
   * @return new options
   */
  public static OptimizerOptions nadam() {
    return defaults(Kind.NADAM);
  }

  /**
   * torch.optim.RAdam's defaults: lr 1e-3, betas (0.9, 0.999), eps 1e-8.
   *
   * @return new options
   */
  public static OptimizerOptions radam() {
    return defaults(Kind.RADAM);
  }

  /**
   * torch.optim.Adadelta's defaults: lr 1, rho 0.9, eps 1e-6.
   *
   * @return new options
   */
  public static OptimizerOptions adadelta() {
    return defaults(Kind.ADADELTA);
  }

  /**
   * torch.optim.ASGD's defaults: lr 1e-2, lambd 1e-4, alpha 0.75, t0 1e6.
   *
   * @return new options
   */
  public static OptimizerOptions asgd() {
    return defaults(Kind.ASGD);
  }

  /**
   * torch.optim.Rprop's defaults: lr 1e-2, etas (0.5, 1.2), step sizes (1e-6, 50).
   *
   * @return new options
   */
  public static OptimizerOptions rprop() {
    return defaults(Kind.RPROP);
  }

  /**
   * torch.optim.LBFGS's defaults: lr 1, max_iter 20, max_eval max_iter * 5 / 4, tolerance_grad
   * 1e-7, tolerance_change 1e-9, history_size 100, no line search.
   *
   * @return new options
   */
  public static OptimizerOptions lbfgs() {
    return defaults(Kind.LBFGS);
  }

  /**
   * ASGD's decay term.
   *
   * @param lambd at least 0
   * @return this
   */
  public OptimizerOptions lambd(double lambd) {
    return set(LAMBD, "lambd", lambd);
  }

  /**
   * The step after which ASGD starts averaging.
   *
   * @param t0 at least 0
   * @return this
   */
  public OptimizerOptions t0(double t0) {
    return set(T0, "t0", t0);
  }

  /**
   * Rprop's step-size factors: after a sign change, and while the sign holds.
   *
   * @param etaminus in (0, 1)
   * @param etaplus above 1
   * @return this
   */
  public OptimizerOptions etas(double etaminus, double etaplus) {
    set(ETAMINUS, "etas", etaminus);
    return set(ETAPLUS, "etas", etaplus);
  }

  /**
   * Rprop's smallest and largest step.
   *
   * @param min at least 0
   * @param max at least min
   * @return this
   */
  public OptimizerOptions stepSizes(double min, double max) {
    set(STEP_SIZE_MIN, "step_sizes", min);
    return set(STEP_SIZE_MAX, "step_sizes", max);
  }

  /**
   * LBFGS's iterations per step.
   *
   * @param maxIter at least 1
   * @return this
   */
  public OptimizerOptions maxIter(long maxIter) {
    return set(MAX_ITER, "max_iter", maxIter);
  }

  /**
   * LBFGS's closure calls per step (0: maxIter * 5 / 4, torch's default).
   *
   * @param maxEval at least 0
   * @return this
   */
  public OptimizerOptions maxEval(long maxEval) {
    return set(MAX_EVAL, "max_eval", maxEval);
  }

  /**
   * LBFGS stops when the gradient's largest magnitude is at most this.
   *
   * @param tolerance at least 0
   * @return this
   */
  public OptimizerOptions toleranceGrad(double tolerance) {
    return set(TOLERANCE_GRAD, "tolerance_grad", tolerance);
  }

  /**
   * LBFGS stops when a step or the loss changes less than this.
   *
   * @param tolerance at least 0
   * @return this
   */
  public OptimizerOptions toleranceChange(double tolerance) {
    return set(TOLERANCE_CHANGE, "tolerance_change", tolerance);
  }

  /**
   * How many curvature pairs LBFGS keeps.
   *
   * @param historySize at least 1
   * @return this
   */
  public OptimizerOptions historySize(long historySize) {
    return set(HISTORY_SIZE, "history_size", historySize);
  }

  /**
   * LBFGS's strong-Wolfe line search (torch's line_search_fn="strong_wolfe") or a fixed step lr.
   *
   * @param strongWolfe whether to search
   * @return this
   */
  public OptimizerOptions strongWolfe(boolean strongWolfe) {
    return set(STRONG_WOLFE, "line_search_fn", strongWolfe ? 1 : 0);
  }

  /** @return ASGD's lambd */
  public double lambd() {
    return values[LAMBD];
  }

  /** @return ASGD's t0 */
  public double t0() {
    return values[T0];
  }

  /** @return Rprop's etaminus */
  public double etaminus() {
    return values[ETAMINUS];
  }

  /** @return Rprop's etaplus */
  public double etaplus() {
    return values[ETAPLUS];
  }

  /** @return Rprop's smallest step */
  public double stepSizeMin() {
    return values[STEP_SIZE_MIN];
  }

  /** @return Rprop's largest step */
  public double stepSizeMax() {
    return values[STEP_SIZE_MAX];
  }

  /** @return LBFGS's iterations per step */
  public long maxIter() {
    return (long) values[MAX_ITER];
  }

  /** @return LBFGS's closure calls per step (0: maxIter * 5 / 4) */
  public long maxEval() {
    return (long) values[MAX_EVAL];
  }

  /** @return LBFGS's gradient tolerance */
  public double toleranceGrad() {
    return values[TOLERANCE_GRAD];
  }

  /** @return LBFGS's change tolerance */
  public double toleranceChange() {
    return values[TOLERANCE_CHANGE];
  }

  /** @return LBFGS's history size */
  public long historySize() {
    return (long) values[HISTORY_SIZE];
  }

  /** @return whether LBFGS searches with strong Wolfe conditions */
  public boolean strongWolfe() {
    return values[STRONG_WOLFE] != 0;
  }

  /**
   * Adagrad's lr decay: the step's lr is lr / (1 + (step - 1) * lrDecay).
   *
   * @param lrDecay at least 0
   * @return this
   */
  public OptimizerOptions lrDecay(double lrDecay) {
    return set(LR_DECAY, "lr_decay", lrDecay);
  }

  /**
   * Where Adagrad's sum of squared gradients starts.
   *
   * @param value at least 0
   * @return this
   */
  public OptimizerOptions initialAccumulatorValue(double value) {
    return set(INITIAL_ACCUMULATOR_VALUE, "initial_accumulator_value", value);
  }

  /**
   * NAdam's momentum decay.
   *
   * @param momentumDecay at least 0
   * @return this
   */
  public OptimizerOptions momentumDecay(double momentumDecay) {
    return set(MOMENTUM_DECAY, "momentum_decay", momentumDecay);
  }

  /**
   * Adadelta's rho, the running averages' coefficient.
   *
   * @param rho in [0, 1]
   * @return this
   */
  public OptimizerOptions rho(double rho) {
    return set(RHO, "rho", rho);
  }

  /**
   * NAdam's and RAdam's decoupled weight decay (AdamW's) instead of the L2 penalty.
   *
   * @param decoupled on or off
   * @return this
   */
  public OptimizerOptions decoupledWeightDecay(boolean decoupled) {
    return set(DECOUPLED_WEIGHT_DECAY, "decoupled_weight_decay", decoupled ? 1 : 0);
  }

  /** @return Adagrad's lr decay */
  public double lrDecay() {
    return values[LR_DECAY];
  }

  /** @return Adagrad's initial accumulator value */
  public double initialAccumulatorValue() {
    return values[INITIAL_ACCUMULATOR_VALUE];
  }

  /** @return NAdam's momentum decay */
  public double momentumDecay() {
    return values[MOMENTUM_DECAY];
  }

  /** @return Adadelta's rho */
  public double rho() {
    return values[RHO];
  }

  /** @return whether NAdam or RAdam decays weights decoupled */
  public boolean decoupledWeightDecay() {
    return values[DECOUPLED_WEIGHT_DECAY] != 0;
  }

  private OptimizerOptions set(int field, String name, double value) {
    if (!Arrays.asList(kind().options.split(" ")).contains(name)) {
      throw new InvalidArgumentException("OptimizerOptions." + name + ": " + kind().torchName + " has no such option (it has "
          + kind().options.replace(" ", ", ") + ")");
    }
    values[field] = value;
    return this;
  }

  /**
   * The update rule.
   *
   * @return the kind
   */
  public Kind kind() {
    return Kind.of((int) values[KIND]);
  }

  /**
   * Sets the learning rate (every kind).
   *
   * @param lr the learning rate, at least 0
   * @return this
   */
  public OptimizerOptions lr(double lr) {
    return set(LR, "lr", lr);
  }

  /**
   * Sets the momentum (SGD, RMSprop; 0 keeps no momentum buffer).
   *
   * @param momentum at least 0
   * @return this
   */
  public OptimizerOptions momentum(double momentum) {
    return set(MOMENTUM, "momentum", momentum);
  }

  /**
   * Sets SGD's dampening (the momentum buffer adds (1 - dampening) * grad).
   *
   * @param dampening the dampening
   * @return this
   */
  public OptimizerOptions dampening(double dampening) {
    return set(DAMPENING, "dampening", dampening);
  }

  /**
   * Sets the weight decay: an L2 penalty (SGD, Adam, RMSprop) or decoupled decay (AdamW).
   *
   * @param weightDecay at least 0
   * @return this
   */
  public OptimizerOptions weightDecay(double weightDecay) {
    return set(WEIGHT_DECAY, "weight_decay", weightDecay);
  }

  /**
   * Sets Adam's and AdamW's betas.
   *
   * @param beta1 the first moment's decay, in [0, 1)
   * @param beta2 the second moment's decay, in [0, 1)
   * @return this
   */
  public OptimizerOptions betas(double beta1, double beta2) {
    set(BETA1, "betas", beta1);
    return set(BETA2, "betas", beta2);
  }

  /**
   * Sets eps, added to the denominator (Adam, AdamW, RMSprop).
   *
   * @param eps at least 0
   * @return this
   */
  public OptimizerOptions eps(double eps) {
    return set(EPS, "eps", eps);
  }

  /**
   * Sets RMSprop's smoothing constant, or ASGD's power of eta's decay.
   *
   * @param alpha at least 0
   * @return this
   */
  public OptimizerOptions alpha(double alpha) {
    return set(ALPHA, "alpha", alpha);
  }

  /**
   * Turns SGD's Nesterov momentum on or off (it needs momentum &gt; 0 and dampening 0).
   *
   * @param nesterov whether to use it
   * @return this
   */
  public OptimizerOptions nesterov(boolean nesterov) {
    return set(NESTEROV, "nesterov", nesterov ? 1 : 0);
  }

  /**
   * Turns Adam's and AdamW's AMSGrad variant on or off.
   *
   * @param amsgrad whether to keep the maximum of the second moments
   * @return this
   */
  public OptimizerOptions amsgrad(boolean amsgrad) {
    return set(AMSGRAD, "amsgrad", amsgrad ? 1 : 0);
  }

  /**
   * Turns centered RMSprop on or off.
   *
   * @param centered whether to normalize by the estimated variance of the gradient
   * @return this
   */
  public OptimizerOptions centered(boolean centered) {
    return set(CENTERED, "centered", centered ? 1 : 0);
  }

  /**
   * Ascends the objective instead of descending it (every kind).
   *
   * @param maximize whether to maximize
   * @return this
   */
  public OptimizerOptions maximize(boolean maximize) {
    return set(MAXIMIZE, "maximize", maximize ? 1 : 0);
  }

  /** @return the learning rate */
  public double lr() {
    return values[LR];
  }

  /** @return the momentum */
  public double momentum() {
    return values[MOMENTUM];
  }

  /** @return the dampening */
  public double dampening() {
    return values[DAMPENING];
  }

  /** @return the weight decay */
  public double weightDecay() {
    return values[WEIGHT_DECAY];
  }

  /** @return beta1 */
  public double beta1() {
    return values[BETA1];
  }

  /** @return beta2 */
  public double beta2() {
    return values[BETA2];
  }

  /** @return eps */
  public double eps() {
    return values[EPS];
  }

  /** @return RMSprop's alpha */
  public double alpha() {
    return values[ALPHA];
  }

  /** @return whether SGD uses Nesterov momentum */
  public boolean nesterov() {
    return values[NESTEROV] != 0;
  }

  /** @return whether Adam/AdamW use AMSGrad */
  public boolean amsgrad() {
    return values[AMSGRAD] != 0;
  }

  /** @return whether RMSprop is centered */
  public boolean centered() {
    return values[CENTERED] != 0;
  }

  /** @return whether the objective is maximized */
  public boolean maximize() {
    return values[MAXIMIZE] != 0;
  }

  /**
   * A copy.
   *
   * @return new options with the same values
   */
  public OptimizerOptions copy() {
    return new OptimizerOptions(values.clone());
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder(kind().torchName).append('(');
    for (String name : kind().options.split(" ")) {
      if (b.charAt(b.length() - 1) != '(') {
        b.append(", ");
      }
      b.append(name).append('=');
      switch (name) {
        case "lr": b.append(lr()); break;
        case "momentum": b.append(momentum()); break;
        case "dampening": b.append(dampening()); break;
        case "weight_decay": b.append(weightDecay()); break;
        case "betas": b.append('(').append(beta1()).append(", ").append(beta2()).append(')'); break;
        case "eps": b.append(eps()); break;
        case "alpha": b.append(alpha()); break;
        case "nesterov": b.append(nesterov()); break;
        case "amsgrad": b.append(amsgrad()); break;
        case "centered": b.append(centered()); break;
        case "lr_decay": b.append(lrDecay()); break;
        case "initial_accumulator_value": b.append(initialAccumulatorValue()); break;
        case "momentum_decay": b.append(momentumDecay()); break;
        case "rho": b.append(rho()); break;
        case "decoupled_weight_decay": b.append(decoupledWeightDecay()); break;
        case "lambd": b.append(lambd()); break;
        case "t0": b.append(t0()); break;
        case "etas": b.append('(').append(etaminus()).append(", ").append(etaplus()).append(')'); break;
        case "step_sizes": b.append('(').append(stepSizeMin()).append(", ").append(stepSizeMax()).append(')'); break;
        case "max_iter": b.append(maxIter()); break;
        case "max_eval": b.append(maxEval()); break;
        case "tolerance_grad": b.append(toleranceGrad()); break;
        case "tolerance_change": b.append(toleranceChange()); break;
        case "history_size": b.append(historySize()); break;
        case "line_search_fn": b.append(strongWolfe() ? "strong_wolfe" : "None"); break;
        default: b.append(maximize()); break;
      }
    }
    return b.append(')').toString();
  }
}
