/*
 * ctorch.h - the public C interface of ctorch, and its manual.
 *
 * ctorch is a tensor library: tensors with views and strides, a dispatcher over devices, CPU
 * kernels (OpenBLAS for matrix products). Everything public is declared and documented here;
 * what is not here is not public.
 *
 * Conventions that hold for every function (docs/abi.md explains them with examples):
 *
 *   Errors     Every fallible function returns a ct_status. On failure, ct_last_error() gives the
 *              calling thread's message naming the operator, the shapes and dtypes involved, and
 *              what to do. Nothing aborts the host process.
 *   Ownership  A handle written through an out-parameter is a new reference: the caller ends it
 *              with ct_tensor_release. Handles passed in are borrowed: the library reads them
 *              during the call only, unless a function says it retains them. On failure every
 *              out-parameter handle is set to NULL (when the out pointer itself is not NULL).
 *   Handles    A NULL or released handle gives CT_ERROR_INVALID_ARGUMENT, not a crash. A released
 *              handle is detected while its slot is not yet reused by a new tensor.
 *   Threads    Every function may be called from any thread on distinct handles. Many threads
 *              may read one tensor at once (reference counts are atomic, metadata immutable).
 *              Writing a tensor (in-place operators) while another thread reads it is a race.
 *   Versions   CT_VERSION_* name this header's release; CT_ABI_VERSION changes only when a
 *              binary built against an older header could break. ct_init(CT_ABI_VERSION) checks
 *              that the loaded library is at least as new as the header.
 *
 * Ownership words used below: borrowed (read during the call only), retained (the library keeps
 * its own reference), new reference (yours to release), filled (your buffer, written).
 */
#ifndef CTORCH_H
#define CTORCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Export and annotation macros ---- */

#if defined(SWIG) /* the Java and Python bindings' interface generator reads this header */
#define CT_API
#elif defined(_WIN32)
#define CT_API __declspec(dllexport)
#else
#define CT_API __attribute__((visibility("default")))
#endif

#if (defined(__GNUC__) || defined(__clang__)) && !defined(SWIG)
#define CT_NODISCARD __attribute__((warn_unused_result))
#define CT_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define CT_NODISCARD
#define CT_DEPRECATED(msg)
#endif

/* ---- Versions ---- */

#define CT_VERSION_MAJOR 0
#define CT_VERSION_MINOR 9
#define CT_VERSION_PATCH 0
#define CT_VERSION_STRING "0.9.0"
/* Raised whenever a program built against this header could misbehave with an older library. */
#define CT_ABI_VERSION 1

/*
 * ct_version - the library's version string, e.g. "0.5.0".
 *
 * The string is static: valid for the life of the process. Since 0.1.
 */
CT_API const char* ct_version(void);

/*
 * ct_abi_version - the ABI number the loaded library implements (CT_ABI_VERSION of its header).
 * Since 0.1.
 */
CT_API int32_t ct_abi_version(void);

/* ---- Status codes ---- */

/*
 * ct_status - the result of every fallible function.
 *
 * Values are fixed forever and new ones are only appended, so a binding may switch on them and
 * must treat an unknown value like CT_ERROR_INTERNAL.
 */
typedef enum ct_status {
  CT_OK = 0,                     /* success */
  CT_ERROR_INVALID_ARGUMENT = 1, /* NULL or released handle, bad option value, unknown name */
  CT_ERROR_SHAPE = 2,            /* sizes do not fit the operator (broadcast, inner sizes, view) */
  CT_ERROR_DTYPE = 3,            /* a dtype the operator does not accept, or an unsafe cast */
  CT_ERROR_DEVICE = 4,           /* wrong or mixed devices, or a device with no backend */
  CT_ERROR_OUT_OF_MEMORY = 5,    /* an allocation failed */
  CT_ERROR_NOT_IMPLEMENTED = 6,  /* no kernel for this device and dtype, or a missing feature */
  CT_ERROR_INDEX = 7,            /* a dimension or index out of range */
  CT_ERROR_NONDETERMINISTIC = 8, /* a nondeterministic kernel while deterministic mode is on */
  CT_ERROR_GUARD = 9,            /* a symbolic value had to be concrete and could not be (an unbacked
                                    symbol, a symbolic shape an operator cannot handle), or a
                                    compiled graph's guard failed where that is an error */
  CT_ERROR_GRAPH_BREAK = 10,     /* a graph break under fullgraph compilation */
  CT_ERROR_RECOMPILE_LIMIT = 11, /* a compiled function hit its recompile limit */
  CT_ERROR_IO = 12,              /* reading or writing a file failed */
  CT_ERROR_FORMAT = 13,          /* a malformed file or string */
  CT_ERROR_BACKEND = 14,         /* a device backend or plugin failed */
  CT_ERROR_VERSION = 15,         /* the library is older than the header a program was built with,
                                    or a DLPack capsule of an unsupported major version */
  CT_ERROR_INTERNAL = 16,        /* a bug in ctorch: please report it with ct_last_error() */
  CT_ERROR_LINALG = 17,          /* a matrix the function cannot factor or invert: singular, not
                                    positive-definite, or an iteration that did not converge
                                    (torch.linalg.LinAlgError); the message names the batch element */
  CT_ERROR_TIMEOUT = 18,         /* a distributed operation or rendezvous did not finish within its
                                    timeout; the message names the ranks that did not arrive where
                                    they can be known (since 0.9) */
  CT_ERROR_DISTRIBUTED = 19      /* a distributed operation failed: a peer's connection closed, the
                                    ranks disagree on sizes or dtypes, the engine reported an error
                                    (torch.distributed.DistBackendError; since 0.9) */
} ct_status;

/*
 * ct_status_name - a stable name for a status, e.g. "CT_ERROR_SHAPE".
 *
 * Unknown values give "CT_ERROR_UNKNOWN". The string is static. Since 0.1.
 */
CT_API const char* ct_status_name(ct_status status);

/*
 * ct_last_error - the message of the calling thread's last failure.
 *
 * The message names the operator, the shapes, dtypes and devices involved, and what to do. It is
 * thread-local: another thread's failure never overwrites it. The pointer stays valid until the
 * next ctorch call on this thread that fails; copy it to keep it. Returns "" when this thread has
 * had no failure. Successful calls leave it unchanged. Since 0.1.
 */
CT_API const char* ct_last_error(void);

/*
 * ct_error_set - report a failure from inside a callback (a kernel defined with ct_library_impl).
 *
 * Sets this thread's message to msg (copied; NULL means "") and remembers status, so that when the
 * callback returns that status the caller of the operator sees the callback's own message, nested
 * under the operator's name. Callable outside callbacks too: it then only sets ct_last_error().
 * Since 0.1.
 */
CT_API void ct_error_set(ct_status status, const char* msg);

/* ---- Library: initialization and features ---- */

/*
 * ct_init - check the ABI handshake and register every built-in operator and backend.
 *
 * Pass CT_ABI_VERSION. Calling it is optional (every function initializes on first use) but
 * recommended: it is the one place a version mismatch is reported. Idempotent, thread-safe.
 * The first call in a process also loads the device backend plugins on CTORCH_BACKEND_PATH (see
 * "Library: plugins"); its outcome is remembered, and every later call returns the same status.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_VERSION  header_abi_version is newer than this library's ct_abi_version(); the
 *                     message names both. Link the library your header came with.
 *   CT_ERROR_BACKEND  a plugin failed to load (since 0.3); the message names its path and the
 *                     reason and says to set CTORCH_DEVICE_BACKEND_AUTOLOAD=0 to start without
 *                     plugins. The library is otherwise usable: built-in operators work.
 * Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_init(int32_t header_abi_version);

/*
 * ct_has_feature - 1 when this build and machine support a named feature, else 0.
 *
 * Names: "cpu" (always 1), "openblas" (matrix products use OpenBLAS), "threads" (a CPU thread pool),
 * "compile" (ct_compile and ct_export, since 0.6), "cuda" (libctorch_cuda.so loads and CUDA sees
 * at least one device; asking loads it, since 0.7), "nvrtc" (libctorch_cuda.so loads, so compiled
 * functions can generate CUDA kernels, since 0.7). Unknown names and NULL give 0. With no memory
 * left to load libctorch_cuda.so, "cuda" and "nvrtc" give 0, and a later call tries again. Since 0.1.
 */
CT_API int ct_has_feature(const char* name);

/* ---- Library: CUDA ---- */

/*
 * The CUDA backend lives in libctorch_cuda.so, loaded on first CUDA use (a "cuda" tensor, these
 * functions, ct_has_feature("cuda")) from beside libctorch, or from CTORCH_CUDA_LIBRARY when set.
 * libctorch itself needs no CUDA library: without one (or without a GPU) "cuda" devices simply do
 * not exist, and using one is CT_ERROR_DEVICE saying why. CUDA memory comes from a caching
 * allocator (per device and stream, blocks split and merged, out of memory retried after the
 * cache is flushed and the memory-pressure callback ran); its figures are the memory.cuda.*
 * metrics. Work runs on the calling thread's default stream; copies to and from the host are
 * complete when they return. See docs/devices.md.
 */

/* ct_cuda_device_count - CUDA devices this process sees; 0 without the library, a driver or a GPU.
 * 0 too when there is no memory to load the library; a later call tries again. Never fails.
 * Threads: any thread. Since 0.7. */
CT_API int32_t ct_cuda_device_count(void);

/*
 * ct_cuda_synchronize - wait until every kernel and copy queued on device has finished.
 *
 * Returns CT_OK; CT_ERROR_DEVICE when device does not exist (the message says why CUDA has no
 * device, if it has none); CT_ERROR_BACKEND when queued work failed (an illegal address, say).
 * Threads: any thread. Since 0.7.
 */
CT_API CT_NODISCARD ct_status ct_cuda_synchronize(int32_t device);

/*
 * ct_cuda_empty_cache - give the caching allocator's unused device memory back to CUDA (other
 * processes, and libraries that allocate with cudaMalloc themselves, can then use it). Memory held
 * by live tensors stays. Returns CT_OK (also without CUDA). Threads: any thread. Since 0.7.
 */
CT_API CT_NODISCARD ct_status ct_cuda_empty_cache(void);

/*
 * ct_set_num_threads / ct_get_num_threads - the number of CPU threads kernels may use.
 *
 * The setting is process-wide and also applies to OpenBLAS. The default is the number of cores.
 * Results of reductions are bitwise identical for every thread count.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  n < 1 or n > 1024, or out is NULL
 * Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_set_num_threads(int32_t n);
CT_API CT_NODISCARD ct_status ct_get_num_threads(int32_t* out);

/* ---- Library: memory pressure ---- */

/* Called when an allocation of nbytes on device fails even after ctorch emptied its own cache.
 * Return nonzero after freeing memory (for instance after running a garbage collector that
 * releases unreachable tensors): the allocation is retried, up to 3 times. Return 0 to give up; the
 * operator then fails with CT_ERROR_OUT_OF_MEMORY. Called on the allocating thread, possibly from
 * several threads at once; it must not call ctorch functions that allocate. */
typedef int (*ct_memory_pressure_fn)(void* user_data, int device_type, size_t nbytes);

/* Frees a callback's user_data when the library no longer needs it. May be NULL. */
typedef void (*ct_destroy_fn)(void* user_data);

/*
 * ct_set_memory_pressure_handler - install the process-wide memory pressure callback.
 *
 * Replaces any previous handler and calls its destroy(user_data). fn NULL removes the handler (then
 * user_data and destroy are ignored). The library retains user_data until the handler is replaced
 * or removed; a handler still installed when the process ends is not destroyed.
 *
 * An allocation that fails inside the handler (a collector that makes tensors) does not call the
 * handler again on that thread; it fails as if no handler were installed (since 0.9).
 *
 * Returns CT_OK. Threads: any thread; do not replace the handler while allocations may be calling
 * the old one. Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_set_memory_pressure_handler(ct_memory_pressure_fn fn, void* user_data,
                                                             ct_destroy_fn destroy);

/* ---- Library: metrics ---- */

/*
 * ct_metric_get - read one of the library's counters by name.
 *
 * Names (more arrive in later releases; a name's meaning never changes):
 *   "tensors.live"                 tensor objects alive (every handle and every internal tensor)
 *   "storages.live"                storage blocks alive, on every device, caller memory included
 *   "memory.cpu.bytes_allocated"   bytes ctorch's CPU allocator has handed out and not freed (tensors
 *                                  of 64 bytes or less live inside their storage and do not count)
 *   "memory.cpu.bytes_cached"      bytes of freed large blocks the CPU allocator keeps for reuse
 *   "memory.cpu.allocations_live"  blocks the CPU allocator has handed out and not freed (since 0.3)
 *   "memory.cuda.bytes_allocated"  bytes of CUDA memory in live tensors, all devices (since 0.7)
 *   "memory.cuda.bytes_reserved"   bytes the CUDA caching allocator holds from CUDA: allocated plus
 *                                  cached for reuse (ct_cuda_empty_cache returns the cached part)
 *   "memory.cuda.peak_bytes_allocated"  each device's highest bytes allocated so far, summed
 *   "memory.cuda.out_of_memory"    CUDA allocations that failed after the cache was flushed and the
 *                                  memory-pressure callback ran
 *   "init.time_us"                 microseconds initialization took: building the operator registry
 *                                  (timed from the start of the first ct_init or first operator
 *                                  call, not from library load) plus loading plugins in ct_init;
 *                                  0 before the first use (since 0.3)
 *   "plugins.loaded"               plugins whose ct_plugin_init returned CT_OK (since 0.3)
 *   "plugins.load_failures"        plugins that failed to load at ct_init (since 0.3)
 *   "determinism.mode"             ct_get_deterministic_debug_mode(): 0 off, 1 warn, 2 error (since 0.3)
 *   "default_device.type"          the ct_device_type factories without a device use now, on the
 *                                  calling thread (ct_get_default_device) (since 0.3)
 *   "matmul.float32_precision"     0 "highest", 1 "high", 2 "medium" (since 0.3)
 *   "compile.compiles"             graphs traced by every compiled function (graph breaks included)
 *   "compile.recompiles"           of those, traces after a function's first (since 0.6 for compile.*)
 *   "compile.graph_breaks"         traces that failed, so their signature runs eagerly
 *   "compile.guards"               guards of the most recently traced graph
 *   "compile.latency_p50_us", "compile.latency_p95_us"  trace-and-optimize time per compile
 *   "compile.cuda_kernels"         fused kernels generated for CUDA and compiled with NVRTC (since 0.7)
 * Counts are exact while no other thread creates or frees tensors, so a leak check reads them
 * before and after a quiet stretch.
 *
 *   name  borrowed.  out  filled on CT_OK.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  name or out is NULL, or an unknown name (the message lists the names)
 * Threads: any thread. Since 0.1. See also ct_metrics_json.
 */
CT_API CT_NODISCARD ct_status ct_metric_get(const char* name, int64_t* out);

/*
 * ct_metrics_json - every metric of ct_metric_get as one JSON object, e.g.
 * {"tensors.live": 3, "storages.live": 2, ..., "plugins.load_failures": 0}.
 *
 * One key per name ct_metric_get knows, each an integer. Values are read one after another, so
 * while other threads work they are not one atomic snapshot.
 *
 *   out  on CT_OK, a new NUL-terminated string; free it with ct_string_release. Otherwise NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  out is NULL
 *   CT_ERROR_OUT_OF_MEMORY     the string could not be allocated
 * Threads: any thread. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_metrics_json(char** out);

/* ---- Library: profiler ---- */

/*
 * ct_profiler_start - start recording a span for every operator call, on every thread.
 *
 * Each span has the operator's full name ("add.Tensor"), start and duration, the calling thread,
 * the shapes and dtypes of its tensor inputs (in schema order; tensor lists contribute one entry
 * per tensor) and its device. Nested calls are spans of their own that lie within their caller's:
 * the parts of a composite operator, and the operators that ct_tensor_backward runs. Spans stay in
 * per-thread buffers (a thread that exits keeps its spans) until ct_profiler_stop_to_file or
 * ct_profiler_stop_to_string. While the profiler is off an operator call pays one atomic load.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  the profiler is already running
 * Threads: any thread; one profiler per process. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_profiler_start(void);

/*
 * ct_profiler_stop_to_file - stop the profiler and write its spans as a Chrome trace.
 *
 * The file (JSON, opens in Perfetto and chrome://tracing) is
 *   {"traceEvents":[{"name":"add.Tensor","ph":"X","ts":12.345,"dur":1.250,"pid":4242,"tid":4242,
 *     "cat":"operator","args":{"input_shapes":[[2,3],[3]],"input_dtypes":["float32","float32"],
 *     "device":"cpu"}}, ...],"displayTimeUnit":"ns"}
 * with ts (since ct_profiler_start) and dur in microseconds with nanosecond digits, events sorted
 * by ts (a caller before its callees), tid the operating system's thread id. The trace goes to a
 * temporary file beside path that is then renamed to path, so path is never left half-written.
 *
 *   path  borrowed; replaced if it exists.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  path is NULL or "", or the profiler is not running
 *   CT_ERROR_IO                path cannot be written; the message names it and the reason. When
 *                              the file cannot even be created, the profiler keeps running and no
 *                              span is lost (call again with another path); when writing fails
 *                              later, the profiler is stopped and its spans are lost.
 * Threads: any thread. Since 0.3. See also ct_profiler_stop_to_string.
 */
CT_API CT_NODISCARD ct_status ct_profiler_stop_to_file(const char* path);

/*
 * ct_profiler_stop_to_string - stop the profiler and return the trace ct_profiler_stop_to_file
 * would write, for bindings that keep it in memory.
 *
 *   out  on CT_OK, a new NUL-terminated string; free it with ct_string_release. Otherwise NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  out is NULL (the profiler keeps running), or it is not running
 *   CT_ERROR_OUT_OF_MEMORY     the trace could not be allocated (the spans are lost)
 * Threads: any thread. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_profiler_stop_to_string(char** out);

/* ct_profiler_is_running - 1 while the profiler records, else 0. Threads: any thread. Since 0.3. */
CT_API int ct_profiler_is_running(void);

/* ---- Library: plugins ---- */

/*
 * Device backend plugins. The first ct_init in a process loads every file ending in ".so" in the
 * directories listed in CTORCH_BACKEND_PATH (colon-separated, in that order; each directory's
 * files in sorted order) with dlopen, unless CTORCH_DEVICE_BACKEND_AUTOLOAD=0. A directory that
 * cannot be read is skipped with a warning to the log sink; each plugin loaded is logged at
 * CT_LOG_INFO ("loaded plugin <path>"). Operators called without ct_init load no plugins.
 *
 * A plugin exports, with C linkage and default visibility:
 *
 *   ct_status ct_plugin_init(int32_t abi_version);
 *
 * ctorch calls it once, on the thread running ct_init, with CT_ABI_VERSION of the loaded library;
 * a plugin built against a newer header returns CT_ERROR_VERSION with ct_error_set. It may call
 * any ct_* function (there ct_init returns CT_OK at once and ct_plugins_json fails), typically
 * ct_library_define and ct_library_impl to add operators and kernels for its device. It returns
 * CT_OK, or a status after ct_error_set(status, message). A plugin that cannot be opened, has no
 * ct_plugin_init, or whose init fails makes that ct_init and every later one return
 * CT_ERROR_BACKEND naming it, and counts in the metric "plugins.load_failures"; the other plugins
 * still load. No plugin is ever unloaded.
 */
typedef ct_status (*ct_plugin_init_fn)(int32_t abi_version);

/*
 * ct_plugins_json - the plugins autoloading found, as one JSON object:
 * {"autoload": true, "plugins": [{"path": "/opt/x/libfoo.so", "loaded": true, "error": null},
 *  {"path": "/opt/x/libbar.so", "loaded": false, "error": "dlopen failed: ..."}]}
 * "autoload" is null before the first ct_init and false with CTORCH_DEVICE_BACKEND_AUTOLOAD=0.
 *
 *   out  on CT_OK, a new NUL-terminated string; free it with ct_string_release. Otherwise NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  out is NULL, or called from a plugin's ct_plugin_init
 *   CT_ERROR_OUT_OF_MEMORY     the string could not be allocated
 * Threads: any thread. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_plugins_json(char** out);

/* ---- Library: logging ---- */

/* Message levels. Values are fixed forever. */
typedef enum ct_log_level { CT_LOG_DEBUG = 0, CT_LOG_INFO = 1, CT_LOG_WARNING = 2, CT_LOG_ERROR = 3 } ct_log_level;

/* Receives one message (borrowed, valid during the call only, no trailing newline). Called on the
 * thread that logs, possibly from several threads at once; it may call any ctorch function. */
typedef void (*ct_log_fn)(void* user_data, ct_log_level level, const char* message);

/*
 * ct_set_log_handler - route the library's messages to fn.
 *
 * ctorch never writes to stdout. Without a handler, messages at or above the level threshold go to
 * stderr as "[ctorch warning] ...". Warnings include nondeterministic operators under
 * ct_use_deterministic_algorithms(1, 1), reported once per operator and device.
 * Replaces any previous handler; its destroy(user_data) runs once no call to it is in flight.
 * fn NULL restores stderr (then user_data and destroy are ignored). A handler still installed when
 * the process ends is not destroyed.
 *
 * Returns CT_OK. Threads: any thread. Since 0.3. See also ct_set_log_level.
 */
CT_API CT_NODISCARD ct_status ct_set_log_handler(ct_log_fn fn, void* user_data, ct_destroy_fn destroy);

/*
 * ct_set_log_level / ct_get_log_level - the lowest level delivered (default CT_LOG_WARNING).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a value outside ct_log_level.
 * Threads: any thread; process-wide. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_set_log_level(ct_log_level level);
CT_API ct_log_level ct_get_log_level(void);

/*
 * ct_set_flush_denormal - torch.set_flush_denormal: with on nonzero, denormal float values are
 * read as zero and results that would be denormal are written as zero (the x86 FTZ and DAZ modes),
 * which keeps arithmetic on tiny values fast. Per thread, as in torch: the calling thread's
 * setting, which the library's worker threads also take while they run that thread's parallel
 * work. *out (may be NULL) is 1 where the mode works (every x86-64 CPU), 0 elsewhere (another
 * architecture, or an emulator such as valgrind that ignores the mode), where nothing changes.
 * Returns CT_OK. Threads: this thread. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_set_flush_denormal(int on, int* out);

/*
 * ct_set_warn_always / ct_is_warn_always_enabled - torch.set_warn_always: some warnings (a
 * deprecated argument, a slow path taken) are given once per process; with this on (nonzero) they
 * are given every time. Off at start. Threads: any thread; process-wide. Since 0.9.
 */
CT_API void ct_set_warn_always(int on);
CT_API int ct_is_warn_always_enabled(void);

/* ---- Dtypes, devices, scalars ---- */

/* Element types. Values are fixed forever; new dtypes are appended. */
typedef enum ct_dtype {
  CT_BOOL = 0,
  CT_UINT8 = 1,
  CT_INT8 = 2,
  CT_INT16 = 3,
  CT_INT32 = 4,
  CT_INT64 = 5,
  CT_FLOAT16 = 6,
  CT_BFLOAT16 = 7,
  CT_FLOAT32 = 8,
  CT_FLOAT64 = 9,
  CT_COMPLEX64 = 10, /* (real, imaginary) float32 pairs, C's float _Complex layout. Since 0.9. */
  CT_COMPLEX128 = 11 /* (real, imaginary) float64 pairs, C's double _Complex layout. Since 0.9. */
} ct_dtype;

/*
 * ct_dtype_name - "bool", "uint8", ..., "float64", "complex64", "complex128"; "unknown" for a value
 * outside ct_dtype.
 * ct_dtype_itemsize - bytes per element; 0 for a value outside ct_dtype.
 * Since 0.1.
 */
CT_API const char* ct_dtype_name(ct_dtype dtype);
CT_API size_t ct_dtype_itemsize(ct_dtype dtype);

/*
 * ct_promote_types - the dtype two tensors of dtypes a and b combine to (torch.promote_types):
 * the wider kind (bool < integers < floating < complex) and, within a kind, the wider type; uint8
 * with int8 is int16, float16 with bfloat16 is float32, complex64 with float64 is complex128.
 * ct_can_cast - whether an operator may write a result of dtype from into a tensor of dtype to
 * (torch.can_cast): not complex into real, not floating into integral or bool, not integral into
 * bool.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a value outside ct_dtype or a NULL out. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_promote_types(ct_dtype a, ct_dtype b, ct_dtype* out);
CT_API CT_NODISCARD ct_status ct_can_cast(ct_dtype from, ct_dtype to, int* out);

/* Device types. A device is a type plus an index ("cuda:1"). Strings name devices in arguments:
 * "cpu", "meta" (shapes and dtypes only, no data), "cuda", "cuda:N", and the names plugin backends
 * registered ("counting", "counting:1"; see ct_backend_register). In factories NULL means this
 * thread's default device (ct_set_default_device: "cpu" unless changed). Values are fixed forever;
 * the four plugin types (since 0.7) take the names backends register, in registration order. */
typedef enum ct_device_type {
  CT_DEVICE_CPU = 0,
  CT_DEVICE_CUDA = 1,
  CT_DEVICE_META = 2,
  CT_DEVICE_PLUGIN1 = 3,
  CT_DEVICE_PLUGIN2 = 4,
  CT_DEVICE_PLUGIN3 = 5,
  CT_DEVICE_PLUGIN4 = 6
} ct_device_type;

/*
 * ct_device_type_name - "cpu", "cuda", "meta", or the name a plugin backend registered for the
 * type; NULL for a plugin type no backend registered, or a value outside ct_device_type. The
 * string is static (names are never unregistered). Threads: any thread. Since 0.7.
 */
CT_API const char* ct_device_type_name(ct_device_type type);

/* A number argument: kind says which field holds it. Python's rule applies to promotion: an
 * integer scalar keeps an integer tensor integral, a float scalar makes it float32. */
typedef enum ct_scalar_kind { CT_SCALAR_BOOL = 0, CT_SCALAR_INT = 1, CT_SCALAR_FLOAT = 2 } ct_scalar_kind;
typedef struct ct_scalar {
  ct_scalar_kind kind;
  int64_t i; /* CT_SCALAR_INT, CT_SCALAR_BOOL (0 or 1) */
  double f;  /* CT_SCALAR_FLOAT */
} ct_scalar;

/* ---- Tensors: lifecycle ---- */

/* A reference-counted tensor handle. Opaque; see the file comment for ownership and threads. */
typedef struct ct_tensor ct_tensor;

/*
 * ct_tensor_retain - add a reference to t.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  t is NULL or released
 * Since 0.1. See also ct_tensor_release.
 */
CT_API CT_NODISCARD ct_status ct_tensor_retain(ct_tensor* t);

/*
 * ct_tensor_release - drop a reference; the tensor is freed when the last one goes.
 *
 * NULL is a no-op; so is an already released handle (detected while its slot is unused). Views
 * keep their storage alive, so releasing a base while a view lives is safe. Since 0.1.
 */
CT_API void ct_tensor_release(ct_tensor* t);

/* ---- Tensors: creation ---- */

/*
 * ct_tensor_from_data - a new contiguous CPU tensor holding a copy of data.
 *
 * data holds numel (the product of sizes) elements of dtype in row-major order; it may be NULL
 * only when numel is 0. A 0-dim tensor has ndim 0 and sizes may be NULL. For CT_BOOL, every
 * non-zero byte becomes true (1), as numpy reads a bool array; since 0.9 (earlier versions
 * copied the bytes as they were).
 *
 *   data, sizes  borrowed.
 *   out          on CT_OK, a new reference. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  out is NULL, sizes is NULL with ndim > 0, data is NULL with numel > 0,
 *                              a negative size, ndim over 64, or dtype outside ct_dtype
 *   CT_ERROR_OUT_OF_MEMORY     the copy could not be allocated
 * Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_from_data(const void* data, const int64_t* sizes, size_t ndim,
                                                  ct_dtype dtype, ct_tensor** out);

/* Called when the last tensor viewing a blob is freed, on whichever thread releases it. */
typedef void (*ct_deleter_fn)(void* data, void* user_data);

/*
 * ct_tensor_from_blob - a CPU tensor over caller memory, without copying.
 *
 * strides are in elements; NULL means contiguous. The memory must stay valid and hold every
 * element the sizes and strides reach until deleter(data, user_data) runs, which happens when the
 * last tensor (views included) using it is freed. deleter may be NULL (memory owned elsewhere,
 * outliving every tensor). On failure the deleter is not called and nothing is retained.
 * The same as ct_tensor_from_blob_v2 with flags 0.
 *
 * Since 0.9 the memory is checked as ct_tensor_from_blob_v2 checks it: data aligned to the
 * element size, an address range that neither wraps nor reaches the upper half of the address
 * space, bool bytes 0 or 1 (each such call reads every element of a CT_BOOL blob once).
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  out or data is NULL (data may be NULL only for numel 0), sizes NULL
 *                              with ndim > 0, negative sizes or strides, ndim over 64, bad dtype,
 *                              data misaligned, an address range past addressable memory, a bool
 *                              byte other than 0 and 1 (the message names the element)
 *   CT_ERROR_OUT_OF_MEMORY
 * Since 0.1. See also ct_tensor_from_blob_v2, ct_tensor_from_data (which copies).
 */
CT_API CT_NODISCARD ct_status ct_tensor_from_blob(void* data, const int64_t* sizes, const int64_t* strides,
                                                  size_t ndim, ct_dtype dtype, ct_deleter_fn deleter,
                                                  void* user_data, ct_tensor** out);

/*
 * ct_blob_flags - how ct_tensor_from_blob_v2 may use the caller's memory (a bitwise or).
 *
 *   CT_BLOB_READ_ONLY  the memory must not be written (a read-only numpy array, a file mapped
 *                      read-only, a string's bytes). The tensor and every view of it refuse every
 *                      write with CT_ERROR_INVALID_ARGUMENT naming the operator: in-place
 *                      operators, copy_, random fills, optimizer steps. Reading is unrestricted;
 *                      ct_tensor_is_read_only tells. ct_tensor_data_ptr still gives the address:
 *                      a C caller must not write through it.
 * Other bits are reserved and refused. Since 0.9.
 */
typedef enum ct_blob_flags { CT_BLOB_READ_ONLY = 1 } ct_blob_flags;

/*
 * ct_tensor_from_blob_v2 - a CPU tensor over caller memory, without copying, with flags.
 *
 * As ct_tensor_from_blob, and flags is a bitwise or of ct_blob_flags (0 for none). The memory is
 * checked before the tensor exists: data must be aligned to the element size (kernels load whole
 * elements), the bytes reached must neither wrap around the address space nor reach its upper
 * half, and every element of a CT_BOOL blob must be the byte 0 or 1 (C++ reads any other byte
 * as undefined behaviour; convert with (x != 0) first, or copy with ct_tensor_from_data, which
 * maps non-zero bytes to 1).
 *
 *   data     borrowed until deleter runs (see ct_tensor_from_blob).
 *   sizes, strides  borrowed.
 *   out      on CT_OK, a new reference. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  as ct_tensor_from_blob, and flags with an unknown bit
 *   CT_ERROR_OUT_OF_MEMORY
 * Details of a failure: ct_last_error() on the same thread.
 *
 * Threads: any thread; deleter may run on any thread. Since 0.9. See also ct_tensor_is_read_only.
 */
CT_API CT_NODISCARD ct_status ct_tensor_from_blob_v2(void* data, const int64_t* sizes, const int64_t* strides,
                                                     size_t ndim, ct_dtype dtype, uint32_t flags,
                                                     ct_deleter_fn deleter, void* user_data, ct_tensor** out);

