/*
 * test_alloc_failure.c - every allocation of a C ABI scenario fails once, in turn, and the library
 * survives it (Note [Allocation-failure injection] in src/core/fault_injection.h).
 *
 * Each scenario is a short program over the C ABI that keeps going only while calls succeed and
 * releases everything it made on every path. For a scenario the driver
 *   1. runs it with no injection: the reference status and digest (a hash of every result's bytes);
 *   2. for n = 1, 2, ...: makes the n-th allocation fail (once, then in a second pass, the n-th and
 *      every later one) and runs it again. Until a run performs fewer than n allocations, each
 *      run must return CT_ERROR_OUT_OF_MEMORY with a message (or, when the failure was absorbed,
 *      the reference status and digest); leave the counters of live tensors, storages and CPU
 *      blocks where they were; and be followed by a clean run that gives the reference again.
 * A crash, an abort or a sanitizer report fails the test too: CTest runs it in the ASan+UBSan build.
 * Prints one line per scenario with the allocation points it injected, and "N passed, M failed".
 *
 *   test_alloc_failure [SUBSTRING...]   only the scenarios whose name contains one of them
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fault_injection.h"
#include "ctorch_dlpack.h"

/* ---- Scenario helpers: keep going while calls succeed, digest what they give ---- */

typedef struct run {
  ct_status st;
  uint64_t digest;
  ct_tensor* held[48];
  size_t n_held;
} run;

/* TRY(expr): run expr unless an earlier call failed. */
#define TRY(r, expr)                  \
  do {                                \
    if ((r)->st == CT_OK) (r)->st = (expr); \
  } while (0)

/* A slot for an out-parameter that the run releases at its end. */
static ct_tensor** slot(run* r) {
  if (r->n_held == sizeof r->held / sizeof *r->held) abort(); /* a scenario bug, not the library's */
  r->held[r->n_held] = NULL;
  return &r->held[r->n_held++];
}

static void mix(run* r, const void* bytes, size_t n) {
  const unsigned char* p = bytes;
  for (size_t i = 0; i < n; ++i) r->digest = (r->digest ^ p[i]) * 1099511628211ull;
}

/* Adds t's dtype, sizes and bytes to the digest. */
static void digest_tensor(run* r, const ct_tensor* t) {
  ct_dtype dt;
  size_t ndim = 0;
  int64_t sizes[16], numel = 0;
  TRY(r, ct_tensor_dtype(t, &dt));
  TRY(r, ct_tensor_ndim(t, &ndim));
  if (r->st != CT_OK) return;
  if (ndim > 16) abort();
  TRY(r, ct_tensor_sizes(t, sizes, ndim));
  TRY(r, ct_tensor_numel(t, &numel));
  if (r->st != CT_OK) return;
  size_t itemsize = dt == CT_BOOL || dt == CT_UINT8 || dt == CT_INT8             ? 1
                    : dt == CT_INT16 || dt == CT_FLOAT16 || dt == CT_BFLOAT16 ? 2
                    : dt == CT_INT32 || dt == CT_FLOAT32                      ? 4
                                                                               : 8;
  size_t nbytes = (size_t)numel * itemsize;
  void* buf = malloc(nbytes ? nbytes : 1);
  if (!buf) abort();
  TRY(r, ct_tensor_copy_to(t, nbytes ? buf : NULL, nbytes));
  if (r->st == CT_OK) {
    mix(r, &dt, sizeof dt);
    mix(r, sizes, ndim * sizeof *sizes);
    mix(r, buf, nbytes);
  }
  free(buf);
}

static void digest_string(run* r, char* s) {
  if (s) mix(r, s, strlen(s));
  ct_string_release(s);
}

static ct_tensor* floats(run* r, const float* v, const int64_t* sizes, size_t ndim) {
  ct_tensor** t = slot(r);
  TRY(r, ct_tensor_from_data(v, sizes, ndim, CT_FLOAT32, t));
  return *t;
}

