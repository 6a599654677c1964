/* jni_training.i - the Java forms of the checkpoint and training functions (ctorch.h's sections
 * "Checkpoints" and "Training"): option structs as double[], parameter lists as long[], bytes as
 * byte[], a second output as a filled long[], and ct_java_* helpers for names (UTF-8 bytes, so that
 * any name survives) and for buffers the library allocates. Included by ctorch.i, after its macros. */

%{
/* ct_optimizer_options travels as a double[] of CT_JAVA_OPTIMIZER_FIELDS values, in this order
 * (the kind and the flags as exact doubles; org.ctorch.optim.OptimizerOptions keeps the same). */
#define CT_JAVA_OPTIMIZER_FIELDS 30
/* ct_lr_scheduler_options likewise: kind, step_size, gamma, t_max, eta_min, start_factor,
 * end_factor, total_iters, factor, power, t_0, t_mult (the int64 fields are exact up to 2^53), then
 * the milestones, one per element after those (a copy the call frees). */
#define CT_JAVA_SCHEDULER_FIELDS 12

static int ct_java_doubles_in(JNIEnv* env, jdoubleArray a, jsize n, double* out, const char* what) {
  if (!a || (*env)->GetArrayLength(env, a) != n) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s: the options must be a double[%d] (org.ctorch.optim builds it)", what, (int)n);
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, msg);
    return -1;
  }
  (*env)->GetDoubleArrayRegion(env, a, 0, n, out);
  return (*env)->ExceptionCheck(env) ? -1 : 0;
}

static int ct_java_optimizer_options_in(JNIEnv* env, jdoubleArray a, ct_optimizer_options* o, const char* what) {
  double v[CT_JAVA_OPTIMIZER_FIELDS];
  if (ct_java_doubles_in(env, a, CT_JAVA_OPTIMIZER_FIELDS, v, what) != 0) return -1;
  memset(o, 0, sizeof *o);
  o->struct_size = sizeof *o;
  o->kind = (ct_optimizer_kind)(int)v[0];
  o->lr = v[1];
  o->momentum = v[2];
  o->dampening = v[3];
  o->weight_decay = v[4];
  o->beta1 = v[5];
  o->beta2 = v[6];
  o->eps = v[7];
  o->alpha = v[8];
  o->nesterov = v[9] != 0;
  o->amsgrad = v[10] != 0;
  o->centered = v[11] != 0;
  o->maximize = v[12] != 0;
  o->lr_decay = v[13];
  o->initial_accumulator_value = v[14];
  o->momentum_decay = v[15];
  o->rho = v[16];
  o->decoupled_weight_decay = v[17] != 0;
  o->lambd = v[18];
  o->t0 = v[19];
  o->etaminus = v[20];
  o->etaplus = v[21];
  o->step_size_min = v[22];
  o->step_size_max = v[23];
  o->max_iter = (int64_t)v[24];
  o->max_eval = (int64_t)v[25];
  o->tolerance_grad = v[26];
  o->tolerance_change = v[27];
  o->history_size = (int64_t)v[28];
  o->strong_wolfe = v[29] != 0;
  return 0;
}

static void ct_java_optimizer_options_out(JNIEnv* env, const ct_optimizer_options* o, jdoubleArray a) {
  double v[CT_JAVA_OPTIMIZER_FIELDS] = {(double)o->kind, o->lr, o->momentum, o->dampening, o->weight_decay,
                                        o->beta1, o->beta2, o->eps, o->alpha, (double)o->nesterov,
                                        (double)o->amsgrad, (double)o->centered, (double)o->maximize,
                                        o->lr_decay, o->initial_accumulator_value, o->momentum_decay, o->rho,
                                        (double)o->decoupled_weight_decay, o->lambd, o->t0, o->etaminus,
                                        o->etaplus, o->step_size_min, o->step_size_max, (double)o->max_iter,
                                        (double)o->max_eval, o->tolerance_grad, o->tolerance_change,
                                        (double)o->history_size, (double)o->strong_wolfe};
  (*env)->SetDoubleArrayRegion(env, a, 0, CT_JAVA_OPTIMIZER_FIELDS, v);
}

