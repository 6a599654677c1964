/* isa_digest.c - prints a hash of the exact bits of results from each kernel family, so that a run
 * with CTORCH_CPU_CAPABILITY=default can be compared with one using the AVX2 kernels, and the
 * compiler's fused kernels with their AVX-512 build (see Note [CPU capability dispatch] in
 * src/ops/cpu/isa.h). */
#include <ctorch.h>
#include <stdio.h>
#include <stdlib.h>

static ct_tensor* keep[96];
static int nkeep;

/* Keeps *out (read after the call ran) for release at exit and returns it; exits on a failed status. */
static ct_tensor* ok(ct_status s, ct_tensor** out) {
  if (s != CT_OK) {
    fprintf(stderr, "isa_digest: %s: %s\n", ct_status_name(s), ct_last_error());
    while (nkeep > 0) ct_tensor_release(keep[--nkeep]);
    _Exit(1);
  }
  return keep[nkeep++] = *out;
}
#define OK(call, out) ok((call), &(out))

/* FNV-1a over a tensor's bytes. */
static void digest(const char* name, const ct_tensor* t) {
  static unsigned char buf[1 << 17];
  int64_t n = 0;
  ct_dtype d = CT_FLOAT32;
  size_t bytes = 0;
  if (ct_tensor_numel(t, &n) == CT_OK && ct_tensor_dtype(t, &d) == CT_OK) bytes = (size_t)n * ct_dtype_itemsize(d);
  if (bytes > sizeof buf || ct_tensor_copy_to(t, buf, bytes) != CT_OK) {
    printf("%-8s unreadable\n", name);
    return;
  }
  unsigned long long h = 1469598103934665603ull;
  for (size_t i = 0; i < bytes; ++i) h = (h ^ buf[i]) * 1099511628211ull;
  printf("%-8s %016llx\n", name, h);
}

/* x * sigmoid(x) + sin(y) * 0.5 - x, and x - mean(x) over rows: one fused kernel each. */
static ct_status fused_chain(void* ud, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)ud, (void)n, (void)nout;
  const ct_scalar half = {CT_SCALAR_FLOAT, 0, 0.5};
  const int64_t last = -1;
  ct_tensor *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL, *f = NULL, *g = NULL;
  ct_status st = ct_tensor_sigmoid(in[0], &a);
  if (!st) st = ct_tensor_mul(in[0], a, &b);
  if (!st) st = ct_tensor_sin(in[1], &c);
  if (!st) st = ct_tensor_mul_scalar(c, &half, &d);
  if (!st) st = ct_tensor_add(b, d, &e);
  if (!st) st = ct_tensor_sub(e, in[0], &out[0]);
  if (!st) st = ct_tensor_mean(in[0], &last, 1, 1, &f);
  if (!st) st = ct_tensor_sub(in[0], f, &g);
  if (!st) st = ct_tensor_exp(g, &out[1]);
  ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c), ct_tensor_release(d), ct_tensor_release(e);
  ct_tensor_release(f), ct_tensor_release(g);
  return st;
}

