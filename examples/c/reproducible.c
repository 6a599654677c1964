/* reproducible.c - the runtime switches: seeded random numbers that repeat for any thread count,
 * a generator checkpoint, dropout, deterministic mode, and a device context. docs/runtime.md quotes it. */
#include <stdio.h>
#include <string.h>

#include "ctorch.h"

#define TRY(call)                                                        \
  do {                                                                   \
    if ((call) != CT_OK) {                                               \
      fprintf(stderr, "%s failed: %s\n", #call, ct_last_error());       \
      return 1;                                                          \
    }                                                                    \
  } while (0)

static int print(const char* label, const ct_tensor* t) {
  char* text = NULL;
  if (ct_tensor_to_string(t, &text) != CT_OK) return 1;
  printf("%s %s\n", label, text);
  ct_string_release(text);
  return 0;
}

int main(void) {
  TRY(ct_init(CT_ABI_VERSION));
  const int64_t sizes[2] = {2, 3};

  /* One seed, the same numbers on 1 thread and on 4. */
  ct_tensor *one = NULL, *four = NULL;
  TRY(ct_set_num_threads(1));
  TRY(ct_manual_seed(2024));
  TRY(ct_tensor_randn(sizes, 2, CT_FLOAT32, NULL, NULL, &one));
  TRY(ct_set_num_threads(4));
  TRY(ct_manual_seed(2024));
  TRY(ct_tensor_randn(sizes, 2, CT_FLOAT32, NULL, NULL, &four));
  float a[6], b[6];
  TRY(ct_tensor_copy_to(one, a, sizeof a));
  TRY(ct_tensor_copy_to(four, b, sizeof b));
  if (print("randn:", one)) return 1;
  printf("same on 1 and 4 threads: %s\n", memcmp(a, b, sizeof a) == 0 ? "yes" : "no");

  /* A private generator, checkpointed and restored. */
  ct_generator* gen = NULL;
  uint8_t state[CT_GENERATOR_STATE_SIZE];
  ct_tensor *first = NULL, *again = NULL;
  TRY(ct_generator_create("cpu", &gen));
  TRY(ct_generator_manual_seed(gen, 7));
  TRY(ct_generator_get_state(gen, state, sizeof state));
  TRY(ct_tensor_randint(0, 10, sizes, 2, CT_INT64, NULL, gen, &first));
  TRY(ct_generator_set_state(gen, state, sizeof state));
  TRY(ct_tensor_randint(0, 10, sizes, 2, CT_INT64, NULL, gen, &again));
  if (print("randint:", first) || print("replayed:", again)) return 1;

  /* Dropout keeps each element with probability 0.5 and doubles what it keeps. */
  ct_tensor *x = NULL, *dropped = NULL;
  TRY(ct_tensor_ones(sizes, 2, CT_FLOAT32, NULL, &x));
  TRY(ct_tensor_dropout(x, 0.5, 1, gen, &dropped));
  if (print("dropout:", dropped)) return 1;

  /* Deterministic mode: empty memory reads as NaN. */
  ct_tensor* e = NULL;
  TRY(ct_use_deterministic_algorithms(1, 0));
  TRY(ct_tensor_empty(sizes, 2, CT_FLOAT32, NULL, &e));
  if (print("empty:", e)) return 1;
  TRY(ct_use_deterministic_algorithms(0, 0));

  /* A device context: factories without a device go to the meta device (sizes only). */
  ct_tensor* m = NULL;
  TRY(ct_device_push("meta"));
  TRY(ct_tensor_rand(sizes, 2, CT_FLOAT32, NULL, NULL, &m));
  TRY(ct_device_pop());
  if (print("in a meta context:", m)) return 1;

  ct_generator_release(gen);
  ct_tensor_release(one), ct_tensor_release(four), ct_tensor_release(first), ct_tensor_release(again);
  ct_tensor_release(x), ct_tensor_release(dropped), ct_tensor_release(e), ct_tensor_release(m);
  return 0;
}
