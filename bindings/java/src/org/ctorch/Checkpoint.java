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
 * A safetensors checkpoint (docs/checkpoints.md), opened and validated in full: a malformed file
 * is a {@link FormatException} naming the field and its byte offset, never a crash. Tensors are
 * read lazily: {@link #get} gives a CPU tensor over the file's private memory mapping (pages load
 * when touched), which keeps the mapping alive after the checkpoint is closed. Immutable; any
 * number of threads may use one checkpoint.
 *
 * <pre>{@code
 * Checkpoint.save("model.safetensors", model.stateDict(), Map.of("epoch", "30"));
 * try (Checkpoint ck = Checkpoint.open("model.safetensors"); Tensor w = ck.get("0.weight")) {
 *   System.out.println(ck.names() + " " + ck.metadata());
 * }
 * }</pre>
 */
public final class Checkpoint extends NativeObject {
  private Checkpoint(long handle) {
    super(handle, Kinds.CHECKPOINT);
  }

  /**
   * Opens and validates a safetensors file (ct_checkpoint_open).
   *
   * @param path the file
   * @return the checkpoint
   * @throws IoException when the file cannot be opened or mapped
   * @throws FormatException when it breaks the format (the message names the rule and offset)
   */
  public static Checkpoint open(String path) throws IoException {
    return new Checkpoint(CTorchNative.ct_checkpoint_open(Native.text(path, "path")));
  }

  /**
   * Opens a safetensors file held in memory (the bytes are copied).
   *
   * @param bytes the file's bytes
   * @return the checkpoint
   * @throws FormatException when they break the format
   */
  public static Checkpoint fromBytes(byte[] bytes) {
    if (bytes == null) {
      throw new InvalidArgumentException("argument bytes is null. Pass the file's bytes");
    }
    return new Checkpoint(CTorchNative.ct_checkpoint_open_buffer(bytes));
  }

  /**
   * Writes named tensors to a safetensors file, replacing it atomically (a temporary file renamed
   * over path). Tensors are written in row-major order, without autograd state.
   *
   * @param path the file
   * @param tensors the tensors by name (names non-empty, not "__metadata__")
   * @param metadata string metadata stored as "__metadata__", or null for none
   * @throws InvalidArgumentException for a null tensor, or an empty or reserved name
   * @throws IoException when the file cannot be written
   */
  public static void save(String path, Map<String, Tensor> tensors, Map<String, String> metadata) throws IoException {
    Entries e = new Entries(tensors);
    try {
      CTorchNative.ct_java_checkpoint_save(Native.text(path, "path"), e.names, e.handles, MetadataJson.write(metadata));
    } finally {
      Reference.reachabilityFence(e);
    }
  }

  /**
   * Writes named tensors to a safetensors file without metadata.
   *
   * @param path the file
   * @param tensors the tensors by name
   * @throws IoException when the file cannot be written
   */
  public static void save(String path, Map<String, Tensor> tensors) throws IoException {
    save(path, tensors, null);
  }

  /**
   * The bytes {@link #save} would write.
   *
   * @param tensors the tensors by name
   * @param metadata string metadata, or null for none
   * @return the file's bytes
   */
  public static byte[] toBytes(Map<String, Tensor> tensors, Map<String, String> metadata) {
    Entries e = new Entries(tensors);
    try {
      return CTorchNative.ct_java_checkpoint_save_bytes(e.names, e.handles, MetadataJson.write(metadata));
    } finally {
      Reference.reachabilityFence(e);
    }
  }

  /**
   * How many tensors the file holds.
   *
   * @return the count
   */
  public int size() {
    try {
      return (int) CTorchNative.ct_checkpoint_num_tensors(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The tensors' names, in the order of their data in the file.
   *
   * @return an unmodifiable list
   */
  public List<String> names() {
    try {
      long h = handle();
      int n = (int) CTorchNative.ct_checkpoint_num_tensors(h);
      List<String> out = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        out.add(new String(CTorchNative.ct_java_utf8(CTorchNative.ct_checkpoint_name(h, i)), StandardCharsets.UTF_8));
      }
      return Collections.unmodifiableList(out);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Whether the file holds a tensor of this name.
   *
   * @param name the name
   * @return true when {@link #get} finds it
   */
  public boolean contains(String name) {
    return names().contains(name);
  }

  /**
   * The tensor called name: a contiguous CPU tensor over the file's memory (no copy when its data
   * is aligned), which does not require grad.
   *
   * @param name the name
   * @return a new tensor
   * @throws IndexException when no tensor has this name
   * @throws DTypeException when its dtype has no ctorch dtype (U16, U32, U64, C64, small floats)
   */
  public Tensor get(String name) {
    try {
      return new Tensor(CTorchNative.ct_java_checkpoint_get(handle(), Native.text(name, "name").getBytes(StandardCharsets.UTF_8)));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Every tensor, by name in file order (each a new tensor; close them, or the map's values, when
   * done).
   *
   * @return an ordered map
   */
  public Map<String, Tensor> tensors() {
    Map<String, Tensor> out = new LinkedHashMap<>();
    for (String name : names()) {
      out.put(name, get(name));
    }
    return out;
  }

  /**
   * The file's "__metadata__" (empty when it has none).
   *
   * @return an unmodifiable map, in the file's order
   */
  public Map<String, String> metadata() {
    return MetadataJson.read(metadataJson());
  }

  /**
   * The file's "__metadata__" as compact JSON, or "null" when it has none.
   *
   * @return the JSON text
   */
  public String metadataJson() {
    try {
      return new String(CTorchNative.ct_java_take_utf8(CTorchNative.ct_checkpoint_metadata_json(handle())), StandardCharsets.UTF_8);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Names as UTF-8 and handles of a name-to-tensor map, in its iteration order. */
  private static final class Entries {
    final byte[][] names;
    final long[] handles;
    final Tensor[] keep;

    Entries(Map<String, Tensor> tensors) {
      if (tensors == null) {
        throw new InvalidArgumentException("argument tensors is null. Pass a map of names to tensors");
      }
      int n = tensors.size();
      names = new byte[n][];
      handles = new long[n];
      keep = new Tensor[n];
      int i = 0;
      for (Map.Entry<String, Tensor> e : tensors.entrySet()) {
        String name = e.getKey();
        if (name == null) {
          throw new InvalidArgumentException("Checkpoint.save: a tensor has a null name. Name every tensor");
        }
        names[i] = name.getBytes(StandardCharsets.UTF_8);
        keep[i] = e.getValue();
        handles[i] = Native.handle(e.getValue(), "tensors[\"" + name + "\"]");
        i++;
      }
    }
  }
}
