// pixel_shuffle.cpp - pixel_shuffle and pixel_unshuffle: channels traded for space (sub-pixel
// convolution's rearrangement) and back, as reshapes around one permute. Composites; any dtype,
// any number of leading batch dims; the result is contiguous, as PyTorch's.
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

struct Image {
  DimVector batch;
  int64_t c, h, w;
};

Image image_of(const char* op, const TensorImpl& t, int64_t factor, const char* factor_name) {
  CT_CHECK(t.dim() >= 3, CT_ERROR_SHAPE, op, ": self ", t.sym_sizes(), " has ", t.dim(),
           " dims; it needs at least 3 (channels, height, width)");
  CT_CHECK(factor > 0, CT_ERROR_INVALID_ARGUMENT, op, ": ", factor_name, " is ", factor, ". Pass a number > 0");
  Image im;
  for (size_t d = 0; d + 3 < t.dim(); ++d) im.batch.push_back(t.sym_size(static_cast<int64_t>(d)).guard_int());
  const size_t n = t.dim();
  im.c = t.sym_size(n - 3).guard_int(), im.h = t.sym_size(n - 2).guard_int(), im.w = t.sym_size(n - 1).guard_int();
  return im;
}

// a * b, failing with the operator's name where the product does not fit int64 (a factor of
// 2^32 squares to 0 in wrapped arithmetic, which would pass the divisibility check).
int64_t size_product(const char* op, const TensorImpl& t, int64_t a, int64_t b, const char* what) {
  int64_t r = 0;
  CT_CHECK(!__builtin_mul_overflow(a, b, &r), CT_ERROR_SHAPE, op, ": ", what, " for self ", t.sym_sizes(), " is ", a,
           " * ", b, ", which overflows int64. Pass a smaller factor");
  return r;
}

DimVector with_batch(const Image& im, std::initializer_list<int64_t> rest) {
  DimVector s = im.batch;
  for (int64_t v : rest) s.push_back(v);
  return s;
}

// Dims 0..nb-1 stay; the tail is permuted by `tail` (indices relative to the batch).
DimVector permutation(size_t nb, std::initializer_list<int64_t> tail) {
  DimVector p;
  for (size_t d = 0; d < nb; ++d) p.push_back(static_cast<int64_t>(d));
  for (int64_t t : tail) p.push_back(static_cast<int64_t>(nb) + t);
  return p;
}

// pixel_shuffle(Tensor self, int upscale_factor): [*, C r^2, H, W] -> [*, C, H r, W r].
void pixel_shuffle_kernel(void*, Frame& f) {
  const Tensor x = Tensor::borrow(&f.tensor(0));
  const int64_t r = f.arg(1).to_int();
  const Image im = image_of("pixel_shuffle", *x, r, "upscale_factor");
  const int64_t r2 = size_product("pixel_shuffle", *x, r, r, "upscale_factor^2");
  CT_CHECK(im.c % r2 == 0, CT_ERROR_SHAPE, "pixel_shuffle: the channel dim (-3) of ", x->sym_sizes(), " is ", im.c,
           ", which upscale_factor^2 = ", r2, " does not divide");
  const int64_t c = im.c / r2;
  const int64_t h = size_product("pixel_shuffle", *x, im.h, r, "the output height");
  const int64_t w = size_product("pixel_shuffle", *x, im.w, r, "the output width");
  const Tensor split = reshape(x, with_batch(im, {c, r, r, im.h, im.w}));
  const Tensor moved = permute(split, permutation(im.batch.size(), {0, 3, 1, 4, 2}));
  f.outs[0] = contiguous(reshape(moved, with_batch(im, {c, h, w})));
}

// pixel_unshuffle(Tensor self, int downscale_factor): [*, C, H r, W r] -> [*, C r^2, H, W].
void pixel_unshuffle_kernel(void*, Frame& f) {
  const Tensor x = Tensor::borrow(&f.tensor(0));
  const int64_t r = f.arg(1).to_int();
  const Image im = image_of("pixel_unshuffle", *x, r, "downscale_factor");
  CT_CHECK(im.h % r == 0 && im.w % r == 0, CT_ERROR_SHAPE, "pixel_unshuffle: height and width of ", x->sym_sizes(),
           " must be divisible by downscale_factor (", r, ")");
  const int64_t h = im.h / r, w = im.w / r;
  const int64_t c = size_product("pixel_unshuffle", *x, im.c, size_product("pixel_unshuffle", *x, r, r, "downscale_factor^2"),
                                 "the output channels");
  const Tensor split = reshape(x, with_batch(im, {im.c, h, r, w, r}));
  const Tensor moved = permute(split, permutation(im.batch.size(), {0, 2, 4, 1, 3}));
  f.outs[0] = contiguous(reshape(moved, with_batch(im, {c, h, w})));
}

}  // namespace

void define_pixel_shuffle(Registry& r) {
  r.def("pixel_shuffle(Tensor self, int upscale_factor) -> Tensor").composite(pixel_shuffle_kernel);
  r.def("pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor").composite(pixel_unshuffle_kernel);
}

}  // namespace ct::ops