static int ct_java_scheduler_options_in(JNIEnv* env, jdoubleArray a, ct_lr_scheduler_options* o, const char* what) {
  double v[CT_JAVA_SCHEDULER_FIELDS];
  const jsize n = a ? (*env)->GetArrayLength(env, a) : 0;
  if (!a || n < CT_JAVA_SCHEDULER_FIELDS) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s: the options must be a double[%d] and the milestones (org.ctorch.optim builds it)",
             what, CT_JAVA_SCHEDULER_FIELDS);
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, msg);
    return -1;
  }
  (*env)->GetDoubleArrayRegion(env, a, 0, CT_JAVA_SCHEDULER_FIELDS, v);
  if ((*env)->ExceptionCheck(env)) return -1;
  memset(o, 0, sizeof *o);
  o->struct_size = sizeof *o;
  o->kind = (ct_lr_scheduler_kind)(int)v[0];
  o->step_size = (int64_t)v[1];
  o->gamma = v[2];
  o->t_max = (int64_t)v[3];
  o->eta_min = v[4];
  o->start_factor = v[5];
  o->end_factor = v[6];
  o->total_iters = (int64_t)v[7];
  o->factor = v[8];
  o->power = v[9];
  o->t_0 = (int64_t)v[10];
  o->t_mult = (int64_t)v[11];
  const size_t count = (size_t)(n - CT_JAVA_SCHEDULER_FIELDS);
  if (count > 0) {  /* last: nothing can fail after this allocation but the copy, which frees it */
    double* m = (double*)malloc(count * sizeof(double));
    int64_t* milestones = (int64_t*)malloc(count * sizeof(int64_t));
    if (!m || !milestones) {
      free(m);
      free(milestones);
      ct_java_throw_message(env, CT_ERROR_OUT_OF_MEMORY, "the milestones do not fit in memory");
      return -1;
    }
    (*env)->GetDoubleArrayRegion(env, a, CT_JAVA_SCHEDULER_FIELDS, (jsize)count, m);
    for (size_t i = 0; i < count; ++i) milestones[i] = (int64_t)m[i];
    free(m);
    if ((*env)->ExceptionCheck(env)) {
      free(milestones);
      return -1;
    }
    o->milestones = milestones;
    o->num_milestones = count;
  }
  return 0;
}

static void ct_java_scheduler_options_out(JNIEnv* env, const ct_lr_scheduler_options* o, jdoubleArray a) {
  double v[CT_JAVA_SCHEDULER_FIELDS] = {(double)o->kind, (double)o->step_size, o->gamma, (double)o->t_max,
                                        o->eta_min, o->start_factor, o->end_factor, (double)o->total_iters,
                                        o->factor, o->power, (double)o->t_0, (double)o->t_mult};
  (*env)->SetDoubleArrayRegion(env, a, 0, CT_JAVA_SCHEDULER_FIELDS, v);
}

/* A byte[] of n bytes as a new array (NULL with an exception pending when the JVM is out of memory). */
static jbyteArray ct_java_byte_array(JNIEnv* env, const char* data, size_t n) {
  if (n > 0x7fffffff) {
    ct_java_throw_message(env, CT_ERROR_OUT_OF_MEMORY, "the library returned more than 2 GiB of bytes, more than a Java array holds");
    return NULL;
  }
  jbyteArray out = (*env)->NewByteArray(env, (jsize)n);
  if (out && n) (*env)->SetByteArrayRegion(env, out, 0, (jsize)n, (const jbyte*)data);
  return out;
}

/* The names (byte[] of UTF-8 each) as NUL-terminated copies in one block; NULL with an exception
 * pending when one is null or holds a NUL byte. free() the result. */
