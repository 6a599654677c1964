package org.ctorch;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.UnaryOperator;
import org.ctorch.jni.CTorchNative;

/**
 * A tensor: one reference to a {@code ct_tensor}. Close it (try-with-resources, a
 * {@link TensorScope}) to release it now; the cleaner thread releases forgotten ones.
 *
 * <pre>{@code
 * try (Tensor x = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2);
 *      Tensor y = x.matmul(x).relu()) {
 *   System.out.println(y);              // tensor([[ 7., 10.], [15., 22.]])
 * }
 * }</pre>
 *
 * <p>Every operator of the registry is a method ({@code a.add(b)}, {@code x.sum()}) or a static
 * factory ({@code Tensor.zeros(2, 3)}), generated into {@link TensorOps}. Data goes in from Java
 * arrays (copied) and direct {@link ByteBuffer}s (shared, no copy) and out into Java arrays and
 * buffers (copied). Tensors may be shared between threads and read concurrently; an in-place
 * operator changes elements other threads may be reading.
 */
public final class Tensor extends TensorOps {
  Tensor(long handle) {
    super(handle);
  }

  // ---- Creation from Java data (copies) ----

  // No sizes means 1-D whatever the length (a one-element array too: a last batch of one must stay
  // a batch); 0-dim tensors come from scalar(), which passes its empty sizes to C itself.
  private static long[] sizesOr1d(long[] sizes, int length) {
    return sizes == null || sizes.length == 0 ? new long[] {length} : sizes;
  }

  /**
   * A float32 tensor copied from data.
   *
   * @param data row-major elements
   * @param sizes the sizes (none: 1-D)
   * @return a new tensor
   * @throws ShapeException when data does not have numel(sizes) elements
   */
  public static Tensor of(float[] data, long... sizes) {
    return new Tensor(CTorchNative.ct_java_from_array(data, 4, sizesOr1d(sizes, len(data)), DType.FLOAT32.code()));
  }

  /**
   * A float64 tensor copied from data.
   *
   * @param data row-major elements
   * @param sizes the sizes (none: 1-D)
   * @return a new tensor
   */
  public static Tensor of(double[] data, long... sizes) {
    return new Tensor(CTorchNative.ct_java_from_array(data, 8, sizesOr1d(sizes, len(data)), DType.FLOAT64.code()));
  }

  /**
   * An int64 tensor copied from data.
   *
   * @param data row-major elements
   * @param sizes the sizes (none: 1-D)
   * @return a new tensor
   */
  public static Tensor of(long[] data, long... sizes) {
    return new Tensor(CTorchNative.ct_java_from_array(data, 8, sizesOr1d(sizes, len(data)), DType.INT64.code()));
  }

  /**
   * An int32 tensor copied from data.
   *
   * @param data row-major elements
   * @param sizes the sizes (none: 1-D)
   * @return a new tensor
   */
  public static Tensor of(int[] data, long... sizes) {
    return new Tensor(CTorchNative.ct_java_from_array(data, 4, sizesOr1d(sizes, len(data)), DType.INT32.code()));
  }

  /**
   * An int16 tensor copied from data.
   *
   * @param data row-major elements
   * @param sizes the sizes (none: 1-D)
   * @return a new tensor
   */
  public static Tensor of(short[] data, long... sizes) {
    return new Tensor(CTorchNative.ct_java_from_array(data, 2, sizesOr1d(sizes, len(data)), DType.INT16.code()));
  }

  /**
   * An int8 tensor copied from data (see {@link #ofUint8} for unsigned bytes).
   *
   * @param data row-major elements
   * @param sizes the sizes (none: 1-D)
   * @return a new tensor
   */
  public static Tensor of(byte[] data, long... sizes) {
    return new Tensor(CTorchNative.ct_java_from_array(data, 1, sizesOr1d(sizes, len(data)), DType.INT8.code()));
  }

  /**
   * A uint8 tensor copied from data (each byte read as 0..255).
   *
   * @param data row-major elements
   * @param sizes the sizes (none: 1-D)
   * @return a new tensor
   */
  public static Tensor ofUint8(byte[] data, long... sizes) {
    return new Tensor(CTorchNative.ct_java_from_array(data, 1, sizesOr1d(sizes, len(data)), DType.UINT8.code()));
  }

