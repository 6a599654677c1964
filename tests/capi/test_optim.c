/* test_optim.c - optimizers and learning-rate schedulers: torch.optim's formulas (against a
 * reference written here in the same order, exact for float64), the fused loop against the operator
 * path, thread-count independence, version counters, state save/load (round trip, every refusal,
 * truncation and corruption), and every documented failure. */
#include "capi_test.h"

enum { kN = 5 };

static const double kP0[kN] = {0.5, -1.25, 2.0, 0.0, -0.75};
static const double kG[3][kN] = {{0.1, -0.2, 0.3, 0.05, -0.4}, {-0.3, 0.25, 0.1, -0.15, 0.2}, {0.2, 0.1, -0.5, 0.3, 0.01}};

/* A 1-D parameter of values (as doubles) that requires grad. */
static ct_tensor* param_of(ct_dtype dt, const double* v, int64_t n) {
  ct_tensor* t = capi_make(__FILE__, __LINE__, dt, SZ(n), 1, v, (size_t)n);
  if (t && ct_tensor_set_requires_grad(t, 1) != CT_OK) {
    ct_tensor_release(t);
    return NULL;
  }
  return t;
}

static int set_grad_values(ct_tensor* p, ct_dtype dt, const double* v, int64_t n) {
  ct_tensor* g = capi_make(__FILE__, __LINE__, dt, SZ(n), 1, v, (size_t)n);
  int ok = g && ct_tensor_set_grad(p, g) == CT_OK;
  ct_tensor_release(g);
  return ok;
}

static double* values_of(const ct_tensor* t, int64_t n) {
  ct_tensor* d = NULL;
  double* v = malloc(sizeof(double) * (size_t)n);
  if (ct_tensor_to(t, CT_FLOAT64, &d) != CT_OK || ct_tensor_copy_to(d, v, sizeof(double) * (size_t)n) != CT_OK) {
    free(v);
    v = NULL;
  }
  ct_tensor_release(d);
  return v;
}

static int same_bits(const ct_tensor* a, const ct_tensor* b) {
  int64_t na = 0, nb = 0;
  ct_dtype d;
  if (ct_tensor_numel(a, &na) != CT_OK || ct_tensor_numel(b, &nb) != CT_OK || na != nb) return 0;
  if (ct_tensor_dtype(a, &d) != CT_OK) return 0;
  size_t bytes = (size_t)na * ct_dtype_itemsize(d);
  void* x = malloc(bytes + 1);
  void* y = malloc(bytes + 1);
  int same = ct_tensor_copy_to(a, x, bytes) == CT_OK && ct_tensor_copy_to(b, y, bytes) == CT_OK &&
             memcmp(x, y, bytes) == 0;
  free(x);
  free(y);
  return same;
}

static ct_optimizer* make_opt(ct_tensor* const* params, size_t n, const ct_optimizer_options* o) {
  ct_optimizer* opt = NULL;
  if (ct_optimizer_create((const ct_tensor* const*)params, n, o, &opt) != CT_OK) return NULL;
  return opt;
}

/* Runs 3 steps of options o on a float64 parameter and checks every element exactly against ref,
 * which applies one step in place to (p, s0, s1, s2) given the grad and the step number. */
typedef void (*ref_step_fn)(const ct_optimizer_options* o, double* p, const double* g, double* s0, double* s1,
                            double* s2, int t);

static int run_against(const ct_optimizer_options* o, ref_step_fn ref) {
  ct_tensor* p = param_of(CT_FLOAT64, kP0, kN);
  ct_optimizer* opt = make_opt(&p, 1, o);
  double want[kN], s0[kN] = {0}, s1[kN] = {0}, s2[kN] = {0};
  memcpy(want, kP0, sizeof want);
  int ok = p && opt;
  for (int t = 1; ok && t <= 3; ++t) {
    ok = set_grad_values(p, CT_FLOAT64, kG[t - 1], kN) && ct_optimizer_step(opt) == CT_OK;
    ref(o, want, kG[t - 1], s0, s1, s2, t);
  }
  double* got = ok ? values_of(p, kN) : NULL;
  ok = got && memcmp(got, want, sizeof want) == 0;
  if (!ok && got)
    for (int i = 0; i < kN; ++i) printf("  element %d: got %.17g want %.17g\n", i, got[i], want[i]);
  free(got);
  ct_optimizer_release(opt);
  ct_tensor_release(p);
  return ok;
}

/* torch.optim's single-tensor formulas, in torch's order (see ct_optimizer_step). */
static void ref_sgd(const ct_optimizer_options* o, double* p, const double* g0, double* buf, double* u1, double* u2,
                    int t) {
  (void)u1, (void)u2;
  for (int i = 0; i < kN; ++i) {
    double g = o->maximize ? -g0[i] : g0[i];
    if (o->weight_decay != 0) g = g + o->weight_decay * p[i];
    if (o->momentum != 0) {
      buf[i] = t == 1 ? g : buf[i] * o->momentum + (1 - o->dampening) * g;
      g = o->nesterov ? g + o->momentum * buf[i] : buf[i];
    }
    p[i] = p[i] + -o->lr * g;
  }
}

static void ref_adam(const ct_optimizer_options* o, double* p, const double* g0, double* m, double* v, double* vmax,
                     int t) {
  const double bc1 = 1 - pow(o->beta1, t), bc2 = 1 - pow(o->beta2, t);
  const double step_size = o->lr / bc1, bc2_sqrt = sqrt(bc2);
  for (int i = 0; i < kN; ++i) {
    double g = o->maximize ? -g0[i] : g0[i];
    if (o->kind == CT_OPTIMIZER_ADAMW) p[i] = p[i] * (1 - o->lr * o->weight_decay);
    else if (o->weight_decay != 0) g = g + o->weight_decay * p[i];
    m[i] = m[i] * o->beta1 + (1 - o->beta1) * g;
    v[i] = v[i] * o->beta2 + (1 - o->beta2) * g * g;
    if (o->amsgrad) vmax[i] = vmax[i] > v[i] ? vmax[i] : v[i];
    const double denom = sqrt(o->amsgrad ? vmax[i] : v[i]) / bc2_sqrt + o->eps;
    p[i] = p[i] + -step_size * m[i] / denom;
  }
}

static void ref_rmsprop(const ct_optimizer_options* o, double* p, const double* g0, double* sq, double* buf,
                        double* gavg, int t) {
  (void)t;
  for (int i = 0; i < kN; ++i) {
    double g = o->maximize ? -g0[i] : g0[i];
    if (o->weight_decay != 0) g = g + o->weight_decay * p[i];
    sq[i] = sq[i] * o->alpha + (1 - o->alpha) * g * g;
    double avg;
    if (o->centered) {
      gavg[i] = gavg[i] * o->alpha + (1 - o->alpha) * g;
      avg = sqrt(sq[i] + -gavg[i] * gavg[i]);
    } else {
      avg = sqrt(sq[i]);
    }
    avg = avg + o->eps;
    if (o->momentum > 0) {
      buf[i] = buf[i] * o->momentum + g / avg;
      p[i] = p[i] + -o->lr * buf[i];
    } else {
      p[i] = p[i] + -o->lr * g / avg;
    }
  }
}

static void ref_adagrad(const ct_optimizer_options* o, double* p, const double* g0, double* sum, double* u1,
                        double* u2, int t) {
  (void)u1, (void)u2;
  const double clr = o->lr / (1 + (t - 1) * o->lr_decay);
  for (int i = 0; i < kN; ++i) {
    if (t == 1) sum[i] = o->initial_accumulator_value;
    double g = o->maximize ? -g0[i] : g0[i];
    if (o->weight_decay != 0) g = g + o->weight_decay * p[i];
    sum[i] = sum[i] + g * 1.0 * g;
    p[i] = p[i] + g * -clr / (sqrt(sum[i]) + o->eps);
  }
}

static void ref_adamax(const ct_optimizer_options* o, double* p, const double* g0, double* m, double* u, double* u2,
                       int t) {
  (void)u2;
  const double clr = o->lr / (1 - pow(o->beta1, t));
  for (int i = 0; i < kN; ++i) {
    double g = o->maximize ? -g0[i] : g0[i];
    if (o->weight_decay != 0) g = g + o->weight_decay * p[i];
    m[i] = m[i] * o->beta1 + g * (1 - o->beta1);
    const double a = u[i] * o->beta2, b = fabs(g) + o->eps;
    u[i] = a > b ? a : b;
    p[i] = p[i] + m[i] * -clr / u[i];
  }
}