static char** ct_java_names(JNIEnv* env, jobjectArray names, jsize n, const char* what) {
  char** out = (char**)calloc(n ? (size_t)n : 1, sizeof(char*));
  if (!out) {
    ct_java_throw_message(env, CT_ERROR_OUT_OF_MEMORY, what);
    return NULL;
  }
  for (jsize i = 0; i < n; ++i) {
    jbyteArray b = (jbyteArray)(*env)->GetObjectArrayElement(env, names, i);
    jsize len = b ? (*env)->GetArrayLength(env, b) : 0;
    char* s = b ? (char*)malloc((size_t)len + 1) : NULL;
    if (s) {
      (*env)->GetByteArrayRegion(env, b, 0, len, (jbyte*)s);
      s[len] = '\0';
    }
    if (b) (*env)->DeleteLocalRef(env, b);
    if (!s || memchr(s, '\0', (size_t)len)) {
      char msg[200];
      snprintf(msg, sizeof msg, "%s: name %d is %s. Give every tensor a name without NUL characters", what, (int)i,
               s ? "holding a NUL character" : "null");
      free(s);
      for (jsize j = 0; j < i; ++j) free(out[j]);
      free(out);
      ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, msg);
      return NULL;
    }
    out[i] = s;
  }
  return out;
}

static void ct_java_names_free(char** names, jsize n) {
  if (!names) return;
  for (jsize i = 0; i < n; ++i) free(names[i]);
  free(names);
}

/* Checks that names and tensors pair up; fills *n. 0 on success. */
static int ct_java_pairs(JNIEnv* env, jobjectArray names, jlongArray tensors, jsize* n, const char* what) {
  if (!names || !tensors || (*env)->GetArrayLength(env, names) != (*env)->GetArrayLength(env, tensors)) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s: give one name per tensor", what);
    ct_java_throw_message(env, CT_ERROR_INVALID_ARGUMENT, msg);
    return -1;
  }
  *n = (*env)->GetArrayLength(env, names);
  return 0;
}
%}

/* ---- Option structs ---- */

%define CT_JAVA_OPTIONS(T, NAME_IN, CONV_IN, CONV_OUT, FIELDS)
%typemap(jni) const T* NAME_IN, T* out "jdoubleArray"
%typemap(jtype) const T* NAME_IN, T* out "double[]"
%typemap(jstype) const T* NAME_IN, T* out "double[]"
%typemap(javain) const T* NAME_IN, T* out "$javainput"
%typemap(in) const T* NAME_IN (T tmp) %{
  if (CONV_IN(jenv, $input, &tmp, "$symname") != 0) return $null;
  $1 = &tmp;
%}
/* Filled: struct_size set first (the get functions leave it as given). */
%typemap(in) T* out (T tmp) %{
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) != FIELDS) {
    ct_java_throw_message(jenv, CT_ERROR_INVALID_ARGUMENT, "$symname: out must be the options' double[]");
    return $null;
  }
  memset(&tmp, 0, sizeof tmp);
  tmp.struct_size = sizeof tmp;
  $1 = &tmp;
%}
%typemap(argout) T* out %{
  if (!(*jenv)->ExceptionCheck(jenv)) CONV_OUT(jenv, &tmp$argnum, $input);
%}
%enddef
CT_JAVA_OPTIONS(ct_optimizer_options, options, ct_java_optimizer_options_in, ct_java_optimizer_options_out, CT_JAVA_OPTIMIZER_FIELDS)
CT_JAVA_OPTIONS(ct_lr_scheduler_options, options, ct_java_scheduler_options_in, ct_java_scheduler_options_out, CT_JAVA_SCHEDULER_FIELDS)
%typemap(freearg) const ct_lr_scheduler_options* options %{ free((void*)tmp$argnum.milestones); %}

/* ---- Lists, bytes and second outputs ---- */

/* The parameters of an optimizer or of gradient clipping: tensor handles from long[]. */
CT_JAVA_HANDLES_IN(const ct_tensor* const*, params, n)

/* A file's or a state's bytes in: byte[] (null is NULL with size 0). */
%typemap(jni) (const void* data, size_t size) "jbyteArray"
%typemap(jtype) (const void* data, size_t size) "byte[]"
%typemap(jstype) (const void* data, size_t size) "byte[]"
%typemap(javain) (const void* data, size_t size) "$javainput"
%typemap(in) (const void* data, size_t size) %{
  $2 = $input ? (size_t)(*jenv)->GetArrayLength(jenv, $input) : 0;
  $1 = $input ? malloc($2 ? $2 : 1) : NULL;
  if ($input && !$1) {
    ct_java_throw_message(jenv, CT_ERROR_OUT_OF_MEMORY, "$symname: no memory for a copy of the bytes");
    return $null;
  }
  if ($2) (*jenv)->GetByteArrayRegion(jenv, $input, 0, (jsize)$2, (jbyte*)$1);
%}
%typemap(freearg) (const void* data, size_t size) %{ free((void*)$1); %}

