/* jni_support.c - see jni_support.h. */
#include "jni_support.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static JavaVM* ct_java_vm;
static jclass ct_java_exception;         /* org.ctorch.CTorchException */
static jmethodID ct_java_exception_create; /* static Exception create(int status, String message) */
static jclass ct_java_number, ct_java_boolean, ct_java_long, ct_java_integer, ct_java_short, ct_java_byte;
static jmethodID ct_java_number_long, ct_java_number_double, ct_java_boolean_value;
static pthread_key_t ct_java_detach_key;

jclass ct_java_callbacks;
jmethodID ct_java_cb_traced, ct_java_cb_forward, ct_java_cb_backward, ct_java_cb_hook, ct_java_cb_kernel,
    ct_java_cb_log, ct_java_cb_pressure, ct_java_cb_closure;

/* A thread we attached detaches when it ends, so the JVM does not keep a Thread for it. */
static void ct_java_detach(void* vm) {
  if (vm) (*(JavaVM*)vm)->DetachCurrentThread((JavaVM*)vm);
}

static jclass ct_java_global_class(JNIEnv* env, const char* name) {
  jclass local = (*env)->FindClass(env, name);
  if (!local) return NULL;
  jclass global = (jclass)(*env)->NewGlobalRef(env, local);
  (*env)->DeleteLocalRef(env, local);
  return global;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void* reserved) {
  (void)reserved;
  JNIEnv* env = NULL;
  if ((*vm)->GetEnv(vm, (void**)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
  ct_java_vm = vm;
  if (pthread_key_create(&ct_java_detach_key, ct_java_detach) != 0) return JNI_ERR;
  /* Classes are resolved here, with the class loader that loaded org.ctorch: native threads that
   * attach later only see the system class loader. */
  ct_java_exception = ct_java_global_class(env, "org/ctorch/CTorchException");
  ct_java_callbacks = ct_java_global_class(env, "org/ctorch/Callbacks");
  ct_java_number = ct_java_global_class(env, "java/lang/Number");
  ct_java_boolean = ct_java_global_class(env, "java/lang/Boolean");
  ct_java_long = ct_java_global_class(env, "java/lang/Long");
  ct_java_integer = ct_java_global_class(env, "java/lang/Integer");
  ct_java_short = ct_java_global_class(env, "java/lang/Short");
  ct_java_byte = ct_java_global_class(env, "java/lang/Byte");
  if (!ct_java_exception || !ct_java_callbacks || !ct_java_number || !ct_java_boolean || !ct_java_long ||
      !ct_java_integer || !ct_java_short || !ct_java_byte)
    return JNI_ERR;
  ct_java_exception_create = (*env)->GetStaticMethodID(env, ct_java_exception, "create",
                                                       "(ILjava/lang/String;)Ljava/lang/Exception;");
  ct_java_number_long = (*env)->GetMethodID(env, ct_java_number, "longValue", "()J");
  ct_java_number_double = (*env)->GetMethodID(env, ct_java_number, "doubleValue", "()D");
  ct_java_boolean_value = (*env)->GetMethodID(env, ct_java_boolean, "booleanValue", "()Z");
  jclass cb = ct_java_callbacks;
  ct_java_cb_traced = (*env)->GetStaticMethodID(env, cb, "traced", "(Ljava/lang/Object;[J[J)I");
  ct_java_cb_forward = (*env)->GetStaticMethodID(env, cb, "forward", "(Ljava/lang/Object;J[J[J)I");
  ct_java_cb_backward = (*env)->GetStaticMethodID(env, cb, "backward", "(Ljava/lang/Object;J[J[J)I");
  ct_java_cb_hook = (*env)->GetStaticMethodID(env, cb, "hook", "(Ljava/lang/Object;J[J)I");
  ct_java_cb_kernel = (*env)->GetStaticMethodID(env, cb, "kernel", "(Ljava/lang/Object;[I[J[D[Ljava/lang/Object;[J)I");
  ct_java_cb_log = (*env)->GetStaticMethodID(env, cb, "log", "(Ljava/lang/Object;ILjava/lang/String;)V");
  ct_java_cb_pressure = (*env)->GetStaticMethodID(env, cb, "memoryPressure", "(Ljava/lang/Object;IJ)I");
  ct_java_cb_closure = (*env)->GetStaticMethodID(env, cb, "closure", "(Ljava/lang/Object;[D)I");
  if ((*env)->ExceptionCheck(env)) return JNI_ERR;
  return JNI_VERSION_1_8;
}

JNIEnv* ct_java_env(void) {
  JNIEnv* env = NULL;
  if (!ct_java_vm) return NULL;
  if ((*ct_java_vm)->GetEnv(ct_java_vm, (void**)&env, JNI_VERSION_1_8) == JNI_OK) return env;
  JavaVMAttachArgs args = {JNI_VERSION_1_8, "ctorch-native", NULL};
  if ((*ct_java_vm)->AttachCurrentThreadAsDaemon(ct_java_vm, (void**)&env, &args) != JNI_OK) return NULL;
  pthread_setspecific(ct_java_detach_key, ct_java_vm);
  return env;
}

void ct_java_throw_message(JNIEnv* env, ct_status status, const char* msg) {
  if ((*env)->ExceptionCheck(env)) return; /* the first failure wins */
  jstring text = (*env)->NewStringUTF(env, msg ? msg : "");
  if (!text) return; /* OutOfMemoryError pending */
  jobject exc = (*env)->CallStaticObjectMethod(env, ct_java_exception, ct_java_exception_create, (jint)status, text);
  (*env)->DeleteLocalRef(env, text);
  if (exc && !(*env)->ExceptionCheck(env)) (*env)->Throw(env, (jthrowable)exc);
  if (exc) (*env)->DeleteLocalRef(env, exc);
}

void ct_java_throw(JNIEnv* env, ct_status status) { ct_java_throw_message(env, status, ct_last_error()); }

void** ct_java_handles(JNIEnv* env, jlongArray array) {
  if (!array) return NULL;
  jsize n = (*env)->GetArrayLength(env, array);
  void** out = (void**)malloc(sizeof(void*) * (n ? (size_t)n : 1));
  if (!out) return NULL;
  for (jsize i = 0; i < n; ++i) {
    jlong h = 0;
    (*env)->GetLongArrayRegion(env, array, i, 1, &h);
    out[i] = (void*)(intptr_t)h;
  }
  return out;
}

int ct_java_scalar(JNIEnv* env, jobject value, ct_scalar* s) {
  memset(s, 0, sizeof *s);
  if ((*env)->IsInstanceOf(env, value, ct_java_boolean)) {
    s->kind = CT_SCALAR_BOOL;
    s->i = (*env)->CallBooleanMethod(env, value, ct_java_boolean_value) ? 1 : 0;
  } else if ((*env)->IsInstanceOf(env, value, ct_java_long) || (*env)->IsInstanceOf(env, value, ct_java_integer) ||
             (*env)->IsInstanceOf(env, value, ct_java_short) || (*env)->IsInstanceOf(env, value, ct_java_byte)) {
    s->kind = CT_SCALAR_INT;
    s->i = (*env)->CallLongMethod(env, value, ct_java_number_long);
  } else if ((*env)->IsInstanceOf(env, value, ct_java_number)) {
    s->kind = CT_SCALAR_FLOAT;
    s->f = (*env)->CallDoubleMethod(env, value, ct_java_number_double);
  } else {
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, "expected a Number or Boolean as a scalar");
    return -1;
  }
  return (*env)->ExceptionCheck(env) ? -1 : 0;
}
