/*
 * test_boundary.c - the C ABI refuses what no tensor can be, with a status, a message naming the
 * function or operator, out-parameters NULL, and nothing leaked (the metrics tensors.live,
 * storages.live and memory.cpu.allocations_live are the same after the failed call): sizes whose
 * element count or byte count overflows int64 in every way of making a tensor, more dims than
 * kMaxDims (64), strides and offsets that escape the memory, and non-finite numbers where the
 * header says they must be finite. tests/boundary/boundary_sweep.py covers the NULL, released and
 * wrong-kind arguments of every function; this file the cases needing values.
 */
#include "capi_test.h"
#include "ctorch_dlpack.h"

#define BIG ((int64_t)1 << 40) /* BIG * BIG overflows int64; BIG alone is a valid size */

/* What a failed call must not leave behind: tensors, storages, CPU allocations. */
typedef struct live_counts {
  int64_t tensors, storages, allocations;
} live_counts;

static live_counts live_now(void) {
  live_counts c = {-1, -1, -1};
  if (ct_metric_get("tensors.live", &c.tensors) != CT_OK || ct_metric_get("storages.live", &c.storages) != CT_OK ||
      ct_metric_get("memory.cpu.allocations_live", &c.allocations) != CT_OK)
    c.tensors = -1;
  return c;
}

static int same_counts(live_counts a, live_counts b) {
  return a.tensors >= 0 && a.tensors == b.tensors && a.storages == b.storages && a.allocations == b.allocations;
}

/* REFUSED(expr, status, out, name): expr fails with status, a message containing name, leaves out
 * (preset to SENTINEL) NULL and tensors.live unchanged. */
#define REFUSED(expr, status, out, name)                         \
  do {                                                           \
    const live_counts capi_live0_ = live_now();                  \
    CHECK(capi_live0_.tensors >= 0);                             \
    (out) = SENTINEL;                                            \
    CHECK_STATUS(expr, status);                                  \
    CHECK_ERROR_CONTAINS(name);                                  \
    CHECK((out) == NULL);                                        \
    CHECK(same_counts(live_now(), capi_live0_));                        \
  } while (0)

/* A status-only variant, for functions without an out-parameter. */
#define REFUSED_NO_OUT(expr, status, name)                       \
  do {                                                           \
    const live_counts capi_live0_ = live_now();                  \
    CHECK(capi_live0_.tensors >= 0);                             \
    CHECK_STATUS(expr, status);                                  \
    CHECK_ERROR_CONTAINS(name);                                  \
    CHECK(same_counts(live_now(), capi_live0_));                        \
  } while (0)

/* ---- numel overflow ---- */

static void test_from_data_sizes_overflowing_int64_are_invalid_argument(void) {
  const float data[4] = {0};
  ct_tensor* out;
  REFUSED(ct_tensor_from_data(data, SZ(BIG, BIG), 2, CT_FLOAT32, &out), CT_ERROR_INVALID_ARGUMENT, out,
          "ct_tensor_from_data");
  REFUSED(ct_tensor_from_data(data, SZ(2, -2), 2, CT_FLOAT32, &out), CT_ERROR_INVALID_ARGUMENT, out,
          "ct_tensor_from_data");
  /* The count fits but the bytes do not (2^62 float32 elements are 2^64 bytes, 0 in a size_t):
   * refused, never a wrapped-around small allocation that the copy would overrun. */
  const live_counts live0 = live_now();
  out = SENTINEL;
  const ct_status st = ct_tensor_from_data(data, SZ((int64_t)1 << 62), 1, CT_FLOAT32, &out);
  CHECK(st == CT_ERROR_INVALID_ARGUMENT || st == CT_ERROR_OUT_OF_MEMORY);
  CHECK(out == NULL);
  CHECK(same_counts(live_now(), live0));
  REFUSED(ct_tensor_empty(SZ((int64_t)1 << 62), 1, CT_FLOAT64, "meta", &out), CT_ERROR_INVALID_ARGUMENT, out, "empty");
}

