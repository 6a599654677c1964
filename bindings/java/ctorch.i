/* ctorch.i - the SWIG interface behind org.ctorch.jni (internal; the org.ctorch package is the API).
 *
 * SWIG generates the JNI layer from include/ctorch.h with these conventions, so that no Java code
 * sees a status or an out-parameter:
 *   - a ct_status that is not CT_OK throws the org.ctorch.CTorchException subclass for it, built
 *     from the status and ct_last_error() (CTorchException.create);
 *   - every handle (tensor, generator, ShapeEnv, symbolic number, options, compiled, program) is a
 *     Java long, the handle's address; 0 is NULL. org.ctorch classes own them;
 *   - a function returning ct_status returns a Java long: its out-parameter (a new handle, an
 *     integer, a double's bits for double outs, a char* for string outs, which org.ctorch turns
 *     into a String with ct_java_take_string), or 0 when it has none;
 *   - int64 and handle arrays in are long[]; filled buffers (sizes, outputs) are long[] the caller
 *     allocates; enums are ints (enumsimple); bytes in are byte[]; the optimizer and scheduler
 *     option structs are double[] (jni_training.i).
 * Functions taking C callbacks are replaced by ct_java_* helpers (jni_callbacks.i) whose trampolines
 * attach native threads to the JVM and call org.ctorch.Callbacks; Java exceptions never cross C.
 */
%module CTorchNative

%include <stdint.i>
%include <enumsimple.swg>
%javaconst(1);

%pragma(java) jniclasscode=%{
  static {
    NativeLibrary.load();
  }
%}
%pragma(java) jniclassclassmodifiers="public final class"
%pragma(java) moduleclassmodifiers="public final class"
%pragma(java) modulecode=%{
  private CTorchNative() {}
%}

%{
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ctorch.h"
#include "jni_support.h"
%}

/* ---- Statuses ---- */

%typemap(jni) ct_status "jlong"
%typemap(jtype) ct_status "long"
%typemap(jstype) ct_status "long"
%typemap(javaout) ct_status { return $jnicall; }
%typemap(out) ct_status {
  if ($1 != CT_OK) ct_java_throw(jenv, $1);
  $result = 0;
}
/* A status passed in (ct_status_name, ct_error_set) is an int. */
%typemap(jni) ct_status status "jint"
%typemap(jtype) ct_status status "int"
%typemap(jstype) ct_status status "int"
%typemap(javain) ct_status status "$javainput"
%typemap(in) ct_status status %{ $1 = (ct_status)$input; %}

/* ---- Handles ---- */

%define CT_JAVA_HANDLE(T)
%typemap(jni) T*, const T* "jlong"
%typemap(jtype) T*, const T* "long"
%typemap(jstype) T*, const T* "long"
%typemap(javain) T*, const T* "$javainput"
%typemap(javaout) T*, const T* { return $jnicall; }
%typemap(in) T*, const T* %{ $1 = ($1_ltype)(intptr_t)$input; %}
%typemap(out) T*, const T* %{ $result = (jlong)(intptr_t)$1; %}
%typemap(in, numinputs=0) T** out (T* tmp = NULL) %{ $1 = &tmp; %}
%typemap(argout) T** out %{ $result = (jlong)(intptr_t)tmp$argnum; %}
%enddef
CT_JAVA_HANDLE(ct_tensor)
CT_JAVA_HANDLE(ct_generator)
CT_JAVA_HANDLE(ct_shape_env)
CT_JAVA_HANDLE(ct_symint)
CT_JAVA_HANDLE(ct_symfloat)
CT_JAVA_HANDLE(ct_symbool)
CT_JAVA_HANDLE(ct_autograd_ctx)
CT_JAVA_HANDLE(ct_compile_options)
CT_JAVA_HANDLE(ct_compiled)
CT_JAVA_HANDLE(ct_dynamic_shapes)
CT_JAVA_HANDLE(ct_program)
CT_JAVA_HANDLE(ct_checkpoint)
CT_JAVA_HANDLE(ct_torch_file)
CT_JAVA_HANDLE(ct_optimizer)
CT_JAVA_HANDLE(ct_lr_scheduler)

/* uint64_t (seeds, offsets) travels as a long with the same bits. */
%apply int64_t { uint64_t };

/* ---- Scalar out-parameters become the returned long ---- */

