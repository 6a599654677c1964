/*
 * bench_symbolic.c - ctorch's ShapeEnv through the C ABI: the ctorch half of bench_symbolic.py,
 * which runs it beside sympy and Python guard functions and prints the table.
 *
 * The workload is fixed so that the Python side can build the same one:
 *   symbols  s0..s15 with hints 2..17, each in [1, 4096]
 *   terms    t_i = (i % 7 + 1) * s_(i % 16) * s_((3 i + 1) % 16), i = 0 .. 9999
 *   sum_nary the 10,000 terms summed as one n-ary node (ct_sym_sum)
 *   sum_chain the same terms summed by 9,999 binary adds (each canonicalizes the sum so far)
 *   guards   g_i: (i % 5 + 1) * s_(i % 16) + s_((i + 7) % 16) <= that value at the hints + i,
 *            i = 0 .. 999, each recorded by branching on it (ct_symbool_guard_bool)
 *   check    every guard evaluated under a binding (the hints), ct_shape_env_check_guards
 *
 * Prints one "name microseconds" line per measurement (medians of 7 runs) and "result <text>"
 * lines for the Python side to compare.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_timing.h"

enum { kSymbols = 16, kTerms = 10000, kGuards = 1000, kReps = 7 };

typedef struct {
  ct_shape_env* env;
  ct_symint* s[kSymbols];
  ct_symint* terms[kTerms];
} Workload;

static ct_symint* constant(int64_t v) {
  ct_symint* c = NULL;
  CHECK(ct_symint_from_int(v, &c));
  return c;
}

static void make_env(Workload* w) {
  CHECK(ct_shape_env_create(&w->env));
  for (int k = 0; k < kSymbols; ++k) CHECK(ct_shape_env_create_symbol(w->env, NULL, k + 2, 1, 4096, &w->s[k]));
}

static void free_env(Workload* w) {
  for (int k = 0; k < kSymbols; ++k) ct_symint_release(w->s[k]);
  ct_shape_env_release(w->env);
}

static void make_terms(Workload* w) {
  for (int i = 0; i < kTerms; ++i) {
    ct_symint *c = constant(i % 7 + 1), *p = NULL;
    CHECK(ct_symint_mul(c, w->s[i % kSymbols], &p));
    CHECK(ct_symint_mul(p, w->s[(3 * i + 1) % kSymbols], &w->terms[i]));
    ct_symint_release(c);
    ct_symint_release(p);
  }
}

static void free_terms(Workload* w) {
  for (int i = 0; i < kTerms; ++i) ct_symint_release(w->terms[i]);
}

static void print_result(const char* name, const ct_symint* s) {
  char* text = NULL;
  CHECK(ct_symint_to_string(s, &text));
  printf("result %s %s\n", name, text);
  ct_string_release(text);
}

int main(void) {
  double t_terms[kReps], t_nary[kReps], t_chain[kReps], t_record[kReps], t_check[kReps];
  int64_t hints[kSymbols];
  for (int k = 0; k < kSymbols; ++k) hints[k] = k + 2;
  for (int r = 0; r < kReps; ++r) {
    Workload w;
    make_env(&w);  /* a fresh env per run: nothing interned from an earlier run */
    double t0 = now_s();
    make_terms(&w);
    t_terms[r] = now_s() - t0;

    ct_symint* nary = NULL;
    t0 = now_s();
    CHECK(ct_sym_sum((const ct_symint* const*)w.terms, kTerms, &nary));
    t_nary[r] = now_s() - t0;

    ct_symint* chain = constant(0);
    t0 = now_s();
    for (int i = 0; i < kTerms; ++i) {
      ct_symint* next = NULL;
      CHECK(ct_symint_add(chain, w.terms[i], &next));
      ct_symint_release(chain);
      chain = next;
    }
    t_chain[r] = now_s() - t0;
    if (r == 0) {
      print_result("sum", nary);
      int64_t v = 0;
      CHECK(ct_symint_evaluate(nary, hints, kSymbols, &v));
      printf("result sum_at_hints %lld\n", (long long)v);
      char *a = NULL, *b = NULL;
      CHECK(ct_symint_to_string(nary, &a));
      CHECK(ct_symint_to_string(chain, &b));
      if (strcmp(a, b) != 0) {
        fprintf(stderr, "bench_symbolic: the n-ary and the chained sum differ\n");
        return 1;
      }
      ct_string_release(a);
      ct_string_release(b);
    }
    ct_symint_release(nary);
    ct_symint_release(chain);
    free_terms(&w);

    t0 = now_s();
    for (int i = 0; i < kGuards; ++i) {
      const int a = i % kSymbols, b = (i + 7) % kSymbols;
      const int64_t coeff = i % 5 + 1, bound = coeff * hints[a] + hints[b] + i;
      ct_symint *c = constant(coeff), *p = NULL, *lhs = NULL, *rhs = constant(bound);
      ct_symbool* g = NULL;
      CHECK(ct_symint_mul(c, w.s[a], &p));
      CHECK(ct_symint_add(p, w.s[b], &lhs));
      CHECK(ct_symint_le(lhs, rhs, &g));
      int holds = 0;
      CHECK(ct_symbool_guard_bool(g, &holds));
      ct_symint_release(c), ct_symint_release(p), ct_symint_release(lhs), ct_symint_release(rhs);
      ct_symbool_release(g);
    }
    t_record[r] = now_s() - t0;
    size_t n_guards = 0;
    CHECK(ct_shape_env_num_guards(w.env, &n_guards));
    if (r == 0) printf("result guards %zu\n", n_guards);

    int64_t failing = 0;
    enum { kChecks = 200 };
    t0 = now_s();
    for (int k = 0; k < kChecks; ++k) CHECK(ct_shape_env_check_guards(w.env, hints, kSymbols, &failing));
    t_check[r] = (now_s() - t0) / kChecks;
    if (failing != -1) {
      fprintf(stderr, "bench_symbolic: guard %lld fails at the hints\n", (long long)failing);
      return 1;
    }
    free_env(&w);
  }
  printf("build_terms_us %.1f\n", median(t_terms, kReps) * 1e6);
  printf("sum_nary_us %.1f\n", median(t_nary, kReps) * 1e6);
  printf("sum_chain_us %.1f\n", median(t_chain, kReps) * 1e6);
  printf("record_guards_us %.1f\n", median(t_record, kReps) * 1e6);
  printf("check_guards_us %.2f\n", median(t_check, kReps) * 1e6);
  return 0;
}