  /**
   * A bool tensor copied from data.
   *
   * @param data row-major elements
   * @param sizes the sizes (none: 1-D)
   * @return a new tensor
   */
  public static Tensor of(boolean[] data, long... sizes) {
    return new Tensor(CTorchNative.ct_java_from_array(data, 1, sizesOr1d(sizes, len(data)), DType.BOOL.code()));
  }

  private static int len(Object array) {
    if (array == null) {
      throw new InvalidArgumentException("Tensor.of: the data array is null");
    }
    return java.lang.reflect.Array.getLength(array);
  }

  /**
   * A 0-dim tensor holding a value: float32 for a Float, float64 for a Double, int64 for an
   * integral Number, bool for a Boolean.
   *
   * @param value the value
   * @return a new 0-dim tensor
   */
  public static Tensor scalar(Object value) {
    long[] none = new long[0];
    long h;
    if (value instanceof Float) {
      h = CTorchNative.ct_java_from_array(new float[] {(Float) value}, 4, none, DType.FLOAT32.code());
    } else if (value instanceof Double) {
      h = CTorchNative.ct_java_from_array(new double[] {(Double) value}, 8, none, DType.FLOAT64.code());
    } else if (value instanceof Boolean) {
      h = CTorchNative.ct_java_from_array(new boolean[] {(Boolean) value}, 1, none, DType.BOOL.code());
    } else if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
      h = CTorchNative.ct_java_from_array(new long[] {((Number) value).longValue()}, 8, none, DType.INT64.code());
    } else {
      throw new InvalidArgumentException("Tensor.scalar: expected a Float, Double, integral Number or Boolean, got " + value);
    }
    return new Tensor(h);
  }

  /**
   * A tensor over a direct buffer's memory, without copying: writes through either side show in
   * the other. The buffer stays reachable until the tensor's storage is freed. Elements are read
   * in the platform's byte order ({@link ByteOrder#nativeOrder()}). A read-only buffer
   * ({@link ByteBuffer#asReadOnlyBuffer()}) gives a read-only tensor ({@link #isReadOnly()}): every
   * write to it throws. A BOOL buffer must hold the bytes 0 and 1 only, and the address must be
   * aligned to the element size.
   *
   * @param buffer a direct buffer ({@link ByteBuffer#allocateDirect}) from its address, not its position
   * @param dtype the element type
   * @param sizes the sizes
   * @param strides strides in elements, or null for row-major
   * @return a new CPU tensor sharing the buffer's memory
   * @throws ShapeException when sizes and strides reach past the buffer
   * @throws InvalidArgumentException for bool bytes other than 0 and 1, or a misaligned buffer
   */
  public static Tensor fromBuffer(ByteBuffer buffer, DType dtype, long[] sizes, long[] strides) {
    return new Tensor(CTorchNative.ct_java_from_buffer(buffer, sizes, strides, Native.handleDtype(dtype)));
  }

  /**
   * A row-major tensor over a direct buffer's memory (see {@link #fromBuffer(ByteBuffer, DType, long[], long[])}).
   *
   * @param buffer a direct buffer
   * @param dtype the element type
   * @param sizes the sizes
   * @return a new CPU tensor sharing the buffer's memory
   */
  public static Tensor fromBuffer(ByteBuffer buffer, DType dtype, long... sizes) {
    return fromBuffer(buffer, dtype, sizes, null);
  }

  /**
   * A meta tensor (no data) with symbolic sizes, for shape computations.
   *
   * @param sizes the sizes
   * @param dtype the element type
   * @return a new meta tensor
   */
  public static Tensor emptySymbolic(SymInt[] sizes, DType dtype) {
    try {
      return new Tensor(CTorchNative.ct_tensor_empty_symbolic(Native.handles(sizes, "sizes"), Native.handleDtype(dtype)));
    } finally {
      Reference.reachabilityFence(sizes);
    }
  }

  /**
   * Another reference to this tensor (a new object to close; the elements are shared). Use it to
   * hand a tensor to code that closes what it gets.
   *
   * @return a new reference
   */
  public Tensor share() {
    long h = handle();
    CTorchNative.ct_tensor_retain(h);
    Reference.reachabilityFence(this);
    return new Tensor(h);
  }

  // ---- Inspection ----

  /**
   * The number of dimensions.
   *
   * @return ndim
   */
  public int dim() {
    try {
      return (int) CTorchNative.ct_tensor_ndim(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The sizes.
   *
   * @return one size per dimension
   */
  public long[] sizes() {
    long[] out = new long[dim()];
    try {
      CTorchNative.ct_tensor_sizes(handle(), out);
    } finally {
      Reference.reachabilityFence(this);
    }
    return out;
  }

  /**
   * The size of one dimension.
   *
   * @param dim a dimension; negative counts from the end
   * @return its size
   * @throws IndexException when dim is out of range
   */
  public long size(long dim) {
    try {
      return CTorchNative.ct_tensor_size(handle(), dim);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The strides, in elements.
   *
   * @return one stride per dimension
   */
  public long[] strides() {
    long[] out = new long[dim()];
    try {
      CTorchNative.ct_tensor_strides(handle(), out);
    } finally {
      Reference.reachabilityFence(this);
    }
    return out;
  }

  /**
   * The number of elements.
   *
   * @return numel
   */
  public long numel() {
    try {
      return CTorchNative.ct_tensor_numel(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The element type.
   *
   * @return the dtype
   */
  public DType dtype() {
    try {
      return DType.of((int) CTorchNative.ct_tensor_dtype(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The device.
   *
   * @return where the elements live
   */
  public Device device() {
    try {
      long packed = CTorchNative.ct_tensor_device(handle());
      return Device.of(Device.Type.values()[(int) (packed >>> 32)], (int) packed);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Whether elements are laid out row-major without gaps.
   *
   * @return true when contiguous
   */
  public boolean isContiguous() {
    try {
      return CTorchNative.ct_tensor_is_contiguous(handle()) != 0;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Whether this tensor's memory refuses writes: a read-only buffer given to {@link #fromBuffer}
   * ({@link ByteBuffer#isReadOnly()}). Such a tensor, and every view of it, reads as any other; every
   * in-place write to it throws {@link InvalidArgumentException}. {@code clone()} gives a writable copy.
   *
   * @return true for read-only memory
   */
  public boolean isReadOnly() {
    try {
      return CTorchNative.ct_tensor_is_read_only(handle()) != 0;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The offset of the first element in the storage, in elements.
   *
   * @return the storage offset
   */
  public long storageOffset() {
    try {
      return CTorchNative.ct_tensor_storage_offset(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The tensor printed as PyTorch prints it: {@code tensor([[1., 2.], [3., 4.]])}; a closed one prints "Tensor(closed)".
   *
   * @return the tensor printed as PyTorch prints it: {@code tensor([[1., 2.], [3., 4.]])}; a closed one prints "Tensor(closed)"
   */
  @Override
  public String toString() {
    if (isClosed()) {
      return "Tensor(closed)";
    }
    try {
      return Native.string(CTorchNative.ct_tensor_to_string(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  // ---- Data out (copies) ----

  /**
   * The value of a one-element tensor as a complex number, for complex tensors, whose values
   * {@link #item()} refuses (imaginary part 0 for a real dtype).
   *
   * @return {real, imaginary}
   * @throws ShapeException when the tensor has more than one element
   */
  public double[] itemComplex() {
    double[] parts = new double[2];
    try {
      CTorchNative.ct_java_item_complex(handle(), parts);
    } finally {
      Reference.reachabilityFence(this);
    }
    return parts;
  }

  /**
   * The value of a one-element tensor: a Boolean, a Long (integer dtypes) or a Double.
   *
   * @return the value
   * @throws ShapeException when the tensor has more than one element
   */
  public Object item() {
    long[] values = new long[2];
    int kind;
    try {
      kind = CTorchNative.ct_java_item(handle(), values);
    } finally {
      Reference.reachabilityFence(this);
    }
    if (kind == org.ctorch.jni.CTorchNativeConstants.CT_SCALAR_BOOL) {
      return values[0] != 0;
    } else if (kind == org.ctorch.jni.CTorchNativeConstants.CT_SCALAR_INT) {
      return values[0];
    }
    return Double.longBitsToDouble(values[1]);
  }

  /**
   * The value of a one-element tensor as a double.
   *
   * @return the value
   */
  public double doubleValue() {
    Object v = item();
    return v instanceof Boolean ? ((Boolean) v ? 1 : 0) : ((Number) v).doubleValue();
  }

  /**
   * The value of a one-element tensor as a long (floats are truncated toward zero).
   *
   * @return the value
   */
  public long longValue() {
    Object v = item();
    return v instanceof Boolean ? ((Boolean) v ? 1 : 0) : ((Number) v).longValue();
  }

  private int javaLength() {
    long n = numel();
    if (n > Integer.MAX_VALUE - 8) {
      throw new InvalidArgumentException("Tensor: " + n + " elements do not fit a Java array. Use copyTo(ByteBuffer)");
    }
    return (int) n;
  }

  /** Copies into array (numel elements of dtype), converting a tensor of another dtype first. */
  private <A> A copyOut(A array, DType want) {
    if (dtype() == want) {
      try {
        CTorchNative.ct_java_copy_to_array(handle(), array, want.itemSize());
      } finally {
        Reference.reachabilityFence(this);
      }
    } else {
      try (Tensor converted = to(want)) {
        CTorchNative.ct_java_copy_to_array(converted.handle(), array, want.itemSize());
      }
    }
    return array;
  }

  /**
   * The elements in row-major order as floats (converted to float32 first when needed).
   *
   * @return a new array of numel elements
   */
  public float[] toFloatArray() {
    return copyOut(new float[javaLength()], DType.FLOAT32);
  }

  /**
   * The elements as doubles (converted to float64 first when needed).
   *
   * @return a new array of numel elements
   */
  public double[] toDoubleArray() {
    return copyOut(new double[javaLength()], DType.FLOAT64);
  }

  /**
   * The elements as longs (converted to int64 first when needed).
   *
   * @return a new array of numel elements
   */
  public long[] toLongArray() {
    return copyOut(new long[javaLength()], DType.INT64);
  }

  /**
   * The elements as ints (converted to int32 first when needed).
   *
   * @return a new array of numel elements
   */
  public int[] toIntArray() {
    return copyOut(new int[javaLength()], DType.INT32);
  }

  /**
   * The elements as booleans (converted to bool first when needed).
   *
   * @return a new array of numel elements
   */
  public boolean[] toBooleanArray() {
    return copyOut(new boolean[javaLength()], DType.BOOL);
  }

  /**
   * Copies the elements, row-major, in this tensor's dtype and the platform's byte order, into
   * the start of a direct buffer.
   *
   * @param buffer a direct buffer of at least numel * itemsize bytes
   * @throws InvalidArgumentException for a heap or too small buffer
   */
  public void copyTo(ByteBuffer buffer) {
    long nbytes = numel() * dtype().itemSize();
    try {
      CTorchNative.ct_java_copy_to_buffer(handle(), buffer, nbytes);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The elements in a new direct buffer (row-major, this tensor's dtype, native byte order).
   *
   * @return a buffer of numel * itemsize bytes
   */
  public ByteBuffer toByteBuffer() {
    ByteBuffer buffer = ByteBuffer.allocateDirect(Math.toIntExact(numel() * dtype().itemSize()));
    buffer.order(ByteOrder.nativeOrder());
    copyTo(buffer);
    return buffer;
  }

  // ---- Autograd ----

  /**
   * Whether gradients are recorded for this tensor.
   *
   * @return requires_grad
   */
  public boolean requiresGrad() {
    try {
      return CTorchNative.ct_tensor_requires_grad(handle()) != 0;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Sets requires_grad (torch's {@code requires_grad_}).
   *
   * @param requiresGrad whether to record gradients
   * @return this tensor
   * @throws InvalidArgumentException for a non-leaf or an integer tensor
   */
  public Tensor setRequiresGrad(boolean requiresGrad) {
    try {
      CTorchNative.ct_tensor_set_requires_grad(handle(), requiresGrad ? 1 : 0);
      return this;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Whether this tensor is a leaf of the graph (created by the user, not by a recorded operator).
   *
   * @return is_leaf
   */
  public boolean isLeaf() {
    try {
      return CTorchNative.ct_tensor_is_leaf(handle()) != 0;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Whether {@link #retainGrad()} was called on this non-leaf tensor.
   *
   * @return retains_grad
   */
  public boolean retainsGrad() {
    try {
      return CTorchNative.ct_tensor_retains_grad(handle()) != 0;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Which result of the operator that made this tensor it is (0 for a leaf).
   *
   * @return output_nr
   */
  public long outputNr() {
    try {
      return CTorchNative.ct_tensor_output_nr(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The accumulated gradient.
   *
   * @return a new reference to the gradient, or null when none was computed
   */
  public Tensor grad() {
    try {
      long g = CTorchNative.ct_tensor_grad(handle());
      return g == 0 ? null : new Tensor(g);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Replaces the gradient (null clears it, like {@code t.grad = None}).
   *
   * @param grad the new gradient, or null
   */
  public void setGrad(Tensor grad) {
    try {
      CTorchNative.ct_tensor_set_grad(handle(), grad == null ? 0 : grad.handle());
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(grad);
    }
  }

  /** Keeps the gradient of this non-leaf tensor after backward. */
  public void retainGrad() {
    try {
      CTorchNative.ct_tensor_retain_grad(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The name of the node that made this tensor ("MulBackward").
   *
   * @return the name, or null for a leaf
   */
  public String gradFnName() {
    try {
      return Native.string(CTorchNative.ct_tensor_grad_fn_name(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * A tensor sharing the elements, outside the graph.
   *
   * @return a new tensor that does not require grad
   */
  public Tensor detach() {
    try {
      return new Tensor(CTorchNative.ct_tensor_detach(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Whether this tensor was made in inference mode.
   *
   * @return is_inference
   */
  public boolean isInference() {
    try {
      return CTorchNative.ct_tensor_is_inference(handle()) != 0;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Computes gradients of this one-element tensor into the leaves' {@link #grad()}. */
  public void backward() {
    backward(null, 0);
  }

  /**
   * Computes gradients of this tensor.
   *
   * @param grad the gradient of this tensor (null: ones, for one element)
   * @param flags {@link Grad#RETAIN_GRAPH}, {@link Grad#CREATE_GRAPH}, or 0
   */
  public void backward(Tensor grad, int flags) {
    try {
      CTorchNative.ct_tensor_backward(handle(), grad == null ? 0 : grad.handle(), flags);
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(grad);
    }
  }

  /**
   * Registers a hook that sees every gradient computed for this tensor and may replace it. It
   * runs on the thread running backward; tensors it creates (other than the one it returns) are
   * closed when it returns.
   *
   * @param hook returns a replacement gradient, or null to keep it
   * @return the hook's id, for {@link #removeHook}
   */
  public long registerHook(UnaryOperator<Tensor> hook) {
    try {
      return CTorchNative.ct_java_register_hook(handle(), hook);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Runs hook on this leaf after each later backward has accumulated its gradient into
   * {@link #grad()} (torch's register_post_accumulate_grad_hook): the hook gets the leaf, borrowed
   * for the call, and may read or replace its grad. Data-parallel training starts reducing a
   * gradient here while backward goes on (ProcessGroup.allReduceAsync). An exception the hook
   * throws stops backward, which throws it as its cause. The hook runs on the thread running
   * backward.
   *
   * @param hook the hook
   * @return an id for {@link #removeHook}
   * @throws InvalidArgumentException when this tensor is not a leaf that requires grad
   */
  public long registerPostAccumulateGradHook(java.util.function.Consumer<Tensor> hook) {
    if (hook == null) {
      throw new InvalidArgumentException("argument hook is null. Pass a Consumer<Tensor>");
    }
    java.util.function.UnaryOperator<Tensor> asHook = leaf -> {
      hook.accept(leaf);
      return null;
    };
    try {
      return CTorchNative.ct_java_register_post_accumulate_hook(handle(), asHook);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Removes a hook.
   *
   * @param id what {@link #registerHook} or {@link #registerPostAccumulateGradHook} returned
   */
  public void removeHook(long id) {
    try {
      CTorchNative.ct_tensor_remove_hook(handle(), id);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  // ---- Symbolic sizes ----

  /**
   * Whether sizes or strides are symbolic.
   *
   * @return true for a tensor with symbolic geometry
   */
  public boolean isSymbolic() {
    try {
      return CTorchNative.ct_tensor_is_symbolic(handle()) != 0;
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * A size as a symbolic int (no guard).
   *
   * @param dim a dimension
   * @return its size
   */
  public SymInt symSize(long dim) {
    try {
      return new SymInt(CTorchNative.ct_tensor_sym_size(handle(), dim));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * A stride as a symbolic int.
   *
   * @param dim a dimension
   * @return its stride
   */
  public SymInt symStride(long dim) {
    try {
      return new SymInt(CTorchNative.ct_tensor_sym_stride(handle(), dim));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The element count as a symbolic int.
   *
   * @return numel
   */
  public SymInt symNumel() {
    try {
      return new SymInt(CTorchNative.ct_tensor_sym_numel(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The value of a one-element integer tensor as a symbolic int (unbacked while tracing).
   *
   * @return the value
   */
  public SymInt symItem() {
    try {
      return new SymInt(CTorchNative.ct_tensor_sym_item(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }
}