%define CT_JAVA_OUT(T, NAME)
%typemap(in, numinputs=0) T* NAME (T tmp = 0) %{ $1 = &tmp; %}
%typemap(argout) T* NAME %{ $result = (jlong)tmp$argnum; %}
%enddef
CT_JAVA_OUT(int64_t, out)
CT_JAVA_OUT(uint64_t, out)
CT_JAVA_OUT(size_t, out)
CT_JAVA_OUT(int32_t, out)
CT_JAVA_OUT(int, out)
CT_JAVA_OUT(int, is_concrete)
CT_JAVA_OUT(int64_t, id)
CT_JAVA_OUT(int64_t, failing)
CT_JAVA_OUT(ct_dtype, out)
CT_JAVA_OUT(ct_grad_mode, previous)
%typemap(in, numinputs=0) void** out (void* tmp = NULL) %{ $1 = &tmp; %}
%typemap(argout) void** out %{ $result = (jlong)(intptr_t)tmp$argnum; %}
/* A double out comes back as its bits (Double.longBitsToDouble). */
%typemap(in, numinputs=0) double* out (double tmp = 0) %{ $1 = &tmp; %}
%typemap(argout) double* out %{ memcpy(&$result, &tmp$argnum, sizeof(double)); %}
/* A string out comes back as the char* (ct_java_take_string makes the String and frees it). */
%typemap(in, numinputs=0) char** out (char* tmp = NULL) %{ $1 = &tmp; %}
%typemap(argout) char** out %{ $result = (jlong)(intptr_t)tmp$argnum; %}
/* A device comes back packed: type << 32 | index. */
%typemap(in, numinputs=0) (ct_device_type* type, int32_t* index) (ct_device_type t = CT_DEVICE_CPU, int32_t i = 0) %{
  $1 = &t;
  $2 = &i;
%}
%typemap(argout) (ct_device_type* type, int32_t* index) %{
  $result = ((jlong)t$argnum << 32) | (jlong)(uint32_t)i$argnum;
%}
/* The maybe_* value of a symbolic number: a one-element array the call fills. */
%define CT_JAVA_FILLED_ONE(T, JT, JARR, JAVA, NAME, GET, SET)
%typemap(jni) T* NAME #JARR
%typemap(jtype) T* NAME #JAVA
%typemap(jstype) T* NAME #JAVA
%typemap(javain) T* NAME "$javainput"
%typemap(in) T* NAME (T tmp = 0) %{
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) < 1) {
    ct_java_throw_message(jenv, CT_ERROR_INVALID_ARGUMENT, "$symname: value must be a one-element array");
    return $null;
  }
  $1 = &tmp;
%}
%typemap(argout) T* NAME %{
  if (!(*jenv)->ExceptionCheck(jenv)) { JT v = (JT)tmp$argnum; (*jenv)->SET(jenv, $input, 0, 1, &v); }
%}
%enddef
CT_JAVA_FILLED_ONE(int64_t, jlong, jlongArray, long[], value, GetLongArrayRegion, SetLongArrayRegion)
CT_JAVA_FILLED_ONE(double, jdouble, jdoubleArray, double[], value, GetDoubleArrayRegion, SetDoubleArrayRegion)
CT_JAVA_FILLED_ONE(int, jint, jintArray, int[], value, GetIntArrayRegion, SetIntArrayRegion)

/* ---- Arrays in ---- */

/* int64 arrays (sizes, dims, symbol values, repeats, pads) from long[]; null is an empty array. */
%define CT_JAVA_INT64S_IN(NAME, COUNT)
%typemap(jni) (const int64_t* NAME, size_t COUNT) "jlongArray"
%typemap(jtype) (const int64_t* NAME, size_t COUNT) "long[]"
%typemap(jstype) (const int64_t* NAME, size_t COUNT) "long[]"
%typemap(javain) (const int64_t* NAME, size_t COUNT) "$javainput"
%typemap(in) (const int64_t* NAME, size_t COUNT) %{
  $2 = $input ? (size_t)(*jenv)->GetArrayLength(jenv, $input) : 0;
  $1 = (int64_t*)malloc(sizeof(int64_t) * ($2 ? $2 : 1));
  if ($2) (*jenv)->GetLongArrayRegion(jenv, $input, 0, (jsize)$2, (jlong*)$1);
%}
%typemap(freearg) (const int64_t* NAME, size_t COUNT) %{ free((void*)$1); %}
%enddef
CT_JAVA_INT64S_IN(sizes, ndim)
CT_JAVA_INT64S_IN(sizes, n)
CT_JAVA_INT64S_IN(dims, n)
CT_JAVA_INT64S_IN(values, n)
CT_JAVA_INT64S_IN(repeats, n)
CT_JAVA_INT64S_IN(pad, n)

