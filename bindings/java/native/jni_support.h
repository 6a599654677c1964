/* jni_support.h - what the SWIG wrapper (ctorch.i) and the callback trampolines share: the cached
 * JavaVM and classes, exceptions from statuses, arrays of handles, scalars, and a JNIEnv for any
 * thread the library calls back on. Internal to libctorch_jni. */
#ifndef CTORCH_JNI_SUPPORT_H
#define CTORCH_JNI_SUPPORT_H

#include <jni.h>

#include "ctorch.h"

/* Throws the org.ctorch.CTorchException subclass for status with ct_last_error() as message. */
void ct_java_throw(JNIEnv* env, ct_status status);
/* Throws the subclass for status with msg (copied) as message. */
void ct_java_throw_message(JNIEnv* env, ct_status status, const char* msg);
/* A malloc'd copy of a long[] of handles as pointers (one slot even for an empty array); NULL
 * for a NULL array. free() it. */
void** ct_java_handles(JNIEnv* env, jlongArray array);
/* Fills s from a java.lang.Number or Boolean; 0 on success, else -1 with an exception pending. */
int ct_java_scalar(JNIEnv* env, jobject value, ct_scalar* s);
/* The JNIEnv of the calling thread, attaching it (as a daemon, detached when the thread ends) when
 * the library calls back from a native thread. NULL only when the JVM refuses. */
JNIEnv* ct_java_env(void);

/* org.ctorch.Callbacks and its static entry points (see Callbacks.java), resolved at load. */
extern jclass ct_java_callbacks;
extern jmethodID ct_java_cb_traced;   /* int traced(Object fn, long[] inputs, long[] outputs) */
extern jmethodID ct_java_cb_forward;  /* int forward(Object fn, long ctx, long[] inputs, long[] outputs) */
extern jmethodID ct_java_cb_backward; /* int backward(Object fn, long ctx, long[] grads, long[] gradInputs) */
extern jmethodID ct_java_cb_hook;     /* int hook(Object fn, long grad, long[] replacement) */
extern jmethodID ct_java_cb_kernel;   /* int kernel(Object fn, int[] kinds, long[] ints, double[] floats,
                                                    Object[] objects, long[] outs) */
extern jmethodID ct_java_cb_log;      /* void log(Object fn, int level, String message) */
extern jmethodID ct_java_cb_pressure; /* int memoryPressure(Object fn, int deviceType, long nbytes) */
extern jmethodID ct_java_cb_closure;  /* int closure(Object fn, double[] loss) */

#endif
