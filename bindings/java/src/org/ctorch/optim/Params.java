package org.ctorch.optim;

import java.util.ArrayList;
import java.util.List;
import org.ctorch.InvalidArgumentException;
import org.ctorch.Tensor;
import org.ctorch.jni.Access;

/** Parameter lists as the C functions take them. */
final class Params {
  private Params() {}

  /** The tensors of params, none null. */
  static Tensor[] array(Iterable<Tensor> params) {
    if (params == null) {
      throw new InvalidArgumentException("argument params is null. Pass the parameters (module.parameters())");
    }
    List<Tensor> out = new ArrayList<>();
    for (Tensor t : params) {
      out.add(t);
    }
    return out.toArray(new Tensor[0]);
  }

  /** Their handles (the caller keeps the tensors reachable during the call). */
  static long[] handles(Tensor[] params) {
    long[] out = new long[params.length];
    for (int i = 0; i < params.length; i++) {
      out[i] = Access.get().handle(params[i], "params[" + i + "]");
    }
    return out;
  }
}