static ct_tensor* random_floats(run* r, const int64_t* sizes, size_t ndim) {
  ct_tensor** t = slot(r);
  TRY(r, ct_tensor_rand(sizes, ndim, CT_FLOAT32, "cpu", NULL, t));
  return *t;
}

static const float k6[] = {1.5f, -2.f, 0.25f, 3.f, -0.5f, 4.f};
static const int64_t k2x3[] = {2, 3};

/* ---- Scenarios ---- */

static void pointwise_and_printing(run* r) {
  ct_tensor* a = floats(r, k6, k2x3, 2);
  ct_tensor* b = floats(r, k6 + 3, k2x3 + 1, 1); /* broadcast over rows */
  ct_tensor **c = slot(r), **d = slot(r), **e = slot(r);
  TRY(r, ct_tensor_add(a, b, c));
  TRY(r, ct_tensor_mul(*c, a, d));
  TRY(r, ct_tensor_exp(*d, e));
  char* s = NULL;
  TRY(r, ct_tensor_to_string(*e, &s));
  digest_string(r, s);
  digest_tensor(r, *e);
}

static void views_matmul_reductions(run* r) {
  const int64_t m[] = {8, 16}, w[] = {16, 4}, flat[] = {4, 8}, dim1[] = {1};
  ct_tensor* x = random_floats(r, m, 2);
  ct_tensor* y = random_floats(r, w, 2);
  ct_tensor **p = slot(r), **t = slot(r), **v = slot(r), **s = slot(r), **sm = slot(r);
  TRY(r, ct_tensor_matmul(x, y, p));
  TRY(r, ct_tensor_transpose(*p, 0, 1, t));
  TRY(r, ct_tensor_reshape(*t, flat, 2, v));
  TRY(r, ct_tensor_sum(*v, dim1, 1, 0, s));
  TRY(r, ct_tensor_softmax(*v, 1, NULL, sm));
  digest_tensor(r, *s);
  digest_tensor(r, *sm);
}

static void autograd_backward(run* r) {
  const int64_t sizes[] = {4, 4};
  ct_tensor* x = random_floats(r, sizes, 2);
  ct_tensor **y = slot(r), **z = slot(r), **l = slot(r), **g = slot(r);
  TRY(r, ct_tensor_set_requires_grad(x, 1));
  TRY(r, ct_tensor_mul(x, x, y));
  TRY(r, ct_tensor_exp(*y, z));
  TRY(r, ct_tensor_sum(*z, NULL, 0, 0, l));
  TRY(r, ct_tensor_backward(*l, NULL, 0));
  TRY(r, ct_tensor_grad(x, g));
  digest_tensor(r, *g);
}

static void boxed_operators(run* r) {
  const int64_t in_sizes[] = {1, 2, 5, 5}, w_sizes[] = {3, 2, 3, 3}, ones[] = {1, 1}, k[] = {2, 2};
  ct_tensor* input = random_floats(r, in_sizes, 4);
  ct_tensor* weight = random_floats(r, w_sizes, 4);
  ct_tensor **conv = slot(r), **pool = slot(r), **cat = slot(r), **sorted = slot(r), **idx = slot(r);
  if (r->st == CT_OK) {
    ct_value args[5] = {{.kind = CT_VALUE_TENSOR, .tensor = input}, {.kind = CT_VALUE_TENSOR, .tensor = weight},
                        {.kind = CT_VALUE_NONE}, {.kind = CT_VALUE_INTS, .ints = ones, .len = 2},
                        {.kind = CT_VALUE_INTS, .ints = ones, .len = 2}}; /* stride, padding */
    TRY(r, ct_op_call("conv2d", args, 5, conv, 1));
  }
  if (r->st == CT_OK) {
    ct_value args[2] = {{.kind = CT_VALUE_TENSOR, .tensor = *conv}, {.kind = CT_VALUE_INTS, .ints = k, .len = 2}};
    TRY(r, ct_op_call("max_pool2d", args, 2, pool, 1));
  }
  if (r->st == CT_OK) {
    const ct_tensor* parts[] = {input, input};
    ct_value args[2] = {{.kind = CT_VALUE_TENSORS, .tensors = parts, .len = 2}, {.kind = CT_VALUE_INT, .i = 1}};
    TRY(r, ct_op_call("cat", args, 2, cat, 1));
  }
  if (r->st == CT_OK) {
    ct_value args[2] = {{.kind = CT_VALUE_TENSOR, .tensor = *cat}, {.kind = CT_VALUE_INT, .i = -1}};
    ct_tensor* outs[2] = {NULL, NULL};
    TRY(r, ct_op_call("sort", args, 2, outs, 2));
    *sorted = outs[0];
    *idx = outs[1];
  }
  if (r->st == CT_OK) {
    digest_tensor(r, *pool);
    digest_tensor(r, *sorted);
    digest_tensor(r, *idx);
  }
}

