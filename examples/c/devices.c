/* devices.c - a tensor on the fastest device this process has: cuda when CUDA sees a GPU, else the
 * cpu, with the reason printed. The same calls move tensors to a plugin's device (docs/devices.md). */
#include <stdio.h>

#include "ctorch.h"

#define TRY(call)                                                             \
  do {                                                                        \
    ct_status s_ = (call);                                                    \
    if (s_ != CT_OK) {                                                        \
      fprintf(stderr, "%s: %s\n", ct_status_name(s_), ct_last_error());       \
      return 1;                                                               \
    }                                                                         \
  } while (0)

int main(void) {
  TRY(ct_init(CT_ABI_VERSION));
  const char* device = ct_cuda_device_count() > 0 ? "cuda" : "cpu";
  printf("cuda devices: %d, computing on %s\n", (int)ct_cuda_device_count(), device);

  const float data[6] = {1, 2, 3, 4, 5, 6};
  const int64_t sizes[2] = {2, 3};
  ct_tensor *x = NULL, *d = NULL, *prod = NULL, *sm = NULL, *back = NULL, *probe = NULL;
  TRY(ct_tensor_from_data(data, sizes, 2, CT_FLOAT32, &x));
  TRY(ct_tensor_to_device(x, device, &d)); /* x itself when device is the cpu */
  TRY(ct_tensor_mul(d, d, &prod));
  TRY(ct_tensor_softmax(prod, 1, NULL, &sm));
  TRY(ct_tensor_to_device(sm, "cpu", &back));
  char* text = NULL;
  TRY(ct_tensor_to_string(back, &text));
  printf("softmax(x * x) =\n%s\n", text);
  ct_string_release(text);

  /* Without a GPU, asking for one is an error that says why. */
  if (ct_cuda_device_count() == 0 && ct_tensor_to_device(x, "cuda", &probe) == CT_ERROR_DEVICE)
    printf("to cuda: CT_ERROR_DEVICE (%s)\n", ct_last_error());
  ct_tensor_release(probe);
  ct_tensor_release(back);
  ct_tensor_release(sm);
  ct_tensor_release(prod);
  ct_tensor_release(d);
  ct_tensor_release(x);
  return 0;
}
