/* ctorch.i - the SWIG interface behind ctorch._C (private; the ctorch package is the API).
 *
 * Conventions, so that Python code never sees a status or an out-parameter:
 *   - a ct_status that is not CT_OK raises the ctorch.Error subclass for it, with ct_last_error();
 *   - tensor handles travel as Python ints (the ct_tensor address); a Python Tensor owns exactly one
 *     reference and releases it once (ctorch/_tensor.py); so do generators, ShapeEnvs and symbolic
 *     numbers (ctorch/_symbolic.py);
 *   - out-parameters become return values; int64 arrays come from any sequence of ints;
 *   - every call releases the GIL (-threads), so long operations let other Python threads run.
 */
%module(package="ctorch") _C

%include <stdint.i>

%{
#include <string.h>
#include <structmember.h>
#include "ctorch.h"
#include "ctorch_dlpack.h"

/* ctorch._errors registers the function that builds the exception for a status and message. */
static PyObject* ct_py_error_factory = NULL;

/* The exception a Python callback (a hook, a custom function's backward) raised on this thread,
 * kept while the library unwinds. The call that ran the callback fails with the callback's status,
 * and ct_py_raise then raises this exception itself: Python code sees its own exception type,
 * message and traceback, not a ctorch error quoting its text. */
static __thread PyObject* ct_py_pending_type = NULL;
static __thread PyObject* ct_py_pending_value = NULL;
static __thread PyObject* ct_py_pending_traceback = NULL;
/* The message the callback's failure gave the library: the pending exception is this failure's only
 * when the library's error still carries it. A traced callback that failed (a graph break) and
 * then an eager run that failed otherwise must raise the second failure, not the first. */
static __thread char* ct_py_pending_message = NULL;

static void ct_py_drop_pending(void) {
  Py_CLEAR(ct_py_pending_type);
  Py_CLEAR(ct_py_pending_value);
  Py_CLEAR(ct_py_pending_traceback);
  free(ct_py_pending_message);
  ct_py_pending_message = NULL;
}

static void ct_py_raise(ct_status status) {
  const char* msg = ct_last_error();
  if (ct_py_pending_type && ct_py_pending_message && msg && strstr(msg, ct_py_pending_message)) {
    PyErr_Restore(ct_py_pending_type, ct_py_pending_value, ct_py_pending_traceback);
    ct_py_pending_type = ct_py_pending_value = ct_py_pending_traceback = NULL;
    free(ct_py_pending_message);
    ct_py_pending_message = NULL;
    return;
  }
  ct_py_drop_pending();
  if (ct_py_error_factory) {
    PyObject* exc = PyObject_CallFunction(ct_py_error_factory, "is", (int)status, msg);
    if (exc) {
      PyErr_SetObject((PyObject*)Py_TYPE(exc), exc);
      Py_DECREF(exc);
    }
    return;
  }
  PyErr_Format(PyExc_RuntimeError, "%s: %s", ct_status_name(status), msg);
}

/* ctorch._symbolic registers its SymInt class and the function that turns a new ct_symint handle
 * into a Python int (concrete) or a SymInt (symbolic); see ct_py_set_symbolic. */
static PyObject* ct_py_symint_type = NULL;
static PyObject* ct_py_symint_wrap = NULL;

static int ct_py_is_symint(PyObject* o) {
  return ct_py_symint_type && !PyLong_Check(o) && PyObject_TypeCheck(o, (PyTypeObject*)ct_py_symint_type);
}

/* Set while a Python function traced by ct_compile or ct_export runs (ct_py_traced). Its proxies'
 * sizes may be symbolic, and the plain accessors (ct_tensor_sizes, ct_tensor_size, ct_tensor_numel)
 * would specialize them (a guard s0 == 8); the Python accessors give them as SymInts instead, as
 * torch's sizes are under torch.compile and torch.export. Outside traced functions no check runs. */
static __thread int ct_py_tracing = 0;

/* 1 when a traced function runs and t has symbolic geometry (one of its proxies, or computed from them). */
static int ct_py_symbolic_proxy(const ct_tensor* t) {
  int symbolic = 0;
  return ct_py_tracing && t && ct_tensor_is_symbolic(t, &symbolic) == CT_OK && symbolic;
}

/* Size dim (numel 0) or the element count (numel 1) of t as an int or SymInt (ctorch._symbolic's wrap). */
static PyObject* ct_py_sym_scalar(const ct_tensor* t, int64_t dim, int numel) {
  ct_symint* v = NULL;
  ct_status s = numel ? ct_tensor_sym_numel(t, &v) : ct_tensor_sym_size(t, dim, &v);
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  if (!ct_py_symint_wrap) {
    ct_symint_release(v);
    PyErr_SetString(PyExc_RuntimeError, "ct_py_sym_scalar: ctorch._symbolic is not loaded");
    return NULL;
  }
  return PyObject_CallFunction(ct_py_symint_wrap, "N", PyLong_FromVoidPtr(v));
}

static int ct_py_int64s(PyObject* seq, int64_t** out, size_t* n) {
  *out = NULL;
  *n = 0;
  if (seq == Py_None) return 0;
  PyObject* fast = PySequence_Fast(seq, "expected a sequence of ints");
  if (!fast) return -1;
  Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
  *out = (int64_t*)malloc(sizeof(int64_t) * (len ? (size_t)len : 1));
  for (Py_ssize_t i = 0; i < len; ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(fast, i);
    /* A symbolic size cannot become an int64 without a guard; the wrappers that take one catch this
     * TypeError and call the operator boxed instead (CT_VALUE_SYMINTS), see ctorch/_symbolic.py. */
    PyObject* index = ct_py_is_symint(item) ? NULL : PyNumber_Index(item);
    if (!index) {
      if (!PyErr_Occurred())
        PyErr_Format(PyExc_TypeError, "expected plain ints, got the symbolic int %S. Call the operator through "
                     "ctorch.ops to keep it symbolic, or int() it to specialize (a guard)", item);
      Py_DECREF(fast);
      free(*out);
      *out = NULL;
      return -1;
    }
    (*out)[i] = PyLong_AsLongLong(index);
    Py_DECREF(index);
  }
  Py_DECREF(fast);
  *n = (size_t)len;
  return PyErr_Occurred() ? -1 : 0;
}

/* Python's rule for numbers: bool, then int (also numpy integers), then float. */
static int ct_py_scalar(PyObject* o, ct_scalar* s) {
  memset(s, 0, sizeof *s);
  if (PyBool_Check(o)) {
    s->kind = CT_SCALAR_BOOL;
    s->i = o == Py_True;
  } else if (PyLong_Check(o) || (!PyFloat_Check(o) && PyIndex_Check(o))) {
    s->kind = CT_SCALAR_INT;
    s->i = PyLong_AsLongLong(o);
  } else {
    s->kind = CT_SCALAR_FLOAT;
    s->f = PyFloat_AsDouble(o);
  }
  if (PyErr_Occurred()) {
    PyErr_Format(PyExc_TypeError, "expected a number, got %s", Py_TYPE(o)->tp_name);
    return -1;
  }
  return 0;
}

static PyObject* ct_py_from_scalar(const ct_scalar* s) {
  if (s->kind == CT_SCALAR_BOOL) return PyBool_FromLong((long)s->i);
  if (s->kind == CT_SCALAR_INT) return PyLong_FromLongLong(s->i);
  return PyFloat_FromDouble(s->f);
}
%}

/* ---- Statuses and handles ---- */

%typemap(out) ct_status {
  if ($1 != CT_OK) {
    ct_py_raise($1);
    SWIG_fail;
  }
  $result = Py_None;
  Py_INCREF(Py_None);
}

%typemap(in) ct_tensor*, const ct_tensor* {
  $1 = $input == Py_None ? NULL : ($1_ltype)PyLong_AsVoidPtr($input);
  if (PyErr_Occurred()) SWIG_fail;
}
%typemap(typecheck) ct_tensor*, const ct_tensor* "$1 = PyLong_Check($input) || $input == Py_None;";

/* Generators travel like tensors: the handle's address as an int, None for NULL. */
%typemap(in) ct_generator*, const ct_generator* {
  $1 = $input == Py_None ? NULL : ($1_ltype)PyLong_AsVoidPtr($input);
  if (PyErr_Occurred()) SWIG_fail;
}
%typemap(in, numinputs=0) ct_generator** out (ct_generator* tmp = NULL) { $1 = &tmp; }
%typemap(argout) ct_generator** out { $result = SWIG_Python_AppendOutput($result, PyLong_FromVoidPtr(tmp$argnum)); }
%typemap(in, numinputs=0) uint64_t* out (uint64_t tmp) { $1 = &tmp; }
%typemap(argout) uint64_t* out { $result = SWIG_Python_AppendOutput($result, PyLong_FromUnsignedLongLong(tmp$argnum)); }
/* A generator state is bytes both ways. */
%typemap(in, numinputs=0) (uint8_t* state, size_t n) (uint8_t tmp[CT_GENERATOR_STATE_SIZE]) {
  $1 = tmp;
  $2 = sizeof tmp;
}
%typemap(argout) (uint8_t* state, size_t n) {
  $result = SWIG_Python_AppendOutput($result, PyBytes_FromStringAndSize((const char*)tmp$argnum, sizeof tmp$argnum));
}
%typemap(in) (const uint8_t* state, size_t n) {
  char* bytes = NULL;
  Py_ssize_t len = 0;
  if (PyBytes_AsStringAndSize($input, &bytes, &len) < 0) SWIG_fail;
  $1 = (const uint8_t*)bytes;
  $2 = (size_t)len;
}

/* Symbolic shapes: envs and symbolic numbers travel like tensors (the address as an int, None for
 * NULL); the Python objects owning them are in ctorch/_symbolic.py. */
%typemap(in) ct_shape_env*, const ct_shape_env*, ct_symint*, const ct_symint*, ct_symfloat*, const ct_symfloat*,
             ct_symbool*, const ct_symbool* {
  $1 = $input == Py_None ? NULL : ($1_ltype)PyLong_AsVoidPtr($input);
  if (PyErr_Occurred()) SWIG_fail;
}
%typemap(typecheck) ct_shape_env*, const ct_shape_env*, ct_symint*, const ct_symint*, ct_symfloat*,
                    const ct_symfloat*, ct_symbool*, const ct_symbool*
  "$1 = PyLong_Check($input) || $input == Py_None;";
%typemap(in, numinputs=0) ct_shape_env** out (ct_shape_env* tmp = NULL), ct_symint** out (ct_symint* tmp = NULL),
                          ct_symfloat** out (ct_symfloat* tmp = NULL), ct_symbool** out (ct_symbool* tmp = NULL) {
  $1 = &tmp;
}
%typemap(argout) ct_shape_env** out, ct_symint** out, ct_symfloat** out, ct_symbool** out {
  $result = SWIG_Python_AppendOutput($result, PyLong_FromVoidPtr(tmp$argnum));
}
/* Lists of symbolic ints: a sequence of handles (ints). */
%typemap(in) (const ct_symint* const* xs, size_t n), (const ct_symint* const* sizes, size_t ndim) {
  PyObject* fast = PySequence_Fast($input, "expected a sequence of ct_symint handles");
  if (!fast) SWIG_fail;
  $2 = (size_t)PySequence_Fast_GET_SIZE(fast);
  $1 = (const ct_symint**)malloc(sizeof(ct_symint*) * ($2 ? $2 : 1));
  for (size_t i = 0; i < $2; ++i)
    ((const ct_symint**)$1)[i] = (const ct_symint*)PyLong_AsVoidPtr(PySequence_Fast_GET_ITEM(fast, (Py_ssize_t)i));
  Py_DECREF(fast);
  if (PyErr_Occurred()) SWIG_fail; /* freearg frees $1 on the way out */
}
%typemap(freearg) (const ct_symint* const* xs, size_t n), (const ct_symint* const* sizes, size_t ndim) {
  free((void*)$1);
}

%typemap(in) ct_autograd_ctx* {
  $1 = ($1_ltype)PyLong_AsVoidPtr($input);
  if (PyErr_Occurred()) SWIG_fail;
}

/* Training: optimizers, schedulers, clipping, initializers (their typemaps). */
%include "optim.i"

/* Distributed: process groups, collectives and work handles (their typemaps). */
%include "distributed.i"

/* Compilation and export: options, compiled functions, dynamic shape declarations and programs
 * travel like tensors (the address as an int, None for NULL); ctorch/_compile.py and
 * ctorch/export.py own them. */