/* Optional numbers: a java.lang.Long, Integer (a dtype's value) or Double, null for NULL. */
%define CT_JAVA_OPTIONAL_IN(T, NAME, GETTER)
%typemap(jni) const T* NAME "jobject"
%typemap(jtype) const T* NAME "Object"
%typemap(jstype) const T* NAME "Object"
%typemap(javain) const T* NAME "$javainput"
%typemap(in) const T* NAME (ct_scalar boxed, T tmp) %{
  $1 = NULL;
  if ($input) {
    if (ct_java_scalar(jenv, $input, &boxed) != 0) return $null;
    tmp = (T)(boxed.kind == CT_SCALAR_FLOAT ? GETTER : boxed.i);
    $1 = &tmp;
  }
%}
%enddef
CT_JAVA_OPTIONAL_IN(int64_t, dim, (int64_t)boxed.f)
CT_JAVA_OPTIONAL_IN(ct_dtype, dtype, (int64_t)boxed.f)

/* Arrays of handles (tensors, symbolic ints) from long[]. */
%define CT_JAVA_HANDLES_IN(PTR, NAME, COUNT)
%typemap(jni) (PTR NAME, size_t COUNT) "jlongArray"
%typemap(jtype) (PTR NAME, size_t COUNT) "long[]"
%typemap(jstype) (PTR NAME, size_t COUNT) "long[]"
%typemap(javain) (PTR NAME, size_t COUNT) "$javainput"
%typemap(in) (PTR NAME, size_t COUNT) %{
  $2 = $input ? (size_t)(*jenv)->GetArrayLength(jenv, $input) : 0;
  $1 = ($1_ltype)ct_java_handles(jenv, $input);
%}
%typemap(freearg) (PTR NAME, size_t COUNT) %{ free((void*)$1); %}
%enddef
CT_JAVA_HANDLES_IN(const ct_tensor* const*, tensors, n)
CT_JAVA_HANDLES_IN(const ct_tensor* const*, inputs, n_inputs)
CT_JAVA_HANDLES_IN(const ct_tensor* const*, indices, n)
CT_JAVA_HANDLES_IN(const ct_tensor* const*, operands, n)
CT_JAVA_HANDLES_IN(const ct_symint* const*, xs, n)
CT_JAVA_HANDLES_IN(const ct_symint* const*, sizes, ndim)

/* Filled arrays: sizes and strides into long[], outputs of compiled functions and programs
 * into long[] (new references the caller owns), generator states into byte[]. */
%define CT_JAVA_FILLED(PTR, NAME, COUNT, JNITYPE, JTYPE, GET, SET, CTYPE)
%typemap(jni) (PTR NAME, size_t COUNT) #JNITYPE
%typemap(jtype) (PTR NAME, size_t COUNT) #JTYPE
%typemap(jstype) (PTR NAME, size_t COUNT) #JTYPE
%typemap(javain) (PTR NAME, size_t COUNT) "$javainput"
%typemap(in) (PTR NAME, size_t COUNT) %{
  $2 = $input ? (size_t)(*jenv)->GetArrayLength(jenv, $input) : 0;
  $1 = ($1_ltype)calloc($2 ? $2 : 1, sizeof(CTYPE));
%}
%typemap(argout) (PTR NAME, size_t COUNT) %{
  if ($2 && !(*jenv)->ExceptionCheck(jenv)) (*jenv)->SET(jenv, $input, 0, (jsize)$2, (const void*)$1);
%}
%typemap(freearg) (PTR NAME, size_t COUNT) %{ free((void*)$1); %}
%enddef
CT_JAVA_FILLED(int64_t*, out, n, jlongArray, long[], GetLongArrayRegion, SetLongArrayRegion, int64_t)
CT_JAVA_FILLED(ct_tensor**, outputs, n_outputs, jlongArray, long[], GetLongArrayRegion, SetLongArrayRegion, int64_t)
CT_JAVA_FILLED(uint8_t*, state, n, jbyteArray, byte[], GetByteArrayRegion, SetByteArrayRegion, uint8_t)
%typemap(jni) (const uint8_t* state, size_t n) "jbyteArray"
%typemap(jtype) (const uint8_t* state, size_t n) "byte[]"
%typemap(jstype) (const uint8_t* state, size_t n) "byte[]"
%typemap(javain) (const uint8_t* state, size_t n) "$javainput"
%typemap(in) (const uint8_t* state, size_t n) %{
  $2 = $input ? (size_t)(*jenv)->GetArrayLength(jenv, $input) : 0;
  $1 = (uint8_t*)malloc($2 ? $2 : 1);
  if ($2) (*jenv)->GetByteArrayRegion(jenv, $input, 0, (jsize)$2, (jbyte*)$1);
%}
%typemap(freearg) (const uint8_t* state, size_t n) %{ free((void*)$1); %}

