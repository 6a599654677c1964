/* optim.i - typemaps for the training section of ctorch.h (optimizers, schedulers, clipping,
 * initializers), %included by ctorch.i before the header. ctorch/optim and ctorch/nn/init.py use it.
 *
 *   - ct_optimizer and ct_lr_scheduler handles travel like tensors (the address as an int; the
 *     Python objects in ctorch/optim own one reference each);
 *   - parameter lists are sequences of tensor handles;
 *   - the options structs are SWIG classes (ct_optimizer_options(), fields as attributes);
 *   - optimizer state is bytes both ways. */

%typemap(in) ct_optimizer*, const ct_optimizer*, ct_lr_scheduler*, const ct_lr_scheduler* {
  $1 = $input == Py_None ? NULL : ($1_ltype)PyLong_AsVoidPtr($input);
  if (PyErr_Occurred()) SWIG_fail;
}
%typemap(in, numinputs=0) ct_optimizer** out (ct_optimizer* tmp = NULL),
                          ct_lr_scheduler** out (ct_lr_scheduler* tmp = NULL) { $1 = &tmp; }
%typemap(argout) ct_optimizer** out, ct_lr_scheduler** out {
  $result = SWIG_Python_AppendOutput($result, PyLong_FromVoidPtr(tmp$argnum));
}

/* A schedule's milestones are a Python sequence given to ct_py_lr_scheduler_create (ctorch.i), not
 * the struct's pointer and count. */
%ignore ct_lr_scheduler_options::milestones;
%ignore ct_lr_scheduler_options::num_milestones;

%typemap(in) (const ct_tensor* const* params, size_t n) {
  PyObject* fast = PySequence_Fast($input, "expected a sequence of tensor handles");
  if (!fast) SWIG_fail;
  $2 = (size_t)PySequence_Fast_GET_SIZE(fast);
  $1 = (const ct_tensor**)malloc(sizeof(ct_tensor*) * ($2 ? $2 : 1));
  for (size_t i = 0; i < $2; ++i)
    ((const ct_tensor**)$1)[i] = (const ct_tensor*)PyLong_AsVoidPtr(PySequence_Fast_GET_ITEM(fast, (Py_ssize_t)i));
  Py_DECREF(fast);
  if (PyErr_Occurred()) { free((void*)$1); SWIG_fail; }
}
%typemap(freearg) (const ct_tensor* const* params, size_t n) { free((void*)$1); }

%typemap(in, numinputs=0) double* total_norm (double tmp = 0) { $1 = &tmp; }
%typemap(argout) double* total_norm { $result = SWIG_Python_AppendOutput($result, PyFloat_FromDouble(tmp$argnum)); }
%typemap(in, numinputs=0) int64_t* fan_in (int64_t tmp = 0), int64_t* fan_out (int64_t tmp = 0) { $1 = &tmp; }
%typemap(argout) int64_t* fan_in, int64_t* fan_out {
  $result = SWIG_Python_AppendOutput($result, PyLong_FromLongLong(tmp$argnum));
}

/* ct_optimizer_state_save: bytes out. */
%typemap(in, numinputs=0) (char** data, size_t* size) (char* tmp = NULL, size_t len = 0) {
  $1 = &tmp;
  $2 = &len;
}
%typemap(argout) (char** data, size_t* size) {
  $result = SWIG_Python_AppendOutput($result, PyBytes_FromStringAndSize(tmp$argnum, (Py_ssize_t)len$argnum));
  ct_string_release(tmp$argnum);
}
/* ct_optimizer_state_load: any bytes-like object in. */
%typemap(in) (const void* data, size_t size) (Py_buffer view, int have = 0) {
  if (PyObject_GetBuffer($input, &view, PyBUF_SIMPLE) < 0) SWIG_fail;
  have = 1;
  $1 = view.buf;
  $2 = (size_t)view.len;
}
%typemap(freearg) (const void* data, size_t size) {
  if (have$argnum) PyBuffer_Release(&view$argnum);
}
