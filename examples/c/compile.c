/* compile.c - ct_compile and ct_export from C: a pointwise chain compiled into one fused kernel,
 * automatic dynamic shapes across batch sizes, the printed graph and the metrics; a training loop
 * whose loss is compiled with its backward (CompiledFunctionBackward); a program
 * exported with a dynamic batch, saved and loaded back; and topk with a dynamic k, both ways. */
#include <ctorch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY(call)                                                                        \
  do {                                                                                   \
    ct_status s_ = (call);                                                               \
    if (s_ != CT_OK) {                                                                   \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ct_status_name(s_), ct_last_error()); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

/* The function to compile: x * sigmoid(x) + sin(y) * 0.5 - z. It only calls ctorch operators,
 * and passes a failing operator's status on (its message stays in ct_last_error). */
static ct_status chain(void* user_data, const ct_tensor* const* in, size_t n_in, ct_tensor** out, size_t n_out) {
  (void)user_data, (void)n_in, (void)n_out;
  ct_tensor *s = NULL, *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  ct_scalar half = {CT_SCALAR_FLOAT, 0, 0.5};
  ct_status st = ct_tensor_sigmoid(in[0], &s);
  if (st == CT_OK) st = ct_tensor_mul(in[0], s, &a);
  if (st == CT_OK) st = ct_tensor_sin(in[1], &b);
  if (st == CT_OK) st = ct_tensor_mul_scalar(b, &half, &c);
  if (st == CT_OK) st = ct_tensor_add(a, c, &d);
  if (st == CT_OK) st = ct_tensor_sub(d, in[2], &out[0]);
  ct_tensor_release(s), ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c), ct_tensor_release(d);
  return st;
}

/* topk(x, k): k is the size of in[1] (a meta tensor), or item() of in[1] (an int64 tensor). Either
 * way it is a symbolic int passed through the boxed call. */
static ct_status topk(void* by_item, const ct_tensor* const* in, size_t n_in, ct_tensor** out, size_t n_out) {
  (void)n_in, (void)n_out;
  ct_symint* k = NULL;
  ct_status st = by_item ? ct_tensor_sym_item(in[1], &k) : ct_tensor_sym_size(in[1], 0, &k);
  if (st != CT_OK) return st;
  ct_value args[2];
  memset(args, 0, sizeof args);
  args[0].kind = CT_VALUE_TENSOR;
  args[0].tensor = in[0];
  ct_value_set_symint(&args[1], k);
  st = ct_op_call("topk", args, 2, out, 2);
  ct_symint_release(k);
  return st;
}

static ct_tensor* randn(int64_t rows, int64_t cols) {
  ct_tensor* t = NULL;
  const int64_t sizes[2] = {rows, cols};
  TRY(ct_tensor_randn(sizes, 2, CT_FLOAT32, "cpu", NULL, &t));
  return t;
}

/* mean((sigmoid(x * w) - target)^2): a loss to train w on, w captured through user_data */
static ct_status gated_mse(void* w, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)n, (void)nout;
  ct_tensor *p = NULL, *s = NULL, *d = NULL, *sq = NULL;
  ct_status st = ct_tensor_mul(in[0], (const ct_tensor*)w, &p);
  if (!st) st = ct_tensor_sigmoid(p, &s);
  if (!st) st = ct_tensor_sub(s, in[1], &d);
  if (!st) st = ct_tensor_mul(d, d, &sq);
  if (!st) st = ct_tensor_mean(sq, NULL, 0, 0, &out[0]);
  ct_tensor_release(p), ct_tensor_release(s), ct_tensor_release(d), ct_tensor_release(sq);
  return st;
}

/* 1 when every element of a equals b's. */
static int all_equal(const ct_tensor* a, const ct_tensor* b) {
  ct_tensor *eq = NULL, *all = NULL;
  ct_scalar v;
  TRY(ct_tensor_eq(a, b, &eq));
  TRY(ct_tensor_all(eq, NULL, 0, &all));
  TRY(ct_tensor_item(all, &v));
  ct_tensor_release(eq), ct_tensor_release(all);
  return (int)v.i;
}

static void print_values(const char* label, const ct_tensor* t) {
  char* text = NULL;
  TRY(ct_tensor_to_string(t, &text));
  printf("%s: %s\n", label, text);
  ct_string_release(text);
}

