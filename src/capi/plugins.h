// plugins.h - device backend plugins: shared objects found on CTORCH_BACKEND_PATH, loaded at ct_init.
//
// Note [Plugin autoloading]
// The first ct_init in a process (DESIGN §9) dlopens every *.so in the directories listed in
// CTORCH_BACKEND_PATH (colon-separated; each directory's files in sorted order, so every run loads
// them in the same order) and calls its ct_plugin_init(CT_ABI_VERSION), unless
// CTORCH_DEVICE_BACKEND_AUTOLOAD=0. The outcome is remembered: every later ct_init returns the same
// status and message, so a host that retries sees the same failure instead of a half-loaded set
// that now looks fine. A failed plugin does not stop the others from loading, and nothing is
// unloaded: a plugin whose init failed may already have registered kernels that point into it.
// Operators called without ct_init never trigger loading (loading runs host code; it happens
// where the host asked for it).
#pragma once

#include <cstdint>
#include <string>

namespace ct::capi {

/// Loads the plugins once per process (see Note [Plugin autoloading]); raises the remembered
/// failure (CT_ERROR_BACKEND) on this call and on every later one. A plugin's own ct_plugin_init
/// calling ct_init returns at once.
void autoload_plugins();
/// Plugins whose ct_plugin_init returned CT_OK.
int64_t plugins_loaded();
/// Plugins that could not be opened, had no ct_plugin_init, or whose init failed.
int64_t plugin_load_failures();
/// Microseconds autoloading took (0 before ct_init or when it is off).
int64_t plugin_autoload_time_us();
/// {"autoload": true, "plugins": [{"path": "...", "loaded": true, "error": null}, ...]}
std::string plugins_json();

}  // namespace ct::capi
