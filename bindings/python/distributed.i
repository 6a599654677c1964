/* distributed.i - typemaps for the distributed section of ctorch.h (process groups, collectives,
 * work handles), %included by ctorch.i before the header. ctorch/distributed uses it.
 *
 *   - ct_process_group and ct_work handles travel like tensors (the address as an int; the Python
 *     ProcessGroup and Work objects in ctorch/distributed own one each);
 *   - `ct_work** work` is the Python async_op flag: False passes NULL (the call waits, and returns
 *     None), True returns the new work handle;
 *   - tensor lists are sequences of tensor handles; rank lists sequences of ints;
 *   - ct_dist_all_to_all's two lists come as one (outputs, inputs) pair. */

%typemap(in) ct_process_group*, const ct_process_group*, ct_work*, const ct_work* {
  $1 = $input == Py_None ? NULL : ($1_ltype)PyLong_AsVoidPtr($input);
  if (PyErr_Occurred()) SWIG_fail;
}
%typemap(in, numinputs=0) ct_process_group** out (ct_process_group* tmp = NULL) { $1 = &tmp; }
%typemap(argout) ct_process_group** out { $result = SWIG_Python_AppendOutput($result, PyLong_FromVoidPtr(tmp$argnum)); }

%typemap(in) ct_work** work (ct_work* tmp = NULL) {
  const int want = PyObject_IsTrue($input);
  if (want < 0) SWIG_fail;
  $1 = want ? &tmp : NULL;
}
%typemap(argout) ct_work** work {
  PyObject* handle = tmp$argnum ? PyLong_FromVoidPtr(tmp$argnum) : (Py_INCREF(Py_None), Py_None);
  $result = SWIG_Python_AppendOutput($result, handle);
}

%typemap(in) ct_reduce_op { $1 = (ct_reduce_op)PyLong_AsLong($input); if (PyErr_Occurred()) SWIG_fail; }

%typemap(in) (ct_tensor* const* outputs, size_t n_outputs), (const ct_tensor* const* inputs, size_t n_inputs) {
  const ct_tensor** handles = NULL;
  if (ct_py_handles($input, &handles, &$2) < 0) SWIG_fail;
  $1 = ($1_ltype)handles;
}
%typemap(freearg) (ct_tensor* const* outputs, size_t n_outputs), (const ct_tensor* const* inputs, size_t n_inputs) {
  free((void*)$1);
}

%typemap(in) (ct_tensor* const* outputs, const ct_tensor* const* inputs, size_t n) {
  PyObject *outs = NULL, *ins = NULL;
  if (!PyArg_ParseTuple($input, "OO", &outs, &ins)) SWIG_fail;
  const ct_tensor** o = NULL;
  const ct_tensor** i = NULL;
  size_t no = 0, ni = 0;
  if (ct_py_handles(outs, &o, &no) < 0) SWIG_fail;
  if (ct_py_handles(ins, &i, &ni) < 0) { free((void*)o); SWIG_fail; }
  if (no != ni) {
    free((void*)o);
    free((void*)i);
    PyErr_Format(PyExc_ValueError, "all_to_all: %zu output tensors for %zu input tensors", no, ni);
    SWIG_fail;
  }
  $1 = (ct_tensor* const*)o;
  $2 = i;
  $3 = no;
}
%typemap(freearg) (ct_tensor* const* outputs, const ct_tensor* const* inputs, size_t n) {
  free((void*)$1);
  free((void*)$2);
}

%typemap(in) (const int* ranks, size_t n_ranks) {
  PyObject* fast = PySequence_Fast($input, "expected a sequence of ranks");
  if (!fast) SWIG_fail;
  $2 = (size_t)PySequence_Fast_GET_SIZE(fast);
  $1 = (int*)malloc(sizeof(int) * ($2 ? $2 : 1));
  for (size_t i = 0; i < $2; ++i) ((int*)$1)[i] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, (Py_ssize_t)i));
  Py_DECREF(fast);
  if (PyErr_Occurred()) { free((void*)$1); SWIG_fail; }
}
%typemap(freearg) (const int* ranks, size_t n_ranks) { free((void*)$1); }
