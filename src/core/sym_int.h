// sym_int.h - SymInt, the 8-byte size type: a plain integer today, an integer-or-node tomorrow.
//
// Note [SymInt representation]
// A SymInt is one int64_t. Values whose top two bits are 10 (below -2^62) are reserved for a
// tagged pointer to a symbolic expression node (issue "Symbolic scalars"). Every concrete size,
// stride and offset a tensor can have lies outside that range, so TensorImpl stores SymInts and
// hands out plain int64_t views of them (sizes()) as long as none is symbolic, exactly as c10 does.
// Adding symbolic nodes later changes this file and the meta functions, not the tensor layout.
#pragma once

#include <cstdint>

#include "core/error.h"

namespace ct {

class SymInt {
 public:
  constexpr SymInt(int64_t v = 0) : v_(v) {}
  /// True when this holds a symbolic node rather than a value.
  constexpr bool is_symbolic() const { return (static_cast<uint64_t>(v_) >> 62) == 2u; }
  /// The concrete value; raises CT_ERROR_GUARD when symbolic.
  int64_t expect_int() const {
    CT_CHECK(!is_symbolic(), CT_ERROR_GUARD, "a symbolic size was used where a concrete one is required");
    return v_;
  }
  /// The raw representation, for layout-compatible views as int64_t.
  constexpr int64_t raw() const { return v_; }
  friend constexpr bool operator==(SymInt a, SymInt b) { return a.v_ == b.v_; }

 private:
  int64_t v_;
};

static_assert(sizeof(SymInt) == sizeof(int64_t), "SymInt must stay 8 bytes: TensorImpl views it as int64_t");

}  // namespace ct
