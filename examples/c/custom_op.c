/*
 * custom_op.c - define an operator in C, give it a CPU kernel, and call it by name.
 *
 * The operator myext::scaled_add(a, b, scale=2.0) = a + scale * b is built from ctorch's own
 * typed functions. ct_op_call reaches it exactly as it reaches built-in operators, and a failure
 * inside the kernel reaches the caller with the kernel's own message under the operator's name.
 */
#include <ctorch.h>
#include <stdio.h>

/* The kernel: args follow the schema with defaults filled in; write one new tensor per return. */
static ct_status scaled_add(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  (void)user_data;
  (void)nargs;
  (void)nouts;
  const ct_scalar scale = {CT_SCALAR_FLOAT, 0, args[2].f};
  ct_tensor* scaled = NULL;
  ct_status s = ct_tensor_mul_scalar(args[1].tensor, &scale, &scaled);
  if (s == CT_OK) s = ct_tensor_add(args[0].tensor, scaled, &outs[0]);
  ct_tensor_release(scaled);
  if (s != CT_OK) ct_error_set(s, ct_last_error()); /* pass the inner message on */
  return s;
}

static int print_tensor(const char* label, const ct_tensor* t) {
  char* text = NULL;
  if (ct_tensor_to_string(t, &text) != CT_OK) return 1;
  printf("%s = %s\n", label, text);
  ct_string_release(text);
  return 0;
}

int main(void) {
  const float a_data[] = {1, 2, 3}, b_data[] = {10, 20, 30}, c_data[] = {1, 2};
  ct_tensor *a = NULL, *b = NULL, *c = NULL, *out = NULL;
  char* schema = NULL;
  int rc = 1;

  if (ct_init(CT_ABI_VERSION) != CT_OK ||
      ct_library_define("myext::scaled_add(Tensor a, Tensor b, float scale=2.0) -> Tensor") != CT_OK ||
      ct_library_impl("myext::scaled_add", "cpu", scaled_add, NULL, NULL) != CT_OK ||
      ct_op_schema("myext::scaled_add", &schema) != CT_OK)
    goto fail;
  printf("defined %s\n", schema);

  const int64_t n3[] = {3}, n2[] = {2};
  if (ct_tensor_from_data(a_data, n3, 1, CT_FLOAT32, &a) != CT_OK ||
      ct_tensor_from_data(b_data, n3, 1, CT_FLOAT32, &b) != CT_OK ||
      ct_tensor_from_data(c_data, n2, 1, CT_FLOAT32, &c) != CT_OK)
    goto fail;

  /* Trailing arguments with defaults may be left out: scale is 2.0 here. */
  ct_value args[3] = {{CT_VALUE_TENSOR, 0, 0, a, NULL, NULL, 0, NULL},
                      {CT_VALUE_TENSOR, 0, 0, b, NULL, NULL, 0, NULL},
                      {CT_VALUE_FLOAT, 0, 0.5, NULL, NULL, NULL, 0, NULL}};
  if (ct_op_call("myext::scaled_add", args, 2, &out, 1) != CT_OK || print_tensor("a + 2.0 * b", out)) goto fail;
  ct_tensor_release(out);
  out = NULL;
  if (ct_op_call("myext::scaled_add", args, 3, &out, 1) != CT_OK || print_tensor("a + 0.5 * b", out)) goto fail;

  /* A failure inside the kernel keeps its message, nested under the operator's name. */
  args[1].tensor = c;
  ct_status s = ct_op_call("myext::scaled_add", args, 3, &out, 1);
  printf("[3] with [2]: %s\n  %s\n", ct_status_name(s), ct_last_error());
  rc = s == CT_ERROR_SHAPE ? 0 : 1;
  goto done;

fail:
  fprintf(stderr, "custom_op: %s\n", ct_last_error());
done:
  ct_string_release(schema);
  ct_tensor_release(out);
  ct_tensor_release(c);
  ct_tensor_release(b);
  ct_tensor_release(a);
  return rc;
}