/*
 * ct_tensor_is_read_only - whether t's memory refuses writes.
 *
 * True for memory lent read-only (CT_BLOB_READ_ONLY, a DLPack capsule with READ_ONLY); views share
 * the answer of the tensor they view.
 *
 *   t    borrowed.
 *   out  filled with 1 or 0.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL or released t or a NULL out. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_tensor_is_read_only(const ct_tensor* t, int* out);

/*
 * ct_tensor_empty / ct_tensor_zeros / ct_tensor_ones / ct_tensor_full - factory functions.
 *
 * A new contiguous tensor of the given sizes and dtype on device ("cpu", "meta"; NULL means
 * "cpu"): uninitialized (empty), 0, 1, or value converted to dtype (full). Registered as the
 * operators "empty", "zeros", "ones", "full".
 *
 *   sizes, device, value  borrowed.
 *   out                   on CT_OK, a new reference. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  out is NULL, sizes NULL with ndim > 0, a negative size, sizes whose
 *                              product overflows int64, value NULL, bad dtype, or an unparsable
 *                              device string
 *   CT_ERROR_DEVICE            the device has no backend in this process
 *   CT_ERROR_OUT_OF_MEMORY
 * Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_empty(const int64_t* sizes, size_t ndim, ct_dtype dtype, const char* device,
                                              ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_zeros(const int64_t* sizes, size_t ndim, ct_dtype dtype, const char* device,
                                              ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_ones(const int64_t* sizes, size_t ndim, ct_dtype dtype, const char* device,
                                             ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_full(const int64_t* sizes, size_t ndim, const ct_scalar* value,
                                             ct_dtype dtype, const char* device, ct_tensor** out);

/*
 * ct_tensor_arange - the 1-D tensor start, start + step, ... up to but excluding end.
 *
 * Its length is ceil((end - start) / step). Element i is start + i * step computed in double and
 * then converted to dtype (for an integer dtype with a fractional step this differs from
 * torch.arange, which truncates step first).
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  out NULL, step 0, step's sign does not lead from start to end,
 *                              a non-finite bound, bad dtype or device
 *   CT_ERROR_DEVICE, CT_ERROR_OUT_OF_MEMORY
 * Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_arange(double start, double end, double step, ct_dtype dtype,
                                               const char* device, ct_tensor** out);

/*
 * ct_tensor_linspace - steps values evenly spaced from start to end inclusive (1-D).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for out NULL, steps < 0, bad dtype or device;
 * CT_ERROR_DEVICE, CT_ERROR_OUT_OF_MEMORY. Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_linspace(double start, double end, int64_t steps, ct_dtype dtype,
                                                 const char* device, ct_tensor** out);

/*
 * ct_tensor_eye - the n x m matrix with ones on the diagonal (m < 0 means m = n).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for out NULL, n < 0, bad dtype or device;
 * CT_ERROR_DEVICE, CT_ERROR_OUT_OF_MEMORY. Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_eye(int64_t n, int64_t m, ct_dtype dtype, const char* device,
                                            ct_tensor** out);

/* ---- Runtime switches: determinism ---- */

/*
 * ct_use_deterministic_algorithms - the deterministic-algorithms switch (torch.use_deterministic_algorithms).
 *
 * mode nonzero turns it on. Then every operator kernel that may give different results run to run
 * (one that accumulates with atomic operations; each kernel declares this, and
 * ct_op_registry_json reports it per device) fails with CT_ERROR_NONDETERMINISTIC naming the
 * operator and the device, or, with warn_only nonzero, runs after one CT_LOG_WARNING per operator
 * and device (see ct_set_log_handler). Kernels with a deterministic alternative take it instead.
 * While the switch is on, ct_tensor_empty (and the "empty" operator) fill new memory with NaN for
 * floating dtypes and the largest value for integral ones, so reads of uninitialized memory are
 * reproducible. mode 0 turns it off (warn_only is then ignored).
 *
 * What is reproducible anyway: every CPU kernel of this release gives the same bits run to run;
 * reductions, random numbers and elementwise operators also for any thread count; matrix products
 * (OpenBLAS) for a fixed thread count.
 *
 * The switch is one process-wide atomic value read by all the getters below, so they always
 * agree: enabled and warn-only are debug modes 2 and 1.
 *
 * Returns CT_OK. Threads: any thread; takes effect for calls that start afterwards. Since 0.3.
 * See also ct_set_deterministic_debug_mode, ct_library_set_determinism.
 */
CT_API CT_NODISCARD ct_status ct_use_deterministic_algorithms(int mode, int warn_only);

/* 1 when the switch is on (warn-only or not), else 0. Since 0.3. */
CT_API int ct_are_deterministic_algorithms_enabled(void);
/* 1 when the switch is on in warn-only mode, else 0. Since 0.3. */
CT_API int ct_is_deterministic_algorithms_warn_only_enabled(void);

/*
 * ct_get_deterministic_debug_mode / ct_set_deterministic_debug_mode - the same switch as one
 * number, as torch.set_deterministic_debug_mode: 0 off, 1 warn (on, warn-only), 2 error (on).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a mode outside 0..2. Since 0.3.
 */
CT_API int32_t ct_get_deterministic_debug_mode(void);
CT_API CT_NODISCARD ct_status ct_set_deterministic_debug_mode(int32_t mode);

/* ---- Runtime switches: automatic mixed precision ---- */

/*
 * ct_autocast_set_enabled / ct_autocast_is_enabled - automatic mixed precision for one device type
 * on the calling thread (torch.autocast, torch.set_autocast_enabled). While it is on, each operator
 * call whose tensors are on that device type follows PyTorch's autocast lists: matrix products,
 * linear and convolutions (and on cuda also mv, addmv, addr, einsum and the recurrent cells) cast
 * their float32 inputs to the autocast dtype (ct_autocast_set_dtype) and compute there; losses,
 * norms, prod, quantile, cdist, trace and the edge paddings cast lower-precision inputs to float32;
 * every other operator runs in the dtypes it is given (so an add of a bfloat16 product and a
 * float32 bias promotes to float32, as in PyTorch). float64 is never cast. The casts are operator
 * calls that autograd records, so gradients come back in each input's own dtype.
 * A new thread starts with autocast off; ctorch keeps no cache of casts.
 *
 * type: CT_DEVICE_CPU, CT_DEVICE_CUDA or a plugin type. Returns CT_OK; CT_ERROR_INVALID_ARGUMENT
 * for another value, or a NULL out. Threads: the calling thread only. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_autocast_set_enabled(ct_device_type type, int enabled);
CT_API CT_NODISCARD ct_status ct_autocast_is_enabled(ct_device_type type, int* out);

/*
 * ct_autocast_set_dtype / ct_autocast_get_dtype - the dtype autocast computes the lower-precision
 * operators in, per device type on the calling thread: CT_BFLOAT16 for the cpu and CT_FLOAT16 for
 * cuda at start, as in PyTorch.
 *
 * Returns CT_OK; CT_ERROR_DTYPE for a dtype other than CT_FLOAT16 or CT_BFLOAT16;
 * CT_ERROR_INVALID_ARGUMENT for a type outside ct_device_type (or meta) or a NULL out. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_autocast_set_dtype(ct_device_type type, ct_dtype dtype);
CT_API CT_NODISCARD ct_status ct_autocast_get_dtype(ct_device_type type, ct_dtype* out);

/* ---- Runtime switches: defaults and precision ---- */

/*
 * ct_set_default_dtype / ct_get_default_dtype - the default floating dtype (torch.set_default_dtype).
 *
 * Used where a call gives no dtype: floating factories ("zeros", "rand", ... through ct_op_call
 * with dtype None), a float number combined with an integral tensor (an int64 tensor plus 0.5),
 * and the result of floating operators on integral inputs (exp, true division). The typed
 * ct_tensor_* factories always take an explicit dtype; pass ct_get_default_dtype() there.
 * Process-wide; CT_FLOAT32 at start.
 *
 * Returns CT_OK; CT_ERROR_DTYPE for anything but CT_FLOAT32 or CT_FLOAT64; CT_ERROR_INVALID_ARGUMENT
 * for a value outside ct_dtype. Threads: any thread. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_set_default_dtype(ct_dtype dtype);
CT_API ct_dtype ct_get_default_dtype(void);

/*
 * ct_set_default_device - the device this thread's factories use when given none (device NULL).
 *
 * Per thread: other threads keep theirs. NULL resets it to "cpu". The device is checked when a
 * factory runs (CT_ERROR_DEVICE then, when it has no backend). A device context
 * (ct_device_push) takes precedence while it is open.
 *
 *   device  borrowed: "cpu", "meta", "cuda", "cuda:N", or NULL.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for an unparsable device string. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_set_default_device(const char* device);

/*
 * ct_get_default_device - the device a factory without a device would use now on this thread:
 * the innermost open device context, else the thread's default device.
 *
 *   type, index  filled (index -1 for cpu and meta).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT when type or index is NULL. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_get_default_device(ct_device_type* type, int32_t* index);

/*
 * ct_device_push / ct_device_pop - open and close a device context on this thread (Python's
 * `with ctorch.device("meta"):`). While open, it is the default device of factories on this
 * thread, over ct_set_default_device; contexts nest, the innermost wins.
 *
 *   device  borrowed; not NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  ct_device_push: device NULL or unparsable. ct_device_pop: no context
 *                              is open on this thread
 * Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_device_push(const char* device);
CT_API CT_NODISCARD ct_status ct_device_pop(void);

/*
 * ct_set_float32_matmul_precision / ct_get_float32_matmul_precision - how float32 matrix products
 * may trade precision for speed (torch.set_float32_matmul_precision).
 *
 * "highest" (the default) computes in float32; "high" allows TF32 (or bfloat16x3) on CUDA;
 * "medium" also allows bfloat16. CPU kernels always compute in float32; the setting is recorded
 * and reported there. Process-wide.
 *
 *   precision  borrowed. The getter returns a static string.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or another string. Threads: any thread.
 * Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_set_float32_matmul_precision(const char* precision);
CT_API const char* ct_get_float32_matmul_precision(void);

/* ---- Random numbers: generators ---- */

/*
 * A generator is the state of a counter-based Philox4x32-10 stream: a 64-bit seed and an offset
 * (the next unused 128-bit block of the stream). Every random operator reserves the blocks it
 * needs and computes element i (row-major order of its result) from block offset + i / E alone,
 * where E is the number of values per block (4 for 32-bit and 16-bit dtypes, 2 for 64-bit ones).
 * So one seed gives the same numbers for every thread count, and (once a device backend that
 * follows this numbering is loaded) on every device.
 *
 * Each device has a default generator, used when an operator is passed none (NULL); its seed is
 * 67280421310721 until ct_manual_seed. A generator is safe to use from several threads at once;
 * the numbers then depend on the order in which the calls reserve their blocks.
 */
typedef struct ct_generator ct_generator;

/* Bytes of a generator's state (ct_generator_get_state). */
#define CT_GENERATOR_STATE_SIZE 24

/*
 * ct_manual_seed - seed every device's default generator (torch.manual_seed), rewinding its offset
 * to 0. Returns CT_OK. Threads: any thread. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_manual_seed(uint64_t seed);

/*
 * ct_initial_seed - the seed of the CPU default generator (torch.initial_seed).
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT when out is NULL. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_initial_seed(uint64_t* out);

/*
 * ct_generator_create - a new generator for a device (torch.Generator(device)), seeded with
 * 67280421310721 at offset 0.
 *
 *   device  borrowed; NULL means "cpu".
 *   out     on CT_OK, a new generator; end it with ct_generator_release. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  out NULL, or an unparsable device
 *   CT_ERROR_DEVICE            a device without random number support in this process ("meta")
 * Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_generator_create(const char* device, ct_generator** out);

/*
 * ct_default_generator - a reference to a device's default generator (torch.default_generator).
 * Seeding it through this handle seeds what operators use when passed no generator.
 *
 *   device  borrowed; NULL means "cpu".
 *   out     on CT_OK, a new reference; end it with ct_generator_release (the default generator
 *           itself lives until the process ends).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for out NULL or a bad device string; CT_ERROR_DEVICE
 * for a device without random number support. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_default_generator(const char* device, ct_generator** out);

/* ct_generator_release - drop a reference; NULL is a no-op. Since 0.3. */
CT_API void ct_generator_release(ct_generator* g);

/*
 * Generator state: ct_generator_manual_seed (seed, and rewind the offset to 0),
 * ct_generator_initial_seed, ct_generator_get_offset and ct_generator_set_offset (in 128-bit
 * blocks; setting an earlier offset replays the stream from there).
 *
 *   g    borrowed.  out  filled on CT_OK.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL or released g, or a NULL out. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_generator_manual_seed(ct_generator* g, uint64_t seed);
CT_API CT_NODISCARD ct_status ct_generator_initial_seed(const ct_generator* g, uint64_t* out);
CT_API CT_NODISCARD ct_status ct_generator_get_offset(const ct_generator* g, uint64_t* out);
CT_API CT_NODISCARD ct_status ct_generator_set_offset(ct_generator* g, uint64_t offset);

/*
 * ct_generator_get_state / ct_generator_set_state - checkpoint and restore a generator
 * (torch.Generator.get_state / set_state): CT_GENERATOR_STATE_SIZE bytes, holding a format tag, the
 * seed and the offset, little-endian, the same on every platform. A state may be set into any
 * generator of the same device type.
 *
 *   g      borrowed.
 *   state  filled (get) or borrowed (set); n must be CT_GENERATOR_STATE_SIZE.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  g NULL or released, state NULL, or n is not CT_GENERATOR_STATE_SIZE
 *   CT_ERROR_FORMAT            set: the bytes are not a state get wrote (g is left unchanged)
 * Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_generator_get_state(const ct_generator* g, uint8_t* state, size_t n);
CT_API CT_NODISCARD ct_status ct_generator_set_state(ct_generator* g, const uint8_t* state, size_t n);

/* ---- Random numbers: operators ---- */

/*
 * Random tensors. Each draws from gen, or from the default generator of the result's device when
 * gen is NULL, and advances it by the blocks it used. device NULL means this thread's default
 * device (ct_set_default_device). On the meta device they compute sizes only and draw nothing.
 *
 *   ct_tensor_rand       uniform on [0, 1) (floating dtypes; 24 random bits for float32 and the
 *                        16-bit floats' own mantissa widths, 53 for float64)
 *   ct_tensor_randn      standard normal (Box-Muller; floating dtypes)
 *   ct_tensor_randint    integers uniform on [low, high) (any numeric dtype holding the range)
 *   ct_tensor_randperm   a random permutation of 0 .. n-1
 *
 *   sizes, device  borrowed.   gen  borrowed, may be NULL.
 *   out            on CT_OK, a new reference. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  out NULL, sizes NULL with ndim > 0, a negative size, low >= high,
 *                              n < 0, a range or n that dtype does not hold exactly, a released gen
 *   CT_ERROR_DTYPE             an integral dtype for rand or randn
 *   CT_ERROR_DEVICE            gen belongs to another device type, or the device has no backend
 *   CT_ERROR_OUT_OF_MEMORY
 * Threads: any thread. Determinism: bitwise for any thread count. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_tensor_rand(const int64_t* sizes, size_t ndim, ct_dtype dtype, const char* device,
                                             ct_generator* gen, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_randn(const int64_t* sizes, size_t ndim, ct_dtype dtype, const char* device,
                                              ct_generator* gen, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_randint(int64_t low, int64_t high, const int64_t* sizes, size_t ndim,
                                                ct_dtype dtype, const char* device, ct_generator* gen,
                                                ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_randperm(int64_t n, ct_dtype dtype, const char* device, ct_generator* gen,
                                                 ct_tensor** out);

/*
 * In-place draws into self (borrowed; its version counter is bumped):
 *   ct_tensor_uniform_    uniform on [from, to)       (floating self; finite from <= to)
 *   ct_tensor_normal_     normal with mean and std     (floating self; finite mean, std >= 0)
 *   ct_tensor_bernoulli_  1 with probability p, else 0 (any dtype; 0 <= p <= 1)
 * A non-contiguous self gets the values a contiguous tensor of its sizes would. Like every in-place
 * operator, they refuse a leaf that requires grad while grad mode is on; no gradient flows back
 * through the values drawn.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (NULL or released self, bounds, released gen);
 * CT_ERROR_DTYPE (integral self for uniform_ or normal_); CT_ERROR_DEVICE. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_tensor_uniform_(ct_tensor* self, double from, double to, ct_generator* gen);
CT_API CT_NODISCARD ct_status ct_tensor_normal_(ct_tensor* self, double mean, double std, ct_generator* gen);
CT_API CT_NODISCARD ct_status ct_tensor_bernoulli_(ct_tensor* self, double p, ct_generator* gen);

/*
 * ct_tensor_bernoulli - 1 with probability p[i], else 0, per element of the floating tensor p (the
 * result has p's sizes and dtype).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULLs or a probability outside [0, 1] (the message
 * gives the first one and its index); CT_ERROR_DTYPE for an integral p; CT_ERROR_DEVICE. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_tensor_bernoulli(const ct_tensor* p, ct_generator* gen, ct_tensor** out);

/*
 * ct_tensor_multinomial - num_samples category indices (int64) per row of probs (1-D: one
 * distribution; 2-D: one per row), drawn with probability proportional to the row's weights.
 * Without replacement, the samples of a row are distinct and in the order drawn.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULLs, num_samples <= 0, a negative or non-finite weight, a row
 *                              without positive weight, more samples than categories of positive
 *                              weight without replacement
 *   CT_ERROR_SHAPE             probs is not 1-D or 2-D, or has no categories
 *   CT_ERROR_DTYPE             integral probs
 * Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_tensor_multinomial(const ct_tensor* probs, int64_t num_samples, int replacement,
                                                    ct_generator* gen, ct_tensor** out);

/*
 * ct_tensor_dropout - zero each element with probability p and scale the others by 1 / (1 - p)
 * (torch.nn.functional.dropout); with train 0, a new reference to input itself.
 *
 * The result requires grad when input does; its gradient is the same mask and scale.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULLs or p outside [0, 1]; CT_ERROR_DTYPE for an
 * integral input in training. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_tensor_dropout(const ct_tensor* input, double p, int train, ct_generator* gen,
                                                ct_tensor** out);

/* ---- Tensors: inspection ---- */

/*
 * Inspection functions: ct_tensor_ndim, ct_tensor_size, ct_tensor_sizes, ct_tensor_strides,
 * ct_tensor_numel, ct_tensor_dtype, ct_tensor_device, ct_tensor_is_contiguous,
 * ct_tensor_storage_offset.
 *
 * Each reads one property of t (borrowed) into out (filled). ct_tensor_size accepts a negative dim
 * counted from the end (-1 is the last). ct_tensor_sizes and ct_tensor_strides fill n entries,
 * where n must equal ndim (strides are in elements). ct_tensor_device fills the device type and
 * index (-1 for cpu and meta). For a 0-dim tensor, ct_tensor_sizes and ct_tensor_strides accept
 * n == 0 with out NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  t or an out pointer is NULL, t was released, or n != ndim
 *   CT_ERROR_INDEX             (ct_tensor_size) dim outside [-ndim, ndim)
 * Threads: any thread, concurrently with other readers. Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_ndim(const ct_tensor* t, size_t* out);
CT_API CT_NODISCARD ct_status ct_tensor_size(const ct_tensor* t, int64_t dim, int64_t* out);
CT_API CT_NODISCARD ct_status ct_tensor_sizes(const ct_tensor* t, int64_t* out, size_t n);
CT_API CT_NODISCARD ct_status ct_tensor_strides(const ct_tensor* t, int64_t* out, size_t n);
CT_API CT_NODISCARD ct_status ct_tensor_numel(const ct_tensor* t, int64_t* out);
CT_API CT_NODISCARD ct_status ct_tensor_dtype(const ct_tensor* t, ct_dtype* out);
CT_API CT_NODISCARD ct_status ct_tensor_device(const ct_tensor* t, ct_device_type* type, int32_t* index);
CT_API CT_NODISCARD ct_status ct_tensor_is_contiguous(const ct_tensor* t, int* out);
CT_API CT_NODISCARD ct_status ct_tensor_storage_offset(const ct_tensor* t, int64_t* out);

/*
 * ct_tensor_data_ptr - the address of t's first element (storage data plus offset).
 *
 * For a cpu tensor, host memory. For a tensor on another device (since 0.7), an address in that
 * device's memory, as its backend allocated it (a device kernel reads its inputs this way); the
 * host must not dereference it unless the backend says its memory is host memory.
 * Valid while any reference to t (or a view of its storage) lives. Writing through it while
 * other threads read t is a race. Elements are laid out by ct_tensor_strides.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  t or out NULL, t released
 *   CT_ERROR_DEVICE            t is a meta tensor (it has no data)
 * Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_data_ptr(const ct_tensor* t, void** out);

/*
 * ct_tensor_copy_to - copy t's elements, in row-major order, into dst.
 *
 * Works for any strides (views are gathered). nbytes must equal numel * itemsize. dst is filled
 * only on CT_OK.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  t NULL or released, dst NULL with nbytes > 0, or nbytes differs from
 *                              numel * itemsize (the message gives both)
 *   CT_ERROR_DEVICE            t has no data (meta)
 * Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_copy_to(const ct_tensor* t, void* dst, size_t nbytes);

/*
 * ct_tensor_item - the value of a one-element tensor as a scalar.
 *
 * Bool tensors give CT_SCALAR_BOOL, integer ones CT_SCALAR_INT, floating ones CT_SCALAR_FLOAT.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (NULLs, released t); CT_ERROR_SHAPE when numel != 1;
 * CT_ERROR_DEVICE for meta tensors; CT_ERROR_DTYPE for complex tensors (ct_tensor_item_complex
 * reads those). Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_item(const ct_tensor* t, ct_scalar* out);

/*
 * ct_tensor_item_complex - the value of a one-element tensor as a complex number: its real and
 * imaginary parts as doubles (imaginary 0 for a real dtype). ct_tensor_item refuses complex
 * tensors (CT_ERROR_DTYPE), whose values a ct_scalar cannot hold.
 *
 *   t           borrowed; a tensor on any device with data (its value is copied to the host).
 *   real, imag  filled on CT_OK only.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (NULLs, released t); CT_ERROR_SHAPE when numel != 1;
 * CT_ERROR_DEVICE for meta tensors; CT_ERROR_GRAPH_BREAK for a tensor being traced (its value is
 * not known yet, as ct_tensor_item). Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_tensor_item_complex(const ct_tensor* t, double* real, double* imag);

/*
 * ct_tensor_complex_scalar - a complex number as an operand: a new 0-dim complex128 cpu tensor that
 * promotes as a Python number does (Note on ct_scalar above): a float32 tensor times it is
 * complex64, and so is an integer tensor times it (the default complex dtype), where a 0-dim
 * complex128 tensor would make the integer product complex128. Pass it where a tensor goes
 * (ct_tensor_mul(t, z, &out)); ct_scalar has no complex kind.
 *
 *   out  on CT_OK, a new tensor (release it); NULL on failure.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT when out is NULL; CT_ERROR_OUT_OF_MEMORY. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_tensor_complex_scalar(double real, double imag, ct_tensor** out);

/*
 * ct_tensor_to_string - t printed as PyTorch prints it, e.g. "tensor([[1., 2.],\n        [3., 4.]])".
 *
 * Same layout as PyTorch (4 decimals, scientific notation for wide ranges, 80 columns, "..." past
 * 1000 elements; ct_set_print_options changes these). Dtypes other than the default float dtype
 * (ct_set_default_dtype), int64 and bool are named with ctorch's names
 * ("tensor([1, 2], dtype=int32)" where PyTorch writes dtype=torch.int32); meta tensors print
 * "tensor(..., device='meta', size=(2, 3))".
 *
 *   out  on CT_OK, a new NUL-terminated string; free it with ct_string_release. Otherwise NULL.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (NULLs, released t); CT_ERROR_OUT_OF_MEMORY. Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_to_string(const ct_tensor* t, char** out);

/*
 * ct_print_options - how ct_tensor_to_string prints (torch.set_printoptions). Size-first: set
 * struct_size to sizeof(ct_print_options) (ct_print_options_default does).
 */
typedef struct ct_print_options {
  size_t struct_size;
  int precision;      /* digits after the point, in [0, 30] (torch's default 4) */
  int64_t threshold;  /* a tensor of more elements prints summarized, >= 0 (1000; INT64_MAX: never) */
  int64_t edgeitems;  /* items shown at each end of a summarized dim, >= 0 (3) */
  int64_t linewidth;  /* characters per line, in [1, 2^20] (80) */
  int sci_mode;       /* -1 chosen from the values (the default), 0 never scientific, 1 always */
} ct_print_options;

/*
 * ct_print_options_default fills *out with torch's defaults (torch.set_printoptions(profile=
 * "default")). ct_get_print_options fills it with the current options; ct_set_print_options
 * replaces them, process-wide, for every later ct_tensor_to_string (and so every binding's
 * printing). The caller sets out->struct_size before ct_get_print_options.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL argument, a struct_size other than
 * sizeof(ct_print_options), or a value out of range (the message names the field); on failure
 * nothing changes. Threads: any thread. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_print_options_default(ct_print_options* out);
CT_API CT_NODISCARD ct_status ct_get_print_options(ct_print_options* out);
CT_API CT_NODISCARD ct_status ct_set_print_options(const ct_print_options* options);

/* ct_string_release - free a string the library returned. NULL is a no-op. Since 0.1. */
CT_API void ct_string_release(char* s);

/* ---- Tensors: DLPack (zero-copy exchange with numpy, PyTorch, JAX, CuPy) ---- */

/* The DLPack capsules, declared only: include ctorch_dlpack.h (or the official dlpack.h, 1.0 or
 * later) for their fields. Both follow the DLPack ABI, so capsules from other libraries pass
 * through these functions unchanged. */
struct DLManagedTensorVersioned;
struct DLManagedTensor;

/*
 * ct_tensor_to_dlpack - a DLPack 1.0 capsule viewing t's memory, without copying.
 *
 * The capsule has version {1, 0}, flags 0 (DLPACK_FLAG_BITMASK_READ_ONLY for a read-only tensor,
 * since 0.9) and device {kDLCPU, 0}, or {kDLCUDA, index} for a cuda
 * tensor (since 0.7; the calling thread's stream on that device is synchronized first, so the data
 * is complete when the capsule is returned). dl_tensor.data is the address of
 * t's first element (as ct_tensor_data_ptr gives it) and byte_offset is 0; shape and strides are
 * arrays of ndim entries (strides in elements, never NULL, also for 0-dim tensors) owned by the
 * capsule. Writes through t or its views are seen through the capsule's data and the other way
 * round. Dtypes map to DLPack (code, bits) as: bool (kDLBool, 8), uint8 (kDLUInt, 8), int8 to
 * int64 (kDLInt, 8 to 64), float16 (kDLFloat, 16), bfloat16 (kDLBfloat, 16), float32 and float64
 * (kDLFloat, 32 and 64), complex64 and complex128 (kDLComplex, 64 and 128); lanes is always 1. manager_ctx is private to ctorch.
 *
 *   t    borrowed; the capsule retains it until its deleter runs.
 *   out  on CT_OK, a new capsule: hand it to one consumer, which calls out->deleter(out) exactly
 *        once when done (from any thread); that releases the capsule's reference to t and frees
 *        the capsule, its shape and its strides. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  t or out is NULL, or t was released
 *   CT_ERROR_DEVICE            t is neither on the cpu nor on cuda (meta tensors have no data)
 *   CT_ERROR_BACKEND           synchronizing the cuda stream reported a failed kernel
 *   CT_ERROR_OUT_OF_MEMORY     the capsule could not be allocated
 * Details of a failure: ct_last_error() on the same thread.
 *
 * Threads: any thread; t may be read concurrently by other threads.
 * Since 0.1. See also ct_tensor_from_dlpack, ct_tensor_data_ptr; docs/abi.md "DLPack".
 */
CT_API CT_NODISCARD ct_status ct_tensor_to_dlpack(const ct_tensor* t, struct DLManagedTensorVersioned** out);

/*
 * ct_tensor_to_dlpack_unversioned - the same as ct_tensor_to_dlpack, as a legacy (pre-1.0)
 * DLManagedTensor, for consumers that read only those (numpy before 2.0, PyTorch before 2.2).
 *
 * Same ownership, statuses and threads as ct_tensor_to_dlpack; the capsule has no version or
 * flags, so a read-only tensor (ct_tensor_is_read_only) is refused with CT_ERROR_INVALID_ARGUMENT:
 * export it with ct_tensor_to_dlpack, which sets the READ_ONLY flag. Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_to_dlpack_unversioned(const ct_tensor* t, struct DLManagedTensor** out);

/*
 * ct_tensor_from_dlpack - a tensor over a DLPack 1.0 capsule's memory, without copying: on the
 * cpu for kDLCPU, on cuda:N for {kDLCUDA, N} (since 0.7). The producer must have ordered its writes
 * before the calling thread's default stream on that device (the stream ctorch's work runs on).
 *
 * The tensor has the capsule's shape, its strides (in elements; NULL strides mean compact
 * row-major) and the ctorch dtype of its (code, bits) pair, mapped as in ct_tensor_to_dlpack; its
 * first element is at (char*)data + byte_offset (its storage offset is 0). Writes through the
 * tensor are seen by the producer and the other way round. Any minor version of major version 1
 * is accepted; version.major is read before any other field. Flags: IS_COPIED is accepted (it
 * changes nothing: the capsule belongs to ctorch either way); READ_ONLY gives a read-only tensor,
 * as CT_BLOB_READ_ONLY does (since 0.9; before, it was refused). Other flag bits are ignored. The
 * memory is checked as ct_tensor_from_blob_v2 checks it (alignment, address range, bool bytes).
 *
 *   src  on CT_OK, owned by ctorch: do not call src->deleter or touch src again. ctorch reads the
 *        struct, shape and strides during the call only, and calls src->deleter(src) (when not
 *        NULL) exactly once, when the last tensor using the memory (out and every view of it) is
 *        released, on whichever thread releases it. The data must stay valid until then.
 *        On failure src stays the caller's: its deleter is not called and nothing is retained.
 *   out  on CT_OK, a new reference. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  src or out is NULL; ndim negative or over 64; shape NULL with
 *                              ndim > 0; a negative size or stride; data NULL with elements;
 *                              data + byte_offset not a multiple of the item size; sizes and
 *                              strides reaching beyond addressable memory (or the upper half of
 *                              the address space); a bool byte other than 0 and 1
 *   CT_ERROR_DTYPE             lanes != 1, or a (code, bits) pair with no ctorch dtype (complex,
 *                              opaque handles, unsigned integers over 8 bits, 8-bit floats, ...)
 *   CT_ERROR_DEVICE            a device type other than kDLCPU and kDLCUDA (kDLCUDAHost, kDLROCM,
 *                              ...), or a cuda device this process does not have
 *   CT_ERROR_VERSION           version.major is not 1
 *   CT_ERROR_OUT_OF_MEMORY
 * Details of a failure: ct_last_error() on the same thread.
 *
 * Threads: any thread; the deleter may run on any thread.
 * Since 0.1. See also ct_tensor_from_dlpack_unversioned, ct_tensor_to_dlpack, ct_tensor_from_blob.
 */
CT_API CT_NODISCARD ct_status ct_tensor_from_dlpack(struct DLManagedTensorVersioned* src, ct_tensor** out);

/*
 * ct_tensor_from_dlpack_unversioned - ct_tensor_from_dlpack for the pre-1.0 DLManagedTensor.
 *
 * For producers that only make the unversioned capsule (older numpy and PyTorch). Everything is
 * as in ct_tensor_from_dlpack, except that the struct has no version and no flags: the tensor is
 * never read-only, and the call never gives CT_ERROR_VERSION. src->deleter(src) runs once when the
 * last tensor using the memory is released; on failure src stays the caller's.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT, CT_ERROR_DTYPE, CT_ERROR_DEVICE, CT_ERROR_OUT_OF_MEMORY
 *                              as for ct_tensor_from_dlpack
 * Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_from_dlpack_unversioned(struct DLManagedTensor* src, ct_tensor** out);

/* ---- Operators: elementwise ---- */