static ct_status silu_chain(void* ud, const ct_tensor* const* in, size_t n, ct_tensor** out, size_t nout) {
  (void)ud;
  (void)n;
  (void)nout;
  ct_tensor *s = NULL, *p = NULL;
  ct_status st = ct_tensor_relu(in[0], &s);
  if (st == CT_OK) st = ct_tensor_mul(s, in[1], &p);
  if (st == CT_OK) st = ct_tensor_add(p, in[0], &out[0]);
  ct_tensor_release(p);
  ct_tensor_release(s);
  return st;
}

static void compiled_function(run* r) {
  const int64_t sizes[] = {3, 5};
  ct_tensor* x = random_floats(r, sizes, 2);
  ct_tensor* y = random_floats(r, sizes, 2);
  ct_compiled* f = NULL;
  TRY(r, ct_compile(silu_chain, NULL, NULL, NULL, &f));
  for (int call = 0; call < 2; ++call) { /* the first traces and compiles, the second hits the cache */
    const ct_tensor* in[] = {x, y};
    TRY(r, ct_compiled_call(f, in, 2, slot(r), 1));
  }
  if (r->st == CT_OK) digest_tensor(r, r->held[r->n_held - 1]);
  ct_compiled_release(f);
}

static void exported_program(run* r) {
  const int64_t sizes[] = {2, 4};
  ct_tensor* x = random_floats(r, sizes, 2);
  ct_tensor* y = random_floats(r, sizes, 2);
  const ct_tensor* in[] = {x, y};
  ct_program *p = NULL, *loaded = NULL;
  char* bytes = NULL;
  size_t size = 0;
  TRY(r, ct_export(silu_chain, NULL, in, 2, 1, NULL, &p));
  TRY(r, ct_program_save_buffer(p, &bytes, &size));
  TRY(r, ct_program_load_buffer(bytes, size, &loaded));
  ct_tensor** out = slot(r);
  TRY(r, ct_program_call(loaded, in, 2, out, 1));
  if (r->st == CT_OK) digest_tensor(r, *out);
  ct_string_release(bytes);
  ct_program_release(loaded);
  ct_program_release(p);
}

static void checkpoint_round_trip(run* r) {
  const int64_t sizes[] = {3, 7};
  ct_tensor* w = random_floats(r, sizes, 2);
  ct_tensor* b = floats(r, k6, k2x3, 2);
  const char* names[] = {"layer.weight", "layer.bias"};
  const ct_tensor* tensors[] = {w, b};
  char* bytes = NULL;
  size_t size = 0;
  ct_checkpoint* ckpt = NULL;
  TRY(r, ct_checkpoint_save_buffer(names, tensors, 2, "{\"format\": \"pt\"}", &bytes, &size));
  TRY(r, ct_checkpoint_open_buffer(bytes, size, &ckpt));
  for (int i = 0; i < 2; ++i) {
    ct_tensor** t = slot(r);
    TRY(r, ct_checkpoint_get(ckpt, names[i], t));
    if (r->st == CT_OK) digest_tensor(r, *t);
  }
  char* meta = NULL;
  TRY(r, ct_checkpoint_metadata_json(ckpt, &meta));
  digest_string(r, meta);
  ct_checkpoint_release(ckpt);
  ct_string_release(bytes);
}