/* mu_product lives in s2[0] (torch keeps it in a float32 tensor: rounded to float each step). */
static void ref_nadam(const ct_optimizer_options* o, double* p, const double* g0, double* m, double* v, double* s2,
                      int t) {
  if (t == 1) s2[0] = 1;
  const double bc2 = 1 - pow(o->beta2, t);
  const double mu = o->beta1 * (1. - 0.5 * pow(0.96, t * o->momentum_decay));
  const double mu_next = o->beta1 * (1. - 0.5 * pow(0.96, (t + 1) * o->momentum_decay));
  s2[0] = (float)((float)s2[0] * (float)mu);
  const double grad_step = -o->lr * (1. - mu) / (1. - s2[0]);
  const double moment_step = (-o->lr * mu_next) / (1. - s2[0] * mu_next);
  for (int i = 0; i < kN; ++i) {
    double g = o->maximize ? -g0[i] : g0[i];
    if (o->weight_decay != 0) {
      if (o->decoupled_weight_decay) p[i] = p[i] * (1 - o->lr * o->weight_decay);
      else g = g + o->weight_decay * p[i];
    }
    m[i] = m[i] * o->beta1 + g * (1 - o->beta1);
    v[i] = v[i] * o->beta2 + g * (1 - o->beta2) * g;
    const double denom = sqrt(v[i] / bc2) + o->eps;
    p[i] = p[i] + g * grad_step / denom;
    p[i] = p[i] + m[i] * moment_step / denom;
  }
}

static void ref_radam(const ct_optimizer_options* o, double* p, const double* g0, double* m, double* v, double* u2,
                      int t) {
  (void)u2;
  const double bc1 = 1 - pow(o->beta1, t), bc2 = 1 - pow(o->beta2, t);
  const double rho_inf = 2 / (1 - o->beta2) - 1;
  const double rho_t = rho_inf - 2 * t * pow(o->beta2, t) / bc2;
  for (int i = 0; i < kN; ++i) {
    double g = o->maximize ? -g0[i] : g0[i];
    if (o->weight_decay != 0) {
      if (o->decoupled_weight_decay) p[i] = p[i] * (1 - o->lr * o->weight_decay);
      else g = g + o->weight_decay * p[i];
    }
    m[i] = m[i] * o->beta1 + g * (1 - o->beta1);
    v[i] = v[i] * o->beta2 + g * (1 - o->beta2) * g;
    const double corrected = m[i] / bc1;
    if (rho_t > 5) {
      const double rect = sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
      const double adaptive = 1 / (sqrt(v[i]) + o->eps) * sqrt(bc2);
      p[i] = p[i] + corrected * o->lr * adaptive * rect * -1;
    } else {
      p[i] = p[i] + corrected * o->lr * -1;
    }
  }
}

static void ref_adadelta(const ct_optimizer_options* o, double* p, const double* g0, double* sq, double* acc,
                         double* u2, int t) {
  (void)u2, (void)t;
  for (int i = 0; i < kN; ++i) {
    double g = o->maximize ? -g0[i] : g0[i];
    if (o->weight_decay != 0) g = g + o->weight_decay * p[i];
    sq[i] = sq[i] * o->rho + g * (1 - o->rho) * g;
    const double delta = sqrt(acc[i] + o->eps) / sqrt(sq[i] + o->eps) * g;
    acc[i] = acc[i] * o->rho + delta * (1 - o->rho) * delta;
    p[i] = p[i] + delta * -o->lr;
  }
}

/* eta in s1[0] and mu in s2[0]: torch keeps each in a float32 tensor, so they are rounded to float. */
static void ref_asgd(const ct_optimizer_options* o, double* p, const double* g0, double* ax, double* s1, double* s2,
                     int t) {
  if (t == 1) s1[0] = (float)o->lr, s2[0] = 1;
  const double eta = s1[0], mu = s2[0];
  for (int i = 0; i < kN; ++i) {
    double g = o->maximize ? -g0[i] : g0[i];
    if (o->weight_decay != 0) g = g + o->weight_decay * p[i];
    p[i] = p[i] * (1 - o->lambd * eta);
    p[i] = p[i] + g * -eta;
    ax[i] = mu != 1 ? ax[i] + (p[i] - ax[i]) * mu : p[i];
  }
  s1[0] = (float)(o->lr / pow(1 + o->lambd * o->lr * t, o->alpha));
  s2[0] = (float)(1 / fmax(1, t - o->t0));
}

static double sign_of(double x) { return (double)((0 < x) - (x < 0)); }

static void ref_rprop(const ct_optimizer_options* o, double* p, const double* g0, double* prev, double* step,
                      double* u2, int t) {
  (void)u2;
  for (int i = 0; i < kN; ++i) {
    if (t == 1) step[i] = o->lr;
    double g = o->maximize ? -g0[i] : g0[i];
    const double s = sign_of(g * prev[i]);
    const double f = s > 0 ? o->etaplus : s < 0 ? o->etaminus : 1;
    const double st = step[i] * f;
    step[i] = st < o->step_size_min ? o->step_size_min : st > o->step_size_max ? o->step_size_max : st;
    if (f == o->etaminus) g = 0;
    p[i] = p[i] + sign_of(g) * -1 * step[i];
    prev[i] = g;
  }
}

static void test_defaults_are_torchs(void) {
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADAM, &o));
  CHECK(o.struct_size == sizeof o && o.kind == CT_OPTIMIZER_ADAM && o.lr == 1e-3 && o.beta1 == 0.9 &&
        o.beta2 == 0.999 && o.eps == 1e-8 && o.weight_decay == 0 && !o.amsgrad && !o.maximize);
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADAMW, &o));
  CHECK(o.weight_decay == 1e-2 && o.lr == 1e-3);
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_RMSPROP, &o));
  CHECK(o.lr == 1e-2 && o.alpha == 0.99 && o.eps == 1e-8 && o.momentum == 0 && !o.centered);
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_SGD, &o));
  CHECK(o.lr == 1e-3 && o.momentum == 0 && o.dampening == 0 && !o.nesterov);
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADAGRAD, &o));
  CHECK(o.lr == 1e-2 && o.lr_decay == 0 && o.initial_accumulator_value == 0 && o.eps == 1e-10);
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADAMAX, &o));
  CHECK(o.lr == 2e-3 && o.beta1 == 0.9 && o.beta2 == 0.999 && o.eps == 1e-8);
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_NADAM, &o));
  CHECK(o.lr == 2e-3 && o.momentum_decay == 4e-3 && !o.decoupled_weight_decay);
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_RADAM, &o));
  CHECK(o.lr == 1e-3 && o.eps == 1e-8);
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADADELTA, &o));
  CHECK(o.lr == 1.0 && o.rho == 0.9 && o.eps == 1e-6);
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ASGD, &o));
  CHECK(o.lr == 1e-2 && o.lambd == 1e-4 && o.alpha == 0.75 && o.t0 == 1e6 && o.weight_decay == 0);
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_RPROP, &o));
  CHECK(o.lr == 1e-2 && o.etaminus == 0.5 && o.etaplus == 1.2 && o.step_size_min == 1e-6 && o.step_size_max == 50);
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_LBFGS, &o));
  CHECK(o.lr == 1 && o.max_iter == 20 && o.max_eval == 0 && o.tolerance_grad == 1e-7 && o.tolerance_change == 1e-9 &&
        o.history_size == 100 && !o.strong_wolfe);
  CHECK_STATUS(ct_optimizer_options_default((ct_optimizer_kind)12, &o), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_optimizer_options_default(CT_OPTIMIZER_SGD, NULL), CT_ERROR_INVALID_ARGUMENT);
}

static void test_sgd_matches_torch_formula(void) {
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_SGD, &o));
  o.lr = 0.1;
  CHECK(run_against(&o, ref_sgd));
  o.momentum = 0.9, o.dampening = 0.1, o.weight_decay = 0.01;
  CHECK(run_against(&o, ref_sgd));
  o.dampening = 0, o.nesterov = 1, o.maximize = 1;
  CHECK(run_against(&o, ref_sgd));
}

static void test_adam_and_adamw_match_torch_formula(void) {
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADAM, &o));
  o.lr = 0.01;
  CHECK(run_against(&o, ref_adam));
  o.weight_decay = 0.1, o.amsgrad = 1, o.maximize = 1;
  CHECK(run_against(&o, ref_adam));
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADAMW, &o));
  o.lr = 0.01;
  CHECK(run_against(&o, ref_adam));
  o.amsgrad = 1;
  CHECK(run_against(&o, ref_adam));
}

static void test_rmsprop_matches_torch_formula(void) {
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_RMSPROP, &o));
  CHECK(run_against(&o, ref_rmsprop));
  o.centered = 1, o.momentum = 0.5, o.weight_decay = 0.05;
  CHECK(run_against(&o, ref_rmsprop));
  o.centered = 0;
  CHECK(run_against(&o, ref_rmsprop));
}

static void test_adagrad_adamax_nadam_radam_adadelta_match_torch_formulas(void) {
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADAGRAD, &o));
  CHECK(run_against(&o, ref_adagrad));
  o.lr_decay = 0.05, o.weight_decay = 0.01, o.initial_accumulator_value = 0.5, o.maximize = 1;
  CHECK(run_against(&o, ref_adagrad));
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADAMAX, &o));
  CHECK(run_against(&o, ref_adamax));
  o.weight_decay = 0.1, o.eps = 1e-3, o.maximize = 1;
  CHECK(run_against(&o, ref_adamax));
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_NADAM, &o));
  CHECK(run_against(&o, ref_nadam));
  o.weight_decay = 0.05, o.momentum_decay = 0.01, o.lr = 0.02;
  CHECK(run_against(&o, ref_nadam));
  o.decoupled_weight_decay = 1, o.maximize = 1;
  CHECK(run_against(&o, ref_nadam));
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_RADAM, &o));
  CHECK(run_against(&o, ref_radam));
  o.beta1 = 0.5, o.beta2 = 0.5, o.weight_decay = 0.05; /* rho_t > 5 from the second step: rectified */
  CHECK(run_against(&o, ref_radam));
  o.decoupled_weight_decay = 1;
  CHECK(run_against(&o, ref_radam));
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADADELTA, &o));
  CHECK(run_against(&o, ref_adadelta));
  o.lr = 0.5, o.rho = 0.8, o.eps = 1e-4, o.weight_decay = 0.1, o.maximize = 1;
  CHECK(run_against(&o, ref_adadelta));
  o.rho = 1.5;
  ct_tensor* p = param_of(CT_FLOAT64, kP0, kN);
  ct_optimizer* opt = NULL;
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&p, 1, &o, &opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("rho");
  ct_tensor_release(p);
}

