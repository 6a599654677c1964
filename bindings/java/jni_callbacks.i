/* jni_callbacks.i - C trampolines for every callback of the C ABI, and the ct_java_* functions that
 * register Java objects with them. Included by ctorch.i.
 *
 * user_data is a JNI global reference to the Java object (a lambda); destroy deletes it. A
 * trampoline may run on any thread: ct_java_env attaches native threads to the JVM. It calls a
 * static method of org.ctorch.Callbacks inside a local frame; that method catches every Throwable,
 * reports it with ct_error_set and returns the status, so no Java exception crosses C. Should one
 * still be pending (an error inside the JVM itself), the trampoline clears it and fails the call. */

%{
static void ct_java_destroy(void* user_data) {
  JNIEnv* env = ct_java_env();
  if (env && user_data) (*env)->DeleteGlobalRef(env, (jobject)user_data);
}

/* A status from a Callbacks method, or a failure when the JVM could not run it. */
static ct_status ct_java_finish(JNIEnv* env, jint status) {
  if ((*env)->ExceptionCheck(env)) {
    (*env)->ExceptionClear(env);
    ct_error_set(CT_ERROR_INTERNAL, "a Java callback failed inside the JVM (an exception escaped org.ctorch.Callbacks)");
    return CT_ERROR_INTERNAL;
  }
  return (ct_status)status;
}

static ct_status ct_java_no_env(void) {
  ct_error_set(CT_ERROR_INTERNAL, "a Java callback could not run: this native thread cannot attach to the JVM");
  return CT_ERROR_INTERNAL;
}

static jlongArray ct_java_long_array(JNIEnv* env, const void* const* handles, size_t n) {
  jlongArray array = (*env)->NewLongArray(env, (jsize)n);
  for (size_t i = 0; array && handles && i < n; ++i) {
    jlong h = (jlong)(intptr_t)handles[i];
    (*env)->SetLongArrayRegion(env, array, (jsize)i, 1, &h);
  }
  return array;
}

/* Copies the handles Java wrote into outs (new references) back to C. */
static void ct_java_store_handles(JNIEnv* env, jlongArray array, ct_tensor** outs, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    jlong h = 0;
    (*env)->GetLongArrayRegion(env, array, (jsize)i, 1, &h);
    outs[i] = (ct_tensor*)(intptr_t)h;
  }
}

static ct_status ct_java_traced(void* user_data, const ct_tensor* const* inputs, size_t n_inputs, ct_tensor** outputs,
                                size_t n_outputs) {
  JNIEnv* env = ct_java_env();
  if (!env || (*env)->PushLocalFrame(env, 8) != 0) return ct_java_no_env();
  jlongArray in = ct_java_long_array(env, (const void* const*)inputs, n_inputs);
  jlongArray out = (*env)->NewLongArray(env, (jsize)n_outputs);
  jint status = CT_ERROR_OUT_OF_MEMORY;
  if (in && out) status = (*env)->CallStaticIntMethod(env, ct_java_callbacks, ct_java_cb_traced, (jobject)user_data, in, out);
  ct_status s = ct_java_finish(env, status);
  if (s == CT_OK) ct_java_store_handles(env, out, outputs, n_outputs);
  (*env)->PopLocalFrame(env, NULL);
  return s;
}

static ct_status ct_java_forward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* inputs,
                                 size_t n_inputs, ct_tensor** outputs, size_t n_outputs) {
  JNIEnv* env = ct_java_env();
  if (!env || (*env)->PushLocalFrame(env, 8) != 0) return ct_java_no_env();
  jlongArray in = ct_java_long_array(env, (const void* const*)inputs, n_inputs);
  jlongArray out = (*env)->NewLongArray(env, (jsize)n_outputs);
  jint status = CT_ERROR_OUT_OF_MEMORY;
  if (in && out)
    status = (*env)->CallStaticIntMethod(env, ct_java_callbacks, ct_java_cb_forward, (jobject)user_data,
                                         (jlong)(intptr_t)ctx, in, out);
  ct_status s = ct_java_finish(env, status);
  if (s == CT_OK) ct_java_store_handles(env, out, outputs, n_outputs);
  (*env)->PopLocalFrame(env, NULL);
  return s;
}