static void optimizer_step(run* r) {
  const int64_t sizes[] = {5, 3};
  ct_tensor* p = random_floats(r, sizes, 2);
  ct_tensor **sq = slot(r), **loss = slot(r);
  ct_optimizer* opt = NULL;
  ct_optimizer_options o;
  char* state = NULL;
  size_t state_size = 0;
  TRY(r, ct_tensor_set_requires_grad(p, 1));
  TRY(r, ct_optimizer_options_default(CT_OPTIMIZER_ADAM, &o));
  const ct_tensor* params[] = {p};
  TRY(r, ct_optimizer_create(params, 1, &o, &opt));
  for (int step = 0; step < 2; ++step) {
    ct_tensor_release(*sq);
    ct_tensor_release(*loss);
    *sq = *loss = NULL;
    TRY(r, ct_optimizer_zero_grad(opt, 1));
    TRY(r, ct_tensor_mul(p, p, sq));
    TRY(r, ct_tensor_sum(*sq, NULL, 0, 0, loss));
    TRY(r, ct_tensor_backward(*loss, NULL, 0));
    TRY(r, ct_optimizer_step(opt));
  }
  TRY(r, ct_optimizer_state_save(opt, &state, &state_size));
  if (r->st == CT_OK) mix(r, state, state_size);
  TRY(r, ct_optimizer_state_load(opt, state, state_size));
  digest_tensor(r, p);
  ct_string_release(state);
  ct_optimizer_release(opt);
}

static ct_status square_kernel(void* ud, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  (void)ud;
  (void)nargs;
  (void)nouts;
  return ct_tensor_mul(args[0].tensor, args[0].tensor, &outs[0]);
}

static void custom_operator(run* r) {
  ct_tensor* a = floats(r, k6, k2x3, 2);
  ct_tensor** out = slot(r);
  if (r->st == CT_OK) {
    ct_value arg = {.kind = CT_VALUE_TENSOR, .tensor = a};
    TRY(r, ct_op_call("faultinj::square", &arg, 1, out, 1));
  }
  if (r->st == CT_OK) digest_tensor(r, *out);
}

static void symbolic_shapes(run* r) {
  ct_shape_env* env = NULL;
  ct_symint *batch = NULL, *three = NULL, *rows = NULL, *dim0 = NULL;
  TRY(r, ct_shape_env_create(&env));
  TRY(r, ct_shape_env_create_symbol(env, "batch", 4, 2, 64, &batch));
  TRY(r, ct_symint_from_int(3, &three));
  TRY(r, ct_symint_mul(batch, three, &rows));
  if (r->st == CT_OK) {
    const ct_symint* sizes[] = {rows, three};
    ct_tensor** t = slot(r);
    TRY(r, ct_tensor_empty_symbolic(sizes, 2, CT_FLOAT32, t));
    TRY(r, ct_tensor_sym_size(*t, 0, &dim0));
  }
  char *text = NULL, *guards = NULL;
  int64_t value = 0;
  TRY(r, ct_symint_to_string(dim0, &text));
  digest_string(r, text);
  TRY(r, ct_symint_guard_int(dim0, &value));
  if (r->st == CT_OK) mix(r, &value, sizeof value);
  TRY(r, ct_shape_env_guards_json(env, &guards));
  digest_string(r, guards);
  ct_symint_release(dim0);
  ct_symint_release(rows);
  ct_symint_release(three);
  ct_symint_release(batch);
  ct_shape_env_release(env);
}