static void test_asgd_and_rprop_match_torch_formulas(void) {
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ASGD, &o));
  CHECK(run_against(&o, ref_asgd));
  o.lr = 0.2, o.lambd = 0.05, o.alpha = 0.5, o.weight_decay = 0.1, o.maximize = 1;
  CHECK(run_against(&o, ref_asgd));
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_RPROP, &o));
  CHECK(run_against(&o, ref_rprop)); /* kG flips some signs between steps: etaminus and the masked grad */
  o.lr = 0.05, o.etaminus = 0.3, o.etaplus = 1.7, o.step_size_max = 0.06, o.maximize = 1;
  CHECK(run_against(&o, ref_rprop)); /* 0.05 * 1.7 is clamped to 0.06 */
  ct_tensor* p = param_of(CT_FLOAT64, kP0, kN);
  ct_optimizer* opt = NULL;
  o.etaplus = 0.9;
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&p, 1, &o, &opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("etaplus");
  o.etaplus = 1.2, o.step_size_min = 1, o.step_size_max = 0.5;
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&p, 1, &o, &opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("step_size_min <= step_size_max");
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ASGD, &o));
  o.lambd = -1;
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&p, 1, &o, &opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("lambd");
  ct_tensor_release(p);
}

/* optimizer.state[p]: ASGD's averaged parameter against the reference (averaging from step 2 with
 * t0 0), a buffer that is the optimizer's own tensor, the scalars, absent entries and bad names. */
static void test_state_entries_are_torchs(void) {
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ASGD, &o));
  o.t0 = 0, o.lr = 0.1;
  ct_tensor* p = param_of(CT_FLOAT64, kP0, kN);
  ct_optimizer* opt = make_opt(&p, 1, &o);
  CHECK(opt);
  ct_tensor* ax = NULL;
  CHECK_OK(ct_optimizer_state_get(opt, 0, "ax", &ax));
  CHECK(ax == NULL); /* no step yet: no state */
  double want[kN], ax_want[kN] = {0}, eta[kN] = {0}, mu[kN] = {0};
  memcpy(want, kP0, sizeof want);
  for (int t = 1; t <= 3; ++t) {
    CHECK(set_grad_values(p, CT_FLOAT64, kG[t - 1], kN));
    CHECK_OK(ct_optimizer_step(opt));
    ref_asgd(&o, want, kG[t - 1], ax_want, eta, mu, t);
  }
  CHECK(mu[0] == (float)(1. / 3)); /* step 3 averaged with mu 1/2 and left 1/3 */
  CHECK_OK(ct_optimizer_state_get(opt, 0, "ax", &ax));
  double* got = ax ? values_of(ax, kN) : NULL;
  CHECK(got && memcmp(got, ax_want, sizeof ax_want) == 0);
  free(got);
  ct_tensor *s = NULL, *m = NULL;
  CHECK_OK(ct_optimizer_state_get(opt, 0, "step", &s));
  CHECK_OK(ct_optimizer_state_get(opt, 0, "mu", &m));
  float sv = 0, mv = 0;
  CHECK(s && m && ct_tensor_copy_to(s, &sv, sizeof sv) == CT_OK && ct_tensor_copy_to(m, &mv, sizeof mv) == CT_OK);
  CHECK(sv == 3 && mv == (float)(1. / 3));
  RELEASE(s, m);
  /* The buffer is the state: zeroing it changes the next step's average. */
  CHECK_OK(ct_tensor_zero_(ax));
  CHECK(set_grad_values(p, CT_FLOAT64, kG[0], kN));
  CHECK_OK(ct_optimizer_step(opt));
  memset(ax_want, 0, sizeof ax_want);
  ref_asgd(&o, want, kG[0], ax_want, eta, mu, 4);
  got = values_of(ax, kN);
  CHECK(got && memcmp(got, ax_want, sizeof ax_want) == 0);
  free(got);
  ct_tensor_release(ax);
  ax = (ct_tensor*)1;
  CHECK_STATUS(ct_optimizer_state_get(opt, 0, "exp_avg", &ax), CT_ERROR_INVALID_ARGUMENT);
  CHECK(ax == NULL);
  CHECK_ERROR_CONTAINS("step, eta, mu, ax");
  CHECK_STATUS(ct_optimizer_state_get(opt, 1, "ax", &ax), CT_ERROR_INDEX);
  CHECK_STATUS(ct_optimizer_state_get(opt, 0, NULL, &ax), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_optimizer_state_get(opt, 0, "ax", NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_optimizer_state_get(NULL, 0, "ax", &ax), CT_ERROR_INVALID_ARGUMENT);
  ct_optimizer_release(opt);
  /* Adam without amsgrad has no max_exp_avg_sq: NULL, not an error. */
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADAM, &o));
  opt = make_opt(&p, 1, &o);
  CHECK(opt && set_grad_values(p, CT_FLOAT64, kG[0], kN));
  CHECK_OK(ct_optimizer_step(opt));
  ct_tensor *ea = NULL, *mx = NULL;
  CHECK_OK(ct_optimizer_state_get(opt, 0, "exp_avg", &ea));
  CHECK_OK(ct_optimizer_state_get(opt, 0, "max_exp_avg_sq", &mx));
  CHECK(ea && !mx);
  ct_tensor_release(ea);
  ct_optimizer_release(opt);
  ct_tensor_release(p);
  /* The names, in torch's order. */
  const char* name = NULL;
  CHECK_OK(ct_optimizer_state_name(CT_OPTIMIZER_RPROP, 0, &name));
  CHECK(strcmp(name, "step") == 0);
  CHECK_OK(ct_optimizer_state_name(CT_OPTIMIZER_RPROP, 2, &name));
  CHECK(strcmp(name, "step_size") == 0);
  CHECK_STATUS(ct_optimizer_state_name(CT_OPTIMIZER_RPROP, 3, &name), CT_ERROR_INDEX);
  CHECK(name == NULL);
  CHECK_OK(ct_optimizer_state_name(CT_OPTIMIZER_SGD, 0, &name));
  CHECK(strcmp(name, "momentum_buffer") == 0);
  CHECK_STATUS(ct_optimizer_state_name((ct_optimizer_kind)12, 0, &name), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_optimizer_state_name(CT_OPTIMIZER_SGD, 0, NULL), CT_ERROR_INVALID_ARGUMENT);
}

/* LBFGS on f(x) = sum(a_i x_i^2) / 2 - b.x, whose grad a * x - b the closure sets by hand: the
 * minimizer b / a is reached; the closure's failure restores parameters and history. */
typedef struct quadratic {
  ct_tensor* x;
  int calls, fail_at;
  ct_optimizer* opt; /* set: the closure tries to step it (refused) */
} quadratic;

static const double kQa[kN] = {1, 4, 9, 0.5, 2}, kQb[kN] = {1, -2, 3, 0.25, -1};

static ct_status quadratic_closure(void* user_data, double* loss) {
  quadratic* q = (quadratic*)user_data;
  if (++q->calls == q->fail_at) {
    ct_error_set(CT_ERROR_SHAPE, "the quadratic's closure failed on purpose");
    return CT_ERROR_SHAPE;
  }
  if (q->opt) {
    ct_status s = ct_optimizer_step(q->opt);
    if (s != CT_OK) return s;
  }
  double* x = values_of(q->x, kN);
  if (!x) return CT_ERROR_OUT_OF_MEMORY;
  double g[kN], f = 0;
  for (int i = 0; i < kN; ++i) {
    f += 0.5 * kQa[i] * x[i] * x[i] - kQb[i] * x[i];
    g[i] = kQa[i] * x[i] - kQb[i];
  }
  free(x);
  *loss = f;
  return set_grad_values(q->x, CT_FLOAT64, g, kN) ? CT_OK : CT_ERROR_INTERNAL;
}

