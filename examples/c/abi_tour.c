/*
 * abi_tour.c - the conventions of ctorch.h in one program (docs/abi.md walks through it).
 *
 * Versions, errors (status + ct_last_error), ownership (borrowed inputs, new references,
 * retain/release, views keeping storage alive) and handle checks. Exits 0 when every
 * convention behaved as documented.
 */
#include <ctorch.h>
#include <stdio.h>

/* A call that must succeed: on failure print its status and message, then clean up. */
#define CHECK(call)                                                                         \
  do {                                                                                      \
    ct_status status_ = (call);                                                             \
    if (status_ != CT_OK) {                                                                 \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ct_status_name(status_), ct_last_error()); \
      goto done;                                                                            \
    }                                                                                       \
  } while (0)

/* A call that must fail with a given status. */
#define EXPECT_STATUS(want, call)                                                          \
  do {                                                                                      \
    ct_status status_ = (call);                                                             \
    if (status_ != (want)) {                                                                \
      fprintf(stderr, "%s gave %s, expected %s\n", #call, ct_status_name(status_),          \
              ct_status_name(want));                                                        \
      goto done;                                                                            \
    }                                                                                       \
  } while (0)

int main(void) {
  const float six[] = {0, 1, 2, 3, 4, 5};
  const float twelve[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  const int64_t sizes_2x3[] = {2, 3}, sizes_4x3[] = {4, 3};
  ct_tensor *a = NULL, *b = NULL, *sum = NULL, *t = NULL, *gone = NULL;
  char* text = NULL;
  int64_t numel = 0;
  ct_status st;
  int rc = 1;

  /* 1. Versions: the header's ABI number against the loaded library's. */
  CHECK(ct_init(CT_ABI_VERSION));
  printf("ctorch %s, library ABI %d, header ABI %d\n", ct_version(), (int)ct_abi_version(), CT_ABI_VERSION);

  /* 2. Errors: a status, and a message for this thread. [2, 3] + [4, 3] do not broadcast. */
  CHECK(ct_tensor_from_data(six, sizes_2x3, 2, CT_FLOAT32, &a));
  CHECK(ct_tensor_from_data(twelve, sizes_4x3, 2, CT_FLOAT32, &b));
  st = ct_tensor_add(a, b, &sum); /* on failure, sum is set to NULL */
  printf("add [2, 3] + [4, 3]: %s\n  message: %s\n  out is %s\n", ct_status_name(st), ct_last_error(),
         sum == NULL ? "NULL" : "not NULL");
  if (st != CT_ERROR_SHAPE || sum != NULL) goto done;

  /* 3. Ownership: inputs are borrowed, out-parameters are new references. A view keeps its
   *    storage alive, so the base can be released first. */
  CHECK(ct_tensor_transpose(a, 0, 1, &t)); /* t: a new reference to a [3, 2] view of a */
  ct_tensor_release(a);                    /* our reference to a ends; t still works */
  a = NULL;
  CHECK(ct_tensor_to_string(t, &text));    /* text: ours, freed with ct_string_release */
  printf("transpose of a, after releasing a:\n%s\n", text);
  ct_string_release(text);
  text = NULL;

  CHECK(ct_tensor_retain(t)); /* two references now: each needs its release */
  ct_tensor_release(t);
  CHECK(ct_tensor_numel(t, &numel)); /* one reference left, so t is still valid */
  printf("numel after retain + release: %lld\n", (long long)numel);
  ct_tensor_release(t);
  gone = t; /* the last reference ended: gone is a released handle */
  t = NULL;

  /* 4. Handles: NULL and released handles are reported, not crashed on. A released handle is
   *    detected while its slot is not reused, i.e. here, before any new tensor is made. */
  EXPECT_STATUS(CT_ERROR_INVALID_ARGUMENT, ct_tensor_numel(NULL, &numel));
  printf("NULL handle: %s\n", ct_last_error());
  EXPECT_STATUS(CT_ERROR_INVALID_ARGUMENT, ct_tensor_numel(gone, &numel));
  printf("released handle: %s\n", ct_last_error());
  ct_tensor_release(NULL); /* releasing NULL is a no-op */

  printf("abi_tour: every convention held\n");
  rc = 0;

done:
  ct_string_release(text);
  ct_tensor_release(sum);
  ct_tensor_release(t);
  ct_tensor_release(b);
  ct_tensor_release(a);
  return rc;
}