static void dlpack_round_trip(run* r) {
  ct_tensor* a = floats(r, k6, k2x3, 2);
  ct_tensor **back = slot(r), **sum = slot(r);
  DLManagedTensorVersioned* m = NULL;
  TRY(r, ct_tensor_to_dlpack(a, &m));
  TRY(r, ct_tensor_from_dlpack(m, back));
  if (m && r->st != CT_OK && m->deleter) m->deleter(m); /* a failed import leaves it ours */
  TRY(r, ct_tensor_add(*back, a, sum));
  if (r->st == CT_OK) digest_tensor(r, *sum);
}

static ct_status double_forward(void* ud, ct_autograd_ctx* ctx, const ct_tensor* const* in, size_t n_in,
                                ct_tensor** out, size_t n_out) {
  (void)ud;
  (void)ctx;
  (void)n_in;
  (void)n_out;
  return ct_tensor_add(in[0], in[0], &out[0]);
}

static ct_status double_backward(void* ud, ct_autograd_ctx* ctx, const ct_tensor* const* grad_out, size_t n_out,
                                 ct_tensor** grad_in, size_t n_in) {
  (void)ud;
  (void)ctx;
  (void)n_out;
  (void)n_in;
  return ct_tensor_add(grad_out[0], grad_out[0], &grad_in[0]);
}

static ct_status halve_grad(void* ud, const ct_tensor* grad, ct_tensor** replacement) {
  (void)ud;
  ct_scalar half = {CT_SCALAR_FLOAT, 0, 0.5};
  return ct_tensor_mul_scalar(grad, &half, replacement);
}

static void custom_function_and_hook(run* r) {
  const int64_t sizes[] = {3, 3};
  ct_tensor* x = random_floats(r, sizes, 2);
  ct_tensor **y = slot(r), **l = slot(r), **g = slot(r);
  int64_t hook = 0;
  TRY(r, ct_tensor_set_requires_grad(x, 1));
  TRY(r, ct_tensor_register_hook(x, halve_grad, NULL, NULL, &hook));
  const ct_tensor* in[] = {x};
  TRY(r, ct_autograd_function_apply("Double", double_forward, double_backward, NULL, NULL, in, 1, y, 1));
  TRY(r, ct_tensor_sum(*y, NULL, 0, 0, l));
  TRY(r, ct_tensor_backward(*l, NULL, 0));
  TRY(r, ct_tensor_grad(x, g));
  if (r->st == CT_OK) digest_tensor(r, *g);
}

static void registry_and_metrics(run* r) {
  char *schema = NULL, *registry = NULL, *metrics = NULL;
  TRY(r, ct_op_schema("add", &schema));
  digest_string(r, schema);
  TRY(r, ct_op_registry_json(&registry));
  if (r->st == CT_OK) mix(r, registry, 64); /* the document's start: its length follows the operators */
  ct_string_release(registry);
  TRY(r, ct_metrics_json(&metrics));
  ct_string_release(metrics); /* its numbers move with every run */
}

/* Training as the examples do it: an initializer with its own generator, linear, relu, cross
   entropy, backward, gradient clipping, SGD with momentum and a step schedule, for two steps. */