static void test_lbfgs_minimizes_with_a_closure(void) {
  for (int wolfe = 0; wolfe < 2; ++wolfe) {
    ct_optimizer_options o;
    CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_LBFGS, &o));
    o.strong_wolfe = wolfe, o.lr = wolfe ? 1 : 0.1, o.max_iter = 50, o.history_size = 4;
    o.tolerance_change = 0, o.tolerance_grad = 1e-12;
    quadratic q = {param_of(CT_FLOAT64, kP0, kN), 0, 0, NULL};
    ct_optimizer* opt = make_opt(&q.x, 1, &o);
    CHECK(opt);
    CHECK_STATUS(ct_optimizer_step(opt), CT_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("ct_optimizer_step_closure");
    double first = 0;
    CHECK_OK(ct_optimizer_step_closure(opt, quadratic_closure, &q, &first));
    double f0 = 0;
    for (int i = 0; i < kN; ++i) f0 += 0.5 * kQa[i] * kP0[i] * kP0[i] - kQb[i] * kP0[i];
    CHECK(first == f0); /* the loss at the start */
    for (int k = 0; k < 4; ++k) CHECK_OK(ct_optimizer_step_closure(opt, quadratic_closure, &q, NULL));
    double* x = values_of(q.x, kN);
    for (int i = 0; x && i < kN; ++i) CHECK(fabs(x[i] - kQb[i] / kQa[i]) < 1e-6);
    free(x);
    ct_tensor *evals = NULL, *d = NULL;
    CHECK_OK(ct_optimizer_state_get(opt, 0, "func_evals", &evals));
    CHECK_OK(ct_optimizer_state_get(opt, 0, "d", &d));
    double n = 0;
    CHECK(evals && d && ct_tensor_copy_to(evals, &n, sizeof n) == CT_OK && n == q.calls);
    RELEASE(evals, d);
    ct_optimizer_release(opt);
    ct_tensor_release(q.x);
  }
}

static void test_lbfgs_closure_failures_change_nothing(void) {
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_LBFGS, &o));
  o.strong_wolfe = 1, o.max_iter = 3;
  quadratic q = {param_of(CT_FLOAT64, kP0, kN), 0, 0, NULL};
  ct_optimizer* opt = make_opt(&q.x, 1, &o);
  CHECK(opt);
  CHECK_OK(ct_optimizer_step_closure(opt, quadratic_closure, &q, NULL));
  char *before = NULL, *after = NULL;
  size_t nb = 0, na = 0;
  CHECK_OK(ct_optimizer_state_save(opt, &before, &nb));
  double* x0 = values_of(q.x, kN);
  /* Fails on the closure's third call, inside the line search: the point and history go back. */
  q.calls = 0, q.fail_at = 3;
  CHECK_STATUS(ct_optimizer_step_closure(opt, quadratic_closure, &q, NULL), CT_ERROR_SHAPE);
  CHECK_ERROR_CONTAINS("failed on purpose");
  double* x1 = values_of(q.x, kN);
  CHECK(x0 && x1 && memcmp(x0, x1, sizeof(double) * kN) == 0);
  CHECK_OK(ct_optimizer_state_save(opt, &after, &na));
  CHECK(na == nb && memcmp(before, after, nb) == 0);
  /* A fresh optimizer loading the state continues as this one does. */
  quadratic twin = {param_of(CT_FLOAT64, x0, kN), 0, 0, NULL};
  ct_optimizer* opt2 = make_opt(&twin.x, 1, &o);
  CHECK(opt2);
  CHECK_OK(ct_optimizer_state_load(opt2, before, nb));
  q.fail_at = 0;
  CHECK_OK(ct_optimizer_step_closure(opt, quadratic_closure, &q, NULL));
  CHECK_OK(ct_optimizer_step_closure(opt2, quadratic_closure, &twin, NULL));
  CHECK(same_bits(q.x, twin.x));
  /* A truncated LBFGS state is refused. */
  CHECK_STATUS(ct_optimizer_state_load(opt2, before, nb - 8), CT_ERROR_FORMAT);
  /* Stepping from inside the closure is refused, and so is a NULL closure. */
  q.opt = opt;
  CHECK_STATUS(ct_optimizer_step_closure(opt, quadratic_closure, &q, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("own closure");
  CHECK_STATUS(ct_optimizer_step_closure(opt, NULL, &q, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_optimizer_step_closure(NULL, quadratic_closure, &q, NULL), CT_ERROR_INVALID_ARGUMENT);
  free(x0);
  free(x1);
  ct_string_release(before);
  ct_string_release(after);
  ct_optimizer_release(opt);
  ct_optimizer_release(opt2);
  /* LBFGS steps its parameters as one vector: one dtype. */
  ct_tensor* ps[2] = {q.x, param_of(CT_FLOAT32, kP0, kN)};
  ct_optimizer* mixed = NULL;
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)ps, 2, &o, &mixed), CT_ERROR_DTYPE);
  CHECK(mixed == NULL);
  RELEASE(ps[1], q.x, twin.x);
  /* Another kind calls the closure once, then steps. */
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_SGD, &o));
  quadratic s = {param_of(CT_FLOAT64, kP0, kN), 0, 0, NULL};
  ct_optimizer* sgd = make_opt(&s.x, 1, &o);
  CHECK(sgd);
  CHECK_OK(ct_optimizer_step_closure(sgd, quadratic_closure, &s, NULL));
  double* xs = values_of(s.x, kN);
  CHECK(s.calls == 1 && xs && xs[0] == kP0[0] - 1e-3 * (kQa[0] * kP0[0] - kQb[0]));
  free(xs);
  ct_optimizer_release(sgd);
  ct_tensor_release(s.x);
}

/* A struct from a 0.8 header ends at maximize: accepted, its missing fields the kind's defaults, and
 * ct_optimizer_get_options writes no byte past it. */
static void test_options_from_an_older_header(void) {
  const size_t size08 = offsetof(ct_optimizer_options, lr_decay);
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADAGRAD, &o));
  o.struct_size = size08;
  o.lr = 0.25;
  o.lr_decay = -7; /* past the old struct: not read */
  ct_tensor* p = param_of(CT_FLOAT64, kP0, kN);
  ct_optimizer* opt = make_opt(&p, 1, &o);
  CHECK(opt);
  unsigned char got[sizeof(ct_optimizer_options)];
  memset(got, 0xab, sizeof got);
  ((ct_optimizer_options*)got)->struct_size = size08;
  CHECK_OK(ct_optimizer_get_options(opt, (ct_optimizer_options*)got));
  CHECK(((ct_optimizer_options*)got)->lr == 0.25 && ((ct_optimizer_options*)got)->kind == CT_OPTIMIZER_ADAGRAD);
  for (size_t i = size08; i < sizeof got; ++i) CHECK(got[i] == 0xab);
  ct_optimizer_options full;
  full.struct_size = sizeof full;
  CHECK_OK(ct_optimizer_get_options(opt, &full));
  CHECK(full.lr_decay == 0 && full.eps == 1e-10);
  o.struct_size = size08 + 8;
  CHECK_STATUS(ct_optimizer_set_options(opt, &o), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("struct_size");
  ct_optimizer_release(opt);
  /* One from a 0.9 header before ASGD, Rprop and LBFGS ends at decoupled_weight_decay. */
  const size_t size09 = offsetof(ct_optimizer_options, lambd);
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_NADAM, &o));
  o.struct_size = size09;
  o.momentum_decay = 0.01;
  o.etaplus = -5; /* past the old struct: not read */
  opt = make_opt(&p, 1, &o);
  CHECK(opt);
  memset(got, 0xab, sizeof got);
  ((ct_optimizer_options*)got)->struct_size = size09;
  CHECK_OK(ct_optimizer_get_options(opt, (ct_optimizer_options*)got));
  CHECK(((ct_optimizer_options*)got)->momentum_decay == 0.01);
  for (size_t i = size09; i < sizeof got; ++i) CHECK(got[i] == 0xab);
  ct_optimizer_release(opt);
  ct_tensor_release(p);
}

/* A non-contiguous parameter takes the operator path; its result must be the fused loop's bits. */
static void test_operator_path_gives_the_fused_bits(void) {
  const int kinds[] = {CT_OPTIMIZER_SGD,     CT_OPTIMIZER_ADAM,     CT_OPTIMIZER_ADAMW, CT_OPTIMIZER_RMSPROP,
                       CT_OPTIMIZER_ADAGRAD, CT_OPTIMIZER_ADAMAX,   CT_OPTIMIZER_NADAM, CT_OPTIMIZER_RADAM,
                       CT_OPTIMIZER_ADADELTA, CT_OPTIMIZER_ASGD,    CT_OPTIMIZER_RPROP};
  for (int k = 0; k < 11; ++k) {
    ct_optimizer_options o;
    CHECK_OK(ct_optimizer_options_default((ct_optimizer_kind)kinds[k], &o));
    o.momentum = 0.9, o.amsgrad = 1, o.centered = 1, o.weight_decay = 0.01, o.initial_accumulator_value = 0.1, o.t0 = 0;
    o.beta2 = kinds[k] == CT_OPTIMIZER_RADAM ? 0.5 : o.beta2; /* RAdam rectified from step 2 */
    ct_tensor *base = NULL, *strided = NULL, *flat = NULL, *gbase = NULL, *gt = NULL;
    CHECK_OK(ct_manual_seed(5));
    CHECK_OK(ct_tensor_randn(S(6, 4), CT_FLOAT32, NULL, NULL, &base));
    CHECK_OK(ct_tensor_randn(S(6, 4), CT_FLOAT32, NULL, NULL, &gbase));
    CHECK_OK(ct_tensor_transpose(base, 0, 1, &strided)); /* a leaf view: [4, 6], not contiguous */
    CHECK_OK(ct_tensor_contiguous(strided, &flat));
    CHECK_OK(ct_tensor_transpose(gbase, 0, 1, &gt));
    CHECK_OK(ct_tensor_set_requires_grad(strided, 1));
    CHECK_OK(ct_tensor_set_requires_grad(flat, 1));
    ct_optimizer* a = make_opt(&strided, 1, &o);
    ct_optimizer* b = make_opt(&flat, 1, &o);
    CHECK(a && b);
    for (int t = 0; t < 3; ++t) {
      CHECK_OK(ct_tensor_set_grad(strided, gt));
      CHECK_OK(ct_tensor_set_grad(flat, gt));
      CHECK_OK(ct_optimizer_step(a));
      CHECK_OK(ct_optimizer_step(b));
    }
    CHECK(same_bits(strided, flat));
    ct_optimizer_release(a);
    ct_optimizer_release(b);
    RELEASE(base, strided, flat, gbase, gt);
  }
}