/* Runs a topk program for k = 3 (a meta tensor of size 3, or the int64 tensor 3). */
static void run_topk(const char* label, const ct_program* p, const ct_tensor* x, int by_item) {
  ct_tensor* k = NULL;
  const int64_t three = 3;
  if (by_item) {
    TRY(ct_tensor_from_data(&three, NULL, 0, CT_INT64, &k));
  } else {
    TRY(ct_tensor_empty(&three, 1, CT_FLOAT32, "meta", &k));
  }
  const ct_tensor* in[2] = {x, k};
  ct_tensor* out[2] = {NULL, NULL};
  TRY(ct_program_call(p, in, 2, out, 2));
  print_values(label, out[0]);
  ct_tensor_release(k), ct_tensor_release(out[0]), ct_tensor_release(out[1]);
}

int main(void) {
  TRY(ct_manual_seed(0));

  /* ---- ct_compile: the first call traces, later calls reuse the graph while its guards hold ---- */
  ct_compiled* fn = NULL;
  TRY(ct_compile(chain, NULL, NULL, NULL, &fn));
  for (int64_t batch = 2; batch <= 6; ++batch) {
    ct_tensor *x = randn(batch, 8), *y = randn(batch, 8), *z = randn(batch, 8), *out = NULL, *want = NULL;
    const ct_tensor* in[3] = {x, y, z};
    TRY(ct_compiled_call(fn, in, 3, &out, 1));
    TRY(chain(NULL, in, 3, &want, 1)); /* eager, for comparison */
    printf("batch %lld: compiled == eager: %s\n", (long long)batch, all_equal(out, want) ? "yes" : "no");
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(z), ct_tensor_release(out), ct_tensor_release(want);
  }
  /* Entry 0 was traced static at batch 2; batch 3 changed dim 0, so entry 1 has it symbolic (s0). */
  char* text = NULL;
  TRY(ct_compiled_graph(fn, 1, &text));
  printf("%s", text);
  ct_string_release(text);
  TRY(ct_compiled_metrics_json(fn, &text));
  char* latency = strstr(text, ", \"compile_latency_p50_us\"");
  if (latency) strcpy(latency, "}"); /* latencies vary run to run */
  printf("metrics: %s\n", text);
  ct_string_release(text);
  ct_compiled_release(fn);

  /* ---- training through a compiled loss: its backward is compiled too ---- */
  ct_tensor *w = randn(1, 8), *inputs = randn(16, 8), *target = randn(16, 8);
  TRY(ct_tensor_set_requires_grad(w, 1));
  ct_compiled* loss_fn = NULL;
  TRY(ct_compile(gated_mse, w, NULL, NULL, &loss_fn));
  const ct_tensor* batch[2] = {inputs, target};
  const ct_scalar lr = {CT_SCALAR_FLOAT, 0, 2.0};
  for (int step = 1; step <= 3; ++step) {
    ct_tensor *loss = NULL, *g = NULL, *g_eager = NULL, *eager = NULL, *update = NULL;
    TRY(ct_tensor_set_grad(w, NULL));
    TRY(gated_mse(w, batch, 2, &eager, 1)); /* the eager gradient, for comparison */
    TRY(ct_tensor_backward(eager, NULL, 0));
    TRY(ct_tensor_grad(w, &g_eager));
    TRY(ct_tensor_set_grad(w, NULL));
    TRY(ct_compiled_call(loss_fn, batch, 2, &loss, 1));
    TRY(ct_tensor_grad_fn_name(loss, &text));
    TRY(ct_tensor_backward(loss, NULL, 0));
    TRY(ct_tensor_grad(w, &g));
    ct_scalar v;
    TRY(ct_tensor_item(loss, &v));
    printf("step %d: loss %.6f, grad_fn %s, gradient compiled == eager: %s\n", step, v.f, text,
           all_equal(g, g_eager) ? "yes" : "no");
    ct_string_release(text);
    ct_grad_mode prev; /* w -= lr * grad, unrecorded, as an optimizer does */
    TRY(ct_grad_mode_set(CT_GRAD_MODE_NO_GRAD, &prev));
    TRY(ct_tensor_mul_scalar(g, &lr, &update));
    TRY(ct_tensor_sub_(w, update));
    TRY(ct_grad_mode_set(prev, NULL));
    ct_tensor_release(loss), ct_tensor_release(g), ct_tensor_release(g_eager), ct_tensor_release(eager);
    ct_tensor_release(update);
  }
  /* The entry prints "forward:" with its graph, then "backward:" with the gradient's graph. */
  TRY(ct_compiled_graph(loss_fn, 0, &text));
  printf("%s", strstr(text, "backward:"));
  ct_string_release(text);
  ct_compiled_release(loss_fn);
  ct_tensor_release(w), ct_tensor_release(inputs), ct_tensor_release(target);

  /* ---- ct_export: a program for every batch in [1, 1024], saved and loaded back ---- */
  ct_tensor *x = randn(4, 8), *y = randn(4, 8), *z = randn(4, 8);
  const ct_tensor* examples[3] = {x, y, z};
  ct_dynamic_shapes* dims = NULL;
  TRY(ct_dynamic_shapes_create(&dims));
  for (size_t i = 0; i < 3; ++i) TRY(ct_dynamic_shapes_set_dim(dims, i, 0, "batch", 1, 1024));
  ct_program* program = NULL;
  TRY(ct_export(chain, NULL, examples, 3, 1, dims, &program));
  TRY(ct_program_save(program, "chain.ctprog"));
  ct_program* loaded = NULL;
  TRY(ct_program_load("chain.ctprog", &loaded));
  remove("chain.ctprog");
  TRY(ct_program_json(loaded, &text));
  printf("program: %s\n", text);
  ct_string_release(text);
  ct_tensor *x9 = randn(9, 8), *y9 = randn(9, 8), *z9 = randn(9, 8), *out = NULL;
  const ct_tensor* in9[3] = {x9, y9, z9};
  TRY(ct_program_call(loaded, in9, 3, &out, 1));
  int64_t sizes[2];
  TRY(ct_tensor_sizes(out, sizes, 2));
  printf("loaded program at batch 9: [%lld, %lld]\n", (long long)sizes[0], (long long)sizes[1]);
  ct_status st = ct_program_call(loaded, examples, 2, &out, 1);
  printf("two inputs instead of three: %s\n", ct_status_name(st));

  /* ---- topk with a dynamic k ---- */
  const float values[6] = {0.5f, 3.0f, -1.0f, 7.0f, 2.0f, 4.0f};
  const int64_t row[2] = {1, 6};
  ct_tensor *v = NULL, *k_meta = NULL, *k_int = NULL;
  TRY(ct_tensor_from_data(values, row, 2, CT_FLOAT32, &v));
  /* 1. k is the size of a meta tensor declared dynamic in [1, 6] */
  const int64_t five = 5;
  TRY(ct_tensor_empty(&five, 1, CT_FLOAT32, "meta", &k_meta));
  const ct_tensor* by_size[2] = {v, k_meta};
  ct_dynamic_shapes* k_dim = NULL;
  TRY(ct_dynamic_shapes_create(&k_dim));
  TRY(ct_dynamic_shapes_set_dim(k_dim, 1, 0, "k", 1, 6));
  ct_program* topk_size = NULL;
  TRY(ct_export(topk, NULL, by_size, 2, 2, k_dim, &topk_size));
  run_topk("topk, k from a size, k=3", topk_size, v, 0);
  /* 2. k is item() of an int64 input: an unbacked symbol, checked when the program runs */
  TRY(ct_tensor_from_data(&five, NULL, 0, CT_INT64, &k_int));
  const ct_tensor* by_value[2] = {v, k_int};
  ct_program* topk_item = NULL;
  TRY(ct_export(topk, (void*)1, by_value, 2, 2, NULL, &topk_item));
  TRY(ct_program_graph(topk_item, &text));
  printf("%s", text);
  ct_string_release(text);
  run_topk("topk, k from item(), k=3", topk_item, v, 1);
  const int64_t seven = 7;
  ct_tensor* k7 = NULL;
  TRY(ct_tensor_from_data(&seven, NULL, 0, CT_INT64, &k7));
  const ct_tensor* too_big[2] = {v, k7};
  ct_tensor* outs[2];
  st = ct_program_call(topk_item, too_big, 2, outs, 2);
  printf("k=7 of 6: %s\n", ct_status_name(st));

  ct_program_release(program), ct_program_release(loaded), ct_program_release(topk_size), ct_program_release(topk_item);
  ct_dynamic_shapes_release(dims), ct_dynamic_shapes_release(k_dim);
  ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(z), ct_tensor_release(x9), ct_tensor_release(y9);
  ct_tensor_release(z9), ct_tensor_release(out), ct_tensor_release(v), ct_tensor_release(k_meta);
  ct_tensor_release(k_int), ct_tensor_release(k7);
  return 0;
}