static void training_step(run* r) {
  const int64_t xs[] = {4, 6}, ws[] = {3, 6}, bs[] = {3}, four[] = {4};
  const int64_t labels[] = {0, 2, 1, 2};
  ct_tensor* x = random_floats(r, xs, 2);
  ct_tensor* w = random_floats(r, ws, 2);
  ct_tensor* b = random_floats(r, bs, 1);
  ct_tensor** target = slot(r);
  ct_generator* gen = NULL;
  ct_optimizer* opt = NULL;
  ct_lr_scheduler* sched = NULL;
  ct_optimizer_options o;
  ct_lr_scheduler_options so;
  TRY(r, ct_tensor_from_data(labels, four, 1, CT_INT64, target));
  TRY(r, ct_generator_create("cpu", &gen));
  TRY(r, ct_generator_manual_seed(gen, 7));
  TRY(r, ct_init_kaiming_uniform_(w, 0.0, "fan_in", "relu", gen));
  TRY(r, ct_tensor_set_requires_grad(w, 1));
  TRY(r, ct_tensor_set_requires_grad(b, 1));
  TRY(r, ct_optimizer_options_default(CT_OPTIMIZER_SGD, &o));
  o.lr = 0.1;
  o.momentum = 0.9;
  const ct_tensor* params[] = {w, b};
  TRY(r, ct_optimizer_create(params, 2, &o, &opt));
  TRY(r, ct_lr_scheduler_options_default(CT_LR_SCHEDULER_STEP, &so));
  so.step_size = 1;
  so.gamma = 0.5;
  TRY(r, ct_lr_scheduler_create(opt, &so, &sched));
  for (int step = 0; step < 2; ++step) {
    ct_tensor **logits = slot(r), **hidden = slot(r), **loss = slot(r);
    double norm = 0;
    TRY(r, ct_optimizer_zero_grad(opt, 1));
    TRY(r, ct_tensor_linear(x, w, b, logits));
    TRY(r, ct_tensor_relu(*logits, hidden));
    TRY(r, ct_tensor_cross_entropy(*hidden, *target, NULL, CT_REDUCTION_MEAN, -100, 0.0, loss));
    TRY(r, ct_tensor_backward(*loss, NULL, 0));
    TRY(r, ct_clip_grad_norm(params, 2, 1.0, 2.0, &norm));
    if (r->st == CT_OK) mix(r, &norm, sizeof norm);
    TRY(r, ct_optimizer_step(opt));
    TRY(r, ct_lr_scheduler_step(sched));
  }
  digest_tensor(r, w);
  digest_tensor(r, b);
  ct_lr_scheduler_release(sched);
  ct_optimizer_release(opt);
  ct_generator_release(gen);
}

/* A generator of one's own: seeded draws, its state saved and restored, dropout, bernoulli_ and
   randperm from it. */
static void random_generators(run* r) {
  const int64_t sizes[] = {4, 5};
  uint8_t state[CT_GENERATOR_STATE_SIZE];
  ct_generator* gen = NULL;
  ct_tensor **a = slot(r), **again = slot(r), **dropped = slot(r), **perm = slot(r);
  TRY(r, ct_generator_create("cpu", &gen));
  TRY(r, ct_generator_manual_seed(gen, 42));
  TRY(r, ct_generator_get_state(gen, state, sizeof state));
  TRY(r, ct_tensor_randn(sizes, 2, CT_FLOAT32, NULL, gen, a));
  TRY(r, ct_generator_set_state(gen, state, sizeof state));
  TRY(r, ct_tensor_randn(sizes, 2, CT_FLOAT32, NULL, gen, again));
  TRY(r, ct_tensor_dropout(*a, 0.5, 1, gen, dropped));
  TRY(r, ct_tensor_bernoulli_(*again, 0.25, gen));
  TRY(r, ct_tensor_randperm(7, CT_INT64, NULL, gen, perm));
  if (r->st == CT_OK) {
    digest_tensor(r, *dropped);
    digest_tensor(r, *again);
    digest_tensor(r, *perm);
  }
  ct_generator_release(gen);
}

/* Indexing with index tensors and masks, and einsum. */
static void indexing_and_einsum(run* r) {
  const int64_t sizes[] = {3, 4}, two[] = {2}, index_sizes[] = {3, 2};
  const int64_t rows[] = {2, 0}, cols[] = {0, 3, 1, 1, 2, 0};
  const ct_scalar zero = {CT_SCALAR_FLOAT, 0, 0.0};
  ct_tensor* a = random_floats(r, sizes, 2);
  ct_tensor* value = floats(r, k6, NULL, 0);
  ct_tensor **row = slot(r), **col = slot(r), **picked = slot(r), **gathered = slot(r), **scattered = slot(r),
            **gram = slot(r), **mask = slot(r), **filled = slot(r), **chosen = slot(r);
  TRY(r, ct_tensor_from_data(rows, two, 1, CT_INT64, row));
  TRY(r, ct_tensor_from_data(cols, index_sizes, 2, CT_INT64, col));
  TRY(r, ct_tensor_index_select(a, 0, *row, picked));
  TRY(r, ct_tensor_gather(a, 1, *col, gathered));
  TRY(r, ct_tensor_scatter_add(a, 1, *col, *gathered, scattered));
  const ct_tensor* operands[] = {a, a};
  TRY(r, ct_tensor_einsum("ij,kj->ik", operands, 2, gram));
  TRY(r, ct_tensor_gt_scalar(a, &zero, mask));
  TRY(r, ct_tensor_masked_fill(a, *mask, &zero, filled));
  TRY(r, ct_tensor_where(*mask, a, *scattered, chosen));
  const ct_tensor* indices[] = {*row};
  TRY(r, ct_tensor_index_put_(*chosen, indices, 1, value, 1));
  if (r->st == CT_OK) {
    digest_tensor(r, *picked);
    digest_tensor(r, *gram);
    digest_tensor(r, *filled);
    digest_tensor(r, *chosen);
  }
}