/*
 * Binary elementwise operators: ct_tensor_add, ct_tensor_sub, ct_tensor_mul, ct_tensor_div,
 * ct_tensor_pow, ct_tensor_maximum, ct_tensor_minimum, ct_tensor_eq, ct_tensor_ne, ct_tensor_lt,
 * ct_tensor_le, ct_tensor_gt, ct_tensor_ge.
 *
 * out = a OP b, with PyTorch's rules: sizes broadcast (aligned from the last dimension, a size 1
 * stretches); the result dtype is the promoted dtype of a and b, where a 0-dim tensor counts only
 * when its category (bool < integer < floating) is higher than every dimensioned input's. div is
 * true division (integers give float32); comparisons give bool; maximum and minimum propagate
 * NaN. Inputs may be any views. The operator names in ct_op_call are the same without "ct_tensor_".
 *
 *   a, b  borrowed.
 *   out   on CT_OK, a new reference. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a, b or out is NULL, or a or b was released
 *   CT_ERROR_SHAPE             sizes do not broadcast (the message names the dimension)
 *   CT_ERROR_DTYPE             an operator that rejects the dtype: sub with bool inputs
 *   CT_ERROR_DEVICE            a and b are on different devices
 *   CT_ERROR_OUT_OF_MEMORY
 * Threads: any thread. Determinism: bitwise reproducible. Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_add(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_sub(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_mul(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_div(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_pow(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_maximum(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_minimum(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_eq(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_ne(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_lt(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_le(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_gt(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_ge(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);

/*
 * Tensor-scalar forms: ct_tensor_add_scalar ... ct_tensor_ge_scalar.
 *
 * out = a OP s. The scalar takes part in promotion like a Python number: an integer tensor plus
 * an integer scalar stays integral, plus a float scalar becomes float32; a float16 tensor stays
 * float16. Operator names in ct_op_call: "add" etc. with a number argument (overload ".Scalar").
 *
 * Returns as the binary operators above; CT_ERROR_INVALID_ARGUMENT also when s is NULL or has an
 * unknown kind. Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_add_scalar(const ct_tensor* a, const ct_scalar* s, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_sub_scalar(const ct_tensor* a, const ct_scalar* s, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_mul_scalar(const ct_tensor* a, const ct_scalar* s, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_div_scalar(const ct_tensor* a, const ct_scalar* s, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_pow_scalar(const ct_tensor* a, const ct_scalar* s, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_eq_scalar(const ct_tensor* a, const ct_scalar* s, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_ne_scalar(const ct_tensor* a, const ct_scalar* s, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_lt_scalar(const ct_tensor* a, const ct_scalar* s, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_le_scalar(const ct_tensor* a, const ct_scalar* s, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_gt_scalar(const ct_tensor* a, const ct_scalar* s, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_ge_scalar(const ct_tensor* a, const ct_scalar* s, ct_tensor** out);

/*
 * In-place arithmetic: ct_tensor_add_, ct_tensor_sub_, ct_tensor_mul_, ct_tensor_div_ and their
 * scalar forms ct_tensor_add_scalar_ ... ct_tensor_div_scalar_.
 *
 * self = self OP b, written into self's memory (every view of it sees the change). b broadcasts
 * to self's sizes, never the other way round. The result is computed in the promoted dtype and
 * converted to self's dtype, which must be able to hold it (a float result cannot go into an
 * integer tensor). On failure self is unchanged.
 *
 *   self  borrowed and written.  b, s  borrowed.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a NULL or released handle, or s NULL
 *   CT_ERROR_SHAPE             the broadcast result's sizes differ from self's (in-place cannot grow self)
 *   CT_ERROR_DTYPE             the promoted dtype cannot be cast to self's dtype
 *   CT_ERROR_DEVICE            different devices
 * Threads: self must not be read or written by another thread during the call. Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_add_(ct_tensor* self, const ct_tensor* b);
CT_API CT_NODISCARD ct_status ct_tensor_sub_(ct_tensor* self, const ct_tensor* b);
CT_API CT_NODISCARD ct_status ct_tensor_mul_(ct_tensor* self, const ct_tensor* b);
CT_API CT_NODISCARD ct_status ct_tensor_div_(ct_tensor* self, const ct_tensor* b);
CT_API CT_NODISCARD ct_status ct_tensor_add_scalar_(ct_tensor* self, const ct_scalar* s);
CT_API CT_NODISCARD ct_status ct_tensor_sub_scalar_(ct_tensor* self, const ct_scalar* s);
CT_API CT_NODISCARD ct_status ct_tensor_mul_scalar_(ct_tensor* self, const ct_scalar* s);
CT_API CT_NODISCARD ct_status ct_tensor_div_scalar_(ct_tensor* self, const ct_scalar* s);

/*
 * Unary elementwise operators: ct_tensor_neg, ct_tensor_abs, ct_tensor_exp, ct_tensor_log,
 * ct_tensor_sqrt, ct_tensor_rsqrt, ct_tensor_sin, ct_tensor_cos, ct_tensor_tanh,
 * ct_tensor_sigmoid, ct_tensor_relu.
 *
 * out = OP(a) elementwise. neg, abs and relu keep the dtype; the others turn integer and bool
 * inputs into float32, as PyTorch does.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a or out NULL, a released
 *   CT_ERROR_DTYPE             neg or relu of a bool tensor
 *   CT_ERROR_OUT_OF_MEMORY
 * Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_neg(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_abs(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_exp(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_log(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_sqrt(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_rsqrt(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_sin(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_cos(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_tanh(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_sigmoid(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_relu(const ct_tensor* a, ct_tensor** out);

/*
 * ct_tensor_where - out[i] = cond[i] ? a[i] : b[i], broadcasting all three.
 *
 * cond must be bool; the result dtype is the promotion of a and b.
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (NULLs, released); CT_ERROR_SHAPE (no broadcast);
 * CT_ERROR_DTYPE (cond not bool); CT_ERROR_DEVICE (mixed devices). Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_where(const ct_tensor* cond, const ct_tensor* a, const ct_tensor* b,
                                              ct_tensor** out);

/*
 * ct_tensor_clamp - out = min(max(a, lo), hi); lo or hi may be NULL (no bound), not both.
 *
 * The bounds take part in type promotion as scalars (an integer tensor clamped by 0.5 is float32).
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (NULLs, both bounds NULL, released); CT_ERROR_DTYPE
 * (bool tensors). Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_clamp(const ct_tensor* a, const ct_scalar* lo, const ct_scalar* hi,
                                              ct_tensor** out);

/* ---- Operators: math functions and activations ---- */

/*
 * Unary math: ct_tensor_exp2, ct_tensor_expm1, ct_tensor_log1p, ct_tensor_log2, ct_tensor_log10,
 * ct_tensor_tan, ct_tensor_asin, ct_tensor_acos, ct_tensor_atan, ct_tensor_sinh, ct_tensor_cosh,
 * ct_tensor_asinh, ct_tensor_acosh, ct_tensor_atanh, ct_tensor_erf, ct_tensor_erfc,
 * ct_tensor_erfinv, ct_tensor_reciprocal.
 *
 * out = OP(a) elementwise, as torch.OP: integer and bool inputs give the default float dtype
 * (float32); float16 and bfloat16 are computed in float32 and rounded back. Outside an operator's
 * domain the result is NaN (log1p(-2), asin(2), erfinv(1.5)), never an error. Operator names in
 * ct_op_call are the same without "ct_tensor_".
 *
 *   a    borrowed.
 *   out  on CT_OK, a new reference. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a or out is NULL, or a was released
 *   CT_ERROR_OUT_OF_MEMORY
 * Threads: any thread. Determinism: bitwise reproducible. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_exp2(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_expm1(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_log1p(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_log2(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_log10(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_tan(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_asin(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_acos(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_atan(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_sinh(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_cosh(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_asinh(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_acosh(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_atanh(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_erf(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_erfc(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_erfinv(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_reciprocal(const ct_tensor* a, ct_tensor** out);

/*
 * Rounding and sign: ct_tensor_floor, ct_tensor_ceil, ct_tensor_round, ct_tensor_trunc,
 * ct_tensor_frac, ct_tensor_sign, ct_tensor_square; ct_tensor_round_decimals.
 *
 * out = OP(a) in a's dtype. round rounds half to even (round(2.5) = 2). Integer inputs are
 * returned unchanged by floor, ceil, round and trunc. sign gives -1, 0 or 1 (0 for NaN); square
 * is a * a (bool gives int64). round_decimals rounds to 10^-decimals (decimals may be negative:
 * -1 rounds to tens), floating dtypes only. The gradients of floor, ceil, round, trunc and sign
 * are zero, as in PyTorch; frac's is the identity.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a or out NULL, a released
 *   CT_ERROR_DTYPE             floor, ceil, round and trunc of bool tensors; frac and
 *                              round_decimals of integer or bool tensors
 *   CT_ERROR_OUT_OF_MEMORY
 * Threads: any thread. Determinism: bitwise reproducible. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_floor(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_ceil(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_round(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_trunc(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_frac(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_sign(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_square(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_round_decimals(const ct_tensor* a, int64_t decimals, ct_tensor** out);

/*
 * Predicates and logical not: ct_tensor_isnan, ct_tensor_isinf, ct_tensor_isfinite,
 * ct_tensor_logical_not; and ct_tensor_bitwise_not.
 *
 * isnan, isinf, isfinite and logical_not give a bool tensor for any input dtype (integers are
 * never NaN or infinite; logical_not is a == 0). bitwise_not is ~a for integer tensors and
 * logical not for bool. None of them is differentiable.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a or out NULL, a released
 *   CT_ERROR_DTYPE             bitwise_not of a floating tensor
 * Threads: any thread. Determinism: bitwise reproducible. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_isnan(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_isinf(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_isfinite(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_logical_not(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_bitwise_not(const ct_tensor* a, ct_tensor** out);

/*
 * ct_tensor_nan_to_num - out = a with NaN, +inf and -inf replaced.
 *
 * nan, posinf, neginf point to the replacement values, or are NULL for PyTorch's defaults: 0 for
 * NaN, the dtype's largest finite value for +inf and its lowest for -inf (65504 for float16).
 * Integer and bool tensors are returned unchanged. The gradient passes where a is finite.
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (a or out NULL, a released). Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_nan_to_num(const ct_tensor* a, const double* nan, const double* posinf,
                                                   const double* neginf, ct_tensor** out);

/*
 * ct_tensor_clamp_min, ct_tensor_clamp_max - out = max(a, bound) / min(a, bound).
 *
 * ct_tensor_clamp with one bound: the bound promotes as a scalar (an integer tensor clamped by 0.5
 * is float32) and NaN passes through. The gradient passes where a is within the bound, the bound
 * itself included.
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (a, bound or out NULL, a released); CT_ERROR_DTYPE
 * (bool tensors, as ct_tensor_clamp). Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_clamp_min(const ct_tensor* a, const ct_scalar* bound, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_clamp_max(const ct_tensor* a, const ct_scalar* bound, ct_tensor** out);

/*
 * Activations: ct_tensor_silu, ct_tensor_mish, ct_tensor_selu, ct_tensor_hardsigmoid,
 * ct_tensor_hardswish; with parameters ct_tensor_gelu, ct_tensor_softplus, ct_tensor_elu,
 * ct_tensor_leaky_relu, ct_tensor_hardtanh.
 *
 * out = f(a) elementwise in a's dtype, with torch.nn.functional's formulas and defaults:
 *   gelu        approximate "none" (x Phi(x), NULL means "none") or "tanh" (the tanh approximation)
 *   softplus    log(1 + exp(beta x)) / beta, and x where beta x > threshold (PyTorch: 1, 20)
 *   elu         scale x for x > 0, else alpha scale (exp(input_scale x) - 1) (PyTorch: 1, 1, 1)
 *   selu        elu with alpha 1.6732632423543772 and scale 1.0507009873554805
 *   leaky_relu  x for x > 0, else negative_slope x (PyTorch: 0.01)
 *   hardtanh    clamp(x, min_val, max_val) (PyTorch: -1, 1)
 *   silu x sigmoid(x); mish x tanh(softplus(x)); hardsigmoid relu6(x + 3) / 6; hardswish x hardsigmoid(x)
 * NaN passes through. Floating dtypes only (hardtanh also takes signed integers, as PyTorch does).
 * Each is differentiable twice; at a kink the gradient is PyTorch's one-sided choice.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a or out NULL, a released; gelu's approximate not "none" or "tanh"
 *   CT_ERROR_DTYPE             integer or bool input (uint8 and bool for hardtanh)
 * Threads: any thread. Determinism: bitwise reproducible. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_silu(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_mish(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_selu(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_hardsigmoid(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_hardswish(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_gelu(const ct_tensor* a, const char* approximate, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_softplus(const ct_tensor* a, double beta, double threshold, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_elu(const ct_tensor* a, double alpha, double scale, double input_scale,
                                            ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_leaky_relu(const ct_tensor* a, double negative_slope, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_hardtanh(const ct_tensor* a, double min_val, double max_val, ct_tensor** out);

/*
 * Binary math: ct_tensor_atan2, ct_tensor_hypot, ct_tensor_fmod, ct_tensor_remainder,
 * ct_tensor_floor_divide; tensor-scalar forms ct_tensor_fmod_scalar, ct_tensor_remainder_scalar,
 * ct_tensor_floor_divide_scalar.
 *
 * out = OP(a, b) with the broadcasting and type promotion of ct_tensor_add. atan2(a, b) is the
 * angle of (b, a) (integers give float32); hypot is sqrt(a^2 + b^2) (floating dtypes only); fmod's
 * remainder has the sign of a (C's fmod), remainder's the sign of b (Python's %); floor_divide is
 * Python's //, floor(a / b) computed exactly. floor_divide is not differentiable (PyTorch defines
 * no derivative either).
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a NULL or released handle, s NULL; an integer divisor of 0 in
 *                              fmod, remainder or floor_divide (PyTorch's ZeroDivisionError)
 *   CT_ERROR_SHAPE             sizes do not broadcast
 *   CT_ERROR_DTYPE             hypot of integer tensors; fmod, remainder, floor_divide of bool
 *   CT_ERROR_DEVICE            a and b on different devices
 * Threads: any thread. Determinism: bitwise reproducible. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_atan2(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_hypot(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_fmod(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_remainder(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_floor_divide(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_fmod_scalar(const ct_tensor* a, const ct_scalar* s, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_remainder_scalar(const ct_tensor* a, const ct_scalar* s, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_floor_divide_scalar(const ct_tensor* a, const ct_scalar* s, ct_tensor** out);

/*
 * Bitwise and logical binaries: ct_tensor_bitwise_and, ct_tensor_bitwise_or,
 * ct_tensor_bitwise_xor, ct_tensor_bitwise_left_shift, ct_tensor_bitwise_right_shift,
 * ct_tensor_logical_and, ct_tensor_logical_or, ct_tensor_logical_xor.
 *
 * Broadcasting and promotion as ct_tensor_add. The bitwise operators take integer tensors (and
 * bool for and/or/xor) and keep the promoted dtype; a shift by a negative count or by the width
 * or more gives 0 to the left and the sign fill to the right. The logical operators take any
 * dtype (nonzero, NaN included, is true) and give bool. None of them is differentiable.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a, b or out NULL, or released
 *   CT_ERROR_SHAPE             sizes do not broadcast
 *   CT_ERROR_DTYPE             a floating input to a bitwise operator; bool to a shift
 *   CT_ERROR_DEVICE            a and b on different devices
 * Threads: any thread. Determinism: bitwise reproducible. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_bitwise_and(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_bitwise_or(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_bitwise_xor(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_bitwise_left_shift(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_bitwise_right_shift(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_logical_and(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_logical_or(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_logical_xor(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);

/*
 * ct_tensor_lerp, ct_tensor_lerp_tensor - out = a + weight (end - a).
 *
 * The weight is a scalar (lerp.Scalar) or a tensor (lerp.Tensor); a, end and a weight tensor
 * broadcast together and must all have the same floating dtype (lerp does not promote, as in
 * PyTorch). Computed in PyTorch's form that is exact at whichever end the weight is nearer.
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (NULLs, released); CT_ERROR_SHAPE (no broadcast);
 * CT_ERROR_DTYPE (dtypes differ, or not floating); CT_ERROR_DEVICE. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_lerp(const ct_tensor* a, const ct_tensor* end, const ct_scalar* weight,
                                             ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_lerp_tensor(const ct_tensor* a, const ct_tensor* end, const ct_tensor* weight,
                                                    ct_tensor** out);

/*
 * ct_tensor_addcmul, ct_tensor_addcdiv - out = a + value * t1 * t2, a + value * t1 / t2.
 *
 * The three tensors broadcast together and promote as in ct_tensor_add; value may be NULL (1) and
 * is converted to the result dtype (for integer results a float value truncates, as in PyTorch).
 * addcdiv refuses t1 and t2 both integral (PyTorch's "integer division with addcdiv") and needs a
 * floating result.
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (NULL or released tensors); CT_ERROR_SHAPE (no
 * broadcast); CT_ERROR_DTYPE (bool results; addcdiv as above); CT_ERROR_DEVICE. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_addcmul(const ct_tensor* a, const ct_tensor* t1, const ct_tensor* t2,
                                                const ct_scalar* value, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_addcdiv(const ct_tensor* a, const ct_tensor* t1, const ct_tensor* t2,
                                                const ct_scalar* value, ct_tensor** out);

/* ---- Operators: conversion and copies ---- */

/*
 * ct_tensor_to - a with its elements converted to dtype (operator "to.dtype").
 *
 * Returns a new reference to a itself (the same handle) when dtype already matches, as torch's
 * Tensor.to does;
 * otherwise a new contiguous tensor. Floating to integer truncates toward zero; to bool tests != 0.
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (NULLs, released, bad dtype); CT_ERROR_OUT_OF_MEMORY.
 * Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_to(const ct_tensor* a, ct_dtype dtype, ct_tensor** out);

/*
 * ct_tensor_to_device - a on device ("cpu", "cuda:0", a plugin's name, "meta"), with its dtype
 * (operator "to.device"; torch's Tensor.to(device)).
 *
 * Returns a new reference to a itself when it is already there; otherwise a new contiguous tensor
 * on device. No kernel runs on either device: the elements move through the backends' copy
 * functions, and a strided view is gathered on the host. The gradient flows back to a's device.
 * Moving to "meta" keeps sizes and dtype only.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULL or released a, NULL out, a device string that does not parse
 *   CT_ERROR_DEVICE            no backend is loaded for device, its index does not exist, or a is a
 *                              meta tensor (no data to move)
 *   CT_ERROR_BACKEND           the backend's copy failed (the message is the backend's)
 *   CT_ERROR_OUT_OF_MEMORY     the destination (or a host staging buffer) could not be allocated
 * Threads: any thread. Since 0.7.
 */
CT_API CT_NODISCARD ct_status ct_tensor_to_device(const ct_tensor* a, const char* device, ct_tensor** out);

/*
 * ct_tensor_pin_memory - a contiguous copy of the cpu tensor t in page-locked host memory
 * (torch's pin_memory), which CUDA copies to and from the GPU directly, without staging; a new
 * reference to t itself when it is pinned already. The memory is freed (cudaFreeHost) with the
 * last tensor using it. ct_tensor_is_pinned writes 1 for such a tensor (or a view of one), else 0.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULL or released t, NULL out
 *   CT_ERROR_DEVICE            (pin_memory) t is not on the cpu, or CUDA has no device: says why
 *   CT_ERROR_OUT_OF_MEMORY     (pin_memory) the page-locked memory could not be allocated
 * Threads: any thread. Since 0.7.
 */
