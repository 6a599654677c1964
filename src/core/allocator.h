// allocator.h - the CPU allocator: 64-byte aligned blocks, large freed blocks kept for reuse.
//
// Note [Reusing large blocks]
// A fresh large allocation comes back from the system as untouched pages, and the first write to
// each page faults; for a streaming kernel that fault costs more than the arithmetic. malloc's own
// free lists do not prevent it: glibc returns a freed block at the top of the heap to the system
// once it exceeds its trim threshold, so a training step whose activations are 100 KiB to 1 MiB
// faults them all in again on every step (a small CNN ran at half speed from C for that alone).
// Freed blocks of 64 KiB and more are therefore cached (up to kCacheLimit bytes in all) and handed
// to the next request of a size they fit without wasting more than a quarter of themselves.
#pragma once

#include <cstddef>

#include "core/device.h"

namespace ct {

/// 64-byte aligned memory of at least nbytes; raises CT_ERROR_OUT_OF_MEMORY when the system refuses
/// even after the cache is emptied.
void* cpu_allocate(size_t nbytes);
/// Returns a block from cpu_allocate; nbytes must be the size it was asked for.
void cpu_free(void* p, size_t nbytes);
/// Note [Memory pressure]: a host (a garbage-collected language, say) may install a hook that is
/// called when an allocation fails even after the cache is emptied. It returns true when it freed
/// something, and the allocation is retried (at most kPressureRetries times).
using MemoryPressureHook = bool (*)(void* ctx, DeviceType device, size_t nbytes);
constexpr int kPressureRetries = 3;
void set_memory_pressure_hook(MemoryPressureHook hook, void* ctx);
/// Runs the hook for a failed allocation; false when there is none or it freed nothing.
bool relieve_memory_pressure(DeviceType device, size_t nbytes);

/// Gives every cached block back to the system.
void cpu_empty_cache();
/// Bytes currently held in the cache.
size_t cpu_cached_bytes();
/// Bytes handed out by cpu_allocate and not yet freed (small tensors stored inline not counted).
size_t cpu_allocated_bytes();
/// Blocks handed out by cpu_allocate and not yet freed.
size_t cpu_live_allocations();

}  // namespace ct