static ct_status ct_java_backward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* grad_outputs,
                                  size_t n_outputs, ct_tensor** grad_inputs, size_t n_inputs) {
  JNIEnv* env = ct_java_env();
  if (!env || (*env)->PushLocalFrame(env, 8) != 0) return ct_java_no_env();
  jlongArray grads = ct_java_long_array(env, (const void* const*)grad_outputs, n_outputs);
  jlongArray out = (*env)->NewLongArray(env, (jsize)n_inputs);
  jint status = CT_ERROR_OUT_OF_MEMORY;
  if (grads && out)
    status = (*env)->CallStaticIntMethod(env, ct_java_callbacks, ct_java_cb_backward, (jobject)user_data,
                                         (jlong)(intptr_t)ctx, grads, out);
  ct_status s = ct_java_finish(env, status);
  if (s == CT_OK) ct_java_store_handles(env, out, grad_inputs, n_inputs);
  (*env)->PopLocalFrame(env, NULL);
  return s;
}

static ct_status ct_java_hook(void* user_data, const ct_tensor* grad, ct_tensor** replacement) {
  JNIEnv* env = ct_java_env();
  if (!env || (*env)->PushLocalFrame(env, 4) != 0) return ct_java_no_env();
  jlongArray out = (*env)->NewLongArray(env, 1);
  jint status = CT_ERROR_OUT_OF_MEMORY;
  if (out)
    status = (*env)->CallStaticIntMethod(env, ct_java_callbacks, ct_java_cb_hook, (jobject)user_data,
                                         (jlong)(intptr_t)grad, out);
  ct_status s = ct_java_finish(env, status);
  if (s == CT_OK) ct_java_store_handles(env, out, replacement, 1);
  (*env)->PopLocalFrame(env, NULL);
  return s;
}

/* An optimizer's closure: Java returns the loss through a one-element array. */
static ct_status ct_java_closure(void* user_data, double* loss) {
  JNIEnv* env = ct_java_env();
  if (!env || (*env)->PushLocalFrame(env, 4) != 0) return ct_java_no_env();
  jdoubleArray out = (*env)->NewDoubleArray(env, 1);
  jint status = CT_ERROR_OUT_OF_MEMORY;
  if (out) status = (*env)->CallStaticIntMethod(env, ct_java_callbacks, ct_java_cb_closure, (jobject)user_data, out);
  ct_status s = ct_java_finish(env, status);
  if (s == CT_OK) (*env)->GetDoubleArrayRegion(env, out, 0, 1, loss);
  (*env)->PopLocalFrame(env, NULL);
  return s;
}

/* Boxed arguments go to Java in org.ctorch.Args' encoding (see ct_java_fill_value). */
static ct_status ct_java_kernel(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  JNIEnv* env = ct_java_env();
  if (!env || (*env)->PushLocalFrame(env, 16 + (jint)nargs) != 0) return ct_java_no_env();
  jintArray kinds = (*env)->NewIntArray(env, (jsize)nargs);
  jlongArray ints = (*env)->NewLongArray(env, (jsize)nargs);
  jdoubleArray floats = (*env)->NewDoubleArray(env, (jsize)nargs);
  jclass object_class = (*env)->FindClass(env, "java/lang/Object");
  jobjectArray objects = object_class ? (*env)->NewObjectArray(env, (jsize)nargs, object_class, NULL) : NULL;
  jlongArray out = (*env)->NewLongArray(env, (jsize)nouts);
  jint status = CT_ERROR_OUT_OF_MEMORY;
  if (kinds && ints && floats && objects && out) {
    for (size_t a = 0; a < nargs; ++a) {
      const ct_value* v = &args[a];
      jint k = (jint)v->kind;
      jlong i = v->i;
      jdouble f = v->f;
      if (v->kind == CT_VALUE_TENSOR || v->kind == CT_VALUE_SYMINT) i = (jlong)(intptr_t)v->tensor;
      (*env)->SetIntArrayRegion(env, kinds, (jsize)a, 1, &k);
      (*env)->SetLongArrayRegion(env, ints, (jsize)a, 1, &i);
      (*env)->SetDoubleArrayRegion(env, floats, (jsize)a, 1, &f);
      jobject obj = NULL;
      if (v->kind == CT_VALUE_INTS) {
        obj = (*env)->NewLongArray(env, (jsize)v->len);
        if (obj && v->len) (*env)->SetLongArrayRegion(env, (jlongArray)obj, 0, (jsize)v->len, (const jlong*)v->ints);
      } else if (v->kind == CT_VALUE_TENSORS || v->kind == CT_VALUE_SYMINTS) {
        obj = ct_java_long_array(env, (const void* const*)v->tensors, v->len);
      } else if ((v->kind == CT_VALUE_DEVICE || v->kind == CT_VALUE_STRING) && v->str) {
        obj = (*env)->NewStringUTF(env, v->str);
      }
      if (obj) {
        (*env)->SetObjectArrayElement(env, objects, (jsize)a, obj);
        (*env)->DeleteLocalRef(env, obj);
      }
    }
    status = (*env)->CallStaticIntMethod(env, ct_java_callbacks, ct_java_cb_kernel, (jobject)user_data, kinds, ints,
                                         floats, objects, out);
  }
  ct_status s = ct_java_finish(env, status);
  if (s == CT_OK) {
    /* The library releases a preallocated output the kernel replaced. */
    for (size_t o = 0; o < nouts; ++o) {
      jlong h = 0;
      (*env)->GetLongArrayRegion(env, out, (jsize)o, 1, &h);
      if (h) outs[o] = (ct_tensor*)(intptr_t)h;
    }
  }
  (*env)->PopLocalFrame(env, NULL);
  return s;
}