%typemap(in) ct_compile_options*, const ct_compile_options*, ct_compiled*, const ct_compiled*,
             ct_dynamic_shapes*, const ct_dynamic_shapes*, ct_program*, const ct_program* {
  $1 = $input == Py_None ? NULL : ($1_ltype)PyLong_AsVoidPtr($input);
  if (PyErr_Occurred()) SWIG_fail;
}
%typemap(in, numinputs=0) ct_compile_options** out (ct_compile_options* tmp = NULL),
                          ct_dynamic_shapes** out (ct_dynamic_shapes* tmp = NULL),
                          ct_program** out (ct_program* tmp = NULL) {
  $1 = &tmp;
}
%typemap(argout) ct_compile_options** out, ct_dynamic_shapes** out, ct_program** out {
  $result = SWIG_Python_AppendOutput($result, PyLong_FromVoidPtr(tmp$argnum));
}
%typemap(in) ct_dynamic { $1 = (ct_dynamic)PyLong_AsLong($input); if (PyErr_Occurred()) SWIG_fail; }

/* While a traced function runs, the size and element count of a proxy with symbolic sizes come
 * back as SymInts (see ct_py_tracing); otherwise these are the plain accessors. */
%exception ct_tensor_size {
  if (ct_py_symbolic_proxy(arg1)) return ct_py_sym_scalar(arg1, arg2, 0);
  $action
}
%exception ct_tensor_numel {
  if (ct_py_symbolic_proxy(arg1)) return ct_py_sym_scalar(arg1, 0, 1);
  $action
}

%typemap(in, numinputs=0) ct_tensor** out (ct_tensor* tmp = NULL) { $1 = &tmp; }
%typemap(argout) ct_tensor** out { $result = SWIG_Python_AppendOutput($result, PyLong_FromVoidPtr(tmp$argnum)); }

/* ---- Arrays and numbers in ---- */

%typemap(in) (const int64_t* sizes, size_t ndim), (const int64_t* sizes, size_t n),
             (const int64_t* dims, size_t n), (const int64_t* values, size_t n) {
  if (ct_py_int64s($input, &$1, &$2) < 0) SWIG_fail;
}
%typemap(freearg) (const int64_t* sizes, size_t ndim), (const int64_t* sizes, size_t n),
                  (const int64_t* dims, size_t n), (const int64_t* values, size_t n) { free($1); }

/* argmax/argmin: an optional single dim. */
%typemap(in) const int64_t* dim (int64_t tmp) {
  if ($input == Py_None) $1 = NULL;
  else { tmp = PyLong_AsLongLong($input); $1 = &tmp; if (PyErr_Occurred()) SWIG_fail; }
}

%typemap(in) (const ct_tensor* const* tensors, size_t n) {
  PyObject* fast = PySequence_Fast($input, "expected a sequence of tensors");
  if (!fast) SWIG_fail;
  $2 = (size_t)PySequence_Fast_GET_SIZE(fast);
  $1 = (const ct_tensor**)malloc(sizeof(ct_tensor*) * ($2 ? $2 : 1));
  /* Tensor objects (ctorch.cat passes its list as given): no int, which could be any address. */
  for (size_t i = 0; i < $2 && !PyErr_Occurred(); ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(fast, i);
    const ct_tensor* t = ct_py_handle_of(item);
    if (!t && !PyErr_Occurred())
      PyErr_Format(PyExc_TypeError, "expected a ctorch.Tensor, got %s", Py_TYPE(item)->tp_name);
    ((const ct_tensor**)$1)[i] = t;
  }
  Py_DECREF(fast);
  if (PyErr_Occurred()) SWIG_fail; /* freearg frees $1 on the way out */
}
%typemap(freearg) (const ct_tensor* const* tensors, size_t n) { free((void*)$1); }

%typemap(in) const ct_scalar* (ct_scalar tmp) {
  if ($input == Py_None) $1 = NULL;
  else { if (ct_py_scalar($input, &tmp) < 0) SWIG_fail; $1 = &tmp; }
}

%typemap(in) ct_dtype { $1 = (ct_dtype)PyLong_AsLong($input); if (PyErr_Occurred()) SWIG_fail; }
%typemap(in) ct_grad_mode { $1 = (ct_grad_mode)PyLong_AsLong($input); if (PyErr_Occurred()) SWIG_fail; }

/* ---- Out-parameters ---- */

%typemap(in, numinputs=0) int64_t* out (int64_t tmp), size_t* out (size_t tmp), int32_t* out (int32_t tmp),
                          int* out (int tmp), ct_dtype* out (ct_dtype tmp), void** out (void* tmp),
                          ct_grad_mode* previous (ct_grad_mode tmp),
                          ct_scalar* out (ct_scalar tmp), char** out (char* tmp = NULL) { $1 = &tmp; }
%typemap(argout) int64_t* out { $result = SWIG_Python_AppendOutput($result, PyLong_FromLongLong(tmp$argnum)); }
/* Symbolic numbers: ct_symint_maybe_int (value, is_concrete), evaluations, check_guards' failing index. */
%typemap(in, numinputs=0) double* real (double tmp = 0), double* imag (double tmp = 0) { $1 = &tmp; }
%typemap(argout) double* real, double* imag { $result = SWIG_Python_AppendOutput($result, PyFloat_FromDouble(tmp$argnum)); }
%typemap(in, numinputs=0) double* out (double tmp = 0), double* value (double tmp = 0),
                          int64_t* value (int64_t tmp = 0), int64_t* failing (int64_t tmp = -1),
                          int* value (int tmp = 0), int* is_concrete (int tmp = 0) { $1 = &tmp; }
%typemap(argout) double* out, double* value {
  $result = SWIG_Python_AppendOutput($result, PyFloat_FromDouble(tmp$argnum));
}
%typemap(argout) int64_t* value, int64_t* failing {
  $result = SWIG_Python_AppendOutput($result, PyLong_FromLongLong(tmp$argnum));
}
%typemap(argout) int* value, int* is_concrete {
  $result = SWIG_Python_AppendOutput($result, PyLong_FromLong((long)tmp$argnum));
}
%typemap(argout) size_t* out { $result = SWIG_Python_AppendOutput($result, PyLong_FromSize_t(tmp$argnum)); }
%typemap(argout) int32_t* out, int* out, ct_dtype* out, ct_grad_mode* previous {
  $result = SWIG_Python_AppendOutput($result, PyLong_FromLong((long)tmp$argnum));
}
%typemap(argout) void** out { $result = SWIG_Python_AppendOutput($result, PyLong_FromVoidPtr(tmp$argnum)); }
%typemap(argout) ct_scalar* out { $result = SWIG_Python_AppendOutput($result, ct_py_from_scalar(&tmp$argnum)); }
%typemap(argout) char** out {
  /* NULL (a leaf's grad_fn name) is None */
  PyObject* text = tmp$argnum ? PyUnicode_FromString(tmp$argnum) : (Py_INCREF(Py_None), Py_None);
  $result = SWIG_Python_AppendOutput($result, text);
  ct_string_release(tmp$argnum);
}
%typemap(in, numinputs=0) (ct_device_type* type, int32_t* index) (ct_device_type t, int32_t i) {
  $1 = &t;
  $2 = &i;
}
%typemap(argout) (ct_device_type* type, int32_t* index) {
  $result = SWIG_Python_AppendOutput($result, Py_BuildValue("(ii)", (int)t$argnum, (int)i$argnum));
}

/* Functions whose raw form does not map to Python are replaced by the helpers below. */
%ignore ct_tensor_sizes;
%ignore ct_tensor_strides;
%ignore ct_tensor_from_data;
%ignore ct_tensor_from_blob;
%ignore ct_tensor_from_blob_v2;
%ignore ct_tensor_copy_to;
%ignore ct_op_call;
/* Their ct_value arrays have no Python form; ctorch.ops calls by name through ct_py_op_call. */
%ignore ct_op_find;
%ignore ct_op_call_op;
%ignore ct_result_type;
/* Lists of handles (ct_tensor_split ...): ctorch/_ops_shape.py builds them from narrow and select. */
%ignore ct_tensor_split;
%ignore ct_tensor_split_with_sizes;
%ignore ct_tensor_chunk;
%ignore ct_tensor_unbind;
%ignore ct_library_impl;
// Device backends are written in C (examples/plugin): a struct of C function pointers.
%ignore ct_backend;
%ignore ct_backend_register;
%ignore ct_set_memory_pressure_handler;
%ignore ct_set_log_handler;
%ignore ct_error_set;
%ignore ct_string_release;
%ignore ct_value;
%ignore ct_scalar;
%ignore ct_tensor_to_dlpack;
%ignore ct_tensor_to_dlpack_unversioned;
%ignore ct_tensor_from_dlpack;
%ignore ct_tensor_from_dlpack_unversioned;
%ignore ct_autograd_backward;
%ignore ct_autograd_grad;
%ignore ct_tensor_register_hook;
%ignore ct_tensor_register_post_accumulate_grad_hook;
%ignore ct_optimizer_step_closure;
%ignore ct_autograd_function_apply;
/* ct_py_op_call fills ct_value itself (CT_VALUE_SYMINT, CT_VALUE_SYMINTS). */
%ignore ct_value_set_symint;
%ignore ct_value_set_symints;
/* Compilation and export take a C function and arrays of handles: ct_py_compile, ct_py_export and
 * the helpers below wrap them. */
%ignore ct_compile;
%ignore ct_compiled_call;
%ignore ct_export;
%ignore ct_program_call;
%ignore ct_program_save_buffer;
%ignore ct_program_load_buffer;

/* Checkpoints: ct_checkpoint handles travel like tensors (the address as an int, None for NULL);
 * ctorch/safetensors.py owns them. Strings a checkpoint owns come back as str (None for NULL). Saving
 * and opening bytes take lists and buffers: ct_py_checkpoint_* below. */
%typemap(in) ct_checkpoint*, const ct_checkpoint*, ct_torch_file*, const ct_torch_file* {
  $1 = $input == Py_None ? NULL : ($1_ltype)PyLong_AsVoidPtr($input);
  if (PyErr_Occurred()) SWIG_fail;
}
%typemap(in, numinputs=0) ct_checkpoint** out (ct_checkpoint* tmp = NULL) { $1 = &tmp; }
%typemap(argout) ct_checkpoint** out { $result = SWIG_Python_AppendOutput($result, PyLong_FromVoidPtr(tmp$argnum)); }
%typemap(in, numinputs=0) ct_torch_file** out (ct_torch_file* tmp = NULL) { $1 = &tmp; }
%typemap(argout) ct_torch_file** out { $result = SWIG_Python_AppendOutput($result, PyLong_FromVoidPtr(tmp$argnum)); }
%typemap(in, numinputs=0) const char** out (const char* tmp = NULL) { $1 = &tmp; }
%typemap(argout) const char** out {
  PyObject* text = tmp$argnum ? PyUnicode_DecodeUTF8(tmp$argnum, (Py_ssize_t)strlen(tmp$argnum), "strict")
                              : (Py_INCREF(Py_None), Py_None);
  if (!text) SWIG_fail;
  $result = SWIG_Python_AppendOutput($result, text);
}
%ignore ct_checkpoint_open_buffer;
%ignore ct_checkpoint_save;
%ignore ct_checkpoint_save_buffer;
/* PyTorch files: ct_py_torch_save and ct_py_torch_load_buffer below; ctorch/serialization.py owns them. */
%ignore ct_torch_load_buffer;
%ignore ct_torch_save;
%ignore ct_torch_save_buffer;

%include "ctorch.h"

/* Typed functions of ctorch_ops.h (which SWIG does not read) that Python calls directly: a
 * Generator cannot travel through a boxed call. */
ct_status ct_tensor_poisson(const ct_tensor* self, ct_generator* generator, ct_tensor** out);
ct_status ct_tensor_binomial(const ct_tensor* count, const ct_tensor* prob, ct_generator* generator, ct_tensor** out);

/* ---- Helpers written for Python ---- */

/* They use the Python API, so they keep the GIL (ct_py_op_call releases it around the call). */
%feature("nothread") ct_py_set_error_factory;
%feature("nothread") ct_py_dims;
%feature("nothread") ct_py_sym_dims;
%feature("nothread") ct_py_set_symbolic;
%feature("nothread") ct_py_from_buffer;
%feature("nothread") ct_py_op_call;
%feature("nothread") ct_py_result_type;
%feature("nothread") ct_py_to_dlpack;
%feature("nothread") ct_py_install_gc_on_memory_pressure;
%feature("nothread") ct_py_install_log_handler;
%feature("nothread") ct_py_from_dlpack;
%feature("nothread") ct_py_autograd_backward;
%feature("nothread") ct_py_autograd_grad;
%feature("nothread") ct_py_register_hook;
%feature("nothread") ct_py_register_post_accumulate_grad_hook;
%feature("nothread") ct_py_optimizer_step_closure;
%feature("nothread") ct_py_function_apply;

