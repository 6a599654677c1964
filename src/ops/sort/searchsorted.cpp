// searchsorted.cpp - searchsorted and bucketize: where values would be inserted into a sorted
// sequence to keep it sorted (the first such place, or the last with right=True), as torch has them;
// and isin, membership by binary search in the sorted test elements.
//
// A binary search per value on the host (Note [Values read on the host]): the sequence and values
// are copied there in their common dtype, and the indices copied back to their device. A meta input
// gets indices of the values' shape. The result has no derivative (indices).
#include <algorithm>
#include <cstring>
#include <vector>

#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "runtime/defaults.h"

namespace ct::ops {
namespace {

// Indices [..., M] for values [..., M] in seq [..., N] (or one 1-D seq for every row of values).
// Binary search with torch's predicates, so NaNs land where torch's do: a value goes after every
// element e with !(e >= v) (left) or !(e > v) (right), which a NaN value or element always satisfies.
template <typename T>
int64_t bound(const T* s, int64_t n, T v, bool right) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const bool before = right ? !(s[mid] > v) : !(s[mid] >= v);
    if (before) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Indices [..., M] for values [..., M] in seq [..., N] (or one 1-D seq for every row of values).
template <typename T>
void search(const T* seq, int64_t n, bool one_seq, const T* values, int64_t rows, int64_t m, bool right,
            int64_t* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* s = one_seq ? seq : seq + r * n;
    for (int64_t j = 0; j < m; ++j) out[r * m + j] = bound(s, n, values[r * m + j], right);
  }
}

Tensor search_sorted(const char* op, const Tensor& seq, const Tensor& values, bool out_int32, bool right) {
  CT_CHECK(seq->dim() >= 1, CT_ERROR_SHAPE, op, ": the sorted sequence is ", seq->sym_sizes(),
           "; it takes at least one dim");
  const bool one_seq = seq->dim() == 1;
  bool leading_match = !one_seq && seq->dim() == values->dim();
  for (size_t d = 0; leading_match && d + 1 < seq->dim(); ++d) {
    leading_match = static_cast<bool>(seq->sym_size(d) == values->sym_size(d));
  }
  CT_CHECK(one_seq || leading_match, CT_ERROR_SHAPE, op, ": sorted sequence ", seq->sym_sizes(), " and values ",
           values->sym_sizes(), " must share every dim but the last, or the sequence must be 1-D");
  CT_CHECK(seq->dtype() != DType::Bool && values->dtype() != DType::Bool, CT_ERROR_DTYPE, op,
           ": bool sequences and values have no order here. Convert them to an integer dtype");
  const DType out_dtype = out_int32 ? DType::Int32 : DType::Int64;
  if (values->device().is_meta() || seq->device().is_meta()) {
    return empty_like_sizes(*values, out_dtype);
  }
  const DType common = promote_types(seq->dtype(), values->dtype());
  const Tensor s = host_contiguous(to(seq, common)), v = host_contiguous(to(values, common));
  const int64_t n = s->size(s->dim() - 1);
  const int64_t m = v->dim() == 0 ? 1 : v->size(v->dim() - 1);
  const int64_t rows = m == 0 ? 0 : v->numel() / m;
  Tensor out = empty(v->sizes(), DType::Int64, Device{});
  visit_dtype<kNumericDTypes>(common, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    search<T>(s->data_as<T>(), n, one_seq, v->data_as<T>(), rows, m, right, out->data_as<int64_t>());
  });
  CT_CHECK(!out_int32 || n <= INT32_MAX, CT_ERROR_INVALID_ARGUMENT, op, ": out_int32 cannot hold index ", n,
           "; pass out_int32=False");
  return to(out, values->device(), out_dtype);
}

// right=True, or side='right'; both given must agree, as torch checks.
bool read_side(const char* op, bool right, const Value& side) {
  if (side.is_none()) return right;
  const bool side_right = std::strcmp(side.str(), "right") == 0;
  CT_CHECK(side_right || std::strcmp(side.str(), "left") == 0, CT_ERROR_INVALID_ARGUMENT, op, ": side is '",
           side.str(), "'; pass 'left' or 'right'");
  CT_CHECK(!right || side_right, CT_ERROR_INVALID_ARGUMENT, op,
           ": side='left' and right=True disagree. Pass one of them");
  return side_right;
}

// searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False,
//     str? side=None, Tensor? sorter=None) -> Tensor; .Scalar takes one value.
// A number searched as a 0-dim tensor in the sequence's dtype (a float in an integer sequence
// searches in the default float dtype), as a wrapped number promotes.
Tensor scalar_value(const Scalar& v, const Tensor& seq) {
  const DType dt = v.is_floating() && !is_floating(seq->dtype()) ? runtime::default_dtype() : seq->dtype();
  return full({}, v, dt, seq->device());
}

template <bool ScalarValue>
void searchsorted_kernel(void*, Frame& f) {
  const char* op = "searchsorted";
  Tensor seq = Tensor::borrow(&f.tensor(0));
  const Tensor values = ScalarValue ? scalar_value(f.arg(1).to_scalar(), seq) : Tensor::borrow(&f.tensor(1));
  const bool right = read_side(op, f.arg(3).to_bool(), f.arg(4));
  if (!f.arg(5).is_none()) {  // sorter: the indices that sort each row of the sequence
    const Tensor sorter = Tensor::borrow(&f.tensor(5));
    CT_CHECK(sorter->dtype() == DType::Int64 && identical(sorter->sym_sizes(), seq->sym_sizes()), CT_ERROR_SHAPE,
             op, ": sorter is ", sorter->dtype(), " ", sorter->sym_sizes(), "; it takes int64 indices of the "
             "sequence's shape ", seq->sym_sizes());
    seq = gather(seq, -1, sorter);
  }
  f.outs[0] = search_sorted(op, seq, values, f.arg(2).to_bool(), right);
}

// bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False)
template <bool ScalarValue>
void bucketize_kernel(void*, Frame& f) {
  const char* op = "bucketize";
  const Tensor boundaries = Tensor::borrow(&f.tensor(1));
  const Tensor values =
      ScalarValue ? scalar_value(f.arg(0).to_scalar(), boundaries) : Tensor::borrow(&f.tensor(0));
  CT_CHECK(boundaries->dim() == 1, CT_ERROR_SHAPE, op, ": boundaries is ", boundaries->sym_sizes(),
           "; it takes a 1-D tensor (searchsorted takes one sequence per row)");
  f.outs[0] = search_sorted(op, boundaries, values, f.arg(2).to_bool(), f.arg(3).to_bool());
}

// isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False,
//     bool invert=False) -> Tensor, .Tensor_Scalar and .Scalar_Tensor (a number as a wrapped 0-dim
// tensor): whether each element equals one of the test elements, compared in the promoted dtype
// (NaN equals nothing, -0.0 equals 0.0). The test elements are sorted once on the host and each
// element binary-searched; assume_unique changes nothing here.
template <int Form>  // 0: Tensor_Tensor, 1: Tensor_Scalar, 2: Scalar_Tensor
void isin_kernel(void*, Frame& f) {
  const char* op = "isin";
  const Tensor elements = Form == 2 ? wrap_scalar(f.arg(0).to_scalar()) : Tensor::borrow(&f.tensor(0));
  const Tensor test = Form == 1 ? wrap_scalar(f.arg(1).to_scalar()) : Tensor::borrow(&f.tensor(1));
  const Device device = Form == 2 ? test->device() : elements->device();
  CT_CHECK(elements->dtype() != DType::Bool && test->dtype() != DType::Bool, CT_ERROR_DTYPE, op, ": elements (",
           elements->dtype(), ") and test_elements (", test->dtype(), ") must not be bool. Convert them with to()");
  CT_CHECK(Form != 0 || elements->device() == test->device(), CT_ERROR_DEVICE, op, ": elements are on ",
           elements->device(), " and test_elements on ", test->device(), ". Move them to one device");
  const bool invert = f.arg(3).to_bool();
  if (device.is_meta()) {
    f.outs[0] = empty_symint(elements->sym_sizes(), DType::Bool, device);
    return;
  }
  ResultType rt;
  rt.add(*elements), rt.add(*test);
  const DType common = rt.result();
  const Tensor e = host_contiguous(to(elements, common)), t = host_contiguous(to(test, common));
  Tensor out = empty(e->sizes(), DType::Bool, Device{});
  visit_dtype<kNumericDTypes>(common, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    std::vector<A> sorted;
    sorted.reserve(static_cast<size_t>(t->numel()));
    for (int64_t i = 0; i < t->numel(); ++i) {
      const A x = static_cast<A>(t->data_as<T>()[i]);
      if (x == x) sorted.push_back(x);  // NaN matches nothing, and would break the order
    }
    std::sort(sorted.begin(), sorted.end());
    const T* in = e->data_as<T>();
    bool* o = out->data_as<bool>();
    for (int64_t i = 0; i < e->numel(); ++i) {
      const A x = static_cast<A>(in[i]);  // a NaN compares equivalent to everything: test it first
      o[i] = (x == x && std::binary_search(sorted.begin(), sorted.end(), x)) != invert;
    }
  });
  f.outs[0] = to(out, device, DType::Bool);
}

}  // namespace

void define_searchsorted(Registry& r) {
  const std::string opts = "*, bool out_int32=False, bool right=False";
  r.def("searchsorted.Tensor(Tensor sorted_sequence, Tensor self, " + opts + ", str? side=None, Tensor? sorter=None)"
        " -> Tensor")
      .composite(searchsorted_kernel<false>)
      .not_differentiable();
  r.def("searchsorted.Scalar(Tensor sorted_sequence, Scalar self, " + opts + ", str? side=None, Tensor? sorter=None)"
        " -> Tensor")
      .composite(searchsorted_kernel<true>)
      .not_differentiable();
  r.def("bucketize.Tensor(Tensor self, Tensor boundaries, " + opts + ") -> Tensor")
      .composite(bucketize_kernel<false>)
      .not_differentiable();
  r.def("bucketize.Scalar(Scalar self, Tensor boundaries, " + opts + ") -> Tensor")
      .composite(bucketize_kernel<true>)
      .not_differentiable();
  const std::string isin_opts = "*, bool assume_unique=False, bool invert=False) -> Tensor";
  r.def("isin.Tensor_Tensor(Tensor elements, Tensor test_elements, " + isin_opts)
      .composite(isin_kernel<0>)
      .not_differentiable();
  r.def("isin.Tensor_Scalar(Tensor elements, Scalar test_element, " + isin_opts)
      .composite(isin_kernel<1>)
      .not_differentiable();
  r.def("isin.Scalar_Tensor(Scalar element, Tensor test_elements, " + isin_opts)
      .composite(isin_kernel<2>)
      .not_differentiable();
}

}  // namespace ct::ops