static void test_same_bits_for_every_thread_count(void) {
  int32_t before = 0;
  CHECK_OK(ct_get_num_threads(&before));
  ct_tensor* p[2] = {NULL, NULL};
  for (int k = 0; k < 2; ++k) {
    ct_tensor* g = NULL;
    CHECK_OK(ct_set_num_threads(k ? 4 : 1));
    CHECK_OK(ct_manual_seed(11));
    CHECK_OK(ct_tensor_randn(S(300001), CT_FLOAT32, NULL, NULL, &p[k]));
    CHECK_OK(ct_tensor_randn(S(300001), CT_FLOAT32, NULL, NULL, &g));
    CHECK_OK(ct_tensor_set_requires_grad(p[k], 1));
    ct_optimizer_options o;
    CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADAMW, &o));
    ct_optimizer* opt = make_opt(&p[k], 1, &o);
    CHECK(opt);
    for (int t = 0; t < 3; ++t) {
      CHECK_OK(ct_tensor_set_grad(p[k], g));
      CHECK_OK(ct_optimizer_step(opt));
    }
    ct_optimizer_release(opt);
    ct_tensor_release(g);
  }
  CHECK_OK(ct_set_num_threads(before));
  CHECK(same_bits(p[0], p[1]));
  RELEASE(p[0], p[1]);
}

static void test_params_without_grad_are_skipped(void) {
  ct_tensor* a = param_of(CT_FLOAT64, kP0, kN);
  ct_tensor* b = param_of(CT_FLOAT64, kP0, kN);
  ct_tensor* ps[2] = {a, b};
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADAM, &o));
  ct_optimizer* opt = make_opt(ps, 2, &o);
  CHECK(opt);
  CHECK(set_grad_values(a, CT_FLOAT64, kG[0], kN));
  CHECK_OK(ct_optimizer_step(opt));
  CHECK_TENSOR(b, CT_FLOAT64, S(kN), 0.5, -1.25, 2.0, 0.0, -0.75);
  CHECK(!same_bits(a, b));
  ct_optimizer_release(opt);
  RELEASE(a, b);
}

static void test_step_bumps_the_version_like_an_inplace_op(void) {
  ct_tensor* p = param_of(CT_FLOAT32, kP0, kN);
  ct_tensor *y = NULL, *loss = NULL;
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_SGD, &o));
  ct_optimizer* opt = make_opt(&p, 1, &o);
  CHECK(opt);
  CHECK(set_grad_values(p, CT_FLOAT32, kG[0], kN));
  CHECK_OK(ct_tensor_mul(p, p, &y)); /* saves p for backward */
  CHECK_OK(ct_tensor_sum(y, NULL, 0, 0, &loss));
  CHECK_OK(ct_optimizer_step(opt));
  CHECK_STATUS(ct_tensor_backward(loss, NULL, 0), CT_ERROR_INVALID_ARGUMENT);
  ct_optimizer_release(opt);
  RELEASE(p, y, loss);
}

static void test_step_records_no_graph(void) {
  ct_tensor* p = param_of(CT_FLOAT32, kP0, kN);
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_RMSPROP, &o));
  ct_optimizer* opt = make_opt(&p, 1, &o);
  CHECK(set_grad_values(p, CT_FLOAT32, kG[0], kN));
  CHECK_OK(ct_optimizer_step(opt));
  int leaf = 0;
  char* name = (char*)capi_sentinel();
  CHECK_OK(ct_tensor_is_leaf(p, &leaf));
  CHECK(leaf);
  CHECK_OK(ct_tensor_grad_fn_name(p, &name));
  CHECK(name == NULL);
  ct_optimizer_release(opt);
  ct_tensor_release(p);
}

static void test_zero_grad_clears_or_zeroes(void) {
  ct_tensor* p = param_of(CT_FLOAT32, kP0, kN);
  ct_tensor* g = NULL;
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_SGD, &o));
  ct_optimizer* opt = make_opt(&p, 1, &o);
  CHECK(set_grad_values(p, CT_FLOAT32, kG[0], kN));
  CHECK_OK(ct_optimizer_zero_grad(opt, 0));
  CHECK_OK(ct_tensor_grad(p, &g));
  CHECK_TENSOR(g, CT_FLOAT32, S(kN), 0, 0, 0, 0, 0);
  ct_tensor_release(g);
  CHECK_OK(ct_optimizer_zero_grad(opt, 1));
  CHECK_OK(ct_tensor_grad(p, &g));
  CHECK(g == NULL);
  CHECK_STATUS(ct_optimizer_zero_grad(NULL, 1), CT_ERROR_INVALID_ARGUMENT);
  ct_optimizer_release(opt);
  ct_tensor_release(p);
}

static void test_create_refuses_bad_input(void) {
  ct_tensor* p = param_of(CT_FLOAT32, kP0, kN);
  ct_tensor *i64 = T(CT_INT64, S(2), 1, 2), *meta = NULL, *nonleaf = NULL, *dead = NULL;
  CHECK_OK(ct_tensor_zeros(S(2), CT_FLOAT32, "meta", &meta));
  CHECK_OK(ct_tensor_mul(p, p, &nonleaf));
  dead = param_of(CT_FLOAT32, kP0, kN);
  ct_tensor_release(dead);
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_SGD, &o));
  ct_optimizer* opt = (ct_optimizer*)capi_sentinel();
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&p, 1, &o, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&p, 1, NULL, &opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK(opt == NULL);
  CHECK_STATUS(ct_optimizer_create(NULL, 1, &o, &opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&p, 0, &o, &opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("empty");
  const ct_tensor* with_null[2] = {p, NULL};
  CHECK_STATUS(ct_optimizer_create(with_null, 2, &o, &opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&dead, 1, &o, &opt), CT_ERROR_INVALID_ARGUMENT);
  const ct_tensor* twice[2] = {p, p};
  CHECK_STATUS(ct_optimizer_create(twice, 2, &o, &opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("more than once");
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&nonleaf, 1, &o, &opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("not a leaf");
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&i64, 1, &o, &opt), CT_ERROR_DTYPE);
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&meta, 1, &o, &opt), CT_ERROR_DEVICE);
  ct_optimizer_options bad = o;
  bad.struct_size = 8;
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&p, 1, &bad, &opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("struct_size");
  bad = o, bad.lr = -1;
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&p, 1, &bad, &opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("lr is -1");
  bad = o, bad.nesterov = 1;
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&p, 1, &bad, &opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("nesterov");
  bad = o, bad.kind = CT_OPTIMIZER_ADAM, bad.beta1 = 1.0;
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&p, 1, &bad, &opt), CT_ERROR_INVALID_ARGUMENT);
  bad = o, bad.kind = (ct_optimizer_kind)77;
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&p, 1, &bad, &opt), CT_ERROR_INVALID_ARGUMENT);
  bad = o, bad.eps = NAN;
  CHECK_STATUS(ct_optimizer_create((const ct_tensor* const*)&p, 1, &bad, &opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK(opt == NULL);
  RELEASE(p, i64, meta, nonleaf);
}

/* An inference tensor cannot be written outside inference mode: the step fails before writing
 * anything, also the parameter listed before it. */
static void test_failed_step_changes_nothing(void) {
  ct_tensor* a = param_of(CT_FLOAT32, kP0, kN);
  ct_tensor *inf = NULL, *g = T(CT_FLOAT32, S(2), 1, 2);
  ct_grad_mode prev;
  CHECK_OK(ct_grad_mode_set(CT_GRAD_MODE_INFERENCE, &prev));
  ct_status made = ct_tensor_zeros(S(2), CT_FLOAT32, NULL, &inf);
  CHECK_OK(ct_grad_mode_set(prev, NULL));
  CHECK_OK(made);
  CHECK_OK(ct_tensor_set_grad(inf, g));
  ct_tensor* ps[2] = {a, inf};
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADAM, &o));
  ct_optimizer* opt = make_opt(ps, 2, &o);
  CHECK(opt);
  CHECK(set_grad_values(a, CT_FLOAT32, kG[0], kN));
  char *before = NULL, *after = NULL;
  size_t nbefore = 0, nafter = 0;
  CHECK_OK(ct_optimizer_state_save(opt, &before, &nbefore));
  CHECK_STATUS(ct_optimizer_step(opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("inference");
  CHECK_OK(ct_optimizer_state_save(opt, &after, &nafter));
  CHECK(nafter == nbefore && memcmp(before, after, nbefore) == 0);
  CHECK_TENSOR(a, CT_FLOAT32, S(kN), 0.5, -1.25, 2.0, 0.0, -0.75);
  /* inside inference mode the same step runs */
  CHECK_OK(ct_grad_mode_set(CT_GRAD_MODE_INFERENCE, &prev));
  ct_status inside = ct_optimizer_step(opt);
  CHECK_OK(ct_grad_mode_set(prev, NULL));
  CHECK_OK(inside);
  CHECK(ct_grad_mode_get() == prev);
  ct_string_release(before);
  ct_string_release(after);
  ct_optimizer_release(opt);
  RELEASE(a, inf, g);
}

static void test_lr_and_options_round_trip(void) {
  ct_tensor* p = param_of(CT_FLOAT32, kP0, kN);
  ct_optimizer_options o, got;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_SGD, &o));
  ct_optimizer* opt = make_opt(&p, 1, &o);
  double lr = 0;
  CHECK_OK(ct_optimizer_set_lr(opt, 0.25));
  CHECK_OK(ct_optimizer_get_lr(opt, &lr));
  CHECK(lr == 0.25);
  CHECK_STATUS(ct_optimizer_set_lr(opt, -0.1), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_optimizer_set_lr(opt, INFINITY), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_optimizer_get_lr(opt, NULL), CT_ERROR_INVALID_ARGUMENT);
  o.momentum = 0.5, o.weight_decay = 0.125;
  CHECK_OK(ct_optimizer_set_options(opt, &o));
  memset(&got, 0, sizeof got);
  got.struct_size = sizeof got;
  CHECK_OK(ct_optimizer_get_options(opt, &got));
  CHECK(got.momentum == 0.5 && got.weight_decay == 0.125 && got.lr == o.lr && got.kind == CT_OPTIMIZER_SGD);
  o.kind = CT_OPTIMIZER_ADAM;
  CHECK_STATUS(ct_optimizer_set_options(opt, &o), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("cannot change");
  o.kind = CT_OPTIMIZER_SGD, o.momentum = -1;
  CHECK_STATUS(ct_optimizer_set_options(opt, &o), CT_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ct_optimizer_get_options(opt, &got));
  CHECK(got.momentum == 0.5); /* unchanged by the refused call */
  got.struct_size = 4;
  CHECK_STATUS(ct_optimizer_get_options(opt, &got), CT_ERROR_INVALID_ARGUMENT);
  size_t n = 0;
  ct_tensor* q = NULL;
  CHECK_OK(ct_optimizer_num_params(opt, &n));
  CHECK(n == 1);
  CHECK_OK(ct_optimizer_param(opt, 0, &q));
  CHECK(q == p);
  ct_tensor_release(q);
  CHECK_STATUS(ct_optimizer_param(opt, 1, &q), CT_ERROR_INDEX);
  ct_optimizer_release(opt);
  ct_tensor_release(p);
}