/* The total norm of clip_grad_norm comes back as its bits, as every double out. */
%typemap(in, numinputs=0) double* total_norm (double tmp = 0) %{ $1 = &tmp; %}
%typemap(argout) double* total_norm %{ memcpy(&$result, &tmp$argnum, sizeof(double)); %}

/* fan_in and fan_out fill a long[2]. */
%typemap(jni) (int64_t* fan_in, int64_t* fan_out) "jlongArray"
%typemap(jtype) (int64_t* fan_in, int64_t* fan_out) "long[]"
%typemap(jstype) (int64_t* fan_in, int64_t* fan_out) "long[]"
%typemap(javain) (int64_t* fan_in, int64_t* fan_out) "$javainput"
%typemap(in) (int64_t* fan_in, int64_t* fan_out) (int64_t fi = 0, int64_t fo = 0) %{
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) != 2) {
    ct_java_throw_message(jenv, CT_ERROR_INVALID_ARGUMENT, "$symname: pass a long[2] for fan_in and fan_out");
    return $null;
  }
  $1 = &fi;
  $2 = &fo;
%}
%typemap(argout) (int64_t* fan_in, int64_t* fan_out) %{
  if (!(*jenv)->ExceptionCheck(jenv)) {
    jlong v[2] = {(jlong)fi$argnum, (jlong)fo$argnum};
    (*jenv)->SetLongArrayRegion(jenv, $input, 0, 2, v);
  }
%}

/* A borrowed string out (a checkpoint's tensor name, a metadata value): its char* as a long, which
 * org.ctorch reads with ct_java_utf8 while the owner is alive; 0 for none. */
%typemap(in, numinputs=0) const char** out (const char* tmp = NULL) %{ $1 = &tmp; %}
%typemap(argout) const char** out %{ $result = (jlong)(intptr_t)tmp$argnum; %}

/* Their forms below: names as UTF-8 byte arrays, buffers the library allocates as byte[]. */
%ignore ct_checkpoint_save;
%ignore ct_checkpoint_save_buffer;
%ignore ct_torch_save;
%ignore ct_torch_save_buffer;
%ignore ct_optimizer_state_save;

