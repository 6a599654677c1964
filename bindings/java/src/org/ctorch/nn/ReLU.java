package org.ctorch.nn;

import java.util.Collections;
import java.util.Map;
import org.ctorch.Tensor;

/** max(x, 0) elementwise (torch.nn.ReLU); no parameters. */
public final class ReLU implements NnModule {
  /** The activation. */
  public ReLU() {}

  @Override
  public Tensor forward(Tensor input) {
    return input.relu();
  }

  @Override
  public Map<String, Tensor> namedParameters() {
    return Collections.emptyMap();
  }

  @Override
  public void close() {}

  @Override
  public String toString() {
    return "ReLU()";
  }
}
