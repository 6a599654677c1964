// sym_int.h - SymInt, SymFloat, SymBool: numbers that are either concrete or a node of a ShapeEnv.
//
// Note [SymInt representation]
// A SymInt is one int64_t. Values whose top two bits are 10 (below -2^62) are a tagged pointer to
// an Int expression node (symbolic/node.h); every other value is itself. Every concrete size,
// stride and offset a tensor can have lies outside the tagged range, so TensorImpl stores SymInts
// and hands out plain int64_t views of them (sizes()) while none is symbolic, as c10 does. A
// concrete value in the tagged range cannot be a SymInt: constructing one raises
// CT_ERROR_INVALID_ARGUMENT, so no user-supplied integer is ever read as a pointer.
//
// Arithmetic on concrete operands is plain int64 arithmetic, inline, with no allocation; only a
// symbolic operand takes the out-of-line path that builds a node in its ShapeEnv. `/` and `%` on
// SymInts follow Python (floor division, the sign of the divisor); sizes are never negative, so
// meta functions read as before. Comparisons give a SymBool; using a symbolic SymBool as a C++ bool
// (if, &&, ||, !) asks the ShapeEnv for its value and records a guard (Note [Guards and runtime
// assertions] in shape_env.h). sym_max, sym_min, sym_sum, sym_ite and sym_not build nodes instead.
// A symbolic number borrows its ShapeEnv: whoever holds one keeps the env alive (a tensor through
// its storage, a C handle through its own reference).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>

#include "core/array_ref.h"
#include "core/error.h"

namespace ct {

namespace sym {
class Node;
class ShapeEnv;
}  // namespace sym

class SymBool;
class SymFloat;

class SymInt {
 public:
  /// Uninitialized, like an int64_t (so inline size arrays cost nothing); SymInt{} is 0.
  SymInt() = default;
  SymInt(int64_t v) : v_(v) {
    if (__builtin_expect(is_tagged(v), 0)) reserved(v);
  }
  SymInt(int v) : v_(v) {}  // never tagged; also keeps SymInt(0) from reading as a null Node*
  /// The number node computes: a plain value when node is a constant. node must be an Int node.
  explicit SymInt(sym::Node* node);
  /// From raw() of another SymInt (no check: the caller vouches for the bits).
  static constexpr SymInt from_raw(int64_t raw) { return SymInt(raw, Raw{}); }

  /// True when this holds a symbolic node rather than a value.
  constexpr bool is_symbolic() const { return is_tagged(v_); }
  sym::Node* node() const { return reinterpret_cast<sym::Node*>(static_cast<uintptr_t>(v_) & kPointerMask); }
  sym::ShapeEnv* env() const;
  /// The value when concrete.
  std::optional<int64_t> maybe_int() const { return is_symbolic() ? std::nullopt : std::optional<int64_t>(v_); }
  /// The concrete value; CT_ERROR_GUARD naming `what` when symbolic (for code that cannot specialize).
  int64_t expect_int(const char* what = "this") const {
    if (__builtin_expect(is_symbolic(), 0)) not_concrete(what);
    return v_;
  }
  /// The value; a symbolic one is evaluated under the hints and a guard `this == value` recorded.
  int64_t guard_int() const { return is_symbolic() ? guard_slow() : v_; }
  /// The raw representation, for layout-compatible views as int64_t.
  constexpr int64_t raw() const { return v_; }
  /// This value as a node of env (a constant node when concrete).
  sym::Node* to_node(sym::ShapeEnv& env) const;

  SymInt operator-() const { return is_symbolic() ? neg_slow() : SymInt(-v_); }
  SymInt& operator+=(SymInt b) { return *this = *this + b; }
  SymInt& operator-=(SymInt b) { return *this = *this - b; }
  SymInt& operator*=(SymInt b) { return *this = *this * b; }
  SymInt& operator/=(SymInt b) { return *this = *this / b; }

  enum class BinOp : uint8_t { Add, Sub, Mul, FloorDiv, Mod, Pow, Min, Max };
  enum class RelOp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };
  static SymInt binary_slow(BinOp op, SymInt a, SymInt b);
  static SymBool relation_slow(RelOp op, SymInt a, SymInt b);