%inline %{
/* The UTF-8 bytes of a NUL-terminated string the library owns (0 gives null). */
static jbyteArray ct_java_utf8(JNIEnv* env, jlong s) {
  if (!s) return NULL;
  const char* p = (const char*)(intptr_t)s;
  return ct_java_byte_array(env, p, strlen(p));
}

/* The UTF-8 bytes of a string the library returned (0 gives null), which is then freed. */
static jbyteArray ct_java_take_utf8(JNIEnv* env, jlong s) {
  jbyteArray out = ct_java_utf8(env, s);
  ct_string_release((char*)(intptr_t)s);
  return out;
}

/* ct_checkpoint_get with the name as UTF-8 bytes. */
static jlong ct_java_checkpoint_get(JNIEnv* env, jlong ckpt, jbyteArray name) {
  jobjectArray one = (*env)->NewObjectArray(env, 1, (*env)->FindClass(env, "[B"), name);
  if (!one) return 0;
  char** names = ct_java_names(env, one, 1, "Checkpoint.get");
  (*env)->DeleteLocalRef(env, one);
  if (!names) return 0;
  ct_tensor* out = NULL;
  ct_status s = ct_checkpoint_get((const ct_checkpoint*)(intptr_t)ckpt, names[0], &out);
  ct_java_names_free(names, 1);
  if (s != CT_OK) ct_java_throw(env, s);
  return (jlong)(intptr_t)out;
}

/* ct_checkpoint_save: names[i] (UTF-8 bytes) names the tensor of handle tensors[i]; metadata is
 * the JSON object or null. */
static void ct_java_checkpoint_save(JNIEnv* env, jstring path, jobjectArray names, jlongArray tensors, jstring metadata) {
  jsize n = 0;
  if (ct_java_pairs(env, names, tensors, &n, "Checkpoint.save") != 0) return;
  char** cnames = ct_java_names(env, names, n, "Checkpoint.save");
  if (!cnames) return;
  void** handles = ct_java_handles(env, tensors);
  const char* cpath = path ? (*env)->GetStringUTFChars(env, path, NULL) : NULL;
  const char* cmeta = metadata ? (*env)->GetStringUTFChars(env, metadata, NULL) : NULL;
  ct_status s = ct_checkpoint_save(cpath, (const char* const*)cnames, (const ct_tensor* const*)handles, (size_t)n, cmeta);
  if (cpath) (*env)->ReleaseStringUTFChars(env, path, cpath);
  if (cmeta) (*env)->ReleaseStringUTFChars(env, metadata, cmeta);
  free(handles);
  ct_java_names_free(cnames, n);
  if (s != CT_OK) ct_java_throw(env, s);
}

/* ct_checkpoint_save_buffer: the file's bytes. */
static jbyteArray ct_java_checkpoint_save_bytes(JNIEnv* env, jobjectArray names, jlongArray tensors, jstring metadata) {
  jsize n = 0;
  if (ct_java_pairs(env, names, tensors, &n, "Checkpoint.toBytes") != 0) return NULL;
  char** cnames = ct_java_names(env, names, n, "Checkpoint.toBytes");
  if (!cnames) return NULL;
  void** handles = ct_java_handles(env, tensors);
  const char* cmeta = metadata ? (*env)->GetStringUTFChars(env, metadata, NULL) : NULL;
  char* data = NULL;
  size_t size = 0;
  ct_status s = ct_checkpoint_save_buffer((const char* const*)cnames, (const ct_tensor* const*)handles, (size_t)n, cmeta,
                                          &data, &size);
  if (cmeta) (*env)->ReleaseStringUTFChars(env, metadata, cmeta);
  free(handles);
  ct_java_names_free(cnames, n);
  if (s != CT_OK) {
    ct_java_throw(env, s);
    return NULL;
  }
  jbyteArray out = ct_java_byte_array(env, data, size);
  ct_string_release(data);
  return out;
}

/* ct_torch_save (path not null) or ct_torch_save_buffer (path null: returns the bytes): structure
 * is the saved object's JSON as UTF-8 bytes (Java's own string conversion is not UTF-8 for every
 * character), tensors the handles it refers to. */
static jbyteArray ct_java_torch_save(JNIEnv* env, jstring path, jbyteArray structure, jlongArray tensors) {
  jobjectArray one = (*env)->NewObjectArray(env, 1, (*env)->FindClass(env, "[B"), structure);
  if (!one) return NULL;
  char** text = ct_java_names(env, one, 1, "TorchFile.save");
  (*env)->DeleteLocalRef(env, one);
  if (!text) return NULL;
  const jsize n = tensors ? (*env)->GetArrayLength(env, tensors) : 0;
  void** handles = ct_java_handles(env, tensors);
  const char* cpath = path ? (*env)->GetStringUTFChars(env, path, NULL) : NULL;
  char* data = NULL;
  size_t size = 0;
  ct_status s = cpath ? ct_torch_save(cpath, text[0], (const ct_tensor* const*)handles, (size_t)n)
                      : ct_torch_save_buffer(text[0], (const ct_tensor* const*)handles, (size_t)n, &data, &size);
  if (cpath) (*env)->ReleaseStringUTFChars(env, path, cpath);
  free(handles);
  ct_java_names_free(text, 1);
  if (s != CT_OK) {
    ct_java_throw(env, s);
    return NULL;
  }
  if (cpath) return NULL;
  jbyteArray out = ct_java_byte_array(env, data, size);
  ct_string_release(data);
  return out;
}

/* ct_optimizer_state_save: the state's bytes. */
static jbyteArray ct_java_optimizer_state_save(JNIEnv* env, jlong opt) {
  char* data = NULL;
  size_t size = 0;
  ct_status s = ct_optimizer_state_save((const ct_optimizer*)(intptr_t)opt, &data, &size);
  if (s != CT_OK) {
    ct_java_throw(env, s);
    return NULL;
  }
  jbyteArray out = ct_java_byte_array(env, data, size);
  ct_string_release(data);
  return out;
}
%}
