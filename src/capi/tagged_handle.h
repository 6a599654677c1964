// tagged_handle.h - handles that are a tagged, refcounted struct in a pool slot (ct_checkpoint).
//
// The struct's first field is a uint32_t tag. The slot's memory is never returned to the system,
// so reading the tag of a released handle is a valid read, and NULL, released and wrong-kind
// handles are refused on entry (Note [Handle poisoning]). src/capi/compile.cpp keeps its own copy
// of the same scheme for ct_compiled and ct_program.
#pragma once

#include <cstring>

#include "core/error.h"
#include "core/object_pool.h"

namespace ct::capi {

constexpr uint32_t kDeadHandleTag = 0xdeadc0deu;

/// A new handle of type H in a pool slot, its tag set.
template <typename H>
H* new_tagged(uint32_t tag) {
  H* h = new (SlotPool<sizeof(H), alignof(H)>::allocate()) H();
  h->tag = tag;
  return h;
}

/// The live handle h of this tag; CT_ERROR_INVALID_ARGUMENT naming fn and what when NULL or not live.
template <typename H>
H& live_tagged(H* h, uint32_t tag, const char* fn, const char* what) {
  CT_CHECK(h, CT_ERROR_INVALID_ARGUMENT, fn, ": ", what, " is NULL");
  uint32_t t;
  std::memcpy(&t, h, sizeof t);
  CT_CHECK(t == tag, CT_ERROR_INVALID_ARGUMENT, fn, ": ", what,
           " is a released or invalid handle. Keep a reference while using it");
  return *h;
}

/// Ends one reference of h (a struct with an atomic `refs`); the last one poisons the tag and
/// frees the slot. NULL and handles not live with this tag are no-ops.
template <typename H>
void release_tagged(H* h, uint32_t tag) {
  if (!h) return;
  uint32_t t;
  std::memcpy(&t, h, sizeof t);
  if (t != tag || h->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  h->~H();
  *reinterpret_cast<volatile uint32_t*>(static_cast<void*>(h)) = kDeadHandleTag;
  SlotPool<sizeof(H), alignof(H)>::deallocate(h);
}

}  // namespace ct::capi
