package org.ctorch.optim;

import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.List;
import org.ctorch.InvalidArgumentException;
import org.ctorch.NativeObject;
import org.ctorch.Tensor;
import org.ctorch.jni.Access;
import org.ctorch.jni.CTorchNative;

/**
 * An optimizer over one group of parameters (torch.optim.SGD, Adam, AdamW, RMSprop), run by the
 * library: each {@link #step()} computes torch.optim's single-tensor formulas in the same order,
 * without recording autograd history, with the same bits on every machine and thread count.
 * Parameters without a grad are skipped. The optimizer holds its own reference to each parameter.
 *
 * <pre>{@code
 * try (Optimizer opt = Optimizer.adam(model.parameters(), 0.01)) {
 *   for (...) {
 *     opt.zeroGrad();
 *     loss(model.forward(x), y).backward();
 *     opt.step();
 *   }
 * }
 * }</pre>
 *
 * <p>Threads: calls on one optimizer are serialized by the library; no other thread may use the
 * parameters during a step.
 */
public final class Optimizer implements AutoCloseable {
  private final NativeObject owner;
  private final OptimizerOptions.Kind kind;

  private Optimizer(long handle, OptimizerOptions.Kind kind) {
    this.owner = Access.get().own(handle, "Optimizer", CTorchNative::ct_optimizer_release);
    this.kind = kind;
  }

  /**
   * An optimizer over params with these options (ct_optimizer_create).
   *
   * @param params leaf floating tensors with data, each once (usually requiring grad); complex
   *     ones too for every kind but LBFGS, stepped as their real and imaginary parts as torch 2.x does
   * @param options the kind and hyperparameters (copied)
   * @return the optimizer
   * @throws InvalidArgumentException for no parameters, a repeated or non-leaf one, or an option
   *     out of range (the message names the field and its value)
   * @throws org.ctorch.DTypeException for a parameter that is neither floating nor complex, or a
   *     complex one under LBFGS
   */
  public static Optimizer create(Iterable<Tensor> params, OptimizerOptions options) {
    if (options == null) {
      throw new InvalidArgumentException("argument options is null. Pass OptimizerOptions.adam() or another kind");
    }
    Tensor[] ps = Params.array(params);
    try {
      return new Optimizer(CTorchNative.ct_optimizer_create(Params.handles(ps), options.values.clone()), options.kind());
    } finally {
      Reference.reachabilityFence(ps);
    }
  }

  /**
   * torch.optim.SGD(params, lr) with the other options at their defaults.
   *
   * @param params the parameters
   * @param lr the learning rate
   * @return the optimizer
   */
  public static Optimizer sgd(Iterable<Tensor> params, double lr) {
    return create(params, OptimizerOptions.sgd().lr(lr));
  }

  /**
   * torch.optim.Adam(params, lr) with the other options at their defaults.
   *
   * @param params the parameters
   * @param lr the learning rate
   * @return the optimizer
   */
  public static Optimizer adam(Iterable<Tensor> params, double lr) {
    return create(params, OptimizerOptions.adam().lr(lr));
  }

  /**
   * torch.optim.AdamW(params, lr) with the other options at their defaults.
   *
   * @param params the parameters
   * @param lr the learning rate
   * @return the optimizer
   */
  public static Optimizer adamw(Iterable<Tensor> params, double lr) {
    return create(params, OptimizerOptions.adamw().lr(lr));
  }

  /**
   * torch.optim.RMSprop(params, lr) with the other options at their defaults.
   *
   * @param params the parameters
   * @param lr the learning rate
   * @return the optimizer
   */
  public static Optimizer rmsprop(Iterable<Tensor> params, double lr) {
    return create(params, OptimizerOptions.rmsprop().lr(lr));
  }

  long handle() {
    return Access.get().handle(owner, "optimizer");
  }

  /**
   * The update rule.
   *
   * @return the kind
   */
  public OptimizerOptions.Kind kind() {
    return kind;
  }

