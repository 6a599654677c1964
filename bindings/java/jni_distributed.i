/* jni_distributed.i - the typemaps of the distributed section of ctorch.h (org.ctorch.distributed
 * is the API over them). Included by ctorch.i before the header.
 *   - process groups and work handles are longs, like every handle;
 *   - `ct_work** work` is a boolean "async": false passes NULL (the call waits), true returns the new
 *     work handle as the call's long;
 *   - tensor lists are long[] of handles (outputs are tensors the collective writes into, not new
 *     references); new_group's ranks are an int[];
 *   - ct_dist_get_backend's static string comes back as its address (ct_java_static_string);
 *   - the post-accumulate grad hook of the same section's autograd part runs through the tensor
 *     hook's trampoline. */

CT_JAVA_HANDLE(ct_process_group)
CT_JAVA_HANDLE(ct_work)

%typemap(jni) ct_work** work "jboolean"
%typemap(jtype) ct_work** work "boolean"
%typemap(jstype) ct_work** work "boolean"
%typemap(javain) ct_work** work "$javainput"
%typemap(in) ct_work** work (ct_work* tmp = NULL) %{ $1 = $input ? &tmp : NULL; %}
%typemap(argout) ct_work** work %{ $result = (jlong)(intptr_t)tmp$argnum; %}

CT_JAVA_HANDLES_IN(ct_tensor* const*, outputs, n_outputs)
CT_JAVA_HANDLES_IN(const ct_tensor* const*, inputs, n)
/* all_to_all's outputs, whose count is its inputs' (org.ctorch.distributed checks both lengths). */
%typemap(jni) ct_tensor* const* outputs "jlongArray"
%typemap(jtype) ct_tensor* const* outputs "long[]"
%typemap(jstype) ct_tensor* const* outputs "long[]"
%typemap(javain) ct_tensor* const* outputs "$javainput"
%typemap(in) ct_tensor* const* outputs %{ $1 = ($1_ltype)ct_java_handles(jenv, $input); %}
%typemap(freearg) ct_tensor* const* outputs %{ free((void*)$1); %}

%typemap(jni) (const int* ranks, size_t n_ranks) "jintArray"
%typemap(jtype) (const int* ranks, size_t n_ranks) "int[]"
%typemap(jstype) (const int* ranks, size_t n_ranks) "int[]"
%typemap(javain) (const int* ranks, size_t n_ranks) "$javainput"
%typemap(in) (const int* ranks, size_t n_ranks) %{
  $2 = $input ? (size_t)(*jenv)->GetArrayLength(jenv, $input) : 0;
  $1 = (int*)malloc(sizeof(int) * ($2 ? $2 : 1));
  if ($2) (*jenv)->GetIntArrayRegion(jenv, $input, 0, (jsize)$2, (jint*)$1);
%}
%typemap(freearg) (const int* ranks, size_t n_ranks) %{ free((void*)$1); %}

%typemap(in, numinputs=0) const char** out (const char* tmp = NULL) %{ $1 = &tmp; %}
%typemap(argout) const char** out %{ $result = (jlong)(intptr_t)tmp$argnum; %}

/* A C callback: Tensor.registerPostAccumulateGradHook goes through ct_java_register_post_accumulate_hook. */
%ignore ct_tensor_register_post_accumulate_grad_hook;

%{
/* A post-accumulate hook is a tensor hook whose result is ignored: Tensor wraps the Java Consumer
 * as a UnaryOperator returning null, and Callbacks.hook runs it with the leaf. */
static ct_status ct_java_post_accumulate_hook(void* user_data, ct_tensor* t) {
  ct_tensor* ignored = NULL;
  ct_status s = ct_java_hook(user_data, t, &ignored);
  ct_tensor_release(ignored);
  return s;
}
%}

%inline %{
/* ct_tensor_register_post_accumulate_grad_hook with a hook (a UnaryOperator whose result is
 * ignored); returns its id. */
static jlong ct_java_register_post_accumulate_hook(JNIEnv* env, jlong t, jobject hook) {
  jobject ref = ct_java_hold(env, hook, "Tensor.registerPostAccumulateGradHook: the hook is null");
  if (!ref) return 0;
  int64_t id = 0;
  ct_status s = ct_tensor_register_post_accumulate_grad_hook((ct_tensor*)(intptr_t)t, ct_java_post_accumulate_hook,
                                                             ref, ct_java_destroy, &id);
  if (s != CT_OK) {
    ct_java_throw(env, s); /* the library destroyed user_data, as ct_tensor_register_hook does */
    return 0;
  }
  return (jlong)id;
}

/* The String of a static char* the library returned (ct_dist_get_backend); not freed. */
static jstring ct_java_static_string(JNIEnv* env, jlong s) {
  return s ? (*env)->NewStringUTF(env, (const char*)(intptr_t)s) : NULL;
}
%}
