// test_cuda_driver.cpp - loads libctorch_cuda.so as libctorch will (dlopen by path, one table
// from ct_cuda_driver_get) and checks the table. Everything that needs no GPU runs everywhere
// (version handshake, device_count 0 without a device, NVRTC, argument checks); the kernel
// families run against host references only when a device is present, and print
// "skipped: no CUDA device (<reason>)" otherwise.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "core/half.h"
#include "ct_cuda_driver.h"
#include "ops/random/philox.h"

namespace {

int g_failed = 0, g_passed = 0;
const ct_cuda_driver* D = nullptr;

#define EXPECT(cond, ...)                                        \
  do {                                                           \
    if (cond) {                                                  \
      ++g_passed;                                                \
    } else {                                                     \
      ++g_failed;                                                \
      std::printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::printf(__VA_ARGS__);                                  \
      std::printf("\n");                                         \
    }                                                            \
  } while (0)
#define OK(call) EXPECT((call) == CT_CUDA_OK, "%s", D->last_error())

enum { kBool = 0, kU8, kI8, kI16, kI32, kI64, kF16, kBF16, kF32, kF64 };

bool close_to(double got, double want, double rtol, double atol = 1e-6) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

ct_cuda_loop contiguous_loop(int nops, int64_t n) {
  ct_cuda_loop l;
  std::memset(&l, 0, sizeof l);
  l.ndim = 1;
  l.sizes[0] = n;
  for (int k = 0; k < nops; ++k) l.strides[k][0] = 1;
  l.noperands = nops;
  l.numel = n;
  return l;
}

// ---- No device needed ----

void test_handshake(void* lib) {
  auto get = reinterpret_cast<ct_cuda_driver_get_fn>(dlsym(lib, "ct_cuda_driver_get"));
  EXPECT(get != nullptr, "ct_cuda_driver_get is not exported: %s", dlerror());
  if (!get) return;
  EXPECT(get(0) == nullptr, "version 0 must give NULL");
  EXPECT(get(CT_CUDA_DRIVER_VERSION + 1) == nullptr, "a future version must give NULL");
  D = get(CT_CUDA_DRIVER_VERSION);
  EXPECT(D != nullptr, "version %d gave NULL", CT_CUDA_DRIVER_VERSION);
  if (!D) return;
  EXPECT(D->version == CT_CUDA_DRIVER_VERSION, "version %d", D->version);
  EXPECT(D->struct_size == sizeof(ct_cuda_driver), "struct_size %zu, header says %zu", D->struct_size,
         sizeof(ct_cuda_driver));
  // Every member is filled.
  const void* const* fns = reinterpret_cast<const void* const*>(&D->last_error);
  const size_t n = (sizeof(ct_cuda_driver) - offsetof(ct_cuda_driver, last_error)) / sizeof(void*);
  for (size_t k = 0; k < n; ++k) EXPECT(fns[k] != nullptr, "member %zu is NULL", k);
  // Internals stay hidden: only the getter is exported.
  EXPECT(dlsym(lib, "_ZN2ct4cuda5unaryEiiiiPvPKvPK12ct_cuda_loopS0_") == nullptr, "internal symbol exported");
}

const char* kKernelSource = R"(
extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

void test_nvrtc() {
  char* image = nullptr;
  char* log = nullptr;
  size_t size = 0;
  OK(D->nvrtc_compile(kKernelSource, "axpy.cu", 8, 0, &image, &size, &log));
  EXPECT(image && size > 4 && std::memcmp(image, "\x7f" "ELF", 4) == 0, "expected a CUBIN (ELF) image, size %zu",
         size);
  EXPECT(log != nullptr, "log must be set on success too");
  D->buffer_free(image);
  D->buffer_free(log);

  image = nullptr;
  log = nullptr;
  const int rc = D->nvrtc_compile("extern \"C\" __global__ void broken( { this is not C++ }", "broken.cu", 9, 0,
                                  &image, &size, &log);
  EXPECT(rc == CT_CUDA_ERR_NVRTC, "a syntax error gave %d", rc);
  EXPECT(image == nullptr, "no image on failure");
  EXPECT(log && std::strstr(log, "error") != nullptr, "the log names the error: %s", log ? log : "(null)");
  EXPECT(std::strstr(D->last_error(), "broken.cu") && std::strstr(D->last_error(), "error"),
         "last_error carries the log: %s", D->last_error());
  D->buffer_free(log);
  EXPECT(D->nvrtc_compile(kKernelSource, "x.cu", 0, 0, &image, &size, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT,
         "arch 0.0 must be refused");
}

// Validation happens before any CUDA call, so these run without a device.
void test_argument_checks() {
  float dummy[4] = {0, 0, 0, 0};
  ct_cuda_loop l = contiguous_loop(2, 4);
  EXPECT(D->unary(99, kF32, kF32, kF32, dummy, dummy, &l, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT, "unknown op");
  EXPECT(D->unary(CT_CUDA_UNARY_EXP, kF32, kF32, kF32, dummy, dummy, nullptr, nullptr) ==
             CT_CUDA_ERR_INVALID_ARGUMENT, "NULL loop");
  EXPECT(D->unary(CT_CUDA_UNARY_EXP, kF32, kF32, kI64, dummy, dummy, &l, nullptr) == CT_CUDA_ERR_UNSUPPORTED,
         "exp in int64");
  EXPECT(std::strstr(D->last_error(), "exp") != nullptr, "message names the op: %s", D->last_error());
  l.numel = 5;
  EXPECT(D->unary(CT_CUDA_UNARY_EXP, kF32, kF32, kF32, dummy, dummy, &l, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT,
         "numel inconsistent with sizes");
  ct_cuda_loop l3 = contiguous_loop(3, 4);
  EXPECT(D->binary(CT_CUDA_BINARY_DIV, kF32, kI64, kI64, kI64, 1.0, dummy, dummy, dummy, &l3, nullptr) ==
             CT_CUDA_ERR_UNSUPPORTED, "true division in int64");
  EXPECT(D->binary(CT_CUDA_BINARY_ADD, kF32, kF32, kF32, kF32, 1.0, dummy, dummy, dummy, &l, nullptr) ==
             CT_CUDA_ERR_INVALID_ARGUMENT, "noperands 2 for a binary op");
  EXPECT(D->reduce(CT_CUDA_REDUCE_ARGMAX, kF32, kF32, dummy, nullptr, dummy, 1, 4, 1, 0, nullptr) ==
             CT_CUDA_ERR_INVALID_ARGUMENT, "argmax into float32");
  EXPECT(D->reduce(CT_CUDA_REDUCE_MAX, kF32, kF32, dummy, nullptr, dummy, 1, 0, 1, 0, nullptr) ==
             CT_CUDA_ERR_INVALID_ARGUMENT, "max over an empty dim");
  EXPECT(D->reduce(CT_CUDA_REDUCE_MEAN, kI64, kI64, dummy, nullptr, dummy, 1, 4, 1, 0, nullptr) ==
             CT_CUDA_ERR_UNSUPPORTED, "mean of integers");
  EXPECT(D->philox_uniform(kI32, dummy, 4, 1, 0, 0, 1, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT, "uniform int32");
  EXPECT(D->gemm_strided_batched(kI32, 0, 0, 2, 2, 2, 1, dummy, 2, 0, dummy, 2, 0, 0, dummy, 2, 0, 1, 0,
                                 nullptr) == CT_CUDA_ERR_UNSUPPORTED, "int32 gemm");
  size_t ws = 0;
  OK(D->layer_norm_backward_workspace(kF32, 130, 10, &ws));
  EXPECT(ws == 2 * 3 * 10 * sizeof(float), "workspace %zu", ws);
  EXPECT(D->free(0, nullptr) == CT_CUDA_OK && D->stream_destroy(nullptr) == CT_CUDA_OK &&
             D->event_destroy(nullptr) == CT_CUDA_OK && D->graph_destroy(nullptr) == CT_CUDA_OK &&
             D->module_unload(nullptr) == CT_CUDA_OK && D->host_free_pinned(nullptr) == CT_CUDA_OK,
         "releasing NULL is a no-op");
}

// ---- With a device ----

void* g_stream = nullptr;

struct DevBuf {
  void* p = nullptr;
  size_t n = 0;
  explicit DevBuf(size_t bytes) : n(bytes) { OK(D->malloc(0, bytes, &p)); }
  DevBuf(DevBuf&& o) noexcept : p(o.p), n(o.n) { o.p = nullptr; }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  ~DevBuf() { D->free(0, p); }
  template <typename T>
  void put(const std::vector<T>& h) {
    OK(D->memcpy_async(p, h.data(), h.size() * sizeof(T), CT_CUDA_MEMCPY_H2D, g_stream));
  }
  template <typename T>
  std::vector<T> get(size_t count) {
    std::vector<T> h(count);
    OK(D->memcpy_async(h.data(), p, count * sizeof(T), CT_CUDA_MEMCPY_D2H, g_stream));
    OK(D->stream_synchronize(g_stream));
    return h;
  }
};

template <typename T>
DevBuf upload(const std::vector<T>& h) {
  DevBuf b(h.size() * sizeof(T) + 16);
  b.put(h);
  return b;
}

std::vector<float> ramp(int n, float scale, float shift) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = std::sin(0.37f * i) * scale + shift;
  return v;
}

void test_elementwise() {
  // Broadcast: out[3, 4] = a[3, 4] + 2 * b[4].
  const std::vector<float> a = ramp(12, 3, 0), b = ramp(4, 2, 1);
  DevBuf da = upload(a), db = upload(b), dout(12 * 4);
  ct_cuda_loop l{};
  l.ndim = 2, l.sizes[0] = 3, l.sizes[1] = 4, l.noperands = 3, l.numel = 12;
  l.strides[0][0] = 4, l.strides[0][1] = 1, l.strides[1][0] = 4, l.strides[1][1] = 1, l.strides[2][0] = 0,
  l.strides[2][1] = 1;
  OK(D->binary(CT_CUDA_BINARY_ADD, kF32, kF32, kF32, kF32, 2.0, dout.p, da.p, db.p, &l, g_stream));
  std::vector<float> out = dout.get<float>(12);
  for (int i = 0; i < 12; ++i)
    EXPECT(close_to(out[i], a[i] + 2.0f * b[i % 4], 1e-6), "add[%d] %g vs %g", i, out[i], a[i] + 2.0f * b[i % 4]);

  // Strided input: exp of the transpose of a [4, 3] buffer, into float64.
  ct_cuda_loop t{};
  t.ndim = 2, t.sizes[0] = 3, t.sizes[1] = 4, t.noperands = 2, t.numel = 12;
  t.strides[0][0] = 4, t.strides[0][1] = 1, t.strides[1][0] = 1, t.strides[1][1] = 3;
  DevBuf d64(12 * 8);
  OK(D->unary(CT_CUDA_UNARY_EXP, kF64, kF32, kF32, d64.p, da.p, &t, g_stream));
  std::vector<double> e = d64.get<double>(12);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      EXPECT(close_to(e[r * 4 + c], std::exp(a[c * 3 + r]), 1e-6), "exp[%d, %d]", r, c);

  // The vector path and its tail (1003 elements), exact ops, plus mixed dtypes (int32 * float32).
  const int n = 1003;
  std::vector<float> x = ramp(n, 5, 0);
  std::vector<int32_t> xi(n);
  for (int i = 0; i < n; ++i) xi[i] = i - 500;
  DevBuf dx = upload(x), dxi = upload(xi), dy(n * 4), dh(n * 2);
  ct_cuda_loop c2 = contiguous_loop(2, n), c3 = contiguous_loop(3, n);
  OK(D->unary(CT_CUDA_UNARY_RELU, kF32, kF32, kF32, dy.p, dx.p, &c2, g_stream));
  std::vector<float> y = dy.get<float>(n);
  for (int i = 0; i < n; ++i) EXPECT(y[i] == (x[i] < 0 ? 0.0f : x[i]), "relu[%d]", i);
  OK(D->binary(CT_CUDA_BINARY_MUL, kF32, kI32, kF32, kF32, 1.0, dy.p, dxi.p, dx.p, &c3, g_stream));
  y = dy.get<float>(n);
  for (int i = 0; i < n; ++i) EXPECT(y[i] == static_cast<float>(xi[i]) * x[i], "mul[%d]", i);
  OK(D->unary(CT_CUDA_UNARY_COPY, kF16, kF32, kF32, dh.p, dx.p, &c2, g_stream));
  std::vector<uint16_t> h = dh.get<uint16_t>(n);
  for (int i = 0; i < n; ++i) EXPECT(h[i] == ct::Half(x[i]).x, "float16 cast[%d]", i);
  OK(D->unary(CT_CUDA_UNARY_ROUND, kF32, kF32, kF32, dy.p, dx.p, &c2, g_stream));
  y = dy.get<float>(n);
  for (int i = 0; i < n; ++i) EXPECT(y[i] == std::nearbyint(x[i]), "round[%d]", i);

  // Integers: Python's // and %, the documented zero divisor, INT64_MIN // -1.
  const std::vector<int64_t> ia = {7, -7, 7, -7, 5, INT64_MIN, 3}, ib = {2, 2, -2, -2, 0, -1, 0};
  const std::vector<int64_t> fd = {3, -4, -4, 3, 0, INT64_MIN, 0}, rm = {1, 1, -1, -1, 0, 0, 0};
  DevBuf dia = upload(ia), dib = upload(ib), dio(7 * 8);
  ct_cuda_loop i3 = contiguous_loop(3, 7);
  OK(D->binary(CT_CUDA_BINARY_FLOOR_DIVIDE, kI64, kI64, kI64, kI64, 1, dio.p, dia.p, dib.p, &i3, g_stream));
  std::vector<int64_t> io = dio.get<int64_t>(7);
  for (int i = 0; i < 7; ++i) EXPECT(io[i] == fd[i], "floor_divide[%d] %lld", i, (long long)io[i]);
  OK(D->binary(CT_CUDA_BINARY_REMAINDER, kI64, kI64, kI64, kI64, 1, dio.p, dia.p, dib.p, &i3, g_stream));
  io = dio.get<int64_t>(7);
  for (int i = 0; i < 7; ++i) EXPECT(io[i] == rm[i], "remainder[%d] %lld", i, (long long)io[i]);

  // maximum propagates NaN; comparisons write bool; where; fill.
  const float nan = std::nanf("");
  const std::vector<float> fa = {1, nan, 3, -0.5f}, fb = {2, 0, nan, -1};
  DevBuf dfa = upload(fa), dfb = upload(fb), dfo(16), dbo(4);
  ct_cuda_loop f3 = contiguous_loop(3, 4), f2 = contiguous_loop(2, 4), f4 = contiguous_loop(4, 4);
  OK(D->binary(CT_CUDA_BINARY_MAXIMUM, kF32, kF32, kF32, kF32, 1, dfo.p, dfa.p, dfb.p, &f3, g_stream));
  std::vector<float> fo = dfo.get<float>(4);
  EXPECT(fo[0] == 2 && std::isnan(fo[1]) && std::isnan(fo[2]) && fo[3] == -0.5f, "maximum %g %g %g %g", fo[0],
         fo[1], fo[2], fo[3]);
  OK(D->binary(CT_CUDA_BINARY_LT, kBool, kF32, kF32, kF32, 1, dbo.p, dfa.p, dfb.p, &f3, g_stream));
  std::vector<uint8_t> bo = dbo.get<uint8_t>(4);
  EXPECT(bo[0] == 1 && bo[1] == 0 && bo[2] == 0 && bo[3] == 0, "lt %d %d %d %d", bo[0], bo[1], bo[2], bo[3]);
  OK(D->where(kF32, kBool, kF32, kF32, dfo.p, dbo.p, dfa.p, dfb.p, &f4, g_stream));
  fo = dfo.get<float>(4);
  EXPECT(fo[0] == 1 && fo[1] == 0 && std::isnan(fo[2]) && fo[3] == -1, "where");
  ct_cuda_loop f1 = contiguous_loop(1, 4);
  OK(D->fill(kBF16, 0.1, 0, dfo.p, &f1, g_stream));
  std::vector<uint16_t> bf = dfo.get<uint16_t>(4);
  EXPECT(bf[3] == ct::BFloat16(0.1f).x, "fill bfloat16 %x vs %x", bf[3], ct::BFloat16(0.1f).x);
  (void)f2;
}

void test_reductions() {
  const int outer = 2, R = 1000, inner = 3, n = outer * R * inner;
  std::vector<float> x = ramp(n, 4, 0.25f);
  DevBuf dx = upload(x), dout(outer * inner * 8), didx(outer * inner * 8);
  auto at = [&](int o, int r, int i) { return static_cast<double>(x[(o * R + r) * inner + i]); };
  OK(D->reduce(CT_CUDA_REDUCE_SUM, kF32, kF32, dout.p, nullptr, dx.p, outer, R, inner, 0, g_stream));
  std::vector<float> s = dout.get<float>(6);
  OK(D->reduce(CT_CUDA_REDUCE_SUM, kF32, kF32, dout.p, nullptr, dx.p, outer, R, inner, 0, g_stream));
  std::vector<float> s2 = dout.get<float>(6);
  EXPECT(std::memcmp(s.data(), s2.data(), 6 * sizeof(float)) == 0, "sum is not bitwise reproducible");
  OK(D->reduce(CT_CUDA_REDUCE_VAR, kF32, kF32, dout.p, nullptr, dx.p, outer, R, inner, 1, g_stream));
  std::vector<float> var = dout.get<float>(6);
  OK(D->reduce(CT_CUDA_REDUCE_LOGSUMEXP, kF32, kF32, dout.p, nullptr, dx.p, outer, R, inner, 0, g_stream));
  std::vector<float> lse = dout.get<float>(6);
  OK(D->reduce(CT_CUDA_REDUCE_MAX, kF32, kF32, dout.p, didx.p, dx.p, outer, R, inner, 0, g_stream));
  std::vector<float> mx = dout.get<float>(6);
  std::vector<int64_t> mi = didx.get<int64_t>(6);
  for (int o = 0; o < outer; ++o)
    for (int i = 0; i < inner; ++i) {
      double sum = 0, sq = 0, m = -INFINITY;
      int64_t arg = 0;
      for (int r = 0; r < R; ++r) {
        sum += at(o, r, i);
        if (at(o, r, i) > m) m = at(o, r, i), arg = r;
      }
      for (int r = 0; r < R; ++r) sq += (at(o, r, i) - sum / R) * (at(o, r, i) - sum / R);
      double l = 0;
      for (int r = 0; r < R; ++r) l += std::exp(at(o, r, i) - m);
      const int k = o * inner + i;
      EXPECT(close_to(s[k], sum, 1e-5, 1e-3), "sum[%d] %g vs %g", k, s[k], sum);
      EXPECT(close_to(var[k], sq / (R - 1), 1e-4), "var[%d] %g vs %g", k, var[k], sq / (R - 1));
      EXPECT(close_to(lse[k], m + std::log(l), 1e-5), "logsumexp[%d]", k);
      EXPECT(mx[k] == static_cast<float>(m) && mi[k] == arg, "max[%d] %g@%lld vs %g@%lld", k, mx[k],
             (long long)mi[k], m, (long long)arg);
    }
  // argmax: first index on ties, the first NaN wins; integer sums are exact.
  const float nan = std::nanf("");
  const std::vector<float> t = {1, 5, 5, 2, nan, 7, nan, 5};
  DevBuf dt = upload(t);
  OK(D->reduce(CT_CUDA_REDUCE_ARGMAX, kI64, kF32, didx.p, nullptr, dt.p, 2, 4, 1, 0, g_stream));
  mi = didx.get<int64_t>(2);
  EXPECT(mi[0] == 1 && mi[1] == 0, "argmax %lld %lld", (long long)mi[0], (long long)mi[1]);
  std::vector<int32_t> iv(5000);
  int64_t isum = 0;
  for (int i = 0; i < 5000; ++i) isum += iv[i] = i * 7919 % 1000 - 300;
  DevBuf div = upload(iv);
  OK(D->reduce(CT_CUDA_REDUCE_SUM, kI64, kI32, dout.p, nullptr, div.p, 1, 5000, 1, 0, g_stream));
  EXPECT(dout.get<int64_t>(1)[0] == isum, "int sum");
}

void test_softmax_layer_norm() {
  const int rows = 5, cols = 300;
  std::vector<float> x = ramp(rows * cols, 3, 0.1f), w = ramp(cols, 1, 1), b = ramp(cols, 0.5f, 0);
  std::vector<float> dyv = ramp(rows * cols, 1, -0.2f);
  DevBuf dx = upload(x), dw = upload(w), db = upload(b), dy = upload(dyv), out(rows * cols * 4);
  DevBuf mean(rows * 4), rstd(rows * 4), gx(rows * cols * 4), gw(cols * 4), gb(cols * 4);
  for (int log = 0; log < 2; ++log) {
    OK(D->softmax(log, kF32, kF32, out.p, dx.p, rows, cols, g_stream));
    std::vector<float> o = out.get<float>(rows * cols);
    for (int r = 0; r < rows; ++r) {
      double m = -INFINITY, s = 0;
      for (int c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
      for (int c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
      for (int c = 0; c < cols; c += 37) {
        const double want = log ? x[r * cols + c] - m - std::log(s) : std::exp(x[r * cols + c] - m) / s;
        EXPECT(close_to(o[r * cols + c], want, 1e-5), "softmax(log=%d)[%d, %d]", log, r, c);
      }
    }
  }
  OK(D->layer_norm(kF32, out.p, mean.p, rstd.p, dx.p, dw.p, db.p, rows, cols, 1e-5, g_stream));
  std::vector<float> y = out.get<float>(rows * cols);
  size_t ws_bytes = 0;
  OK(D->layer_norm_backward_workspace(kF32, rows, cols, &ws_bytes));
  DevBuf ws(ws_bytes);
  OK(D->layer_norm_backward(kF32, gx.p, gw.p, gb.p, dy.p, dx.p, mean.p, rstd.p, dw.p, rows, cols, ws.p, ws_bytes,
                            g_stream));
  std::vector<float> gxh = gx.get<float>(rows * cols), gwh = gw.get<float>(cols), gbh = gb.get<float>(cols);
  std::vector<double> rgw(cols, 0), rgb(cols, 0);
  for (int r = 0; r < rows; ++r) {
    double mu = 0, var = 0;
    for (int c = 0; c < cols; ++c) mu += x[r * cols + c];
    mu /= cols;
    for (int c = 0; c < cols; ++c) var += (x[r * cols + c] - mu) * (x[r * cols + c] - mu);
    const double rs = 1 / std::sqrt(var / cols + 1e-5);
    double sg = 0, sgx = 0;
    for (int c = 0; c < cols; ++c) {
      const double xh = (x[r * cols + c] - mu) * rs, g = dyv[r * cols + c] * w[c];
      EXPECT(close_to(y[r * cols + c], xh * w[c] + b[c], 1e-5, 1e-5), "layer_norm[%d, %d]", r, c);
      sg += g, sgx += g * xh;
      rgw[c] += dyv[r * cols + c] * xh, rgb[c] += dyv[r * cols + c];
    }
    for (int c = 0; c < cols; c += 13) {
      const double xh = (x[r * cols + c] - mu) * rs, g = dyv[r * cols + c] * w[c];
      const double want = rs * (g - sg / cols - xh * sgx / cols);
      EXPECT(close_to(gxh[r * cols + c], want, 1e-4, 1e-5), "layer_norm dx[%d, %d] %g vs %g", r, c,
             gxh[r * cols + c], want);
    }
  }
  for (int c = 0; c < cols; ++c)
    EXPECT(close_to(gwh[c], rgw[c], 1e-4, 1e-5) && close_to(gbh[c], rgb[c], 1e-4, 1e-5), "dweight/dbias[%d]", c);
}

void test_gemm() {
  // Column-major C[m, n] = A[m, k] B[k, n], batch 2; TF32 off must be fp32-accurate.
  const int m = 33, n = 17, k = 300, batch = 2;
  std::vector<float> A = ramp(m * k * batch, 1, 0.01f), B = ramp(k * n * batch, 1, -0.02f);
  DevBuf dA = upload(A), dB = upload(B), dC(m * n * batch * 4);
  OK(D->gemm_strided_batched(kF32, 0, 0, m, n, k, 1.0, dA.p, m, m * k, dB.p, k, k * n, 0.0, dC.p, m, m * n, batch,
                             0, g_stream));
  std::vector<float> C = dC.get<float>(m * n * batch);
  for (int bt = 0; bt < batch; ++bt)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double want = 0, mag = 0;
        for (int p = 0; p < k; ++p) {
          const double t = double(A[bt * m * k + p * m + i]) * B[bt * k * n + j * k + p];
          want += t, mag += std::fabs(t);
        }
        const float got = C[bt * m * n + j * m + i];
        EXPECT(std::fabs(got - want) <= 1e-5 * mag + 1e-6, "gemm[%d][%d, %d] %g vs %g (TF32 would be ~1e-3 off)",
               bt, i, j, got, want);
      }
}

// The CPU generator's map (ops/random/random.cpp fill_uniform / fill_normal), block by block.
template <typename T>
std::vector<T> host_random(bool normal, int64_t numel, uint64_t seed, uint64_t first, double a, double b) {
  namespace pr = ct::ops::random;
  std::vector<T> out(numel);
  const int E = sizeof(T) == 8 ? 2 : 4;
  for (int64_t blk = 0; blk * E < numel; ++blk) {
    const pr::Words x = pr::philox(seed, first + blk);
    T v[4];
    if constexpr (sizeof(T) == 8) {
      if (normal) {
        double z0, z1;
        pr::box_muller(1.0 - pr::uniform_double(x.w[0], x.w[1]), pr::uniform_double(x.w[2], x.w[3]), z0, z1);
        v[0] = a + b * z0, v[1] = a + b * z1;
      } else {
        v[0] = a + (b - a) * pr::uniform_double(x.w[0], x.w[1]);
        v[1] = a + (b - a) * pr::uniform_double(x.w[2], x.w[3]);
      }
    } else {
      constexpr int bits = std::is_same_v<T, float> ? 24 : std::is_same_v<T, ct::Half> ? 11 : 8;
      if (normal) {
        const float m = static_cast<float>(a), s = static_cast<float>(b), k = 1.0f / 16777216.0f;
        float z[4];
        pr::box_muller(static_cast<float>((x.w[0] >> 8) + 1) * k, static_cast<float>(x.w[1] >> 8) * k, z[0], z[1]);
        pr::box_muller(static_cast<float>((x.w[2] >> 8) + 1) * k, static_cast<float>(x.w[3] >> 8) * k, z[2], z[3]);
        for (int j = 0; j < 4; ++j) v[j] = static_cast<T>(m + s * z[j]);
      } else {
        const float l = static_cast<float>(a), w = static_cast<float>(b - a);
        for (int j = 0; j < 4; ++j) v[j] = static_cast<T>(l + w * pr::uniform_float(x.w[j], bits));
      }
    }
    for (int j = 0; j < E && blk * E + j < numel; ++j) out[blk * E + j] = v[j];
  }
  return out;
}

template <typename T>
void check_random(int dtype, const char* name) {
  const int64_t n = 1001;
  DevBuf d(n * sizeof(T));
  for (int normal = 0; normal < 2; ++normal) {
    const double a = normal ? 0.5 : -2.0, b = normal ? 3.0 : 5.0;
    auto fn = normal ? D->philox_normal : D->philox_uniform;
    OK(fn(dtype, d.p, n, 0x1234abcdULL, 77, a, b, g_stream));
    std::vector<T> got = d.get<T>(n);
    OK(fn(dtype, d.p, n, 0x1234abcdULL, 77, a, b, g_stream));
    std::vector<T> again = d.get<T>(n);
    const std::vector<T> want = host_random<T>(normal, n, 0x1234abcdULL, 77, a, b);
    EXPECT(std::memcmp(got.data(), want.data(), n * sizeof(T)) == 0, "%s %s differs from the CPU formula", name,
           normal ? "normal" : "uniform");
    EXPECT(std::memcmp(got.data(), again.data(), n * sizeof(T)) == 0, "%s not reproducible", name);
  }
}

void test_random() {
  check_random<float>(kF32, "float32");
  check_random<double>(kF64, "float64");
  check_random<ct::Half>(kF16, "float16");
  check_random<ct::BFloat16>(kBF16, "bfloat16");
}

void test_graph_and_module(int device) {
  void* s = nullptr;
  OK(D->stream_create(device, &s));
  const int n = 256;
  DevBuf x(n * 4), y(n * 4);
  ct_cuda_loop l1 = contiguous_loop(1, n), l2 = contiguous_loop(2, n);
  OK(D->graph_capture_begin(s));
  OK(D->fill(kF32, 1.5, 0, x.p, &l1, s));
  OK(D->unary(CT_CUDA_UNARY_NEG, kF32, kF32, kF32, y.p, x.p, &l2, s));
  void* exec = nullptr;
  OK(D->graph_capture_end(s, &exec));
  OK(D->graph_launch(exec, s));
  OK(D->graph_launch(exec, s));
  OK(D->stream_synchronize(s));
  std::vector<float> h = y.get<float>(n);
  EXPECT(h[0] == -1.5f && h[n - 1] == -1.5f, "graph replay gave %g", h[0]);
  OK(D->graph_destroy(exec));

  int major = 0, minor = 0;
  OK(D->device_properties(device, nullptr, 0, &major, &minor, nullptr, nullptr));
  char* image = nullptr;
  size_t size = 0;
  OK(D->nvrtc_compile(kKernelSource, "axpy.cu", major, minor, &image, &size, nullptr));
  void* mod = nullptr;
  void* fn = nullptr;
  OK(D->module_load(image, &mod));
  OK(D->module_get_function(mod, "axpy", &fn));
  float a = 2.0f;
  int count = n;
  void* args[] = {&a, &x.p, &y.p, &count};
  OK(D->launch(fn, 1, 1, 1, n, 1, 1, 0, s, args));
  OK(D->stream_synchronize(s));
  h = y.get<float>(n);
  EXPECT(h[7] == 1.5f, "NVRTC axpy gave %g", h[7]);
  OK(D->module_unload(mod));
  D->buffer_free(image);
  OK(D->stream_destroy(s));

  void* huge = nullptr;
  const int rc = D->malloc(device, size_t{1} << 50, &huge);
  EXPECT(rc == CT_CUDA_ERR_OOM && huge == nullptr, "1 PiB gave %d: %s", rc, D->last_error());
}

}  // namespace

// ---- Pointwise, factories, scans (appended members) ----

void test_argument_checks_more() {
  float dummy[4] = {0, 0, 0, 0};
  ct_cuda_loop l2 = contiguous_loop(2, 4), l3 = contiguous_loop(3, 4), l4 = contiguous_loop(4, 4);
  EXPECT(D->unary_params(99, kF32, kF32, kF32, nullptr, dummy, dummy, &l2, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT,
         "unknown unary op");
  EXPECT(D->unary(CT_CUDA_UNARY_TAN, kF32, kF32, kI64, dummy, dummy, &l2, nullptr) == CT_CUDA_ERR_UNSUPPORTED,
         "tan in int64 through unary");
  EXPECT(std::strstr(D->last_error(), "tan") != nullptr, "message names the op: %s", D->last_error());
  EXPECT(D->unary_params(CT_CUDA_UNARY_ISNAN, kBool, kF32, kF32, nullptr, dummy, dummy, &l3, nullptr) ==
             CT_CUDA_ERR_INVALID_ARGUMENT, "noperands 3 for a unary op");
  const double bad_bits[3] = {12, 0, 0};
  EXPECT(D->binary_params(CT_CUDA_BINARY_LEFT_SHIFT, kI64, kI64, kI64, kI64, bad_bits, dummy, dummy, dummy, &l3,
                          nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT, "shift width 12");
  EXPECT(D->binary_params(CT_CUDA_BINARY_HYPOT, kF32, kI64, kI64, kI64, nullptr, dummy, dummy, dummy, &l3, nullptr) ==
             CT_CUDA_ERR_UNSUPPORTED, "hypot in int64");
  EXPECT(D->binary_params(40, kF32, kF32, kF32, kF32, nullptr, dummy, dummy, dummy, &l3, nullptr) ==
             CT_CUDA_ERR_INVALID_ARGUMENT, "unknown binary op");
  EXPECT(D->ternary(7, kF32, kF32, kF32, kF32, kF32, nullptr, dummy, dummy, dummy, dummy, &l4, nullptr) ==
             CT_CUDA_ERR_INVALID_ARGUMENT, "unknown ternary op");
  EXPECT(D->ternary(CT_CUDA_TERNARY_ADDCDIV, kI64, kI64, kI64, kI64, kI64, nullptr, dummy, dummy, dummy, dummy, &l4,
                    nullptr) == CT_CUDA_ERR_UNSUPPORTED, "addcdiv in int64");
  EXPECT(D->ternary(CT_CUDA_TERNARY_LERP, kF32, kF32, kF32, kF32, kF32, nullptr, dummy, dummy, dummy, dummy, &l3,
                    nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT, "lerp.Tensor with 3 operands");
  EXPECT(D->index_fill(CT_CUDA_INDEX_FILL_EYE, kF32, 0, 0, 0, dummy, 4, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT,
         "eye with cols 0");
  EXPECT(D->index_fill(9, kF32, 0, 0, 1, dummy, 4, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT, "unknown fill op");
  EXPECT(D->scan(CT_CUDA_SCAN_CUMMAX, kF32, kF32, dummy, nullptr, dummy, 1, 4, 1, nullptr) ==
             CT_CUDA_ERR_INVALID_ARGUMENT, "cummax without out_index");
  EXPECT(D->scan(CT_CUDA_SCAN_CUMSUM, kBool, kBool, dummy, nullptr, dummy, 1, 4, 1, nullptr) ==
             CT_CUDA_ERR_INVALID_ARGUMENT, "cumsum into bool");
  EXPECT(D->reduce(CT_CUDA_REDUCE_NORM, kF32, kF32, dummy, nullptr, dummy, 1, 0, 1, INFINITY, nullptr) ==
             CT_CUDA_ERR_INVALID_ARGUMENT, "inf-norm over an empty dim");
  EXPECT(D->reduce(CT_CUDA_REDUCE_NORM, kI64, kI64, dummy, nullptr, dummy, 1, 4, 1, 2, nullptr) ==
             CT_CUDA_ERR_UNSUPPORTED, "norm of integers");
}

// Host references: the CPU's formulas (ops/pointwise/unary.cpp, activations.cpp, binary.cpp,
// ternary.cpp, factories.cpp, scan.cpp) in double, against float32 kernels.
void test_parametrized_pointwise_factories_scans() {
  const int n = 257;
  std::vector<float> u(n), s(n);  // u in (0, 1); s in [-5, 5]
  for (int i = 0; i < n; ++i) u[i] = 0.02f + 0.96f * i / (n - 1), s[i] = -5.0f + 10.0f * i / (n - 1);
  DevBuf du = upload(u), ds = upload(s), dy(n * 8);
  ct_cuda_loop c2 = contiguous_loop(2, n), c3 = contiguous_loop(3, n), c4 = contiguous_loop(4, n);
  auto check_unary = [&](int op, const std::vector<float>& x, DevBuf& dx, const double* p, double (*ref)(double, const double*),
                         const char* name) {
    OK(D->unary_params(op, kF32, kF32, kF32, p, dy.p, dx.p, &c2, g_stream));
    const std::vector<float> y = dy.get<float>(n);
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += !close_to(y[i], ref(x[i], p), 2e-5, 1e-6);
    EXPECT(bad == 0, "%s: %d of %d elements off (x[0] = %g: %g vs %g)", name, bad, n, x[0], y[0], ref(x[0], p));
  };
  const double none[3] = {0, 0, 0};
  check_unary(CT_CUDA_UNARY_TAN, u, du, none, [](double x, const double*) { return std::tan(x); }, "tan");
  check_unary(CT_CUDA_UNARY_ASIN, u, du, none, [](double x, const double*) { return std::asin(x); }, "asin");
  check_unary(CT_CUDA_UNARY_ACOS, u, du, none, [](double x, const double*) { return std::acos(x); }, "acos");
  check_unary(CT_CUDA_UNARY_ATAN, s, ds, none, [](double x, const double*) { return std::atan(x); }, "atan");
  check_unary(CT_CUDA_UNARY_SINH, s, ds, none, [](double x, const double*) { return std::sinh(x); }, "sinh");
  check_unary(CT_CUDA_UNARY_COSH, s, ds, none, [](double x, const double*) { return std::cosh(x); }, "cosh");
  check_unary(CT_CUDA_UNARY_ASINH, s, ds, none, [](double x, const double*) { return std::asinh(x); }, "asinh");
  check_unary(CT_CUDA_UNARY_ATANH, u, du, none, [](double x, const double*) { return std::atanh(x); }, "atanh");
  check_unary(CT_CUDA_UNARY_EXP2, s, ds, none, [](double x, const double*) { return std::exp2(x); }, "exp2");
  check_unary(CT_CUDA_UNARY_LOG2, u, du, none, [](double x, const double*) { return std::log2(x); }, "log2");
  check_unary(CT_CUDA_UNARY_LOG10, u, du, none, [](double x, const double*) { return std::log10(x); }, "log10");
  check_unary(CT_CUDA_UNARY_ERFC, s, ds, none, [](double x, const double*) { return std::erfc(x); }, "erfc");
  check_unary(CT_CUDA_UNARY_ERFINV, u, du, none, [](double x, const double*) {
    // Inverse by bisection on erf.
    double lo = 0, hi = 5;
    for (int k = 0; k < 200; ++k) (std::erf((lo + hi) / 2) < x ? lo : hi) = (lo + hi) / 2;
    return (lo + hi) / 2;
  }, "erfinv");
  check_unary(CT_CUDA_UNARY_FRAC, s, ds, none, [](double x, const double*) { return x - std::trunc(x); }, "frac");
  check_unary(CT_CUDA_UNARY_SQUARE, s, ds, none, [](double x, const double*) { return x * x; }, "square");
  const double elu_p[3] = {1.5, 2.0, 0.5}, leaky_p[3] = {0.1, 0, 0}, ht_p[3] = {-2, 3, 0}, sp_p[3] = {2, 4, 0};
  check_unary(CT_CUDA_UNARY_ELU, s, ds, elu_p,
              [](double x, const double* p) { return x <= 0 ? std::expm1(x * p[2]) * p[0] * p[1] : x * p[1]; }, "elu");
  check_unary(CT_CUDA_UNARY_LEAKY_RELU, s, ds, leaky_p, [](double x, const double* p) { return x > 0 ? x : x * p[0]; },
              "leaky_relu");
  check_unary(CT_CUDA_UNARY_HARDTANH, s, ds, ht_p,
              [](double x, const double* p) { return x < p[0] ? p[0] : x > p[1] ? p[1] : x; }, "hardtanh");
  check_unary(CT_CUDA_UNARY_HARDSIGMOID, s, ds, none,
              [](double x, const double*) { return std::min(std::max(x + 3, 0.0), 6.0) / 6; }, "hardsigmoid");
  check_unary(CT_CUDA_UNARY_HARDSWISH, s, ds, none,
              [](double x, const double*) { return x * std::min(std::max(x + 3, 0.0), 6.0) / 6; }, "hardswish");
  check_unary(CT_CUDA_UNARY_SOFTPLUS, s, ds, sp_p,
              [](double x, const double* p) { return x * p[0] > p[1] ? x : std::log1p(std::exp(x * p[0])) / p[0]; },
              "softplus");
  check_unary(CT_CUDA_UNARY_MISH, s, ds, none,
              [](double x, const double*) { return x * std::tanh(std::log1p(std::exp(x))); }, "mish");
  const double clamp_lo[3] = {-1, 0, 1}, round_p[3] = {100, 0, 0};
  check_unary(CT_CUDA_UNARY_CLAMP, s, ds, clamp_lo, [](double x, const double* p) { return x < p[0] ? p[0] : x; },
              "clamp(min=-1)");
  check_unary(CT_CUDA_UNARY_ROUND_DECIMALS, s, ds, round_p,
              [](double x, const double*) { return std::nearbyint(x * 100) / 100; }, "round(decimals=2)");

  // isnan / isinf / isfinite into bool, nan_to_num, and the integer forms.
  const float nan = std::nanf(""), inf = INFINITY;
  const std::vector<float> sp = {1.5f, nan, inf, -inf};
  DevBuf dsp = upload(sp), db(4), df(16);
  ct_cuda_loop s2 = contiguous_loop(2, 4), s3 = contiguous_loop(3, 4), s4 = contiguous_loop(4, 4);
  OK(D->unary(CT_CUDA_UNARY_ISNAN, kBool, kF32, kF32, db.p, dsp.p, &s2, g_stream));
  std::vector<uint8_t> b = db.get<uint8_t>(4);
  EXPECT(b[0] == 0 && b[1] == 1 && b[2] == 0 && b[3] == 0, "isnan");
  OK(D->unary(CT_CUDA_UNARY_ISINF, kBool, kF32, kF32, db.p, dsp.p, &s2, g_stream));
  b = db.get<uint8_t>(4);
  EXPECT(b[0] == 0 && b[1] == 0 && b[2] == 1 && b[3] == 1, "isinf");
  OK(D->unary(CT_CUDA_UNARY_ISFINITE, kBool, kF32, kF32, db.p, dsp.p, &s2, g_stream));
  b = db.get<uint8_t>(4);
  EXPECT(b[0] == 1 && b[1] == 0 && b[2] == 0 && b[3] == 0, "isfinite");
  const double ntn[3] = {7, 8, -9};
  OK(D->unary_params(CT_CUDA_UNARY_NAN_TO_NUM, kF32, kF32, kF32, ntn, df.p, dsp.p, &s2, g_stream));
  std::vector<float> f = df.get<float>(4);
  EXPECT(f[0] == 1.5f && f[1] == 7 && f[2] == 8 && f[3] == -9, "nan_to_num %g %g %g %g", f[0], f[1], f[2], f[3]);
  const std::vector<int64_t> iv = {-7, 3, 12, 100};
  DevBuf div = upload(iv), dio(32);
  const double clamp_both[3] = {0, 10, 3};
  OK(D->unary_params(CT_CUDA_UNARY_CLAMP, kI64, kI64, kI64, clamp_both, dio.p, div.p, &s2, g_stream));
  std::vector<int64_t> io = dio.get<int64_t>(4);
  EXPECT(io[0] == 0 && io[1] == 3 && io[2] == 10 && io[3] == 10, "clamp int64");
  OK(D->unary(CT_CUDA_UNARY_ISFINITE, kBool, kI64, kI64, db.p, div.p, &s2, g_stream));
  b = db.get<uint8_t>(4);
  EXPECT(b[0] == 1 && b[3] == 1, "isfinite of integers");

  // Binary: hypot, fmod (float and int), logical_xor, int8 shifts in 8 bits.
  OK(D->binary_params(CT_CUDA_BINARY_HYPOT, kF32, kF32, kF32, kF32, nullptr, dy.p, ds.p, du.p, &c3, g_stream));
  std::vector<float> y = dy.get<float>(n);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += !close_to(y[i], std::hypot(double(s[i]), double(u[i])), 1e-6);
  EXPECT(bad == 0, "hypot: %d off", bad);
  OK(D->binary_params(CT_CUDA_BINARY_FMOD, kF32, kF32, kF32, kF32, nullptr, dy.p, ds.p, du.p, &c3, g_stream));
  y = dy.get<float>(n);
  bad = 0;
  for (int i = 0; i < n; ++i) bad += y[i] != std::fmod(s[i], u[i]);
  EXPECT(bad == 0, "fmod float32: %d off", bad);
  const std::vector<int64_t> fa = {7, -7, 7, -7}, fb = {2, 2, -1, 0};
  DevBuf dfa = upload(fa), dfb = upload(fb);
  OK(D->binary(CT_CUDA_BINARY_FMOD, kI64, kI64, kI64, kI64, 1, dio.p, dfa.p, dfb.p, &s3, g_stream));
  io = dio.get<int64_t>(4);
  EXPECT(io[0] == 1 && io[1] == -1 && io[2] == 0 && io[3] == 0, "fmod int64 %lld %lld", (long long)io[0],
         (long long)io[1]);
  OK(D->binary(CT_CUDA_BINARY_LOGICAL_XOR, kBool, kF32, kI64, kF32, 1, db.p, dsp.p, dfb.p, &s3, g_stream));
  b = db.get<uint8_t>(4);
  EXPECT(b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 1, "logical_xor %d %d %d %d", b[0], b[1], b[2], b[3]);
  const std::vector<int8_t> sa = {-128, 1, -8, 5}, sb = {1, 9, 10, -1};
  DevBuf dsa = upload(sa), dsb = upload(sb), dso(4);
  const double i8[3] = {8, 0, 0};
  OK(D->binary_params(CT_CUDA_BINARY_LEFT_SHIFT, kI8, kI8, kI8, kI64, i8, dso.p, dsa.p, dsb.p, &s3, g_stream));
  std::vector<int8_t> so = dso.get<int8_t>(4);
  EXPECT(so[0] == 0 && so[1] == 0 && so[2] == 0 && so[3] == 0, "left shift int8 %d %d %d %d", so[0], so[1], so[2], so[3]);
  OK(D->binary_params(CT_CUDA_BINARY_RIGHT_SHIFT, kI8, kI8, kI8, kI64, i8, dso.p, dsa.p, dsb.p, &s3, g_stream));
  so = dso.get<int8_t>(4);
  EXPECT(so[0] == -64 && so[1] == 0 && so[2] == -1 && so[3] == 0, "right shift int8 %d %d %d %d", so[0], so[1], so[2],
         so[3]);
  const std::vector<uint8_t> ua = {200}, ub = {9};
  DevBuf dua = upload(ua), dub = upload(ub);
  const double u8[3] = {8, 1, 0};
  ct_cuda_loop one3 = contiguous_loop(3, 1);
  OK(D->binary_params(CT_CUDA_BINARY_RIGHT_SHIFT, kU8, kU8, kU8, kI64, u8, dso.p, dua.p, dub.p, &one3, g_stream));
  EXPECT(dso.get<uint8_t>(1)[0] == 1, "uint8 200 >> 9 is 200 >> 7 as on the cpu");

  // Ternary: lerp (tensor and scalar weight), addcmul, addcdiv; float32 bits as the CPU's formula.
  OK(D->ternary(CT_CUDA_TERNARY_LERP, kF32, kF32, kF32, kF32, kF32, nullptr, dy.p, ds.p, du.p, du.p, &c4, g_stream));
  y = dy.get<float>(n);
  auto lerp = [](float a, float b, float w) { return std::fabs(w) < 0.5f ? a + w * (b - a) : b - (b - a) * (1.0f - w); };
  bad = 0;
  for (int i = 0; i < n; ++i) bad += y[i] != lerp(s[i], u[i], u[i]);
  EXPECT(bad == 0, "lerp.Tensor: %d off", bad);
  const double w[3] = {0.75, 0, 0};
  OK(D->ternary(CT_CUDA_TERNARY_LERP_SCALAR, kF32, kF32, kF32, kF32, kF32, w, dy.p, ds.p, du.p, nullptr, &c3, g_stream));
  y = dy.get<float>(n);
  bad = 0;
  for (int i = 0; i < n; ++i) bad += y[i] != lerp(s[i], u[i], 0.75f);
  EXPECT(bad == 0, "lerp.Scalar: %d off", bad);
  const double v[3] = {0.5, 0, 0};
  OK(D->ternary(CT_CUDA_TERNARY_ADDCMUL, kF32, kF32, kF32, kF32, kF32, v, dy.p, ds.p, du.p, ds.p, &c4, g_stream));
  y = dy.get<float>(n);
  bad = 0;
  for (int i = 0; i < n; ++i) bad += y[i] != s[i] + 0.5f * u[i] * s[i];
  EXPECT(bad == 0, "addcmul: %d off", bad);
  OK(D->ternary(CT_CUDA_TERNARY_ADDCDIV, kF32, kF32, kF32, kF32, kF32, v, dy.p, ds.p, ds.p, du.p, &c4, g_stream));
  y = dy.get<float>(n);
  bad = 0;
  for (int i = 0; i < n; ++i) bad += y[i] != s[i] + 0.5f * (s[i] / u[i]);
  EXPECT(bad == 0, "addcdiv: %d off", bad);
  const double three[3] = {3, 0, 0};
  OK(D->ternary(CT_CUDA_TERNARY_ADDCMUL, kI64, kI64, kI64, kI64, kI64, three, dio.p, div.p, div.p, dfa.p, &s4, g_stream));
  io = dio.get<int64_t>(4);
  EXPECT(io[0] == -7 + 3 * -7 * 7 && io[3] == 100 + 3 * 100 * -7, "addcmul int64");
}

void test_factories_scans() {
  // arange and linspace: the CPU's double formulas, converted once.
  const int n = 11;
  DevBuf dout(n * 8);
  OK(D->index_fill(CT_CUDA_INDEX_FILL_ARANGE, kF32, 0.5, 0.1, 0, dout.p, n, g_stream));
  std::vector<float> a = dout.get<float>(n);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += a[i] != static_cast<float>(0.5 + static_cast<double>(i) * 0.1);
  EXPECT(bad == 0, "arange: %d off", bad);
  OK(D->index_fill(CT_CUDA_INDEX_FILL_LINSPACE, kF64, -1.0, 2.3, 0, dout.p, n, g_stream));
  std::vector<double> l = dout.get<double>(n);
  const double step = (2.3 - -1.0) / (n - 1);
  bad = 0;
  for (int i = 0; i < n; ++i) bad += l[i] != (i < n / 2 ? -1.0 + step * i : 2.3 - step * (n - 1 - i));
  EXPECT(bad == 0 && l[0] == -1.0 && l[n - 1] == 2.3, "linspace: %d off", bad);
  OK(D->index_fill(CT_CUDA_INDEX_FILL_EYE, kI64, 0, 0, 4, dout.p, 8, g_stream));
  std::vector<int64_t> e = dout.get<int64_t>(8);
  EXPECT(e[0] == 1 && e[5] == 1 && e[1] == 0 && e[4] == 0 && e[7] == 0, "eye 2x4");

  // cumsum of float32 along the middle of [2, 50, 3]: the sequential fold in float64.
  const int outer = 2, len = 50, inner = 3, total = outer * len * inner;
  std::vector<float> x = ramp(total, 3, 0.1f);
  DevBuf dx = upload(x), dy(total * 8), di(total * 8);
  OK(D->scan(CT_CUDA_SCAN_CUMSUM, kF32, kF32, dy.p, nullptr, dx.p, outer, len, inner, g_stream));
  std::vector<float> y = dy.get<float>(total);
  bad = 0;
  for (int o = 0; o < outer; ++o)
    for (int j = 0; j < inner; ++j) {
      double acc = 0;
      for (int i = 0; i < len; ++i) {
        const int k = (o * len + i) * inner + j;
        acc += x[k];
        bad += y[k] != static_cast<float>(acc);
      }
    }
  EXPECT(bad == 0, "cumsum: %d off", bad);
  const std::vector<int32_t> pi = {1, 2, -3, 4, 5};
  DevBuf dpi = upload(pi);
  OK(D->scan(CT_CUDA_SCAN_CUMPROD, kI64, kI32, dy.p, nullptr, dpi.p, 1, 5, 1, g_stream));
  std::vector<int64_t> pr = dy.get<int64_t>(5);
  EXPECT(pr[0] == 1 && pr[1] == 2 && pr[2] == -6 && pr[3] == -24 && pr[4] == -120, "cumprod int");
  // cummax: ties take the later index, a NaN sticks and each later NaN takes its place.
  const float nan = std::nanf("");
  const std::vector<float> cm = {1, 3, 3, 2, nan, 9, nan};
  DevBuf dcm = upload(cm);
  OK(D->scan(CT_CUDA_SCAN_CUMMAX, kF32, kF32, dy.p, di.p, dcm.p, 1, 7, 1, g_stream));
  std::vector<float> mv = dy.get<float>(7);
  std::vector<int64_t> mi = di.get<int64_t>(7);
  EXPECT(mv[0] == 1 && mv[2] == 3 && mv[3] == 3 && std::isnan(mv[5]) && std::isnan(mv[6]), "cummax values");
  EXPECT(mi[0] == 0 && mi[1] == 1 && mi[2] == 2 && mi[3] == 2 && mi[4] == 4 && mi[5] == 4 && mi[6] == 6,
         "cummax indices %lld %lld %lld %lld %lld %lld %lld", (long long)mi[0], (long long)mi[1], (long long)mi[2],
         (long long)mi[3], (long long)mi[4], (long long)mi[5], (long long)mi[6]);

  // all / any / count_nonzero (NaN is nonzero) and the p-norms.
  const std::vector<float> lg = {1, 0, nan, 2, 1, 1, -3, 0.5f};
  DevBuf dlg = upload(lg), dr(16);
  OK(D->reduce(CT_CUDA_REDUCE_ALL, kBool, kF32, dr.p, nullptr, dlg.p, 2, 4, 1, 0, g_stream));
  std::vector<uint8_t> rb = dr.get<uint8_t>(2);
  EXPECT(rb[0] == 0 && rb[1] == 1, "all %d %d", rb[0], rb[1]);
  OK(D->reduce(CT_CUDA_REDUCE_ANY, kBool, kF32, dr.p, nullptr, dlg.p, 2, 4, 1, 0, g_stream));
  rb = dr.get<uint8_t>(2);
  EXPECT(rb[0] == 1 && rb[1] == 1, "any");
  OK(D->reduce(CT_CUDA_REDUCE_COUNT_NONZERO, kI64, kF32, dr.p, nullptr, dlg.p, 2, 4, 1, 0, g_stream));
  std::vector<int64_t> rc = dr.get<int64_t>(2);
  EXPECT(rc[0] == 3 && rc[1] == 4, "count_nonzero %lld %lld", (long long)rc[0], (long long)rc[1]);
  const std::vector<float> nv = {3, -4, 0, 1};
  DevBuf dnv = upload(nv);
  const double ps[] = {2, 1, INFINITY, -INFINITY, 0, 3};
  const double want[] = {std::sqrt(26.0), 8, 4, 0, 3, std::cbrt(27 + 64 + 1.0)};
  for (int k = 0; k < 6; ++k) {
    OK(D->reduce(CT_CUDA_REDUCE_NORM, kF32, kF32, dr.p, nullptr, dnv.p, 1, 4, 1, ps[k], g_stream));
    const float got = dr.get<float>(1)[0];
    EXPECT(close_to(got, want[k], 1e-6), "norm p=%g: %g vs %g", ps[k], got, want[k]);
  }
}

// ---- Random sampling (appended members): host references are the CPU's formulas
// (ops/random/random.cpp fill_bernoulli / fill_randint, sampling.cpp randperm / multinomial).

void test_sampling_arguments() {
  float dummy[4] = {0, 0, 0, 0};
  int64_t err[1] = {0};
  EXPECT(D->check_probabilities(7, reinterpret_cast<double*>(dummy), 1, 2, 1, err, nullptr) ==
             CT_CUDA_ERR_INVALID_ARGUMENT, "unknown check mode");
  EXPECT(D->check_probabilities(CT_CUDA_CHECK_BERNOULLI, nullptr, 1, 2, 1, nullptr, nullptr) ==
             CT_CUDA_ERR_INVALID_ARGUMENT, "NULL error flag");
  EXPECT(D->philox_bernoulli(42, dummy, 4, 1, 0, nullptr, 0.5, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT,
         "bernoulli into an unknown dtype");
  EXPECT(D->philox_randint(kI64, dummy, 4, 1, 0, 3, 3, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT, "empty range");
  EXPECT(std::strstr(D->last_error(), "randint") != nullptr, "message names the member: %s", D->last_error());
  EXPECT(D->philox_sort_keys(5, dummy, nullptr, 4, 1, 0, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT, "unknown keys");
  EXPECT(D->philox_sort_keys(CT_CUDA_SORT_KEYS_MULTINOMIAL, dummy, nullptr, 4, 1, 0, nullptr) ==
             CT_CUDA_ERR_INVALID_ARGUMENT, "multinomial keys without weights");
  EXPECT(D->multinomial_replacement(nullptr, nullptr, 1, 0, 1, 1, 0, nullptr, nullptr) ==
             CT_CUDA_ERR_INVALID_ARGUMENT, "no categories");
  // Nothing to do is no work (and no device needed).
  OK(D->philox_bernoulli(kF32, nullptr, 0, 1, 0, nullptr, 0.5, nullptr));
  OK(D->philox_randint(kI64, nullptr, 0, 1, 0, 0, 9, nullptr));
}

namespace pr = ct::ops::random;

// Word i of the E-per-block map: w(i) of block first + i / 4.
uint32_t word_at(uint64_t seed, uint64_t first, int64_t i) { return pr::philox(seed, first + i / 4).w[i % 4]; }
// The 64-bit draw of element i of a 2-per-block map (low word first).
uint64_t wide_at(uint64_t seed, uint64_t first, int64_t i) {
  const pr::Words x = pr::philox(seed, first + i / 2);
  const int j = static_cast<int>(i % 2);
  return uint64_t{x.w[2 * j + 1]} << 32 | x.w[2 * j];
}

void test_sampling() {
  const uint64_t seed = 0x5eed1234ULL, first = 91;
  const int64_t n = 1003;
  constexpr double k32 = 1.0 / 4294967296.0;

  // bernoulli with a probability per element, and bernoulli.p into float32, bool and int64.
  std::vector<double> p(n);
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<double>((i * 37) % 101) / 100.0;
  DevBuf dp = upload(p), dout(n * 8), derr(8);
  OK(D->check_probabilities(CT_CUDA_CHECK_BERNOULLI, static_cast<double*>(dp.p), 1, n, 0,
                            static_cast<int64_t*>(derr.p), g_stream));
  EXPECT(derr.get<int64_t>(1)[0] == -1, "valid probabilities flagged at %lld", (long long)derr.get<int64_t>(1)[0]);
  OK(D->philox_bernoulli(kF32, dout.p, n, seed, first, static_cast<double*>(dp.p), 0, g_stream));
  std::vector<float> bf = dout.get<float>(n);
  int bad = 0;
  for (int64_t i = 0; i < n; ++i)
    bad += bf[i] != (static_cast<double>(word_at(seed, first, i)) * k32 < p[i] ? 1.f : 0.f);
  EXPECT(bad == 0, "bernoulli(p tensor): %d of %lld differ from the CPU formula", bad, (long long)n);
  for (int dt : {kBool, kI64}) {
    OK(D->philox_bernoulli(dt, dout.p, n, seed, first, nullptr, 0.3, g_stream));
    bad = 0;
    if (dt == kBool) {
      const std::vector<uint8_t> b = dout.get<uint8_t>(n);
      for (int64_t i = 0; i < n; ++i) bad += b[i] != (static_cast<double>(word_at(seed, first, i)) * k32 < 0.3);
    } else {
      const std::vector<int64_t> b = dout.get<int64_t>(n);
      for (int64_t i = 0; i < n; ++i) bad += b[i] != (static_cast<double>(word_at(seed, first, i)) * k32 < 0.3);
    }
    EXPECT(bad == 0, "bernoulli.p dtype %d: %d differ", dt, bad);
  }
  // The first bad probability (NaN counts) is the one reported.
  std::vector<double> q = p;
  q[700] = -0.25, q[5] = std::nan(""), q[900] = 1.5;
  DevBuf dq = upload(q);
  OK(D->check_probabilities(CT_CUDA_CHECK_BERNOULLI, static_cast<double*>(dq.p), 1, n, 0,
                            static_cast<int64_t*>(derr.p), g_stream));
  EXPECT(derr.get<int64_t>(1)[0] == 5, "first bad probability at %lld", (long long)derr.get<int64_t>(1)[0]);

  // randint: narrow into int64 and float32, wide into int64.
  OK(D->philox_randint(kI64, dout.p, n, seed, first, -5, 17, g_stream));
  std::vector<int64_t> ri = dout.get<int64_t>(n);
  bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += ri[i] != static_cast<int64_t>(uint64_t(-5) + word_at(seed, first, i) % 22u);
  EXPECT(bad == 0, "randint narrow int64: %d differ", bad);
  OK(D->philox_randint(kF32, dout.p, n, seed, first, 0, int64_t{1} << 24, g_stream));
  std::vector<float> rf = dout.get<float>(n);
  bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += rf[i] != static_cast<float>(word_at(seed, first, i) % (1u << 24));
  EXPECT(bad == 0, "randint narrow float32: %d differ", bad);
  OK(D->philox_randint(kI64, dout.p, n, seed, first, 0, int64_t{1} << 32, g_stream));  // range 2^32: still narrow
  ri = dout.get<int64_t>(n);
  bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += ri[i] != static_cast<int64_t>(word_at(seed, first, i));
  EXPECT(bad == 0, "randint range 2^32: %d differ", bad);
  const int64_t lo = -(int64_t{1} << 40), hi = int64_t{3} << 40;
  OK(D->philox_randint(kI64, dout.p, n, seed, first, lo, hi, g_stream));
  ri = dout.get<int64_t>(n);
  bad = 0;
  for (int64_t i = 0; i < n; ++i)
    bad += ri[i] != static_cast<int64_t>(uint64_t(lo) + wide_at(seed, first, i) % (uint64_t(hi) - uint64_t(lo)));
  EXPECT(bad == 0, "randint wide: %d differ", bad);

  // randperm: the keys sorted by the table's stable sort give the CPU's permutation.
  DevBuf dkeys(n * 8), didx(n * 8);
  OK(D->philox_sort_keys(CT_CUDA_SORT_KEYS_RANDPERM, dkeys.p, nullptr, n, seed, first, g_stream));
  size_t ws_bytes = 0;
  OK(D->sort_workspace(kI64, 1, n, &ws_bytes));
  DevBuf ws(ws_bytes + 16);
  OK(D->sort(kI64, 0, nullptr, static_cast<int64_t*>(didx.p), dkeys.p, 1, n, ws.p, ws_bytes, g_stream));
  const std::vector<int64_t> perm = didx.get<int64_t>(n);
  std::vector<std::pair<uint64_t, int64_t>> keyed(n);
  for (int64_t i = 0; i < n; ++i) keyed[i] = {wide_at(seed, first, i), i};
  std::sort(keyed.begin(), keyed.end());
  bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += perm[i] != keyed[i].second;
  EXPECT(bad == 0, "randperm: %d positions differ from the CPU's", bad);

  // multinomial: 3 rows of 7 weights (zeros included).
  const int64_t rows = 3, cols = 7, ks = 501;
  std::vector<double> w = {0.5, 0, 2, 1, 0, 0.25, 0,  //
                           0, 0, 0, 3, 0, 0, 0,       //
                           1, 1, 1, 1, 1, 1, 1e-300};
  DevBuf dw = upload(w), dm(rows * ks * 8), dcdf((rows * cols + rows) * 8);
  OK(D->check_probabilities(CT_CUDA_CHECK_MULTINOMIAL, static_cast<double*>(dw.p), rows, cols, 1,
                            static_cast<int64_t*>(derr.p), g_stream));
  EXPECT(derr.get<int64_t>(1)[0] == -1, "valid weights refused");
  OK(D->check_probabilities(CT_CUDA_CHECK_MULTINOMIAL, static_cast<double*>(dw.p), rows, cols, 2,
                            static_cast<int64_t*>(derr.p), g_stream));
  EXPECT(derr.get<int64_t>(1)[0] == 1, "row 1 has one positive weight, fewer than 2: %lld",
         (long long)derr.get<int64_t>(1)[0]);
  OK(D->multinomial_replacement(static_cast<int64_t*>(dm.p), static_cast<double*>(dw.p), rows, cols, ks, seed, first,
                                dcdf.p, g_stream));
  const std::vector<int64_t> mr = dm.get<int64_t>(rows * ks);
  bad = 0;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> cdf(cols);
    std::partial_sum(w.begin() + r * cols, w.begin() + (r + 1) * cols, cdf.begin());
    int64_t last = cols - 1;
    while (w[r * cols + last] == 0) --last;
    for (int64_t s = 0; s < ks; ++s) {
      const int64_t i = r * ks + s;
      const uint64_t b = wide_at(seed, first, i);
      const double x = pr::uniform_double(static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32)) * cdf.back();
      const int64_t j = std::upper_bound(cdf.begin(), cdf.end(), x) - cdf.begin();
      bad += mr[i] != std::min(j, last);
    }
  }
  EXPECT(bad == 0, "multinomial with replacement: %d differ", bad);
  // Without replacement: keys sorted descending per row, the first k of each.
  DevBuf dmk(rows * cols * 8), dmi(rows * cols * 8);
  OK(D->philox_sort_keys(CT_CUDA_SORT_KEYS_MULTINOMIAL, dmk.p, static_cast<double*>(dw.p), rows * cols, seed, first,
                         g_stream));
  OK(D->sort_workspace(kF64, rows, cols, &ws_bytes));
  DevBuf ws2(ws_bytes + 16);
  OK(D->sort(kF64, 1, nullptr, static_cast<int64_t*>(dmi.p), dmk.p, rows, cols, ws2.p, ws_bytes, g_stream));
  const std::vector<int64_t> mo = dmi.get<int64_t>(rows * cols);
  bad = 0;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<std::pair<double, int64_t>> kv(cols);
    for (int64_t j = 0; j < cols; ++j) {
      const uint64_t b = wide_at(seed, first, r * cols + j);
      const double lg = pr::log_f64(1.0 - pr::uniform_double(static_cast<uint32_t>(b), static_cast<uint32_t>(b >> 32)));
      const double wj = w[r * cols + j];
      kv[j] = {wj > 0 ? lg / wj : -INFINITY, j};
    }
    std::sort(kv.begin(), kv.end(), [](const auto& a, const auto& b) {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    for (int64_t j = 0; j < cols; ++j) bad += mo[r * cols + j] != kv[j].second;
  }
  EXPECT(bad == 0, "multinomial without replacement: %d differ", bad);
}

ct_cuda_solver solver_call(int op, int64_t m, int64_t n, int64_t k) {
  ct_cuda_solver s{};
  s.op = op, s.dtype = kF64, s.m = m, s.n = n, s.k = k, s.batch = 1;
  return s;
}

// What the table refuses before it touches a device.
void test_solver_arguments() {
  size_t bytes = 0;
  EXPECT(D->solver_workspace(nullptr, &bytes) == CT_CUDA_ERR_INVALID_ARGUMENT, "NULL args");
  ct_cuda_solver s = solver_call(CT_CUDA_SOLVER_GESVD, 2, 3, 0);
  EXPECT(D->solver_workspace(&s, &bytes) == CT_CUDA_ERR_INVALID_ARGUMENT, "gesvd with m < n");
  s = solver_call(CT_CUDA_SOLVER_ORGQR, 3, 2, 3);
  EXPECT(D->solver(&s, nullptr, 0, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT, "orgqr with k > n");
  s = solver_call(11, 2, 2, 0);
  EXPECT(D->solver(&s, nullptr, 0, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT, "unknown solver op");
  s = solver_call(CT_CUDA_SOLVER_GETRF, -1, 2, 0);
  EXPECT(D->solver_workspace(&s, &bytes) == CT_CUDA_ERR_INVALID_ARGUMENT, "negative size");
  EXPECT(std::strstr(D->last_error(), "negative") != nullptr, "message says why: %s", D->last_error());
  s = solver_call(CT_CUDA_SOLVER_GETRF, 70000, 70000, 0);
  EXPECT(D->solver_workspace(&s, &bytes) == CT_CUDA_ERR_INVALID_ARGUMENT, "2^31 elements");
  s = solver_call(CT_CUDA_SOLVER_SYTRF, 3, 2, 0);
  EXPECT(D->solver_workspace(&s, &bytes) == CT_CUDA_ERR_INVALID_ARGUMENT, "sytrf of a 3 x 2 matrix");
  s = solver_call(CT_CUDA_SOLVER_GEEV, 3, 2, 0);
  EXPECT(D->solver(&s, nullptr, 0, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT, "geev of a 3 x 2 matrix");
  s = solver_call(CT_CUDA_SOLVER_SYTRS, 3, 3, 0);
  EXPECT(D->solver_workspace(&s, &bytes) == CT_CUDA_OK && bytes == 0, "sytrs without right-hand sides needs nothing");
  float dummy[4] = {0, 0, 0, 0};
  EXPECT(D->trsm(kI64, 1, 0, 0, 0, 2, 2, dummy, 4, dummy, 4, 1, nullptr) == CT_CUDA_ERR_UNSUPPORTED, "trsm of int64");
  EXPECT(D->trsm(kF32, 1, 0, 0, 0, -2, 2, dummy, 4, dummy, 4, 1, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT,
         "trsm of a negative size");
}

// Each routine on a 4 x 4 (or 5 x 3) float64 matrix, checked by putting the results back together
// on the host: L U = P A, A x = b, L L^T = A, A v = w v, U S VT = A, Q R = A, L X = B.
void test_solver() {
  const int n = 4;
  // Column-major; SPD: diagonally dominant and symmetric.
  const std::vector<double> A = {4, 1, 0.5, 0.2, 1, 5, 0.3, 0.1, 0.5, 0.3, 6, 0.7, 0.2, 0.1, 0.7, 7};
  auto at = [&](const std::vector<double>& M, int rows, int i, int j) { return M[j * rows + i]; };
  auto run = [&](ct_cuda_solver s) {
    size_t bytes = 0;
    OK(D->solver_workspace(&s, &bytes));
    DevBuf work(bytes ? bytes : 1);
    OK(D->solver(&s, work.p, bytes, g_stream));
  };
  DevBuf info(4);
  {  // GETRF, GETRS: A x = b for b = A 1
    DevBuf a(n * n * 8), piv(n * 4), b(n * 8);
    a.put(A);
    std::vector<double> rhs(n, 0.0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) rhs[i] += at(A, n, i, j);
    b.put(rhs);
    ct_cuda_solver s = solver_call(CT_CUDA_SOLVER_GETRF, n, n, 0);
    s.a = a.p, s.ipiv = static_cast<int32_t*>(piv.p), s.info = static_cast<int32_t*>(info.p);
    run(s);
    EXPECT(info.get<int32_t>(1)[0] == 0, "getrf info");
    s.op = CT_CUDA_SOLVER_GETRS, s.k = 1, s.b = b.p;
    run(s);
    const std::vector<double> x = b.get<double>(n);
    for (int i = 0; i < n; ++i) EXPECT(std::fabs(x[i] - 1) < 1e-12, "getrs x[%d] = %.17g", i, x[i]);
  }
  {  // POTRF (lower): L L^T = A
    DevBuf a(n * n * 8);
    a.put(A);
    ct_cuda_solver s = solver_call(CT_CUDA_SOLVER_POTRF, n, n, 0);
    s.a = a.p, s.info = static_cast<int32_t*>(info.p);
    run(s);
    const std::vector<double> L = a.get<double>(n * n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) {
        double v = 0;
        for (int p = 0; p <= j; ++p) v += at(L, n, i, p) * at(L, n, j, p);
        EXPECT(std::fabs(v - at(A, n, i, j)) < 1e-12, "potrf (L L^T)[%d, %d] = %.17g", i, j, v);
      }
  }
  {  // SYEVD: A v = w v, w ascending
    DevBuf a(n * n * 8), w(n * 8);
    a.put(A);
    ct_cuda_solver s = solver_call(CT_CUDA_SOLVER_SYEVD, n, n, 0);
    s.a = a.p, s.w = w.p, s.info = static_cast<int32_t*>(info.p);
    run(s);
    const std::vector<double> V = a.get<double>(n * n), W = w.get<double>(n);
    for (int c = 0; c < n; ++c) {
      if (c) EXPECT(W[c - 1] <= W[c], "syevd ascending: %g then %g", W[c - 1], W[c]);
      for (int i = 0; i < n; ++i) {
        double av = 0;
        for (int p = 0; p < n; ++p) av += at(A, n, i, p) * at(V, n, p, c);
        EXPECT(std::fabs(av - W[c] * at(V, n, i, c)) < 1e-12, "syevd (A v)[%d] of vector %d", i, c);
      }
    }
  }
  const int m = 5, k = 3;  // a tall matrix for the SVD and the QR
  std::vector<double> T(m * k);
  for (int i = 0; i < m * k; ++i) T[i] = std::sin(1.0 + i) + (i % (m + 1) == 0 ? 2 : 0);
  {  // GESVD (reduced): U S VT = T
    DevBuf a(m * k * 8), u(m * k * 8), vt(k * k * 8), sv(k * 8);
    a.put(T);
    ct_cuda_solver s = solver_call(CT_CUDA_SOLVER_GESVD, m, k, 0);
    s.a = a.p, s.b = u.p, s.c = vt.p, s.w = sv.p, s.info = static_cast<int32_t*>(info.p);
    run(s);
    EXPECT(info.get<int32_t>(1)[0] == 0, "gesvd info");
    const std::vector<double> U = u.get<double>(m * k), VT = vt.get<double>(k * k), S = sv.get<double>(k);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < k; ++j) {
        double v = 0;
        for (int p = 0; p < k; ++p) v += at(U, m, i, p) * S[p] * at(VT, k, p, j);
        EXPECT(std::fabs(v - at(T, m, i, j)) < 1e-12, "gesvd (U S VT)[%d, %d] = %.17g", i, j, v);
      }
  }
  {  // GEQRF, then ORGQR on a copy: Q R = T
    DevBuf a(m * k * 8), tau(k * 8), q(m * k * 8);
    a.put(T);
    ct_cuda_solver s = solver_call(CT_CUDA_SOLVER_GEQRF, m, k, 0);
    s.a = a.p, s.w = tau.p, s.info = static_cast<int32_t*>(info.p);
    run(s);
    const std::vector<double> R = a.get<double>(m * k);
    q.put(R);
    s.op = CT_CUDA_SOLVER_ORGQR, s.k = k, s.a = q.p;
    run(s);
    const std::vector<double> Q = q.get<double>(m * k);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < k; ++j) {
        double v = 0;
        for (int p = 0; p <= j; ++p) v += at(Q, m, i, p) * at(R, m, p, j);
        EXPECT(std::fabs(v - at(T, m, i, j)) < 1e-12, "geqrf, orgqr (Q R)[%d, %d] = %.17g", i, j, v);
      }
  }
  {  // SYTRF, SYTRS on the indefinite [[1, 2], [2, 1]] and [[3, 1], [1, -2]] (a batch of 2): A x = A 1
    const std::vector<double> S = {1, 2, 2, 1, 3, 1, 1, -2};
    DevBuf a(8 * 8), piv(2 * 2 * 4), b(4 * 8), infos(2 * 4);
    a.put(S);
    b.put(std::vector<double>{3, 3, 4, -1});
    ct_cuda_solver s = solver_call(CT_CUDA_SOLVER_SYTRF, 2, 2, 0);
    s.batch = 2, s.a = a.p, s.ipiv = static_cast<int32_t*>(piv.p), s.info = static_cast<int32_t*>(infos.p);
    run(s);
    const std::vector<int32_t> fi = infos.get<int32_t>(2);
    EXPECT(fi[0] == 0 && fi[1] == 0, "sytrf infos %d %d", fi[0], fi[1]);
    s.op = CT_CUDA_SOLVER_SYTRS, s.k = 1, s.b = b.p;
    run(s);
    const std::vector<double> x = b.get<double>(4);
    for (int i = 0; i < 4; ++i) EXPECT(std::fabs(x[i] - 1) < 1e-12, "sytrs x[%d] = %.17g", i, x[i]);
  }
  {  // GEEV on the rotation [[0, -1], [1, 0]] (eigenvalues i and -i) and diag(2, 3), a batch of 2:
     // A v = w v for each complex eigenpair, checked on the host
    const std::vector<double> G = {0, 1, -1, 0, 2, 0, 0, 3};  // column-major
    DevBuf a(8 * 8), w(2 * 2 * 2 * 8), v(2 * 4 * 2 * 8), infos(2 * 4);
    a.put(G);
    ct_cuda_solver s = solver_call(CT_CUDA_SOLVER_GEEV, 2, 2, 0);
    s.batch = 2, s.a = a.p, s.w = w.p, s.c = v.p, s.info = static_cast<int32_t*>(infos.p);
    run(s);
    const std::vector<int32_t> gi = infos.get<int32_t>(2);
    EXPECT(gi[0] == 0 && gi[1] == 0, "geev infos %d %d", gi[0], gi[1]);
    const std::vector<double> W = w.get<double>(8), V = v.get<double>(16);
    EXPECT(std::fabs(W[0]) < 1e-12 && std::fabs(std::fabs(W[1]) - 1) < 1e-12 && std::fabs(W[1] + W[3]) < 1e-12,
           "rotation eigenvalues %g%+gi, %g%+gi", W[0], W[1], W[2], W[3]);
    for (int m = 0; m < 2; ++m)
      for (int j = 0; j < 2; ++j) {
        const double wr = W[m * 4 + 2 * j], wi = W[m * 4 + 2 * j + 1];
        for (int r = 0; r < 2; ++r) {
          double re = 0, im = 0;  // (A v)_r
          for (int c = 0; c < 2; ++c) {
            const double x = G[m * 4 + c * 2 + r], vre = V[m * 8 + (j * 2 + c) * 2], vim = V[m * 8 + (j * 2 + c) * 2 + 1];
            re += x * vre, im += x * vim;
          }
          const double vre = V[m * 8 + (j * 2 + r) * 2], vim = V[m * 8 + (j * 2 + r) * 2 + 1];
          EXPECT(std::fabs(re - (wr * vre - wi * vim)) < 1e-12 && std::fabs(im - (wr * vim + wi * vre)) < 1e-12,
                 "geev (A v - w v)[%d][%d, %d]", m, r, j);
        }
      }
  }
  {  // TRSM: L X = B with L A's lower triangle, a batch of 2 (the second right-hand side doubled)
    std::vector<double> B(2 * n * 2);
    for (int i = 0; i < n * 2; ++i) B[i] = 1 + i, B[n * 2 + i] = 2 * (1 + i);
    DevBuf a(n * n * 8), b(B.size() * 8);
    a.put(A);
    b.put(B);
    OK(D->trsm(kF64, 1, 0, 0, 0, n, 2, a.p, 0, b.p, n * 2, 2, g_stream));
    const std::vector<double> X = b.get<double>(B.size());
    for (int bt = 0; bt < 2; ++bt)
      for (int j = 0; j < 2; ++j)
        for (int i = 0; i < n; ++i) {
          double v = 0;
          for (int p = 0; p <= i; ++p) v += at(A, n, i, p) * X[bt * n * 2 + j * n + p];
          EXPECT(std::fabs(v - B[bt * n * 2 + j * n + i]) < 1e-12, "trsm (L X)[%d][%d, %d] = %.17g", bt, i, j, v);
        }
  }
}

ct_cuda_fft fft_call(int kind, int dtype, std::initializer_list<int64_t> n, int64_t batch, void* in, void* out) {
  ct_cuda_fft a{};
  a.kind = kind, a.dtype = dtype, a.rank = static_cast<int32_t>(n.size()), a.batch = batch, a.in = in, a.out = out;
  int i = 0;
  for (int64_t v : n)
    if (i < 3) a.n[i++] = v;  // a rank past 3 is refused before n is read
  return a;
}

// What fft refuses before it touches a device; an empty batch needs no device at all.
void test_fft_arguments() {
  size_t bytes = 7;
  double dummy[4] = {0, 0, 0, 0};
  EXPECT(D->fft_workspace(nullptr, &bytes) == CT_CUDA_ERR_INVALID_ARGUMENT, "NULL args");
  ct_cuda_fft a = fft_call(3, kF32, {4}, 1, dummy, dummy);
  EXPECT(D->fft(&a, nullptr, 0, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT, "unknown kind");
  a = fft_call(CT_CUDA_FFT_C2C, kI64, {4}, 1, dummy, dummy);
  EXPECT(D->fft_workspace(&a, &bytes) == CT_CUDA_ERR_INVALID_ARGUMENT, "int64 transform");
  a = fft_call(CT_CUDA_FFT_C2C, kF64, {2, 2, 2, 2}, 1, dummy, dummy);
  EXPECT(D->fft_workspace(&a, &bytes) == CT_CUDA_ERR_INVALID_ARGUMENT, "rank 4");
  a = fft_call(CT_CUDA_FFT_C2C, kF64, {3, 0}, 1, dummy, dummy);
  EXPECT(D->fft(&a, nullptr, 0, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT, "a size of 0");
  EXPECT(std::strstr(D->last_error(), "at least 1") != nullptr, "message says why: %s", D->last_error());
  a = fft_call(CT_CUDA_FFT_R2C, kF32, {8}, 1, dummy, dummy);
  EXPECT(D->fft(&a, nullptr, 0, nullptr) == CT_CUDA_ERR_INVALID_ARGUMENT, "a real transform in place");
  a = fft_call(CT_CUDA_FFT_C2R, kF64, {8}, 0, nullptr, nullptr);
  EXPECT(D->fft_workspace(&a, &bytes) == CT_CUDA_OK && bytes == 0, "an empty batch: no workspace");
  EXPECT(D->fft(&a, nullptr, 0, nullptr) == CT_CUDA_OK, "an empty batch: nothing to do");
}

// The transforms against the definition, X[k] = sum_j x[j] e^(-2 pi i jk / n) (summed in double on
// the host): C2C in float32 (two signals of 8), forward and inverse; R2C and C2R in float64 (three
// signals of 6); a 3 x 5 C2C in float64 over both dims.
void test_fft() {
  auto run = [&](ct_cuda_fft a) {
    size_t bytes = 0;
    OK(D->fft_workspace(&a, &bytes));
    DevBuf work(bytes ? bytes : 1);
    OK(D->fft(&a, work.p, bytes, g_stream));
  };
  // The n-point DFT of the complex signal x (interleaved pairs), sign -1 forward, +1 inverse.
  auto dft = [](const std::vector<double>& x, int64_t n, int sign) {
    std::vector<double> y(2 * n, 0.0);
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < n; ++j) {
        const double t = sign * 2 * M_PI * static_cast<double>((j * k) % n) / static_cast<double>(n);
        y[2 * k] += x[2 * j] * std::cos(t) - x[2 * j + 1] * std::sin(t);
        y[2 * k + 1] += x[2 * j] * std::sin(t) + x[2 * j + 1] * std::cos(t);
      }
    return y;
  };
  {  // C2C float32, batch 2 of 8
    std::vector<float> x(2 * 2 * 8);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.7 * static_cast<double>(i)) + 0.1 * i);
    DevBuf in(x.size() * 4), out(x.size() * 4);
    in.put(x);
    run(fft_call(CT_CUDA_FFT_C2C, kF32, {8}, 2, in.p, out.p));
    const std::vector<float> y = out.get<float>(x.size());
    for (int b = 0; b < 2; ++b) {
      const std::vector<double> sig(x.begin() + b * 16, x.begin() + (b + 1) * 16);
      const std::vector<double> want = dft(sig, 8, -1);
      for (int i = 0; i < 16; ++i)
        EXPECT(std::fabs(y[b * 16 + i] - want[i]) < 1e-4, "c2c [%d][%d] = %g, want %g", b, i, y[b * 16 + i], want[i]);
    }
    ct_cuda_fft back = fft_call(CT_CUDA_FFT_C2C, kF32, {8}, 2, out.p, out.p);  // in place
    back.inverse = 1;
    run(back);
    const std::vector<float> z = out.get<float>(x.size());
    for (size_t i = 0; i < x.size(); ++i) EXPECT(std::fabs(z[i] - 8 * x[i]) < 1e-4, "inverse c2c [%zu] = %g", i, z[i]);
  }
  {  // R2C and C2R float64, batch 3 of 6: the half spectrum (4 points), then 6 times the signal back
    std::vector<double> x(3 * 6);
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::cos(1.3 * static_cast<double>(i)) - 0.05 * i;
    DevBuf in(x.size() * 8), half(3 * 4 * 2 * 8), back(x.size() * 8);
    in.put(x);
    run(fft_call(CT_CUDA_FFT_R2C, kF64, {6}, 3, in.p, half.p));
    const std::vector<double> y = half.get<double>(3 * 4 * 2);
    for (int b = 0; b < 3; ++b) {
      std::vector<double> sig(12, 0.0);
      for (int j = 0; j < 6; ++j) sig[2 * j] = x[b * 6 + j];
      const std::vector<double> want = dft(sig, 6, -1);
      for (int i = 0; i < 8; ++i)
        EXPECT(std::fabs(y[b * 8 + i] - want[i]) < 1e-12, "r2c [%d][%d] = %.17g, want %.17g", b, i, y[b * 8 + i], want[i]);
    }
    run(fft_call(CT_CUDA_FFT_C2R, kF64, {6}, 3, half.p, back.p));
    const std::vector<double> z = back.get<double>(x.size());
    for (size_t i = 0; i < x.size(); ++i) EXPECT(std::fabs(z[i] - 6 * x[i]) < 1e-12, "c2r [%zu] = %.17g", i, z[i]);
  }
  {  // C2C float64 over a 3 x 5 signal: the 5-point DFT of each row, then the 3-point DFT of each column
    std::vector<double> x(2 * 15);
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.3 * static_cast<double>(i * i)) + 0.2;
    DevBuf in(x.size() * 8), out(x.size() * 8);
    in.put(x);
    run(fft_call(CT_CUDA_FFT_C2C, kF64, {3, 5}, 1, in.p, out.p));
    const std::vector<double> y = out.get<double>(x.size());
    std::vector<double> rows(x.size());
    for (int r = 0; r < 3; ++r) {
      const std::vector<double> t = dft(std::vector<double>(x.begin() + r * 10, x.begin() + (r + 1) * 10), 5, -1);
      std::copy(t.begin(), t.end(), rows.begin() + r * 10);
    }
    for (int c = 0; c < 5; ++c) {
      std::vector<double> col(6);
      for (int r = 0; r < 3; ++r) col[2 * r] = rows[r * 10 + 2 * c], col[2 * r + 1] = rows[r * 10 + 2 * c + 1];
      const std::vector<double> want = dft(col, 3, -1);
      for (int r = 0; r < 3; ++r)
        for (int part = 0; part < 2; ++part)
          EXPECT(std::fabs(y[r * 10 + 2 * c + part] - want[2 * r + part]) < 1e-12, "2-d c2c [%d, %d].%d = %.17g", r, c,
                 part, y[r * 10 + 2 * c + part]);
    }
  }
}

int main() {
  void* lib = dlopen(CT_CUDA_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::printf("FAIL: dlopen(%s): %s\n", CT_CUDA_LIBRARY_PATH, dlerror());
    return 1;
  }
  test_handshake(lib);
  if (!D) return 1;
  int count = -1;
  OK(D->device_count(&count));
  EXPECT(count >= 0, "device_count %d", count);
  const std::string reason = D->last_error();
  test_nvrtc();
  test_argument_checks();
  test_argument_checks_more();
  test_sampling_arguments();
  test_solver_arguments();
  test_fft_arguments();
  if (count <= 0) {
    void* p = nullptr;
    const int rc = D->malloc(0, 16, &p);
    EXPECT(rc == CT_CUDA_ERR_NO_DEVICE || rc == CT_CUDA_ERR_CUDA, "malloc without a device gave %d", rc);
    std::printf("skipped: no CUDA device (%s)\n", reason.c_str());
  } else {
    OK(D->set_device(0));
    OK(D->stream_create(0, &g_stream));
    test_elementwise();
    test_reductions();
    test_softmax_layer_norm();
    test_gemm();
    test_random();
    test_graph_and_module(0);
    test_parametrized_pointwise_factories_scans();
    test_factories_scans();
    test_sampling();
    test_solver();
    test_fft();
    OK(D->stream_destroy(g_stream));
  }
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
