// fold.cpp - im2col and col2im, torch.nn.functional's unfold and fold: the sliding blocks of an
// image as columns, and the columns summed back into an image (the adjoint, so each is the other's
// derivative). Composites: im2col views the padded image through two Tensor.unfold windows and one
// copy; col2im adds every column entry into its padded-image position with one index_add, in
// the order torch's col2im loops (kernel offset, then block), so the sums match.
#include "dispatch/dispatcher.h"
#include "ops/conv/conv_common.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

struct Blocks {
  DimVector k, d, p, s;
  int64_t rows = 0, cols = 0;  // blocks along height and width
};

// The kernel, dilation, padding and stride of im2col(self, kernel_size, dilation, padding, stride)
// and col2im(self, output_size, kernel_size, dilation, padding, stride), from argument `first` on,
// and the block counts of an h x w image.
Blocks blocks_of(const char* op, const Frame& f, size_t first, int64_t h, int64_t w) {
  Blocks b;
  b.k = conv::pair_arg(op, "kernel_size", f.arg(first).int_list());
  b.d = conv::pair_arg(op, "dilation", f.arg(first + 1).int_list());
  b.p = conv::pair_arg(op, "padding", f.arg(first + 2).int_list());
  b.s = conv::pair_arg(op, "stride", f.arg(first + 3).int_list());
  for (int i = 0; i < 2; ++i) {
    CT_CHECK(b.k[i] > 0 && b.d[i] > 0 && b.s[i] > 0 && b.p[i] >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": kernel_size ",
             b.k.ref(), ", dilation ", b.d.ref(), " and stride ", b.s.ref(), " must be positive and padding ", b.p.ref(),
             " not negative");
  }
  const int64_t rows = (h + 2 * b.p[0] - (b.d[0] * (b.k[0] - 1) + 1)) / b.s[0] + 1;
  const int64_t cols = (w + 2 * b.p[1] - (b.d[1] * (b.k[1] - 1) + 1)) / b.s[1] + 1;
  CT_CHECK(h + 2 * b.p[0] >= b.d[0] * (b.k[0] - 1) + 1 && w + 2 * b.p[1] >= b.d[1] * (b.k[1] - 1) + 1 && rows > 0 &&
               cols > 0,
           CT_ERROR_SHAPE, op, ": an image of (", h, ", ", w, ") with padding ", b.p.ref(), " holds no block of kernel_size ",
           b.k.ref(), " and dilation ", b.d.ref(), "; the block counts must be at least one");
  b.rows = rows, b.cols = cols;
  const int64_t products[] = {b.k[0], b.k[1], rows, cols};  // rows x taps: their product must fit int64
  checked_numel(IntArrayRef(products, 4), op);
  return b;
}

// im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor:
// [N, C, H, W] (or [C, H, W]) -> [N, C * kh * kw, L], row (c, ki, kj), column the block.
void im2col_kernel(void*, Frame& f) {
  const char* op = "im2col";
  const Tensor x = Tensor::borrow(&f.tensor(0));
  CT_CHECK(x->dim() == 3 || x->dim() == 4, CT_ERROR_SHAPE, op, ": input is ", x->sym_sizes(),
           "; it takes [C, H, W] or [N, C, H, W]");
  CT_CHECK(is_floating(x->dtype()), CT_ERROR_DTYPE, op, ": input is ", x->dtype(),
           "; it takes floating values, as torch's. Convert them with to(float32)");
  const bool unbatched = x->dim() == 3;
  const Tensor xb = unbatched ? unsqueeze(x, 0) : x;
  for (size_t i = 1; i < 4; ++i)
    CT_CHECK(xb->sym_size(i) != 0, CT_ERROR_SHAPE, op, ": input ", x->sym_sizes(),
             " has an empty channel or spatial dim; only the batch may be empty");
  const int64_t n = xb->sym_size(0).guard_int(), c = xb->sym_size(1).guard_int();
  const Blocks b = blocks_of(op, f, 1, xb->sym_size(2).guard_int(), xb->sym_size(3).guard_int());
  const int64_t columns[] = {c, b.k[0], b.k[1], b.rows, b.cols};  // the result's rows and columns fit int64
  checked_numel(IntArrayRef(columns, 5), op);
  const Tensor padded = constant_pad_nd(xb, {b.p[1], b.p[1], b.p[0], b.p[0]});
  const int64_t eh = b.d[0] * (b.k[0] - 1) + 1, ew = b.d[1] * (b.k[1] - 1) + 1;
  // [N, C, rows, cols, eh, ew]: each block's dilated extent, of which every d-th row and column are taps.
  const Tensor windows = unfold(unfold(padded, 2, eh, b.s[0]), 3, ew, b.s[1]);
  const Tensor taps = slice(slice(windows, 4, 0, eh, b.d[0]), 5, 0, ew, b.d[1]);
  const Tensor cols = reshape(permute(taps, {0, 1, 4, 5, 2, 3}), {n, c * b.k[0] * b.k[1], b.rows * b.cols});
  f.outs[0] = unbatched ? squeeze(cols, 0) : cols;
}