  friend SymInt operator+(SymInt a, SymInt b) {
    int64_t r;
    if (!(a.is_symbolic() || b.is_symbolic()) && !__builtin_add_overflow(a.v_, b.v_, &r)) return SymInt(r);
    return binary_slow(BinOp::Add, a, b);
  }
  friend SymInt operator-(SymInt a, SymInt b) {
    int64_t r;
    if (!(a.is_symbolic() || b.is_symbolic()) && !__builtin_sub_overflow(a.v_, b.v_, &r)) return SymInt(r);
    return binary_slow(BinOp::Sub, a, b);
  }
  friend SymInt operator*(SymInt a, SymInt b) {
    int64_t r;
    if (!(a.is_symbolic() || b.is_symbolic()) && !__builtin_mul_overflow(a.v_, b.v_, &r)) return SymInt(r);
    return binary_slow(BinOp::Mul, a, b);
  }
  /// Floor division (Python's //).
  friend SymInt operator/(SymInt a, SymInt b) {
    if (!(a.is_symbolic() || b.is_symbolic()) && b.v_ > 0 && a.v_ >= 0) return SymInt(a.v_ / b.v_);
    return binary_slow(BinOp::FloorDiv, a, b);
  }
  /// Python's %: the sign of the divisor.
  friend SymInt operator%(SymInt a, SymInt b) {
    if (!(a.is_symbolic() || b.is_symbolic()) && b.v_ > 0 && a.v_ >= 0) return SymInt(a.v_ % b.v_);
    return binary_slow(BinOp::Mod, a, b);
  }

 private:
  struct Raw {};
  constexpr SymInt(int64_t raw, Raw) : v_(raw) {}
  static constexpr uint64_t kPointerMask = (uint64_t{1} << 62) - 1;
  static constexpr bool is_tagged(int64_t v) { return (static_cast<uint64_t>(v) >> 62) == 2u; }
  [[noreturn]] static void reserved(int64_t v);
  [[noreturn]] void not_concrete(const char* what) const;
  int64_t guard_slow() const;
  SymInt neg_slow() const;

  int64_t v_;
};

static_assert(sizeof(SymInt) == sizeof(int64_t), "SymInt must stay 8 bytes: TensorImpl views it as int64_t");

/// A bool that is either concrete or a Bool node of a ShapeEnv.
class SymBool {
 public:
  SymBool(bool v = false) : node_(nullptr), v_(v) {}
  /// The truth node computes: a plain value when node is a constant. node must be a Bool node.
  explicit SymBool(sym::Node* node);

  bool is_symbolic() const { return node_ != nullptr; }
  sym::Node* node() const { return node_; }
  std::optional<bool> maybe_bool() const { return node_ ? std::nullopt : std::optional<bool>(v_); }
  /// The value; a symbolic one is decided under the hints and the guard recorded.
  bool guard_bool() const { return node_ ? guard_slow() : v_; }
  /// Branching on a symbolic bool records a guard (Note [SymInt representation]).
  explicit operator bool() const { return guard_bool(); }
  sym::Node* to_node(sym::ShapeEnv& env) const;

  friend SymBool operator&(SymBool a, SymBool b) {
    if (!(a.node_ || b.node_)) return SymBool(a.v_ && b.v_);
    return and_slow(a, b);
  }
  friend SymBool operator|(SymBool a, SymBool b) {
    if (!(a.node_ || b.node_)) return SymBool(a.v_ || b.v_);
    return or_slow(a, b);
  }

 private:
  static SymBool and_slow(SymBool a, SymBool b);
  static SymBool or_slow(SymBool a, SymBool b);
  bool guard_slow() const;
  sym::Node* node_;
  bool v_;
};

/// A double that is either concrete or a Float node of a ShapeEnv.
class SymFloat {
 public:
  SymFloat(double v = 0) : node_(nullptr), v_(v) {}
  explicit SymFloat(sym::Node* node);

  bool is_symbolic() const { return node_ != nullptr; }
  sym::Node* node() const { return node_; }
  std::optional<double> maybe_float() const { return node_ ? std::nullopt : std::optional<double>(v_); }
  /// The value; a symbolic one is evaluated under the hints and `this == value` recorded.
  double guard_float() const { return node_ ? guard_slow() : v_; }
  sym::Node* to_node(sym::ShapeEnv& env) const;

  enum class BinOp : uint8_t { Add, Sub, Mul, TrueDiv, FloorDiv, Mod, Pow, Min, Max };
  static SymFloat binary(BinOp op, SymFloat a, SymFloat b);
  static SymBool relation(SymInt::RelOp op, SymFloat a, SymFloat b);
  friend SymFloat operator+(SymFloat a, SymFloat b) { return binary(BinOp::Add, a, b); }
  friend SymFloat operator-(SymFloat a, SymFloat b) { return binary(BinOp::Sub, a, b); }
  friend SymFloat operator*(SymFloat a, SymFloat b) { return binary(BinOp::Mul, a, b); }
  friend SymFloat operator/(SymFloat a, SymFloat b) { return binary(BinOp::TrueDiv, a, b); }
  SymFloat operator-() const { return binary(BinOp::Sub, SymFloat(0.0), *this); }

 private:
  double guard_slow() const;
  sym::Node* node_;
  double v_;
};

// Comparisons: plain ones inline, symbolic ones build a relation (no guard until it is branched on).
#define CT_SYMINT_RELATION(sym_op, name)                                                  \
  inline SymBool operator sym_op(SymInt a, SymInt b) {                                    \
    if (!(a.is_symbolic() || b.is_symbolic())) return SymBool(a.raw() sym_op b.raw());     \
    return SymInt::relation_slow(SymInt::RelOp::name, a, b);                              \
  }