static void test_retain_release_and_released_handles(void) {
  ct_tensor* p = param_of(CT_FLOAT32, kP0, kN);
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_SGD, &o));
  ct_optimizer* opt = make_opt(&p, 1, &o);
  CHECK_OK(ct_optimizer_retain(opt));
  ct_optimizer_release(opt);
  double lr;
  CHECK_OK(ct_optimizer_get_lr(opt, &lr)); /* one reference left */
  ct_optimizer_release(opt);
  CHECK_STATUS(ct_optimizer_get_lr(opt, &lr), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_optimizer_retain(opt), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_optimizer_step(opt), CT_ERROR_INVALID_ARGUMENT);
  ct_optimizer_release(opt); /* released: a no-op */
  ct_optimizer_release(NULL);
  CHECK_STATUS(ct_optimizer_retain(NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_tensor_release(p);
}

/* Optimizer A steps 3 times and saves; B (fresh, same kind) loads and both step twice more with the
 * same grads: their parameters stay bitwise equal. */
static void test_state_round_trip_continues_identically(void) {
  const int kinds[] = {CT_OPTIMIZER_SGD,     CT_OPTIMIZER_ADAM,     CT_OPTIMIZER_ADAMW, CT_OPTIMIZER_RMSPROP,
                       CT_OPTIMIZER_ADAGRAD, CT_OPTIMIZER_ADAMAX,   CT_OPTIMIZER_NADAM, CT_OPTIMIZER_RADAM,
                       CT_OPTIMIZER_ADADELTA, CT_OPTIMIZER_ASGD,    CT_OPTIMIZER_RPROP};
  for (int k = 0; k < 11; ++k) {
    ct_tensor* a = param_of(CT_FLOAT32, kP0, kN);
    ct_optimizer_options o;
    CHECK_OK(ct_optimizer_options_default((ct_optimizer_kind)kinds[k], &o));
    o.momentum = 0.9, o.amsgrad = 1, o.centered = 1, o.lr = 0.05, o.t0 = 0;
    ct_optimizer* oa = make_opt(&a, 1, &o);
    CHECK(oa);
    for (int t = 0; t < 3; ++t) {
      CHECK(set_grad_values(a, CT_FLOAT32, kG[t], kN));
      CHECK_OK(ct_optimizer_step(oa));
    }
    char* bytes = NULL;
    size_t n = 0;
    CHECK_OK(ct_optimizer_state_save(oa, &bytes, &n));
    CHECK(n > 8 && memcmp(bytes, "CTOPTIM", 8) == 0);
    /* The state holds no parameter values: b starts from a's current ones, as a checkpoint's model
     * would, with default options that the state replaces. */
    double* now = values_of(a, kN);
    ct_tensor* b = param_of(CT_FLOAT32, now, kN);
    free(now);
    CHECK_OK(ct_optimizer_options_default((ct_optimizer_kind)kinds[k], &o));
    ct_optimizer* ob = make_opt(&b, 1, &o);
    CHECK(ob);
    CHECK_OK(ct_optimizer_state_load(ob, bytes, n));
    ct_string_release(bytes);
    for (int t = 0; t < 2; ++t) {
      CHECK(set_grad_values(a, CT_FLOAT32, kG[2 - t], kN));
      CHECK(set_grad_values(b, CT_FLOAT32, kG[2 - t], kN));
      CHECK_OK(ct_optimizer_step(oa));
      CHECK_OK(ct_optimizer_step(ob));
    }
    CHECK(same_bits(a, b));
    ct_optimizer_options got;
    got.struct_size = sizeof got;
    CHECK_OK(ct_optimizer_get_options(ob, &got));
    CHECK(got.lr == 0.05 && got.momentum == 0.9);
    ct_optimizer_release(oa);
    ct_optimizer_release(ob);
    RELEASE(a, b);
  }
}

static void test_state_load_refuses_other_optimizers(void) {
  ct_tensor* a = param_of(CT_FLOAT32, kP0, kN);
  ct_tensor* shorter = param_of(CT_FLOAT32, kP0, 3);
  ct_tensor* f64 = param_of(CT_FLOAT64, kP0, kN);
  ct_tensor* two[2] = {a, shorter};
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_ADAM, &o));
  ct_optimizer* src = make_opt(&a, 1, &o);
  CHECK(set_grad_values(a, CT_FLOAT32, kG[0], kN));
  CHECK_OK(ct_optimizer_step(src));
  char* bytes = NULL;
  size_t n = 0;
  CHECK_OK(ct_optimizer_state_save(src, &bytes, &n));
  ct_optimizer* other_sizes = make_opt(&shorter, 1, &o);
  ct_optimizer* other_dtype = make_opt(&f64, 1, &o);
  ct_optimizer* other_count = make_opt(two, 2, &o);
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_SGD, &o));
  ct_optimizer* other_kind = make_opt(&a, 1, &o);
  CHECK_STATUS(ct_optimizer_state_load(other_sizes, bytes, n), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("sizes");
  CHECK_STATUS(ct_optimizer_state_load(other_dtype, bytes, n), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("float64");
  CHECK_STATUS(ct_optimizer_state_load(other_count, bytes, n), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("parameters");
  CHECK_STATUS(ct_optimizer_state_load(other_kind, bytes, n), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("Adam");
  CHECK_STATUS(ct_optimizer_state_load(src, NULL, 4), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_optimizer_state_load(NULL, bytes, n), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_optimizer_state_save(src, NULL, &n), CT_ERROR_INVALID_ARGUMENT);
  ct_string_release(bytes);
  ct_optimizer_release(src);
  ct_optimizer_release(other_sizes);
  ct_optimizer_release(other_dtype);
  ct_optimizer_release(other_count);
  ct_optimizer_release(other_kind);
  RELEASE(a, shorter, f64);
}

/* Every truncation, a trailing byte and corrupted fields are CT_ERROR_FORMAT and leave the state
 * as it was; random corruption never crashes. */
static void test_state_load_refuses_malformed_bytes(void) {
  ct_tensor* a = param_of(CT_FLOAT32, kP0, kN);
  ct_optimizer_options o;
  CHECK_OK(ct_optimizer_options_default(CT_OPTIMIZER_RMSPROP, &o));
  o.centered = 1, o.momentum = 0.3;
  ct_optimizer* opt = make_opt(&a, 1, &o);
  CHECK(set_grad_values(a, CT_FLOAT32, kG[0], kN));
  CHECK_OK(ct_optimizer_step(opt));
  char* good = NULL;
  size_t n = 0;
  CHECK_OK(ct_optimizer_state_save(opt, &good, &n));
  for (size_t len = 0; len < n; ++len) CHECK_STATUS(ct_optimizer_state_load(opt, good, len), CT_ERROR_FORMAT);
  char* buf = malloc(n + 1);
  memcpy(buf, good, n);
  buf[n] = 0;
  CHECK_STATUS(ct_optimizer_state_load(opt, buf, n + 1), CT_ERROR_FORMAT);
  CHECK_ERROR_CONTAINS("follow");
  buf[0] = 'X';
  CHECK_STATUS(ct_optimizer_state_load(opt, buf, n), CT_ERROR_FORMAT);
  CHECK_ERROR_CONTAINS("magic");
  memcpy(buf, good, n);
  buf[8] = 4; /* version */
  CHECK_STATUS(ct_optimizer_state_load(opt, buf, n), CT_ERROR_FORMAT);
  memcpy(buf, good, n);
  buf[16] = (char)0x80; /* an unknown flag */
  CHECK_STATUS(ct_optimizer_state_load(opt, buf, n), CT_ERROR_FORMAT);
  memcpy(buf, good, n);
  const double neg = -0.5; /* lr, at offset 24 */
  memcpy(buf + 24, &neg, 8);
  CHECK_STATUS(ct_optimizer_state_load(opt, buf, n), CT_ERROR_FORMAT);
  /* the step count: after the header (24 bytes, 20 f64 and 3 i64 options, the parameter count), dtype,
   * ndim and one size */
  const size_t param0 = 24 + 20 * 8 + 3 * 8 + 8;
  memcpy(buf, good, n);
  memcpy(buf + param0 + 16, &neg, 8);
  CHECK_STATUS(ct_optimizer_state_load(opt, buf, n), CT_ERROR_FORMAT);
  CHECK_ERROR_CONTAINS("step count");
  memcpy(buf, good, n);
  const double inf = INFINITY; /* mu_product, after the step count */
  memcpy(buf + param0 + 24, &inf, 8);
  CHECK_STATUS(ct_optimizer_state_load(opt, buf, n), CT_ERROR_FORMAT);
  CHECK_ERROR_CONTAINS("mu_product");
  memcpy(buf, good, n);
  memcpy(buf + param0 + 40, &inf, 8); /* mu, after eta */
  CHECK_STATUS(ct_optimizer_state_load(opt, buf, n), CT_ERROR_FORMAT);
  memcpy(buf, good, n);
  const double etaplus = 0.5; /* Rprop's etaplus, the 16th option, must exceed 1 */
  memcpy(buf + 24 + 15 * 8, &etaplus, 8);
  CHECK_STATUS(ct_optimizer_state_load(opt, buf, n), CT_ERROR_FORMAT);
  CHECK_ERROR_CONTAINS("etaminus < 1 < etaplus");
  memcpy(buf, good, n);
  buf[param0 + 48] = 8; /* a buffer bit past the three */
  CHECK_STATUS(ct_optimizer_state_load(opt, buf, n), CT_ERROR_FORMAT);
  /* random corruption: any status, never a crash, and a good load still works afterwards */
  uint32_t seed = 12345;
  for (int trial = 0; trial < 2000; ++trial) {
    memcpy(buf, good, n);
    for (int k = 0; k < 3; ++k) {
      seed = seed * 1664525u + 1013904223u;
      buf[(seed >> 8) % n] ^= (char)(1u << ((seed >> 4) & 7));
    }
    ct_status s = ct_optimizer_state_load(opt, buf, n);
    CHECK(s == CT_OK || s == CT_ERROR_FORMAT || s == CT_ERROR_INVALID_ARGUMENT);
  }
  CHECK_OK(ct_optimizer_state_load(opt, good, n));
  char* again = NULL;
  size_t n2 = 0;
  CHECK_OK(ct_optimizer_state_save(opt, &again, &n2));
  CHECK(n2 == n && memcmp(again, good, n) == 0);
  free(buf);
  ct_string_release(good);
  ct_string_release(again);
  ct_optimizer_release(opt);
  ct_tensor_release(a);
}

/* ---- schedulers ---- */

static ct_optimizer* lr_opt(ct_tensor** p, double lr) {
  *p = param_of(CT_FLOAT32, kP0, kN);
  ct_optimizer_options o;
  if (ct_optimizer_options_default(CT_OPTIMIZER_SGD, &o) != CT_OK) return NULL;
  o.lr = lr;
  return make_opt(p, 1, &o);
}

static void test_step_lr_follows_its_closed_form(void) {
  ct_tensor* p = NULL;
  ct_optimizer* opt = lr_opt(&p, 0.5);
  ct_lr_scheduler_options so;
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_STEP, &so));
  CHECK(so.gamma == 0.1 && so.step_size == 1);
  so.step_size = 3, so.gamma = 0.5;
  ct_lr_scheduler* s = NULL;
  CHECK_OK(ct_lr_scheduler_create(opt, &so, &s));
  double lr = 0;
  int64_t e = -1;
  CHECK_OK(ct_lr_scheduler_get_last_epoch(s, &e));
  CHECK(e == 0);
  for (int k = 1; k <= 10; ++k) {
    CHECK_OK(ct_lr_scheduler_step(s));
    CHECK_OK(ct_lr_scheduler_get_last_lr(s, &lr));
    CHECK(lr == 0.5 * pow(0.5, k / 3)); /* powers of two: exact */
    double olr = 0;
    CHECK_OK(ct_optimizer_get_lr(opt, &olr));
    CHECK(olr == lr);
  }
  ct_lr_scheduler_release(s);
  ct_optimizer_release(opt);
  ct_tensor_release(p);
}

static void test_cosine_and_linear_follow_torch(void) {
  ct_tensor* p = NULL;
  ct_optimizer* opt = lr_opt(&p, 0.1);
  ct_lr_scheduler_options so;
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_COSINE, &so));
  so.t_max = 10, so.eta_min = 0.001;
  ct_lr_scheduler* s = NULL;
  CHECK_OK(ct_lr_scheduler_create(opt, &so, &s));
  double lr = 0;
  for (int k = 1; k <= 25; ++k) {
    CHECK_OK(ct_lr_scheduler_step(s));
    CHECK_OK(ct_lr_scheduler_get_last_lr(s, &lr));
    /* the recursion agrees with the closed form to rounding (pytest compares with torch's bits) */
    const double closed = 0.001 + (0.1 - 0.001) * (1 + cos(3.141592653589793 * k / 10)) / 2;
    CHECK(fabs(lr - closed) <= 1e-12);
  }
  ct_lr_scheduler_release(s);
  CHECK_OK(ct_optimizer_set_lr(opt, 0.3));
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_LINEAR, &so));
  CHECK(fabs(so.start_factor - 1.0 / 3) < 1e-16 && so.end_factor == 1 && so.total_iters == 5);
  so.start_factor = 0.25, so.end_factor = 1.0, so.total_iters = 4;
  CHECK_OK(ct_lr_scheduler_create(opt, &so, &s));
  CHECK_OK(ct_lr_scheduler_get_last_lr(s, &lr));
  CHECK(lr == 0.3 * 0.25);
  for (int k = 1; k <= 8; ++k) {
    CHECK_OK(ct_lr_scheduler_step(s));
    CHECK_OK(ct_lr_scheduler_get_last_lr(s, &lr));
    const double closed = 0.3 * (0.25 + 0.75 * (k < 4 ? k : 4) / 4.0);
    CHECK(fabs(lr - closed) <= 1e-15);
  }
  ct_lr_scheduler_release(s);
  ct_optimizer_release(opt);
  ct_tensor_release(p);
}