%inline %{
/* Registers ctorch._errors' factory (status, message) -> exception instance. */
static PyObject* ct_py_set_error_factory(PyObject* fn) {
  Py_XINCREF(fn);
  Py_XDECREF(ct_py_error_factory);
  ct_py_error_factory = fn;
  Py_RETURN_NONE;
}

/* Registers ctorch._symbolic's SymInt class and its wrap(handle) -> int or SymInt, which takes over
 * the handle's reference. */
static PyObject* ct_py_set_symbolic(PyObject* symint_type, PyObject* wrap) {
  if (!PyType_Check(symint_type) || !PyCallable_Check(wrap)) {
    PyErr_SetString(PyExc_TypeError, "ct_py_set_symbolic: expected a class and a callable");
    return NULL;
  }
  Py_INCREF(symint_type);
  Py_INCREF(wrap);
  Py_XDECREF(ct_py_symint_type);
  Py_XDECREF(ct_py_symint_wrap);
  ct_py_symint_type = symint_type;
  ct_py_symint_wrap = wrap;
  Py_RETURN_NONE;
}

/* Sizes (which 0), strides (1) of a tensor with symbolic geometry: a tuple of ints and SymInts. */
static PyObject* ct_py_sym_dims(PyObject* handle, int strides) {
  const ct_tensor* t = (const ct_tensor*)PyLong_AsVoidPtr(handle);
  if (PyErr_Occurred()) return NULL;
  size_t n = 0;
  ct_status s = ct_tensor_ndim(t, &n);
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  if (!ct_py_symint_wrap) {
    PyErr_SetString(PyExc_RuntimeError, "ct_py_sym_dims: ctorch._symbolic is not loaded");
    return NULL;
  }
  PyObject* tup = PyTuple_New((Py_ssize_t)n);
  for (size_t i = 0; tup && i < n; ++i) {
    ct_symint* d = NULL;
    s = strides ? ct_tensor_sym_stride(t, (int64_t)i, &d) : ct_tensor_sym_size(t, (int64_t)i, &d);
    if (s != CT_OK) {
      Py_DECREF(tup);
      ct_py_raise(s);
      return NULL;
    }
    PyObject* item = PyObject_CallFunction(ct_py_symint_wrap, "N", PyLong_FromVoidPtr(d));
    if (!item) {
      Py_DECREF(tup);
      return NULL;
    }
    PyTuple_SET_ITEM(tup, (Py_ssize_t)i, item);
  }
  return tup;
}

/* Sizes or strides as a tuple of ints; for a tensor with symbolic geometry (whose plain accessors
 * answer CT_ERROR_GUARD, or specialize it in a traced function), of ints and SymInts. The eager path
 * is one call of each accessor. */
static PyObject* ct_py_dims(PyObject* handle, int strides) {
  const ct_tensor* t = (const ct_tensor*)PyLong_AsVoidPtr(handle);
  if (ct_py_symbolic_proxy(t)) return ct_py_sym_dims(handle, strides);
  size_t n = 0;
  ct_status s = ct_tensor_ndim(t, &n);
  int64_t buf[64];
  if (s == CT_OK) s = strides ? ct_tensor_strides(t, buf, n) : ct_tensor_sizes(t, buf, n);
  if (s == CT_ERROR_GUARD) {
    int symbolic = 0;
    if (ct_tensor_is_symbolic(t, &symbolic) == CT_OK && symbolic) return ct_py_sym_dims(handle, strides);
  }
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  PyObject* tup = PyTuple_New((Py_ssize_t)n);
  for (size_t i = 0; i < n; ++i) PyTuple_SET_ITEM(tup, (Py_ssize_t)i, PyLong_FromLongLong(buf[i]));
  return tup;
}

/* Keeps a Python buffer (numpy array, bytes) alive while a tensor views its memory. */
static void ct_py_release_buffer(void* data, void* user_data) {
  (void)data;
  PyGILState_STATE g = PyGILState_Ensure();
  PyBuffer_Release((Py_buffer*)user_data);
  PyGILState_Release(g);
  free(user_data);
}

/* A tensor over obj's buffer (zero-copy), with the given dtype; the buffer's own strides. A
 * read-only buffer (a read-only numpy array, np.frombuffer over bytes, a read-only memmap) gives a
 * read-only tensor, which refuses every write (CT_BLOB_READ_ONLY). */
static PyObject* ct_py_from_buffer(PyObject* obj, int dtype) {
  Py_buffer* view = (Py_buffer*)malloc(sizeof(Py_buffer));
  if (PyObject_GetBuffer(obj, view, PyBUF_RECORDS_RO) < 0) {
    free(view);
    return NULL;
  }
  if (view->ndim > 64 || view->itemsize != (Py_ssize_t)ct_dtype_itemsize((ct_dtype)dtype)) {
    PyBuffer_Release(view);
    free(view);
    PyErr_SetString(PyExc_ValueError, "from_numpy: the buffer's item size does not match the dtype");
    return NULL;
  }
  int64_t sizes[64], strides[64];
  for (int i = 0; i < view->ndim; ++i) {
    sizes[i] = view->shape[i];
    if (view->strides[i] % view->itemsize != 0 || view->strides[i] < 0) {
      PyBuffer_Release(view);
      free(view);
      PyErr_SetString(PyExc_ValueError,
                      "from_numpy: negative or unaligned strides are not supported. Copy the array first");
      return NULL;
    }
    strides[i] = view->strides[i] / view->itemsize;
  }
  ct_tensor* t = NULL;
  const uint32_t flags = view->readonly ? CT_BLOB_READ_ONLY : 0;
  ct_status s = ct_tensor_from_blob_v2(view->buf, sizes, strides, (size_t)view->ndim, (ct_dtype)dtype, flags,
                                       ct_py_release_buffer, view, &t);
  if (s != CT_OK) {
    PyBuffer_Release(view);
    free(view);
    ct_py_raise(s);
    return NULL;
  }
  return PyLong_FromVoidPtr(t);
}

/* Calls an operator by name; args is a sequence of (ct_value_kind, payload) pairs built by
 * ctorch.ops. Returns a tuple of handles. */
static PyObject* ct_py_op_call(const char* name, PyObject* args, int nouts) {
  PyObject* fast = PySequence_Fast(args, "expected a sequence of (kind, value) pairs");
  if (!fast) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  ct_value* vals = (ct_value*)calloc((size_t)(n ? n : 1), sizeof(ct_value));
  int64_t** lists = (int64_t**)calloc((size_t)(n ? n : 1), sizeof(int64_t*));
  ct_tensor* outs[8] = {NULL};
  PyObject* result = NULL;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* pair = PySequence_Fast_GET_ITEM(fast, i);
    int kind = (int)PyLong_AsLong(PyTuple_GetItem(pair, 0));
    PyObject* v = PyTuple_GetItem(pair, 1);
    if (PyErr_Occurred()) goto done;
    vals[i].kind = (ct_value_kind)kind;
    switch (kind) {
      case CT_VALUE_TENSOR: vals[i].tensor = (const ct_tensor*)PyLong_AsVoidPtr(v); break;
      case CT_VALUE_SYMINT: ct_value_set_symint(&vals[i], (const ct_symint*)PyLong_AsVoidPtr(v)); break;
      case CT_VALUE_INT: case CT_VALUE_BOOL: case CT_VALUE_DTYPE: vals[i].i = PyLong_AsLongLong(v); break;
      case CT_VALUE_FLOAT: vals[i].f = PyFloat_AsDouble(v); break;
      case CT_VALUE_INTS: case CT_VALUE_TENSORS: case CT_VALUE_SYMINTS: {
        size_t len = 0;
        if (ct_py_int64s(v, &lists[i], &len) < 0) goto done;
        vals[i].len = len;
        /* handles fit in int64 */
        if (kind == CT_VALUE_INTS) vals[i].ints = lists[i];
        else if (kind == CT_VALUE_TENSORS) vals[i].tensors = (const ct_tensor* const*)lists[i];
        else ct_value_set_symints(&vals[i], (const ct_symint* const*)lists[i], len);
        break;
      }
      case CT_VALUE_DEVICE: case CT_VALUE_STRING: vals[i].str = PyUnicode_AsUTF8(v); break;
      default: break;
    }
    if (PyErr_Occurred()) goto done;
  }
  if (nouts < 0 || nouts > 8) nouts = 8;
  {
    ct_status s;
    Py_BEGIN_ALLOW_THREADS
    s = ct_op_call(name, vals, (size_t)n, outs, (size_t)nouts);
    Py_END_ALLOW_THREADS
    if (s != CT_OK) {
      ct_py_raise(s);
      goto done;
    }
  }
  result = PyTuple_New(nouts);
  for (int i = 0; i < nouts; ++i) {
    PyObject* h = outs[i] ? PyLong_FromVoidPtr(outs[i]) : (Py_INCREF(Py_None), Py_None);
    PyTuple_SET_ITEM(result, i, h);
  }
done:
  for (Py_ssize_t i = 0; i < n; ++i) free(lists[i]);
  free(lists);
  free(vals);
  Py_DECREF(fast);
  return result;
}

/* torch.result_type over (kind, value) pairs of tensors and numbers: the ct_dtype code. */
static PyObject* ct_py_result_type(PyObject* args) {
  PyObject* fast = PySequence_Fast(args, "expected a sequence of (kind, value) pairs");
  if (!fast) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  ct_value* vals = (ct_value*)calloc((size_t)(n ? n : 1), sizeof(ct_value));
  PyObject* result = NULL;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* pair = PySequence_Fast_GET_ITEM(fast, i);
    int kind = (int)PyLong_AsLong(PyTuple_GetItem(pair, 0));
    PyObject* v = PyTuple_GetItem(pair, 1);
    if (PyErr_Occurred()) goto done;
    vals[i].kind = (ct_value_kind)kind;
    if (kind == CT_VALUE_TENSOR) vals[i].tensor = (const ct_tensor*)PyLong_AsVoidPtr(v);
    else if (kind == CT_VALUE_FLOAT) vals[i].f = PyFloat_AsDouble(v);
    else vals[i].i = PyLong_AsLongLong(v);
    if (PyErr_Occurred()) goto done;
  }
  {
    ct_dtype out = CT_FLOAT32;
    ct_status s = ct_result_type(vals, (size_t)n, &out);
    if (s != CT_OK) {
      ct_py_raise(s);
      goto done;
    }
    result = PyLong_FromLong((long)out);
  }
done:
  free(vals);
  Py_DECREF(fast);
  return result;
}

%}

