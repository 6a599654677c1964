/* symbolic.c - symbolic shapes: a size symbol with a range, operators on a meta tensor of that
 * size, a guard recorded by branching, the guards checked against other sizes, and an unbacked
 * symbol from item() sizing topk. */
#include <ctorch.h>
#include <stdio.h>
#include <stdlib.h>

#define TRY(call)                                                                        \
  do {                                                                                   \
    ct_status s_ = (call);                                                               \
    if (s_ != CT_OK) {                                                                   \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ct_status_name(s_), ct_last_error()); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

/* Prints "label: [s0, 50]", the sizes of a tensor whose sizes may be symbolic. */
static void show_sizes(const char* label, const ct_tensor* t) {
  size_t ndim = 0;
  TRY(ct_tensor_ndim(t, &ndim));
  printf("%s: [", label);
  for (size_t d = 0; d < ndim; ++d) {
    ct_symint* size = NULL;
    char* text = NULL;
    TRY(ct_tensor_sym_size(t, (int64_t)d, &size));
    TRY(ct_symint_to_string(size, &text));
    printf("%s%s", d ? ", " : "", text);
    ct_string_release(text);
    ct_symint_release(size);
  }
  printf("]\n");
}

int main(void) {
  ct_shape_env* env = NULL;
  ct_symint *batch = NULL, *features = NULL, *four = NULL, *biggest = NULL, *k = NULL;
  TRY(ct_shape_env_create(&env));
  /* Dim("batch", min=1, max=1024), traced at 8. */
  TRY(ct_shape_env_create_symbol(env, "batch", 8, 1, 1024, &batch));
  TRY(ct_symint_from_int(100, &features));

  /* linear on a [batch, 100] meta input: no data, only shapes. */
  ct_tensor *x = NULL, *w = NULL, *y = NULL, *flat = NULL;
  const ct_symint* x_sizes[2] = {batch, features};
  const int64_t w_sizes[2] = {50, 100};
  TRY(ct_tensor_empty_symbolic(x_sizes, 2, CT_FLOAT32, &x));
  TRY(ct_tensor_empty(w_sizes, 2, CT_FLOAT32, "meta", &w));
  TRY(ct_tensor_linear(x, w, NULL, &y));
  show_sizes("linear", y);
  const int64_t new_shape[2] = {-1, 25};
  TRY(ct_tensor_reshape(y, new_shape, 2, &flat));
  show_sizes("reshape(-1, 25)", flat);

  /* sym_max builds an expression and records no guard; max(batch, 1) is batch, as batch >= 1. */
  const ct_symint* pair[2] = {batch, features};
  TRY(ct_sym_max(pair, 2, &biggest));
  char* text = NULL;
  TRY(ct_symint_to_string(biggest, &text));
  printf("sym_max(batch, 100) = %s\n", text);
  ct_string_release(text);

  /* Branching needs a concrete answer: it is taken from the hint, and the fact becomes a guard. */
  ct_symbool* large = NULL;
  int is_large = 0;
  TRY(ct_symint_from_int(4, &four));
  TRY(ct_symint_gt(batch, four, &large));
  TRY(ct_symbool_guard_bool(large, &is_large));
  printf("batch > 4 at the hint: %s\n", is_large ? "yes" : "no");

  /* item() of a meta tensor is an unbacked symbol u0: topk with k = u0 gives [batch, u0]. */
  ct_tensor *counts = NULL, *total = NULL, *top[2] = {NULL, NULL};
  TRY(ct_tensor_empty_symbolic(x_sizes, 1, CT_INT64, &counts));
  TRY(ct_tensor_sum(counts, NULL, 0, 0, &total));
  TRY(ct_tensor_sym_item(total, &k));
  ct_value args[2] = {{0}};
  args[0].kind = CT_VALUE_TENSOR;
  args[0].tensor = x;
  ct_value_set_symint(&args[1], k);
  TRY(ct_op_call("topk", args, 2, top, 2));
  show_sizes("topk(x, k=item())", top[0]);

  char* json = NULL;
  TRY(ct_shape_env_guards_json(env, &json));
  printf("env: %s\n", json);
  ct_string_release(json);

  /* The traced shapes hold for every binding under which all guards and assertions hold. */
  const int64_t sizes[][2] = {{16, 3}, {2, 3}, {16, 500}};  /* values of batch and u0 */
  for (int i = 0; i < 3; ++i) {
    int64_t failing = 0;
    TRY(ct_shape_env_check_guards(env, sizes[i], 2, &failing));
    printf("batch=%lld, u0=%lld: %s\n", (long long)sizes[i][0], (long long)sizes[i][1],
           failing < 0 ? "guards hold" : "a guard fails");
  }

  ct_tensor_release(top[0]), ct_tensor_release(top[1]), ct_tensor_release(total), ct_tensor_release(counts);
  ct_tensor_release(flat), ct_tensor_release(y), ct_tensor_release(w), ct_tensor_release(x);
  ct_symbool_release(large);
  ct_symint_release(k), ct_symint_release(four), ct_symint_release(biggest);
  ct_symint_release(features), ct_symint_release(batch);
  ct_shape_env_release(env);
  return 0;
}
