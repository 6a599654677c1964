/* jni_helpers.i - the Java forms of the C functions that take or fill raw memory, boxed values or
 * lists: data in and out (Java arrays, direct ByteBuffers), item, ct_op_call, the list forms of
 * autograd, programs as bytes, and strings the library returned. Included by ctorch.i. */

%{
/* Deleter of ct_tensor_from_blob over a direct ByteBuffer: drops the global reference that kept
 * the buffer (and its memory) alive. Runs on any thread. */
static void ct_java_release_buffer(void* data, void* user_data) {
  (void)data;
  JNIEnv* env = ct_java_env();
  if (env) (*env)->DeleteGlobalRef(env, (jobject)user_data);
}

/* One ct_value from the parallel arrays org.ctorch.Args fills (the same encoding the kernel
 * trampoline produces): kinds[i], ints[i] (tensor or symint handle, int, bool, dtype), floats[i],
 * objects[i] (long[] for INTS, TENSORS and SYMINTS; String for DEVICE and STRING). Arrays and strings
 * are copied into the call's scratch lists, freed by ct_java_values_free. */
typedef struct ct_java_scratch {
  void* items[64];
  int n;
} ct_java_scratch;

static void* ct_java_keep(ct_java_scratch* s, void* p) {
  if (p && s->n < 64) s->items[s->n++] = p;
  return p;
}

static void ct_java_values_free(ct_java_scratch* s) {
  for (int i = 0; i < s->n; ++i) free(s->items[i]);
  s->n = 0;
}

static int ct_java_fill_value(JNIEnv* env, ct_value* v, jint kind, jlong i, jdouble f, jobject obj,
                              ct_java_scratch* scratch) {
  memset(v, 0, sizeof *v);
  v->kind = (ct_value_kind)kind;
  v->i = i;
  v->f = f;
  switch (kind) {
    case CT_VALUE_TENSOR: v->tensor = (const ct_tensor*)(intptr_t)i; break;
    case CT_VALUE_SYMINT: ct_value_set_symint(v, (const ct_symint*)(intptr_t)i); break;
    case CT_VALUE_INTS:
    case CT_VALUE_TENSORS:
    case CT_VALUE_SYMINTS: {
      if (scratch->n >= 64) return -1;
      jlongArray arr = (jlongArray)obj;
      jsize n = arr ? (*env)->GetArrayLength(env, arr) : 0;
      int64_t* copy = (int64_t*)ct_java_keep(scratch, malloc(sizeof(int64_t) * (n ? (size_t)n : 1)));
      if (!copy) return -1;
      if (n) (*env)->GetLongArrayRegion(env, arr, 0, n, (jlong*)copy);
      v->len = (size_t)n;
      if (kind == CT_VALUE_INTS) v->ints = copy;
      else v->tensors = (const ct_tensor* const*)(void*)copy; /* 64-bit handles, as jlong */
      break;
    }
    case CT_VALUE_DEVICE:
    case CT_VALUE_STRING: {
      if (scratch->n >= 64) return -1;
      const char* utf = obj ? (*env)->GetStringUTFChars(env, (jstring)obj, NULL) : NULL;
      if (utf) {
        v->str = (const char*)ct_java_keep(scratch, strdup(utf));
        (*env)->ReleaseStringUTFChars(env, (jstring)obj, utf);
      }
      break;
    }
    default: break;
  }
  return 0;
}
/* ct_op_call by name, or ct_op_call_op when op is not 0 (an overload ct_java_op_find gave), over
 * org.ctorch.Args' arrays; outs gets the nouts new references. Only list, device and string
 * arguments have an object to read: the others cost no JNI call beyond the three array copies. */
static void ct_java_call_boxed(JNIEnv* env, jlong op, jstring name, jint nargs, jintArray kinds, jlongArray ints,
                               jdoubleArray floats, jobjectArray objects, jlongArray outs) {
  jint nouts = outs ? (*env)->GetArrayLength(env, outs) : -1;
  if ((!op && !name) || nargs < 0 || nargs > 64 || nouts < 0 || nouts > 64) {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "Ops.call: a name, at most 64 arguments and 64 outputs");
    return;
  }
  jint k[64];
  jlong iv[64];
  jdouble fv[64];
  ct_value values[64];
  ct_tensor* o[64];
  ct_java_scratch scratch;
  scratch.n = 0;
  if (nargs) {
    (*env)->GetIntArrayRegion(env, kinds, 0, nargs, k);
    (*env)->GetLongArrayRegion(env, ints, 0, nargs, iv);
    (*env)->GetDoubleArrayRegion(env, floats, 0, nargs, fv);
  }
  if ((*env)->ExceptionCheck(env)) return;
  for (jint a = 0; a < nargs; ++a) {
    int has_object = k[a] == CT_VALUE_INTS || k[a] == CT_VALUE_TENSORS || k[a] == CT_VALUE_SYMINTS ||
                     k[a] == CT_VALUE_DEVICE || k[a] == CT_VALUE_STRING;
    jobject obj = has_object ? (*env)->GetObjectArrayElement(env, objects, a) : NULL;
    int bad = ct_java_fill_value(env, &values[a], k[a], iv[a], fv[a], obj, &scratch);
    if (obj) (*env)->DeleteLocalRef(env, obj);
    if (bad) {
      ct_java_values_free(&scratch);
      ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "Ops.call: too many list arguments (at most 64)");
      return;
    }
  }
  ct_status s;
  if (op) {
    s = ct_op_call_op((const ct_op*)(intptr_t)op, values, (size_t)nargs, o, (size_t)nouts);
  } else {
    const char* utf = (*env)->GetStringUTFChars(env, name, NULL);
    s = utf ? ct_op_call(utf, values, (size_t)nargs, o, (size_t)nouts) : CT_ERROR_OUT_OF_MEMORY;
    if (utf) (*env)->ReleaseStringUTFChars(env, name, utf);
  }
  ct_java_values_free(&scratch);
  if (s != CT_OK) {
    ct_java_throw(env, s);
    return;
  }
  jlong h[64];
  for (jint i = 0; i < nouts; ++i) h[i] = (jlong)(intptr_t)o[i];
  if (nouts) (*env)->SetLongArrayRegion(env, outs, 0, nouts, h);
}
%}

