/* plugin_good.c - a plugin that loads: defines testplug::twice(x) = x + x with a CPU kernel. */
#include "ctorch.h"

static ct_status twice(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs, size_t nouts) {
  (void)user_data;
  (void)nargs;
  (void)nouts;
  return ct_tensor_add(args[0].tensor, args[0].tensor, &outs[0]);
}

ct_status ct_plugin_init(int32_t abi_version) {
  if (abi_version < CT_ABI_VERSION) {
    ct_error_set(CT_ERROR_VERSION, "testplug needs a newer libctorch");
    return CT_ERROR_VERSION;
  }
  ct_status st = ct_init(abi_version); /* allowed, and returns at once while plugins load */
  if (st == CT_OK) st = ct_library_define("testplug::twice(Tensor x) -> Tensor");
  if (st == CT_OK) st = ct_library_impl("testplug::twice", "cpu", twice, NULL, NULL);
  return st;
}