/* The profiler around a few operators; its report's times differ every run, so only its presence
   is checked. */
static void profiled_operators(run* r) {
  const int64_t sizes[] = {8, 8};
  ct_tensor* a = random_floats(r, sizes, 2);
  ct_tensor **p = slot(r), **s = slot(r);
  char* report = NULL;
  TRY(r, ct_profiler_start());
  TRY(r, ct_tensor_matmul(a, a, p));
  TRY(r, ct_tensor_sum(*p, NULL, 0, 0, s));
  const ct_status stopped = ct_profiler_stop_to_string(&report); /* stop even after a failure */
  TRY(r, stopped);
  if (r->st == CT_OK && (!report || !report[0])) r->st = CT_ERROR_INTERNAL;
  ct_string_release(report);
  digest_tensor(r, *s);
}

/* A call that fails by itself: under injection its error message may be what cannot be allocated. */
static void refused_call(run* r) {
  const int64_t four[] = {4};
  ct_tensor* a = floats(r, k6, k2x3, 2);
  ct_tensor* b = floats(r, k6, four, 1);
  TRY(r, ct_tensor_add(a, b, slot(r)));
}

typedef struct scenario {
  const char* name;
  void (*fn)(run*);
} scenario;

static const scenario SCENARIOS[] = {
    {"pointwise_and_printing", pointwise_and_printing},
    {"views_matmul_reductions", views_matmul_reductions},
    {"autograd_backward", autograd_backward},
    {"boxed_operators", boxed_operators},
    {"compiled_function", compiled_function},
    {"exported_program", exported_program},
    {"checkpoint_round_trip", checkpoint_round_trip},
    {"optimizer_step", optimizer_step},
    {"custom_operator", custom_operator},
    {"symbolic_shapes", symbolic_shapes},
    {"dlpack_round_trip", dlpack_round_trip},
    {"custom_function_and_hook", custom_function_and_hook},
    {"registry_and_metrics", registry_and_metrics},
    {"training_step", training_step},
    {"random_generators", random_generators},
    {"indexing_and_einsum", indexing_and_einsum},
    {"profiled_operators", profiled_operators},
    {"refused_call", refused_call},
};

/* ---- Driver ---- */

static run run_scenario(const scenario* s) {
  run r;
  memset(&r, 0, sizeof r);
  r.digest = 14695981039346656037ull;
  if (ct_manual_seed(2024) != CT_OK) abort();
  s->fn(&r);
  for (size_t i = r.n_held; i-- > 0;) ct_tensor_release(r.held[i]);
  return r;
}

typedef struct counters {
  int64_t tensors, storages, blocks;
} counters;

static counters read_counters(void) {
  counters c = {0, 0, 0};
  if (ct_metric_get("tensors.live", &c.tensors) != CT_OK || ct_metric_get("storages.live", &c.storages) != CT_OK ||
      ct_metric_get("memory.cpu.allocations_live", &c.blocks) != CT_OK)
    abort();
  return c;
}