%inline %{
/* The String of a char* the library returned (0 gives null), which is then freed. */
static jstring ct_java_take_string(JNIEnv* env, jlong s) {
  if (!s) return NULL;
  jstring text = (*env)->NewStringUTF(env, (const char*)(intptr_t)s);
  ct_string_release((char*)(intptr_t)s);
  return text;
}

/* A new tensor copied from a primitive Java array (float[], long[], boolean[]...) holding
 * numel(sizes) elements of dtype, each elem_bytes wide. */
static jlong ct_java_from_array(JNIEnv* env, jobject data, jint elem_bytes, jlongArray sizes, jint dtype) {
  if (!data || !sizes) {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "Tensor.of: data and sizes must not be null");
    return 0;
  }
  jsize ndim = (*env)->GetArrayLength(env, sizes);
  int64_t dims[64];
  if (ndim > 64) {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "Tensor.of: more than 64 dimensions");
    return 0;
  }
  (*env)->GetLongArrayRegion(env, sizes, 0, ndim, (jlong*)dims);
  int64_t numel = 1;
  for (jsize d = 0; d < ndim; ++d) numel *= dims[d] < 0 ? 0 : dims[d];
  jsize len = (*env)->GetArrayLength(env, (jarray)data);
  if ((int64_t)len != numel || (size_t)elem_bytes != ct_dtype_itemsize((ct_dtype)dtype)) {
    char msg[200];
    snprintf(msg, sizeof msg, "Tensor.of: %d elements do not fill sizes with %lld elements of %s. Pass matching sizes",
             (int)len, (long long)numel, ct_dtype_name((ct_dtype)dtype));
    ct_java_throw_message(env, CT_ERROR_SHAPE, msg);
    return 0;
  }
  void* p = (*env)->GetPrimitiveArrayCritical(env, (jarray)data, NULL);
  if (!p) return 0;
  ct_tensor* out = NULL;
  ct_status s = ct_tensor_from_data(p, dims, (size_t)ndim, (ct_dtype)dtype, &out);
  (*env)->ReleasePrimitiveArrayCritical(env, (jarray)data, p, JNI_ABORT);
  if (s != CT_OK) ct_java_throw(env, s);
  return (jlong)(intptr_t)out;
}