static void test_factories_with_overflowing_sizes_are_invalid_argument(void) {
  ct_tensor* out;
  ct_scalar one = SF(1.0);
  REFUSED(ct_tensor_empty(SZ(BIG, BIG), 2, CT_FLOAT32, "cpu", &out), CT_ERROR_INVALID_ARGUMENT, out, "empty");
  REFUSED(ct_tensor_zeros(SZ(BIG, BIG), 2, CT_FLOAT32, "cpu", &out), CT_ERROR_INVALID_ARGUMENT, out, "zeros");
  REFUSED(ct_tensor_ones(SZ(BIG, BIG), 2, CT_FLOAT32, "cpu", &out), CT_ERROR_INVALID_ARGUMENT, out, "ones");
  REFUSED(ct_tensor_full(SZ(BIG, BIG), 2, &one, CT_FLOAT32, "cpu", &out), CT_ERROR_INVALID_ARGUMENT, out, "full");
  REFUSED(ct_tensor_rand(SZ(BIG, BIG), 2, CT_FLOAT32, "cpu", NULL, &out), CT_ERROR_INVALID_ARGUMENT, out, "rand");
  REFUSED(ct_tensor_randn(SZ(BIG, BIG), 2, CT_FLOAT32, "cpu", NULL, &out), CT_ERROR_INVALID_ARGUMENT, out, "randn");
  REFUSED(ct_tensor_randint(0, 5, SZ(BIG, BIG), 2, CT_INT64, "cpu", NULL, &out), CT_ERROR_INVALID_ARGUMENT, out,
          "randint");
  /* The meta device allocates nothing, and still refuses a count that does not exist. */
  REFUSED(ct_tensor_empty(SZ(BIG, BIG), 2, CT_FLOAT32, "meta", &out), CT_ERROR_INVALID_ARGUMENT, out, "empty");
}

static void test_op_call_factories_with_overflowing_sizes_are_invalid_argument(void) {
  static const int64_t big[2] = {BIG, BIG};
  const char* names[] = {"empty", "zeros", "rand"};
  ct_tensor* out;
  for (size_t i = 0; i < sizeof names / sizeof *names; ++i) {
    ct_value args[1];
    args[0] = VINTS(big, 2);
    capi_context = names[i];
    REFUSED(ct_op_call(names[i], args, 1, &out, 1), CT_ERROR_INVALID_ARGUMENT, out, names[i]);
  }
  ct_value full_args[2];
  full_args[0] = VINTS(big, 2);
  full_args[1] = VF(1.0);
  REFUSED(ct_op_call("full", full_args, 2, &out, 1), CT_ERROR_INVALID_ARGUMENT, out, "full");
}

static void test_views_to_overflowing_sizes_fail_and_leak_nothing(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  ct_tensor* out;
  CHECK(a);
  /* view and reshape: sizes that cannot hold the input's elements are a shape error */
  REFUSED(ct_tensor_view(a, SZ(BIG, BIG), 2, &out), CT_ERROR_SHAPE, out, "view");
  REFUSED(ct_tensor_reshape(a, SZ(BIG, BIG), 2, &out), CT_ERROR_SHAPE, out, "reshape");
  /* expand of a size-1 dim is legal for any size, except that the count must exist */
  REFUSED(ct_tensor_expand(a, SZ(BIG, BIG), 2, &out), CT_ERROR_INVALID_ARGUMENT, out, "expand");
  REFUSED(ct_tensor_broadcast_to(a, SZ(BIG, BIG), 2, &out), CT_ERROR_INVALID_ARGUMENT, out, "expand");
  REFUSED(ct_tensor_repeat(a, SZ(BIG, BIG), 2, &out), CT_ERROR_INVALID_ARGUMENT, out, "repeat");
  ct_tensor_release(a);
}