  /** One update of every parameter that has a grad (optimizer.step()). */
  public void step() {
    try {
      CTorchNative.ct_optimizer_step(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * optimizer.step(closure): LBFGS's iterations, each calling closure to re-evaluate the model;
   * other kinds call it once, then step. The closure zeroes the grads, computes the loss, calls
   * backward and returns the loss. When it throws, the parameters and state are as they were.
   *
   * @param closure computes the loss and its grads
   * @return the loss of the first call
   */
  public double step(java.util.function.Supplier<Tensor> closure) {
    try {
      return CTorchNative.ct_java_optimizer_step_closure(handle(), closure);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * optimizer.state[p][name]: parameter i's state entry ("exp_avg", ASGD's average "ax", "step"),
   * or null while it has none. A buffer is the optimizer's own tensor (writing into it changes the
   * next step); a scalar is a 0-dim copy.
   *
   * @param i the parameter's index
   * @param name a name of {@link #stateNames}
   * @return a new reference, or null
   */
  public Tensor state(int i, String name) {
    try {
      long h = CTorchNative.ct_optimizer_state_get(handle(), i, name);
      return h == 0 ? null : Access.get().tensor(h);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The state names of this kind, in torch's order (ct_optimizer_state_name).
   *
   * @return the names
   */
  public List<String> stateNames() {
    List<String> names = new ArrayList<>();
    for (int j = 0; ; j++) {
      try {
        names.add(new String(CTorchNative.ct_java_utf8(CTorchNative.ct_optimizer_state_name(kind.code, j)),
            java.nio.charset.StandardCharsets.UTF_8));
      } catch (org.ctorch.IndexException e) {
        return names;
      }
    }
  }

  /** Sets every parameter's grad to null (optimizer.zero_grad(), torch 2's default). */
  public void zeroGrad() {
    zeroGrad(true);
  }

  /**
   * Clears the parameters' gradients.
   *
   * @param setToNone true sets each grad to null; false writes zeros into each existing grad
   */
  public void zeroGrad(boolean setToNone) {
    try {
      CTorchNative.ct_optimizer_zero_grad(handle(), setToNone ? 1 : 0);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The learning rate (param_groups[0]["lr"]; a scheduler writes it).
   *
   * @return the learning rate
   */
  public double lr() {
    try {
      return Double.longBitsToDouble(CTorchNative.ct_optimizer_get_lr(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Sets the learning rate.
   *
   * @param lr at least 0 and finite
   */
  public void setLr(double lr) {
    try {
      CTorchNative.ct_optimizer_set_lr(handle(), lr);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Every hyperparameter (a copy; change it and pass it to {@link #setOptions}).
   *
   * @return the options
   */
  public OptimizerOptions options() {
    double[] v = new double[OptimizerOptions.FIELDS];
    try {
      CTorchNative.ct_optimizer_get_options(handle(), v);
    } finally {
      Reference.reachabilityFence(this);
    }
    return new OptimizerOptions(v);
  }

  /**
   * Replaces the hyperparameters (the kind cannot change); on failure nothing changes.
   *
   * @param options options of this optimizer's kind
   */
  public void setOptions(OptimizerOptions options) {
    if (options == null) {
      throw new InvalidArgumentException("argument options is null. Pass optimizer.options() changed");
    }
    try {
      CTorchNative.ct_optimizer_set_options(handle(), options.values.clone());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The parameters, in the order given (new references to the same tensors: close them, or use
   * a TensorScope).
   *
   * @return the parameters
   */
  public List<Tensor> params() {
    try {
      long h = handle();
      int n = (int) CTorchNative.ct_optimizer_num_params(h);
      List<Tensor> out = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        out.add(Access.get().tensor(CTorchNative.ct_optimizer_param(h, i)));
      }
      return out;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The state (optimizer.state_dict()): kind, options, and per parameter its step count and
   * buffers, in the library's portable format (ct_optimizer_state_save).
   *
   * @return the bytes {@link #loadState} takes
   */
  public byte[] stateBytes() {
    try {
      return CTorchNative.ct_java_optimizer_state_save(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Replaces the options and state with saved bytes (optimizer.load_state_dict()); the
   * parameters' values are not part of it. On failure nothing changes.
   *
   * @param state bytes from {@link #stateBytes} of an optimizer of the same kind over parameters
   *     of the same count, dtypes and sizes
   * @throws org.ctorch.FormatException when the bytes are not optimizer state (the message gives
   *     the byte offset)
   * @throws InvalidArgumentException when they belong to another kind or other parameters
   */
  public void loadState(byte[] state) {
    if (state == null) {
      throw new InvalidArgumentException("argument state is null. Pass bytes from stateBytes()");
    }
    try {
      CTorchNative.ct_optimizer_state_load(handle(), state);
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

  /** Releases the optimizer (its state and its references to the parameters); idempotent. */
  @Override
  public void close() {
    owner.close();
  }

  @Override
  public String toString() {
    return isClosed() ? kind.torchName() + "(closed)" : options().toString();
  }
}