%{
/* ---- Fast paths for the per-call cost of Python (see Note [Python fast paths]) ----
 *
 * Note [Python fast paths]
 * A Python-level call pays for every Python frame and object it makes: the general indexing code
 * (_apply_basic) and the boxed operator call (ops.call) cost 2-9 us on a 4x4 tensor, where the
 * library's work is about 0.2 us. Basic indexing (ints, slices, None, ...) and calls of a resolved
 * operator with positional arguments of plain kinds are done here in C instead, with the same library
 * calls the Python paths make (select, unsqueeze, the "slice" operator, view; ct_op_call_op), so
 * results, grad_fn names and errors are the same. Anything else (tensors or lists as indices,
 * SymInts, numpy numbers, keyword arguments, a traced proxy with symbolic sizes) is not handled
 * here: the functions answer None or NotImplemented *before* calling the library, and the caller
 * takes its general Python path. Tensor objects are made here as ctorch._tensor._wrap makes them
 * (object.__new__(Tensor) and its _h slot), through the slot's offset (ct_py_set_tensor_type). */

static PyTypeObject* ct_py_tensor_type = NULL; /* ctorch.Tensor */
static Py_ssize_t ct_py_handle_offset = -1;    /* where Tensor's _h slot lives in its objects */
static PyTypeObject* ct_py_dtype_type = NULL;  /* ctorch.dtype, whose .code is a ct_dtype */
static PyObject* ct_py_code_name = NULL;       /* "code" */
static const ct_op* ct_py_slice_op = NULL;     /* slice.Tensor, for x[a:b:c] */
static const ct_op* ct_py_copy_op = NULL;      /* copy_, for x[...] = value */
static const ct_op* ct_py_index_op = NULL;     /* index.Tensor, for x[idx], x[:, mask] */
static const ct_op* ct_py_index_put_op = NULL; /* index_put_, for x[idx] = value */

/* The handle of a Tensor (or subclass) object, or NULL when o is none or its _h is not a handle. */
static const ct_tensor* ct_py_handle_of(PyObject* o) {
  if (!ct_py_tensor_type || !PyObject_TypeCheck(o, ct_py_tensor_type)) return NULL;
  PyObject* h = *(PyObject**)((char*)o + ct_py_handle_offset);
  if (!h || !PyLong_CheckExact(h)) return NULL;
  void* p = PyLong_AsVoidPtr(h);
  if (!p) PyErr_Clear();
  return (const ct_tensor*)p;
}

/* A new ctorch.Tensor owning t (a new reference): _wrap(t). On failure t is released. */
static PyObject* ct_py_new_tensor(ct_tensor* t) {
  PyObject* h = PyLong_FromVoidPtr(t);
  PyObject* o = h ? ct_py_tensor_type->tp_alloc(ct_py_tensor_type, 0) : NULL;
  if (!o) {
    Py_XDECREF(h);
    ct_tensor_release(t);
    return NULL;
  }
  *(PyObject**)((char*)o + ct_py_handle_offset) = h;
  return o;
}

/* An int that is not a bool and fits int64: 1 with *v set, else 0 (no error left set). */
static int ct_py_plain_int(PyObject* o, int64_t* v) {
  if (!PyLong_Check(o) || PyBool_Check(o)) return 0;
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow || (x == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return 0;
  }
  *v = (int64_t)x;
  return 1;
}
/* An operator resolved once for ct_py_op_call_fast: the overload (ct_op_find) when the name has a
 * single one, else NULL and the call goes by name (ct_op_call picks the overload); nouts as
 * ctorch.ops._result_type gives it. */
typedef struct ct_py_op_key_s {
  const ct_op* op;
  int nouts;
  PyObject* params;   /* the single overload's argument names (a tuple of str), for keywords; or NULL */
  uint32_t optional;  /* bit i: argument i's type is optional (a keyword may be None) */
  int npos;           /* how many arguments may be given by position (not keyword-only) */
  PyTypeObject* result_type; /* the named tuple class several results come back in, or NULL: a tuple */
  char name[];
} ct_py_op_key_t;

static void ct_py_op_key_free(PyObject* capsule) {
  ct_py_op_key_t* key = (ct_py_op_key_t*)PyCapsule_GetPointer(capsule, "ctorch._C.op_key");
  if (key) {
    Py_XDECREF(key->params);
    Py_XDECREF((PyObject*)key->result_type);
  }
  free(key);
}

/* Boxes o into v as ctorch.ops._box does, for the plain kinds: 1 when boxed, 0 when o needs the
 * general path (no error set), -1 on error. Lists take their elements from *pool. */
static int ct_py_box(PyObject* o, ct_value* v, int64_t** pool, int64_t* pool_end) {
  memset(v, 0, sizeof *v);
  if (o == Py_None) {
    v->kind = CT_VALUE_NONE;
  } else if (PyObject_TypeCheck(o, ct_py_tensor_type)) {
    if (!(v->tensor = ct_py_handle_of(o))) return 0;
    v->kind = CT_VALUE_TENSOR;
  } else if (PyBool_Check(o)) {
    v->kind = CT_VALUE_BOOL;
    v->i = o == Py_True;
  } else if (PyLong_Check(o)) {
    if (!ct_py_plain_int(o, &v->i)) return 0;
    v->kind = CT_VALUE_INT;
  } else if (PyFloat_Check(o)) {
    v->kind = CT_VALUE_FLOAT;
    v->f = PyFloat_AS_DOUBLE(o);
  } else if (PyUnicode_Check(o)) {
    if (!(v->str = PyUnicode_AsUTF8(o))) return -1;
    v->kind = CT_VALUE_STRING;
  } else if (PyObject_TypeCheck(o, ct_py_dtype_type)) {
    PyObject* code = PyObject_GetAttr(o, ct_py_code_name);
    int ok = code && ct_py_plain_int(code, &v->i);
    Py_XDECREF(code);
    if (!ok) {
      PyErr_Clear();
      return 0;
    }
    v->kind = CT_VALUE_DTYPE;
  } else if (PyList_Check(o) || PyTuple_Check(o)) {
    PyObject* const* items = PyList_Check(o) ? ((PyListObject*)o)->ob_item : ((PyTupleObject*)o)->ob_item;
    Py_ssize_t m = Py_SIZE(o);
    if (m > pool_end - *pool) return 0;
    int64_t* out = *pool;
    int tensors = m > 0;
    for (Py_ssize_t k = 0; tensors && k < m; ++k) tensors = PyObject_TypeCheck(items[k], ct_py_tensor_type);
    for (Py_ssize_t k = 0; k < m; ++k) {
      if (tensors) {
        const ct_tensor* t = ct_py_handle_of(items[k]);
        if (!t) return 0;
        out[k] = (int64_t)(intptr_t)t;
      } else if (PyBool_Check(items[k])) {
        out[k] = items[k] == Py_True;
      } else if (!ct_py_plain_int(items[k], &out[k])) {
        return 0; /* SymInts, numpy numbers, floats: the general path */
      }
    }
    *pool += m;
    v->len = (size_t)m;
    if (tensors) {
      v->kind = CT_VALUE_TENSORS;
      v->tensors = (const ct_tensor* const*)out;
    } else {
      v->kind = CT_VALUE_INTS;
      v->ints = out;
    }
  } else {
    return 0; /* devices, SymInts, numpy numbers, anything else: the general path */
  }
  return 1;
}

/* Calls key's operator with first (when not NULL), then args' items, then kwargs at their places.
 * One output: a Tensor (None for an empty slot); else a tuple of Tensors and Nones, as
 * ctorch.ops.call's handles, or the key's named tuple of them. NotImplemented, before anything is called, when an argument is not of
 * a plain kind (see ct_py_box): the caller takes ctorch.ops.call. */
static PyObject* ct_py_op_call_args(PyObject* key_capsule, PyObject* first, PyObject* args, PyObject* kwargs) {
  ct_py_op_key_t* key = (ct_py_op_key_t*)PyCapsule_GetPointer(key_capsule, "ctorch._C.op_key");
  if (!key) return NULL;
  if (!PyTuple_Check(args) || (kwargs != Py_None && !PyDict_Check(kwargs))) {
    PyErr_SetString(PyExc_TypeError, "ct_py_op_call_fast: expected a tuple of arguments and a dict or None");
    return NULL;
  }
  if (!ct_py_tensor_type) Py_RETURN_NOTIMPLEMENTED;
  PyObject* given[32]; /* borrowed; NULL: not given (the default) */
  Py_ssize_t npositional = PyTuple_GET_SIZE(args) + (first != NULL), n = npositional;
  if (n > 32) Py_RETURN_NOTIMPLEMENTED;
  for (Py_ssize_t i = 0; i < npositional; ++i)
    given[i] = first ? (i == 0 ? first : PyTuple_GET_ITEM(args, i - 1)) : PyTuple_GET_ITEM(args, i);
  if (kwargs != Py_None && PyDict_GET_SIZE(kwargs) > 0) {
    /* Keywords at their schema positions, as ctorch.ops._call_boxed places them; a keyword the
     * schema lacks, one repeating a positional argument, or None for a type that is not optional
     * is left to it (it raises TypeError). */
    if (!key->params || npositional > key->npos) Py_RETURN_NOTIMPLEMENTED;
    Py_ssize_t nparams = PyTuple_GET_SIZE(key->params);
    for (Py_ssize_t i = npositional; i < nparams; ++i) given[i] = NULL;
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(kwargs, &pos, &k, &v)) {
      Py_ssize_t at = -1;
      for (Py_ssize_t j = 0; j < nparams && at < 0; ++j) {
        PyObject* param = PyTuple_GET_ITEM(key->params, j);
        if (param == k || (PyUnicode_Check(k) && PyUnicode_Compare(param, k) == 0)) at = j;
      }
      if (at < npositional || (v == Py_None && !((key->optional >> at) & 1u))) Py_RETURN_NOTIMPLEMENTED;
      given[at] = v;
      if (at + 1 > n) n = at + 1;
    }
  }
  ct_value vals[32];
  int64_t pool_buf[256];
  int64_t* pool = pool_buf;
  for (Py_ssize_t i = 0; i < n; ++i) {
    int r = ct_py_box(given[i] ? given[i] : Py_None, &vals[i], &pool, pool_buf + 256);
    if (r < 0) return NULL;
    if (r == 0) Py_RETURN_NOTIMPLEMENTED;
  }
  ct_tensor* outs[8] = {NULL};
  ct_status s;
  Py_BEGIN_ALLOW_THREADS
  s = key->op ? ct_op_call_op(key->op, vals, (size_t)n, outs, (size_t)key->nouts)
              : ct_op_call(key->name, vals, (size_t)n, outs, (size_t)key->nouts);
  Py_END_ALLOW_THREADS
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  if (key->nouts == 1) {
    if (!outs[0]) Py_RETURN_NONE;
    return ct_py_new_tensor(outs[0]);
  }
  PyObject* result = PyTuple_New(key->nouts);
  for (int i = 0; i < key->nouts; ++i) {
    PyObject* t = NULL;
    if (result && outs[i]) t = ct_py_new_tensor(outs[i]);
    else if (outs[i]) ct_tensor_release(outs[i]);
    else t = (Py_INCREF(Py_None), Py_None);
    outs[i] = NULL;
    if (!t) Py_CLEAR(result);
    else if (result) PyTuple_SET_ITEM(result, i, t);
    else Py_DECREF(t);
  }
  if (result && key->result_type) { /* the named tuple (values, indices), made as tuple.__new__ makes it */
    PyObject* pack = PyTuple_Pack(1, result);
    Py_DECREF(result);
    result = pack ? PyTuple_Type.tp_new(key->result_type, pack, NULL) : NULL;
    Py_XDECREF(pack);
  }
  return result;
}

%}

%feature("nothread") ct_py_set_tensor_type;
%feature("nothread") ct_py_index;
%feature("nothread") ct_py_setitem;
%feature("nothread") ct_py_cat;
%feature("nothread") ct_py_op_key;
%feature("nothread") ct_py_op_call_fast;
%feature("nothread") ct_py_op_method_fast;

