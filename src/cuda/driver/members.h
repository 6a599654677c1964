// members.h - the functions behind the table in driver.cu, one group per source file. Their
// contracts are the member comments in ct_cuda_driver.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ct_cuda_driver.h"

namespace ct::cuda {

// status.cu
const char* last_error_message();

// runtime.cu
int device_count(int* count);
int set_device(int device);
int get_device(int* device);
int device_properties(int device, char* name, size_t name_capacity, int* major, int* minor, size_t* total_memory,
                      int* multiprocessor_count);
int mem_get_info(int device, size_t* free_bytes, size_t* total_bytes);
int synchronize_device(int device);
int device_malloc(int device, size_t nbytes, void** ptr);
int device_free(int device, void* ptr);
int host_alloc_pinned(size_t nbytes, void** ptr);
int host_free_pinned(void* ptr);
int memcpy_async(void* dst, const void* src, size_t nbytes, int kind, void* stream);
int memset_async(void* ptr, int value, size_t nbytes, void* stream);
int stream_create(int device, void** stream);
int stream_destroy(void* stream);
int stream_synchronize(void* stream);
int stream_query(void* stream, int* done);
int event_create(int device, int enable_timing, void** event);
int event_record(void* event, void* stream);
int event_synchronize(void* event);
int event_query(void* event, int* done);
int event_elapsed_ms(void* start, void* end, float* ms);
int event_destroy(void* event);
int stream_wait_event(void* stream, void* event);

// unary.cu, binary.cu, elementwise.cu
int unary(int op, int dtype_out, int dtype_in, int compute, void* out, const void* in, const ct_cuda_loop* loop,
          void* stream);
int binary(int op, int dtype_out, int dtype_a, int dtype_b, int compute, double alpha, void* out, const void* a,
           const void* b, const ct_cuda_loop* loop, void* stream);
int fill(int dtype, double value, int64_t ivalue, void* out, const ct_cuda_loop* loop, void* stream);
int where(int dtype_out, int dtype_cond, int dtype_a, int dtype_b, void* out, const void* cond, const void* a,
          const void* b, const ct_cuda_loop* loop, void* stream);

// reduce.cu, norm.cu
int reduce(int op, int dtype_out, int dtype_in, void* out, void* out_index, const void* in, int64_t outer,
           int64_t reduce, int64_t inner, double correction, void* stream);
int softmax(int log, int dtype_out, int dtype_in, void* out, const void* in, int64_t rows, int64_t cols,
            void* stream);
int layer_norm(int dtype, void* y, void* mean, void* rstd, const void* x, const void* weight, const void* bias,
               int64_t rows, int64_t cols, double eps, void* stream);
int layer_norm_backward_workspace(int dtype, int64_t rows, int64_t cols, size_t* bytes);
int layer_norm_backward(int dtype, void* dx, void* dweight, void* dbias, const void* dy, const void* x,
                        const void* mean, const void* rstd, const void* weight, int64_t rows, int64_t cols,
                        void* workspace, size_t workspace_bytes, void* stream);

// random.cu
int philox_uniform(int dtype, void* out, int64_t numel, uint64_t seed, uint64_t offset_block, double low,
                   double high, void* stream);
int philox_normal(int dtype, void* out, int64_t numel, uint64_t seed, uint64_t offset_block, double mean, double std,
                  void* stream);

// blas.cu
int gemm_strided_batched(int dtype, int transa, int transb, int64_t m, int64_t n, int64_t k, double alpha,
                         const void* A, int64_t lda, int64_t strideA, const void* B, int64_t ldb, int64_t strideB,
                         double beta, void* C, int64_t ldc, int64_t strideC, int64_t batch, int allow_tf32,
                         void* stream);

// nvrtc.cu
int nvrtc_compile(const char* source, const char* name, int arch_major, int arch_minor, char** image, size_t* size,
                  char** log);
int buffer_free(void* buffer);
int module_load(const void* image, void** module);
int module_unload(void* module);
int module_get_function(void* module, const char* name, void** fn);
int launch(void* fn, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz,
           uint32_t shared_bytes, void* stream, void** args);

// graphs.cu
int graph_capture_begin(void* stream);
int graph_capture_end(void* stream, void** graph_exec);
int graph_launch(void* graph_exec, void* stream);
int graph_destroy(void* graph_exec);

// unary_params.cu, binary_params.cu, factory.cu, scan.cu (parametrized pointwise, factories, scans)
int unary_params(int op, int dtype_out, int dtype_in, int compute, const double* params, void* out, const void* in,
                 const ct_cuda_loop* loop, void* stream);
int binary_params(int op, int dtype_out, int dtype_a, int dtype_b, int compute, const double* params, void* out,
                  const void* a, const void* b, const ct_cuda_loop* loop, void* stream);
int ternary(int op, int dtype_out, int dtype_a, int dtype_b, int dtype_c, int compute, const double* params,
            void* out, const void* a, const void* b, const void* c, const ct_cuda_loop* loop, void* stream);
int index_fill(int op, int dtype, double a, double b, int64_t cols, void* out, int64_t numel, void* stream);
int scan(int op, int dtype_out, int dtype_in, void* out, void* out_index, const void* in, int64_t outer, int64_t n,
         int64_t inner, void* stream);

// index.cu, sort.cu, conv.cu (indexing, sorting, convolution: appended)
int index_workspace(const ct_cuda_index* args, const ct_cuda_loop* loop, size_t* bytes);
int index_op(const ct_cuda_index* args, void* dst, const void* src, const void* index, const ct_cuda_loop* loop,
             void* workspace, size_t workspace_bytes, int64_t* error, void* stream);
int masked_scatter_workspace(int64_t n, size_t* bytes);
int masked_scatter(int dtype, void* out, const void* mask, const void* source, int64_t n, int64_t source_numel,
                   void* workspace, size_t workspace_bytes, int64_t* error, void* stream);
int sort_workspace(int dtype, int64_t rows, int64_t cols, size_t* bytes);
int sort(int dtype, int descending, void* values, int64_t* indices, const void* in, int64_t rows, int64_t cols,
         void* workspace, size_t workspace_bytes, void* stream);
int sort_select(int mode, int dtype, void* value, int64_t* index, const void* in, const int64_t* order, int64_t rows,
                int64_t cols, int64_t k, void* stream);
int im2col(int dtype, void* col, const void* im, const ct_cuda_window2d* window, void* stream);
int col2im(int dtype, void* im, const void* col, const ct_cuda_window2d* window, void* stream);
int pool2d(int op, int dtype, void* out, int64_t* indices, const void* in, const ct_cuda_window2d* window,
           int count_include_pad, int64_t divisor_override, void* stream);

// sampling.cu (random sampling: appended)
int check_probabilities(int mode, const double* p, int64_t rows, int64_t cols, int64_t k, int64_t* error,
                        void* stream);
int philox_bernoulli(int dtype, void* out, int64_t numel, uint64_t seed, uint64_t offset_block, const double* p,
                     double p_scalar, void* stream);
int philox_randint(int dtype, void* out, int64_t numel, uint64_t seed, uint64_t offset_block, int64_t low,
                   int64_t high, void* stream);
int philox_sort_keys(int mode, void* keys, const double* p, int64_t numel, uint64_t seed, uint64_t offset_block,
                     void* stream);
int multinomial_replacement(int64_t* out, const double* p, int64_t rows, int64_t cols, int64_t k, uint64_t seed,
                            uint64_t offset_block, void* workspace, void* stream);

// solver.cu, blas.cu (dense linear algebra: appended)
int solver_workspace(const ct_cuda_solver* args, size_t* bytes);
int solver(const ct_cuda_solver* args, void* workspace, size_t workspace_bytes, void* stream);
int trsm(int dtype, int left, int upper, int trans, int unit, int64_t m, int64_t n, const void* A, int64_t strideA,
         void* B, int64_t strideB, int64_t batch, void* stream);

// fft.cu (Fourier transforms: appended)
int fft_workspace(const ct_cuda_fft* args, size_t* bytes);
int fft(const ct_cuda_fft* args, void* workspace, size_t workspace_bytes, void* stream);

}  // namespace ct::cuda