/* A tensor over a direct ByteBuffer's memory (no copy): strides in elements (null: row-major);
 * the buffer stays reachable until the tensor's storage is freed. */
static jlong ct_java_from_buffer(JNIEnv* env, jobject buffer, jlongArray sizes, jlongArray strides, jint dtype) {
  void* data = buffer ? (*env)->GetDirectBufferAddress(env, buffer) : NULL;
  if (!data || !sizes) {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT,
                          "Tensor.fromBuffer: needs a direct ByteBuffer (ByteBuffer.allocateDirect) and sizes");
    return 0;
  }
  jsize ndim = (*env)->GetArrayLength(env, sizes);
  int64_t dims[64], steps[64];
  if (ndim > 64 || (strides && (*env)->GetArrayLength(env, strides) != ndim)) {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "Tensor.fromBuffer: strides must have one entry per size");
    return 0;
  }
  (*env)->GetLongArrayRegion(env, sizes, 0, ndim, (jlong*)dims);
  if (strides) {
    (*env)->GetLongArrayRegion(env, strides, 0, ndim, (jlong*)steps);
  } else {
    int64_t step = 1;
    for (jsize d = ndim - 1; d >= 0; --d) {
      steps[d] = step;
      step *= dims[d];
    }
  }
  /* The tensor must not read past the buffer: the farthest element is sum((size-1)*stride). */
  int64_t last = 0, empty = 0;
  for (jsize d = 0; d < ndim; ++d) {
    if (dims[d] <= 0) empty = 1;
    else if (steps[d] < 0) last = -1;
    else last += (dims[d] - 1) * steps[d];
  }
  size_t item = ct_dtype_itemsize((ct_dtype)dtype);
  jlong capacity = (*env)->GetDirectBufferCapacity(env, buffer);
  if (last < 0 || (!empty && (last + 1) * (int64_t)item > capacity)) {
    ct_java_throw_message(env, CT_ERROR_SHAPE,
                          "Tensor.fromBuffer: sizes and strides reach past the buffer's capacity (or a negative stride). "
                          "Allocate numel * itemsize bytes");
    return 0;
  }
  /* A read-only buffer (asReadOnlyBuffer) still gives its address: the tensor must refuse writes. */
  jclass buffer_class = (*env)->GetObjectClass(env, buffer);
  jmethodID is_read_only = (*env)->GetMethodID(env, buffer_class, "isReadOnly", "()Z");
  const jboolean read_only = is_read_only ? (*env)->CallBooleanMethod(env, buffer, is_read_only) : JNI_FALSE;
  (*env)->DeleteLocalRef(env, buffer_class);
  if ((*env)->ExceptionCheck(env)) return 0;
  jobject keep = (*env)->NewGlobalRef(env, buffer);
  ct_tensor* out = NULL;
  ct_status s = ct_tensor_from_blob_v2(data, dims, steps, (size_t)ndim, (ct_dtype)dtype,
                                       read_only ? CT_BLOB_READ_ONLY : 0, ct_java_release_buffer, keep, &out);
  if (s != CT_OK) {
    (*env)->DeleteGlobalRef(env, keep); /* on failure the deleter is not called */
    ct_java_throw(env, s);
  }
  return (jlong)(intptr_t)out;
}

/* Copies t's elements (row-major) into a primitive Java array of exactly numel * itemsize bytes. */
static void ct_java_copy_to_array(JNIEnv* env, jlong t, jobject dst, jint elem_bytes) {
  if (!dst) {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "Tensor.copyTo: the array is null");
    return;
  }
  size_t nbytes = (size_t)(*env)->GetArrayLength(env, (jarray)dst) * (size_t)elem_bytes;
  /* Copied through a heap buffer: the copy may run kernels (views are gathered), which must not
   * happen inside a JNI critical region. */
  void* tmp = malloc(nbytes ? nbytes : 1);
  ct_status s = ct_tensor_copy_to((const ct_tensor*)(intptr_t)t, tmp, nbytes);
  if (s == CT_OK) {
    void* p = (*env)->GetPrimitiveArrayCritical(env, (jarray)dst, NULL);
    if (p) {
      memcpy(p, tmp, nbytes);
      (*env)->ReleasePrimitiveArrayCritical(env, (jarray)dst, p, 0);
    }
  }
  free(tmp);
  if (s != CT_OK) ct_java_throw(env, s);
}

