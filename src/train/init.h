// init.h - torch.nn.init: fans, gains and the initializers, drawing from ctorch's Philox generators.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace ct::runtime {
class Generator;
}

namespace ct::train {

struct Fans {
  int64_t in, out;
};
/// torch.nn.init._calculate_fan_in_and_fan_out; CT_ERROR_SHAPE naming fn below 2 dims.
Fans fans_of(const TensorImpl& t, const char* fn);
/// torch.nn.init.calculate_gain; CT_ERROR_INVALID_ARGUMENT naming fn for an unknown name.
double calculate_gain(const char* nonlinearity, double param, const char* fn);

/// t.uniform_(a, b) / t.normal_(mean, std) with grad mode off (gen null: the device's default).
void init_uniform(const Tensor& t, double a, double b, runtime::Generator* gen);
void init_normal(const Tensor& t, double mean, double std, runtime::Generator* gen);
void init_xavier_uniform(const Tensor& t, double gain, runtime::Generator* gen, const char* fn);
void init_xavier_normal(const Tensor& t, double gain, runtime::Generator* gen, const char* fn);
/// mode "fan_in" or "fan_out" (null: "fan_in"); nonlinearity null: "leaky_relu".
void init_kaiming(const Tensor& t, bool uniform, double a, const char* mode, const char* nonlinearity,
                  runtime::Generator* gen, const char* fn);
/// torch.nn.init.trunc_normal_: N(mean, std^2) restricted to [a, b] (inverse-CDF sampling).
void init_trunc_normal(const Tensor& t, double mean, double std, double a, double b, runtime::Generator* gen,
                       const char* fn);
/// torch.nn.init.orthogonal_: the sign-corrected Q of a Gaussian matrix's QR, times gain.
void init_orthogonal(const Tensor& t, double gain, runtime::Generator* gen, const char* fn);
/// torch.nn.init.sparse_: N(0, std^2) with ceil(sparsity * rows) zeros in each column (2-D).
void init_sparse(const Tensor& t, double sparsity, double std, runtime::Generator* gen, const char* fn);
/// torch.nn.init.eye_ (2-D) and dirac_ (3-D to 5-D, groups dividing dim 0).
void init_eye(const Tensor& t, const char* fn);
void init_dirac(const Tensor& t, int64_t groups, const char* fn);
/// Linear's and ConvNd's reset_parameters; bias may be undefined.
void init_linear(const Tensor& weight, const Tensor& bias, runtime::Generator* gen, const char* fn);

}  // namespace ct::train
