/*
 * ops_nn.c - the nn family from C: a layer-normalized batch of logits, their cross entropy against
 * class indices with its gradient, and causal self-attention. docs/operators/nn.md quotes this
 * file; the test link.ops_nn checks what it prints.
 */
#include <ctorch.h>
#include <stdio.h>

#define CHECK(call)                                                                         \
  do {                                                                                      \
    ct_status status_ = (call);                                                             \
    if (status_ != CT_OK) {                                                                 \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ct_status_name(status_), ct_last_error()); \
      goto done;                                                                            \
    }                                                                                       \
  } while (0)

int main(void) {
  const float logits_data[2][3] = {{2, 0, -2}, {0.5f, 1.5f, 0}};
  const int64_t target_data[2] = {0, 1}, logits_sizes[2] = {2, 3}, n = 2, classes = 3;
  const float tokens_data[3][2] = {{1, 0}, {0, 1}, {1, 1}};
  const int64_t token_sizes[2] = {3, 2};
  ct_tensor *logits = NULL, *target = NULL, *normed = NULL, *loss = NULL, *grad = NULL;
  ct_tensor *tokens = NULL, *attended = NULL;
  ct_scalar value;
  float g[6], a[6];
  int status = 1;

  CHECK(ct_tensor_from_data(logits_data, logits_sizes, 2, CT_FLOAT32, &logits));
  CHECK(ct_tensor_from_data(target_data, &n, 1, CT_INT64, &target));
  CHECK(ct_tensor_set_requires_grad(logits, 1));

  /* layer_norm over the classes (no weight or bias), then mean cross entropy with 0.1 smoothing. */
  CHECK(ct_tensor_layer_norm(logits, &classes, 1, NULL, NULL, 1e-5, &normed));
  CHECK(ct_tensor_cross_entropy(normed, target, NULL, CT_REDUCTION_MEAN, -100, 0.1, &loss));
  CHECK(ct_tensor_item(loss, &value));
  printf("cross entropy: %.4f\n", value.f);

  CHECK(ct_tensor_backward(loss, NULL, 0));
  CHECK(ct_tensor_grad(logits, &grad));
  CHECK(ct_tensor_copy_to(grad, g, sizeof g));
  printf("d loss / d logits, row 0: %.4f %.4f %.4f\n", g[0], g[1], g[2]);

  /* Three tokens attending causally to themselves: token 0 sees only itself. */
  CHECK(ct_tensor_from_data(tokens_data, token_sizes, 2, CT_FLOAT32, &tokens));
  CHECK(ct_tensor_scaled_dot_product_attention(tokens, tokens, tokens, NULL, 0.0, 1, NULL, NULL, &attended));
  CHECK(ct_tensor_copy_to(attended, a, sizeof a));
  printf("attention, token 0: %.4f %.4f; token 2: %.4f %.4f\n", a[0], a[1], a[4], a[5]);
  status = 0;

done:
  ct_tensor_release(logits);
  ct_tensor_release(target);
  ct_tensor_release(normed);
  ct_tensor_release(loss);
  ct_tensor_release(grad);
  ct_tensor_release(tokens);
  ct_tensor_release(attended);
  return status;
}
