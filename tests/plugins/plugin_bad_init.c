/* plugin_bad_init.c - a plugin whose init fails with its own message. */
#include "ctorch.h"

ct_status ct_plugin_init(int32_t abi_version) {
  (void)abi_version;
  ct_error_set(CT_ERROR_DEVICE, "testplug_bad: no such device on this machine");
  return CT_ERROR_DEVICE;
}