static void test_view_with_a_negative_size_other_than_minus_one_is_refused(void) {
  ct_tensor* a = T(CT_FLOAT32, S(4), 1, 2, 3, 4);
  ct_tensor* out;
  CHECK(a);
  REFUSED(ct_tensor_view(a, SZ(-2, -2), 2, &out), CT_ERROR_SHAPE, out, "view");
  REFUSED(ct_tensor_expand(a, SZ(-2), 1, &out), CT_ERROR_SHAPE, out, "expand");
  ct_tensor_release(a);
}

/* ---- ndim beyond kMaxDims ---- */

static void test_more_than_64_dims_is_invalid_argument_everywhere(void) {
  int64_t ones[65];
  for (int i = 0; i < 65; ++i) ones[i] = 1;
  const float v = 1.0f;
  ct_tensor* out;
  REFUSED(ct_tensor_from_data(&v, ones, 65, CT_FLOAT32, &out), CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_from_data");
  REFUSED(ct_tensor_empty(ones, 65, CT_FLOAT32, "cpu", &out), CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_empty");
  REFUSED(ct_tensor_from_blob((void*)&v, ones, NULL, 65, CT_FLOAT32, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT,
          out, "ct_tensor_from_blob");
  ct_value args[1];
  args[0] = VINTS(ones, 65);
  REFUSED(ct_op_call("empty", args, 1, &out, 1), CT_ERROR_INVALID_ARGUMENT, out, "empty");

  ct_tensor* a = NULL;
  CHECK_OK(ct_tensor_from_data(&v, ones, 64, CT_FLOAT32, &a)); /* 64 is the most, and fine */
  REFUSED(ct_tensor_view(a, ones, 65, &out), CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_view");
  REFUSED(ct_tensor_reshape(a, ones, 65, &out), CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_reshape");
  REFUSED(ct_tensor_expand(a, ones, 65, &out), CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_expand");
  REFUSED(ct_tensor_unsqueeze(a, 0, &out), CT_ERROR_INVALID_ARGUMENT, out, "unsqueeze");
  ct_tensor_release(a);
}

static void test_absurd_counts_are_refused_before_the_array_is_read(void) {
  /* n claims far more entries than the 2-element arrays hold: the count must be refused first. */
  const int64_t two[2] = {0, 1};
  ct_tensor* a = T(CT_FLOAT32, S(2, 2), 1, 2, 3, 4);
  ct_tensor* out;
  CHECK(a);
  REFUSED(ct_tensor_permute(a, two, SIZE_MAX, &out), CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_permute");
  REFUSED(ct_tensor_flip(a, two, SIZE_MAX, &out), CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_flip");
  REFUSED(ct_tensor_sum(a, two, SIZE_MAX, 0, &out), CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_sum");
  REFUSED(ct_tensor_norm(a, 2.0, two, SIZE_MAX, 0, &out), CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_norm");
  REFUSED(ct_tensor_movedim(a, two, two, SIZE_MAX, &out), CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_movedim");
  REFUSED(ct_tensor_view(a, two, (size_t)1 << 20, &out), CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_view");
  ct_symint* s = NULL;
  CHECK_OK(ct_symint_from_int(3, &s));
  const ct_symint* xs[1] = {s};
  ct_symint* m = (ct_symint*)capi_sentinel();
  CHECK_STATUS(ct_sym_max(xs, SIZE_MAX, &m), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("ct_sym_max");
  CHECK(m == NULL);
  ct_symint_release(s);
  ct_tensor_release(a);
}

/* ---- strides and offsets that escape the memory ---- */

static void test_from_blob_with_negative_or_unreachable_strides_is_invalid_argument(void) {
  float buf[8] = {0};
  ct_tensor* out;
  REFUSED(ct_tensor_from_blob(buf, SZ(2, 2), SZ(-2, 1), 2, CT_FLOAT32, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT,
          out, "ct_tensor_from_blob");
  /* (4 - 1) * 2^62 elements lies past any address. */
  REFUSED(ct_tensor_from_blob(buf, SZ(4), SZ((int64_t)1 << 62), 1, CT_FLOAT32, NULL, NULL, &out),
          CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_from_blob");
  REFUSED(ct_tensor_from_blob(buf, SZ(BIG, BIG), NULL, 2, CT_FLOAT32, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT,
          out, "ct_tensor_from_blob");
  REFUSED(ct_tensor_from_blob(buf, SZ(-1), NULL, 1, CT_FLOAT32, NULL, NULL, &out), CT_ERROR_INVALID_ARGUMENT, out,
          "ct_tensor_from_blob");
}

static void dl_noop_deleter(DLManagedTensorVersioned* self) { (void)self; }

static void test_from_dlpack_with_escaping_strides_or_offset_is_invalid_argument(void) {
  float buf[4] = {1, 2, 3, 4};
  int64_t shape[1] = {4};
  int64_t strides[1] = {-1};
  DLManagedTensorVersioned m;
  memset(&m, 0, sizeof m);
  m.version.major = 1;
  m.deleter = dl_noop_deleter;
  m.dl_tensor.data = buf;
  m.dl_tensor.device.device_type = kDLCPU;
  m.dl_tensor.ndim = 1;
  m.dl_tensor.dtype.code = kDLFloat;
  m.dl_tensor.dtype.bits = 32;
  m.dl_tensor.dtype.lanes = 1;
  m.dl_tensor.shape = shape;
  m.dl_tensor.strides = strides;
  ct_tensor* out;
  REFUSED(ct_tensor_from_dlpack(&m, &out), CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_from_dlpack");
  strides[0] = (int64_t)1 << 62;
  REFUSED(ct_tensor_from_dlpack(&m, &out), CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_from_dlpack");
  strides[0] = 1;
  m.dl_tensor.byte_offset = UINT64_MAX - 2; /* a first element past any address */
  REFUSED(ct_tensor_from_dlpack(&m, &out), CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_from_dlpack");
  m.dl_tensor.byte_offset = 0;
  m.dl_tensor.ndim = 65;
  REFUSED(ct_tensor_from_dlpack(&m, &out), CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_from_dlpack");
  m.dl_tensor.ndim = -1;
  REFUSED(ct_tensor_from_dlpack(&m, &out), CT_ERROR_INVALID_ARGUMENT, out, "ct_tensor_from_dlpack");
}

static void test_views_past_the_end_of_their_base_are_refused(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 3), 1, 2, 3, 4, 5, 6);
  ct_tensor* out;
  CHECK(a);
  /* "CT_ERROR_INDEX ... narrow start out of range"; a length running past the end is a shape error */
  REFUSED(ct_tensor_narrow(a, 1, INT64_MAX, 1, &out), CT_ERROR_INDEX, out, "narrow");
  /* Below -2^62 no symbolic size, stride or index exists (the SymInt encoding's reserved range). */
  REFUSED(ct_tensor_narrow(a, 1, INT64_MIN, 1, &out), CT_ERROR_INVALID_ARGUMENT, out,
          "narrow: the integer -9223372036854775808 is below -2^62");
  REFUSED(ct_tensor_narrow(a, 1, 2, 2, &out), CT_ERROR_SHAPE, out, "narrow");
  REFUSED(ct_tensor_narrow(a, 1, 1, INT64_MAX, &out), CT_ERROR_SHAPE, out, "narrow");
  REFUSED(ct_tensor_narrow(a, 1, 1, -1, &out), CT_ERROR_SHAPE, out, "narrow");
  REFUSED(ct_tensor_select(a, 0, 2, &out), CT_ERROR_INDEX, out, "select");
  REFUSED(ct_tensor_select(a, 0, -3, &out), CT_ERROR_INDEX, out, "select");
  REFUSED(ct_tensor_select(a, 0, INT64_MIN, &out), CT_ERROR_INVALID_ARGUMENT, out,
          "select: the integer -9223372036854775808 is below -2^62");
  REFUSED(ct_tensor_transpose(a, 0, INT64_MAX, &out), CT_ERROR_INDEX, out, "transpose");
  REFUSED(ct_tensor_unsqueeze(a, INT64_MIN, &out), CT_ERROR_INDEX, out, "unsqueeze");
  ct_tensor_release(a);
}

/* ---- non-finite numbers ---- */

static void test_arange_with_non_finite_bounds_or_step_is_invalid_argument(void) {
  const double bad[3] = {NAN, INFINITY, -INFINITY};
  ct_tensor* out;
  for (int i = 0; i < 3; ++i) {
    REFUSED(ct_tensor_arange(0, 1, bad[i], CT_FLOAT32, "cpu", &out), CT_ERROR_INVALID_ARGUMENT, out, "arange");
    REFUSED(ct_tensor_arange(bad[i], 1, 1, CT_FLOAT32, "cpu", &out), CT_ERROR_INVALID_ARGUMENT, out, "arange");
    REFUSED(ct_tensor_arange(0, bad[i], 1, CT_FLOAT32, "cpu", &out), CT_ERROR_INVALID_ARGUMENT, out, "arange");
  }
}

static void test_full_with_nan_is_fine_as_in_torch(void) {
  ct_scalar nan = SF(NAN);
  ct_tensor* out = NULL;
  CHECK_OK(ct_tensor_full(S(2), &nan, CT_FLOAT32, "cpu", &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(2), NAN, NAN);
  ct_tensor_release(out);
}

static void test_clamp_with_non_finite_bounds_is_not_an_error(void) {
  /* torch.clamp accepts any float bound: infinite ones bound nothing, and a NaN bound is not an
   * error (the header promises no value for it, and torch's scalar and vector paths differ). */
  ct_tensor* a = T(CT_FLOAT32, S(2), -1, 2);
  ct_scalar nan = SF(NAN), lo = SF(-INFINITY), hi = SF(INFINITY);
  ct_tensor* out = NULL;
  CHECK(a);
  CHECK_OK(ct_tensor_clamp(a, &lo, &hi, &out));
  CHECK_TENSOR(out, CT_FLOAT32, S(2), -1, 2);
  ct_tensor_release(out);
  out = NULL;
  CHECK_OK(ct_tensor_clamp(a, &nan, &hi, &out));
  CHECK_META(out, CT_FLOAT32, S(2));
  ct_tensor_release(out);
  out = NULL;
  CHECK_OK(ct_tensor_clamp_max(a, &nan, &out));
  CHECK_META(out, CT_FLOAT32, S(2));
  ct_tensor_release(out);
  ct_tensor_release(a);
}

static void test_random_fills_with_non_finite_parameters_are_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2), 0, 0);
  CHECK(a);
  REFUSED_NO_OUT(ct_tensor_uniform_(a, 0, INFINITY, NULL), CT_ERROR_INVALID_ARGUMENT, "uniform_");
  REFUSED_NO_OUT(ct_tensor_uniform_(a, NAN, 1, NULL), CT_ERROR_INVALID_ARGUMENT, "uniform_");
  REFUSED_NO_OUT(ct_tensor_normal_(a, NAN, 1, NULL), CT_ERROR_INVALID_ARGUMENT, "normal_");
  REFUSED_NO_OUT(ct_tensor_normal_(a, 0, INFINITY, NULL), CT_ERROR_INVALID_ARGUMENT, "normal_");
  REFUSED_NO_OUT(ct_tensor_bernoulli_(a, NAN, NULL), CT_ERROR_INVALID_ARGUMENT, "bernoulli_");
  ct_tensor* out;
  REFUSED(ct_tensor_dropout(a, NAN, 1, NULL, &out), CT_ERROR_INVALID_ARGUMENT, out, "dropout");
  CHECK_TENSOR(a, CT_FLOAT32, S(2), 0, 0); /* nothing half-written */
  ct_tensor_release(a);
}

static ct_tensor* make_param(void) {
  ct_tensor* p = T(CT_FLOAT32, S(2), 1, 2);
  if (p && ct_tensor_set_requires_grad(p, 1) != CT_OK) {
    ct_tensor_release(p);
    return NULL;
  }
  return p;
}

static void test_optimizer_options_with_nan_or_inf_are_invalid_argument(void) {
  ct_tensor* p = make_param();
  CHECK(p);
  const ct_tensor* params[1] = {p};
  const ct_optimizer_kind kinds[4] = {CT_OPTIMIZER_SGD, CT_OPTIMIZER_ADAM, CT_OPTIMIZER_ADAMW, CT_OPTIMIZER_RMSPROP};
  for (int k = 0; k < 4; ++k) {
    for (int field = 0; field < 7; ++field) {
      for (int inf = 0; inf < 2; ++inf) {
        ct_optimizer_options o;
        CHECK_OK(ct_optimizer_options_default(kinds[k], &o));
        const double bad = inf ? INFINITY : NAN;
        double* fields[7] = {&o.lr, &o.momentum, &o.weight_decay, &o.beta1, &o.beta2, &o.eps, &o.alpha};
        *fields[field] = bad;
        ct_optimizer* opt = (ct_optimizer*)capi_sentinel();
        const live_counts live0 = live_now();
        ct_status st = ct_optimizer_create(params, 1, &o, &opt);
        /* A field this kind does not use is ignored; a used one must be refused. */
        if (st == CT_OK) {
          ct_optimizer_release(opt);
          const int used = field == 0 || (field == 1 && (k == 0 || k == 3)) || field == 2 ||
                           ((field == 3 || field == 4) && (k == 1 || k == 2)) || (field == 5 && k != 0) ||
                           (field == 6 && k == 3);
          static char label[64]; /* capi_context outlives this block when the CHECK fails */
          snprintf(label, sizeof label, "kind %d field %d %s", k, field, inf ? "inf" : "nan");
          capi_context = label;
          CHECK(!used);
          capi_context = NULL;
          continue;
        }
        CHECK(st == CT_ERROR_INVALID_ARGUMENT);
        CHECK_ERROR_CONTAINS("ct_optimizer_create");
        CHECK(opt == NULL);
        CHECK(same_counts(live_now(), live0));
      }
    }
  }
  ct_tensor_release(p);
}

static void test_optimizer_set_lr_and_set_options_refuse_non_finite_values(void) {
  ct_tensor* p = make_param();
  CHECK(p);
  const ct_tensor* params[1] = {p};
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADAM, &o));
  ct_optimizer* opt = NULL;
  CHECK_OK(ct_optimizer_create(params, 1, &o, &opt));
  REFUSED_NO_OUT(ct_optimizer_set_lr(opt, NAN), CT_ERROR_INVALID_ARGUMENT, "ct_optimizer_set_lr");
  REFUSED_NO_OUT(ct_optimizer_set_lr(opt, INFINITY), CT_ERROR_INVALID_ARGUMENT, "ct_optimizer_set_lr");
  ct_optimizer_options bad = o;
  bad.beta2 = NAN;
  REFUSED_NO_OUT(ct_optimizer_set_options(opt, &bad), CT_ERROR_INVALID_ARGUMENT, "ct_optimizer_set_options");
  bad = o;
  bad.lr = INFINITY;
  REFUSED_NO_OUT(ct_optimizer_set_options(opt, &bad), CT_ERROR_INVALID_ARGUMENT, "ct_optimizer_set_options");
  /* the refused calls changed nothing */
  double lr = 0;
  CHECK_OK(ct_optimizer_get_lr(opt, &lr));
  CHECK(lr == o.lr);
  ct_optimizer_options now;
  now.struct_size = sizeof now;
  CHECK_OK(ct_optimizer_get_options(opt, &now));
  CHECK(now.beta2 == o.beta2);
  ct_optimizer_release(opt);
  ct_tensor_release(p);
}

static void test_lr_scheduler_options_with_nan_are_invalid_argument(void) {
  ct_tensor* p = make_param();
  CHECK(p);
  const ct_tensor* params[1] = {p};
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_SGD, &o));
  ct_optimizer* opt = NULL;
  CHECK_OK(ct_optimizer_create(params, 1, &o, &opt));
  ct_lr_scheduler_options so;
  ct_lr_scheduler* sched;
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_STEP, &so));
  so.gamma = NAN;
  sched = (ct_lr_scheduler*)capi_sentinel();
  CHECK_STATUS(ct_lr_scheduler_create(opt, &so, &sched), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("ct_lr_scheduler_create");
  CHECK(sched == NULL);
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_COSINE, &so));
  so.eta_min = NAN;
  CHECK_STATUS(ct_lr_scheduler_create(opt, &so, &sched), CT_ERROR_INVALID_ARGUMENT);
  CHECK(sched == NULL);
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_LINEAR, &so));
  so.start_factor = NAN;
  CHECK_STATUS(ct_lr_scheduler_create(opt, &so, &sched), CT_ERROR_INVALID_ARGUMENT);
  CHECK(sched == NULL);
  ct_optimizer_release(opt);
  ct_tensor_release(p);
}

static void test_clip_grad_with_nan_bounds_is_invalid_argument(void) {
  ct_tensor* p = make_param();
  CHECK(p);
  const ct_tensor* params[1] = {p};
  double total = 7;
  REFUSED_NO_OUT(ct_clip_grad_norm(params, 1, NAN, 2.0, &total), CT_ERROR_INVALID_ARGUMENT, "ct_clip_grad_norm");
  REFUSED_NO_OUT(ct_clip_grad_norm(params, 1, 1.0, NAN, &total), CT_ERROR_INVALID_ARGUMENT, "ct_clip_grad_norm");
  REFUSED_NO_OUT(ct_clip_grad_value(params, 1, NAN), CT_ERROR_INVALID_ARGUMENT, "ct_clip_grad_value");
  ct_tensor_release(p);
}

static void test_init_fills_with_non_finite_parameters_are_invalid_argument(void) {
  ct_tensor* a = T(CT_FLOAT32, S(2, 2), 0, 0, 0, 0);
  CHECK(a);
  REFUSED_NO_OUT(ct_init_uniform_(a, -INFINITY, 1, NULL), CT_ERROR_INVALID_ARGUMENT, "uniform_");
  REFUSED_NO_OUT(ct_init_normal_(a, 0, NAN, NULL), CT_ERROR_INVALID_ARGUMENT, "normal_");
  REFUSED_NO_OUT(ct_init_xavier_uniform_(a, NAN, NULL), CT_ERROR_INVALID_ARGUMENT, "ct_init_xavier_uniform_");
  REFUSED_NO_OUT(ct_init_xavier_normal_(a, INFINITY, NULL), CT_ERROR_INVALID_ARGUMENT, "ct_init_xavier_normal_");
  REFUSED_NO_OUT(ct_init_kaiming_uniform_(a, NAN, NULL, NULL, NULL), CT_ERROR_INVALID_ARGUMENT,
                 "ct_init_kaiming_uniform_");
  CHECK_TENSOR(a, CT_FLOAT32, S(2, 2), 0, 0, 0, 0);
  ct_tensor_release(a);
}

/* ---- empty tensors with huge dims ---- */

/* sizes[0..ndim) of t equal want's, and every stride is >= 0 (none overflowed into a value no
   stride can have). */
static int sizes_are(const ct_tensor* t, const int64_t* want, size_t ndim) {
  size_t n = 0;
  int64_t sizes[8], strides[8];
  if (!t || ct_tensor_ndim(t, &n) != CT_OK || n != ndim || n > 8) return 0;
  if (ct_tensor_sizes(t, sizes, n) != CT_OK || ct_tensor_strides(t, strides, n) != CT_OK) return 0;
  for (size_t d = 0; d < n; ++d)
    if (sizes[d] != want[d] || strides[d] < 0) return 0;
  return 1;
}

/* A (2^62, 0, 2) tensor holds nothing: operators on it finish at once (a sort once looped over its
   2^62 empty rows) and make valid strides (the row-major ones of (1, 2^62, 1, 0, 1, 2), the
   products of max(size, 1), overflowed into a value read as a symbolic pointer). */
static void test_empty_tensors_with_huge_dims_compute_nothing(void) {
  const int64_t huge = (int64_t)1 << 62;
  ct_tensor* x = NULL;
  CHECK_OK(ct_tensor_zeros(SZ(huge, 0, 2), 3, CT_FLOAT32, NULL, &x));
  ct_tensor* outs[2] = {NULL, NULL};
  ct_value args[2];
  args[0] = VT(x);
  CHECK_OK(ct_op_call("sort", args, 1, outs, 2));
  CHECK(sizes_are(outs[0], SZ(huge, 0, 2), 3) && sizes_are(outs[1], SZ(huge, 0, 2), 3));
  RELEASE(outs[0], outs[1]);
  args[1] = VI(0);
  CHECK_OK(ct_op_call("cumsum", args, 2, outs, 1));
  CHECK(sizes_are(outs[0], SZ(huge, 0, 2), 3));
  RELEASE(outs[0]);
  args[1] = VINTS(SZ(1, huge, 1, 0, 1, 2), 6);
  CHECK_OK(ct_op_call("reshape", args, 2, outs, 1));
  CHECK(sizes_are(outs[0], SZ(1, huge, 1, 0, 1, 2), 6));
  RELEASE(outs[0]);
  args[1] = VINTS(SZ(0), 1);
  CHECK_OK(ct_op_call("tile", args, 2, outs, 1));
  CHECK(sizes_are(outs[0], SZ(huge, 0, 0), 3));
  RELEASE(outs[0], x);
}

static void test_op_call_of_empty_with_a_tensor_for_sizes_leaks_nothing(void) {
  ct_tensor* a = T(CT_FLOAT32, S(1), 1);
  ct_tensor* out;
  CHECK(a);
  ct_value args[1];
  args[0] = VT(a);
  REFUSED(ct_op_call("empty", args, 1, &out, 1), CT_ERROR_INVALID_ARGUMENT, out, "empty");
  ct_tensor_release(a);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_from_data_sizes_overflowing_int64_are_invalid_argument),
    CAPI_TEST(test_factories_with_overflowing_sizes_are_invalid_argument),
    CAPI_TEST(test_op_call_factories_with_overflowing_sizes_are_invalid_argument),
    CAPI_TEST(test_views_to_overflowing_sizes_fail_and_leak_nothing),
    CAPI_TEST(test_view_with_a_negative_size_other_than_minus_one_is_refused),
    CAPI_TEST(test_more_than_64_dims_is_invalid_argument_everywhere),
    CAPI_TEST(test_absurd_counts_are_refused_before_the_array_is_read),
    CAPI_TEST(test_from_blob_with_negative_or_unreachable_strides_is_invalid_argument),
    CAPI_TEST(test_from_dlpack_with_escaping_strides_or_offset_is_invalid_argument),
    CAPI_TEST(test_views_past_the_end_of_their_base_are_refused),
    CAPI_TEST(test_arange_with_non_finite_bounds_or_step_is_invalid_argument),
    CAPI_TEST(test_full_with_nan_is_fine_as_in_torch),
    CAPI_TEST(test_clamp_with_non_finite_bounds_is_not_an_error),
    CAPI_TEST(test_random_fills_with_non_finite_parameters_are_invalid_argument),
    CAPI_TEST(test_optimizer_options_with_nan_or_inf_are_invalid_argument),
    CAPI_TEST(test_optimizer_set_lr_and_set_options_refuse_non_finite_values),
    CAPI_TEST(test_lr_scheduler_options_with_nan_are_invalid_argument),
    CAPI_TEST(test_clip_grad_with_nan_bounds_is_invalid_argument),
    CAPI_TEST(test_init_fills_with_non_finite_parameters_are_invalid_argument),
    CAPI_TEST(test_op_call_of_empty_with_a_tensor_for_sizes_leaks_nothing),
    CAPI_TEST(test_empty_tensors_with_huge_dims_compute_nothing),
};
CAPI_MAIN(TESTS)
