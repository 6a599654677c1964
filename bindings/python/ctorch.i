/* ctorch.i - the SWIG interface behind ctorch._C (private; the ctorch package is the API).
 *
 * Conventions, so that Python code never sees a status or an out-parameter:
 *   - a ct_status that is not CT_OK raises the ctorch.Error subclass for it, with ct_last_error();
 *   - tensor handles travel as Python ints (the ct_tensor address); a Python Tensor owns exactly one
 *     reference and releases it once (ctorch/_tensor.py);
 *   - out-parameters become return values; int64 arrays come from any sequence of ints;
 *   - every call releases the GIL (-threads), so long operations let other Python threads run.
 */
%module(package="ctorch") _C

%include <stdint.i>

%{
#include <string.h>
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

static void ct_py_raise(ct_status status) {
  if (ct_py_pending_type) {
    PyErr_Restore(ct_py_pending_type, ct_py_pending_value, ct_py_pending_traceback);
    ct_py_pending_type = ct_py_pending_value = ct_py_pending_traceback = NULL;
    return;
  }
  const char* msg = ct_last_error();
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
    PyObject* index = PyNumber_Index(item);
    if (!index) {
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

%typemap(in) ct_autograd_ctx* {
  $1 = ($1_ltype)PyLong_AsVoidPtr($input);
  if (PyErr_Occurred()) SWIG_fail;
}

%typemap(in, numinputs=0) ct_tensor** out (ct_tensor* tmp = NULL) { $1 = &tmp; }
%typemap(argout) ct_tensor** out { $result = SWIG_Python_AppendOutput($result, PyLong_FromVoidPtr(tmp$argnum)); }

/* ---- Arrays and numbers in ---- */

%typemap(in) (const int64_t* sizes, size_t ndim), (const int64_t* sizes, size_t n),
             (const int64_t* dims, size_t n) {
  if (ct_py_int64s($input, &$1, &$2) < 0) SWIG_fail;
}
%typemap(freearg) (const int64_t* sizes, size_t ndim), (const int64_t* sizes, size_t n),
                  (const int64_t* dims, size_t n) { free($1); }

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
  for (size_t i = 0; i < $2; ++i) ((const ct_tensor**)$1)[i] = (const ct_tensor*)PyLong_AsVoidPtr(PySequence_Fast_GET_ITEM(fast, i));
  Py_DECREF(fast);
  if (PyErr_Occurred()) { free((void*)$1); SWIG_fail; }
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
%typemap(argout) size_t* out { $result = SWIG_Python_AppendOutput($result, PyLong_FromSize_t(tmp$argnum)); }
%typemap(argout) int32_t* out, int* out, ct_dtype* out, ct_grad_mode* previous {
  $result = SWIG_Python_AppendOutput($result, PyLong_FromLong((long)tmp$argnum));
}
%typemap(argout) void** out { $result = SWIG_Python_AppendOutput($result, PyLong_FromVoidPtr(tmp$argnum)); }
%typemap(argout) ct_scalar* out { $result = SWIG_Python_AppendOutput($result, ct_py_from_scalar(&tmp$argnum)); }
%typemap(argout) char** out {
  /* NULL (a leaf's grad_fn name) is None */
  $result = SWIG_Python_AppendOutput($result, tmp$argnum ? PyUnicode_FromString(tmp$argnum) : (Py_INCREF(Py_None), Py_None));
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
%ignore ct_tensor_copy_to;
%ignore ct_op_call;
%ignore ct_library_impl;
%ignore ct_set_memory_pressure_handler;
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
%ignore ct_autograd_function_apply;

%include "ctorch.h"

/* ---- Helpers written for Python ---- */

/* They use the Python API, so they keep the GIL (ct_py_op_call releases it around the call). */
%feature("nothread") ct_py_set_error_factory;
%feature("nothread") ct_py_dims;
%feature("nothread") ct_py_from_buffer;
%feature("nothread") ct_py_op_call;
%feature("nothread") ct_py_to_dlpack;
%feature("nothread") ct_py_install_gc_on_memory_pressure;
%feature("nothread") ct_py_from_dlpack;
%feature("nothread") ct_py_autograd_backward;
%feature("nothread") ct_py_autograd_grad;
%feature("nothread") ct_py_register_hook;
%feature("nothread") ct_py_function_apply;

%inline %{
/* Registers ctorch._errors' factory (status, message) -> exception instance. */
static PyObject* ct_py_set_error_factory(PyObject* fn) {
  Py_XINCREF(fn);
  Py_XDECREF(ct_py_error_factory);
  ct_py_error_factory = fn;
  Py_RETURN_NONE;
}

static PyObject* ct_py_dims(PyObject* handle, int strides) {
  const ct_tensor* t = (const ct_tensor*)PyLong_AsVoidPtr(handle);
  size_t n = 0;
  ct_status s = ct_tensor_ndim(t, &n);
  int64_t buf[64];
  if (s == CT_OK) s = strides ? ct_tensor_strides(t, buf, n) : ct_tensor_sizes(t, buf, n);
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

/* A tensor over obj's buffer (zero-copy), with the given dtype; the buffer's own strides. */
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
  ct_status s = ct_tensor_from_blob(view->buf, sizes, strides, (size_t)view->ndim, (ct_dtype)dtype,
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
      case CT_VALUE_INT: case CT_VALUE_BOOL: case CT_VALUE_DTYPE: vals[i].i = PyLong_AsLongLong(v); break;
      case CT_VALUE_FLOAT: vals[i].f = PyFloat_AsDouble(v); break;
      case CT_VALUE_INTS: case CT_VALUE_TENSORS: {
        size_t len = 0;
        if (ct_py_int64s(v, &lists[i], &len) < 0) goto done;
        vals[i].len = len;
        if (kind == CT_VALUE_INTS) vals[i].ints = lists[i];
        else vals[i].tensors = (const ct_tensor* const*)lists[i];  /* handles fit in int64 */
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
%}