%inline %{
/* Registers ctorch.Tensor (whose _h slot holds the handle) and ctorch.dtype for the fast paths. */
static PyObject* ct_py_set_tensor_type(PyObject* tensor_type, PyObject* dtype_type) {
  if (!PyType_Check(tensor_type) || !PyType_Check(dtype_type)) {
    PyErr_SetString(PyExc_TypeError, "ct_py_set_tensor_type: expected two classes");
    return NULL;
  }
  PyObject* descr = PyDict_GetItemString(((PyTypeObject*)tensor_type)->tp_dict, "_h");
  if (!descr || Py_TYPE(descr) != &PyMemberDescr_Type ||
      ((PyMemberDescrObject*)descr)->d_member->type != T_OBJECT_EX) {
    PyErr_SetString(PyExc_TypeError, "ct_py_set_tensor_type: the class has no _h slot");
    return NULL;
  }
  if ((!ct_py_slice_op && ct_op_find("slice.Tensor", &ct_py_slice_op) != CT_OK) ||
      (!ct_py_copy_op && ct_op_find("copy_", &ct_py_copy_op) != CT_OK) ||
      (!ct_py_index_op && ct_op_find("index.Tensor", &ct_py_index_op) != CT_OK) ||
      (!ct_py_index_put_op && ct_op_find("index_put_", &ct_py_index_put_op) != CT_OK)) {
    ct_py_raise(CT_ERROR_INVALID_ARGUMENT);
    return NULL;
  }
  if (!ct_py_code_name && !(ct_py_code_name = PyUnicode_InternFromString("code"))) return NULL;
  Py_INCREF(tensor_type);
  Py_INCREF(dtype_type);
  Py_XDECREF((PyObject*)ct_py_tensor_type);
  Py_XDECREF((PyObject*)ct_py_dtype_type);
  ct_py_tensor_type = (PyTypeObject*)tensor_type;
  ct_py_dtype_type = (PyTypeObject*)dtype_type;
  ct_py_handle_offset = ((PyMemberDescrObject*)descr)->d_member->offset;
  Py_RETURN_NONE;
}

/* self[index] for basic indices (ints, slices of ints, None, Ellipsis, or a tuple of them): a new
 * Tensor viewing self, as ctorch._tensor._apply_basic makes it (same library calls, same errors);
 * with index tensors of 1 or more dims among them, the index.Tensor operator's copy, as
 * Tensor.__getitem__ calls it. None for any other index (lists, numpy arrays, 0-dim tensors), or
 * a tensor whose sizes are symbolic while a function is traced: the caller's general path handles
 * those. */
static PyObject* ct_py_index(PyObject* self, PyObject* index) {
  enum { IDX_NONE, IDX_ELLIPSIS, IDX_INT, IDX_SLICE, IDX_TENSOR };
  const ct_tensor* base = ct_py_handle_of(self);
  if (!base || ct_py_symbolic_proxy(base)) Py_RETURN_NONE;
  PyObject* const* items = &index;
  Py_ssize_t n = 1;
  if (PyTuple_Check(index)) {
    items = ((PyTupleObject*)index)->ob_item;
    n = PyTuple_GET_SIZE(index);
  }
  if (n > 64) Py_RETURN_NONE;
  int kind[64];
  int64_t value[64][3];      /* an int's value; a slice's start, stop, step; a tensor's dims spanned */
  unsigned char given[64][3]; /* which of a slice's start, stop, step are not None */
  const ct_tensor* tensors[64];
  int64_t tensor_dims[64];
  size_t consumed = 0, ntensors = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* it = items[i];
    if (PyObject_TypeCheck(it, ct_py_tensor_type)) {
      /* An index tensor of 1 or more dims (a 0-dim one acts as an int: the general path), as
       * _apply_basic takes it: a bool or uint8 mask spans its ndim dims, any other one dim. */
      const ct_tensor* t = ct_py_handle_of(it);
      size_t tdim = 0;
      ct_dtype tdtype;
      if (!t || ct_tensor_ndim(t, &tdim) != CT_OK || tdim == 0 || ct_tensor_dtype(t, &tdtype) != CT_OK)
        Py_RETURN_NONE;
      kind[i] = IDX_TENSOR;
      value[i][0] = (tdtype == CT_BOOL || tdtype == CT_UINT8) ? (int64_t)tdim : 1;
      consumed += (size_t)value[i][0];
      tensors[ntensors++] = t;
    } else if (it == Py_None) {
      kind[i] = IDX_NONE;
    } else if (it == Py_Ellipsis) {
      kind[i] = IDX_ELLIPSIS;
    } else if (ct_py_plain_int(it, &value[i][0])) {
      kind[i] = IDX_INT;
      ++consumed;
    } else if (PySlice_Check(it)) {
      PySliceObject* sl = (PySliceObject*)it;
      PyObject* parts[3] = {sl->start, sl->stop, sl->step};
      for (int k = 0; k < 3; ++k) {
        given[i][k] = parts[k] != Py_None;
        if (given[i][k] && !ct_py_plain_int(parts[k], &value[i][k])) Py_RETURN_NONE;
      }
      kind[i] = IDX_SLICE;
      ++consumed;
    } else {
      Py_RETURN_NONE;
    }
  }
  size_t ndim = 0;
  ct_status s = ct_tensor_ndim(base, &ndim);
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  if (consumed > ndim) {
    PyErr_Format(PyExc_IndexError, "too many indices for tensor of dimension %zu", ndim);
    return NULL;
  }
  const ct_tensor* cur = base;
  ct_tensor* owned = NULL; /* cur when it is an intermediate view of ours */
  int64_t dim = 0;
  int expanded = 0;
  size_t tensor_at = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    ct_tensor* next = NULL;
    s = CT_OK;
    switch (kind[i]) {
      case IDX_TENSOR: /* indexed after the views, at the dim of the view it stands at */
        tensor_dims[tensor_at++] = dim;
        dim += value[i][0];
        break;
      case IDX_NONE:
        s = ct_tensor_unsqueeze(cur, dim, &next);
        ++dim;
        break;
      case IDX_ELLIPSIS: /* as in torch, only the first ... stands for the remaining dims */
        dim += expanded ? 0 : (int64_t)(ndim - consumed);
        expanded = 1;
        break;
      case IDX_INT:
        s = ct_tensor_select(cur, dim, value[i][0], &next);
        break;
      case IDX_SLICE:
        if (given[i][2] && value[i][2] <= 0) {
          ct_tensor_release(owned);
          PyErr_SetString(PyExc_ValueError, "step must be greater than zero");
          return NULL;
        }
        if (given[i][0] || given[i][1] || given[i][2]) {
          ct_value args[5];
          memset(args, 0, sizeof args);
          args[0].kind = CT_VALUE_TENSOR;
          args[0].tensor = cur;
          args[1].kind = CT_VALUE_INT;
          args[1].i = dim;
          for (int k = 0; k < 2; ++k) {
            args[2 + k].kind = given[i][k] ? CT_VALUE_INT : CT_VALUE_NONE;
            args[2 + k].i = value[i][k];
          }
          args[4].kind = CT_VALUE_INT;
          args[4].i = given[i][2] ? value[i][2] : 1;
          s = ct_op_call_op(ct_py_slice_op, args, 5, &next, 1);
        }
        ++dim;
        break;
    }
    if (s != CT_OK) {
      ct_tensor_release(owned);
      ct_py_raise(s);
      return NULL;
    }
    if (next) {
      ct_tensor_release(owned);
      cur = owned = next;
    }
  }
  if (ntensors) { /* index.Tensor(self, indices, dims), as Tensor.__getitem__'s general path calls it */
    ct_value args[3];
    memset(args, 0, sizeof args);
    args[0].kind = CT_VALUE_TENSOR;
    args[0].tensor = cur;
    args[1].kind = CT_VALUE_TENSORS;
    args[1].tensors = tensors;
    args[1].len = ntensors;
    args[2].kind = CT_VALUE_INTS;
    args[2].ints = tensor_dims;
    args[2].len = ntensors;
    ct_tensor* out = NULL;
    Py_BEGIN_ALLOW_THREADS
    s = ct_op_call_op(ct_py_index_op, args, 3, &out, 1);
    Py_END_ALLOW_THREADS
    ct_tensor_release(owned);
    if (s != CT_OK) {
      ct_py_raise(s);
      return NULL;
    }
    return ct_py_new_tensor(out);
  }
  if (!owned) { /* x[...], x[:]: a view of the whole tensor, not the tensor itself */
    int64_t sizes[64];
    if (ndim > 64) Py_RETURN_NONE;
    if (ct_tensor_sizes(base, sizes, ndim) != CT_OK) Py_RETURN_NONE; /* symbolic sizes: the general path */
    s = ct_tensor_view(base, sizes, ndim, &owned);
    if (s != CT_OK) {
      ct_py_raise(s);
      return NULL;
    }
  }
  return ct_py_new_tensor(owned);
}

/* self[index] = value for basic indices, or one index tensor, and a value that is a number (bool,
 * int, float) or a Tensor: value as a 0-dim tensor of self's dtype (ct_tensor_full), or the tensor
 * in that dtype (ct_tensor_to), copied into the view (copy_) or put at the index (index_put_), as
 * Tensor.__setitem__'s general path does. True when done; None, before anything is written, for
 * other indices or values (the general path). */
static PyObject* ct_py_setitem(PyObject* self, PyObject* index, PyObject* value) {
  const ct_tensor* src = NULL;
  ct_scalar number;
  if (PyObject_TypeCheck(value, ct_py_tensor_type)) {
    if (!(src = ct_py_handle_of(value))) Py_RETURN_NONE;
  } else if (!(PyFloat_Check(value) || PyLong_Check(value)) || ct_py_scalar(value, &number) < 0) {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  /* One index tensor of 1 or more dims (x[idx] = v, x[mask] = v) writes with index_put_(self,
   * [idx], value, False, [0]), as the general path; index tensors among other indices go there. */
  const ct_tensor* idx = NULL;
  if (PyObject_TypeCheck(index, ct_py_tensor_type)) {
    const ct_tensor* base = ct_py_handle_of(self);
    size_t ndim = 0, idim = 0;
    ct_dtype idtype;
    if (!base || ct_py_symbolic_proxy(base) || !(idx = ct_py_handle_of(index)) || ct_tensor_ndim(idx, &idim) != CT_OK ||
        idim == 0 || ct_tensor_dtype(idx, &idtype) != CT_OK || ct_tensor_ndim(base, &ndim) != CT_OK)
      Py_RETURN_NONE;
    if ((idtype == CT_BOOL || idtype == CT_UINT8 ? idim : 1) > ndim) {
      PyErr_Format(PyExc_IndexError, "too many indices for tensor of dimension %zu", ndim);
      return NULL;
    }
  } else if (PyTuple_Check(index)) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(index); ++i)
      if (PyObject_TypeCheck(PyTuple_GET_ITEM(index, i), ct_py_tensor_type)) Py_RETURN_NONE;
  }
  PyObject* view = idx ? (Py_INCREF(self), self) : ct_py_index(self, index);
  if (!view || view == Py_None) return view;
  const ct_tensor* dst = ct_py_handle_of(view);
  ct_tensor* converted = NULL; /* value as a tensor of dst's dtype, when it is not already one */
  ct_dtype dtype, src_dtype;
  ct_status s = ct_tensor_dtype(dst, &dtype);
  if (s == CT_OK && !src) {
    s = ct_tensor_full(NULL, 0, &number, dtype, NULL, &converted);
  } else if (s == CT_OK && (s = ct_tensor_dtype(src, &src_dtype)) == CT_OK && src_dtype != dtype) {
    s = ct_tensor_to(src, dtype, &converted);
  }
  if (s == CT_OK) {
    ct_value args[5];
    memset(args, 0, sizeof args);
    const int64_t dim0 = 0;
    ct_tensor* out = NULL;
    args[0].kind = CT_VALUE_TENSOR;
    args[0].tensor = dst;
    if (idx) { /* index_put_(self, indices, values, accumulate, dims) */
      args[1].kind = CT_VALUE_TENSORS;
      args[1].tensors = &idx;
      args[1].len = 1;
      args[2].kind = CT_VALUE_TENSOR;
      args[2].tensor = converted ? converted : src;
      args[3].kind = CT_VALUE_BOOL;
      args[4].kind = CT_VALUE_INTS;
      args[4].ints = &dim0;
      args[4].len = 1;
    } else { /* copy_(view, value) */
      args[1].kind = CT_VALUE_TENSOR;
      args[1].tensor = converted ? converted : src;
    }
    Py_BEGIN_ALLOW_THREADS
    s = ct_op_call_op(idx ? ct_py_index_put_op : ct_py_copy_op, args, idx ? 5 : 2, &out, 1);
    Py_END_ALLOW_THREADS
    ct_tensor_release(out);
  }
  ct_tensor_release(converted);
  Py_DECREF(view);
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  Py_RETURN_TRUE;
}

/* ctorch.cat (stack 0) and ctorch.stack (stack 1) of a sequence of Tensors: a new Tensor, made here
 * rather than by _wrap. TypeError for an element that is not a Tensor. */
static PyObject* ct_py_cat(PyObject* tensors, int64_t dim, int stack) {
  PyObject* fast = PySequence_Fast(tensors, "expected a sequence of tensors");
  if (!fast) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  const ct_tensor* small[16];
  const ct_tensor** handles = n <= 16 ? small : (const ct_tensor**)malloc(sizeof(ct_tensor*) * (size_t)n);
  PyObject* result = NULL;
  if (!handles) {
    Py_DECREF(fast);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(fast, i);
    if (!(handles[i] = ct_py_handle_of(item))) {
      PyErr_Format(PyExc_TypeError, "expected a ctorch.Tensor, got %s", Py_TYPE(item)->tp_name);
      goto done;
    }
  }
  {
    ct_tensor* out = NULL;
    ct_status s;
    Py_BEGIN_ALLOW_THREADS
    s = stack ? ct_tensor_stack(handles, (size_t)n, dim, &out) : ct_tensor_cat(handles, (size_t)n, dim, &out);
    Py_END_ALLOW_THREADS
    if (s != CT_OK) ct_py_raise(s);
    else result = ct_py_new_tensor(out);
  }
done:
  if (handles != small) free(handles);
  Py_DECREF(fast);
  return result;
}

/* A key for ct_py_op_call_fast: name ("erfinv", "add"), whether it has a single overload (then it
 * is found now with ct_op_find), the number of outputs to make room for, and for keywords the
 * single overload's argument names (a tuple of at most 32 str, or None: keywords take the general
 * path), which of them are optional (bit i) and how many may be given by position; result_type, a
 * named tuple class for several results (or None). */