static void ct_java_log(void* user_data, ct_log_level level, const char* message) {
  JNIEnv* env = ct_java_env();
  if (!env || (*env)->PushLocalFrame(env, 4) != 0) return;
  jstring text = (*env)->NewStringUTF(env, message ? message : "");
  if (text) (*env)->CallStaticVoidMethod(env, ct_java_callbacks, ct_java_cb_log, (jobject)user_data, (jint)level, text);
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
  (*env)->PopLocalFrame(env, NULL);
}

static int ct_java_memory_pressure(void* user_data, int device_type, size_t nbytes) {
  JNIEnv* env = ct_java_env();
  if (!env) return 0;
  jint retry = (*env)->CallStaticIntMethod(env, ct_java_callbacks, ct_java_cb_pressure, (jobject)user_data,
                                           (jint)device_type, (jlong)nbytes);
  if ((*env)->ExceptionCheck(env)) {
    (*env)->ExceptionClear(env);
    return 0;
  }
  return retry;
}

/* A global reference for user_data, or NULL with an exception pending. */
static jobject ct_java_hold(JNIEnv* env, jobject fn, const char* what) {
  if (!fn) {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, what);
    return NULL;
  }
  return (*env)->NewGlobalRef(env, fn);
}

static const char* ct_java_utf(JNIEnv* env, jstring s) { return s ? (*env)->GetStringUTFChars(env, s, NULL) : NULL; }
static void ct_java_utf_done(JNIEnv* env, jstring s, const char* utf) {
  if (utf) (*env)->ReleaseStringUTFChars(env, s, utf);
}
%}

