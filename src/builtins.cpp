// builtins.cpp - the composition root: defines every built-in operator, explicitly, on the
// registry's first use (see registry.h for why there are no static initializers), then installs
// autograd and the CUDA kernels over them. It sits above every layer (DESIGN.md section 1), as the
// one place that knows them all; nothing includes it.
#include "autograd/autograd.h"
#include "cuda/kernels.h"
#include "cuda/backend.h"
#include "dispatch/registry.h"

namespace ct {
namespace ops {
void define_factories(Registry& r);
void define_windows(Registry& r);
void define_copy(Registry& r);
void define_binary_ops(Registry& r);
void define_complex(Registry& r);
void define_unary_ops(Registry& r);
void define_activations(Registry& r);
void define_ternary_ops(Registry& r);
void define_where_clamp(Registry& r);
void define_closeness(Registry& r);
void define_classify(Registry& r);
void define_views(Registry& r);
void define_cat(Registry& r);
void define_repeat(Registry& r);
void define_combinations(Registry& r);
void define_as_strided(Registry& r);
void define_triangle(Registry& r);
void define_moves(Registry& r);
void define_pad(Registry& r);
void define_reductions(Registry& r);
void define_extrema(Registry& r);
void define_stats(Registry& r);
void define_norms(Registry& r);
void define_scans(Registry& r);
void define_sort(Registry& r);
void define_select(Registry& r);
void define_unique(Registry& r);
void define_mm(Registry& r);
void define_matmul(Registry& r);
void define_matrix_functions(Registry& r);
void define_lu(Registry& r);
void define_cholesky(Registry& r);
void define_qr(Registry& r);
void define_spectral(Registry& r);
void define_eig(Registry& r);
void define_lowrank(Registry& r);
void define_fft_transforms(Registry& r);
void define_fft_functions(Registry& r);
void define_stft(Registry& r);
void define_random(Registry& r);
void define_sampling(Registry& r);
void define_softmax(Registry& r);
void define_layer_norm(Registry& r);
void define_batch_group_rms_norms(Registry& r);
void define_losses(Registry& r);
void define_margin_losses(Registry& r);
void define_distances(Registry& r);
void define_pixel_shuffle(Registry& r);
void define_one_hot(Registry& r);
void define_rnn(Registry& r);
void define_aliases(Registry& r);
void define_pool_forms(Registry& r);
void define_quantile(Registry& r);
void define_histogram(Registry& r);
void define_searchsorted(Registry& r);
void define_covariance(Registry& r);
void define_upsample(Registry& r);
void define_attention(Registry& r);
void define_conv(Registry& r);
void define_conv_forms(Registry& r);
void define_fold(Registry& r);
void define_pool(Registry& r);
void define_linalg_products(Registry& r);
void define_einsum(Registry& r);
void define_index_dim(Registry& r);
void define_scatter_gather(Registry& r);
void define_masked(Registry& r);
void define_take_put(Registry& r);
void define_embedding(Registry& r);
void define_advanced_index(Registry& r);
void install_autocast(Registry& r);
}  // namespace ops

void register_builtin_operators(Registry& r) {
  cuda::install_backend();  // loads nothing: CUDA is touched on first use
  ops::define_factories(r);
  ops::define_windows(r);
  ops::define_copy(r);
  ops::define_binary_ops(r);
  ops::define_unary_ops(r);
  ops::define_activations(r);
  ops::define_ternary_ops(r);
  ops::define_where_clamp(r);
  ops::define_complex(r);
  ops::define_closeness(r);
  ops::define_classify(r);
  ops::define_views(r);
  ops::define_cat(r);
  ops::define_repeat(r);
  ops::define_combinations(r);
  ops::define_as_strided(r);
  ops::define_triangle(r);
  ops::define_moves(r);
  ops::define_pad(r);
  ops::define_reductions(r);
  ops::define_extrema(r);
  ops::define_stats(r);
  ops::define_norms(r);
  ops::define_scans(r);
  ops::define_sort(r);
  ops::define_select(r);
  ops::define_unique(r);
  ops::define_mm(r);
  ops::define_matmul(r);
  ops::define_matrix_functions(r);
  ops::define_lu(r);
  ops::define_cholesky(r);
  ops::define_qr(r);
  ops::define_spectral(r);
  ops::define_eig(r);
  ops::define_lowrank(r);
  ops::define_fft_transforms(r);
  ops::define_fft_functions(r);
  ops::define_stft(r);
  ops::define_random(r);
  ops::define_sampling(r);
  ops::define_softmax(r);
  ops::define_layer_norm(r);
  ops::define_batch_group_rms_norms(r);
  ops::define_losses(r);
  ops::define_margin_losses(r);
  ops::define_distances(r);
  ops::define_pixel_shuffle(r);
  ops::define_one_hot(r);
  ops::define_rnn(r);
  ops::define_quantile(r);
  ops::define_histogram(r);
  ops::define_searchsorted(r);
  ops::define_covariance(r);
  ops::define_upsample(r);
  ops::define_attention(r);
  ops::define_conv(r);
  ops::define_conv_forms(r);
  ops::define_fold(r);
  ops::define_pool(r);
  ops::define_pool_forms(r);
  ops::define_linalg_products(r);
  ops::define_einsum(r);
  ops::define_index_dim(r);
  ops::define_scatter_gather(r);
  ops::define_masked(r);
  ops::define_take_put(r);
  ops::define_embedding(r);
  ops::define_advanced_index(r);
  ops::define_aliases(r);  // after every operator an alias names
  ops::install_autocast(r);
  autograd::install(r);
  cuda::register_cuda_kernels(r);
}

}  // namespace ct