static PyObject* ct_py_op_key(PyObject* name, int single, int nouts, PyObject* params, long optional, int npos,
                              PyObject* result_type) {
  const char* text = PyUnicode_AsUTF8(name);
  if (!text) return NULL;
  if (result_type != Py_None && !(PyType_Check(result_type) && PyType_IsSubtype((PyTypeObject*)result_type, &PyTuple_Type))) {
    PyErr_SetString(PyExc_TypeError, "ct_py_op_key: result_type must be a tuple class or None");
    return NULL;
  }
  if (params != Py_None && (!PyTuple_Check(params) || PyTuple_GET_SIZE(params) > 32)) params = Py_None;
  ct_py_op_key_t* key = (ct_py_op_key_t*)malloc(sizeof *key + strlen(text) + 1);
  if (!key) return PyErr_NoMemory();
  strcpy(key->name, text);
  key->op = NULL;
  if (single && ct_op_find(text, &key->op) != CT_OK) key->op = NULL;
  key->nouts = nouts < 0 ? 0 : nouts > 8 ? 8 : nouts;
  key->params = params == Py_None ? NULL : (Py_INCREF(params), params);
  key->optional = (uint32_t)optional;
  key->npos = npos;
  key->result_type = result_type == Py_None ? NULL : (Py_INCREF(result_type), (PyTypeObject*)result_type);
  PyObject* capsule = PyCapsule_New(key, "ctorch._C.op_key", ct_py_op_key_free);
  if (!capsule) {
    Py_XDECREF((PyObject*)key->result_type);
    Py_XDECREF(key->params);
    free(key);
  }
  return capsule;
}

/* key's operator called with args and kwargs (None or a dict), self first for a method. */
static PyObject* ct_py_op_call_fast(PyObject* key, PyObject* args, PyObject* kwargs) {
  return ct_py_op_call_args(key, NULL, args, kwargs);
}

static PyObject* ct_py_op_method_fast(PyObject* key, PyObject* self, PyObject* args, PyObject* kwargs) {
  return ct_py_op_call_args(key, self, args, kwargs);
}
%}

%inline %{
/* ---- DLPack capsules (the Python protocol: a consumer renames the capsule "used_..."; a capsule
 * still carrying its name when Python frees it was never consumed, so it is deleted here) ---- */

static void ct_py_dlpack_capsule_free(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    DLManagedTensorVersioned* m = (DLManagedTensorVersioned*)PyCapsule_GetPointer(capsule, "dltensor_versioned");
    if (m && m->deleter) m->deleter(m);
  } else if (PyCapsule_IsValid(capsule, "dltensor")) {
    DLManagedTensor* m = (DLManagedTensor*)PyCapsule_GetPointer(capsule, "dltensor");
    if (m && m->deleter) m->deleter(m);
  }
}

/* A capsule viewing the tensor: versioned ("dltensor_versioned") or legacy ("dltensor"). */
static PyObject* ct_py_to_dlpack(PyObject* handle, int versioned) {
  const ct_tensor* t = (const ct_tensor*)PyLong_AsVoidPtr(handle);
  void* m = NULL;
  ct_status s = versioned ? ct_tensor_to_dlpack(t, (DLManagedTensorVersioned**)&m)
                          : ct_tensor_to_dlpack_unversioned(t, (DLManagedTensor**)&m);
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  PyObject* cap = PyCapsule_New(m, versioned ? "dltensor_versioned" : "dltensor", ct_py_dlpack_capsule_free);
  if (!cap) {
    if (versioned) ((DLManagedTensorVersioned*)m)->deleter((DLManagedTensorVersioned*)m);
    else ((DLManagedTensor*)m)->deleter((DLManagedTensor*)m);
  }
  return cap;
}

/* A tensor over a producer's capsule; the capsule is renamed so that its owner no longer deletes it. */
static PyObject* ct_py_from_dlpack(PyObject* capsule) {
  ct_tensor* t = NULL;
  ct_status s;
  const char* used;
  if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    s = ct_tensor_from_dlpack((DLManagedTensorVersioned*)PyCapsule_GetPointer(capsule, "dltensor_versioned"), &t);
    used = "used_dltensor_versioned";
  } else if (PyCapsule_IsValid(capsule, "dltensor")) {
    s = ct_tensor_from_dlpack_unversioned((DLManagedTensor*)PyCapsule_GetPointer(capsule, "dltensor"), &t);
    used = "used_dltensor";
  } else {
    PyErr_SetString(PyExc_TypeError, "from_dlpack: expected an unconsumed DLPack capsule (\"dltensor\" or "
                                     "\"dltensor_versioned\"), or an object with __dlpack__");
    return NULL;
  }
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  PyCapsule_SetName(capsule, used);
  return PyLong_FromVoidPtr(t);
}

/* ---- Memory pressure: when an allocation fails, run Python's garbage collector (tensors held
 * only by reference cycles are freed) and let ctorch retry. Called on the allocating thread, which
 * has released the GIL for the call; PyGILState_Ensure takes it back. ---- */

static int ct_py_collect_garbage(void* user_data, int device_type, size_t nbytes) {
  (void)user_data;
  (void)device_type;
  (void)nbytes;
#if PY_VERSION_HEX >= 0x030D0000
  if (!Py_IsInitialized() || Py_IsFinalizing()) return 0;
#else
  if (!Py_IsInitialized() || _Py_IsFinalizing()) return 0; /* no Python code during shutdown */
#endif
  PyGILState_STATE g = PyGILState_Ensure();
  /* gc.collect() rather than PyGC_Collect(), which does nothing while gc is disabled. */
  long collected = 0;
  PyObject* gc = PyImport_ImportModule("gc");
  PyObject* n = gc ? PyObject_CallMethod(gc, "collect", NULL) : NULL;
  if (n) collected = PyLong_AsLong(n);
  Py_XDECREF(n);
  Py_XDECREF(gc);
  PyErr_Clear(); /* a failure here must not leak into the caller's call */
  PyGILState_Release(g);
  return collected > 0;
}

static PyObject* ct_py_install_gc_on_memory_pressure(void) {
  ct_status s = ct_set_memory_pressure_handler(ct_py_collect_garbage, NULL, NULL);
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  Py_RETURN_NONE;
}

/* ---- Autograd: Python callbacks. The library calls them on the thread running backward, which
 * released the GIL for the call (or holds it: PyGILState_Ensure takes it either way); operators
 * they call re-enter the library, which is allowed. A Python exception is kept for ct_py_raise
 * (see ct_py_pending_type) and reported to the library with ct_error_set. ---- */

static ct_status ct_py_callback_failed(void) {
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  /* A ctorch.Error keeps its status; any other exception is the caller's mistake as far as the
   * library can tell. */
  ct_status status = CT_ERROR_INVALID_ARGUMENT;
  PyObject* st = value ? PyObject_GetAttrString(value, "status") : NULL;
  if (st && PyLong_Check(st)) status = (ct_status)PyLong_AsLong(st);
  Py_XDECREF(st);
  PyObject* line = value ? PyUnicode_FromFormat("%s: %S", Py_TYPE(value)->tp_name, value) : NULL;
  const char* msg = line ? PyUnicode_AsUTF8(line) : NULL;
  PyErr_Clear(); /* from a failed getattr or str(): the exception to report is the callback's */
  ct_error_set(status, msg ? msg : "a Python callback raised an exception");
  ct_py_drop_pending();
  ct_py_pending_message = strdup(ct_last_error());
  Py_XDECREF(line);
  ct_py_pending_type = type;
  ct_py_pending_value = value;
  ct_py_pending_traceback = traceback;
  return status;
}

/* The destroy callback of every Python user_data: the last reference may go on any thread, and
 * after the interpreter has finished (a tensor freed by a static destructor) nothing may run. */
static void ct_py_decref(void* user_data) {
  if (!Py_IsInitialized()) return;
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF((PyObject*)user_data);
  PyGILState_Release(g);
}

/* Handles from a sequence of Tensor handles and Nones (None is NULL). */
static int ct_py_handles(PyObject* seq, const ct_tensor*** out, size_t* n) {
  *out = NULL;
  *n = 0;
  PyObject* fast = PySequence_Fast(seq, "expected a sequence of tensor handles");
  if (!fast) return -1;
  Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
  *out = (const ct_tensor**)calloc(len ? (size_t)len : 1, sizeof(ct_tensor*));
  for (Py_ssize_t i = 0; i < len; ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(fast, i);
    (*out)[i] = item == Py_None ? NULL : (const ct_tensor*)PyLong_AsVoidPtr(item);
  }
  Py_DECREF(fast);
  *n = (size_t)len;
  if (PyErr_Occurred()) {
    free((void*)*out);
    *out = NULL;
    return -1;
  }
  return 0;
}

/* A tuple of new handles, None where a slot is NULL. */
static PyObject* ct_py_handle_tuple(ct_tensor* const* ts, size_t n) {
  PyObject* tup = PyTuple_New((Py_ssize_t)n);
  for (size_t i = 0; i < n; ++i)
    PyTuple_SET_ITEM(tup, (Py_ssize_t)i, ts[i] ? PyLong_FromVoidPtr(ts[i]) : (Py_INCREF(Py_None), Py_None));
  return tup;
}

/* ct_autograd_backward; grads is None or a sequence of handles and Nones. */
static PyObject* ct_py_autograd_backward(PyObject* outputs, PyObject* grads, int flags) {
  const ct_tensor** outs = NULL;
  const ct_tensor** gs = NULL;
  size_t n = 0, ng = 0;
  PyObject* result = NULL;
  if (ct_py_handles(outputs, &outs, &n) < 0) return NULL;
  if (grads != Py_None && ct_py_handles(grads, &gs, &ng) < 0) goto done;
  if (gs && ng != n) {
    PyErr_Format(PyExc_ValueError, "backward: %zu tensors but %zu gradients. Pass one gradient (or None) per tensor",
                 n, ng);
    goto done;
  }
  {
    ct_status s;
    Py_BEGIN_ALLOW_THREADS
    s = ct_autograd_backward(outs, gs, n, flags);
    Py_END_ALLOW_THREADS
    if (s != CT_OK) {
      ct_py_raise(s);
      goto done;
    }
  }
  result = Py_None;
  Py_INCREF(result);
done:
  free((void*)outs);
  free((void*)gs);
  return result;
}

/* ct_autograd_grad: a tuple with a new handle (or None, for an unused input) per input. */
static PyObject* ct_py_autograd_grad(PyObject* outputs, PyObject* grad_outputs, PyObject* inputs, int flags) {
  const ct_tensor** outs = NULL;
  const ct_tensor** gs = NULL;
  const ct_tensor** ins = NULL;
  ct_tensor** grads = NULL;
  size_t n = 0, ng = 0, ni = 0;
  PyObject* result = NULL;
  if (ct_py_handles(outputs, &outs, &n) < 0) return NULL;
  if (grad_outputs != Py_None && ct_py_handles(grad_outputs, &gs, &ng) < 0) goto done;
  if (ct_py_handles(inputs, &ins, &ni) < 0) goto done;
  if (gs && ng != n) {
    PyErr_Format(PyExc_ValueError, "grad: %zu outputs but %zu grad_outputs. Pass one gradient (or None) per output",
                 n, ng);
    goto done;
  }
  grads = (ct_tensor**)calloc(ni ? ni : 1, sizeof(ct_tensor*));
  {
    ct_status s;
    Py_BEGIN_ALLOW_THREADS
    s = ct_autograd_grad(outs, gs, n, ins, ni, flags, grads);
    Py_END_ALLOW_THREADS
    if (s != CT_OK) {
      ct_py_raise(s);
      goto done;
    }
  }
  result = ct_py_handle_tuple(grads, ni);
done:
  free((void*)outs);
  free((void*)gs);
  free((void*)ins);
  free(grads);
  return result;
}

/* fn(grad handle) returns None or a replacement's handle that is a new reference. */
static ct_status ct_py_hook(void* user_data, const ct_tensor* grad, ct_tensor** replacement) {
  PyGILState_STATE g = PyGILState_Ensure();
  ct_status s = CT_OK;
  PyObject* r = PyObject_CallFunction((PyObject*)user_data, "N", PyLong_FromVoidPtr((void*)grad));
  if (r && r != Py_None) *replacement = (ct_tensor*)PyLong_AsVoidPtr(r);
  if (!r || PyErr_Occurred()) {
    *replacement = NULL;
    s = ct_py_callback_failed();
  }
  Py_XDECREF(r);
  PyGILState_Release(g);
  return s;
}

/* ct_tensor_register_hook with a Python callable (see ct_py_hook); returns the hook's id. */
static PyObject* ct_py_register_hook(PyObject* handle, PyObject* fn) {
  ct_tensor* t = (ct_tensor*)PyLong_AsVoidPtr(handle);
  if (PyErr_Occurred()) return NULL;
  int64_t id = 0;
  Py_INCREF(fn); /* the library's reference, dropped by ct_py_decref (on failure too) */
  ct_status s = ct_tensor_register_hook(t, ct_py_hook, fn, ct_py_decref, &id);
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  return PyLong_FromLongLong(id);
}