/* A scalar in: a java.lang.Number or Boolean (null is NULL): Long, Integer, Short and Byte are
 * ints, Boolean a bool, anything else a double. */
%typemap(jni) const ct_scalar* "jobject"
%typemap(jtype) const ct_scalar* "Object"
%typemap(jstype) const ct_scalar* "Object"
%typemap(javain) const ct_scalar* "$javainput"
%typemap(in) const ct_scalar* (ct_scalar tmp) %{
  $1 = NULL;
  if ($input) {
    if (ct_java_scalar(jenv, $input, &tmp) != 0) return $null;
    $1 = &tmp;
  }
%}

/* ---- What SWIG does not wrap as is ---- */

/* Their Java forms are the helpers of jni_helpers.i and jni_callbacks.i. */
/* The option structs travel as double[] (jni_training.i); SWIG makes no classes for them. */
%ignore ct_optimizer_options;
%ignore ct_lr_scheduler_options;
/* The print options travel as a long[5] (ct_java_get/set_print_options). */
%ignore ct_print_options;
%ignore ct_print_options_default;
%ignore ct_get_print_options;
%ignore ct_set_print_options;
/* The JVM resets MXCSR around native calls: a flush-denormal mode could not last (CTorch.java). */
%ignore ct_set_flush_denormal;

%ignore ct_tensor_from_data;
%ignore ct_tensor_from_blob;
%ignore ct_tensor_from_blob_v2;
%ignore ct_tensor_copy_to;
%ignore ct_tensor_item;
%ignore ct_tensor_item_complex;
%ignore ct_op_call;
/* ct_java_op_find and ct_java_op_call_op (jni_helpers.i) take the handle as a long and Args' arrays. */
%ignore ct_op_find;
%ignore ct_op_call_op;
%ignore ct_result_type;  /* boxed values: CTorch.resultType is not offered; promoteTypes and canCast are */
%ignore ct_set_memory_pressure_handler;
%ignore ct_set_log_handler;
%ignore ct_library_impl;
%ignore ct_tensor_register_hook;
%ignore ct_optimizer_step_closure;
%ignore ct_autograd_function_apply;
%ignore ct_autograd_backward;
%ignore ct_autograd_grad;
%ignore ct_compile;
%ignore ct_export;
%ignore ct_program_save_buffer;
%ignore ct_program_load_buffer;
/* A string the library returned is freed by ct_java_take_string. */
%ignore ct_string_release;
/* ct_value is filled by ct_java_op_call from Java arrays; its inline helpers are C-only. */
%ignore ct_value;
%ignore ct_value_set_symint;
%ignore ct_value_set_symints;
%ignore ct_scalar;
/* Device backends are C structs of function pointers (examples/plugin); DLPack exchanges C structs. */
%ignore ct_backend;
%ignore ct_backend_register;
%ignore ct_plugin_init_fn;
%ignore ct_tensor_to_dlpack;
%ignore ct_tensor_to_dlpack_unversioned;
%ignore ct_tensor_from_dlpack;
%ignore ct_tensor_from_dlpack_unversioned;
/* Typed operator functions whose arguments are C structs, optional pointers or output lists: the
 * same operators are reached through the registry (org.ctorch's generated methods, Ops.call). */
%ignore ct_conv2d_options;
%ignore ct_pool2d_options;
%ignore ct_tensor_conv2d;
%ignore ct_tensor_max_pool2d;
%ignore ct_tensor_avg_pool2d;
%ignore ct_tensor_nan_to_num;
%ignore ct_tensor_softmax;
%ignore ct_tensor_log_softmax;
%ignore ct_tensor_layer_norm;
%ignore ct_tensor_rms_norm;
%ignore ct_tensor_scaled_dot_product_attention;
%ignore ct_tensor_argmax;
%ignore ct_tensor_argmin;
%ignore ct_tensor_split;
%ignore ct_tensor_split_with_sizes;
%ignore ct_tensor_chunk;
%ignore ct_tensor_unbind;
%ignore ct_tensor_roll;
%ignore ct_tensor_movedim;
%ignore ct_tensor_sort;
%ignore ct_tensor_topk;

/* The helpers get the caller's JNIEnv. */
%typemap(in, numinputs=0) JNIEnv* %{ $1 = jenv; %}

%include "jni_callbacks.i"
%include "jni_helpers.i"
%include "jni_training.i"
%include "jni_distributed.i"

%include "ctorch.h"