CT_SYMINT_RELATION(==, Eq)
CT_SYMINT_RELATION(!=, Ne)
CT_SYMINT_RELATION(<, Lt)
CT_SYMINT_RELATION(<=, Le)
CT_SYMINT_RELATION(>, Gt)
CT_SYMINT_RELATION(>=, Ge)
#undef CT_SYMINT_RELATION

/// max/min of SymInts as one node, with no guard; plain arithmetic on concrete values.
inline SymInt sym_max(SymInt a, SymInt b) {
  if (!(a.is_symbolic() || b.is_symbolic())) return a.raw() > b.raw() ? a : b;
  return SymInt::binary_slow(SymInt::BinOp::Max, a, b);
}
inline SymInt sym_min(SymInt a, SymInt b) {
  if (!(a.is_symbolic() || b.is_symbolic())) return a.raw() < b.raw() ? a : b;
  return SymInt::binary_slow(SymInt::BinOp::Min, a, b);
}
SymInt sym_max(ArrayRef<SymInt> xs);
SymInt sym_min(ArrayRef<SymInt> xs);
/// The sum of xs as one n-ary node (not a chain of adds).
SymInt sym_sum(ArrayRef<SymInt> xs);
/// c ? a : b as one node, with no guard.
SymInt sym_ite(SymBool c, SymInt a, SymInt b);
SymFloat sym_ite(SymBool c, SymFloat a, SymFloat b);
SymBool sym_not(SymBool b);
/// The conjunction of conds, made in the order written. Use it rather than a & b for conditions
/// that build nodes: a braced list is evaluated left to right, the operands of & in the order the
/// compiler picks, and the nodes' order shows in an assertion's text and an exported program's
/// bytes, which would then differ between gcc and clang builds.
inline SymBool sym_all(std::initializer_list<SymBool> conds) {
  const SymBool* c = conds.begin();
  SymBool all = *c;
  while (++c != conds.end()) all = all & *c;
  return all;
}
/// int -> float and float -> int (truncation), with no guard.
SymFloat sym_float(SymInt a);
SymInt sym_int(SymFloat a);
/// s's value, or for a symbolic s its value under the hints (1 when it has none), with no guard: for
/// heuristics whose choice never changes a result (a contraction order).
int64_t size_hint(SymInt s);
/// Python's ** on ints (a negative exponent is an error).
SymInt sym_pow(SymInt a, SymInt b);
SymFloat sym_truediv(SymInt a, SymInt b);

/// Requires cond, failing with (status, message) when it is false. A symbolic cond is decided
/// under the hints (recording a guard) or, over unbacked symbols, recorded as a runtime assertion.
void sym_check(SymBool cond, ct_status status, const std::string& message);

std::ostream& operator<<(std::ostream& os, SymInt s);
std::ostream& operator<<(std::ostream& os, SymFloat s);
std::ostream& operator<<(std::ostream& os, SymBool s);
std::ostream& operator<<(std::ostream& os, ArrayRef<SymInt> a);

using SymIntArrayRef = ArrayRef<SymInt>;
using SymDimVector = SmallVector<SymInt, 6>;

/// True when some value of xs is symbolic.
inline bool any_symbolic(SymIntArrayRef xs) {
  for (SymInt x : xs)
    if (x.is_symbolic()) return true;
  return false;
}

/// True when a and b hold the same values and the same expression nodes: structural equality (nodes
/// are hash-consed) that never records a guard.
inline bool identical(SymIntArrayRef a, SymIntArrayRef b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].raw() != b[i].raw()) return false;
  return true;
}

/// Sizes of a concrete tensor (never in the tagged range) seen as SymInts.
inline SymIntArrayRef as_sym(IntArrayRef a) { return SymIntArrayRef(reinterpret_cast<const SymInt*>(a.data()), a.size()); }
/// SymInts known to be concrete, as plain int64s (the caller checked !any_symbolic).
inline IntArrayRef as_ints(SymIntArrayRef a) { return IntArrayRef(reinterpret_cast<const int64_t*>(a.data()), a.size()); }

}  // namespace ct

// Like CT_CHECK for a condition that may be symbolic (see sym_check). The message is built only when
// the condition is symbolic or fails.
#define CT_SYM_CHECK(cond, status, ...)                                                           \
  do {                                                                                            \
    const ::ct::SymBool ct_sym_cond_ = (cond);                                                    \
    if (__builtin_expect(!ct_sym_cond_.is_symbolic(), 1)) {                                       \
      if (__builtin_expect(!*ct_sym_cond_.maybe_bool(), 0)) ::ct::fail((status), ::ct::str(__VA_ARGS__)); \
    } else {                                                                                      \
      ::ct::sym_check(ct_sym_cond_, (status), ::ct::str(__VA_ARGS__));                            \
    }                                                                                             \
  } while (0)