int main(void) {
  ct_tensor *i, *x, *s, *t, *h, *m, *r;
  const ct_scalar k037 = {CT_SCALAR_FLOAT, 0, 0.37}, k11 = {CT_SCALAR_FLOAT, 0, 11.0}, k01 = {CT_SCALAR_FLOAT, 0, 0.01};
  const int64_t s40[] = {40, 100}, s100[] = {100, 40};
  /* x = i * 0.37 - 11 for i < 4000: every operation below rounds. */
  OK(ct_tensor_arange(0, 4000, 1, CT_FLOAT32, NULL, &i), i);
  OK(ct_tensor_mul_scalar(i, &k037, &t), t);
  OK(ct_tensor_sub_scalar(t, &k11, &x), x);
  OK(ct_tensor_mul_scalar(x, &k01, &s), s);

  digest("x", x);
  digest("sum", OK(ct_tensor_sum(x, NULL, 0, 0, &r), r));
  digest("mean", OK(ct_tensor_mean(x, NULL, 0, 0, &r), r));
  digest("prod", OK(ct_tensor_prod(s, NULL, 0, 0, &r), r));
  digest("amax", OK(ct_tensor_amax(x, NULL, 0, 0, &r), r));
  digest("exp", OK(ct_tensor_exp(s, &r), r));
  digest("sigmoid", OK(ct_tensor_sigmoid(x, &r), r));
  digest("tanh", OK(ct_tensor_tanh(s, &r), r));
  digest("rsqrt", OK(ct_tensor_rsqrt(i, &r), r));
  /* vec_math.h's functions (see Note [Vectorizable float32 math]), over [-7.1, 7.7] and s. */
  const ct_scalar k7 = {CT_SCALAR_FLOAT, 0, 7.0};
  ct_tensor* v = OK(ct_tensor_sub_scalar(s, &k7, &r), r);
  digest("exp_v", OK(ct_tensor_exp(v, &r), r));
  digest("expm1", OK(ct_tensor_expm1(v, &r), r));
  digest("log1p", OK(ct_tensor_log1p(s, &r), r));
  /* log over x (negative: NaN, 0: -inf) and over x scaled into the subnormals. */
  digest("log", OK(ct_tensor_log(x, &r), r));
  const ct_scalar ksub = {CT_SCALAR_FLOAT, 0, 1e-40};
  ct_tensor* xs = OK(ct_tensor_mul_scalar(i, &ksub, &r), r);
  digest("log_sub", OK(ct_tensor_log(xs, &r), r));
  digest("log2", OK(ct_tensor_log2(x, &r), r));
  digest("log10", OK(ct_tensor_log10(x, &r), r));
  digest("erf", OK(ct_tensor_erf(v, &r), r));
  digest("gelu", OK(ct_tensor_gelu(v, "none", &r), r));
  digest("gelu_t", OK(ct_tensor_gelu(v, "tanh", &r), r));
  digest("silu", OK(ct_tensor_silu(v, &r), r));
  digest("softplus", OK(ct_tensor_softplus(v, 1.0, 20.0, &r), r));
  digest("elu", OK(ct_tensor_elu(v, 1.0, 1.0, 1.0, &r), r));
  digest("mish", OK(ct_tensor_mish(v, &r), r));
  digest("div", OK(ct_tensor_div(x, i, &r), r));
  digest("mul", OK(ct_tensor_mul(x, s, &r), r));
  digest("pow", OK(ct_tensor_pow(s, s, &r), r));
  /* a + alpha * b: the one place a compiler could fuse a multiply-add (it must not). */
  const ct_value add_args[3] = {{CT_VALUE_TENSOR, 0, 0, x, NULL, NULL, 0, NULL},
                                {CT_VALUE_TENSOR, 0, 0, s, NULL, NULL, 0, NULL},
                                {CT_VALUE_FLOAT, 0, 0.3, NULL, NULL, NULL, 0, NULL}};
  digest("axpy", OK(ct_op_call("add", add_args, 3, &r, 1), r));
  OK(ct_tensor_to(x, CT_FLOAT16, &h), h);
  digest("half", OK(ct_tensor_mul_scalar(h, &k037, &r), r));
  digest("halfsum", OK(ct_tensor_sum(h, NULL, 0, 0, &r), r));
  OK(ct_tensor_reshape(s, s40, 2, &m), m);
  ct_tensor* m2 = OK(ct_tensor_reshape(s, s100, 2, &r), r);
  digest("mm_f32", OK(ct_tensor_mm(m, m2, &r), r));
  ct_tensor *mh = OK(ct_tensor_to(m, CT_FLOAT16, &r), r), *m2h = OK(ct_tensor_to(m2, CT_FLOAT16, &r), r);
  digest("mm_f16", OK(ct_tensor_mm(mh, m2h, &r), r));
  const int64_t dim1 = 1;
  digest("rowsum", OK(ct_tensor_sum(m, &dim1, 1, 0, &r), r));
  const int64_t dim0 = 0;
  digest("colsum", OK(ct_tensor_sum(m, &dim0, 1, 0, &r), r));   /* Note [Column reductions] */
  digest("colmax", OK(ct_tensor_argmax(m, &dim0, 0, &r), r));
  /* The nn family's row kernels: the vectorized exp (explicit fma) and the layer_norm passes. */
  digest("softmax", OK(ct_tensor_softmax(m, 1, NULL, &r), r));
  digest("log_softmax", OK(ct_tensor_log_softmax(mh, 1, NULL, &r), r));
  const int64_t s100_last = 100;
  digest("layer_norm", OK(ct_tensor_layer_norm(m, &s100_last, 1, NULL, NULL, 1e-5, &r), r));
  digest("sin", OK(ct_tensor_sin(x, &r), r));
  digest("cos", OK(ct_tensor_cos(m, &r), r));
  /* The compiler's fused kernels (AVX-512 where the CPU has it). */
  ct_compiled* chain = NULL;
  if (ct_compile(fused_chain, NULL, NULL, NULL, &chain) != CT_OK) return 1;
  const ct_tensor* chain_in[2] = {m, m2};
  ct_tensor* chain_out[2] = {NULL, NULL};
  ct_tensor* m2t = OK(ct_tensor_reshape(m2, s40, 2, &r), r);
  chain_in[1] = m2t;
  if (ct_compiled_call(chain, chain_in, 2, chain_out, 2) != CT_OK) return 1;
  digest("fused", ok(CT_OK, &chain_out[0]));
  digest("fused_ln", ok(CT_OK, &chain_out[1]));
  ct_compiled_release(chain);
  /* Random numbers: the Philox words and the own log, sin and cos of the normal map. */
  const int64_t n1000[1] = {1000};
  if (ct_manual_seed(9) != CT_OK) return 1;
  digest("randn_f32", OK(ct_tensor_randn(n1000, 1, CT_FLOAT32, NULL, NULL, &r), r));
  digest("randn_f64", OK(ct_tensor_randn(n1000, 1, CT_FLOAT64, NULL, NULL, &r), r));
  digest("rand_f16", OK(ct_tensor_rand(n1000, 1, CT_FLOAT16, NULL, NULL, &r), r));
  while (nkeep > 0) ct_tensor_release(keep[--nkeep]);
  return 0;
}