/* Copies t's elements (row-major) into a direct ByteBuffer of at least numel * itemsize bytes. */
static void ct_java_copy_to_buffer(JNIEnv* env, jlong t, jobject dst, jlong nbytes) {
  void* p = dst ? (*env)->GetDirectBufferAddress(env, dst) : NULL;
  if (!p || (*env)->GetDirectBufferCapacity(env, dst) < nbytes) {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "Tensor.copyTo: needs a direct ByteBuffer of numel * itemsize bytes");
    return;
  }
  ct_status s = ct_tensor_copy_to((const ct_tensor*)(intptr_t)t, p, (size_t)nbytes);
  if (s != CT_OK) ct_java_throw(env, s);
}

/* The value of a one-element tensor: values[0] gets an int or bool, values[1] a double's bits;
 * returns the ct_scalar_kind. */
static jint ct_java_item(JNIEnv* env, jlong t, jlongArray values) {
  ct_scalar s;
  memset(&s, 0, sizeof s);
  ct_status st = ct_tensor_item((const ct_tensor*)(intptr_t)t, &s);
  if (st != CT_OK) {
    ct_java_throw(env, st);
    return 0;
  }
  jlong out[2];
  out[0] = s.i;
  memcpy(&out[1], &s.f, sizeof(double));
  (*env)->SetLongArrayRegion(env, values, 0, 2, out);
  return (jint)s.kind;
}

/* The value of a one-element tensor as a complex number: parts[0] the real part, parts[1] the
 * imaginary part (0 for real dtypes). */
static void ct_java_item_complex(JNIEnv* env, jlong t, jdoubleArray parts) {
  double re = 0, im = 0;
  ct_status st = ct_tensor_item_complex((const ct_tensor*)(intptr_t)t, &re, &im);
  if (st != CT_OK) {
    ct_java_throw(env, st);
    return;
  }
  const jdouble out[2] = {re, im};
  (*env)->SetDoubleArrayRegion(env, parts, 0, 2, out);
}


/* ct_op_call over org.ctorch.Args' arrays: outs (one slot per output) gets the new references. */
static void ct_java_op_call(JNIEnv* env, jstring name, jint nargs, jintArray kinds, jlongArray ints,
                            jdoubleArray floats, jobjectArray objects, jlongArray outs) {
  ct_java_call_boxed(env, 0, name, nargs, kinds, ints, floats, objects, outs);
}

/* ct_op_find: the overload as a long (the library keeps it until the process ends). */
static jlong ct_java_op_find(JNIEnv* env, jstring name) {
  const char* utf = name ? (*env)->GetStringUTFChars(env, name, NULL) : NULL;
  if (!utf) {
    if (!name) ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "ct_op_find: the name is null. Pass an overload's name");
    return 0; /* else OutOfMemoryError is pending */
  }
  const ct_op* op = NULL;
  ct_status s = ct_op_find(utf, &op);
  (*env)->ReleaseStringUTFChars(env, name, utf);
  if (s != CT_OK) ct_java_throw(env, s);
  return (jlong)(intptr_t)op;
}

/* ct_op_call_op over org.ctorch.Args' arrays, as ct_java_op_call. */
static void ct_java_op_call_op(JNIEnv* env, jlong op, jint nargs, jintArray kinds, jlongArray ints,
                               jdoubleArray floats, jobjectArray objects, jlongArray outs) {
  if (!op) {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "ct_op_call_op: the overload is NULL");
    return;
  }
  ct_java_call_boxed(env, op, NULL, nargs, kinds, ints, floats, objects, outs);
}

/* ct_op_call_op of up to four arguments without objects (tensors, ints, floats, bools, dtypes,
 * symints: org.ctorch.Args keeps them in fields) and one result, its new reference. Primitives
 * cross JNI for free, where the array form copies three arrays in and one out: this is the route
 * of most generated methods. */
