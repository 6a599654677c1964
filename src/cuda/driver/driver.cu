// driver.cu - the versioned table of ct_cuda_driver.h and its one exported entry point.
#include "members.h"

namespace ct::cuda {
namespace {

// Filled member by member, by name: many members share a signature (int (*)(void*)), so a
// positional initializer could swap two of them silently.
ct_cuda_driver make_v1() {
  ct_cuda_driver d{};
  d.struct_size = sizeof(ct_cuda_driver);
  d.version = CT_CUDA_DRIVER_VERSION;
  d.last_error = last_error_message;
  d.device_count = device_count;
  d.set_device = set_device;
  d.get_device = get_device;
  d.device_properties = device_properties;
  d.mem_get_info = mem_get_info;
  d.synchronize_device = synchronize_device;
  d.malloc = device_malloc;
  d.free = device_free;
  d.host_alloc_pinned = host_alloc_pinned;
  d.host_free_pinned = host_free_pinned;
  d.memcpy_async = memcpy_async;
  d.memset_async = memset_async;
  d.stream_create = stream_create;
  d.stream_destroy = stream_destroy;
  d.stream_synchronize = stream_synchronize;
  d.stream_query = stream_query;
  d.event_create = event_create;
  d.event_record = event_record;
  d.event_synchronize = event_synchronize;
  d.event_query = event_query;
  d.event_elapsed_ms = event_elapsed_ms;
  d.event_destroy = event_destroy;
  d.stream_wait_event = stream_wait_event;
  d.unary = unary;
  d.binary = binary;
  d.fill = fill;
  d.where = where;
  d.reduce = reduce;
  d.softmax = softmax;
  d.layer_norm = layer_norm;
  d.layer_norm_backward_workspace = layer_norm_backward_workspace;
  d.layer_norm_backward = layer_norm_backward;
  d.philox_uniform = philox_uniform;
  d.philox_normal = philox_normal;
  d.gemm_strided_batched = gemm_strided_batched;
  d.nvrtc_compile = nvrtc_compile;
  d.buffer_free = buffer_free;
  d.module_load = module_load;
  d.module_unload = module_unload;
  d.module_get_function = module_get_function;
  d.launch = launch;
  d.graph_capture_begin = graph_capture_begin;
  d.graph_capture_end = graph_capture_end;
  d.graph_launch = graph_launch;
  d.graph_destroy = graph_destroy;
  // Pointwise, factories, scans (appended)
  d.unary_params = unary_params;
  d.binary_params = binary_params;
  d.ternary = ternary;
  d.index_fill = index_fill;
  d.scan = scan;
  // Indexing, sorting, convolution (appended)
  d.index_workspace = index_workspace;
  d.index = index_op;
  d.masked_scatter_workspace = masked_scatter_workspace;
  d.masked_scatter = masked_scatter;
  d.sort_workspace = sort_workspace;
  d.sort = sort;
  d.sort_select = sort_select;
  d.im2col = im2col;
  d.col2im = col2im;
  d.pool2d = pool2d;
  // Random sampling (appended)
  d.check_probabilities = check_probabilities;
  d.philox_bernoulli = philox_bernoulli;
  d.philox_randint = philox_randint;
  d.philox_sort_keys = philox_sort_keys;
  d.multinomial_replacement = multinomial_replacement;
  // Dense linear algebra (appended)
  d.solver_workspace = solver_workspace;
  d.solver = solver;
  d.trsm = trsm;
  // Fourier transforms (appended)
  d.fft_workspace = fft_workspace;
  d.fft = fft;
  return d;
}

const ct_cuda_driver kDriverV1 = make_v1();

}  // namespace
}  // namespace ct::cuda

extern "C" __attribute__((visibility("default"))) const ct_cuda_driver* ct_cuda_driver_get(int32_t version) {
  return version == 1 ? &ct::cuda::kDriverV1 : nullptr;
}
