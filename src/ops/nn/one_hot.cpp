// one_hot.cpp - one_hot: int64 class indices to rows of zeros with a one at each class, as
// torch.nn.functional.one_hot. A composite (a comparison with arange); the number of classes, when
// not given, is read from the data (Note [Values read on the host]), so that form is not available
// on the meta device.
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// one_hot(Tensor self, int num_classes=-1) -> Tensor
void one_hot_kernel(void*, Frame& f) {
  const Tensor x = Tensor::borrow(&f.tensor(0));
  int64_t classes = f.arg(1).to_int();
  CT_CHECK(x->dtype() == DType::Int64, CT_ERROR_DTYPE, "one_hot: self is ", x->dtype(), " ", x->sym_sizes(),
           "; it takes class indices as int64. Convert them with to(int64)");
  const bool empty = x->device().is_meta() ? false : x->numel() == 0;
  if (empty) {
    CT_CHECK(classes > 0, CT_ERROR_INVALID_ARGUMENT, "one_hot: self ", x->sym_sizes(),
             " is empty, so the number of classes cannot be read from it. Pass num_classes > 0");
  } else if (!x->device().is_meta()) {  // Note [Values read on the host]
    const Tensor lo = host_contiguous(amin(x, {}, false)), hi = host_contiguous(amax(x, {}, false));
    const int64_t l = *lo->data_as<int64_t>(), h = *hi->data_as<int64_t>();
    CT_CHECK(l >= 0, CT_ERROR_INVALID_ARGUMENT, "one_hot: self holds the negative class ", l, "; classes are >= 0");
    if (classes == -1) classes = h + 1;
    CT_CHECK(classes > h, CT_ERROR_INVALID_ARGUMENT, "one_hot: self holds class ", h, ", which num_classes (", classes,
             ") does not reach. Pass num_classes > ", h, ", or -1 to count them from the data");
  } else {
    CT_CHECK(classes != -1, CT_ERROR_NOT_IMPLEMENTED, "one_hot: num_classes -1 reads the classes from the data, "
             "which a meta tensor lacks. Pass num_classes");
    CT_CHECK(classes >= 0, CT_ERROR_INVALID_ARGUMENT, "one_hot: num_classes is ", classes,
             ". Pass a number of classes, or -1 to count them from the data");
  }
  const Tensor classes_row = arange(0, classes, 1, DType::Int64, x->device());
  f.outs[0] = to(eq(unsqueeze(x, -1), classes_row), DType::Int64);
}

}  // namespace

void define_one_hot(Registry& r) {
  r.def("one_hot(Tensor self, int num_classes=-1) -> Tensor").composite(one_hot_kernel).not_differentiable();
}

}  // namespace ct::ops