static jlong ct_java_op_call_op4(JNIEnv* env, jlong op, jint nargs, jint k0, jlong i0, jdouble f0, jint k1, jlong i1,
                                 jdouble f1, jint k2, jlong i2, jdouble f2, jint k3, jlong i3, jdouble f3) {
  if (!op || nargs < 0 || nargs > 4) {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "ct_op_call_op: an overload and at most 4 arguments");
    return 0;
  }
  const jint k[4] = {k0, k1, k2, k3};
  const jlong iv[4] = {i0, i1, i2, i3};
  const jdouble fv[4] = {f0, f1, f2, f3};
  ct_value values[4];
  ct_java_scratch scratch;
  scratch.n = 0;
  for (jint a = 0; a < nargs; ++a) ct_java_fill_value(env, &values[a], k[a], iv[a], fv[a], NULL, &scratch);
  ct_tensor* out = NULL;
  ct_status s = ct_op_call_op((const ct_op*)(intptr_t)op, values, (size_t)nargs, &out, 1);
  ct_java_values_free(&scratch);
  if (s != CT_OK) {
    ct_java_throw(env, s);
    return 0;
  }
  return (jlong)(intptr_t)out;
}

/* ct_autograd_backward: grads null, or one gradient handle (0 for none) per output. */
static void ct_java_autograd_backward(JNIEnv* env, jlongArray outputs, jlongArray grads, jint flags) {
  jsize n = outputs ? (*env)->GetArrayLength(env, outputs) : 0;
  if (grads && (*env)->GetArrayLength(env, grads) != n) {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "Grad.backward: give one gradient per output, or none");
    return;
  }
  void** outs = ct_java_handles(env, outputs);
  void** gs = ct_java_handles(env, grads);
  ct_status s = ct_autograd_backward((const ct_tensor* const*)outs, (const ct_tensor* const*)gs, (size_t)n, flags);
  free(outs);
  free(gs);
  if (s != CT_OK) ct_java_throw(env, s);
}

/* ct_autograd_grad: one new reference (0 under allow_unused for an unused input) per input. */
static jlongArray ct_java_autograd_grad(JNIEnv* env, jlongArray outputs, jlongArray grad_outputs, jlongArray inputs,
                                        jint flags) {
  jsize n_out = outputs ? (*env)->GetArrayLength(env, outputs) : 0;
  jsize n_in = inputs ? (*env)->GetArrayLength(env, inputs) : 0;
  if (grad_outputs && (*env)->GetArrayLength(env, grad_outputs) != n_out) {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "Grad.grad: give one gradient per output, or none");
    return NULL;
  }
  void** outs = ct_java_handles(env, outputs);
  void** gouts = ct_java_handles(env, grad_outputs);
  void** ins = ct_java_handles(env, inputs);
  ct_tensor** grads = (ct_tensor**)calloc(n_in ? (size_t)n_in : 1, sizeof(ct_tensor*));
  ct_status s = ct_autograd_grad((const ct_tensor* const*)outs, (const ct_tensor* const*)gouts, (size_t)n_out,
                                 (const ct_tensor* const*)ins, (size_t)n_in, flags, grads);
  free(outs);
  free(gouts);
  free(ins);
  jlongArray result = NULL;
  if (s == CT_OK) {
    result = (*env)->NewLongArray(env, n_in);
    for (jsize i = 0; result && i < n_in; ++i) {
      jlong h = (jlong)(intptr_t)grads[i];
      (*env)->SetLongArrayRegion(env, result, i, 1, &h);
    }
    if (!result)
      for (jsize i = 0; i < n_in; ++i) ct_tensor_release(grads[i]);
  } else {
    ct_java_throw(env, s);
  }
  free(grads);
  return result;
}

/* A program serialized to bytes. */
static jbyteArray ct_java_program_save_bytes(JNIEnv* env, jlong program) {
  char* data = NULL;
  size_t size = 0;
  ct_status s = ct_program_save_buffer((const ct_program*)(intptr_t)program, &data, &size);
  if (s != CT_OK) {
    ct_java_throw(env, s);
    return NULL;
  }
  jbyteArray out = (*env)->NewByteArray(env, (jsize)size);
  if (out) (*env)->SetByteArrayRegion(env, out, 0, (jsize)size, (const jbyte*)data);
  ct_string_release(data);
  return out;
}