/* The lr after each of n steps of the schedule so (from base lr 1), into lrs[0..n] (lrs[0] at creation). */
static void run_schedule(const ct_lr_scheduler_options* so, int n, double* lrs) {
  ct_tensor* p = NULL;
  ct_optimizer* opt = lr_opt(&p, 1.0);
  ct_lr_scheduler* s = NULL;
  CHECK_OK(ct_lr_scheduler_create(opt, so, &s));
  CHECK_OK(ct_lr_scheduler_get_last_lr(s, &lrs[0]));
  for (int k = 1; k <= n; ++k) {
    CHECK_OK(ct_lr_scheduler_step(s));
    CHECK_OK(ct_lr_scheduler_get_last_lr(s, &lrs[k]));
  }
  ct_lr_scheduler_release(s);
  ct_optimizer_release(opt);
  ct_tensor_release(p);
}

static void test_exponential_multistep_constant_polynomial_and_restarts(void) {
  ct_lr_scheduler_options so;
  double lr[13];
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_EXPONENTIAL, &so));
  so.gamma = 0.5;
  run_schedule(&so, 4, lr);
  CHECK(lr[0] == 1 && lr[1] == 0.5 && lr[4] == 0.0625);

  const int64_t milestones[] = {2, 5, 5};  /* 5 twice: decays twice there */
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_MULTISTEP, &so));
  CHECK(so.milestones == NULL && so.num_milestones == 0);
  so.milestones = milestones, so.num_milestones = 3, so.gamma = 0.5;
  run_schedule(&so, 6, lr);
  CHECK(lr[1] == 1 && lr[2] == 0.5 && lr[4] == 0.5 && lr[5] == 0.125 && lr[6] == 0.125);

  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_CONSTANT, &so));
  CHECK(fabs(so.factor - 1.0 / 3) < 1e-16 && so.total_iters == 5);
  so.factor = 0.25, so.total_iters = 3;
  run_schedule(&so, 4, lr);
  CHECK(lr[0] == 0.25 && lr[2] == 0.25 && lr[3] == 1 && lr[4] == 1);

  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_POLYNOMIAL, &so));
  CHECK(so.power == 1 && so.total_iters == 5);
  so.total_iters = 4, so.power = 2;
  run_schedule(&so, 6, lr);
  for (int k = 0; k <= 6; ++k) {
    const double left = k < 4 ? 1 - k / 4.0 : 0;
    CHECK(fabs(lr[k] - left * left) <= 1e-15);  /* (1 - e / T)^power, then 0 */
  }

  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_COSINE_WARM_RESTARTS, &so));
  CHECK(so.t_0 == 1 && so.t_mult == 1);
  so.t_0 = 2, so.t_mult = 2, so.eta_min = 0;
  run_schedule(&so, 7, lr);  /* periods of 2, then 4, then 8: restarts at steps 2 and 6 */
  CHECK(lr[0] == 1 && lr[2] == 1 && lr[6] == 1);
  CHECK(fabs(lr[1] - 0.5) <= 1e-15 && fabs(lr[4] - 0.5) <= 1e-15);
  CHECK(fabs(lr[7] - (1 + cos(3.141592653589793 / 8)) / 2) <= 1e-15);

  /* base_lr: the formulas start from it, step 0 applies to the current lr; restart goes back to it. */
  {
    ct_tensor* p = NULL;
    ct_optimizer* opt = lr_opt(&p, 0.25);
    ct_lr_scheduler* s = NULL;
    CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_COSINE, &so));
    so.t_max = 2, so.base_lr = 1.0;
    CHECK_OK(ct_lr_scheduler_create(opt, &so, &s));
    CHECK_OK(ct_lr_scheduler_get_last_lr(s, &lr[0]));
    CHECK(lr[0] == 0.25); /* step 0 keeps the current lr */
    CHECK_OK(ct_lr_scheduler_step(s));
    CHECK_OK(ct_lr_scheduler_restart(s));
    CHECK_OK(ct_lr_scheduler_get_last_lr(s, &lr[1]));
    int64_t e = -1;
    CHECK_OK(ct_lr_scheduler_get_last_epoch(s, &e));
    CHECK(lr[1] == 1.0 && e == 0); /* back to the base lr at step 0 */
    ct_lr_scheduler_release(s);
    CHECK_STATUS(ct_lr_scheduler_restart(s), CT_ERROR_INVALID_ARGUMENT);
    so.base_lr = -1;
    CHECK_STATUS(ct_lr_scheduler_create(opt, &so, &s), CT_ERROR_INVALID_ARGUMENT);
    CHECK_ERROR_CONTAINS("base_lr");
    ct_optimizer_release(opt);
    ct_tensor_release(p);
  }

  /* A caller built against 0.8's struct (ending at total_iters) gets the defaults after it. */
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_STEP, &so));
  so.struct_size = offsetof(ct_lr_scheduler_options, milestones);
  run_schedule(&so, 1, lr);
  CHECK(fabs(lr[1] - 0.1) < 1e-15);
}