// col2im(Tensor self, int[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding,
// int[2] stride) -> Tensor: [N, C * kh * kw, L] (or without N) -> [N, C, H, W].
void col2im_kernel(void*, Frame& f) {
  const char* op = "col2im";
  const Tensor x = Tensor::borrow(&f.tensor(0));
  CT_CHECK(x->dim() == 2 || x->dim() == 3, CT_ERROR_SHAPE, op, ": input is ", x->sym_sizes(),
           "; it takes [C * kh * kw, L] or [N, C * kh * kw, L]");
  CT_CHECK(is_floating(x->dtype()), CT_ERROR_DTYPE, op, ": input is ", x->dtype(),
           "; it takes floating values, as torch's. Convert them with to(float32)");
  const DimVector size = conv::pair_arg(op, "output_size", f.arg(1).int_list());
  CT_CHECK(size[0] > 0 && size[1] > 0, CT_ERROR_INVALID_ARGUMENT, op, ": output_size ", size.ref(), " must be positive");
  const Blocks b = blocks_of(op, f, 2, size[0], size[1]);
  const bool unbatched = x->dim() == 2;
  const Tensor xb = unbatched ? unsqueeze(x, 0) : x;
  const int64_t n = xb->sym_size(0).guard_int(), rows = xb->sym_size(1).guard_int(), l = xb->sym_size(2).guard_int();
  const int64_t kk = b.k[0] * b.k[1];
  CT_CHECK(rows > 0 && rows % kk == 0, CT_ERROR_SHAPE, op, ": input ", x->sym_sizes(), " has ", rows,
           " rows; it needs a positive multiple of kernel_size's ", kk, " (one row per channel and kernel offset)");
  CT_CHECK(l == b.rows * b.cols, CT_ERROR_SHAPE, op, ": input ", x->sym_sizes(), " has ", l, " blocks; output_size ",
           size.ref(), " with kernel_size ", b.k.ref(), ", dilation ", b.d.ref(), ", padding ", b.p.ref(), " and stride ",
           b.s.ref(), " has ", b.rows, " x ", b.cols, " = ", b.rows * b.cols);
  const int64_t c = rows / kk, hp = size[0] + 2 * b.p[0], wp = size[1] + 2 * b.p[1];
  // The padded-image position of (ki, kj, block row, block column), in the input's order.
  const Device dev = x->device();
  const auto steps = [&](int64_t count, int64_t step) {
    return mul(arange(Scalar(0), Scalar(count), Scalar(1), DType::Int64, dev), Scalar(step));
  };
  const Tensor tap_rows = reshape(steps(b.k[0], b.d[0]), {b.k[0], 1, 1, 1});
  const Tensor tap_cols = reshape(steps(b.k[1], b.d[1]), {1, b.k[1], 1, 1});
  const Tensor block_rows = reshape(steps(b.rows, b.s[0]), {1, 1, b.rows, 1});
  const Tensor block_cols = reshape(steps(b.cols, b.s[1]), {1, 1, 1, b.cols});
  const Tensor position =
      reshape(add(mul(add(tap_rows, block_rows), Scalar(wp)), add(tap_cols, block_cols)), {kk * l});
  const Tensor zeros = full({n, c, hp * wp}, Scalar(0), x->dtype(), dev);
  const Tensor image = reshape(index_add(zeros, 2, position, reshape(xb, {n, c, kk * l})), {n, c, hp, wp});
  const Tensor out = contiguous(narrow(narrow(image, 2, b.p[0], size[0]), 3, b.p[1], size[1]));
  f.outs[0] = unbatched ? squeeze(out, 0) : out;
}

}  // namespace

void define_fold(Registry& r) {
  r.def("im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor")
      .composite(im2col_kernel);
  r.def("col2im(Tensor self, int[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, "
        "int[2] stride) -> Tensor")
      .composite(col2im_kernel);
}

}  // namespace ct::ops
