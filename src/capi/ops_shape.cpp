// ops_shape.cpp - the typed functions of the shape family: repeat, roll, flip, tril, triu,
// diagonal, movedim, broadcast_to, pad, and split, split_with_sizes, chunk and unbind, which hand
// back a caller-sized array of handles (see Note [Handle lists] in ctorch.h's block).
#include <vector>

#include "capi/handle.h"
#include "core/error.h"
#include "dispatch/dispatcher.h"
#include "ops/functions.h"

using namespace ct;
using capi::int_list_arg;
using capi::tensor_arg;

namespace {

// The common shape of the list functions: outs[0, capacity) and *count cleared, the pieces
// computed, then either only counted (outs NULL, capacity 0), refused (too little room: *count
// still says how much is needed), or handed over as new references.
template <typename F>
// Only outs[0, *count) is ever written, so a capacity larger than the caller's array cannot make
// the library write past it (Note [Handle lists] in ctorch.h).
ct_status list_result(const char* fn, ct_tensor** outs, size_t capacity, size_t* count, F&& body) {
  if (count) *count = 0;
  return capi::guard([&] {
    capi::require_out(count, fn, "count");
    CT_CHECK(outs || capacity == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": outs is NULL but capacity is ", capacity,
             ". Pass NULL with capacity 0 to ask for the count, or an array of capacity handles");
    std::vector<Tensor> pieces = body();
    *count = pieces.size();
    if (!outs) return;
    CT_CHECK(capacity >= pieces.size(), CT_ERROR_INVALID_ARGUMENT, fn, ": the result has ", pieces.size(),
             " tensors but capacity is ", capacity, ". Pass an array of at least *count handles");
    for (size_t i = 0; i < pieces.size(); ++i) outs[i] = capi::to_handle(std::move(pieces[i]));
  });
}

}  // namespace

extern "C" {

ct_status ct_tensor_repeat(const ct_tensor* a, const int64_t* repeats, size_t n, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_repeat", [&] {
    CT_OPERATOR(op, "repeat");
    return call(op, {&tensor_arg(a, "ct_tensor_repeat", "a"), int_list_arg(repeats, n, "ct_tensor_repeat", "repeats")});
  });
}

ct_status ct_tensor_roll(const ct_tensor* a, const int64_t* shifts, const int64_t* dims, size_t n, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_roll", [&] {
    CT_OPERATOR(op, "roll");
    const TensorImpl& t = tensor_arg(a, "ct_tensor_roll", "a");
    return call(op, {&t, int_list_arg(shifts, n, "ct_tensor_roll", "shifts"), dims ? IntArrayRef(dims, n) : IntArrayRef()});
  });
}

ct_status ct_tensor_flip(const ct_tensor* a, const int64_t* dims, size_t n, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_flip", [&] {
    CT_OPERATOR(op, "flip");
    return call(op, {&tensor_arg(a, "ct_tensor_flip", "a"), int_list_arg(dims, n, "ct_tensor_flip", "dims")});
  });
}

ct_status ct_tensor_tril(const ct_tensor* a, int64_t diagonal, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_tril", [&] {
    CT_OPERATOR(op, "tril");
    return call(op, {&tensor_arg(a, "ct_tensor_tril", "a"), diagonal});
  });
}

ct_status ct_tensor_triu(const ct_tensor* a, int64_t diagonal, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_triu", [&] {
    CT_OPERATOR(op, "triu");
    return call(op, {&tensor_arg(a, "ct_tensor_triu", "a"), diagonal});
  });
}

ct_status ct_tensor_diagonal(const ct_tensor* a, int64_t offset, int64_t dim1, int64_t dim2, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_diagonal", [&] {
    CT_OPERATOR(op, "diagonal");
    return call(op, {&tensor_arg(a, "ct_tensor_diagonal", "a"), offset, dim1, dim2});
  });
}

ct_status ct_tensor_movedim(const ct_tensor* a, const int64_t* source, const int64_t* destination, size_t n,
                            ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_movedim", [&] {
    CT_OPERATOR(op, "movedim.intlist");
    return call(op, {&tensor_arg(a, "ct_tensor_movedim", "a"), int_list_arg(source, n, "ct_tensor_movedim", "source"),
                     int_list_arg(destination, n, "ct_tensor_movedim", "destination")});
  });
}

ct_status ct_tensor_broadcast_to(const ct_tensor* a, const int64_t* sizes, size_t n, ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_broadcast_to", [&] {
    CT_OPERATOR(op, "broadcast_to");
    return call(op, {&tensor_arg(a, "ct_tensor_broadcast_to", "a"), int_list_arg(sizes, n, "ct_tensor_broadcast_to", "sizes")});
  });
}

ct_status ct_tensor_pad(const ct_tensor* a, const int64_t* pad, size_t n, const char* mode, const ct_scalar* value,
                        ct_tensor** out) {
  return capi::tensor_result(out, "ct_tensor_pad", [&] {
    CT_OPERATOR(op, "pad");
    const TensorImpl& t = tensor_arg(a, "ct_tensor_pad", "a");
    const Value v = value ? Value(capi::scalar_arg(value, "ct_tensor_pad", "value").to_double()) : Value();
    return call(op, {&t, int_list_arg(pad, n, "ct_tensor_pad", "pad", 2 * kMaxDims), mode ? mode : "constant", v});
  });
}

ct_status ct_tensor_split(const ct_tensor* a, int64_t split_size, int64_t dim, ct_tensor** outs, size_t capacity,
                          size_t* count) {
  return list_result("ct_tensor_split", outs, capacity, count, [&] {
    return ops::split(Tensor::borrow(&tensor_arg(a, "ct_tensor_split", "a")), split_size, dim);
  });
}

ct_status ct_tensor_split_with_sizes(const ct_tensor* a, const int64_t* sizes, size_t n, int64_t dim,
                                     ct_tensor** outs, size_t capacity, size_t* count) {
  return list_result("ct_tensor_split_with_sizes", outs, capacity, count, [&] {
    const TensorImpl& t = tensor_arg(a, "ct_tensor_split_with_sizes", "a");
    return ops::split_with_sizes(Tensor::borrow(&t), int_list_arg(sizes, n, "ct_tensor_split_with_sizes", "sizes", SIZE_MAX), dim);
  });
}

ct_status ct_tensor_chunk(const ct_tensor* a, int64_t chunks, int64_t dim, ct_tensor** outs, size_t capacity,
                          size_t* count) {
  return list_result("ct_tensor_chunk", outs, capacity, count, [&] {
    return ops::chunk(Tensor::borrow(&tensor_arg(a, "ct_tensor_chunk", "a")), chunks, dim);
  });
}

ct_status ct_tensor_unbind(const ct_tensor* a, int64_t dim, ct_tensor** outs, size_t capacity, size_t* count) {
  return list_result("ct_tensor_unbind", outs, capacity, count, [&] {
    return ops::unbind(Tensor::borrow(&tensor_arg(a, "ct_tensor_unbind", "a")), dim);
  });
}

}  // extern "C"