/* Returns the number of allocation points injected, or -1 after printing what went wrong. */
static int64_t sweep(const scenario* s, int persistent, run ref, counters base) {
  for (int64_t n = 1;; ++n) {
    ct_testing_fail_allocation(n, persistent);
    run r = run_scenario(s);
    const int64_t failed = ct_testing_failed_allocations();
    ct_testing_fail_allocation(0, 0);
    const char* mode = persistent ? "from" : "at";
    if (failed == 0) {
      if (r.st != ref.st || r.digest != ref.digest) {
        printf("%s: no injection at n=%lld, yet %s (reference %s)\n", s->name, (long long)n, ct_status_name(r.st),
               ct_status_name(ref.st));
        return -1;
      }
      return n - 1;
    }
    const int absorbed = r.st == ref.st && r.digest == ref.digest;
    if (!absorbed && r.st != CT_ERROR_OUT_OF_MEMORY) {
      printf("%s: allocation failing %s n=%lld gave %s, expected CT_ERROR_OUT_OF_MEMORY [%s]\n", s->name, mode,
             (long long)n, ct_status_name(r.st), ct_last_error());
      return -1;
    }
    if (!absorbed && ct_last_error()[0] == '\0') {
      printf("%s: allocation failing %s n=%lld: %s with an empty message\n", s->name, mode, (long long)n,
             ct_status_name(r.st));
      return -1;
    }
    counters now = read_counters();
    if (now.tensors != base.tensors || now.storages != base.storages || now.blocks != base.blocks) {
      printf("%s: allocation failing %s n=%lld leaked: tensors %lld -> %lld, storages %lld -> %lld, CPU blocks "
             "%lld -> %lld\n",
             s->name, mode, (long long)n, (long long)base.tensors, (long long)now.tensors, (long long)base.storages,
             (long long)now.storages, (long long)base.blocks, (long long)now.blocks);
      return -1;
    }
    run again = run_scenario(s);
    if (again.st != ref.st || again.digest != ref.digest) {
      printf("%s: after the allocation failing %s n=%lld, a clean run gave %s and another result [%s]\n", s->name,
             mode, (long long)n, ct_status_name(again.st), ct_last_error());
      return -1;
    }
  }
}

static int selected(const char* name, int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (strstr(name, argv[i])) return 1;
  return argc < 2;
}

int main(int argc, char** argv) {
  int passed = 0, failed = 0;
  /* One thread: the n-th allocation must be the same one on every run. */
  if (ct_set_num_threads(1) != CT_OK || ct_library_define("faultinj::square(Tensor x) -> Tensor") != CT_OK ||
      ct_library_impl("faultinj::square", "cpu", square_kernel, NULL, NULL) != CT_OK) {
    printf("setup failed: %s\n0 passed, 1 failed\n", ct_last_error());
    return 1;
  }
  int64_t total = 0;
  for (size_t i = 0; i < sizeof SCENARIOS / sizeof *SCENARIOS; ++i) {
    const scenario* s = &SCENARIOS[i];
    if (!selected(s->name, argc, argv)) continue;
    run ref = run_scenario(s); /* also warms every cache the scenario fills once */
    ref = run_scenario(s);
    const ct_status want = strcmp(s->name, "refused_call") == 0 ? CT_ERROR_SHAPE : CT_OK;
    if (ref.st != want) {
      printf("%s: without injection gave %s, expected %s [%s]\n", s->name, ct_status_name(ref.st),
             ct_status_name(want), ct_last_error());
      ++failed;
      continue;
    }
    const counters base = read_counters();
    const int64_t once = sweep(s, 0, ref, base);
    const int64_t from = once < 0 ? -1 : sweep(s, 1, ref, base);
    if (once < 0 || from < 0) {
      ++failed;
      continue;
    }
    printf("%-24s %6lld allocation points, each failed once and failing onwards\n", s->name, (long long)once);
    total += once;
    ++passed;
  }
  printf("%lld allocation points injected in all\n", (long long)total);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0 || passed == 0;
}
