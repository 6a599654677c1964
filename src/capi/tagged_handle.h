// tagged_handle.h - handles that are a tagged struct in a pool slot (ct_compiled, ct_program,
// ct_checkpoint, ct_optimizer, ...; refcounted ones also have an atomic `refs`).
//
// The struct's first field is a uint32_t tag. The slot's memory is never returned to the system,
// so reading the tag of a released handle is a valid read, and NULL, released and wrong-kind
// handles are refused on entry (Note [Handle poisoning]).
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

/// Destroys h, poisons its tag (so a later use is refused) and frees the slot.
template <typename H>
void free_tagged(H* h) {
  h->~H();
  *reinterpret_cast<volatile uint32_t*>(static_cast<void*>(h)) = kDeadHandleTag;
  SlotPool<sizeof(H), alignof(H)>::deallocate(h);
}

/// Whether h is a live handle of this tag (false for NULL and released ones).
template <typename H>
bool is_live_tagged(const H* h, uint32_t tag) {
  if (!h) return false;
  uint32_t t;
  std::memcpy(&t, h, sizeof t);
  return t == tag;
}

/// Ends one reference of h (a struct with an atomic `refs`); the last one frees it. NULL and
/// handles not live with this tag are no-ops.
template <typename H>
void release_tagged(H* h, uint32_t tag) {
  if (is_live_tagged(h, tag) && h->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) free_tagged(h);
}

/// Frees h, a handle with a single owner (no `refs`). NULL and handles not live are no-ops.
template <typename H>
void release_single_tagged(H* h, uint32_t tag) {
  if (is_live_tagged(h, tag)) free_tagged(h);
}

}  // namespace ct::capi