CT_API CT_NODISCARD ct_status ct_tensor_pin_memory(const ct_tensor* t, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_is_pinned(const ct_tensor* t, int* out);

/*
 * ct_tensor_contiguous - a itself (a new reference) when already contiguous, else a contiguous copy.
 * ct_tensor_clone - always a new contiguous copy that shares nothing with a. The boxed operator
 *   "clone" takes torch's memory_format (0 contiguous, 1 preserve: a permuted dense layout keeps its
 *   strides, 2 channels_last, 3 channels_last_3d; none: contiguous).
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (NULLs, released); CT_ERROR_OUT_OF_MEMORY. Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_contiguous(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_clone(const ct_tensor* a, ct_tensor** out);

/* ---- Operators: indexing ---- */

/*
 * ct_tensor_index_select - the slices of a at the given positions along dim.
 *
 * Computes a.index_select(dim, index): the result has a's sizes with size(dim) replaced by the
 * number of index entries, slice i being a's slice index[i]. index is 0-D or 1-D, int64 or int32;
 * its entries lie in [0, a.size(dim)) (negative entries are refused, as in PyTorch). The result
 * requires grad when a does; its gradient adds back into the selected slices (repeats add up, in
 * index order, so the bits do not depend on the thread count).
 *
 *   a, index  borrowed.  out  on CT_OK, a new reference; end it with ct_tensor_release. Otherwise NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a, index or out is NULL, or a or index was released
 *   CT_ERROR_SHAPE             index has more than one dim
 *   CT_ERROR_DTYPE             index is not int64 or int32
 *   CT_ERROR_INDEX             dim out of range, or an index entry out of [0, a.size(dim)) (the message
 *                              names the entry and the size)
 * Details of a failure: ct_last_error() on the same thread.
 *
 * Threads: any thread; a and index may be read concurrently by other threads.
 * Determinism: bitwise the same for any thread count on CPU.
 * Since 0.4. See also ct_tensor_gather, ct_tensor_index, ct_op_call ("index_select").
 */
CT_API CT_NODISCARD ct_status ct_tensor_index_select(const ct_tensor* a, int64_t dim, const ct_tensor* index,
                                                     ct_tensor** out);

/*
 * ct_tensor_gather / ct_tensor_scatter / ct_tensor_scatter_add - an index per element along dim.
 *
 * gather: out[i][j] = a[index[i][j]][j] (dim 0; likewise for other dims); out has index's sizes.
 * scatter: a copy of a with out[index[i][j]][j] = src[i][j] (a repeated target keeps the entry
 * that comes last in index order). scatter_add: the same with += (repeats add up in index order).
 * index is int64 and has a's number of dims; outside dim it is no larger than a, and it is no
 * larger than src anywhere. src has a's dtype. Gradients: gather's flows back through
 * scatter_add; scatter's src gets the gradient at its target, a none where it was overwritten.
 *
 *   a, index, src  borrowed.  out  on CT_OK, a new reference. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a handle or out is NULL, or a handle was released
 *   CT_ERROR_SHAPE             index's rank differs from a's, or index is larger than a or src
 *   CT_ERROR_DTYPE             index is not int64, or src's dtype differs from a's
 *   CT_ERROR_INDEX             dim out of range, or an index entry out of [0, a.size(dim))
 *
 * Threads: any thread on distinct outputs. Determinism: bitwise the same for any thread count on
 * CPU (scatter_add adds each target's entries in index order on one thread).
 * Since 0.4. See also ct_op_call ("scatter_reduce") for sum/prod/mean/amax/amin.
 */
CT_API CT_NODISCARD ct_status ct_tensor_gather(const ct_tensor* a, int64_t dim, const ct_tensor* index,
                                               ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_scatter(const ct_tensor* a, int64_t dim, const ct_tensor* index,
                                                const ct_tensor* src, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_scatter_add(const ct_tensor* a, int64_t dim, const ct_tensor* index,
                                                    const ct_tensor* src, ct_tensor** out);

/*
 * ct_tensor_index_add - a copy of a with alpha * source's slices added at index along dim.
 *
 * out = a; out.select(dim, index[i]) += alpha * source.select(dim, i). index is 0-D or 1-D, int64
 * or int32, entries in [0, a.size(dim)); source has a's dtype and sizes except size(dim) ==
 * index's length. Repeated entries add up in index order: the result is bitwise the same for any
 * thread count (the work is split over the other dims, never over index).
 *
 *   a, index, source  borrowed.  alpha  borrowed; NULL means 1.
 *   out  on CT_OK, a new reference. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a handle or out is NULL or released, alpha of an unknown kind
 *   CT_ERROR_SHAPE             index has more than one dim, or source's sizes do not fit
 *   CT_ERROR_DTYPE             index not int64/int32, or source's dtype differs from a's
 *   CT_ERROR_INDEX             dim out of range, or an index entry out of [0, a.size(dim))
 *
 * Threads: any thread. Determinism: bitwise the same for any thread count on CPU.
 * Since 0.4. See also ct_op_call ("index_add_", "index_copy", "index_fill").
 */
CT_API CT_NODISCARD ct_status ct_tensor_index_add(const ct_tensor* a, int64_t dim, const ct_tensor* index,
                                                  const ct_tensor* source, const ct_scalar* alpha, ct_tensor** out);

/*
 * ct_tensor_masked_fill / ct_tensor_masked_select / ct_tensor_nonzero - boolean masks.
 *
 * masked_fill: a copy of a (broadcast with mask) holding value where mask is true; the result keeps
 * a's dtype. masked_select: the elements of a (broadcast with mask) where mask is true, as a 1-D
 * tensor in row-major order. nonzero: an (n, a.ndim) int64 tensor of the positions of a's nonzero
 * elements, in row-major order. mask is bool (uint8 is accepted, as in PyTorch). masked_select's
 * and nonzero's result sizes depend on the data, so on the meta device they fail with
 * CT_ERROR_NOT_IMPLEMENTED.
 *
 *   a, mask, value  borrowed.  out  on CT_OK, a new reference. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a handle, value or out is NULL, or a handle was released
 *   CT_ERROR_SHAPE             a and mask do not broadcast
 *   CT_ERROR_DTYPE             mask is not bool or uint8
 *   CT_ERROR_NOT_IMPLEMENTED   masked_select or nonzero on the meta device
 *
 * Threads: any thread. Determinism: bitwise.
 * Since 0.4. See also ct_op_call ("masked_scatter", "masked_fill_").
 */
CT_API CT_NODISCARD ct_status ct_tensor_masked_fill(const ct_tensor* a, const ct_tensor* mask, const ct_scalar* value,
                                                    ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_masked_select(const ct_tensor* a, const ct_tensor* mask, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_nonzero(const ct_tensor* a, ct_tensor** out);

/*
 * ct_tensor_index / ct_tensor_index_put / ct_tensor_index_put_ - advanced indexing, a[i, j] and
 * a[i, j] = values, with PyTorch's rules.
 *
 * indices[k] indexes dim k of a, or is NULL for a full slice (":"). An int64 index tensor picks
 * positions (negative entries count from the end); a bool (or uint8) mask covers as many dims as
 * it has and picks its true positions. The index tensors broadcast together; the result has their
 * broadcast sizes in place of the indexed dims when those are adjacent, or in front when they are
 * not (as numpy and PyTorch). index_put returns a copy of a with values (broadcast to the indexing
 * result, a's dtype) written at the picked positions, or added when accumulate is nonzero
 * (repeats add up in index order, bitwise the same for any thread count); without accumulate a
 * repeated position keeps the last value. index_put_ writes into a itself. Reading's gradient
 * adds back into a; writing's gives values the gradient at the written positions.
 *
 *   a, indices (array of n borrowed handles or NULLs), values  borrowed.
 *   out  on CT_OK, a new reference. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a, values or out NULL or released; indices NULL with n > 0; every
 *                              entry NULL; an entry released; index_put_ on a leaf requiring grad
 *   CT_ERROR_SHAPE             index tensors that do not broadcast; values that do not broadcast to
 *                              the result
 *   CT_ERROR_DTYPE             values' dtype differs from a's
 *   CT_ERROR_INDEX             more indices than dims, an entry out of range, a mask whose sizes
 *                              differ from the dims it covers, an index that is not int64 or bool
 *   CT_ERROR_NOT_IMPLEMENTED   a bool mask on the meta device (the result size depends on the data)
 *
 * Threads: any thread; index_put_ must not race with other uses of a. Determinism: bitwise.
 * Since 0.4. See also ct_op_call ("index", "index_put"), docs/operators/index.md.
 */
CT_API CT_NODISCARD ct_status ct_tensor_index(const ct_tensor* a, const ct_tensor* const* indices, size_t n,
                                              ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_index_put(const ct_tensor* a, const ct_tensor* const* indices, size_t n,
                                                  const ct_tensor* values, int accumulate, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_index_put_(ct_tensor* a, const ct_tensor* const* indices, size_t n,
                                                   const ct_tensor* values, int accumulate);

/* ---- Operators: shapes and views ---- */

/*
 * View operators: ct_tensor_view, ct_tensor_permute, ct_tensor_transpose, ct_tensor_expand,
 * ct_tensor_squeeze, ct_tensor_squeeze_dim, ct_tensor_unsqueeze, ct_tensor_narrow,
 * ct_tensor_select. ct_tensor_reshape and ct_tensor_flatten return a view when the strides allow
 * and a copy otherwise.
 *
 * A view shares a's storage: writes through one are seen through the other, and the storage lives
 * while either does. Dims may be negative (counted from the end); unsqueeze takes a dim in
 * [-ndim-1, ndim], since the result has one more. view/reshape accept one -1 size, inferred.
 * expand accepts -1 for "keep this size" (not in new leading dims) and new leading dims; only
 * size-1 dims stretch. narrow takes [start, start + length) of dim, a negative start counting from
 * the end; select removes dim at index (negative counts from the end); flatten merges dims
 * start..end (inclusive).
 *
 *   a, sizes, dims  borrowed.  out  on CT_OK, a new reference. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a NULL or released, out NULL, sizes/dims NULL with n > 0
 *   CT_ERROR_SHAPE             sizes with a different numel, two -1, view over incompatible strides
 *                              (use reshape), permute that is not a permutation, expand of a dim
 *                              that is not 1 or -1 in a new leading dim, narrow past the end or
 *                              of a 0-dim tensor
 *   CT_ERROR_INDEX             a dim out of range, select index or narrow start out of range,
 *                              flatten with start_dim after end_dim
 * Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_view(const ct_tensor* a, const int64_t* sizes, size_t n, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_reshape(const ct_tensor* a, const int64_t* sizes, size_t n,
                                                ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_permute(const ct_tensor* a, const int64_t* dims, size_t n, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_transpose(const ct_tensor* a, int64_t dim0, int64_t dim1, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_expand(const ct_tensor* a, const int64_t* sizes, size_t n, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_squeeze(const ct_tensor* a, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_squeeze_dim(const ct_tensor* a, int64_t dim, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_unsqueeze(const ct_tensor* a, int64_t dim, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_narrow(const ct_tensor* a, int64_t dim, int64_t start, int64_t length,
                                               ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_select(const ct_tensor* a, int64_t dim, int64_t index, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_flatten(const ct_tensor* a, int64_t start_dim, int64_t end_dim,
                                                ct_tensor** out);

/*
 * ct_tensor_cat / ct_tensor_stack - join n tensors along dim (cat) or along a new dim (stack).
 *
 * cat: sizes must match except along dim; 1-D empty tensors are skipped, as in PyTorch. stack:
 * all sizes must match; dim for stack lies in [-ndim-1, ndim]. The result dtype is the promotion of
 * all inputs.
 *
 *   tensors  borrowed array of n borrowed handles.  out  a new reference, or NULL on failure.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  tensors NULL, n == 0, an element NULL or released, out NULL
 *   CT_ERROR_SHAPE             sizes differ outside dim, different ndim, a 0-dim input to cat
 *   CT_ERROR_INDEX             dim out of range
 *   CT_ERROR_DEVICE            mixed devices
 * Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_cat(const ct_tensor* const* tensors, size_t n, int64_t dim, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_stack(const ct_tensor* const* tensors, size_t n, int64_t dim,
                                              ct_tensor** out);

/* ---- Operators: copies in a new arrangement ---- */

/*
 * Copies in a new arrangement: ct_tensor_repeat, ct_tensor_roll, ct_tensor_flip, ct_tensor_tril,
 * ct_tensor_triu (operators "repeat", "roll", "flip", "tril", "triu"; PyTorch's semantics).
 *
 * repeat tiles a repeats[i] times along dim i; n >= a's ndim, extra leading repeats add dims.
 * roll shifts elements by shifts[i] along dims[i] (n pairs), wrapping around; dims NULL with n == 1
 * rolls the flattened tensor and restores the shape. flip reverses the n dims listed. tril keeps
 * the elements on and below diagonal `diagonal` of the last two dims (0 the main one, > 0 above
 * it, < 0 below) and zeroes the rest; triu keeps those on and above it. Every dtype; the result is
 * always a new contiguous tensor of a's dtype.
 *
 *   a, repeats, shifts, dims  borrowed.  out  on CT_OK a new reference; otherwise NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a NULL or released, out NULL, an array NULL with n > 0, roll with
 *                              n == 0 or with dims NULL and n > 1, flip of a dim listed twice
 *   CT_ERROR_SHAPE             repeat with fewer repeats than dims or a negative one, tril/triu of
 *                              a tensor of fewer than 2 dims
 *   CT_ERROR_INDEX             a dim out of range
 *   CT_ERROR_OUT_OF_MEMORY
 * Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_repeat(const ct_tensor* a, const int64_t* repeats, size_t n,
                                               ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_roll(const ct_tensor* a, const int64_t* shifts, const int64_t* dims,
                                             size_t n, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_flip(const ct_tensor* a, const int64_t* dims, size_t n, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_tril(const ct_tensor* a, int64_t diagonal, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_triu(const ct_tensor* a, int64_t diagonal, ct_tensor** out);

/*
 * Views: ct_tensor_diagonal, ct_tensor_movedim, ct_tensor_broadcast_to (operators "diagonal",
 * "movedim.intlist", "broadcast_to"). The result shares a's memory, like ct_tensor_view's.
 *
 * diagonal: the elements (i, i + offset) of dims dim1 and dim2, which are removed and replaced by
 * a last dim holding the diagonal (empty when offset lies outside). movedim: dim source[i] moves
 * to position destination[i] (n pairs); the other dims keep their order. broadcast_to: a expanded
 * to sizes[0, n) as ct_tensor_expand does (-1 keeps a size).
 *
 *   a, source, destination, sizes  borrowed.  out  on CT_OK a new reference; otherwise NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a NULL or released, out NULL, an array NULL with n > 0, diagonal
 *                              with dim1 == dim2, movedim with a dim repeated
 *   CT_ERROR_SHAPE             diagonal of a tensor of fewer than 2 dims, broadcast_to sizes that a
 *                              does not broadcast to
 *   CT_ERROR_INDEX             a dim out of range
 * Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_diagonal(const ct_tensor* a, int64_t offset, int64_t dim1, int64_t dim2,
                                                 ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_movedim(const ct_tensor* a, const int64_t* source,
                                                const int64_t* destination, size_t n, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_broadcast_to(const ct_tensor* a, const int64_t* sizes, size_t n,
                                                     ct_tensor** out);

/*
 * ct_tensor_pad - a padded as torch.nn.functional.pad(a, pad, mode, value) (operator "pad").
 *
 * pad lists n values, (before, after) pairs from the last dim backwards; n is even and n / 2 <=
 * a's ndim. mode NULL or "constant": new elements are value (NULL: 0), negative pads crop.
 * "reflect" (mirror without the edge), "replicate" (repeat the edge) and "circular" (wrap around)
 * pad the last 1, 2 or 3 dims of a tensor of 2-3, 3-4 or 4-5 dims respectively, take no value, and
 * need non-negative pads (reflect: less than the dim's size; circular: at most it).
 *
 *   a, pad, mode, value  borrowed.  out  on CT_OK a new contiguous tensor; otherwise NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a NULL or released, out NULL, pad NULL with n > 0, n odd or too
 *                              long, an unknown mode, a value with a mode other than constant, a
 *                              pad too big for reflect or circular, a dim count mode cannot pad
 *   CT_ERROR_SHAPE             a crop past a dim's size; reflect/replicate of an empty non-batch dim
 *   CT_ERROR_OUT_OF_MEMORY
 * Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_pad(const ct_tensor* a, const int64_t* pad, size_t n, const char* mode,
                                            const ct_scalar* value, ct_tensor** out);

/*
 * Lists of views: ct_tensor_split, ct_tensor_split_with_sizes, ct_tensor_chunk, ct_tensor_unbind.
 *
 * Note [Handle lists]: these return as many tensors as a's dim splits into, which registered
 * operators cannot (so ct_op_call does not reach them); each piece is a view of a (a narrow, or a
 * select for unbind), and gradients flow back through it. The caller owns the array: pass outs
 * NULL and capacity 0 to learn *count alone, then an array of at least *count handles. On CT_OK,
 * outs[0, *count) hold new references the caller releases one by one with ct_tensor_release. No
 * other slot is ever written, and on failure none is (since 0.9; before, a failure set
 * outs[0, capacity) to NULL, which wrote past an array shorter than capacity claimed). When
 * capacity is too small the call fails with CT_ERROR_INVALID_ARGUMENT and *count still says how
 * many are needed; on every other failure *count is 0.
 *
 * split: pieces of split_size along dim, the last shorter when it does not divide (split_size 0
 * only for an empty dim). split_with_sizes: pieces of sizes[0, n), which must sum to the dim's
 * size. chunk: split with split_size = ceil(size / chunks), so at most `chunks` pieces (exactly
 * `chunks` empty ones for an empty dim). unbind: the size slices along dim, each without it.
 *
 *   a, sizes  borrowed.  outs  caller's array of capacity handles.  count  required.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a NULL or released, count NULL, outs NULL with capacity > 0,
 *                              capacity < *count, split_size < 0 (or 0 for a non-empty dim),
 *                              sizes NULL with n > 0, sizes negative or not summing to the size,
 *                              chunks <= 0
 *   CT_ERROR_SHAPE             split, split_with_sizes or chunk of a 0-dim tensor
 *   CT_ERROR_INDEX             dim out of range, unbind of a 0-dim tensor
 * Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_split(const ct_tensor* a, int64_t split_size, int64_t dim,
                                              ct_tensor** outs, size_t capacity, size_t* count);
CT_API CT_NODISCARD ct_status ct_tensor_split_with_sizes(const ct_tensor* a, const int64_t* sizes, size_t n,
                                                         int64_t dim, ct_tensor** outs, size_t capacity,
                                                         size_t* count);
CT_API CT_NODISCARD ct_status ct_tensor_chunk(const ct_tensor* a, int64_t chunks, int64_t dim, ct_tensor** outs,
                                              size_t capacity, size_t* count);
CT_API CT_NODISCARD ct_status ct_tensor_unbind(const ct_tensor* a, int64_t dim, ct_tensor** outs, size_t capacity,
                                               size_t* count);

/* ---- Operators: reductions ---- */

/*
 * Reductions over dims: ct_tensor_sum, ct_tensor_mean, ct_tensor_prod, ct_tensor_amax,
 * ct_tensor_amin.
 *
 * Reduce a over the n dims listed (NULL with n == 0 means every dim); keepdim != 0 keeps reduced
 * dims with size 1. sum and prod of bool and integer tensors give int64; mean needs a floating
 * dtype; amax/amin keep the dtype, propagate NaN and need a non-empty reduction. Floating results
 * are bitwise identical whatever the thread count (see ct_set_num_threads): the summation order
 * depends on the sizes only.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a or out NULL, a released, dims NULL with n > 0, a dim listed twice
 *   CT_ERROR_INDEX             a dim out of range
 *   CT_ERROR_DTYPE             mean of a non-floating tensor
 *   CT_ERROR_SHAPE             amax/amin over a dim of size 0
 * Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_sum(const ct_tensor* a, const int64_t* dims, size_t n, int keepdim,
                                            ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_mean(const ct_tensor* a, const int64_t* dims, size_t n, int keepdim,
                                             ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_prod(const ct_tensor* a, const int64_t* dims, size_t n, int keepdim,
                                             ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_amax(const ct_tensor* a, const int64_t* dims, size_t n, int keepdim,
                                             ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_amin(const ct_tensor* a, const int64_t* dims, size_t n, int keepdim,
                                             ct_tensor** out);

/*
 * ct_tensor_argmax / ct_tensor_argmin - int64 index of the first largest (smallest) element.
 *
 * dim NULL: over the flattened tensor (a 0-dim result; keepdim keeps every dim as 1). NaN counts
 * as the largest and the smallest.
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (NULLs, released); CT_ERROR_INDEX (dim out of range);
 * CT_ERROR_SHAPE (empty reduction). Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_argmax(const ct_tensor* a, const int64_t* dim, int keepdim, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_argmin(const ct_tensor* a, const int64_t* dim, int keepdim, ct_tensor** out);

/* ---- Operators: statistics, scans, sorting ---- */

/*
 * ct_tensor_var / ct_tensor_std - variance and standard deviation over dims.
 *
 * Reduces a over the n dims listed (NULL with n == 0 means every dim); keepdim != 0 keeps reduced
 * dims with size 1. The sum of squared deviations is divided by max(0, N - correction), N the
 * number of elements reduced: correction 1 is the unbiased estimate (torch's default), 0 the
 * population one; too few elements give NaN or inf, as in PyTorch. a must be floating; float16
 * and bfloat16 accumulate in double and round once. Results are bitwise identical whatever the
 * thread count.
 *
 *   a  borrowed.  out  a new reference, or NULL on failure.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a or out NULL, a released, dims NULL with n > 0, a dim listed twice
 *   CT_ERROR_INDEX             a dim out of range
 *   CT_ERROR_DTYPE             a is not floating
 * Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_var(const ct_tensor* a, const int64_t* dims, size_t n, double correction,
                                            int keepdim, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_std(const ct_tensor* a, const int64_t* dims, size_t n, double correction,
                                            int keepdim, ct_tensor** out);

/*
 * ct_tensor_norm - the vector p-norm over dims (torch.linalg.vector_norm).
 *
 * (sum |x|^p)^(1/p) over the n dims listed (NULL with n == 0: every dim); p may be INFINITY (the
 * largest |x|), -INFINITY (the smallest) or 0 (the number of non-zero elements). a must be
 * floating; float16 and bfloat16 are computed in float32 and rounded once.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a or out NULL, a released, dims NULL with n > 0, a dim listed twice
 *   CT_ERROR_INDEX             a dim out of range
 *   CT_ERROR_DTYPE             a is not floating
 *   CT_ERROR_SHAPE             p = +-INFINITY over an empty reduction
 * Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_norm(const ct_tensor* a, double p, const int64_t* dims, size_t n, int keepdim,
                                             ct_tensor** out);

/*
 * ct_tensor_logsumexp - log(sum(exp(a))) over dims, computed without overflow.
 *
 * Subtracts each group's largest element before exponentiating. Integer and bool inputs give the
 * default floating dtype. An empty group gives -inf; a group with +inf gives +inf, with NaN NaN.
 * Bitwise identical whatever the thread count.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a or out NULL, a released, dims NULL with n > 0, a dim listed twice
 *   CT_ERROR_INDEX             a dim out of range
 * Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_logsumexp(const ct_tensor* a, const int64_t* dims, size_t n, int keepdim,
                                                  ct_tensor** out);

/*
 * ct_tensor_all / ct_tensor_any - whether every (any) element is non-zero.
 *
 * dim NULL: over every element, a 0-dim result (keepdim is ignored); else over *dim, keepdim != 0
 * keeping it with size 1. NaN counts as non-zero. The result is bool, or uint8 for a uint8 input
 * (as in PyTorch). An empty reduction gives true for all, false for any.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a or out NULL, a released
 *   CT_ERROR_INDEX             dim out of range
 * Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_all(const ct_tensor* a, const int64_t* dim, int keepdim, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_any(const ct_tensor* a, const int64_t* dim, int keepdim, ct_tensor** out);

/*
 * ct_tensor_cumsum - running sums along dim.
 *
 * dtype NULL: integer and bool inputs give int64, floating ones keep their dtype; else a is
 * converted to *dtype first. float32 accumulates in double, float16 and bfloat16 in float32 (as
 * PyTorch's CPU kernel), each output rounded once. Bitwise identical whatever the thread count.
 *
 *   a  borrowed.  dtype  borrowed, may be NULL.  out  a new reference, or NULL on failure.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a or out NULL, a released, *dtype not a ct_dtype
 *   CT_ERROR_INDEX             dim out of range
 *   CT_ERROR_DTYPE             *dtype is CT_BOOL
 * Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_cumsum(const ct_tensor* a, int64_t dim, const ct_dtype* dtype, ct_tensor** out);

/*
 * ct_tensor_sort - a's elements along dim in ascending (descending != 0: descending) order.
 *
 * Writes the sorted values (a's dtype) to *values and their positions in a (int64) to *indices.
 * The sort is always stable: equal elements keep their order, in both directions. NaN sorts above
 * +inf (first when descending); -0.0 and 0.0 are equal. Rows run in parallel; the result does not
 * depend on the thread count.
 *
 *   a  borrowed.  values, indices  new references on success; both NULL on failure.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a, values or indices NULL, a released
 *   CT_ERROR_INDEX             dim out of range
 * Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_sort(const ct_tensor* a, int64_t dim, int descending, ct_tensor** values,
                                             ct_tensor** indices);

/*
 * ct_tensor_argsort - the int64 indices ct_tensor_sort writes, alone.
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (a or out NULL, a released); CT_ERROR_INDEX (dim out of
 * range). Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_argsort(const ct_tensor* a, int64_t dim, int descending, ct_tensor** out);

/*
 * ct_tensor_topk - the k largest (largest == 0: smallest) elements along dim.
 *
 * Writes their values to *values and positions in a (int64) to *indices, dim of size k. Equal
 * elements are taken in index order; NaN counts as the largest. The result is in order (largest
 * first, or smallest first) whether or not sorted is set (sorted == 0 allows any order; ctorch
 * sorts anyway, so the result is reproducible). A selection, not a sort: a row of n costs two passes
 * over n plus about k log k.
 *
 *   a  borrowed.  values, indices  new references on success; both NULL on failure.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a, values or indices NULL, a released
 *   CT_ERROR_INDEX             dim out of range, k < 0 or k > the size of dim
 *   CT_ERROR_DTYPE             a is bool
 * Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_topk(const ct_tensor* a, int64_t k, int64_t dim, int largest, int sorted,
                                             ct_tensor** values, ct_tensor** indices);

/* ---- Operators: matrix products ---- */

/*
 * Matrix products: ct_tensor_mm ([n,k] @ [k,m]), ct_tensor_bmm ([b,n,k] @ [b,k,m]),
 * ct_tensor_matmul (torch.matmul's rules: 1-D inputs act as vectors, batch dims broadcast),
 * ct_tensor_addmm (beta * self + alpha * (m1 @ m2), self broadcast to [n,m]; NULL beta or alpha
 * means 1).
 *
 * The result dtype is the promotion of the inputs. float32 and float64 on CPU call OpenBLAS
 * (sgemm/dgemm) and pass transposed views as transposes instead of copying; other dtypes use a
 * blocked loop with a float (half types) or same-type (integers) accumulator.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a NULL or released handle, out NULL
 *   CT_ERROR_SHAPE             wrong ndim, inner sizes differ, batch sizes do not match/broadcast,
 *                              a 0-dim input to matmul
 *   CT_ERROR_DTYPE             bool inputs
 *   CT_ERROR_DEVICE            mixed devices
 *   CT_ERROR_OUT_OF_MEMORY
 * Determinism: deterministic for a fixed thread count. Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_tensor_mm(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_bmm(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_matmul(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_addmm(const ct_tensor* self, const ct_tensor* m1, const ct_tensor* m2,
                                              const ct_scalar* beta, const ct_scalar* alpha, ct_tensor** out);

/* ---- Operators: linear algebra, convolution, pooling ---- */

/*
 * Vector and matrix products with PyTorch's rules: ct_tensor_dot (two 1-D tensors of one size and
 * dtype, a 0-dim result), ct_tensor_outer (1-D a [n] and b [m] give [n, m]; dtypes promote),
 * ct_tensor_mv (matrix [n, k] times vector [k], one dtype).
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a NULL or released handle, out NULL
 *   CT_ERROR_SHAPE             wrong ndim or sizes that do not fit
 *   CT_ERROR_DTYPE             operands of different dtypes (dot, mv), bool operands
 * Determinism: deterministic for a fixed thread count. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_dot(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_outer(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_mv(const ct_tensor* a, const ct_tensor* b, ct_tensor** out);

/*
 * ct_tensor_baddbmm - out = beta * self + alpha * (batch1 @ batch2) (torch.baddbmm): batch1
 * [b, n, k], batch2 [b, k, m], self broadcastable to [b, n, m], all of one dtype. beta or alpha NULL
 * means 1; with beta 0, self is not read (NaN in it does not propagate).
 *   self, batch1, batch2, beta, alpha  borrowed.  out  a new reference on success, NULL on failure.
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (NULLs, released handles, a bad scalar kind);
 * CT_ERROR_SHAPE; CT_ERROR_DTYPE. Determinism: deterministic for a fixed thread count. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_baddbmm(const ct_tensor* self, const ct_tensor* batch1, const ct_tensor* batch2,
                                                const ct_scalar* beta, const ct_scalar* alpha, ct_tensor** out);

/*
 * ct_tensor_einsum - Einstein summation (torch.einsum): equation such as "ij,jk->ik", "bij,bjk", "ii->i" or
 * "...ij,...jk->...ik" over operands[0, n). Repeated labels in one term take a diagonal, labels
 * missing from the output are summed, '...' broadcasts, and without "->" the output is the
 * ellipsis dims then the labels seen once, in alphabetical order. With three or more operands the
 * pairwise contraction order that needs the fewest multiply-adds is chosen; each pair is one
 * batched matrix product. Operands must share one dtype.
 *   equation, operands  borrowed.  out  a new reference on success, NULL on failure.
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (equation or operands NULL, n 0, a bad character, a term
 * count different from n, an output label that no operand has); CT_ERROR_SHAPE (a term naming a
 * different number of dims than its operand has, a label over sizes that differ and are not 1);
 * CT_ERROR_DTYPE. Determinism: deterministic for a fixed thread count. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_einsum(const char* equation, const ct_tensor* const* operands, size_t n,
                                               ct_tensor** out);

/*
 * ct_tensor_linear - out = input @ weight^T + bias (torch.nn.functional.linear): input [..., in],
 * weight [out, in] (or [in] for a vector), bias [out] or NULL for none; all of one dtype.
 *   input, weight, bias  borrowed.  out  a new reference on success, NULL on failure.
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (NULLs, released handles); CT_ERROR_SHAPE; CT_ERROR_DTYPE.
 * Determinism: deterministic for a fixed thread count. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_linear(const ct_tensor* input, const ct_tensor* weight, const ct_tensor* bias,
                                               ct_tensor** out);

/*
 * Options of ct_tensor_conv2d, per spatial dim (height, width). struct_size must be
 * sizeof(ct_conv2d_options): later versions add fields at the end and read only what a caller's
 * struct_size covers. Start from CT_CONV2D_OPTIONS_DEFAULT (stride 1, padding 0, dilation 1,
 * groups 1) and change what you need.
 */
typedef struct ct_conv2d_options {
  uint32_t struct_size;
  int64_t stride[2];   /* > 0 */
  int64_t padding[2];  /* >= 0 zeros added on both sides */
  int64_t dilation[2]; /* > 0 */
  int64_t groups;      /* > 0, divides the input and output channels */
} ct_conv2d_options;
#define CT_CONV2D_OPTIONS_DEFAULT {(uint32_t)sizeof(ct_conv2d_options), {1, 1}, {0, 0}, {1, 1}, 1}

/*
 * 2-D convolution (torch.nn.functional.conv2d; cross-correlation, NCHW): input [N, C, H, W] or
 * [C, H, W], weight [O, C / groups, kh, kw], bias [O] or NULL; options NULL means the defaults.
 * Floating dtypes only (float16 and bfloat16 compute in float32), input, weight and bias of one
 * dtype. Computed per sample and group as im2col + one GEMM (OpenBLAS for float32/float64).
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a NULL or released handle, out NULL, a wrong options->struct_size,
 *                              non-positive stride, dilation or groups, negative padding
 *   CT_ERROR_SHAPE             wrong ndim, channels that do not fit weight and groups, a kernel larger
 *                              than the padded input, a bias that is not [O]
 *   CT_ERROR_DTYPE             integer or bool input, mixed dtypes
 * Determinism: deterministic for a fixed thread count. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_conv2d(const ct_tensor* input, const ct_tensor* weight, const ct_tensor* bias,
                                               const ct_conv2d_options* options, ct_tensor** out);

/*
 * Options of the 2-D window pools. struct_size must be sizeof(ct_pool2d_options) (see
 * ct_conv2d_options). kernel_size must be set; stride {0, 0} means kernel_size; padding is at most
 * half the kernel; dilation must be {1, 1} for average pooling; ceil_mode nonzero rounds the output
 * size up (a window may start in the input or left padding, never wholly in the right padding).
 */
typedef struct ct_pool2d_options {
  uint32_t struct_size;
  int64_t kernel_size[2];
  int64_t stride[2];
  int64_t padding[2];
  int64_t dilation[2];
  int ceil_mode;
} ct_pool2d_options;
#define CT_POOL2D_OPTIONS_DEFAULT(kh, kw) {(uint32_t)sizeof(ct_pool2d_options), {kh, kw}, {0, 0}, {0, 0}, {1, 1}, 0}

/*
 * Pools over the last two dims of input [N, C, H, W] or [C, H, W].
 * ct_tensor_max_pool2d: the window maxima (a NaN wins) and, when indices is not NULL, their int64
 * positions in each input plane (h * W + w), as torch's max_pool2d(return_indices=True); floating
 * dtypes. ct_tensor_avg_pool2d: window means; count_include_pad nonzero counts padding zeros in the
 * divisor; divisor_override nonzero replaces the divisor; floating or int64 (integer division).
 * ct_tensor_adaptive_avg_pool2d: output [..., output_h, output_w], window i covering
 * [floor(i * H / output_h), ceil((i + 1) * H / output_h)); floating dtypes.
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  a NULL or released handle, out or options NULL, a wrong struct_size,
 *                              non-positive kernel, stride or dilation, padding over half the kernel
 *   CT_ERROR_SHAPE             not 3-D or 4-D, an empty plane, an output smaller than 1
 *   CT_ERROR_DTYPE             an unsupported dtype
 * Determinism: bitwise (planes are independent). Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_max_pool2d(const ct_tensor* input, const ct_pool2d_options* options,
                                                   ct_tensor** out, ct_tensor** indices);
CT_API CT_NODISCARD ct_status ct_tensor_avg_pool2d(const ct_tensor* input, const ct_pool2d_options* options,
                                                   int count_include_pad, int64_t divisor_override, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_adaptive_avg_pool2d(const ct_tensor* input, int64_t output_h, int64_t output_w,
                                                            ct_tensor** out);

/* ---- Operators: boxed calls, schemas and the registry ---- */

/* Kinds of ct_value, the boxed argument of ct_op_call and of C kernels. Append-only. */
typedef enum ct_value_kind {
  CT_VALUE_NONE = 0,    /* an omitted optional argument */
  CT_VALUE_TENSOR = 1,  /* tensor */
  CT_VALUE_INT = 2,     /* i */
  CT_VALUE_FLOAT = 3,   /* f */
  CT_VALUE_BOOL = 4,    /* i (0 or 1) */
  CT_VALUE_INTS = 5,    /* ints[0..len); an empty one (len 0) also passes as an empty Tensor[] */
  CT_VALUE_TENSORS = 6, /* tensors[0..len) */
  CT_VALUE_DTYPE = 7,   /* i (a ct_dtype) */
  CT_VALUE_DEVICE = 8,  /* str ("cpu", "meta", "cuda:0") */
  CT_VALUE_STRING = 9,  /* str */
  CT_VALUE_SYMINT = 10, /* a ct_symint, in the tensor slot: fill it with ct_value_set_symint (since 0.5) */
  CT_VALUE_SYMINTS = 11 /* ct_symint handles, in the tensors slot with len: ct_value_set_symints */
} ct_value_kind;

/*
 * The longest list a ct_value may hold (len of CT_VALUE_INTS, CT_VALUE_TENSORS, CT_VALUE_SYMINTS).
 * ct_op_call checks len against it before reading any element, so a garbage len (an uninitialized
 * field, SIZE_MAX) is refused rather than read past. Since 0.9.
 */
#define CT_MAX_LIST_LEN 65536

/* One boxed argument. Every pointer in it is borrowed for the duration of the call; len counts the
 * elements of a list kind (at most CT_MAX_LIST_LEN). */
typedef struct ct_value {
  ct_value_kind kind;
  int64_t i;
  double f;
  const ct_tensor* tensor;
  const int64_t* ints;
  const ct_tensor* const* tensors;
  size_t len;
  const char* str;
} ct_value;

/*
 * ct_result_type - the dtype an operator combining these arguments computes in (torch.result_type):
 * args[0..n) are tensors (CT_VALUE_TENSOR) and numbers (CT_VALUE_INT, CT_VALUE_FLOAT, CT_VALUE_BOOL).
 * Dimensioned tensors, 0-dim tensors and numbers each promote within their group, and a later group
 * counts only when its kind (bool < integer < floating) is higher; a float number counts as the
 * default dtype. No tensor is read.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for n == 0, a NULL args or out, another value kind, or
 * a NULL or released tensor. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_result_type(const ct_value* args, size_t n, ct_dtype* out);

/* Symbolic numbers (see "Symbolic shapes" below); declared here for the value helpers. */
typedef struct ct_symint ct_symint;

/*
 * ct_value_set_symint, ct_value_set_symints - fill v with a symbolic int, or a list of them, for
 * ct_op_call. ct_value's layout is fixed by the ABI, so these kinds travel in its pointer slots;
 * set them through these helpers. The handles are borrowed for the call. Since 0.5.
 */
static inline void ct_value_set_symint(ct_value* v, const ct_symint* s) {
  v->kind = CT_VALUE_SYMINT;
  v->tensor = (const ct_tensor*)(const void*)s;
}
static inline void ct_value_set_symints(ct_value* v, const ct_symint* const* s, size_t n) {
  v->kind = CT_VALUE_SYMINTS;
  v->tensors = (const ct_tensor* const*)(const void*)s;
  v->len = n;
}

/*
 * ct_op_call - call any registered operator by name with boxed arguments.
 *
 * name is "add" (overloads are tried in registration order and the first whose schema accepts the
 * argument kinds wins) or a full "add.Tensor". args are positional in schema order; trailing
 * arguments with defaults may be left out, and CT_VALUE_NONE takes an argument's default. An INT
 * is accepted where a float or Scalar is expected. Operators defined with ct_library_define are
 * reached the same way.
 *
 *   args   borrowed array of nargs values; each list's len is checked (CT_MAX_LIST_LEN) before
 *          its elements are read.
 *   outs   filled with one new reference per return of the schema (nouts must be at least that
 *          many). Only the slots of the returns are written: the first R, R being the most returns
 *          of name's overloads (1 for a NULL or unknown name); on failure those of them below nouts
 *          are NULL. Slots past them are never touched (since 0.9; before, every slot below nouts
 *          was set to NULL, which wrote past an array shorter than nouts claimed).
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  name NULL or unknown (the message lists close names), no overload
 *                              accepts the arguments (the message lists the schemas), too few
 *                              outs, NULL or released tensors inside args, a list longer than
 *                              CT_MAX_LIST_LEN
 *   any status of the operator itself
 * Threads: any thread. Since 0.1. See also ct_op_schema, ct_op_registry_json.
 */
CT_API CT_NODISCARD ct_status ct_op_call(const char* name, const ct_value* args, size_t nargs, ct_tensor** outs,
                                         size_t nouts);

/*
 * ct_op_find, ct_op_call_op - find one overload once, then call it without looking it up again.
 *
 * ct_op_call finds its operator by name on every call; a binding that calls the same overload many
 * times (the generated methods of Rust, Java and Julia) finds it once with ct_op_find and calls the
 * handle. ct_op_call_op takes the arguments and fills the outputs as ct_op_call does for that one
 * overload (defaults, INT for float, the slots it writes, every status).
 *
 *   name  borrowed: a full overload name ("add.Tensor", "sort" for the overload without overload
 *         name beside "sort.stable", "myext::scale"), or a base name with a single overload ("relu").
 *   out   on CT_OK, the overload. The library owns it; it stays valid until the process ends and
 *         is never released. Any thread may call it. Otherwise set to NULL.
 *
 * ct_op_find returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULLs, an unknown name (the message lists
 * close names), or a base name with several overloads and none unnamed ("add": the message lists
 * their full names).
 * ct_op_call_op returns what ct_op_call returns, and CT_ERROR_INVALID_ARGUMENT for a NULL op or
 * one that ct_op_find did not give. Threads: any thread. Since 0.9.
 */
typedef struct ct_op ct_op;
CT_API CT_NODISCARD ct_status ct_op_find(const char* name, const ct_op** out);
CT_API CT_NODISCARD ct_status ct_op_call_op(const ct_op* op, const ct_value* args, size_t nargs, ct_tensor** outs,
                                            size_t nouts);

/*
 * ct_op_schema - the schemas of every overload of name, one per line, e.g.
 * "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor".
 *
 *   out  on CT_OK, a new string; free with ct_string_release.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULLs or an unknown name. Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_op_schema(const char* name, char** out);

/*
 * ct_op_registry_json - every registered operator as one JSON document.
 *
 * {"version": 1, "operators": [{"name": "add", "overload": "Tensor", "schema": "...",
 *   "arguments": [{"name": "self", "type": "Tensor", "kwarg_only": false, "default": null}, ...],
 *   "returns": [{"type": "Tensor", "name": null}], "inplace": false, "view": false,
 *   "builtin": true, "alias_of": null, "backends": {"cpu": {"determinism": "bitwise"}, "meta": {...}},
 *   "derivative": "defined"}, ...]}
 * determinism is "bitwise", "deterministic" or "atomic"; derivative is "defined" (the operator has
 * its own), "implicit" (built from operators that have theirs), "none" (its results are indices
 * or booleans) or "missing" (backward through it fails naming it). A return's name is null unless
 * the schema names it ("-> (Tensor values, Tensor indices)"; since 0.4). alias_of is the full name
 * of the operator this one is another name of ("arccos" of "acos": same arguments, same results),
 * else null (since 0.9). Bindings generate their typed wrappers from it.
 *
 *   out  on CT_OK, a new string; free with ct_string_release.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL out. Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_op_registry_json(char** out);

/* ---- Operators: normalization, losses, attention ---- */

/*
 * ct_reduction - how a loss reduces its per-element values (aten's int reduction; Python's
 * reduction='none' / 'mean' / 'sum').
 *
 *   CT_REDUCTION_NONE  one loss per element (per sample for cross entropy)
 *   CT_REDUCTION_MEAN  their mean (cross entropy with class indices: the weighted mean, divided by
 *                      the sum of the weights of the targets not ignored, as torch)
 *   CT_REDUCTION_SUM   their sum
 * Values are fixed; a value outside them gives CT_ERROR_INVALID_ARGUMENT. Since 0.4.
 */
typedef enum ct_reduction { CT_REDUCTION_NONE = 0, CT_REDUCTION_MEAN = 1, CT_REDUCTION_SUM = 2 } ct_reduction;

/*
 * ct_tensor_softmax / ct_tensor_log_softmax - exp(x - max) / sum(exp(x - max)) along dim, and its
 * logarithm x - max - log(sum(exp(x - max))) (torch.softmax / torch.log_softmax).
 *
 * Each slice along dim is computed in one fused pass (max, exponentials and their sum, scaling),
 * slices in parallel; float16/bfloat16 in float32. A slice holding NaN gives NaN; a slice of -inf
 * only gives NaN, as in torch. The result requires grad when input does.
 *
 *   input  borrowed.
 *   dim    in [-ndim, ndim); a 0-dim input takes -1 or 0.
 *   dtype  NULL: the input's dtype; else the input is converted to *dtype first (which must be
 *          floating), so integer inputs need it.
 *   out    on CT_OK, a new reference; end it with ct_tensor_release. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  input or out is NULL, or input was released
 *   CT_ERROR_INDEX             dim out of range
 *   CT_ERROR_DTYPE             the computation dtype (input's or *dtype) is not floating
 * Threads: any thread. Determinism: bitwise, for any thread count. Since 0.4.
 * See also ct_op_call ("softmax.int", "log_softmax.int").
 */
CT_API CT_NODISCARD ct_status ct_tensor_softmax(const ct_tensor* input, int64_t dim, const ct_dtype* dtype,
                                                ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_tensor_log_softmax(const ct_tensor* input, int64_t dim, const ct_dtype* dtype,
                                                    ct_tensor** out);

/*
 * ct_tensor_layer_norm - (x - mean) / sqrt(var + eps) * weight + bias over the last n dims
 * (torch.nn.functional.layer_norm), mean and biased variance per row of those dims.
 *
 * One fused pass per row, rows in parallel; float16/bfloat16 in float32. The derivative covers
 * input, weight and bias.
 *
 *   input             borrowed; floating.
 *   normalized_shape  n sizes (n >= 1) equal to input's last n sizes; read during the call only.
 *   weight, bias      borrowed, or NULL for none; sizes normalized_shape, input's dtype.
 *   out               on CT_OK, a new reference (input's sizes and dtype). Otherwise NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  input or out NULL, a released handle, normalized_shape NULL with n > 0
 *   CT_ERROR_SHAPE             normalized_shape empty or not input's last sizes; weight or bias
 *                              sizes differ from it
 *   CT_ERROR_DTYPE             integral input, or weight/bias of another dtype
 * Determinism: bitwise. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_layer_norm(const ct_tensor* input, const int64_t* normalized_shape, size_t n,
                                                   const ct_tensor* weight, const ct_tensor* bias, double eps,
                                                   ct_tensor** out);

/*
 * ct_tensor_rms_norm - x / sqrt(mean(x^2) + eps) * weight over the last n dims
 * (torch.nn.functional.rms_norm).
 *
 *   weight  borrowed, or NULL; sizes normalized_shape.
 *   eps     NULL: the machine epsilon of the computation (float32's for float16/bfloat16/float32,
 *           float64's for float64), as torch.
 * Other arguments, out and statuses as ct_tensor_layer_norm. Determinism: bitwise. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_rms_norm(const ct_tensor* input, const int64_t* normalized_shape, size_t n,
                                                 const ct_tensor* weight, const double* eps, ct_tensor** out);

/*
 * ct_tensor_batch_norm - normalize input [N, C, ...] per channel C (torch.nn.functional.batch_norm).
 *
 * training != 0: with the batch's mean and biased variance per channel; running_mean and
 * running_var (when not NULL) are then updated in place, running = (1 - momentum) * running +
 * momentum * batch statistic, the variance unbiased (times count / (count - 1)), as torch. The
 * update is not recorded by autograd. training == 0: with running_mean and running_var, which are
 * then required.
 *
 *   input                      borrowed; floating, at least 2 dims.
 *   weight, bias               borrowed, or NULL; [C].
 *   running_mean, running_var  [C], or NULL; written in training mode.
 *   out                        on CT_OK, a new reference (input's sizes and dtype). Otherwise NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  input or out NULL, a released handle, eval mode without running
 *                              statistics, training with one value per channel
 *   CT_ERROR_SHAPE             input has fewer than 2 dims; a [C] argument of other sizes
 *   CT_ERROR_DTYPE             integral input
 * Threads: running_mean and running_var must not be used by another thread during the call.
 * Determinism: bitwise. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_batch_norm(const ct_tensor* input, const ct_tensor* weight,
                                                   const ct_tensor* bias, ct_tensor* running_mean,
                                                   ct_tensor* running_var, int training, double momentum, double eps,
                                                   ct_tensor** out);

/*
 * ct_tensor_cross_entropy - log_softmax of input along its class dim, then the negative
 * log-likelihood of target (torch.nn.functional.cross_entropy).
 *
 * input is [C] (one sample) or [N, C, d1, ...]. target is either int64 class indices ([] or
 * [N, d1, ...]; an element equal to ignore_index adds nothing and is left out of the mean) or
 * floating class probabilities of input's sizes (ignore_index must then be negative).
 * label_smoothing in [0, 1] mixes each target with the uniform distribution over the C classes.
 *
 *   weight     borrowed, or NULL; [C], the weight of each class.
 *   reduction  CT_REDUCTION_NONE / MEAN / SUM (see ct_reduction for the weighted mean).
 *   out        on CT_OK, a new reference. Otherwise NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULL or released handles, reduction outside ct_reduction,
 *                              label_smoothing outside [0, 1], ignore_index >= 0 with probabilities
 *   CT_ERROR_SHAPE             0-dim input, target sizes that do not fit input, weight not [C]
 *   CT_ERROR_DTYPE             integral input, class indices not int64
 *   CT_ERROR_INDEX             a class index outside [0, C) that is not ignore_index
 * Determinism: bitwise. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_cross_entropy(const ct_tensor* input, const ct_tensor* target,
                                                      const ct_tensor* weight, ct_reduction reduction,
                                                      int64_t ignore_index, double label_smoothing, ct_tensor** out);

/*
 * ct_tensor_mse_loss - (input - target)^2, reduced (torch.nn.functional.mse_loss); input and
 * target broadcast, the result has their promoted floating dtype.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT (NULL or released handles, reduction outside
 * ct_reduction); CT_ERROR_SHAPE (sizes do not broadcast); CT_ERROR_DTYPE (integral inputs).
 * Determinism: bitwise. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_mse_loss(const ct_tensor* input, const ct_tensor* target,
                                                 ct_reduction reduction, ct_tensor** out);

/*
 * ct_tensor_scaled_dot_product_attention - softmax(query @ key^T * scale + mask) @ value, with
 * dropout on the attention weights (torch.nn.functional.scaled_dot_product_attention).
 *
 * query [..., L, E], key [..., S, E], value [..., S, Ev], one floating dtype; batch dims broadcast.
 * When no input requires grad and there is no mask or dropout, float32 runs fused: per batch, one
 * BLAS product into an L x S buffer, softmax in place (scale and causal mask folded in), a second
 * product. Otherwise it runs as operators, which also give the derivative.
 *
 *   attn_mask  borrowed, or NULL; broadcastable to [..., L, S]; bool (false masks a position out)
 *              or query's dtype (added to the scores).
 *   dropout_p  in [0, 1]; 0 draws nothing.
 *   is_causal  non-zero: query i attends to keys 0..i only (top-left aligned); excludes attn_mask.
 *   scale      NULL: 1 / sqrt(E).
 *   gen        the generator for dropout, or NULL for the CPU default generator.
 *   out        on CT_OK, a new reference [..., L, Ev]. Otherwise NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULL or released handles, dropout_p outside [0, 1], attn_mask with
 *                              is_causal, a released gen
 *   CT_ERROR_SHAPE             inputs under 2 dims, E or S differing, mask or batch dims that do not
 *                              broadcast
 *   CT_ERROR_DTYPE             integral or differing dtypes, a mask neither bool nor query's dtype
 * Determinism: deterministic for a fixed thread count (BLAS); dropout follows gen's stream. Since 0.4.
 */
CT_API CT_NODISCARD ct_status ct_tensor_scaled_dot_product_attention(const ct_tensor* query, const ct_tensor* key,
                                                                     const ct_tensor* value,
                                                                     const ct_tensor* attn_mask, double dropout_p,
                                                                     int is_causal, const double* scale,
                                                                     ct_generator* gen, ct_tensor** out);

/* ---- Extending: operators and kernels from C ---- */

/*
 * A kernel written in C. args follow the operator's schema with every default filled in; the
 * kernel writes one new tensor reference per return into outs[0..nouts). On failure it calls
 * ct_error_set(status, message) and returns that status; tensors it already wrote to outs are
 * released by the library.
 *
 * Since 0.7, for a built-in operator with a shape rule ("add.Tensor", "exp", "sum.dim_IntList";
 * not the in-place variants such as "add_.Tensor", nor views), the library first runs that rule,
 * the one every device shares, so invalid arguments fail with the cpu's message and the kernel
 * never sees them. outs[i] then arrive holding new contiguous tensors of the result's sizes, dtype
 * and device; the kernel writes their elements and leaves them there. (A kernel that writes
 * another tensor into outs[i] need not release the one it replaces: the library does.)
 */
typedef ct_status (*ct_kernel_fn)(void* user_data, const ct_value* args, size_t nargs, ct_tensor** outs,
                                  size_t nouts);

/*
 * ct_library_define - register a new operator from its schema, e.g.
 * "myext::scale(Tensor x, float factor=2.0) -> Tensor".
 *
 * Names must carry a namespace ("ns::name") so they never collide with built-in operators. The
 * operator has no kernel until ct_library_impl gives it one.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  schema NULL, without a namespace, or naming an existing overload
 *   CT_ERROR_FORMAT            the schema does not parse (the message points at the position)
 * Threads: any thread; do not define operators while other threads call them. Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_library_define(const char* schema);

/*
 * ct_library_impl - give an operator a kernel for a device ("cpu", "meta", "cuda", or a name
 * from ct_backend_register).
 *
 * Works for operators from ct_library_define and for built-in operators on a device where they
 * have no kernel yet (a built-in kernel is never replaced). Autograd, the profiler and tracing
 * wrap the kernel as they wrap built-in ones.
 * name is "ns::name" or "ns::name.overload". The library retains fn and user_data until the kernel
 * is replaced by another ct_library_impl for the same device, and then calls destroy(user_data);
 * kernels still registered when the process ends are not destroyed. On failure destroy is not
 * called. The kernel is called on any thread.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  name, device or fn NULL; name unknown or naming several overloads;
 *                              a built-in operator that already has a kernel for device
 *   CT_ERROR_DEVICE            an unknown device name
 * Since 0.1.
 */
CT_API CT_NODISCARD ct_status ct_library_impl(const char* name, const char* device, ct_kernel_fn fn,
                                              void* user_data, ct_destroy_fn destroy);

/* ---- Extending: device backends ---- */

/*
 * A device backend in plain C: memory and copies for a new device type, registered under a name.
 * Together with ct_library_impl (kernels for that name) it makes a device: tensors move to it and
 * back with ct_tensor_to_device, factories (ct_tensor_empty) allocate on it, views and meta
 * functions work unchanged, and an operator without a kernel there fails with CT_ERROR_DEVICE
 * naming the operator and the device. A plugin (see "Library: plugins") usually registers its
 * backend and kernels from ct_plugin_init. examples/plugin/counting.c is a complete one.
 *
 * Every function gets the user_data given at registration and a device index in
 * [0, device_count). A failing function calls ct_error_set(status, message) and returns status;
 * that message reaches the caller under the operation that needed it.
 */
typedef struct ct_backend {
  size_t struct_size; /* sizeof(ct_backend) as the plugin was compiled: fields are only appended */
  /* The number of devices of this type (at least 1 for the device to be usable). */
  int32_t (*device_count)(void* user_data);
  /* nbytes (> 0) of device memory into *out; CT_ERROR_OUT_OF_MEMORY when there is none. */
  ct_status (*allocate)(void* user_data, int32_t device_index, size_t nbytes, void** out);
  /* Returns memory from allocate (same index and nbytes). Must not fail. */
  void (*free)(void* user_data, int32_t device_index, void* ptr, size_t nbytes);
  /* Copies nbytes from host memory to device memory, or back; complete when it returns. */
  ct_status (*copy_to_device)(void* user_data, int32_t device_index, void* dst, const void* src, size_t nbytes);
  ct_status (*copy_to_host)(void* user_data, int32_t device_index, void* dst, const void* src, size_t nbytes);
} ct_backend;

/*
 * ct_backend_register - register a device backend under name.
 *
 *   name     borrowed: 1 to 32 lowercase letters, digits or '_', starting with a letter; not
 *            "cpu", "cuda", "meta" or a name registered before. It then parses wherever a
 *            device string is taken ("counting", "counting:1").
 *   backend  borrowed: copied (struct_size bytes of it); every function pointer must be non-NULL.
 *   user_data passed to every function; it must stay valid for the rest of the process: a
 *            backend is never unregistered (tensors on its device may live until exit).
 *   type     on CT_OK, the plugin device type the name now has (CT_DEVICE_PLUGIN1..4); may be NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULL name or backend, a malformed or taken name, a NULL function, a
 *                              struct_size smaller than ctorch 0.7's ct_backend, or all four plugin
 *                              types already registered
 * Threads: any thread; register before other threads use the device. Since 0.7.
 */
CT_API CT_NODISCARD ct_status ct_backend_register(const char* name, const ct_backend* backend, void* user_data,
                                                  ct_device_type* type);

/* How reproducible a kernel is. Values are fixed forever. */
typedef enum ct_determinism {
  CT_DETERMINISM_BITWISE = 0,       /* the same bits for the same inputs, whatever the thread count */
  CT_DETERMINISM_DETERMINISTIC = 1, /* the same bits run to run on one configuration */
  CT_DETERMINISM_ATOMIC = 2         /* may differ run to run (atomic accumulation) */
} ct_determinism;

/*
 * ct_library_set_determinism - declare how reproducible an operator's C kernel for a device is.
 *
 * Kernels from ct_library_impl start as CT_DETERMINISM_DETERMINISTIC. One declared
 * CT_DETERMINISM_ATOMIC is refused (or warned about) under ct_use_deterministic_algorithms, and
 * ct_op_registry_json reports the declaration.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  name or device NULL, an unknown or ambiguous name, a built-in
 *                              operator, no kernel for the device yet, a value outside ct_determinism
 *   CT_ERROR_DEVICE            an unknown device name
 * Threads: as ct_library_impl. Since 0.3.
 */
CT_API CT_NODISCARD ct_status ct_library_set_determinism(const char* name, const char* device,
                                                         ct_determinism determinism);


/* ---- Autograd: gradients ---- */

/*
 * Reverse-mode differentiation, as in PyTorch. A leaf tensor marked with
 * ct_tensor_set_requires_grad makes every operator result computed from it (while grad mode is
 * enabled) require grad too and remember how it was made (its grad_fn). ct_tensor_backward then
 * runs that record backwards and adds d(output)/d(leaf) into each leaf's grad.
 *
 *   ct_tensor_set_requires_grad(w, 1);
 *   ct_tensor_mul(x, w, &y); ct_tensor_sum(y, NULL, 0, 0, &loss);
 *   ct_tensor_backward(loss, NULL, 0);
 *   ct_tensor_grad(w, &g);          // g = x
 *
 * Every built-in operator has its derivative (ct_op_registry_json says which: "derivative").
 * Reaching an operator without one, with an input that requires grad, fails with
 * CT_ERROR_NOT_IMPLEMENTED naming it. Backward runs on the calling thread. Threads may record and
 * run backward through graphs that share leaves (their gradients add up safely), but changing a
 * tensor's autograd settings (requires_grad, grad, hooks) while other threads use it is a race.
 */

/*
 * ct_tensor_set_requires_grad - mark a leaf tensor as one whose gradient backward computes.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULL or released t; clearing it on a non-leaf (take
 *                              ct_tensor_detach instead); an inference tensor outside inference mode
 *   CT_ERROR_DTYPE             requires_grad on a tensor that is not floating
 * Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_tensor_set_requires_grad(ct_tensor* t, int requires_grad);

/*
 * ct_tensor_requires_grad / ct_tensor_is_leaf - write 1 or 0 to out.
 *
 * A leaf is a tensor no recorded operator produced: made by the user, or computed while nothing
 * required grad. Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL arguments. Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_tensor_requires_grad(const ct_tensor* t, int* out);
CT_API CT_NODISCARD ct_status ct_tensor_is_leaf(const ct_tensor* t, int* out);

/*
 * ct_tensor_grad - the gradient accumulated into t by backward (a new reference), or NULL in
 * *out when there is none yet. Non-leaf tensors keep a gradient only after ct_tensor_retain_grad.
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL arguments. Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_tensor_grad(const ct_tensor* t, ct_tensor** out);

/*
 * ct_tensor_set_grad - replace t's gradient (NULL clears it, as zero_grad does).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL or released t; CT_ERROR_SHAPE when grad's
 * sizes, dtype or device differ from t's. Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_tensor_set_grad(ct_tensor* t, const ct_tensor* grad);

/*
 * ct_tensor_retain_grad - keep a non-leaf tensor's gradient in its grad after backward (a no-op
 * on leaves). Returns CT_OK; CT_ERROR_INVALID_ARGUMENT when t does not require grad. Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_tensor_retain_grad(ct_tensor* t);

/*
 * ct_tensor_retains_grad - write 1 to out when ct_tensor_retain_grad was called on the non-leaf t,
 * else 0 (torch's Tensor.retains_grad). ct_tensor_output_nr - which result of the operator that
 * made t it is (0 for a leaf and for an operator's only result; torch's Tensor.output_nr).
 * Return CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL arguments. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_tensor_retains_grad(const ct_tensor* t, int* out);
CT_API CT_NODISCARD ct_status ct_tensor_output_nr(const ct_tensor* t, int64_t* out);

/*
 * ct_tensor_grad_fn_name - the name of the node that made t ("MulBackward", "AddmmBackward", a
 * custom function's name + "Backward") as a new string (free with ct_string_release), or NULL in
 * *out for a leaf. Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL arguments. Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_tensor_grad_fn_name(const ct_tensor* t, char** out);

/*
 * ct_tensor_detach - a new tensor sharing t's elements that does not require grad and has no
 * history. In-place changes to either are seen by both. Returns CT_OK; CT_ERROR_INVALID_ARGUMENT
 * for NULL arguments. Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_tensor_detach(const ct_tensor* t, ct_tensor** out);

/* Flags for ct_tensor_backward, ct_autograd_backward and ct_autograd_grad (or them together). */
#define CT_GRAD_RETAIN_GRAPH 1 /* keep saved tensors, so backward can run through the graph again */
#define CT_GRAD_CREATE_GRAPH 2 /* record the backward computation: gradients that themselves require
                                  grad, for second and higher derivatives (implies RETAIN_GRAPH) */
#define CT_GRAD_ALLOW_UNUSED 4 /* ct_autograd_grad: an input the outputs do not depend on gets NULL
                                  instead of an error */

/*
 * ct_tensor_backward - add the gradient of output with respect to every leaf it depends on into
 * those leaves' grad.
 *
 *   grad   d(loss)/d(output), of output's sizes; NULL means 1, allowed only for one element.
 *   flags  CT_GRAD_RETAIN_GRAPH, CT_GRAD_CREATE_GRAPH, or 0.
 *
 * Without CT_GRAD_RETAIN_GRAPH the tensors saved for backward are freed as it goes, and a second
 * backward through the same graph fails with CT_ERROR_INVALID_ARGUMENT.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULL or released handles; output does not require grad; a second
 *                              backward through a freed graph; a tensor saved for backward was
 *                              changed in place since (the message names the node and versions)
 *   CT_ERROR_SHAPE             grad NULL for an output of several elements, or of other sizes
 *   any status a hook or custom function's callback reported, with its message
 * Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_tensor_backward(const ct_tensor* output, const ct_tensor* grad, int flags);

/*
 * ct_autograd_backward - ct_tensor_backward from several outputs at once (their gradients add up).
 * grads is NULL (every output has one element) or holds n entries, each NULL or a gradient.
 * Returns as ct_tensor_backward. Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_autograd_backward(const ct_tensor* const* outputs, const ct_tensor* const* grads,
                                                   size_t n, int flags);

/*
 * ct_autograd_grad - the gradients of outputs with respect to inputs, returned instead of being
 * accumulated into any grad (torch.autograd.grad).
 *
 *   outputs, n_outputs  the tensors to differentiate; grad_outputs NULL or n_outputs entries, as
 *                       in ct_autograd_backward
 *   inputs, n_inputs    tensors that require grad
 *   flags               CT_GRAD_RETAIN_GRAPH, CT_GRAD_CREATE_GRAPH, CT_GRAD_ALLOW_UNUSED
 *   grads               n_inputs slots; on CT_OK each holds a new reference, or NULL for an unused
 *                       input under CT_GRAD_ALLOW_UNUSED. All NULL on failure.
 *
 * With CT_GRAD_CREATE_GRAPH the gradients require grad themselves, so ct_autograd_grad of them
 * gives second derivatives.
 *
 * Returns as ct_tensor_backward, and CT_ERROR_INVALID_ARGUMENT for an input that does not require
 * grad, or one the outputs do not depend on without CT_GRAD_ALLOW_UNUSED. Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_autograd_grad(const ct_tensor* const* outputs, const ct_tensor* const* grad_outputs,
                                               size_t n_outputs, const ct_tensor* const* inputs, size_t n_inputs,
                                               int flags, ct_tensor** grads);

/* ---- Autograd: grad modes ---- */

/*
 * The calling thread's grad mode. NO_GRAD: operators record nothing (for evaluation, and for
 * updating parameters in place). ENABLED: the default. INFERENCE: like NO_GRAD, and every result
 * is an inference tensor, which can never be saved for backward later (it is cheaper to make);
 * changing an inference tensor in place outside inference mode is refused.
 */
typedef enum ct_grad_mode {
  CT_GRAD_MODE_NO_GRAD = 0,
  CT_GRAD_MODE_ENABLED = 1,
  CT_GRAD_MODE_INFERENCE = 2
} ct_grad_mode;

/*
 * ct_grad_mode_set - set this thread's grad mode; the mode it replaces goes to *previous (may be
 * NULL). Restore it with ct_grad_mode_set(previous, NULL) to make a scope:
 *
 *   ct_grad_mode prev;
 *   ct_grad_mode_set(CT_GRAD_MODE_NO_GRAD, &prev);
 *   ... evaluate ...
 *   ct_grad_mode_set(prev, NULL);
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for an unknown mode. Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_grad_mode_set(ct_grad_mode mode, ct_grad_mode* previous);

/* ct_grad_mode_get - this thread's grad mode. Since 0.2. */
CT_API ct_grad_mode ct_grad_mode_get(void);

/*
 * ct_set_anomaly_enabled - torch.autograd's anomaly detection (torch.set_anomaly_enabled,
 * autograd.detect_anomaly). While enabled with check_nan nonzero, every backward node's gradients
 * are checked as they are produced, and the first that holds a NaN fails backward with
 * CT_ERROR_INVALID_ARGUMENT: "Function 'MulBackward0' returned nan values in its 0th output". (The
 * check reads every gradient: backward runs slower.) torch also records each operator's Python
 * traceback in this mode; ctorch names the node only. ct_is_anomaly_enabled and
 * ct_is_anomaly_check_nan_enabled report the settings (check_nan only counts while enabled).
 * Process-wide; off at start. Threads: any thread. Since 0.9.
 */
CT_API void ct_set_anomaly_enabled(int enabled, int check_nan);
CT_API int ct_is_anomaly_enabled(void);
CT_API int ct_is_anomaly_check_nan_enabled(void);

/*
 * ct_tensor_is_inference - write 1 to out when t was made in inference mode, else 0.
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL arguments. Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_tensor_is_inference(const ct_tensor* t, int* out);

/* ---- Autograd: hooks ---- */

/*
 * A hook sees the gradient computed for a tensor before it is used (accumulated into a leaf's
 * grad, or passed on through the graph). It may write a replacement of the same sizes to
 * *replacement (a new reference the library takes over) or leave it NULL to keep grad. grad is
 * borrowed for the call. On failure it calls ct_error_set and returns that status; backward then
 * stops with it.
 */
typedef ct_status (*ct_hook_fn)(void* user_data, const ct_tensor* grad, ct_tensor** replacement);

/*
 * ct_tensor_register_hook - run fn on t's gradient during every later backward; *id names the hook
 * for ct_tensor_remove_hook. The library keeps user_data until the hook is removed or the graph
 * or tensor holding it goes, then calls destroy(user_data) (destroy may be NULL). On failure
 * destroy is called before returning. The hook runs on the thread that runs backward.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL arguments or a t that does not require grad.
 * Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_tensor_register_hook(ct_tensor* t, ct_hook_fn fn, void* user_data,
                                                      ct_destroy_fn destroy, int64_t* id);

/*
 * ct_tensor_remove_hook - remove a hook registered on t. Returns CT_OK; CT_ERROR_INVALID_ARGUMENT
 * for a NULL or released t or an id not registered on t. Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_tensor_remove_hook(ct_tensor* t, int64_t id);

/* ---- Autograd: custom functions ---- */

/* What a custom function's forward and backward share: the tensors forward saved. */
typedef struct ct_autograd_ctx ct_autograd_ctx;

/*
 * A custom function's forward: reads n_inputs borrowed inputs, writes n_outputs new references
 * to outputs, and may save tensors for backward with ct_autograd_ctx_save. It runs with grad mode
 * off. On failure it calls ct_error_set and returns that status (outputs it wrote are released).
 */
typedef ct_status (*ct_function_forward_fn)(void* user_data, ct_autograd_ctx* ctx, const ct_tensor* const* inputs,
                                            size_t n_inputs, ct_tensor** outputs, size_t n_outputs);
/*
 * A custom function's backward: reads one borrowed gradient per output (zeros for an output no
 * gradient reached), writes one new reference per input to grad_inputs, or leaves NULL for an
 * input that gets no gradient. A gradient may have the broadcast sizes of its input; it is summed
 * back. When backward is recorded (CT_GRAD_CREATE_GRAPH) the operators it calls are recorded too.
 */
typedef ct_status (*ct_function_backward_fn)(void* user_data, ct_autograd_ctx* ctx,
                                             const ct_tensor* const* grad_outputs, size_t n_outputs,
                                             ct_tensor** grad_inputs, size_t n_inputs);

/*
 * ct_autograd_function_apply - run a differentiable function given by its forward and backward
 * (torch.autograd.Function).
 *
 * Calls forward(user_data, ctx, inputs...) once. When some input requires grad and grad mode is
 * enabled, the floating outputs require grad with a node named name + "Backward" that calls
 * backward during backward. user_data lives as long as that node, then destroy(user_data) runs;
 * when nothing was recorded, or on failure, destroy runs before this returns. A forward that
 * returns one of its inputs gets a new tensor over the same elements.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULL arguments; forward left an output NULL
 *   any status forward reported, its message nested under name
 * Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_autograd_function_apply(const char* name, ct_function_forward_fn forward,
                                                         ct_function_backward_fn backward, void* user_data,
                                                         ct_destroy_fn destroy, const ct_tensor* const* inputs,
                                                         size_t n_inputs, ct_tensor** outputs, size_t n_outputs);

/*
 * ct_autograd_ctx_save - in forward: keep t for backward (t is retained; an output is kept
 * without creating a reference cycle). Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL
 * arguments, or outside forward. Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_autograd_ctx_save(ct_autograd_ctx* ctx, const ct_tensor* t);

/*
 * ct_autograd_ctx_saved - in backward: the i-th saved tensor (a new reference), and
 * ct_autograd_ctx_saved_count how many there are.
 *
 * Returns CT_OK; CT_ERROR_INDEX for i out of range; CT_ERROR_INVALID_ARGUMENT for NULL arguments,
 * outside backward, when the graph was already freed, or when the tensor was changed in place
 * since forward. Since 0.2.
 */
CT_API CT_NODISCARD ct_status ct_autograd_ctx_saved(ct_autograd_ctx* ctx, size_t i, ct_tensor** out);
CT_API CT_NODISCARD ct_status ct_autograd_ctx_saved_count(ct_autograd_ctx* ctx, size_t* out);

/* ---- Symbolic shapes: the ShapeEnv ---- */

/*
 * Symbolic shapes. A ct_shape_env owns symbols (s0, "batch": a size known by its range and a hint,
 * its value when the program was traced; u0: an unbacked value known only at run time, from item())
 * and every expression built over them. ct_symint, ct_symfloat and ct_symbool are numbers that are
 * either concrete or such an expression: arithmetic on them builds simplified expressions
 * (2*s0 + 1, max(s0, 1) -> s0 when s0 >= 1, (4*s0)//4 -> s0), with Python's rules for // and % of
 * negatives. Asking a symbolic bool or int for its concrete value (ct_symbool_guard_bool,
 * ct_symint_guard_int, and operators that must decide a size) answers from the hints and records a
 * guard: a fact the answer relied on, so a program traced under these symbols is valid exactly for
 * the bindings where every guard holds. ct_sym_max, ct_sym_min, ct_sym_sum, ct_sym_ite and
 * ct_sym_not build expressions instead and record none.
 *
 * A meta tensor may have symbolic sizes (ct_tensor_empty_symbolic): operators on it compute
 * symbolic output shapes with the same meta functions that check every real call. An operator that
 * has no symbolic shape rule fails with CT_ERROR_GUARD naming the tensor's sizes.
 *
 * Ownership: every handle written through an out-parameter is a new reference; end it with the
 * matching _release (NULL is a no-op). A symbolic number keeps its env alive. Handles of one env
 * may be used from several threads (the env locks); numbers of two envs cannot be combined
 * (CT_ERROR_INVALID_ARGUMENT). Since 0.5.
 */
typedef struct ct_shape_env ct_shape_env;
typedef struct ct_symfloat ct_symfloat;
typedef struct ct_symbool ct_symbool;

/*
 * ct_shape_env_create - a new, empty ShapeEnv.
 *
 *   out  on CT_OK, a new reference; end it with ct_shape_env_release. Otherwise set to NULL.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL out; CT_ERROR_OUT_OF_MEMORY. Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_shape_env_create(ct_shape_env** out);
/* ct_shape_env_retain adds a reference; ct_shape_env_release ends one (NULL is a no-op). Since 0.5. */
CT_API CT_NODISCARD ct_status ct_shape_env_retain(ct_shape_env* env);
CT_API void ct_shape_env_release(ct_shape_env* env);

/*
 * ct_shape_env_create_symbol - a new size symbol with a range and a hint, like Dim("batch", min=1,
 * max=1024) traced at size 8.
 *
 * name NULL or "" gives "s<k>" (k counts the env's backed symbols). The symbol's value is known to
 * lie in [min, max] (use INT64_MAX for no upper end); hint is its value in the run being traced,
 * which decides guards.
 *
 *   env  borrowed (the symbol keeps it alive).
 *   out  on CT_OK, a new reference; end it with ct_symint_release. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  env or out NULL or released, min > max, or hint outside [min, max]
 * Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_shape_env_create_symbol(ct_shape_env* env, const char* name, int64_t hint,
                                                         int64_t min, int64_t max, ct_symint** out);

/*
 * ct_shape_env_create_unbacked - a new unbacked int symbol (u<k>): a value known only when the
 * program runs, such as item() of a traced tensor. It has no hint, so branching on it fails with
 * CT_ERROR_GUARD; a requirement on it (a size must be >= 0) becomes a runtime assertion instead
 * (listed by ct_shape_env_guards_json). Ownership as ct_shape_env_create_symbol. Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_shape_env_create_unbacked(ct_shape_env* env, ct_symint** out);

/*
 * ct_shape_env_num_symbols - how many symbols env has (backed and unbacked); the length of a binding.
 * ct_shape_env_num_guards - how many distinct guards env has recorded.
 * ct_shape_env_guard_requests - how many times a concrete answer was asked of a symbolic value that
 * the recorded facts did not already decide (before deduplication: two asks of `s0 % 3 == 2` are
 * two requests and one guard; after `s0 > 1` is recorded, asking `s0 >= 2` is no request at all).
 * Return CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released arguments. Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_shape_env_num_symbols(const ct_shape_env* env, size_t* out);
CT_API CT_NODISCARD ct_status ct_shape_env_num_guards(const ct_shape_env* env, size_t* out);
CT_API CT_NODISCARD ct_status ct_shape_env_guard_requests(const ct_shape_env* env, uint64_t* out);

/*
 * ct_shape_env_guards_json - env's symbols, guards and runtime assertions as one JSON document:
 * {"symbols": [{"name": "s0", "type": "int", "backed": true, "hint": 8, "min": 1, "max": 1024}, ...],
 *  "guards": ["s0 >= 2", ...], "runtime_asserts": [{"expr": "u0 >= 0", "message": "..."}, ...]}.
 * Each expression is Python-style text over the symbols' names.
 *
 *   out  on CT_OK, a new string; free it with ct_string_release. Otherwise NULL.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released arguments. Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_shape_env_guards_json(const ct_shape_env* env, char** out);

/*
 * ct_shape_env_check_guards - evaluates every guard and runtime assertion of env under a binding.
 *
 * values holds one value per symbol, in creation order (n must equal ct_shape_env_num_symbols).
 * *failing is -1 when all hold, else the index of the first that fails (guards first, then runtime
 * assertions, in the order of ct_shape_env_guards_json). Reads only: no guard is recorded.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULL or released arguments, n not the number of symbols, or a
 *                              division by zero or int64 overflow under this binding
 * Threads: any thread, concurrently with other readers of env. Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_shape_env_check_guards(const ct_shape_env* env, const int64_t* values, size_t n,
                                                        int64_t* failing);

/* ---- Symbolic shapes: SymInt, SymFloat, SymBool ---- */

/*
 * ct_symint_from_int, ct_symfloat_from_double, ct_symbool_from_bool - a concrete number as a handle
 * (to mix with symbolic ones, or to pass in CT_VALUE_SYMINTS lists).
 *
 *   out  on CT_OK, a new reference; end it with the type's _release. Otherwise set to NULL.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL out, or an int below -2^62 (that range is
 * reserved; no size, stride or index reaches it). Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_symint_from_int(int64_t value, ct_symint** out);
CT_API CT_NODISCARD ct_status ct_symfloat_from_double(double value, ct_symfloat** out);
CT_API CT_NODISCARD ct_status ct_symbool_from_bool(int value, ct_symbool** out);

/* _retain adds a reference (CT_ERROR_INVALID_ARGUMENT for NULL or released); _release ends one
 * (NULL is a no-op). Since 0.5. */
CT_API CT_NODISCARD ct_status ct_symint_retain(ct_symint* s);
CT_API void ct_symint_release(ct_symint* s);
CT_API CT_NODISCARD ct_status ct_symfloat_retain(ct_symfloat* s);
CT_API void ct_symfloat_release(ct_symfloat* s);
CT_API CT_NODISCARD ct_status ct_symbool_retain(ct_symbool* s);
CT_API void ct_symbool_release(ct_symbool* s);

/*
 * ct_symint_is_symbolic (and _symfloat_, _symbool_) - *out = 1 when s holds an expression, 0 when
 * it is a plain number (an expression that simplified to a constant is plain).
 * ct_symint_maybe_int (and ct_symfloat_maybe_double, ct_symbool_maybe_bool) - *is_concrete = 1 and
 * *value the number when s is plain; *is_concrete = 0 and *value untouched otherwise. No guard.
 * Return CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released arguments. Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_symint_is_symbolic(const ct_symint* s, int* out);
CT_API CT_NODISCARD ct_status ct_symfloat_is_symbolic(const ct_symfloat* s, int* out);
CT_API CT_NODISCARD ct_status ct_symbool_is_symbolic(const ct_symbool* s, int* out);
CT_API CT_NODISCARD ct_status ct_symint_maybe_int(const ct_symint* s, int64_t* value, int* is_concrete);
CT_API CT_NODISCARD ct_status ct_symfloat_maybe_double(const ct_symfloat* s, double* value, int* is_concrete);
CT_API CT_NODISCARD ct_status ct_symbool_maybe_bool(const ct_symbool* s, int* value, int* is_concrete);

/*
 * ct_symint_guard_int, ct_symfloat_guard_float, ct_symbool_guard_bool - the concrete value, as
 * `int(n)` or `if (b)` would need it. A symbolic value is evaluated under the hints and the fact
 * relied on is recorded as a guard (`s0 == 8` for an int; `s0 >= 2` or its negation for a bool).
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULL or released arguments
 *   CT_ERROR_GUARD             the value depends on an unbacked symbol (no hint): use ct_sym_ite /
 *                              ct_sym_max instead of branching
 * Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_symint_guard_int(const ct_symint* s, int64_t* out);
CT_API CT_NODISCARD ct_status ct_symfloat_guard_float(const ct_symfloat* s, double* out);
CT_API CT_NODISCARD ct_status ct_symbool_guard_bool(const ct_symbool* s, int* out);

/*
 * ct_symint_to_string (and _symfloat_, _symbool_) - Python-style text: "2*s0 + 1", "s0 >= 2",
 * "max(s0, s1)", "s0//4", or the plain number ("True"/"False" for a bool).
 *
 *   out  on CT_OK, a new string; free it with ct_string_release. Otherwise NULL.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released arguments. Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_symint_to_string(const ct_symint* s, char** out);
CT_API CT_NODISCARD ct_status ct_symfloat_to_string(const ct_symfloat* s, char** out);
CT_API CT_NODISCARD ct_status ct_symbool_to_string(const ct_symbool* s, char** out);

/*
 * ct_symint_evaluate (and ct_symfloat_evaluate, ct_symbool_evaluate) - s's value under a binding
 * of its env's symbols (values: one per symbol in creation order, n = ct_shape_env_num_symbols;
 * a float symbol takes its value converted to double). A plain number ignores the binding (values
 * may then be NULL). Records nothing.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULL or released arguments, a binding of the wrong length, or a
 *                              division by zero or int64 overflow under it
 * Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_symint_evaluate(const ct_symint* s, const int64_t* values, size_t n,
                                                 int64_t* out);
CT_API CT_NODISCARD ct_status ct_symfloat_evaluate(const ct_symfloat* s, const int64_t* values, size_t n,
                                                   double* out);
CT_API CT_NODISCARD ct_status ct_symbool_evaluate(const ct_symbool* s, const int64_t* values, size_t n, int* out);

/*
 * Arithmetic on symbolic ints: a + b, a - b, a * b, a // b and a % b (Python's: floor division,
 * the remainder takes the divisor's sign), a ** b (b >= 0), min and max, -a; and a / b, a float.
 * Concrete operands give concrete results; symbolic ones a simplified expression. No guard is
 * recorded.
 *
 *   a, b  borrowed.
 *   out   on CT_OK, a new reference. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULL or released arguments, operands of two envs, division by a
 *                              zero constant, a negative constant exponent, an int64 overflow
 * Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_symint_add(const ct_symint* a, const ct_symint* b, ct_symint** out);
CT_API CT_NODISCARD ct_status ct_symint_sub(const ct_symint* a, const ct_symint* b, ct_symint** out);
CT_API CT_NODISCARD ct_status ct_symint_mul(const ct_symint* a, const ct_symint* b, ct_symint** out);
CT_API CT_NODISCARD ct_status ct_symint_floordiv(const ct_symint* a, const ct_symint* b, ct_symint** out);
CT_API CT_NODISCARD ct_status ct_symint_mod(const ct_symint* a, const ct_symint* b, ct_symint** out);
CT_API CT_NODISCARD ct_status ct_symint_pow(const ct_symint* a, const ct_symint* b, ct_symint** out);
CT_API CT_NODISCARD ct_status ct_symint_min(const ct_symint* a, const ct_symint* b, ct_symint** out);
CT_API CT_NODISCARD ct_status ct_symint_max(const ct_symint* a, const ct_symint* b, ct_symint** out);
CT_API CT_NODISCARD ct_status ct_symint_neg(const ct_symint* a, ct_symint** out);
CT_API CT_NODISCARD ct_status ct_symint_truediv(const ct_symint* a, const ct_symint* b, ct_symfloat** out);

/*
 * Comparisons of symbolic ints: a == b, a != b, a < b, a <= b, a > b, a >= b, as a ct_symbool.
 * A comparison the symbols' ranges decide is a plain bool (s0 >= 0 for a size); otherwise an
 * expression, and no guard is recorded until someone asks for its value. Ownership and statuses as
 * for the arithmetic above. Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_symint_eq(const ct_symint* a, const ct_symint* b, ct_symbool** out);
CT_API CT_NODISCARD ct_status ct_symint_ne(const ct_symint* a, const ct_symint* b, ct_symbool** out);
CT_API CT_NODISCARD ct_status ct_symint_lt(const ct_symint* a, const ct_symint* b, ct_symbool** out);
CT_API CT_NODISCARD ct_status ct_symint_le(const ct_symint* a, const ct_symint* b, ct_symbool** out);
CT_API CT_NODISCARD ct_status ct_symint_gt(const ct_symint* a, const ct_symint* b, ct_symbool** out);
CT_API CT_NODISCARD ct_status ct_symint_ge(const ct_symint* a, const ct_symint* b, ct_symbool** out);

/*
 * Arithmetic and comparisons of symbolic floats: + - * / (true division), // and % (Python's),
 * ** , min, max, and the six comparisons. Ownership and statuses as for ct_symint_add. Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_symfloat_add(const ct_symfloat* a, const ct_symfloat* b, ct_symfloat** out);
CT_API CT_NODISCARD ct_status ct_symfloat_sub(const ct_symfloat* a, const ct_symfloat* b, ct_symfloat** out);
CT_API CT_NODISCARD ct_status ct_symfloat_mul(const ct_symfloat* a, const ct_symfloat* b, ct_symfloat** out);
CT_API CT_NODISCARD ct_status ct_symfloat_truediv(const ct_symfloat* a, const ct_symfloat* b, ct_symfloat** out);
CT_API CT_NODISCARD ct_status ct_symfloat_floordiv(const ct_symfloat* a, const ct_symfloat* b, ct_symfloat** out);
CT_API CT_NODISCARD ct_status ct_symfloat_mod(const ct_symfloat* a, const ct_symfloat* b, ct_symfloat** out);
CT_API CT_NODISCARD ct_status ct_symfloat_pow(const ct_symfloat* a, const ct_symfloat* b, ct_symfloat** out);
CT_API CT_NODISCARD ct_status ct_symfloat_min(const ct_symfloat* a, const ct_symfloat* b, ct_symfloat** out);
CT_API CT_NODISCARD ct_status ct_symfloat_max(const ct_symfloat* a, const ct_symfloat* b, ct_symfloat** out);
CT_API CT_NODISCARD ct_status ct_symfloat_eq(const ct_symfloat* a, const ct_symfloat* b, ct_symbool** out);
CT_API CT_NODISCARD ct_status ct_symfloat_ne(const ct_symfloat* a, const ct_symfloat* b, ct_symbool** out);
CT_API CT_NODISCARD ct_status ct_symfloat_lt(const ct_symfloat* a, const ct_symfloat* b, ct_symbool** out);
CT_API CT_NODISCARD ct_status ct_symfloat_le(const ct_symfloat* a, const ct_symfloat* b, ct_symbool** out);
CT_API CT_NODISCARD ct_status ct_symfloat_gt(const ct_symfloat* a, const ct_symfloat* b, ct_symbool** out);
CT_API CT_NODISCARD ct_status ct_symfloat_ge(const ct_symfloat* a, const ct_symfloat* b, ct_symbool** out);

/*
 * ct_symbool_and, ct_symbool_or - a and b, a or b (flattened, deduplicated; a constant operand
 * decides or drops out). Ownership and statuses as for ct_symint_add. Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_symbool_and(const ct_symbool* a, const ct_symbool* b, ct_symbool** out);
CT_API CT_NODISCARD ct_status ct_symbool_or(const ct_symbool* a, const ct_symbool* b, ct_symbool** out);

/*
 * Builders that never guard: ct_sym_max / ct_sym_min / ct_sym_sum of n ints as one n-ary
 * expression (ct_sym_sum of none is 0; max and min need n >= 1), ct_sym_ite (c ? a : b),
 * ct_sym_ite_float, ct_sym_not, ct_sym_float (int to float) and ct_sym_int (float to int,
 * truncating toward zero). On plain numbers they are plain arithmetic.
 *
 *   xs   borrowed array of n handles.
 *   out  on CT_OK, a new reference. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULL or released arguments, operands of two envs, no operand for
 *                              max/min, a float that does not fit an int64 for ct_sym_int
 * Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_sym_max(const ct_symint* const* xs, size_t n, ct_symint** out);
CT_API CT_NODISCARD ct_status ct_sym_min(const ct_symint* const* xs, size_t n, ct_symint** out);
CT_API CT_NODISCARD ct_status ct_sym_sum(const ct_symint* const* xs, size_t n, ct_symint** out);
CT_API CT_NODISCARD ct_status ct_sym_ite(const ct_symbool* c, const ct_symint* a, const ct_symint* b, ct_symint** out);
CT_API CT_NODISCARD ct_status ct_sym_ite_float(const ct_symbool* c, const ct_symfloat* a, const ct_symfloat* b,
                                               ct_symfloat** out);
CT_API CT_NODISCARD ct_status ct_sym_not(const ct_symbool* b, ct_symbool** out);
CT_API CT_NODISCARD ct_status ct_sym_float(const ct_symint* a, ct_symfloat** out);
CT_API CT_NODISCARD ct_status ct_sym_int(const ct_symfloat* a, ct_symint** out);

/* ---- Symbolic shapes: tensors ---- */

/*
 * ct_tensor_empty_symbolic - a meta tensor (no data) whose sizes may be symbolic, contiguous, of
 * dtype. Operators on it run their meta functions with the symbols and give tensors with symbolic
 * output sizes (linear: [s0, 100] x [50, 100] -> [s0, 50]), recording the guards the shape rules
 * needed in the symbols' env. Symbolic sizes must be >= 0 (a guard, or a runtime assertion for an
 * unbacked size).
 *
 *   sizes  borrowed array of ndim handles (plain ones allowed; all symbolic ones of one env).
 *   out    on CT_OK, a new reference; end it with ct_tensor_release. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  out NULL, sizes NULL with ndim > 0, a NULL or released size,
 *                              sizes of two envs, a negative size, more than 64 dims, a dtype
 *                              outside ct_dtype
 * Since 0.5. See also ct_tensor_sym_size.
 */
CT_API CT_NODISCARD ct_status ct_tensor_empty_symbolic(const ct_symint* const* sizes, size_t ndim, ct_dtype dtype,
                                                       ct_tensor** out);

/*
 * ct_tensor_is_symbolic - *out = 1 when t has a symbolic size, stride, element count or offset.
 * Such a tensor answers ct_tensor_sizes, ct_tensor_size and ct_tensor_numel with CT_ERROR_GUARD;
 * read it with the ct_tensor_sym_* functions. Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or
 * released arguments. Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_tensor_is_symbolic(const ct_tensor* t, int* out);

/*
 * ct_tensor_sym_size, ct_tensor_sym_stride - size or stride of dim (negative counts from the end);
 * ct_tensor_sym_numel - the element count. Plain numbers for a tensor without symbols.
 *
 *   out  on CT_OK, a new reference; end it with ct_symint_release. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  t or out NULL, or t released
 *   CT_ERROR_INDEX             dim out of range
 * Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_tensor_sym_size(const ct_tensor* t, int64_t dim, ct_symint** out);
CT_API CT_NODISCARD ct_status ct_tensor_sym_stride(const ct_tensor* t, int64_t dim, ct_symint** out);
CT_API CT_NODISCARD ct_status ct_tensor_sym_numel(const ct_tensor* t, ct_symint** out);

/*
 * ct_tensor_sym_item - the value of a one-element integer or bool meta tensor that belongs to a
 * ShapeEnv (one made from symbolic sizes, or computed from one): a new unbacked symbol u<k> of that
 * env, the data-dependent value the tensor will hold when the program runs. It may size other
 * tensors and serve as topk's k; requirements on it become runtime assertions.
 *
 *   out  on CT_OK, a new reference; end it with ct_symint_release. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  t or out NULL, t released, or t has more than one element
 *   CT_ERROR_DTYPE             t is floating point
 *   CT_ERROR_DEVICE            t is not a meta tensor of a ShapeEnv (for data use ct_tensor_item)
 * Since 0.5.
 */
CT_API CT_NODISCARD ct_status ct_tensor_sym_item(const ct_tensor* t, ct_symint** out);

/* ---- Compilation: ct_compile ---- */

/*
 * Compilation (torch.compile for C). ct_compile wraps a function that computes outputs from inputs
 * with ctorch operators. On a call, ct_compiled_call looks for a cached graph whose guards hold for
 * the inputs (dtype, device, rank, requires_grad, layout, static sizes, the symbolic relations
 * recorded while tracing, and the global switches: grad mode, deterministic mode, default dtype
 * and device, matmul precision). On a miss it traces: the function runs once on proxy tensors (meta
 * tensors of the inputs' dtypes, no data), every operator it calls is recorded into a graph, the
 * graph is optimized (dead code, common subexpressions, constant folding) and, with the default
 * "fused" backend, chains of pointwise operators and the last-dim reductions that end them become
 * one kernel: on the cpu, loops over cache-sized tiles; on cuda (since 0.7), CUDA C generated for
 * the chain and compiled with NVRTC once per architecture. Then the graph runs on the real inputs.
 *
 * Dynamic shapes: with dynamic automatic (the default) the first trace is static; a size that
 * changes on a later call becomes a symbol, and the new graph serves every size >= 2 of that dim.
 * Inside the traced function ct_tensor_size and friends return plain integers and specialize a
 * symbolic size (the graph then requires that value); ct_tensor_sym_size keeps it symbolic.
 *
 * Graph breaks: reading a proxy's data (ct_tensor_item, ct_tensor_copy_to, ct_tensor_data_ptr,
 * ct_tensor_to_string, DLPack export) fails inside the traced function with CT_ERROR_GRAPH_BREAK.
 * A trace that fails (that way or any other) is a graph break: under fullgraph ct_compiled_call
 * returns CT_ERROR_GRAPH_BREAK naming the operation; otherwise that input signature runs the
 * function eagerly from then on, a warning says why once, and the metric graph_breaks counts it.
 * After recompile_limit entries, calls that miss run eagerly (a warning once; under fullgraph
 * CT_ERROR_RECOMPILE_LIMIT).
 *
 * Autograd: when an input (or a captured tensor) requires grad and grad mode is on, the backward is
 * compiled too (since 0.9), as torch.compile's AOTAutograd does: the function is traced once more
 * with autograd live into one forward and backward graph, which is split into a forward graph
 * (returning, after the outputs, the values the backward reads) and a backward graph, each
 * optimized and fused. A call runs the forward graph and links the outputs to one backward node,
 * CompiledFunctionBackward, that runs the backward graph; the operators are those eager autograd
 * records, so gradients equal eager gradients. That backward is not itself differentiable: a
 * backward with create_graph through it fails with CT_ERROR_NOT_IMPLEMENTED, as under torch.compile
 * (compile with the option fusion=false for higher derivatives). An entry with symbolic sizes
 * compiles its forward and backward for each set of input sizes it runs at, up to recompile_limit
 * of them. Where the backward cannot be compiled (a write in place in the forward to a value it
 * read, an output that is an input as is; ct_compiled_graph says why), past that limit, and under
 * fusion=false or the "eager" backend, the graph's operators replay through the dispatcher without
 * fusion, so autograd records them; the backward then runs eagerly. Whether each captured tensor
 * requires grad is part of the guards.
 *
 * The traced function runs more than once (once per trace, and again eagerly after a graph
 * break): it must not depend on side effects. Since 0.6.
 */
typedef struct ct_compile_options ct_compile_options;
typedef struct ct_compiled ct_compiled;

/*
 * The function ct_compile and ct_export trace: reads n_inputs borrowed inputs, writes n_outputs
 * new references to outputs using ctorch operators. On failure it returns a status (after
 * ct_error_set, or after the failing ctorch call that set ct_last_error); outputs it wrote are
 * released.
 */
typedef ct_status (*ct_traced_fn)(void* user_data, const ct_tensor* const* inputs, size_t n_inputs,
                                  ct_tensor** outputs, size_t n_outputs);

/* Values of ct_compile_options_set_dynamic. */
typedef enum ct_dynamic { CT_DYNAMIC_OFF = 0, CT_DYNAMIC_ON = 1, CT_DYNAMIC_AUTOMATIC = 2 } ct_dynamic;

/*
 * ct_compile_options_create - options for ct_compile, with torch.compile's defaults: backend
 * "fused", mode "default", no options, dynamic automatic, fullgraph off, recompile limit 8, no
 * name, enabled. ct_compile_options_release frees them (NULL is a no-op). ct_compile copies what it
 * needs, so options may be released or reused right after.
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL out. Threads: an options object is not
 * locked; set it from one thread. Since 0.6.
 */
CT_API CT_NODISCARD ct_status ct_compile_options_create(ct_compile_options** out);
CT_API void ct_compile_options_release(ct_compile_options* options);

/*
 * Setters. Each validates its value at once:
 *   _set_backend       "fused" (default) or "eager" (replays the graph through the dispatcher)
 *   _set_mode          "default", "reduce-overhead", "max-autotune" ("max-autotune" sets
 *                      "cpp_kernels" to "true"; otherwise the three run the same kernels today)
 *   _set_option        key = value, booleans "true"/"false": "fusion", "cse", "dce",
 *                      "constant_folding" (all true by default); "cpp_kernels", "true", "false"
 *                      or "auto" (the default; since 0.9): fused CPU kernels run as C++ built by
 *                      the system compiler, $CXX or c++, and cached under $CTORCH_CACHE_DIR, else
 *                      ~/.cache/ctorch/kernels. "true" builds them while compiling, "auto" once
 *                      they are hot, in the background (ct_compile_wait_kernels), "false" never.
 *                      Where building fails they run the fused CPU loops, with a warning;
 *                      "cpp_kernels_hot_ms", milliseconds from 0 to 1e12 ("20" by default): how
 *                      long a kernel runs its loops before "auto" builds it
 *   _set_dynamic       CT_DYNAMIC_OFF (every size static), _ON (every size >= 2 symbolic from
 *                      the first trace), _AUTOMATIC
 *   _set_fullgraph     nonzero: a graph break is an error, not an eager fallback
 *   _set_recompile_limit  entries per function before calls that miss run eagerly (>= 1)
 *   _set_name          used in messages and metrics
 *   _set_disable       nonzero: ct_compiled_call runs the function eagerly
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released options, a NULL string, an unknown
 * backend, mode or option key (the message lists the known ones), a non-boolean option value
 * ("auto" is also accepted for "cpp_kernels"), a "cpp_kernels_hot_ms" that is not a number from 0
 * to 1e12, a dynamic value outside ct_dynamic, or a limit below 1. A mode together with options is
 * refused by ct_compile. Since 0.6.
 */
CT_API CT_NODISCARD ct_status ct_compile_options_set_backend(ct_compile_options* options, const char* backend);
CT_API CT_NODISCARD ct_status ct_compile_options_set_mode(ct_compile_options* options, const char* mode);
CT_API CT_NODISCARD ct_status ct_compile_options_set_option(ct_compile_options* options, const char* key,
                                                            const char* value);
CT_API CT_NODISCARD ct_status ct_compile_options_set_dynamic(ct_compile_options* options, ct_dynamic dynamic);
CT_API CT_NODISCARD ct_status ct_compile_options_set_fullgraph(ct_compile_options* options, int fullgraph);
CT_API CT_NODISCARD ct_status ct_compile_options_set_recompile_limit(ct_compile_options* options, int64_t limit);
CT_API CT_NODISCARD ct_status ct_compile_options_set_name(ct_compile_options* options, const char* name);
CT_API CT_NODISCARD ct_status ct_compile_options_set_disable(ct_compile_options* options, int disable);

/*
 * ct_compile - a compiled callable over fn.
 *
 *   fn, user_data  the function to trace; fn(user_data, ...) runs on proxies while tracing and on
 *                  real inputs after a graph break
 *   destroy        called with user_data when the compiled function is released (or when
 *                  ct_compile fails); may be NULL
 *   options        NULL for the defaults; borrowed
 *   out            on CT_OK, a new reference: end it with ct_compiled_release. Otherwise NULL.
 *
 * Nothing is traced yet: the first ct_compiled_call traces.
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL fn or out, released options, or mode together
 * with options. Threads: a compiled function may be called from several threads at once. Since 0.6.
 */
CT_API CT_NODISCARD ct_status ct_compile(ct_traced_fn fn, void* user_data, ct_destroy_fn destroy,
                                         const ct_compile_options* options, ct_compiled** out);
/*
 * ct_compiled_retain adds a reference; ct_compiled_release ends one (NULL and released handles are
 * no-ops), and the last one frees the cache and runs destroy(user_data). Returns CT_OK;
 * CT_ERROR_INVALID_ARGUMENT for a NULL or released compiled. Threads: any thread. Since 0.6.
 */
CT_API CT_NODISCARD ct_status ct_compiled_retain(ct_compiled* compiled);
CT_API void ct_compiled_release(ct_compiled* compiled);

/*
 * ct_compiled_call - runs the compiled function on n_inputs borrowed inputs (concrete tensors),
 * writing n_outputs new references to outputs (all NULL on failure). Called inside a function
 * being traced (by ct_export or another compiled function) on its traced tensors, it runs fn
 * there, so fn's operators join the outer graph.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT   NULL or released arguments, a NULL input, or an input with
 *                               symbolic sizes
 *   CT_ERROR_GRAPH_BREAK        under fullgraph: the function cannot be traced (the message names
 *                               the operation)
 *   CT_ERROR_RECOMPILE_LIMIT    under fullgraph: a miss after recompile_limit entries
 *   CT_ERROR_GUARD              a runtime assertion on an item() value failed
 *   any status fn or an operator reports, with its message
 * Since 0.6.
 */
CT_API CT_NODISCARD ct_status ct_compiled_call(ct_compiled* compiled, const ct_tensor* const* inputs, size_t n_inputs,
                                               ct_tensor** outputs, size_t n_outputs);

/*
 * ct_compiled_graph - the graph of cache entry `entry` (0 = the first compiled) as text, one node
 * per line (FX style: "%add : f32[s0, 8] = add.Tensor(%x0, %x1, alpha=1)"), or a line saying the
 * entry runs eagerly and why. An entry with a compiled backward prints "forward:" and its graph,
 * then "backward:" and its graph; one whose backward runs eagerly ends with a line
 * "# backward runs eagerly: <why>". ct_compiled_num_entries gives the number of entries.
 *
 *   out  on CT_OK, a new string; free it with ct_string_release. Otherwise NULL.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released arguments; CT_ERROR_INDEX when
 * entry does not exist. Since 0.6.
 */
CT_API CT_NODISCARD ct_status ct_compiled_graph(const ct_compiled* compiled, size_t entry, char** out);
CT_API CT_NODISCARD ct_status ct_compiled_num_entries(const ct_compiled* compiled, size_t* out);

/*
 * ct_compiled_metrics_json - this function's counters as JSON: {"calls", "compiles", "recompiles"
 * (compiles after the first), "graph_breaks", "eager_calls", "guard_misses", "guards" (of the
 * latest graph), "compile_latency_p50_us", "compile_latency_p95_us"}. The process-wide sums are
 * the metrics "compile.*" of ct_metric_get.
 *
 *   out  on CT_OK, a new string; free it with ct_string_release. Otherwise NULL.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released arguments. Since 0.6.
 */
CT_API CT_NODISCARD ct_status ct_compiled_metrics_json(const ct_compiled* compiled, char** out);

/*
 * ct_compile_wait_kernels - blocks until the background builder has built (or failed to build)
 * every C++ kernel asked of it so far. With the option "cpp_kernels" at its default "auto", a fused
 * CPU kernel starts on its loops and, once it has run them for "cpp_kernels_hot_ms" (20 ms
 * by default), is built as C++ by one builder thread per process while the program goes on; its
 * next call after that runs the C++ kernel, with the same bits. Programs never need to wait;
 * benchmarks that time the steady state and tests that inspect it call this. Takes no arguments
 * and cannot fail: a build that failed is reported by a warning at its kernel's next call, and
 * that kernel keeps its loops. Threads: any (after fork, a child waits only for its own builds).
 * Since 0.9.
 */
CT_API void ct_compile_wait_kernels(void);

/* ---- Export: programs ---- */

/*
 * Export (torch.export for C). ct_export traces fn once on proxies of example inputs whose
 * declared dims are symbols with ranges (ct_dynamic_shapes_set_dim: "batch" in [1, 1024]); every
 * other size is static. The result is a program: the graph, the tensors it captured (as
 * constants), each input's spec, the symbols' ranges, the guards the trace relied on (checked on
 * every call) and runtime assertions over item() values. It runs without fn (ct_program_call),
 * saves to a versioned file and loads back (docs/program-format.md). Loading runs no kernel and
 * validates every field. Programs are immutable: one may be called from several threads at once.
 * Since 0.6.
 */
typedef struct ct_dynamic_shapes ct_dynamic_shapes;
typedef struct ct_program ct_program;

/*
 * ct_dynamic_shapes_create - an empty set of dynamic dim declarations (every dim static);
 * ct_dynamic_shapes_release frees it (NULL is a no-op).
 * ct_dynamic_shapes_set_dim declares dim `dim` (negative counts from the end) of input `input`
 * dynamic, as the symbol `name` in [min, max] (max = INT64_MAX for no bound). Dims declared with
 * the same name are one symbol: they must be equal on every call.
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL arguments, an empty name, or min > max (or
 * min < 0). Since 0.6.
 */
CT_API CT_NODISCARD ct_status ct_dynamic_shapes_create(ct_dynamic_shapes** out);
CT_API void ct_dynamic_shapes_release(ct_dynamic_shapes* shapes);
CT_API CT_NODISCARD ct_status ct_dynamic_shapes_set_dim(ct_dynamic_shapes* shapes, size_t input, int64_t dim,
                                                        const char* name, int64_t min, int64_t max);

/*
 * ct_export - traces fn on proxies of example_inputs (borrowed; real or meta tensors) and returns
 * the program.
 *
 *   dynamic_shapes  NULL: every size static
 *   out             on CT_OK, a new reference: end it with ct_program_release. Otherwise NULL.
 *
 * fn is called once during ct_export and never kept. A meta example input is a shape-only input:
 * the program takes a meta tensor there too (topk's k as the size of a meta tensor, for example).
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULL arguments; an example outside a declared range; dims sharing a
 *                              name with different example sizes
 *   CT_ERROR_INDEX             a declared dim or input out of range
 *   CT_ERROR_GRAPH_BREAK       fn read a proxy's data, or made tensors the graph cannot describe
 *   CT_ERROR_GUARD             fn specialized a declared dim to one value (the message names it)
 *   any status fn or an operator reports, with its message
 * Since 0.6.
 */
CT_API CT_NODISCARD ct_status ct_export(ct_traced_fn fn, void* user_data, const ct_tensor* const* example_inputs,
                                        size_t n_inputs, size_t n_outputs, const ct_dynamic_shapes* dynamic_shapes,
                                        ct_program** out);
/*
 * ct_program_retain adds a reference; ct_program_release ends one (NULL and released handles are
 * no-ops), and the last one frees the program and its constants. Returns CT_OK;
 * CT_ERROR_INVALID_ARGUMENT for a NULL or released program. Threads: any thread. Since 0.6.
 */
CT_API CT_NODISCARD ct_status ct_program_retain(ct_program* program);
CT_API void ct_program_release(ct_program* program);

/*
 * ct_program_call - runs the program on n_inputs borrowed inputs, writing n_outputs new
 * references (n_outputs must equal ct_program_num_outputs; all NULL on failure).
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULL or released arguments, wrong n_inputs or n_outputs
 *   CT_ERROR_DTYPE, CT_ERROR_DEVICE  an input's dtype or device differs from its spec
 *   CT_ERROR_SHAPE             a static size differs, a dynamic size is outside its range, or dims
 *                              sharing a symbol differ (the message names input, dim and symbol)
 *   CT_ERROR_GUARD             a guard of the export fails for these sizes, or a runtime assertion
 *                              on an item() value fails
 *   any status an operator reports
 * Since 0.6.
 */
CT_API CT_NODISCARD ct_status ct_program_call(const ct_program* program, const ct_tensor* const* inputs,
                                              size_t n_inputs, ct_tensor** outputs, size_t n_outputs);
/*
 * ct_program_num_inputs, ct_program_num_outputs - how many inputs ct_program_call takes and how
 * many outputs it writes. Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released arguments.
 * Since 0.6.
 */
CT_API CT_NODISCARD ct_status ct_program_num_inputs(const ct_program* program, size_t* out);
CT_API CT_NODISCARD ct_status ct_program_num_outputs(const ct_program* program, size_t* out);

/*
 * ct_program_graph - the program's graph as text (as ct_compiled_graph). ct_program_json - its
 * signature as JSON: {"inputs": [{"dtype", "device", "sizes": ["batch", 4]}], "outputs": [the same
 * for each output, sizes as expressions: "2*batch"], "env": {"symbols", "guards", "runtime_asserts"}}.
 *
 *   out  on CT_OK, a new string; free it with ct_string_release. Otherwise NULL.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released arguments. Since 0.6.
 */
CT_API CT_NODISCARD ct_status ct_program_graph(const ct_program* program, char** out);
CT_API CT_NODISCARD ct_status ct_program_json(const ct_program* program, char** out);

/*
 * ct_program_save - writes the program file (format: docs/program-format.md) to path, replacing
 * it; the file is written to a temporary name first and renamed, so a failure never leaves a
 * half-written program at path. ct_program_save_buffer gives the same bytes in memory (free *data
 * with ct_string_release).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL arguments; CT_ERROR_NOT_IMPLEMENTED when a
 * captured tensor is not on the CPU; CT_ERROR_IO when the file cannot be written. Since 0.6.
 */
CT_API CT_NODISCARD ct_status ct_program_save(const ct_program* program, const char* path);
CT_API CT_NODISCARD ct_status ct_program_save_buffer(const ct_program* program, char** data, size_t* size);

/*
 * ct_program_load - reads a program file; ct_program_load_buffer reads the bytes in memory. No
 * kernel runs: operators are looked up by name in the registry (register custom operators first),
 * every field is validated, and each call's recorded result is checked against its operator's meta
 * function.
 *
 *   out  on CT_OK, a new reference: end it with ct_program_release. Otherwise NULL.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL arguments; CT_ERROR_IO when the file cannot be
 * read; CT_ERROR_FORMAT for a malformed, truncated or newer-version file (the message names the
 * field and byte offset). Since 0.6.
 */
CT_API CT_NODISCARD ct_status ct_program_load(const char* path, ct_program** out);
CT_API CT_NODISCARD ct_status ct_program_load_buffer(const void* data, size_t size, ct_program** out);

/* ---- Checkpoints: safetensors files ---- */

/*
 * Checkpoints are safetensors files (docs/checkpoints.md): 8 bytes N (unsigned, little-endian), N
 * bytes of JSON naming each tensor's dtype, shape and byte range, then the raw little-endian data.
 * Files written here open in the reference `safetensors` package and in PyTorch
 * (safetensors.torch.load_file), and theirs open here. Opening validates the whole header before
 * anything else, so a malformed or hostile file (bad or overlapping offsets, a huge header length,
 * an unknown dtype, sizes that overflow, broken JSON or UTF-8, repeated names) gives
 * CT_ERROR_FORMAT with a message naming the field and its byte offset, never a crash.
 *
 * An opened checkpoint is a handle on a private memory mapping of the file: a tensor got from it
 * reads the file lazily (pages are loaded when touched) and, when its data is aligned (always, for
 * files written by ctorch or the reference writer), without copying. The mapping lives while the
 * checkpoint or any tensor got from it (or a view of one) lives. Writing into such a tensor in
 * place changes this process's copy of the page only, never the file; tensors got twice for one
 * name share their memory. Do not truncate or rewrite a file in place while it is open (as with
 * any mapping, reading a truncated page raises SIGBUS); ct_checkpoint_save replaces files by
 * renaming, which is safe.
 *
 * Dtypes: BOOL, U8, I8, I16, I32, I64, F16, BF16, F32, F64 map to the ctorch dtypes of the same
 * meaning. Files may also hold the format's other dtypes (U16, U32, U64, C64, the 8-, 6- and 4-bit
 * floats): such a file opens and lists them, and ct_checkpoint_get refuses those tensors.
 *
 * Threads: a checkpoint is immutable; any number of threads may use one handle at once.
 * Since 0.8.
 */
typedef struct ct_checkpoint ct_checkpoint;

/*
 * ct_checkpoint_open - opens and validates the safetensors file at path.
 *
 * The file is memory-mapped and its header checked in full: the length (at most 100,000,000
 * bytes, as in the reference implementation, and inside the file), the JSON (strict RFC 8259,
 * valid UTF-8, starting with '{', only whitespace after the object, no repeated key, no U+0000 in
 * a string), each tensor's fields (exactly dtype, shape, data_offsets; a dtype the format names; at
 * most 64 dims; plain non-negative integers), that each byte range holds exactly numel * itemsize
 * bytes without overflow, and that the ranges, sorted, cover the data from its first byte to the
 * end of the file without gap or overlap. Tensor data is not read.
 *
 *   path  borrowed.
 *   out   on CT_OK, a new reference: end it with ct_checkpoint_release. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  path or out is NULL
 *   CT_ERROR_IO                the file cannot be opened, is not a regular file, or cannot be mapped
 *   CT_ERROR_FORMAT            the file breaks a rule above (the message names the rule, the tensor
 *                              and the byte offset in the file)
 *   CT_ERROR_OUT_OF_MEMORY     the index or the mapping could not be allocated
 * Details of a failure: ct_last_error() on the same thread.
 *
 * Threads: any thread. Since 0.8. See also ct_checkpoint_open_buffer, ct_checkpoint_get.
 */
CT_API CT_NODISCARD ct_status ct_checkpoint_open(const char* path, ct_checkpoint** out);

/*
 * ct_checkpoint_open_buffer - the same as ct_checkpoint_open for a file's bytes held in memory.
 *
 * The bytes are copied (into 64-byte aligned memory) during the call, so data may be freed as soon
 * as it returns; tensors then view the copy, which lives as the mapping does.
 *
 *   data  borrowed; may be NULL only when size is 0 (which is a CT_ERROR_FORMAT file).
 *   out   on CT_OK, a new reference. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  out is NULL, or data is NULL with size > 0
 *   CT_ERROR_FORMAT            as for ct_checkpoint_open
 *   CT_ERROR_OUT_OF_MEMORY     the copy could not be allocated
 * Threads: any thread. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_checkpoint_open_buffer(const void* data, size_t size, ct_checkpoint** out);

/*
 * ct_checkpoint_retain adds a reference to ckpt; ct_checkpoint_release ends one (NULL and released
 * handles are no-ops). The last release unmaps the file unless tensors got from it still live:
 * the mapping then goes with the last of them.
 *
 * Returns (retain) CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL or released ckpt.
 * Threads: any thread. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_checkpoint_retain(ct_checkpoint* ckpt);
CT_API void ct_checkpoint_release(ct_checkpoint* ckpt);

/*
 * ct_checkpoint_num_tensors - how many tensors the file holds (metadata is not a tensor).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL or released ckpt, or out NULL.
 * Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_checkpoint_num_tensors(const ct_checkpoint* ckpt, size_t* out);

/*
 * ct_checkpoint_name - the name of tensor index, in the order of the tensors' data in the file.
 *
 *   out  on CT_OK, the name: a NUL-terminated UTF-8 string owned by ckpt, valid until its last
 *        reference is released. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  ckpt NULL or released, or out NULL
 *   CT_ERROR_INDEX             index >= ct_checkpoint_num_tensors
 * Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_checkpoint_name(const ct_checkpoint* ckpt, size_t index, const char** out);

/*
 * ct_checkpoint_get - the tensor called name, as a contiguous CPU tensor.
 *
 * The tensor views the mapped file when its data is aligned to its item size (reading lazily,
 * without copying; it keeps the mapping alive), and is a copy otherwise, and for empty tensors.
 * It does not require grad. A BOOL tensor's bytes are checked to be 0 or 1.
 *
 *   name  borrowed.
 *   out   on CT_OK, a new reference; end it with ct_tensor_release. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  ckpt NULL or released, name or out NULL
 *   CT_ERROR_INDEX             no tensor has this name
 *   CT_ERROR_DTYPE             the tensor's dtype has no ctorch dtype (U16, U32, U64, C64, 8-, 6-
 *                              and 4-bit floats); the message names it
 *   CT_ERROR_FORMAT            a BOOL tensor holds a byte other than 0 and 1
 *   CT_ERROR_OUT_OF_MEMORY
 * Threads: any thread, concurrently on one ckpt. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_checkpoint_get(const ct_checkpoint* ckpt, const char* name, ct_tensor** out);

/*
 * ct_checkpoint_metadata_json - the file's "__metadata__" object as compact JSON text
 * ({"format":"pt"}), or "null" when the file has none.
 *
 *   out  on CT_OK, a new string: free it with ct_string_release. Otherwise set to NULL.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL or released ckpt, or out NULL;
 * CT_ERROR_OUT_OF_MEMORY. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_checkpoint_metadata_json(const ct_checkpoint* ckpt, char** out);

/*
 * ct_checkpoint_metadata_get - the metadata value stored under key.
 *
 *   out  on CT_OK, the value (owned by ckpt, valid until its last reference is released), or NULL
 *        when the file has no such key (that is not an error). On failure set to NULL.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL or released ckpt, or key or out NULL.
 * Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_checkpoint_metadata_get(const ct_checkpoint* ckpt, const char* key,
                                                         const char** out);

/*
 * ct_checkpoint_save - writes n named tensors to a safetensors file at path, replacing it.
 *
 * Tensors on another device are copied to the host (one at a time), non-contiguous ones are
 * written in row-major order, and autograd state is not saved. The layout is the reference
 * writer's: the header padded with spaces to a multiple of 8 bytes, data ordered by dtype size
 * (largest first) then name, so every tensor is aligned. metadata_json, when not NULL, is a JSON
 * object of string values ({"step": "1000"}), stored as "__metadata__" (an empty object is stored
 * too; NULL stores none). Everything is checked before the file is created; the data goes to a
 * temporary file beside path ("<path>.tmp.<pid>.<n>"), is synced to disk and renamed over path, so
 * a failure or a crash never leaves a half-written checkpoint at path.
 *
 *   path, names, tensors, metadata_json  borrowed. names[i] names tensors[i].
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  path NULL; names or tensors NULL with n > 0; a NULL or released
 *                              tensor; a NULL, empty, non-UTF-8 or repeated name, or the reserved
 *                              name "__metadata__"
 *   CT_ERROR_DEVICE            a meta tensor (it has no data)
 *   CT_ERROR_FORMAT            metadata_json is not a JSON object of strings (the message says where)
 *   CT_ERROR_IO                the temporary file cannot be created, written, synced or renamed
 *                              (it is removed)
 *   CT_ERROR_OUT_OF_MEMORY
 *   any status copying a device tensor to the host reports
 * Threads: any thread; the tensors may be read by other threads meanwhile. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_checkpoint_save(const char* path, const char* const* names,
                                                 const ct_tensor* const* tensors, size_t n,
                                                 const char* metadata_json);

/*
 * ct_checkpoint_save_buffer - the bytes ct_checkpoint_save would write, in memory.
 *
 *   data  on CT_OK, a new buffer of *size bytes: free it with ct_string_release. Otherwise NULL.
 *   size  filled on CT_OK; 0 on failure.
 *
 * Returns the statuses of ct_checkpoint_save except CT_ERROR_IO; CT_ERROR_INVALID_ARGUMENT also
 * when data or size is NULL. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_checkpoint_save_buffer(const char* const* names, const ct_tensor* const* tensors,
                                                        size_t n, const char* metadata_json, char** data,
                                                        size_t* size);

/* ---- Checkpoints: PyTorch files (torch.save, torch.load) ---- */

/*
 * PyTorch's own checkpoint files: what torch.save writes (a zip archive holding a pickle of the
 * saved object and each tensor storage's bytes) is read here without running any of the pickle's
 * code, allowing what torch.load(weights_only=True) allows: tensors and parameters, OrderedDicts,
 * dicts, lists, tuples, strings, numbers, bools and None. Anything else (a class, a function, a
 * module object) gives CT_ERROR_FORMAT naming it, as does a damaged file, a compressed entry, a
 * storage or tensor out of bounds, or a pickle opcode a checkpoint does not use. Files written
 * here load with torch.load(path, weights_only=True) in PyTorch 1.13 and later.
 *
 * The saved object travels as JSON text, one value per Python value:
 *
 *   None, True/False, 3, "s"       null, true/false, 3, "s"
 *   2.5, nan, inf                  2.5 (always with a '.' or an exponent), {"float": "nan"}, {"float": "inf"}
 *   [a, b]                         [a, b]
 *   (a, b)                         {"tuple": [a, b]}
 *   {"k": v, 1: w}                 {"dict": [["k", v], [1, w]]}           (keys: strings or integers)
 *   OrderedDict (a state_dict)     {"ordered_dict": [["weight", {"tensor": 0}], ...]}
 *   a tensor                       {"tensor": i}: the i-th of the file's tensors
 *
 * so a model's state dict is {"ordered_dict": [["fc.weight", {"tensor": 0}], ["fc.bias", {"tensor": 1}]]}.
 * Tensors that share memory in the file share it when loaded (views keep their offsets and
 * strides), and tensors saved from one storage are saved as views of it. Loaded tensors are CPU
 * tensors whatever device they were saved from, requiring grad as saved. Nesting is limited to 200
 * levels; a list, tuple or dict reached twice (shared or cyclic) is refused.
 *
 * Threads: a ct_torch_file is immutable; any number of threads may use one. Since 0.9.
 */
typedef struct ct_torch_file ct_torch_file;

/*
 * ct_torch_load - reads the PyTorch file at path (torch.load(path, weights_only=True)).
 *
 *   path  borrowed.
 *   out   on CT_OK, a new file: end it with ct_torch_file_release. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  path or out is NULL
 *   CT_ERROR_IO                the file cannot be opened, is not a regular file, or cannot be mapped
 *   CT_ERROR_FORMAT            the file is not one torch.save writes, is damaged, or holds a value a
 *                              weights-only load refuses (the message names it and the byte offset)
 *   CT_ERROR_OUT_OF_MEMORY
 * Threads: any thread. Since 0.9. See also ct_torch_load_buffer.
 */
CT_API CT_NODISCARD ct_status ct_torch_load(const char* path, ct_torch_file** out);

/*
 * ct_torch_load_buffer - the same for a file's bytes in memory (torch.load of an io.BytesIO). The
 * tensors are copies: data may be freed once the call returns.
 *
 * Returns the statuses of ct_torch_load but CT_ERROR_IO; CT_ERROR_INVALID_ARGUMENT also when data
 * is NULL with size > 0. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_torch_load_buffer(const void* data, size_t size, ct_torch_file** out);

/* ct_torch_file_release - frees a loaded file; its tensors live on. NULL and released files are
 * no-ops. Since 0.9. */
CT_API void ct_torch_file_release(ct_torch_file* file);

/*
 * ct_torch_file_structure - the saved object as JSON text (see above).
 *
 *   out  on CT_OK, a NUL-terminated string owned by file, valid until it is released. Otherwise NULL.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL or released file, or out NULL. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_torch_file_structure(const ct_torch_file* file, const char** out);

/*
 * ct_torch_file_num_tensors - how many tensors the structure refers to ({"tensor": 0} to n - 1).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL or released file, or out NULL. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_torch_file_num_tensors(const ct_torch_file* file, size_t* out);

/*
 * ct_torch_file_tensor - tensor index of the file (a CPU tensor; the same tensor each call).
 *
 *   out  on CT_OK, a new reference: end it with ct_tensor_release. Otherwise NULL.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL or released file, or out NULL;
 * CT_ERROR_INDEX when index >= ct_torch_file_num_tensors. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_torch_file_tensor(const ct_torch_file* file, size_t index, ct_tensor** out);

/*
 * ct_torch_file_tensor_name - where tensor index is first met in the saved object: the dict keys
 * and list or tuple positions leading to it, joined with '.' ("model.fc.weight" in
 * {"model": state_dict}, "layers.0" in {"layers": [t]}); "" for a tensor saved by itself. A state
 * dict's tensors are so named by their keys, without reading the JSON.
 *
 *   out  on CT_OK, a NUL-terminated UTF-8 string owned by file, valid until it is released.
 *        Otherwise NULL.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL or released file, or out NULL;
 * CT_ERROR_INDEX when index >= ct_torch_file_num_tensors. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_torch_file_tensor_name(const ct_torch_file* file, size_t index, const char** out);

/*
 * ct_torch_save - writes structure (JSON, see above) over tensors to path as torch.save does, so
 * that torch.load(path, weights_only=True) reads it; "{\"tensor\": i}" refers to tensors[i].
 *
 * Everything is checked before the file is created. The bytes go to a temporary file beside path
 * ("<path>.tmp.<pid>.<n>"), synced and renamed over path, so a failure or a crash never leaves a
 * half-written file at path. Tensors on another device are copied to the host and saved as their
 * own storage; CPU tensors sharing a storage are saved as views of it (the whole storage is
 * written, as torch.save writes it). Whether a tensor requires grad is saved; its gradient is not.
 *
 *   path, structure, tensors  borrowed; tensors may be NULL when n is 0.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  path or structure NULL; tensors NULL with n > 0; a NULL or released
 *                              tensor; a symbolic tensor
 *   CT_ERROR_FORMAT            structure is not JSON of the form above, or names a tensor index >= n
 *                              (the message says where)
 *   CT_ERROR_DEVICE            a meta tensor (it has no data)
 *   CT_ERROR_IO                the temporary file cannot be created, written, synced or renamed
 *   CT_ERROR_OUT_OF_MEMORY
 * Threads: any thread. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_torch_save(const char* path, const char* structure, const ct_tensor* const* tensors,
                                            size_t n);

/*
 * ct_torch_save_buffer - the bytes ct_torch_save would write, in memory (torch.save to a BytesIO).
 *
 *   data  on CT_OK, a new buffer of *size bytes: free it with ct_string_release. Otherwise NULL.
 *   size  filled on CT_OK; 0 on failure.
 *
 * Returns the statuses of ct_torch_save but CT_ERROR_IO; CT_ERROR_INVALID_ARGUMENT also for data
 * or size NULL. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_torch_save_buffer(const char* structure, const ct_tensor* const* tensors, size_t n,
                                                   char** data, size_t* size);

/* ---- Training: optimizers, learning-rate schedulers, gradient clipping, initializers ---- */

/*
 * Training as torch.optim, torch.optim.lr_scheduler, torch.nn.utils.clip_grad_norm_ and
 * torch.nn.init define it, in the library, so every language shares one implementation
 * (docs/training.md walks through a training loop):
 *
 *   ct_optimizer_options o;
 *   ct_optimizer_options_default(CT_OPTIMIZER_ADAM, &o);   // torch.optim.Adam's defaults
 *   o.lr = 3e-4;
 *   ct_optimizer_create(params, n, &o, &opt);
 *   for (...) {
 *     ct_optimizer_zero_grad(opt, 1);
 *     ... forward, ct_tensor_backward(loss, NULL, 0) ...
 *     ct_clip_grad_norm(params, n, 1.0, 2.0, NULL);
 *     ct_optimizer_step(opt);
 *     ct_lr_scheduler_step(sched);
 *   }
 *
 * An optimizer holds one group of parameters (torch's param_groups[0]) and their state. Each step
 * computes torch.optim's single-tensor update formulas in the same order of operations, so a
 * ctorch run agrees with torch's to float rounding (the multiply and add of torch's vectorized
 * add are fused on some machines; ctorch's never are, so its results are the same bits on every
 * machine, run to run and for any thread count). Parameters whose grad is NULL are skipped, as in
 * torch. An update never records autograd history.
 */

/* A reference-counted optimizer: parameters (retained), options and per-parameter state. */
typedef struct ct_optimizer ct_optimizer;

/* The update rule. Values are fixed forever; new kinds are appended. */
typedef enum ct_optimizer_kind {
  CT_OPTIMIZER_SGD = 0,    /* torch.optim.SGD: momentum, dampening, nesterov, weight decay */
  CT_OPTIMIZER_ADAM = 1,   /* torch.optim.Adam: L2 weight decay added to the gradient, amsgrad */
  CT_OPTIMIZER_ADAMW = 2,  /* torch.optim.AdamW: decoupled weight decay (param *= 1 - lr * wd) */
  CT_OPTIMIZER_RMSPROP = 3, /* torch.optim.RMSprop: alpha, centered, momentum, weight decay */
  CT_OPTIMIZER_ADAGRAD = 4, /* torch.optim.Adagrad: lr_decay, initial_accumulator_value (since 0.9) */
  CT_OPTIMIZER_ADAMAX = 5,  /* torch.optim.Adamax: Adam with an infinity-norm second moment (0.9) */
  CT_OPTIMIZER_NADAM = 6,   /* torch.optim.NAdam: Nesterov momentum in Adam, momentum_decay (0.9) */
  CT_OPTIMIZER_RADAM = 7,   /* torch.optim.RAdam: rectified Adam (since 0.9) */
  CT_OPTIMIZER_ADADELTA = 8, /* torch.optim.Adadelta: rho, lr scaling the delta (since 0.9) */
  CT_OPTIMIZER_ASGD = 9,     /* torch.optim.ASGD: averaged SGD, lambd, alpha, t0 (since 0.9) */
  CT_OPTIMIZER_RPROP = 10,   /* torch.optim.Rprop: resilient backpropagation, etas, step sizes (since 0.9) */
  CT_OPTIMIZER_LBFGS = 11    /* torch.optim.LBFGS: steps through ct_optimizer_step_closure (since 0.9) */
} ct_optimizer_kind;

/*
 * ct_optimizer_options - the hyperparameters of one optimizer (torch's param_group entries).
 *
 * Size-first: set struct_size to sizeof(ct_optimizer_options) (ct_optimizer_options_default does),
 * so a later release can append fields and still read structs from programs built before. Fields a
 * kind does not use are ignored (and kept: ct_optimizer_get_options returns them as given). A
 * struct from a 0.8 header (it ends at maximize), or from a 0.9 header before ASGD, Rprop and
 * LBFGS (it ends at decoupled_weight_decay), is accepted too: the fields it lacks take the kind's
 * defaults.
 */
typedef struct ct_optimizer_options {
  size_t struct_size;     /* sizeof(ct_optimizer_options) */
  ct_optimizer_kind kind; /* the update rule */
  double lr;              /* learning rate, >= 0 */
  double momentum;        /* SGD, RMSprop: >= 0 (0: no momentum buffer) */
  double dampening;       /* SGD: the momentum buffer adds (1 - dampening) * grad */
  double weight_decay;    /* >= 0; L2 penalty (SGD, Adam, RMSprop) or decoupled decay (AdamW) */
  double beta1;           /* Adam, AdamW: in [0, 1) */
  double beta2;           /* Adam, AdamW: in [0, 1) */
  double eps;             /* Adam, AdamW, RMSprop: >= 0, added to the denominator */
  double alpha;           /* RMSprop: smoothing constant; ASGD: eta's decay power; >= 0 */
  int nesterov;           /* SGD: Nesterov momentum (needs momentum > 0 and dampening 0) */
  int amsgrad;            /* Adam, AdamW: keep the maximum of the second moments */
  int centered;           /* RMSprop: normalize by the estimated variance of the gradient */
  int maximize;           /* every kind: ascend the objective instead of descending it */
  /* Since 0.9: */
  double lr_decay;        /* Adagrad: the step's lr is lr / (1 + (step - 1) * lr_decay), >= 0 */
  double initial_accumulator_value; /* Adagrad: the sum of squares starts here, >= 0 */
  double momentum_decay;  /* NAdam: >= 0 */
  double rho;             /* Adadelta: the running averages' coefficient, in [0, 1] */
  int decoupled_weight_decay; /* NAdam, RAdam: decay param *= 1 - lr * weight_decay (AdamW's) */
  double lambd;           /* ASGD: the decay term, >= 0 */
  double t0;              /* ASGD: the step after which averaging starts, >= 0 */
  double etaminus;        /* Rprop: the step's factor after a sign change, in (0, 1) */
  double etaplus;         /* Rprop: the step's factor while the sign holds, > 1 */
  double step_size_min;   /* Rprop: the smallest step, >= 0 */
  double step_size_max;   /* Rprop: the largest step, >= step_size_min */
  int64_t max_iter;       /* LBFGS: iterations per step, in [1, 2^40] */
  int64_t max_eval;       /* LBFGS: closure calls per step, in [1, 2^40]; 0: max_iter * 5 / 4 */
  double tolerance_grad;  /* LBFGS: stop when the gradient's largest magnitude is this small, >= 0 */
  double tolerance_change; /* LBFGS: stop when a step or the loss changes less, >= 0 */
  int64_t history_size;   /* LBFGS: curvature pairs kept, in [1, 2^20] */
  int strong_wolfe;       /* LBFGS: 1 for line_search_fn="strong_wolfe", 0 for a fixed step lr */
} ct_optimizer_options;

/*
 * ct_optimizer_options_default - fill *out with PyTorch's defaults for kind.
 *
 *   SGD      lr 1e-3, momentum 0, dampening 0, weight_decay 0, nesterov 0 (torch 2's defaults)
 *   Adam     lr 1e-3, betas (0.9, 0.999), eps 1e-8, weight_decay 0, amsgrad 0
 *   AdamW    lr 1e-3, betas (0.9, 0.999), eps 1e-8, weight_decay 1e-2, amsgrad 0
 *   RMSprop  lr 1e-2, alpha 0.99, eps 1e-8, weight_decay 0, momentum 0, centered 0
 *   Adagrad  lr 1e-2, lr_decay 0, weight_decay 0, initial_accumulator_value 0, eps 1e-10
 *   Adamax   lr 2e-3, betas (0.9, 0.999), eps 1e-8, weight_decay 0
 *   NAdam    lr 2e-3, betas (0.9, 0.999), eps 1e-8, weight_decay 0, momentum_decay 4e-3
 *   RAdam    lr 1e-3, betas (0.9, 0.999), eps 1e-8, weight_decay 0
 *   Adadelta lr 1, rho 0.9, eps 1e-6, weight_decay 0
 *   ASGD     lr 1e-2, lambd 1e-4, alpha 0.75, t0 1e6, weight_decay 0
 *   Rprop    lr 1e-2, etas (0.5, 1.2), step_sizes (1e-6, 50)
 *   LBFGS    lr 1, max_iter 20, max_eval 0 (25), tolerance_grad 1e-7, tolerance_change 1e-9,
 *            history_size 100, strong_wolfe 0
 * Fields the kind does not use are 0 (beta1 0.9, beta2 0.999, eps 1e-8, alpha 0.99, rho 0.9,
 * momentum_decay 4e-3, lambd 1e-4, t0 1e6, etaminus 0.5, etaplus 1.2, step_size_min 1e-6,
 * step_size_max 50 and LBFGS's values for every kind, so switching kind keeps sensible values);
 * maximize 0; struct_size set.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL out or a kind outside ct_optimizer_kind.
 * Threads: any thread. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_optimizer_options_default(ct_optimizer_kind kind, ct_optimizer_options* out);

/*
 * ct_optimizer_create - an optimizer over n parameters (torch.optim.SGD(params, ...) and friends).
 *
 * Each parameter must be a leaf tensor with a floating dtype and data (not meta), given once. It
 * usually requires grad; one that never gets a grad is simply never updated. State (momentum
 * buffers, moments, step counts) is created on a parameter's first step with a grad, as in torch.
 * Every kind but LBFGS also takes complex parameters (since 0.9): as in torch 2.x, each is
 * stepped as the real tensor of its parts (view_as_real), and its state tensors stay complex.
 *
 *   params   borrowed array of n handles; each tensor is retained until the optimizer is freed.
 *   options  borrowed; validated (see ct_optimizer_set_options).
 *   out      on CT_OK, a new reference: end it with ct_optimizer_release. Otherwise set to NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  out or options NULL, params NULL with n > 0, n == 0, a NULL or
 *                              released parameter, one given twice, a non-leaf parameter, a
 *                              struct_size too small, or an option out of range (the message
 *                              names the field and its value)
 *   CT_ERROR_DTYPE             a parameter that is neither floating nor complex, or a complex
 *                              one under LBFGS; LBFGS parameters of two dtypes
 *   CT_ERROR_DEVICE            a meta parameter (it has no data to update); LBFGS parameters on
 *                              two devices (it steps them as one vector)
 * Threads: any thread. Since 0.8. See also ct_optimizer_options_default.
 */
CT_API CT_NODISCARD ct_status ct_optimizer_create(const ct_tensor* const* params, size_t n,
                                                  const ct_optimizer_options* options, ct_optimizer** out);

/*
 * ct_optimizer_retain adds a reference; ct_optimizer_release ends one (NULL and released handles
 * are no-ops) and the last one frees the state and releases the parameters (schedulers bound to
 * the optimizer hold a reference too). Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL or
 * released optimizer. Threads: any thread. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_optimizer_retain(ct_optimizer* opt);
CT_API void ct_optimizer_release(ct_optimizer* opt);

/*
 * ct_optimizer_step - one update of every parameter that has a grad (optimizer.step()).
 *
 * Runs with grad mode off. A float32 or float64 parameter on the CPU whose grad and state are
 * contiguous is updated by one fused loop over its elements (split across the thread pool; every
 * element is independent, so the bits do not depend on the thread count). Other parameters
 * (another device, a non-contiguous layout, float16 or bfloat16) go through the in-place
 * operators of their device, computing the same formula in the same order. Each updated
 * parameter's version counter is bumped, as an in-place operator bumps it, so a graph that saved
 * the old value refuses to run backward.
 *
 * Per kind (g is the grad, negated under maximize; torch.optim's formulas):
 *   SGD      g += wd * p; buf = g on the first step, else buf = momentum * buf + (1 - dampening) * g;
 *            g = nesterov ? g + momentum * buf : buf (when momentum != 0); p += -lr * g
 *   Adam     g += wd * p; m = beta1 * m + (1 - beta1) * g; v = beta2 * v + (1 - beta2) * g * g;
 *            (amsgrad: vmax = max(vmax, v), used for v); p += -lr / (1 - beta1^t) * m /
 *            (sqrt(v) / sqrt(1 - beta2^t) + eps), t the parameter's step count
 *   AdamW    p *= 1 - lr * wd first, then Adam without the L2 term
 *   RMSprop  g += wd * p; s = alpha * s + (1 - alpha) * g * g; centered: a = alpha * a + (1 - alpha)
 *            * g and d = sqrt(s - a * a) + eps, else d = sqrt(s) + eps; momentum > 0: buf =
 *            momentum * buf + g / d, p += -lr * buf; else p += -lr * g / d
 *   ASGD     g += wd * p; p *= 1 - lambd * eta; p += -eta * g; ax += (p - ax) * mu if mu != 1, else
 *            ax = p; then eta = lr / (1 + lambd * lr * t)^alpha and mu = 1 / max(1, t - t0), each
 *            rounded to float (eta starts at lr, mu at 1)
 *   Rprop    f = etaplus, etaminus or 1 where sign(g * prev) is > 0, < 0 or 0; step = clamp(step * f,
 *            step_size_min, step_size_max) (it starts at lr); g = 0 where f is etaminus;
 *            p -= sign(g) * step; prev = g
 * Adagrad, Adamax, NAdam, RAdam and Adadelta follow torch.optim's single-tensor functions likewise.
 *
 * Every parameter is checked and missing state allocated before anything is written, so a step
 * that fails on one parameter changes no parameter and no state.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  opt NULL or released; a parameter that is an inference tensor,
 *                              outside inference mode (the message names its index); an LBFGS
 *                              optimizer (it re-evaluates the model: ct_optimizer_step_closure);
 *                              a call from inside opt's own closure
 *   CT_ERROR_OUT_OF_MEMORY     state could not be allocated
 * Threads: calls on one optimizer are serialized (a lock); another thread must not read or write
 * the parameters during a step. Determinism: bitwise for any thread count. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_optimizer_step(ct_optimizer* opt);

/*
 * ct_optimizer_closure - runs the model and its backward, so that the parameters hold the grads of
 * the loss at their current values, and writes the loss to *loss (torch's closure: zero the grads,
 * compute the loss, call backward, return the loss). Returns CT_OK, or a failure status after
 * ct_error_set: the step then fails with it.
 */
typedef ct_status (*ct_optimizer_closure)(void* user_data, double* loss);

/*
 * ct_optimizer_step_closure - optimizer.step(closure).
 *
 * LBFGS (torch.optim.LBFGS): up to max_iter iterations over all parameters as one vector, calling
 * closure once to start and then once per iteration (fixed step lr), or as often as the
 * strong-Wolfe line search needs, stopping early as torch does (gradient below tolerance_grad, a
 * step or loss change below tolerance_change, max_eval calls). The direction comes from the last
 * history_size curvature pairs, kept across steps. Other kinds call closure once, then step as
 * ct_optimizer_step does.
 *
 * The closure runs on the calling thread in the caller's grad mode; it may call
 * ct_optimizer_zero_grad on opt (torch's closures do), not another step. When it fails, the step
 * fails with its status and message, and the parameters and the optimizer's state are restored to
 * what they were before the call.
 *
 *   closure    required; user_data is passed to it unchanged.
 *   loss       filled with the first closure call's loss (what torch's step returns); may be NULL.
 *
 * Returns CT_OK; the closure's status; or as ct_optimizer_step (CT_ERROR_INVALID_ARGUMENT also for
 * a NULL closure). Threads: as ct_optimizer_step. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_optimizer_step_closure(ct_optimizer* opt, ct_optimizer_closure closure,
                                                        void* user_data, double* loss);

/*
 * ct_optimizer_zero_grad - clear the parameters' gradients (optimizer.zero_grad(set_to_none)).
 *
 * set_to_none nonzero sets each grad to NULL (torch 2's default: the next backward allocates it
 * afresh, and step skips parameters without one). 0 writes zeros into each existing grad in place
 * (its version counter is bumped).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL or released opt. Threads: as
 * ct_optimizer_step. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_optimizer_zero_grad(ct_optimizer* opt, int set_to_none);

/*
 * ct_optimizer_get_lr / ct_optimizer_set_lr - the learning rate (param_groups[0]["lr"]). A
 * scheduler bound to opt reads and writes the same value.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL or released opt, a NULL out, or an lr that
 * is negative or not finite. Threads: as ct_optimizer_step. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_optimizer_get_lr(const ct_optimizer* opt, double* out);
CT_API CT_NODISCARD ct_status ct_optimizer_set_lr(ct_optimizer* opt, double lr);

/*
 * ct_optimizer_get_options / ct_optimizer_set_options - every hyperparameter at once (the rest of
 * param_groups[0]).
 *
 * get fills out's fields (the caller sets out->struct_size first; it is left as given, and a 0.8
 * struct gets the fields it has). set replaces the hyperparameters; the kind cannot change (the
 * state belongs to it). Values are checked as at creation: lr, momentum, weight_decay, eps, alpha,
 * lr_decay, initial_accumulator_value, momentum_decay >= 0 and finite; beta1, beta2 in [0, 1);
 * rho in [0, 1]; nesterov needs momentum > 0 and dampening 0. On failure
 * nothing changes. A state buffer a new setting needs (momentum turned on) starts at zero, or as
 * torch starts it (SGD's buffer takes the first grad).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released arguments, a struct_size other
 * than an older struct's (see ct_optimizer_options) and smaller than this library's
 * sizeof(ct_optimizer_options), another kind, or a value out of range.
 * Threads: as ct_optimizer_step. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_optimizer_get_options(const ct_optimizer* opt, ct_optimizer_options* out);
CT_API CT_NODISCARD ct_status ct_optimizer_set_options(ct_optimizer* opt, const ct_optimizer_options* options);

/*
 * ct_optimizer_num_params - how many parameters opt holds. ct_optimizer_param - parameter i (a new
 * reference to the tensor itself, not a copy).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released arguments; CT_ERROR_INDEX for i
 * >= the count. Threads: any thread. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_optimizer_num_params(const ct_optimizer* opt, size_t* out);
CT_API CT_NODISCARD ct_status ct_optimizer_param(const ct_optimizer* opt, size_t i, ct_tensor** out);

/*
 * ct_optimizer_state_name - the kind's j-th per-parameter state name, as torch names the keys of
 * optimizer.state[p], in torch's order: the scalars ("step"; NAdam's "mu_product"; ASGD's "eta" and
 * "mu"; SGD has none) and then the buffers (see ct_optimizer_state_save). *out is a static string:
 * never free it.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL out or an unknown kind; CT_ERROR_INDEX for j
 * past the last name (count the names by calling with j = 0, 1, ... until then).
 * Threads: any thread. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_optimizer_state_name(ct_optimizer_kind kind, size_t j, const char** out);

/*
 * ct_optimizer_state_get - parameter i's state entry called name (optimizer.state[p][name]).
 *
 * A buffer ("exp_avg", ASGD's averaged parameter "ax", ...) is the optimizer's tensor itself, a new
 * reference: what you write into it is the state the next step reads, as in torch. A scalar
 * ("step", "mu_product", "eta", "mu") is a new 0-dim float32 CPU tensor holding its value (a copy).
 * *out is NULL, with CT_OK, while the parameter has no such entry: before its first step, or a
 * buffer its options do not use (SGD without momentum, Adam without amsgrad).
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  opt NULL or released, name or out NULL, a name the kind does not
 *                              have (the message lists the kind's names)
 *   CT_ERROR_INDEX             i >= the number of parameters
 * Threads: as ct_optimizer_step. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_optimizer_state_get(const ct_optimizer* opt, size_t i, const char* name,
                                                     ct_tensor** out);

/*
 * ct_optimizer_state_save - the optimizer's state as bytes (optimizer.state_dict()): the kind, the
 * options and, per parameter, its dtype, sizes, step count and state buffers, so that a loaded
 * copy continues with the same bits. Format (every number little-endian on every platform):
 *
 *   "CTOPTIM\0"  8 bytes      magic
 *   u32 version (3), u32 kind (ct_optimizer_kind), u32 flags (bit 0 nesterov, 1 amsgrad,
 *       2 centered, 3 maximize, 4 decoupled_weight_decay), u32 0
 *   f64 lr, momentum, dampening, weight_decay, beta1, beta2, eps, alpha, lr_decay,
 *       initial_accumulator_value, momentum_decay, rho, lambd, t0, etaminus, etaplus,
 *       step_size_min, step_size_max
 *   u64 number of parameters, then per parameter:
 *     u32 dtype (ct_dtype), u32 ndim, i64 sizes[ndim], f64 step count (the optimizer steps this
 *     parameter took), f64 mu_product (NAdam's product of its momentum coefficients, a float32
 *     value as torch keeps it; 1 for other kinds), f64 eta, f64 mu (ASGD's step size and
 *     averaging coefficient, float32 values; 0 and 1 for other kinds), u32 buffer mask, u32 0,
 *     then for each bit i set in the mask (in order) the buffer's numel elements, row-major, raw.
 *     Buffers: SGD {0
 *     momentum_buffer}; Adam, AdamW {0 exp_avg, 1 exp_avg_sq, 2 max_exp_avg_sq}; RMSprop {0
 *     square_avg, 1 momentum_buffer, 2 grad_avg}; Adagrad {0 sum}; Adamax {0 exp_avg, 1 exp_inf};
 *     NAdam, RAdam {0 exp_avg, 1 exp_avg_sq}; Adadelta {0 square_avg, 1 acc_delta}; ASGD {0 ax};
 *     Rprop {0 prev, 1 step_size}. A parameter that took no step yet has mask 0. Version 1 (0.8)
 *     lacks the options after alpha, flag bit 4, mu_product, eta and mu; version 2 the six options
 *     after rho, eta and mu (and the kinds ASGD and Rprop); each loads with their defaults.
 *
 *   data, size  on CT_OK, a new buffer and its length: free it with ct_string_release. Otherwise
 *               NULL and 0.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released arguments; CT_ERROR_OUT_OF_MEMORY.
 * Threads: as ct_optimizer_step. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_optimizer_state_save(const ct_optimizer* opt, char** data, size_t* size);

/*
 * ct_optimizer_state_load - replace opt's options and state with bytes ct_optimizer_state_save
 * wrote (optimizer.load_state_dict()), for an optimizer of the same kind over parameters of the
 * same count, dtypes and sizes (the parameters' values are not part of the state: load them with
 * the model). Every field is validated before anything changes; on failure opt is unchanged. The
 * buffers are copied to each parameter's device.
 *
 *   data  borrowed, size bytes.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  NULL or released opt, data NULL with size > 0; bytes of another
 *                              kind, parameter count, dtype or sizes than opt's (the message
 *                              names the parameter and both values)
 *   CT_ERROR_FORMAT            not optimizer state (magic), a newer version, truncated data,
 *                              trailing bytes, an unknown flag or buffer bit, a negative or
 *                              non-integral step, an option out of range (the message gives the
 *                              byte offset)
 *   CT_ERROR_OUT_OF_MEMORY
 * Threads: as ct_optimizer_step. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_optimizer_state_load(ct_optimizer* opt, const void* data, size_t size);

/* Learning-rate schedules (torch.optim.lr_scheduler). Values fixed forever; appended only. */
typedef enum ct_lr_scheduler_kind {
  CT_LR_SCHEDULER_STEP = 0,   /* StepLR: lr *= gamma every step_size steps */
  CT_LR_SCHEDULER_COSINE = 1, /* CosineAnnealingLR: from the initial lr down to eta_min over t_max steps */
  CT_LR_SCHEDULER_LINEAR = 2, /* LinearLR: the factor goes from start_factor to end_factor over
                                 total_iters steps (linear warm-up) */
  CT_LR_SCHEDULER_EXPONENTIAL = 3, /* ExponentialLR: lr *= gamma every step. Since 0.9 */
  CT_LR_SCHEDULER_MULTISTEP = 4,   /* MultiStepLR: lr *= gamma at each of the milestones. Since 0.9 */
  CT_LR_SCHEDULER_CONSTANT = 5,    /* ConstantLR: lr * factor until total_iters steps. Since 0.9 */
  CT_LR_SCHEDULER_POLYNOMIAL = 6,  /* PolynomialLR: (1 - e / total_iters)^power decay. Since 0.9 */
  CT_LR_SCHEDULER_COSINE_WARM_RESTARTS = 7 /* CosineAnnealingWarmRestarts: cosine from the base lr to
                                              eta_min over t_0 steps, restarting with periods
                                              multiplied by t_mult. Since 0.9 */
} ct_lr_scheduler_kind;

/*
 * ct_lr_scheduler_options - a schedule's settings (size-first, as ct_optimizer_options). Fields
 * another kind uses are ignored. ct_lr_scheduler_options_default gives torch's defaults:
 * step_size 1 (torch requires one), gamma 0.1, t_max 1 (torch requires one), eta_min 0,
 * start_factor 1/3, end_factor 1, total_iters 5, no milestones, factor 1/3, power 1, t_0 1 (torch
 * requires one), t_mult 1, base_lr 0 (the optimizer's lr). A struct_size of 0.8's struct (which
 * ends at total_iters) is accepted: the fields after it take these defaults.
 */
typedef struct ct_lr_scheduler_options {
  size_t struct_size;        /* sizeof(ct_lr_scheduler_options) */
  ct_lr_scheduler_kind kind;
  int64_t step_size;         /* STEP: >= 1 */
  double gamma;              /* STEP: >= 0 */
  int64_t t_max;             /* COSINE: >= 1 */
  double eta_min;            /* COSINE: >= 0 */
  double start_factor;       /* LINEAR: in (0, 1] */
  double end_factor;         /* LINEAR: in [0, 1] */
  int64_t total_iters;       /* LINEAR: >= 0; CONSTANT, POLYNOMIAL: >= 0 (POLYNOMIAL: >= 1) */
  /* Since 0.9: */
  const int64_t* milestones; /* MULTISTEP: borrowed, copied by ct_lr_scheduler_create; a milestone
                                given twice decays twice, as torch's Counter */
  size_t num_milestones;     /* MULTISTEP: the number of milestones (NULL milestones: 0) */
  double factor;             /* CONSTANT: in (0, 1] */
  double power;              /* POLYNOMIAL: finite */
  int64_t t_0;               /* COSINE_WARM_RESTARTS: >= 1 */
  int64_t t_mult;            /* COSINE_WARM_RESTARTS: >= 1 */
  double base_lr;            /* the base lr the formulas start from (torch's group["initial_lr"], set
                                by the first scheduler of an optimizer): > 0, or 0 for the
                                optimizer's lr at creation */
} ct_lr_scheduler_options;

/* A schedule bound to one optimizer (retained); reference-counted. */
typedef struct ct_lr_scheduler ct_lr_scheduler;

/* ct_lr_scheduler_options_default - fill *out with kind's defaults (above). Returns CT_OK;
 * CT_ERROR_INVALID_ARGUMENT for a NULL out or an unknown kind. Since 0.8. */
CT_API CT_NODISCARD ct_status ct_lr_scheduler_options_default(ct_lr_scheduler_kind kind,
                                                              ct_lr_scheduler_options* out);

/*
 * ct_lr_scheduler_create - a schedule over opt's learning rate (torch's constructor with
 * last_epoch -1): the current lr becomes the base lr (unless options->base_lr gives one), and the
 * schedule's step 0 is applied at once to the current lr (LinearLR multiplies it by start_factor;
 * ConstantLR by factor; the others keep it).
 *
 * Each ct_lr_scheduler_step then advances the step count e and sets the lr with torch's recursive
 * formulas, which read the optimizer's current lr (so an lr changed by hand carries on, as in
 * torch):
 *   STEP     lr * gamma when e % step_size == 0, else lr
 *   COSINE   (1 + cos(pi e / t_max)) / (1 + cos(pi (e - 1) / t_max)) * (lr - eta_min) + eta_min,
 *            and lr + (base - eta_min) (1 - cos(pi / t_max)) / 2 when (e - 1 - t_max) % (2 t_max) == 0
 *   LINEAR   lr * (1 + (end - start) / (total_iters * start + (e - 1) (end - start))) while
 *            e <= total_iters, then lr
 *   EXPONENTIAL  lr * gamma (from step 1)
 *   MULTISTEP    lr * gamma^k when e is a milestone given k times, else lr
 *   CONSTANT     lr * factor at creation, lr / factor at e == total_iters, else lr
 *   POLYNOMIAL   lr * ((1 - e / total_iters) / (1 - (e - 1) / total_iters))^power while
 *                1 <= e <= total_iters, then lr
 *   COSINE_WARM_RESTARTS  eta_min + (base - eta_min) (1 + cos(pi t / T)) / 2, t the steps since the
 *                last restart and T the current period (t_0, then times t_mult at each restart);
 *                not recursive: an lr changed by hand is overwritten
 *
 *   opt      retained until the scheduler is freed.
 *   options  borrowed.
 *   out      on CT_OK, a new reference: end it with ct_lr_scheduler_release. Otherwise NULL.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released arguments, a struct_size that is
 * neither 0.8's nor at least this one's, an unknown kind, milestones NULL with num_milestones > 0, a
 * negative or non-finite base_lr, or a setting out of range (the message names it);
 * CT_ERROR_OUT_OF_MEMORY when the milestones' copy cannot be made. Threads: any thread. Since 0.8
 * (the kinds and fields marked 0.9 since 0.9).
 */
CT_API CT_NODISCARD ct_status ct_lr_scheduler_create(ct_optimizer* opt, const ct_lr_scheduler_options* options,
                                                     ct_lr_scheduler** out);

/* ct_lr_scheduler_retain / ct_lr_scheduler_release - as ct_optimizer_retain and _release (the
 * last release also releases the optimizer). Since 0.8. */
CT_API CT_NODISCARD ct_status ct_lr_scheduler_retain(ct_lr_scheduler* sched);
CT_API void ct_lr_scheduler_release(ct_lr_scheduler* sched);

/*
 * ct_lr_scheduler_step - advance one step and set the optimizer's lr (scheduler.step(); call it
 * after ct_optimizer_step). ct_lr_scheduler_get_last_lr - the lr the last step (or the creation)
 * set (scheduler.get_last_lr()[0]). ct_lr_scheduler_get_last_epoch - the step count e
 * (scheduler.last_epoch; 0 right after creation).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released arguments. Threads: calls on one
 * scheduler are serialized; it writes the optimizer's lr under the optimizer's lock. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_lr_scheduler_step(ct_lr_scheduler* sched);
CT_API CT_NODISCARD ct_status ct_lr_scheduler_get_last_lr(const ct_lr_scheduler* sched, double* out);
CT_API CT_NODISCARD ct_status ct_lr_scheduler_get_last_epoch(const ct_lr_scheduler* sched, int64_t* out);

/*
 * ct_lr_scheduler_restart - start the schedule again from its base lr (scheduler.step(0), as
 * torch's SequentialLR does at a milestone): the step count becomes 0 and the optimizer's lr the
 * schedule's value at step 0 from the base lr (the base lr itself, times start_factor for LINEAR,
 * factor for CONSTANT, gamma per milestone at 0 for MULTISTEP).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL or released sched. Threads: as
 * ct_lr_scheduler_step. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_lr_scheduler_restart(ct_lr_scheduler* sched);

/*
 * ct_clip_grad_norm - scale the gradients of params so that their combined norm is at most
 * max_norm (torch.nn.utils.clip_grad_norm_).
 *
 * The total norm is the norm_type-norm of the vector of each grad's norm_type-norm (norm_type
 * INFINITY: the largest absolute value), computed in the grads' dtype. Each grad is then
 * multiplied in place by min(max_norm / (total + 1e-6), 1), also in that dtype, so grads already
 * within the bound are left as they are (multiplied by 1). Parameters without a grad are skipped;
 * with none at all the total is 0. A non-finite total scales by NaN or 0, as torch does without
 * error_if_nonfinite.
 *
 *   params      borrowed array of n tensors (typically those of an optimizer).
 *   total_norm  filled with the total norm before clipping (may be NULL).
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  params NULL with n > 0, a NULL or released parameter, max_norm
 *                              negative or NaN, norm_type NaN or negative
 *   CT_ERROR_DTYPE             grads of different dtypes
 *   CT_ERROR_DEVICE            grads on different devices
 * Threads: no other thread may use the grads meanwhile. Determinism: bitwise for any thread
 * count. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_clip_grad_norm(const ct_tensor* const* params, size_t n, double max_norm,
                                                double norm_type, double* total_norm);

/*
 * ct_clip_grad_value - clamp every element of the params' grads into [-clip_value, clip_value], in
 * place (torch.nn.utils.clip_grad_value_). Parameters without a grad are skipped.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released arguments or a negative or NaN
 * clip_value. Threads: as ct_clip_grad_norm. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_clip_grad_value(const ct_tensor* const* params, size_t n, double clip_value);

/*
 * Initializers (torch.nn.init). Each fills t in place with grad mode off (so a parameter that
 * requires grad can be initialized), draws from gen or, when NULL, the default generator of t's
 * device, and bumps t's version counter. The numbers are ctorch's Philox stream (see "Random
 * numbers"), so a seed reproduces them exactly on every machine and thread count; they are not
 * the numbers torch's generator draws for the same seed.
 *
 *   ct_init_uniform_         U(a, b)
 *   ct_init_normal_          N(mean, std^2)
 *   ct_init_xavier_uniform_  U(-g sqrt(6 / (fan_in + fan_out)), +...)
 *   ct_init_xavier_normal_   N(0, g^2 * 2 / (fan_in + fan_out))
 *   ct_init_kaiming_uniform_ U(-bound, bound), bound = sqrt(3) * gain(nonlinearity, a) / sqrt(fan)
 *   ct_init_kaiming_normal_  N(0, (gain(nonlinearity, a) / sqrt(fan))^2)
 * where fan is fan_in or fan_out by mode ("fan_in" or "fan_out"; NULL means "fan_in"),
 * nonlinearity a name ct_init_calculate_gain knows (NULL means "leaky_relu", torch's default) and
 * a its parameter (the negative slope of leaky_relu; torch's default 0). A tensor with no elements
 * is left as it is (torch warns and does the same).
 *
 *   t    borrowed; a floating tensor with data.   gen  borrowed, may be NULL.
 *
 * Returns
 *   CT_OK
 *   CT_ERROR_INVALID_ARGUMENT  t NULL or released, a released gen, a > b, std < 0, a non-finite
 *                              bound, an unknown mode or nonlinearity, an inference tensor
 *                              outside inference mode
 *   CT_ERROR_SHAPE             xavier_* and kaiming_* on a tensor of fewer than 2 dims (its fans
 *                              are undefined)
 *   CT_ERROR_DTYPE             an integral t
 *   CT_ERROR_DEVICE            a meta t, or gen of another device type
 * Threads: no other thread may use t meanwhile. Determinism: bitwise for any thread count.
 * Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_init_uniform_(ct_tensor* t, double a, double b, ct_generator* gen);
CT_API CT_NODISCARD ct_status ct_init_normal_(ct_tensor* t, double mean, double std, ct_generator* gen);
CT_API CT_NODISCARD ct_status ct_init_xavier_uniform_(ct_tensor* t, double gain, ct_generator* gen);
CT_API CT_NODISCARD ct_status ct_init_xavier_normal_(ct_tensor* t, double gain, ct_generator* gen);
CT_API CT_NODISCARD ct_status ct_init_kaiming_uniform_(ct_tensor* t, double a, const char* mode,
                                                       const char* nonlinearity, ct_generator* gen);
CT_API CT_NODISCARD ct_status ct_init_kaiming_normal_(ct_tensor* t, double a, const char* mode,
                                                      const char* nonlinearity, ct_generator* gen);

/*
 * The structured initializers of torch.nn.init, filling t in place as those above (grad mode off,
 * gen or the device's default generator, version bumped):
 *
 *   ct_init_trunc_normal_  N(mean, std^2) restricted to [a, b]: U(2 Phi(alpha) - 1, 2 Phi(beta) - 1)
 *                          through sqrt(2) erfinv, scaled, shifted and clamped, as torch's
 *                          (alpha, beta the standardized bounds; std > 0, finite a < b)
 *   ct_init_orthogonal_    an orthogonal matrix (semi-orthogonal when not square) over t's first
 *                          dim and the rest flattened, times gain: the Q of a Gaussian matrix's QR
 *                          (LAPACK's dgeqrf and dorgqr, in double) with its columns' signs set by
 *                          R's diagonal, so Q is uniformly (Haar) distributed; 2 or more dims
 *   ct_init_sparse_        N(0, std^2), then ceil(sparsity * rows) zeros in each column at rows a
 *                          permutation picks (drawn on the CPU, from gen when it is a CPU
 *                          generator); 2-D, sparsity in [0, 1]
 *   ct_init_eye_           the identity (ones on the diagonal of a 2-D t, rectangular or not)
 *   ct_init_dirac_         the Dirac delta of a convolution weight [out, in, *k] (3 to 5 dims): a 1
 *                          at the kernel's center for out channel g * out / groups + d and in
 *                          channel d, d < min(out / groups, in); groups must divide out
 *
 * Returns as the initializers above; CT_ERROR_SHAPE for dims the initializer does not take,
 * CT_ERROR_INVALID_ARGUMENT for bad std, bounds, sparsity or groups. A tensor with no elements is
 * left as it is. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_init_trunc_normal_(ct_tensor* t, double mean, double std, double a, double b,
                                                    ct_generator* gen);
CT_API CT_NODISCARD ct_status ct_init_orthogonal_(ct_tensor* t, double gain, ct_generator* gen);
CT_API CT_NODISCARD ct_status ct_init_sparse_(ct_tensor* t, double sparsity, double std, ct_generator* gen);
CT_API CT_NODISCARD ct_status ct_init_eye_(ct_tensor* t);
CT_API CT_NODISCARD ct_status ct_init_dirac_(ct_tensor* t, int64_t groups);

/*
 * ct_init_linear_ - the default initialization of torch.nn.Linear and of Conv1d/2d/3d (their
 * reset_parameters): weight by kaiming_uniform_ with a = sqrt(5) (so U(-1/sqrt(fan_in),
 * 1/sqrt(fan_in))), then bias, when not NULL, from U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (all zeros
 * when fan_in is 0). weight is [out, in] or [out, in / groups, *kernel]; the weight's draws come
 * first, then the bias's, from the same generator.
 *
 * Returns as the initializers above, and CT_ERROR_SHAPE for a weight of fewer than 2 dims.
 * Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_init_linear_(ct_tensor* weight, ct_tensor* bias, ct_generator* gen);

/*
 * ct_init_calculate_gain - torch.nn.init.calculate_gain: 1 for "linear", "conv1d", "conv2d",
 * "conv3d", "conv_transpose1d/2d/3d" and "sigmoid"; 5/3 for "tanh"; sqrt(2) for "relu";
 * sqrt(2 / (1 + param^2)) for "leaky_relu" (param the negative slope; torch's default is 0.01);
 * 3/4 for "selu". param is ignored for the others.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL out or nonlinearity, or an unknown name (the
 * message lists the known ones). Threads: any thread. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_init_calculate_gain(const char* nonlinearity, double param, double* out);

/*
 * ct_init_calculate_fan_in_and_fan_out - torch.nn.init._calculate_fan_in_and_fan_out: for sizes
 * [out, in, *k], fan_in = in * prod(k) and fan_out = out * prod(k).
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released arguments; CT_ERROR_SHAPE for a
 * tensor of fewer than 2 dims. Threads: any thread. Since 0.8.
 */
CT_API CT_NODISCARD ct_status ct_init_calculate_fan_in_and_fan_out(const ct_tensor* t, int64_t* fan_in,
                                                                   int64_t* fan_out);


/* ---- Distributed: process groups and collectives ----
 *
 * torch.distributed over engines people already run: "gloo" (TCP, CPU tensors), "mpi" (the MPI
 * library that launched the process, CPU tensors) and "nccl" (CUDA tensors). Each engine is a
 * module next to the library (libctorch_gloo.so, libctorch_mpi.so, libctorch_nccl.so), built when
 * its development package was found and loaded on first use, so a program that never calls
 * ct_dist_* never loads MPI or NCCL. Every process of a group calls the same collectives in the same
 * order with tensors of the same sizes and dtype (SPMD), as with torch.distributed.
 *
 * Tensors must be contiguous and on the engine's device (CPU for gloo and mpi, CUDA for nccl).
 * Collectives write their results in place into the tensors given for them; a failed collective
 * may have written part of its output (the engine cannot undo a transfer), which the message says.
 *
 * Asynchronous operations: every collective takes `ct_work** work`. NULL runs it to completion
 * before returning (torch's async_op=False). Non-NULL returns at once with *work a new handle
 * (async_op=True): the group's queue runs its operations one at a time, in the order they were
 * issued, and keeps the tensors alive until then. Read the outputs only after ct_work_wait.
 *
 * Timeouts and faults: a group's timeout bounds every operation in it and the rendezvous that
 * makes it. A rank that never arrives or dies gives the others CT_ERROR_TIMEOUT or
 * CT_ERROR_DISTRIBUTED, never a hang past the timeout or an abort; the message names the missing
 * ranks where the engine lets them be known (gloo and nccl through the store; under mpirun the
 * launcher ends the whole job when one process dies, which is MPI's own behavior).
 *
 * Determinism: with ct_use_deterministic_algorithms on, ct_dist_all_reduce, ct_dist_reduce and the
 * two reduce_scatter functions combine the ranks' values in rank order 0, 1, ..., n-1 on every
 * rank, so results are bitwise the same run to run for a fixed world size, on every engine. Off, each engine picks its own algorithm
 * (docs/distributed.md says what each guarantees).
 *
 * Threads: a group's functions may be called from any thread; operations issued from several
 * threads run in the order the queue received them, which differs between ranks unless the program
 * orders them itself.
 */
typedef struct ct_process_group ct_process_group;
typedef struct ct_work ct_work;

/* How a reduction combines the ranks' values (torch.distributed.ReduceOp). CT_REDUCE_AVG divides
   the sum by the group's size (floating dtypes only, as torch). */
typedef enum ct_reduce_op {
  CT_REDUCE_SUM = 0,
  CT_REDUCE_PRODUCT = 1,
  CT_REDUCE_MIN = 2,
  CT_REDUCE_MAX = 3,
  CT_REDUCE_AVG = 4
} ct_reduce_op;

/*
 * ct_dist_is_backend_available - write 1 to out when the engine named backend ("gloo", "mpi",
 * "nccl") was built and its module loads, else 0 (torch.distributed.is_gloo_available() ...).
 * When it is 0, ct_last_error() says why: not built (which package to install and rebuild) or the
 * module's load error.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for a NULL argument or an unknown name (the message
 * lists the known ones). Threads: any thread. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_dist_is_backend_available(const char* backend, int* out);

/*
 * ct_dist_init_process_group - join the processes of one job into a group
 * (torch.distributed.init_process_group).
 *
 *   backend          "gloo", "mpi" or "nccl"
 *   init_method      where the ranks meet: "env://" (or NULL: MASTER_ADDR and MASTER_PORT from the
 *                    environment, as torchrun sets them; rank 0 serves a key-value store there),
 *                    "tcp://HOST:PORT" (the same with the address given), or "file:///PATH" (a
 *                    directory on a file system every rank sees, which must be empty at the start).
 *                    The mpi backend takes none of these: MPI's launcher already joined the ranks.
 *   rank, world_size this process's rank and the number of processes; -1 reads RANK and WORLD_SIZE
 *                    from the environment (under mpirun, OMPI_COMM_WORLD_RANK and _SIZE; the mpi
 *                    backend always takes them from MPI, and refuses values that disagree)
 *   timeout_seconds  bound on the rendezvous and on every later operation of the group; <= 0 means
 *                    1800 (torch's default for gloo)
 *   out              on CT_OK, a new group; end it with ct_process_group_destroy. Otherwise NULL.
 *
 * A process may be in several groups at once (ct_dist_new_group). Returns CT_OK;
 * CT_ERROR_INVALID_ARGUMENT for NULL out, an unknown backend or init_method, a missing or bad
 * environment variable (the message names it), or a rank outside [0, world_size);
 * CT_ERROR_BACKEND when the engine is not built or cannot load (the message says what to
 * install); CT_ERROR_DEVICE for nccl in a process that sees no CUDA device (the message says why);
 * CT_ERROR_TIMEOUT when not all ranks arrived within timeout_seconds (the message names the
 * missing ranks); CT_ERROR_DISTRIBUTED when the store's port is taken or a connection failed. It
 * returns once every rank has finished joining, so a rank that exits at once breaks no peer's join.
 * Threads: any thread. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_dist_init_process_group(const char* backend, const char* init_method, int rank,
                                                         int world_size, double timeout_seconds,
                                                         ct_process_group** out);

/*
 * ct_dist_new_group - a group of some of pg's ranks (torch.distributed.new_group). Every rank of pg
 * calls it with the same ranks (distinct, each in [0, size of pg)), members or not, in the same
 * order as its other new_group calls. A member's new group numbers the listed ranks 0, 1, ... in
 * the order given; a rank not listed gets a group whose ct_dist_get_rank is -1 and whose
 * collectives return CT_ERROR_INVALID_ARGUMENT (torch's GroupMember.NON_GROUP_MEMBER).
 * timeout_seconds <= 0 takes pg's. *out is a new group; end it with ct_process_group_destroy.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL or released arguments, or bad ranks;
 * CT_ERROR_TIMEOUT / CT_ERROR_DISTRIBUTED as for ct_dist_init_process_group. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_dist_new_group(ct_process_group* pg, const int* ranks, size_t n_ranks,
                                                double timeout_seconds, ct_process_group** out);

/*
 * ct_process_group_destroy - finish the operations still queued, close the group's connections and
 * free it (torch.distributed.destroy_process_group); NULL is a no-op. Work handles of the group
 * stay valid to wait on and release. Destroying the last group of the mpi engine does not call
 * MPI_Finalize until the process exits, since MPI cannot be initialized twice. Since 0.9.
 */
CT_API void ct_process_group_destroy(ct_process_group* pg);

/* This process's rank in pg (-1 when not a member), pg's number of ranks, and its engine's name
   ("gloo", "mpi", "nccl"; a static string, and NULL when the call fails). CT_ERROR_INVALID_ARGUMENT
   for NULL or released arguments. Since 0.9. */
CT_API CT_NODISCARD ct_status ct_dist_get_rank(const ct_process_group* pg, int* out);
CT_API CT_NODISCARD ct_status ct_dist_get_world_size(const ct_process_group* pg, int* out);
CT_API CT_NODISCARD ct_status ct_dist_get_backend(const ct_process_group* pg, const char** out);

/*
 * The collectives. In each, pg is the group; work is NULL to wait for the result, or receives a new
 * handle (see "Asynchronous operations" above). Ranks are pg's own (0 .. size-1). Lists have one
 * tensor per rank of pg, all of the same sizes and dtype. Each returns CT_OK (for an asynchronous
 * call: the operation was queued; its outcome comes from ct_work_wait); CT_ERROR_INVALID_ARGUMENT
 * for NULL or released arguments, a pg this rank is not a member of, a list of the wrong length or
 * a rank out of range; CT_ERROR_SHAPE for tensors whose sizes do not fit each other or that are
 * not contiguous; CT_ERROR_DTYPE for mixed dtypes or one the engine cannot reduce (the message
 * lists those it can); CT_ERROR_DEVICE for a tensor on a device the engine does not serve;
 * CT_ERROR_TIMEOUT / CT_ERROR_DISTRIBUTED as above, and CT_ERROR_DISTRIBUTED on every rank when
 * the ranks passed different operations, sizes or dtypes where the engine would otherwise abort
 * (gloo; docs/distributed.md). Since 0.9.
 */
/* t := op over every rank's t (torch.distributed.all_reduce). */
CT_API CT_NODISCARD ct_status ct_dist_all_reduce(ct_process_group* pg, ct_tensor* t, ct_reduce_op op, ct_work** work);
/* t := src's t on every rank. */
CT_API CT_NODISCARD ct_status ct_dist_broadcast(ct_process_group* pg, ct_tensor* t, int src, ct_work** work);
/* On dst, t := op over every rank's t; other ranks' t is left as it was. */
CT_API CT_NODISCARD ct_status ct_dist_reduce(ct_process_group* pg, ct_tensor* t, int dst, ct_reduce_op op,
                                             ct_work** work);
/* outputs[r] := rank r's input, on every rank (torch.distributed.all_gather). */
CT_API CT_NODISCARD ct_status ct_dist_all_gather(ct_process_group* pg, ct_tensor* const* outputs, size_t n_outputs,
                                                 const ct_tensor* input, ct_work** work);
/* output (size * input's first dim, or [size, *input.sizes] flattened to the same elements) :=
   the ranks' inputs concatenated in rank order (all_gather_into_tensor). */
CT_API CT_NODISCARD ct_status ct_dist_all_gather_into_tensor(ct_process_group* pg, ct_tensor* output,
                                                             const ct_tensor* input, ct_work** work);
/* output := op over every rank's inputs[this rank] (torch.distributed.reduce_scatter). */
CT_API CT_NODISCARD ct_status ct_dist_reduce_scatter(ct_process_group* pg, ct_tensor* output,
                                                     const ct_tensor* const* inputs, size_t n_inputs,
                                                     ct_reduce_op op, ct_work** work);
/* output := op over every rank's block `this rank` of input, input being size blocks of output's
   elements in rank order (reduce_scatter_tensor). */
CT_API CT_NODISCARD ct_status ct_dist_reduce_scatter_tensor(ct_process_group* pg, ct_tensor* output,
                                                            const ct_tensor* input, ct_reduce_op op, ct_work** work);
/* On dst, outputs[r] := rank r's input; other ranks pass n_outputs = 0 (torch.distributed.gather). */
CT_API CT_NODISCARD ct_status ct_dist_gather(ct_process_group* pg, const ct_tensor* input, ct_tensor* const* outputs,
                                             size_t n_outputs, int dst, ct_work** work);
/* output := src's inputs[this rank]; ranks other than src pass n_inputs = 0 (torch.distributed.scatter). */
CT_API CT_NODISCARD ct_status ct_dist_scatter(ct_process_group* pg, ct_tensor* output, const ct_tensor* const* inputs,
                                              size_t n_inputs, int src, ct_work** work);
/* outputs[r] := rank r's inputs[this rank] (torch.distributed.all_to_all; equal sizes). */
CT_API CT_NODISCARD ct_status ct_dist_all_to_all(ct_process_group* pg, ct_tensor* const* outputs,
                                                 const ct_tensor* const* inputs, size_t n, ct_work** work);
/* output's block r := rank r's input block `this rank`, blocks being equal splits of the first dim
   (all_to_all_single without split sizes). */
CT_API CT_NODISCARD ct_status ct_dist_all_to_all_single(ct_process_group* pg, ct_tensor* output,
                                                        const ct_tensor* input, ct_work** work);
/* Point to point: t goes to rank dst, which receives it into a tensor of the same sizes and dtype
   with ct_dist_recv from src; tag, in [0, 2^29), tells apart messages between the same two ranks.
   They run outside the group's queue, so sends posted asynchronously may be received in another
   order; a synchronous send may wait until its receive is posted. A receive into a tensor of
   another byte size than the message is CT_ERROR_SHAPE naming both (gloo, mpi). */
CT_API CT_NODISCARD ct_status ct_dist_send(ct_process_group* pg, const ct_tensor* t, int dst, int tag, ct_work** work);
CT_API CT_NODISCARD ct_status ct_dist_recv(ct_process_group* pg, ct_tensor* t, int src, int tag, ct_work** work);
/* Returns once every rank of pg has called it (torch.distributed.barrier). */
CT_API CT_NODISCARD ct_status ct_dist_barrier(ct_process_group* pg, ct_work** work);

/*
 * ct_work_wait - wait until an asynchronous operation finishes, at most timeout_seconds (<= 0: the
 * group's timeout). Returns the operation's own status, with its message in ct_last_error (the
 * same status on every later wait); CT_ERROR_TIMEOUT when it has not finished in time (it goes on:
 * wait again, or destroy the group); CT_ERROR_INVALID_ARGUMENT for a NULL or released w.
 * Threads: any thread, several at once. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_work_wait(ct_work* w, double timeout_seconds);
/* ct_work_is_completed - write 1 to out when w has finished (successfully or not), else 0; never
   blocks (Work.is_completed()). CT_ERROR_INVALID_ARGUMENT for NULL or released arguments. Since 0.9. */
CT_API CT_NODISCARD ct_status ct_work_is_completed(ct_work* w, int* out);
/* ct_work_release - drop the handle; an unfinished operation still runs to its end. NULL is a
   no-op. Since 0.9. */
CT_API void ct_work_release(ct_work* w);

/* ---- Autograd: hooks after accumulation ---- */

/*
 * A post-accumulate hook runs after a leaf's gradient for one backward has been added into its grad
 * (torch's Tensor.register_post_accumulate_grad_hook): t is the leaf, borrowed for the call; read
 * or change its grad with ct_tensor_grad / ct_tensor_set_grad. On failure it calls ct_error_set
 * and returns that status; backward then stops with it.
 */
typedef ct_status (*ct_post_accumulate_hook_fn)(void* user_data, ct_tensor* t);

/*
 * ct_tensor_register_post_accumulate_grad_hook - run fn after each later backward has accumulated
 * into leaf t's grad; *id names the hook for ct_tensor_remove_hook. user_data and destroy as for
 * ct_tensor_register_hook. Data-parallel training uses it to start reducing a gradient while
 * backward goes on.
 *
 * Returns CT_OK; CT_ERROR_INVALID_ARGUMENT for NULL arguments, or a t that is not a leaf that
 * requires grad. Since 0.9.
 */
CT_API CT_NODISCARD ct_status ct_tensor_register_post_accumulate_grad_hook(ct_tensor* t, ct_post_accumulate_hook_fn fn,
                                                                           void* user_data, ct_destroy_fn destroy,
                                                                           int64_t* id);

#ifdef __cplusplus
}
#endif

/* ---- Operators: every other overload ----
 *
 * ctorch_ops.h, generated from the operator registry, declares a typed function for every
 * operator overload that has no hand-written function above: ct_tensor_copysign,
 * ct_tensor_lgamma_, ct_tensor_var_mean_correction... Its opening comment gives the rules its
 * arguments follow. Every operator is also callable by name through ct_op_call.
 */
#include "ctorch_ops.h"

#endif /* CTORCH_H */
