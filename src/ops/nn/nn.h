// nn.h - what the nn family's files share: the fused softmax rows used by attention, and loss
// reductions.
#pragma once

#include "core/tensor.h"
#include "dispatch/grad_ctx.h"

namespace ct::ops {

/// In place over `rows` rows of k contiguous float32: row r becomes softmax(row); with causal, only
/// its first min(k, first_row + r + 1) entries take part and the rest become 0.
void softmax_rows_f32(float* x, int64_t rows, int64_t k, bool causal, int64_t first_row);

/// The loss reduction of aten's `int reduction`: 0 none, 1 mean, 2 sum (checked: CT_ERROR_INVALID_ARGUMENT).
enum class Reduction : int64_t { None = 0, Mean = 1, Sum = 2 };
Reduction to_reduction(const char* op, int64_t r);
/// loss itself, its mean or its sum over every element.
Tensor reduce_loss(const Tensor& loss, Reduction r);

/// t in float32 when it is float16/bfloat16: losses compute in float32 and round once at the end.
Tensor in_loss_precision(const Tensor& t);
/// The dtype a and b promote to.
DType promoted(const Tensor& a, const Tensor& b);
/// The dtype a and b promote to, which must be floating (CT_ERROR_DTYPE naming op otherwise).
DType floating_pair(const char* op, const Tensor& a, const Tensor& b);

/// Whether the optional tensor argument called arg was given to the forward call (derivatives only).
inline bool given(const autograd::GradCtx& c, std::string_view arg) { return c.list_size(arg) == 1; }

}  // namespace ct::ops