static void test_scheduler_keeps_its_optimizer_alive(void) {
  ct_tensor* p = NULL;
  ct_optimizer* opt = lr_opt(&p, 1.0);
  ct_lr_scheduler_options so;
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_STEP, &so));
  ct_lr_scheduler* s = NULL;
  CHECK_OK(ct_lr_scheduler_create(opt, &so, &s));
  ct_optimizer_release(opt);
  CHECK_OK(ct_lr_scheduler_step(s));
  double lr = 0;
  CHECK_OK(ct_lr_scheduler_get_last_lr(s, &lr));
  CHECK(fabs(lr - 0.1) < 1e-15);
  CHECK_OK(ct_lr_scheduler_retain(s));
  ct_lr_scheduler_release(s);
  ct_lr_scheduler_release(s);
  CHECK_STATUS(ct_lr_scheduler_step(s), CT_ERROR_INVALID_ARGUMENT);
  ct_lr_scheduler_release(NULL);
  ct_tensor_release(p);
}

static void test_scheduler_refuses_bad_settings(void) {
  ct_tensor* p = NULL;
  ct_optimizer* opt = lr_opt(&p, 1.0);
  ct_lr_scheduler_options so;
  ct_lr_scheduler* s = (ct_lr_scheduler*)capi_sentinel();
  CHECK_STATUS(ct_lr_scheduler_options_default((ct_lr_scheduler_kind)99, &so), CT_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_STEP, &so));
  so.step_size = 0;
  CHECK_STATUS(ct_lr_scheduler_create(opt, &so, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK(s == NULL);
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_COSINE, &so));
  so.t_max = 0;
  CHECK_STATUS(ct_lr_scheduler_create(opt, &so, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_LINEAR, &so));
  so.start_factor = 0;
  CHECK_STATUS(ct_lr_scheduler_create(opt, &so, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("start_factor");
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_LINEAR, &so));
  so.struct_size = 4;
  CHECK_STATUS(ct_lr_scheduler_create(opt, &so, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_MULTISTEP, &so));
  so.num_milestones = 2; /* and milestones NULL */
  CHECK_STATUS(ct_lr_scheduler_create(opt, &so, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("milestones");
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_CONSTANT, &so));
  so.factor = 0;
  CHECK_STATUS(ct_lr_scheduler_create(opt, &so, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("factor");
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_COSINE_WARM_RESTARTS, &so));
  so.t_mult = 0;
  CHECK_STATUS(ct_lr_scheduler_create(opt, &so, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR_CONTAINS("t_mult");
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_POLYNOMIAL, &so));
  so.power = NAN;
  CHECK_STATUS(ct_lr_scheduler_create(opt, &so, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_LINEAR, &so));
  so.kind = (ct_lr_scheduler_kind)9;
  CHECK_STATUS(ct_lr_scheduler_create(opt, &so, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK_OK(ct_lr_scheduler_options_default(CT_LR_SCHEDULER_LINEAR, &so));
  CHECK_STATUS(ct_lr_scheduler_create(NULL, &so, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_lr_scheduler_create(opt, NULL, &s), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_lr_scheduler_create(opt, &so, NULL), CT_ERROR_INVALID_ARGUMENT);
  CHECK_STATUS(ct_lr_scheduler_get_last_lr(NULL, NULL), CT_ERROR_INVALID_ARGUMENT);
  ct_optimizer_release(opt);
  ct_tensor_release(p);
}

static const capi_test TESTS[] = {
    CAPI_TEST(test_defaults_are_torchs),
    CAPI_TEST(test_sgd_matches_torch_formula),
    CAPI_TEST(test_adam_and_adamw_match_torch_formula),
    CAPI_TEST(test_rmsprop_matches_torch_formula),
    CAPI_TEST(test_adagrad_adamax_nadam_radam_adadelta_match_torch_formulas),
    CAPI_TEST(test_asgd_and_rprop_match_torch_formulas),
    CAPI_TEST(test_state_entries_are_torchs),
    CAPI_TEST(test_lbfgs_minimizes_with_a_closure),
    CAPI_TEST(test_lbfgs_closure_failures_change_nothing),
    CAPI_TEST(test_options_from_an_older_header),
    CAPI_TEST(test_operator_path_gives_the_fused_bits),
    CAPI_TEST(test_same_bits_for_every_thread_count),
    CAPI_TEST(test_params_without_grad_are_skipped),
    CAPI_TEST(test_step_bumps_the_version_like_an_inplace_op),
    CAPI_TEST(test_step_records_no_graph),
    CAPI_TEST(test_zero_grad_clears_or_zeroes),
    CAPI_TEST(test_create_refuses_bad_input),
    CAPI_TEST(test_failed_step_changes_nothing),
    CAPI_TEST(test_lr_and_options_round_trip),
    CAPI_TEST(test_retain_release_and_released_handles),
    CAPI_TEST(test_state_round_trip_continues_identically),
    CAPI_TEST(test_state_load_refuses_other_optimizers),
    CAPI_TEST(test_state_load_refuses_malformed_bytes),
    CAPI_TEST(test_step_lr_follows_its_closed_form),
    CAPI_TEST(test_cosine_and_linear_follow_torch),
    CAPI_TEST(test_exponential_multistep_constant_polynomial_and_restarts),
    CAPI_TEST(test_scheduler_keeps_its_optimizer_alive),
    CAPI_TEST(test_scheduler_refuses_bad_settings),
};
CAPI_MAIN(TESTS)
