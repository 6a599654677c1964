package org.ctorch;

import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.ctorch.jni.CTorchNative;

/**
 * A PyTorch checkpoint file, as {@code torch.save} writes and {@code torch.load(weights_only=True)}
 * reads it (docs/checkpoints.md). Loading never runs the file's pickle: it makes tensors,
 * OrderedDicts and plain values only, and anything else (a class, a function) is a {@link
 * FormatException} naming it, as is a damaged file. Each tensor is named by the keys leading to it
 * ({@code "model.fc.weight"} in {@code {"model": state_dict}}); {@link #structure} gives the whole
 * saved object as JSON.
 *
 * <pre>{@code
 * try (TorchFile f = TorchFile.load("model.pt")) {          // written by torch.save(model.state_dict(), ...)
 *   model.loadStateDict(f.stateDict(""));
 * }
 * TorchFile.saveStateDict("trained.pt", model.stateDict()); // torch.load("trained.pt") reads it
 * }</pre>
 */
public final class TorchFile implements AutoCloseable {
  private final String structure;
  private final Map<String, Tensor> tensors;

  private TorchFile(long handle) {
    try {
      structure = new String(CTorchNative.ct_java_utf8(CTorchNative.ct_torch_file_structure(handle)), StandardCharsets.UTF_8);
      int n = (int) CTorchNative.ct_torch_file_num_tensors(handle);
      Map<String, Tensor> map = new LinkedHashMap<>();
      for (int i = 0; i < n; i++) {
        String name = new String(CTorchNative.ct_java_utf8(CTorchNative.ct_torch_file_tensor_name(handle, i)),
            StandardCharsets.UTF_8);
        map.put(name, new Tensor(CTorchNative.ct_torch_file_tensor(handle, i)));
      }
      tensors = Collections.unmodifiableMap(map);
    } finally {
      CTorchNative.ct_torch_file_release(handle);
    }
  }

  /**
   * Loads the PyTorch file at path (ct_torch_load).
   *
   * @param path the file
   * @return its tensors and structure
   * @throws IoException when the file cannot be read
   * @throws FormatException when it is not a file torch.save writes, is damaged, or holds a value a
   *     weights-only load refuses
   */
  public static TorchFile load(String path) throws IoException {
    return new TorchFile(CTorchNative.ct_torch_load(Native.text(path, "path")));
  }

  /**
   * Loads a PyTorch file held in memory (the tensors are copies).
   *
   * @param bytes the file's bytes
   * @return its tensors and structure
   * @throws FormatException as for {@link #load}
   */
  public static TorchFile fromBytes(byte[] bytes) {
    if (bytes == null) {
      throw new InvalidArgumentException("argument bytes is null. Pass the file's bytes");
    }
    return new TorchFile(CTorchNative.ct_torch_load_buffer(bytes));
  }

  /**
   * The saved object as JSON ({@code {"ordered_dict": [["fc.weight", {"tensor": 0}], ...]}} for a
   * state dict; ctorch.h documents every form), {@code {"tensor": i}} naming the i-th tensor.
   *
   * @return the JSON text
   */
  public String structure() {
    return structure;
  }

  /**
   * Every tensor by name, in the order the object first refers to them.
   *
   * @return an unmodifiable ordered map (the tensors close with this file)
   */
  public Map<String, Tensor> tensors() {
    return tensors;
  }

  /**
   * The tensors under prefix ({@code "model"} in {@code {"model": state_dict, "step": 3}}) with the
   * prefix and its dot removed, for {@code NnModule.loadStateDict}; every tensor for "".
   *
   * @param prefix the key of the state dict in the saved object, or ""
   * @return an ordered map of the same tensors
   */
  public Map<String, Tensor> stateDict(String prefix) {
    Map<String, Tensor> out = new LinkedHashMap<>();
    String head = prefix == null || prefix.isEmpty() ? "" : prefix + ".";
    for (Map.Entry<String, Tensor> e : tensors.entrySet()) {
      if (e.getKey().startsWith(head)) {
        out.put(e.getKey().substring(head.length()), e.getValue());
      }
    }
    return out;
  }

  /** Closes every tensor of the file. */
  @Override
  public void close() {
    for (Tensor t : tensors.values()) {
      t.close();
    }
  }

  /**
   * Writes structure (JSON as {@link #structure} gives it) over tensors as torch.save does,
   * replacing path atomically.
   *
   * @param path the file
   * @param structure the saved object
   * @param tensors the tensors {@code {"tensor": i}} refers to
   * @throws FormatException when the structure is not of that form or names a missing tensor
   * @throws IoException when the file cannot be written
   */
  public static void save(String path, String structure, List<Tensor> tensors) throws IoException {
    write(Native.text(path, "path"), structure, tensors);
  }

  /**
   * The bytes {@link #save} would write.
   *
   * @param structure the saved object
   * @param tensors the tensors it refers to
   * @return the file's bytes
   */
  public static byte[] toBytes(String structure, List<Tensor> tensors) {
    return write(null, structure, tensors);
  }

  /**
   * Writes named tensors as a state dict (an OrderedDict), as torch.save(model.state_dict(), path).
   *
   * @param path the file
   * @param tensors the tensors by name
   * @throws IoException when the file cannot be written
   */
  public static void saveStateDict(String path, Map<String, Tensor> tensors) throws IoException {
    List<Tensor> list = new ArrayList<>();
    save(path, stateDictJson(tensors, list), list);
  }

  /**
   * The bytes {@link #saveStateDict} would write.
   *
   * @param tensors the tensors by name
   * @return the file's bytes
   */
  public static byte[] stateDictBytes(Map<String, Tensor> tensors) {
    List<Tensor> list = new ArrayList<>();
    return toBytes(stateDictJson(tensors, list), list);
  }

  private static String stateDictJson(Map<String, Tensor> tensors, List<Tensor> list) {
    if (tensors == null) {
      throw new InvalidArgumentException("argument tensors is null. Pass a map of names to tensors");
    }
    StringBuilder b = new StringBuilder("{\"ordered_dict\":[");
    for (Map.Entry<String, Tensor> e : tensors.entrySet()) {
      if (e.getKey() == null) {
        throw new InvalidArgumentException("TorchFile.saveStateDict: a tensor has a null name. Name every tensor");
      }
      if (!list.isEmpty()) {
        b.append(',');
      }
      b.append('[');
      MetadataJson.quote(b, e.getKey());
      b.append(",{\"tensor\":").append(list.size()).append("}]");
      list.add(e.getValue());
    }
    return b.append("]}").toString();
  }

  private static byte[] write(String path, String structure, List<Tensor> tensors) {
    if (structure == null || tensors == null) {
      throw new InvalidArgumentException("TorchFile.save: structure and tensors must not be null");
    }
    Tensor[] keep = tensors.toArray(new Tensor[0]);
    long[] handles = Native.handles(keep, "tensors");
    try {
      return CTorchNative.ct_java_torch_save(path, structure.getBytes(StandardCharsets.UTF_8), handles);
    } finally {
      Reference.reachabilityFence(keep);
    }
  }
}