/* A program loaded from bytes. */
static jlong ct_java_program_load_bytes(JNIEnv* env, jbyteArray bytes) {
  jsize n = bytes ? (*env)->GetArrayLength(env, bytes) : 0;
  void* data = malloc(n ? (size_t)n : 1);
  if (n) (*env)->GetByteArrayRegion(env, bytes, 0, n, (jbyte*)data);
  ct_program* out = NULL;
  ct_status s = ct_program_load_buffer(bytes ? data : NULL, (size_t)n, &out);
  free(data);
  if (s != CT_OK) ct_java_throw(env, s);
  return (jlong)(intptr_t)out;
}
%}

%{
#include <pthread.h>

typedef struct ct_java_thread_call {
  ct_compiled* compiled;
  void** inputs;
  size_t n_inputs;
  ct_tensor* outputs[64];
  size_t n_outputs;
  ct_status status;
  char message[1024];
} ct_java_thread_call;

static void* ct_java_thread_main(void* arg) {
  ct_java_thread_call* c = (ct_java_thread_call*)arg;
  c->status = ct_compiled_call(c->compiled, (const ct_tensor* const*)c->inputs, c->n_inputs, c->outputs, c->n_outputs);
  if (c->status != CT_OK) snprintf(c->message, sizeof c->message, "%s", ct_last_error());
  return NULL;
}
%}

%inline %{
/* ct_get_print_options as {precision, threshold, edgeitems, linewidth, sci_mode}. */
static jlongArray ct_java_get_print_options(JNIEnv* env) {
  ct_print_options o;
  o.struct_size = sizeof o;
  ct_status s = ct_get_print_options(&o);
  if (s != CT_OK) {
    ct_java_throw(env, s);
    return NULL;
  }
  jlong v[5] = {o.precision, o.threshold, o.edgeitems, o.linewidth, o.sci_mode};
  jlongArray out = (*env)->NewLongArray(env, 5);
  if (out) (*env)->SetLongArrayRegion(env, out, 0, 5, v);
  return out;
}

/* ct_set_print_options from the same five values. */
static void ct_java_set_print_options(JNIEnv* env, jint precision, jlong threshold, jlong edgeitems, jlong linewidth,
                                      jint sci_mode) {
  ct_print_options o;
  ct_status s = ct_print_options_default(&o);
  o.precision = precision;
  o.threshold = threshold;
  o.edgeitems = edgeitems;
  o.linewidth = linewidth;
  o.sci_mode = sci_mode;
  if (s == CT_OK) s = ct_set_print_options(&o);
  if (s != CT_OK) ct_java_throw(env, s);
}
%}

%inline %{
/* ct_compiled_call on a new native thread (a pthread the JVM has never seen), joined before
 * returning: how tests show that Java callbacks run on threads the library or a host creates. */
static jlongArray ct_java_call_on_native_thread(JNIEnv* env, jlong compiled, jlongArray inputs, jint n_outputs) {
  ct_java_thread_call c;
  memset(&c, 0, sizeof c);
  if (n_outputs < 0 || n_outputs > 64) {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "at most 64 outputs");
    return NULL;
  }
  c.compiled = (ct_compiled*)(intptr_t)compiled;
  c.inputs = ct_java_handles(env, inputs);
  c.n_inputs = inputs ? (size_t)(*env)->GetArrayLength(env, inputs) : 0;
  c.n_outputs = (size_t)n_outputs;
  pthread_t thread;
  if (pthread_create(&thread, NULL, ct_java_thread_main, &c) != 0) {
    free(c.inputs);
    ct_java_throw_message(env, CT_ERROR_INTERNAL, "pthread_create failed");
    return NULL;
  }
  pthread_join(thread, NULL);
  free(c.inputs);
  if (c.status != CT_OK) {
    ct_java_throw_message(env, c.status, c.message);
    return NULL;
  }
  return ct_java_long_array(env, (const void* const*)c.outputs, c.n_outputs);
}
%}
