// node.h - Node, one vertex of a ShapeEnv's expression graph, and Range, what is known of its value.
//
// Note [Hash-consed expressions]
// A ShapeEnv builds every node through its simplifying constructors (simplify.cpp) and interns it:
// two structurally equal expressions are the same Node. So `a == b` on pointers is structural
// equality, guards deduplicate by pointer, and sums and products keep their operands sorted by node
// id (creation order), which makes s0 + s1 and s1 + s0 one node. Nodes are immutable once built
// and live exactly as long as their ShapeEnv.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace ct::sym {

class ShapeEnv;

/// A symbol's value in a binding: Int and Bool symbols read i, Float symbols f.
union BoundValue {
  int64_t i;
  double f;
};

enum class Type : uint8_t { Int, Float, Bool };

/// What a node computes. Int relations are kept in one canonical form, `e <= 0`, `e == 0` or
/// `e != 0` over a sum e (see Note [Canonical relations] in simplify.cpp); float relations keep
/// their two operands.
enum class Op : uint8_t {
  Const,     // value
  Symbol,    // symbol index
  Add,       // n-ary sum; Int: at most one constant, last
  Mul,       // n-ary product; Int: at most one constant coefficient, first
  FloorDiv,  // Python's //: rounds toward negative infinity
  Mod,       // Python's %: the sign of the divisor
  Pow,
  TrueDiv,   // always Float
  Eq, Ne, Lt, Le,
  And, Or, Not,
  Min, Max,  // n-ary
  Ite,       // (condition, then, else)
  ToFloat, ToInt,  // sym_float, sym_int (truncation toward zero)
};

/// Closed interval of an Int (or Bool, as 0/1) node's possible values. kNegInf / kPosInf stand for
/// unbounded ends; arithmetic on them saturates.
struct Range {
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  int64_t lo = kNegInf, hi = kPosInf;
  /// One value: an endpoint at an infinity is a saturated bound (2^62 * s for s >= 2), not a value.
  bool is_point() const { return lo == hi && lo != kNegInf && lo != kPosInf; }
  bool contains(int64_t v) const { return lo <= v && v <= hi; }
};

class Node {
 public:
  Op op;
  Type type;
  bool has_hint;   // every symbol below is backed, so hint() is this node's value under the hints
  uint32_t id;     // creation order within the env: the canonical sort key of sums and products
  uint32_t epoch;  // the env's epoch when range was last computed (see ShapeEnv::refresh)
  ShapeEnv* env;
  union {
    int64_t i;     // Int and Bool constants; Symbol: the symbol index
    double f;      // Float constants
  } value{};
  union {
    int64_t i;     // the value under the hints (Int, Bool)
    double f;      // (Float)
  } hint{};
  Range range;     // Int and Bool nodes; Float nodes leave it unbounded. Narrows as facts are recorded
  std::vector<Node*> args;
  Node* mono = nullptr;  // Int Mul with a coefficient: the product without it, built on first use

  bool is_const() const { return op == Op::Const; }
  int64_t int_value() const { return value.i; }
  double float_value() const { return value.f; }
};

}  // namespace ct::sym
