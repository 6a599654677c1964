package org.ctorch.nn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ctorch.InvalidArgumentException;
import org.ctorch.Tensor;

/**
 * Modules applied one after the other (torch.nn.Sequential). Parameters are named after the
 * module's index, as torch names them ("0.weight", "2.bias"); closing closes every module.
 */
public final class Sequential implements NnModule {
  private final List<NnModule> modules;

  /**
   * The chain of modules.
   *
   * @param modules the modules, in order (none null)
   */
  public Sequential(NnModule... modules) {
    if (modules == null) {
      throw new InvalidArgumentException("argument modules is null. Pass the modules in order");
    }
    for (int i = 0; i < modules.length; i++) {
      if (modules[i] == null) {
        throw new InvalidArgumentException("Sequential: module " + i + " is null");
      }
    }
    this.modules = Collections.unmodifiableList(new ArrayList<>(List.of(modules)));
  }

  /**
   * The modules.
   *
   * @return an unmodifiable list
   */
  public List<NnModule> modules() {
    return modules;
  }

  /**
   * The module at position i.
   *
   * @param i the index
   * @return the module
   */
  public NnModule get(int i) {
    return modules.get(i);
  }

  /**
   * The number of modules.
   *
   * @return the count
   */
  public int size() {
    return modules.size();
  }

  /** Applies each module to the previous one's output; intermediate tensors are closed. */
  @Override
  public Tensor forward(Tensor input) {
    Tensor x = input;
    for (NnModule m : modules) {
      Tensor y = m.forward(x);
      if (x != input && y != x) {
        x.close(); // the graph keeps what backward needs
      }
      x = y;
    }
    return x == input ? input.share() : x;
  }

  @Override
  public Map<String, Tensor> namedParameters() {
    Map<String, Tensor> out = new LinkedHashMap<>();
    for (int i = 0; i < modules.size(); i++) {
      for (Map.Entry<String, Tensor> e : modules.get(i).namedParameters().entrySet()) {
        out.put(i + "." + e.getKey(), e.getValue());
      }
    }
    return Collections.unmodifiableMap(out);
  }

  @Override
  public void close() {
    for (NnModule m : modules) {
      m.close();
    }
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("Sequential(");
    for (int i = 0; i < modules.size(); i++) {
      b.append("\n  (").append(i).append("): ").append(modules.get(i));
    }
    return b.append(modules.isEmpty() ? ")" : "\n)").toString();
  }
}