/* A post-accumulate-grad hook: calls the Python callable with the leaf's handle (borrowed). */
static ct_status ct_py_post_accumulate_hook(void* user_data, ct_tensor* t) {
  PyGILState_STATE g = PyGILState_Ensure();
  ct_status s = CT_OK;
  PyObject* r = PyObject_CallFunction((PyObject*)user_data, "N", PyLong_FromVoidPtr((void*)t));
  if (!r || PyErr_Occurred()) s = ct_py_callback_failed();
  Py_XDECREF(r);
  PyGILState_Release(g);
  return s;
}

/* ct_tensor_register_post_accumulate_grad_hook with a Python callable; returns the hook's id. */
static PyObject* ct_py_register_post_accumulate_grad_hook(PyObject* handle, PyObject* fn) {
  ct_tensor* t = (ct_tensor*)PyLong_AsVoidPtr(handle);
  if (PyErr_Occurred()) return NULL;
  int64_t id = 0;
  Py_INCREF(fn); /* the library's reference, dropped by ct_py_decref (on failure too) */
  ct_status s = ct_tensor_register_post_accumulate_grad_hook(t, ct_py_post_accumulate_hook, fn, ct_py_decref, &id);
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  return PyLong_FromLongLong(id);
}

/* An optimizer's closure: fn() returns the loss as a float. */
static ct_status ct_py_closure(void* user_data, double* loss) {
  PyGILState_STATE g = PyGILState_Ensure();
  ct_status s = CT_OK;
  PyObject* r = PyObject_CallNoArgs((PyObject*)user_data);
  if (r) *loss = PyFloat_AsDouble(r);
  if (!r || PyErr_Occurred()) s = ct_py_callback_failed();
  Py_XDECREF(r);
  PyGILState_Release(g);
  return s;
}

/* ct_optimizer_step_closure with a Python callable (see ct_py_closure); returns the first loss. */
static PyObject* ct_py_optimizer_step_closure(PyObject* handle, PyObject* fn) {
  ct_optimizer* opt = (ct_optimizer*)PyLong_AsVoidPtr(handle);
  if (PyErr_Occurred()) return NULL;
  double loss = 0;
  /* fn runs on this thread during the call only: the caller's reference keeps it alive. */
  ct_status s = ct_optimizer_step_closure(opt, ct_py_closure, fn, &loss);
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  return PyFloat_FromDouble(loss);
}

/* A custom function (ctorch.autograd.Function). Its Python forward has already run, since the
 * library must be told how many outputs there are before it calls forward: the forward callback
 * hands over those outputs and saves the tensors Python chose. backward(ctx, grads) returns a
 * sequence with, per input, None or a handle that is a new reference. */
typedef struct ct_py_function {
  PyObject* backward;
  const ct_tensor** outputs; /* during ct_py_function_apply only */
  size_t n_outputs;
  const ct_tensor** saved; /* during ct_py_function_apply only */
  size_t n_saved;
} ct_py_function;

static ct_status ct_py_function_forward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* inputs,
                                        size_t n_inputs, ct_tensor** outputs, size_t n_outputs) {
  const ct_py_function* f = (const ct_py_function*)user_data;
  (void)inputs;
  (void)n_inputs;
  for (size_t i = 0; i < f->n_saved; ++i) {
    ct_status s = ct_autograd_ctx_save(ctx, f->saved[i]);
    if (s != CT_OK) {
      ct_error_set(s, ct_last_error());
      return s;
    }
  }
  for (size_t i = 0; i < n_outputs; ++i) {
    ct_status s = ct_tensor_retain((ct_tensor*)f->outputs[i]);
    if (s != CT_OK) {
      ct_error_set(s, ct_last_error());
      return s;
    }
    outputs[i] = (ct_tensor*)f->outputs[i];
  }
  return CT_OK;
}

static ct_status ct_py_function_backward(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* grad_outputs,
                                         size_t n_outputs, ct_tensor** grad_inputs, size_t n_inputs) {
  const ct_py_function* f = (const ct_py_function*)user_data;
  PyGILState_STATE g = PyGILState_Ensure();
  ct_status s = CT_OK;
  PyObject* r = PyObject_CallFunction(f->backward, "NN", PyLong_FromVoidPtr(ctx),
                                      ct_py_handle_tuple((ct_tensor* const*)grad_outputs, n_outputs));
  PyObject* fast = r ? PySequence_Fast(r, "a custom function's backward must return a sequence") : NULL;
  if (fast && (size_t)PySequence_Fast_GET_SIZE(fast) != n_inputs)
    PyErr_Format(PyExc_RuntimeError, "ctorch.autograd.Function: backward returned %zd gradients for %zu tensor inputs",
                 PySequence_Fast_GET_SIZE(fast), n_inputs);
  /* Everything returned is taken over, also on failure: the library releases what is in grad_inputs. */
  for (size_t i = 0; fast && i < n_inputs && i < (size_t)PySequence_Fast_GET_SIZE(fast); ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(fast, (Py_ssize_t)i);
    if (item != Py_None) grad_inputs[i] = (ct_tensor*)PyLong_AsVoidPtr(item);
  }
  if (PyErr_Occurred()) s = ct_py_callback_failed();
  Py_XDECREF(fast);
  Py_XDECREF(r);
  PyGILState_Release(g);
  return s;
}

static void ct_py_function_destroy(void* user_data) {
  ct_py_function* f = (ct_py_function*)user_data;
  ct_py_decref(f->backward);
  free(f);
}

/* ct_autograd_function_apply for ctorch.autograd.Function: inputs are the tensor arguments,
 * outputs what the Python forward returned, saved what it saved (handles). Returns a tuple of new
 * handles, one per output. */
static PyObject* ct_py_function_apply(const char* name, PyObject* inputs, PyObject* outputs, PyObject* saved,
                                      PyObject* backward) {
  const ct_tensor** ins = NULL;
  ct_tensor** results = NULL;
  size_t n_in = 0;
  PyObject* result = NULL;
  ct_py_function* f = (ct_py_function*)calloc(1, sizeof(ct_py_function));
  if (ct_py_handles(inputs, &ins, &n_in) < 0 || ct_py_handles(outputs, &f->outputs, &f->n_outputs) < 0 ||
      ct_py_handles(saved, &f->saved, &f->n_saved) < 0) {
    free((void*)ins);
    free((void*)f->outputs);
    free(f);
    return NULL;
  }
  const ct_tensor** outs = f->outputs;
  const ct_tensor** keep = f->saved;
  const size_t n_out = f->n_outputs;
  results = (ct_tensor**)calloc(n_out ? n_out : 1, sizeof(ct_tensor*));
  f->backward = backward;
  Py_INCREF(backward);
  /* forward runs no Python code; destroy, which runs before this returns when nothing is recorded,
   * takes the GIL itself. f may be freed by then, so only the local copies are used after. */
  ct_status s;
  Py_BEGIN_ALLOW_THREADS
  s = ct_autograd_function_apply(name, ct_py_function_forward, ct_py_function_backward, f, ct_py_function_destroy,
                                 ins, n_in, results, n_out);
  Py_END_ALLOW_THREADS
  if (s != CT_OK) ct_py_raise(s);
  else result = ct_py_handle_tuple(results, n_out);
  free((void*)ins);
  free((void*)outs);
  free((void*)keep);
  free(results);
  return result;
}

/* ---- Log routing: every message the library logs is handed to a Python function
 * (ctorch._logging._route: warnings.warn for warnings, the "ctorch" logger for the rest). Called on
 * the logging thread, which has usually released the GIL for the call; PyGILState_Ensure takes it
 * either way. An exception the function raises (a warnings filter set to "error") cannot travel
 * back through the library's log call: it is reported as unraisable. ---- */

static void ct_py_log(void* user_data, ct_log_level level, const char* message) {
#if PY_VERSION_HEX >= 0x030D0000
  const int finalizing = Py_IsFinalizing();
#else
  const int finalizing = _Py_IsFinalizing();
#endif
  if (!Py_IsInitialized() || finalizing) return; /* no Python code during shutdown */
  PyGILState_STATE g = PyGILState_Ensure();
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback); /* a caller's pending exception survives the message */
  PyObject* text = PyUnicode_DecodeUTF8(message, (Py_ssize_t)strlen(message), "replace");
  PyObject* r = text ? PyObject_CallFunction((PyObject*)user_data, "iO", (int)level, text) : NULL;
  if (!r) PyErr_WriteUnraisable((PyObject*)user_data);
  Py_XDECREF(r);
  Py_XDECREF(text);
  PyErr_Restore(type, value, traceback);
  PyGILState_Release(g);
}

/* Routes the library's log messages to fn(level, message), replacing any previous handler. */
static PyObject* ct_py_install_log_handler(PyObject* fn) {
  Py_INCREF(fn);
  ct_status s = ct_set_log_handler(ct_py_log, fn, ct_py_decref);
  if (s != CT_OK) {
    Py_DECREF(fn);
    ct_py_raise(s);
    return NULL;
  }
  Py_RETURN_NONE;
}
%}

/* ---- Compilation and export (ctorch/_compile.py, ctorch/export.py). The traced function is a
 * Python callable fn(inputs, n_outputs): inputs a tuple of borrowed handles (proxies while tracing,
 * the real tensors when the library runs the function eagerly), returning a sequence of n_outputs
 * handles that are new references, which the library takes over. An exception it raises is kept
 * for ct_py_raise as for hooks, so it leaves ct_py_compiled_call / ct_py_export as itself. ---- */

%feature("nothread") ct_py_compile;
%feature("nothread") ct_py_compiled_call;
%feature("nothread") ct_py_export;
%feature("nothread") ct_py_program_call;
%feature("nothread") ct_py_program_save_buffer;
%feature("nothread") ct_py_program_load_buffer;

%{
static ct_status ct_py_traced(void* user_data, const ct_tensor* const* inputs, size_t n_inputs, ct_tensor** outputs,
                              size_t n_outputs) {
  PyGILState_STATE g = PyGILState_Ensure();
  ct_status s = CT_OK;
  ++ct_py_tracing;
  PyObject* ins = ct_py_handle_tuple((ct_tensor* const*)inputs, n_inputs);
  PyObject* r = PyObject_CallFunction((PyObject*)user_data, "Nn", ins, (Py_ssize_t)n_outputs);
  --ct_py_tracing;
  PyObject* fast = r ? PySequence_Fast(r, "a traced function's trampoline must return a sequence of handles") : NULL;
  if (fast && (size_t)PySequence_Fast_GET_SIZE(fast) != n_outputs)
    PyErr_Format(PyExc_RuntimeError, "traced function: %zd outputs for %zu expected", PySequence_Fast_GET_SIZE(fast),
                 n_outputs);
  /* Everything returned is taken over, also on failure: the library releases what is in outputs,
   * this function what has no place there. */
  for (Py_ssize_t i = 0; fast && i < PySequence_Fast_GET_SIZE(fast); ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(fast, i);
    ct_tensor* t = item == Py_None ? NULL : (ct_tensor*)PyLong_AsVoidPtr(item);
    if ((size_t)i < n_outputs) outputs[i] = t;
    else ct_tensor_release(t);
  }
  if (PyErr_Occurred()) s = ct_py_callback_failed();
  Py_XDECREF(fast);
  Py_XDECREF(r);
  PyGILState_Release(g);
  return s;
}

/* A call that succeeded may have run the function more than once (a trace that failed, then the
 * eager run): an exception the failed trace left is not this call's. */
static void ct_py_clear_pending(void) { ct_py_drop_pending(); }
%}

