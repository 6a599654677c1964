// Every operator new of libctorch.so counted and failable: Note [Allocation-failure injection].
//
// Built into the shared library only, and only with CTORCH_FAULT_INJECTION (src/CMakeLists.txt).
// The version script keeps these definitions local, so they replace operator new for the
// library's own code and nobody else's; each forwards to the process's operator new (the C++
// runtime's, or a sanitizer's), which dlsym still finds because ours are not exported. Forwarding
// instead of calling malloc keeps every pointer paired with the allocator that will free it.
#ifdef CTORCH_FAULT_INJECTION

#include <dlfcn.h>

#include <cstdlib>
#include <new>

#include "core/fault_injection.h"

namespace {

template <typename Fn>
Fn process_new(const char* mangled) {
  void* f = dlsym(RTLD_DEFAULT, mangled);
  if (!f) std::abort();  // no C++ runtime in the process: nothing could allocate
  return reinterpret_cast<Fn>(f);
}

using New = void* (*)(std::size_t);
using NewAligned = void* (*)(std::size_t, std::align_val_t);
using NewNothrow = void* (*)(std::size_t, const std::nothrow_t&) noexcept;
using NewAlignedNothrow = void* (*)(std::size_t, std::align_val_t, const std::nothrow_t&) noexcept;

}  // namespace

void* operator new(std::size_t n) {
  static const New next = process_new<New>("_Znwm");
  if (ct::fault::allocation_fails()) throw std::bad_alloc();
  return next(n);
}
void* operator new[](std::size_t n) {
  static const New next = process_new<New>("_Znam");
  if (ct::fault::allocation_fails()) throw std::bad_alloc();
  return next(n);
}
void* operator new(std::size_t n, std::align_val_t a) {
  static const NewAligned next = process_new<NewAligned>("_ZnwmSt11align_val_t");
  if (ct::fault::allocation_fails()) throw std::bad_alloc();
  return next(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a) {
  static const NewAligned next = process_new<NewAligned>("_ZnamSt11align_val_t");
  if (ct::fault::allocation_fails()) throw std::bad_alloc();
  return next(n, a);
}
void* operator new(std::size_t n, const std::nothrow_t& t) noexcept {
  static const NewNothrow next = process_new<NewNothrow>("_ZnwmRKSt9nothrow_t");
  return ct::fault::allocation_fails() ? nullptr : next(n, t);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept {
  static const NewNothrow next = process_new<NewNothrow>("_ZnamRKSt9nothrow_t");
  return ct::fault::allocation_fails() ? nullptr : next(n, t);
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t& t) noexcept {
  static const NewAlignedNothrow next = process_new<NewAlignedNothrow>("_ZnwmSt11align_val_tRKSt9nothrow_t");
  return ct::fault::allocation_fails() ? nullptr : next(n, a, t);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t& t) noexcept {
  static const NewAlignedNothrow next = process_new<NewAlignedNothrow>("_ZnamSt11align_val_tRKSt9nothrow_t");
  return ct::fault::allocation_fails() ? nullptr : next(n, a, t);
}

#endif  // CTORCH_FAULT_INJECTION