%inline %{
/* ct_set_memory_pressure_handler with org.ctorch's handler (null removes it). */
static void ct_java_set_memory_pressure_handler(JNIEnv* env, jobject handler) {
  ct_status s = handler ? ct_set_memory_pressure_handler(ct_java_memory_pressure, (*env)->NewGlobalRef(env, handler),
                                                         ct_java_destroy)
                        : ct_set_memory_pressure_handler(NULL, NULL, NULL);
  if (s != CT_OK) ct_java_throw(env, s);
}

/* ct_set_log_handler with a LogHandler (null restores the default, stderr). */
static void ct_java_set_log_handler(JNIEnv* env, jobject handler) {
  ct_status s = handler ? ct_set_log_handler(ct_java_log, (*env)->NewGlobalRef(env, handler), ct_java_destroy)
                        : ct_set_log_handler(NULL, NULL, NULL);
  if (s != CT_OK) ct_java_throw(env, s);
}

/* ct_library_impl with a Kernel. */
static void ct_java_library_impl(JNIEnv* env, jstring name, jstring device, jobject kernel) {
  jobject ref = ct_java_hold(env, kernel, "Library.impl: the kernel is null");
  if (!ref) return;
  const char* n = ct_java_utf(env, name);
  const char* d = ct_java_utf(env, device);
  ct_status s = ct_library_impl(n, d, ct_java_kernel, ref, ct_java_destroy);
  ct_java_utf_done(env, name, n);
  ct_java_utf_done(env, device, d);
  if (s != CT_OK) {
    (*env)->DeleteGlobalRef(env, ref); /* on failure destroy is not called */
    ct_java_throw(env, s);
  }
}

/* ct_tensor_register_hook with a hook; returns its id. */
static jlong ct_java_register_hook(JNIEnv* env, jlong t, jobject hook) {
  jobject ref = ct_java_hold(env, hook, "Tensor.registerHook: the hook is null");
  if (!ref) return 0;
  int64_t id = 0;
  ct_status s = ct_tensor_register_hook((ct_tensor*)(intptr_t)t, ct_java_hook, ref, ct_java_destroy, &id);
  if (s != CT_OK) {
    ct_java_throw(env, s); /* the library destroyed user_data: see ct_tensor_register_hook */
    return 0;
  }
  return (jlong)id;
}

/* ct_autograd_function_apply with a custom function; returns n_outputs new references. */
static jlongArray ct_java_function_apply(JNIEnv* env, jstring name, jobject function, jlongArray inputs, jint n_outputs) {
  if (n_outputs < 0 || n_outputs > 64) {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "Function.apply: between 0 and 64 outputs");
    return NULL;
  }
  jobject ref = ct_java_hold(env, function, "Function.apply: the function is null");
  if (!ref) return NULL;
  void** ins = ct_java_handles(env, inputs);
  jsize n_in = inputs ? (*env)->GetArrayLength(env, inputs) : 0;
  ct_tensor* outs[64];
  const char* n = ct_java_utf(env, name);
  ct_status s = ct_autograd_function_apply(n, ct_java_forward, ct_java_backward, ref, ct_java_destroy,
                                           (const ct_tensor* const*)ins, (size_t)n_in, outs, (size_t)n_outputs);
  ct_java_utf_done(env, name, n);
  free(ins);
  if (s != CT_OK) {
    ct_java_throw(env, s);
    return NULL;
  }
  return ct_java_long_array(env, (const void* const*)outs, (size_t)n_outputs);
}

/* ct_compile with a traced function; returns the compiled handle. */
static jlong ct_java_compile(JNIEnv* env, jobject fn, jlong options) {
  jobject ref = ct_java_hold(env, fn, "CTorch.compile: the function is null");
  if (!ref) return 0;
  ct_compiled* out = NULL;
  ct_status s = ct_compile(ct_java_traced, ref, ct_java_destroy, (const ct_compile_options*)(intptr_t)options, &out);
  if (s != CT_OK) {
    ct_java_throw(env, s); /* ct_compile calls destroy on failure */
    return 0;
  }
  return (jlong)(intptr_t)out;
}

/* ct_optimizer_step_closure with a Supplier<Tensor>; returns the first call's loss. */
static jdouble ct_java_optimizer_step_closure(JNIEnv* env, jlong opt, jobject closure) {
  if (!closure) {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "Optimizer.step: the closure is null");
    return 0;
  }
  double loss = 0;
  /* The closure runs on this thread during the call only: a local reference is enough. */
  ct_status s = ct_optimizer_step_closure((ct_optimizer*)(intptr_t)opt, ct_java_closure, closure, &loss);
  if (s != CT_OK) ct_java_throw(env, s);
  return loss;
}

/* ct_export of a traced function on example inputs; returns the program handle. */
static jlong ct_java_export(JNIEnv* env, jobject fn, jlongArray examples, jint n_outputs, jlong dynamic_shapes) {
  if (!fn) {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "Program.export: the function is null");
    return 0;
  }
  void** ins = ct_java_handles(env, examples);
  jsize n_in = examples ? (*env)->GetArrayLength(env, examples) : 0;
  ct_program* out = NULL;
  /* The function runs on this thread during the call only: a local reference is enough. */
  ct_status s = ct_export(ct_java_traced, fn, (const ct_tensor* const*)ins, (size_t)n_in, (size_t)n_outputs,
                          (const ct_dynamic_shapes*)(intptr_t)dynamic_shapes, &out);
  free(ins);
  if (s != CT_OK) ct_java_throw(env, s);
  return (jlong)(intptr_t)out;
}
%}