%inline %{
/* ct_compile with the Python callable fn (see ct_py_traced) and an options handle (or None); returns
 * the compiled function's handle. */
static PyObject* ct_py_compile(PyObject* fn, PyObject* options) {
  const ct_compile_options* o = options == Py_None ? NULL : (const ct_compile_options*)PyLong_AsVoidPtr(options);
  if (PyErr_Occurred()) return NULL;
  ct_compiled* c = NULL;
  Py_INCREF(fn); /* the library's reference, dropped by ct_py_decref (on failure too) */
  ct_status s = ct_compile(ct_py_traced, fn, ct_py_decref, o, &c);
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  return PyLong_FromVoidPtr(c);
}

/* ct_compiled_call: a tuple of n_outputs new handles. */
static PyObject* ct_py_compiled_call(PyObject* compiled, PyObject* inputs, size_t n_outputs) {
  ct_compiled* c = (ct_compiled*)PyLong_AsVoidPtr(compiled);
  if (PyErr_Occurred()) return NULL;
  const ct_tensor** ins = NULL;
  size_t n_in = 0;
  if (ct_py_handles(inputs, &ins, &n_in) < 0) return NULL;
  ct_tensor** outs = (ct_tensor**)calloc(n_outputs ? n_outputs : 1, sizeof(ct_tensor*));
  PyObject* result = NULL;
  ct_status s;
  Py_BEGIN_ALLOW_THREADS
  s = ct_compiled_call(c, ins, n_in, outs, n_outputs);
  Py_END_ALLOW_THREADS
  if (s != CT_OK) {
    ct_py_raise(s);
  } else {
    ct_py_clear_pending();
    result = ct_py_handle_tuple(outs, n_outputs);
  }
  free((void*)ins);
  free(outs);
  return result;
}

/* ct_export of fn (not kept) on example handles, with a ct_dynamic_shapes handle or None; returns the
 * program's handle. */
static PyObject* ct_py_export(PyObject* fn, PyObject* inputs, size_t n_outputs, PyObject* shapes) {
  const ct_dynamic_shapes* d = shapes == Py_None ? NULL : (const ct_dynamic_shapes*)PyLong_AsVoidPtr(shapes);
  if (PyErr_Occurred()) return NULL;
  const ct_tensor** ins = NULL;
  size_t n_in = 0;
  if (ct_py_handles(inputs, &ins, &n_in) < 0) return NULL;
  ct_program* p = NULL;
  ct_status s;
  Py_BEGIN_ALLOW_THREADS
  s = ct_export(ct_py_traced, fn, ins, n_in, n_outputs, d, &p);
  Py_END_ALLOW_THREADS
  free((void*)ins);
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  ct_py_clear_pending();
  return PyLong_FromVoidPtr(p);
}

/* ct_program_call: a tuple with a new handle per output of the program. */
static PyObject* ct_py_program_call(PyObject* program, PyObject* inputs) {
  const ct_program* p = (const ct_program*)PyLong_AsVoidPtr(program);
  if (PyErr_Occurred()) return NULL;
  size_t n_out = 0;
  ct_status s = ct_program_num_outputs(p, &n_out);
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  const ct_tensor** ins = NULL;
  size_t n_in = 0;
  if (ct_py_handles(inputs, &ins, &n_in) < 0) return NULL;
  ct_tensor** outs = (ct_tensor**)calloc(n_out ? n_out : 1, sizeof(ct_tensor*));
  PyObject* result = NULL;
  Py_BEGIN_ALLOW_THREADS
  s = ct_program_call(p, ins, n_in, outs, n_out);
  Py_END_ALLOW_THREADS
  if (s != CT_OK) ct_py_raise(s);
  else result = ct_py_handle_tuple(outs, n_out);
  free((void*)ins);
  free(outs);
  return result;
}

/* ct_program_save_buffer: the program file's bytes. */
static PyObject* ct_py_program_save_buffer(PyObject* program) {
  const ct_program* p = (const ct_program*)PyLong_AsVoidPtr(program);
  if (PyErr_Occurred()) return NULL;
  char* data = NULL;
  size_t size = 0;
  ct_status s;
  Py_BEGIN_ALLOW_THREADS
  s = ct_program_save_buffer(p, &data, &size);
  Py_END_ALLOW_THREADS
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  PyObject* bytes = PyBytes_FromStringAndSize(data, (Py_ssize_t)size);
  ct_string_release(data);
  return bytes;
}

/* ct_program_load_buffer over any bytes-like object; returns the program's handle. */
static PyObject* ct_py_program_load_buffer(PyObject* data) {
  Py_buffer view;
  if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) return NULL;
  ct_program* p = NULL;
  ct_status s;
  Py_BEGIN_ALLOW_THREADS
  s = ct_program_load_buffer(view.buf, (size_t)view.len, &p);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&view);
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  return PyLong_FromVoidPtr(p);
}
%}

/* ---- Learning-rate schedules with milestones ---- */

%feature("nothread") ct_py_lr_scheduler_create;

%inline %{
/* ct_lr_scheduler_create with options->milestones taken from a sequence of ints (None: none). */
static ct_status ct_py_lr_scheduler_create(ct_optimizer* opt, ct_lr_scheduler_options* options, PyObject* milestones,
                                           ct_lr_scheduler** out) {
  int64_t* values = NULL;
  size_t n = 0;
  if (ct_py_int64s(milestones, &values, &n) < 0) {  /* the TypeError is raised as it is */
    ct_py_drop_pending();
    PyErr_Fetch(&ct_py_pending_type, &ct_py_pending_value, &ct_py_pending_traceback);
    ct_py_pending_message = strdup("");  /* no library call failed: this is the error to raise */
    return CT_ERROR_INVALID_ARGUMENT;
  }
  ct_status s = CT_ERROR_INVALID_ARGUMENT;
  if (options) {
    ct_lr_scheduler_options o = *options;
    o.milestones = values;
    o.num_milestones = n;
    s = ct_lr_scheduler_create(opt, &o, out);
  } else {
    s = ct_lr_scheduler_create(opt, NULL, out);
  }
  free(values);
  return s;
}
%}

/* ---- Lists of views (shape family) ---- */

%feature("nothread") ct_py_split;

%inline %{
/* ct_tensor_split (which 0, arg an int), ct_tensor_split_with_sizes (1, a sequence of ints),
 * ct_tensor_chunk (2, an int) or ct_tensor_unbind (3, arg unused): the pieces as a tuple of
 * handles, after asking the C function for their count. */
static PyObject* ct_py_split(int which, PyObject* handle, PyObject* arg, int64_t dim) {
  const ct_tensor* t = (const ct_tensor*)PyLong_AsVoidPtr(handle);
  int64_t* sizes = NULL;
  size_t nsizes = 0;
  int64_t k = 0;
  if (which == 1 && ct_py_int64s(arg, &sizes, &nsizes) < 0) return NULL;
  if (which == 0 || which == 2) {
    k = PyLong_AsLongLong(arg);
    if (PyErr_Occurred()) return NULL;
  }
  ct_tensor** outs = NULL;
  size_t count = 0;
  ct_status s = CT_OK;
  for (int pass = 0; pass < 2; ++pass) {  /* pass 0 counts, pass 1 fills */
    size_t capacity = pass ? count : 0;
    if (pass) outs = (ct_tensor**)calloc(count ? count : 1, sizeof(ct_tensor*));
    switch (which) {
      case 0: s = ct_tensor_split(t, k, dim, outs, capacity, &count); break;
      case 1: s = ct_tensor_split_with_sizes(t, sizes, nsizes, dim, outs, capacity, &count); break;
      case 2: s = ct_tensor_chunk(t, k, dim, outs, capacity, &count); break;
      default: s = ct_tensor_unbind(t, dim, outs, capacity, &count); break;
    }
    if (s != CT_OK) break;
  }
  free(sizes);
  if (s != CT_OK) {
    free(outs);
    ct_py_raise(s);
    return NULL;
  }
  PyObject* tup = PyTuple_New((Py_ssize_t)count);
  for (size_t i = 0; i < count; ++i) PyTuple_SET_ITEM(tup, (Py_ssize_t)i, PyLong_FromVoidPtr(outs[i]));
  free(outs);
  return tup;
}
%}

/* ---- Checkpoints (safetensors) ---- */

%feature("nothread") ct_py_checkpoint_save;
%feature("nothread") ct_py_checkpoint_open_buffer;
%feature("nothread") ct_py_torch_save;
%feature("nothread") ct_py_torch_load_buffer;

%inline %{
/* names (a sequence of str) as UTF-8 C strings borrowed from the str objects, which fast keeps alive;
 * a name holding NUL is refused (the C name would end there). */
static int ct_py_names(PyObject* seq, PyObject** fast, const char*** out, size_t* n) {
  *out = NULL;
  *fast = PySequence_Fast(seq, "expected a sequence of names");
  if (!*fast) return -1;
  *n = (size_t)PySequence_Fast_GET_SIZE(*fast);
  *out = (const char**)calloc(*n ? *n : 1, sizeof(char*));
  for (size_t i = 0; i < *n; ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(*fast, (Py_ssize_t)i);
    Py_ssize_t len = 0;
    const char* utf8 = PyUnicode_Check(item) ? PyUnicode_AsUTF8AndSize(item, &len) : NULL;
    if (!utf8) {
      if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "tensor names must be str, got %s", Py_TYPE(item)->tp_name);
      return -1;
    }
    if ((size_t)len != strlen(utf8)) {
      PyErr_Format(PyExc_ValueError, "the tensor name %R holds a NUL character, which safetensors names cannot", item);
      return -1;
    }
    (*out)[i] = utf8;
  }
  return 0;
}

/* ct_checkpoint_save (path not None) or ct_checkpoint_save_buffer (path None: returns bytes). metadata
 * is a JSON text or None. */
static PyObject* ct_py_checkpoint_save(PyObject* path, PyObject* names, PyObject* handles, PyObject* metadata) {
  const char* cpath = NULL;
  const char* cmeta = NULL;
  if (path != Py_None && !(cpath = PyUnicode_AsUTF8(path))) return NULL;
  if (metadata != Py_None && !(cmeta = PyUnicode_AsUTF8(metadata))) return NULL;
  PyObject* fast = NULL;
  const char** cnames = NULL;
  const ct_tensor** ts = NULL;
  size_t n = 0, nt = 0;
  PyObject* result = NULL;
  if (ct_py_names(names, &fast, &cnames, &n) == 0 && ct_py_handles(handles, &ts, &nt) == 0) {
    if (nt != n) {
      PyErr_Format(PyExc_ValueError, "ct_py_checkpoint_save: %zu names for %zu tensors", n, nt);
    } else {
      char* data = NULL;
      size_t size = 0;
      ct_status s;
      Py_BEGIN_ALLOW_THREADS
      s = cpath ? ct_checkpoint_save(cpath, cnames, ts, n, cmeta)
                : ct_checkpoint_save_buffer(cnames, ts, n, cmeta, &data, &size);
      Py_END_ALLOW_THREADS
      if (s != CT_OK) ct_py_raise(s);
      else if (cpath) result = (Py_INCREF(Py_None), Py_None);
      else result = PyBytes_FromStringAndSize(data, (Py_ssize_t)size);
      ct_string_release(data);
    }
  }
  free((void*)ts);
  free((void*)cnames);
  Py_XDECREF(fast);
  return result;
}

/* ct_torch_save (path not None) or ct_torch_save_buffer (path None: returns bytes): structure is the
 * saved object's JSON, handles the tensors it refers to. */
static PyObject* ct_py_torch_save(PyObject* path, PyObject* structure, PyObject* handles) {
  const char* cpath = NULL;
  const char* cstructure = PyUnicode_AsUTF8(structure);
  if (!cstructure) return NULL;
  if (path != Py_None && !(cpath = PyUnicode_AsUTF8(path))) return NULL;
  const ct_tensor** ts = NULL;
  size_t n = 0;
  if (ct_py_handles(handles, &ts, &n) != 0) return NULL;
  char* data = NULL;
  size_t size = 0;
  ct_status s;
  Py_BEGIN_ALLOW_THREADS
  s = cpath ? ct_torch_save(cpath, cstructure, ts, n) : ct_torch_save_buffer(cstructure, ts, n, &data, &size);
  Py_END_ALLOW_THREADS
  free((void*)ts);
  PyObject* result = NULL;
  if (s != CT_OK) ct_py_raise(s);
  else if (cpath) result = (Py_INCREF(Py_None), Py_None);
  else result = PyBytes_FromStringAndSize(data, (Py_ssize_t)size);
  ct_string_release(data);
  return result;
}

/* ct_torch_load_buffer over any bytes-like object; returns the file's handle. */
static PyObject* ct_py_torch_load_buffer(PyObject* data) {
  Py_buffer view;
  if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) return NULL;
  ct_torch_file* f = NULL;
  ct_status s;
  Py_BEGIN_ALLOW_THREADS
  s = ct_torch_load_buffer(view.buf, (size_t)view.len, &f);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&view);
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  return PyLong_FromVoidPtr(f);
}

/* ct_checkpoint_open_buffer over any bytes-like object; returns the checkpoint's handle. */
static PyObject* ct_py_checkpoint_open_buffer(PyObject* data) {
  Py_buffer view;
  if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) return NULL;
  ct_checkpoint* c = NULL;
  ct_status s;
  Py_BEGIN_ALLOW_THREADS
  s = ct_checkpoint_open_buffer(view.buf, (size_t)view.len, &c);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&view);
  if (s != CT_OK) {
    ct_py_raise(s);
    return NULL;
  }
  return PyLong_FromVoidPtr(c);
}
%}
