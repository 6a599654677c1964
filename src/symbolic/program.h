// program.h - Program: Bool expressions compiled to postfix code, for checking many guards against
// one binding without walking node trees.
//
// A compiled program is a flat array of instructions evaluated with one value stack: constants and
// symbol loads push, operations pop their arguments and push the result. Int sums, products and the
// canonical relations (Note [Canonical relations]) have inline cases; every other operation goes
// through apply() (eval.h), so both evaluators compute the same thing by construction. An Ite is
// one instruction that evaluates its node recursively, because only the chosen branch may run.
#pragma once

#include <vector>

#include "core/array_ref.h"
#include "symbolic/node.h"

namespace ct::sym {

class Program {
 public:
  /// Appends the code of a Bool node as the next root.
  void add_root(const Node* n);
  size_t num_roots() const { return roots_; }
  /// Index of the first root that is false under binding (one value per symbol of the env), or -1.
  /// CT_ERROR_INVALID_ARGUMENT when the binding is too short, or for a division by zero or an
  /// overflow under it.
  int64_t first_false(ArrayRef<BoundValue> binding) const;

 private:
  enum class Code : uint8_t { Const, Symbol, AddInt, MulInt, LeZero, EqZero, NeZero, Apply, Tree, Root };
  struct Instr {
    Code code;
    uint32_t n = 0;           // arguments popped (AddInt, MulInt, Apply)
    int64_t i = 0;            // Const: the value's bits; Symbol: its index
    const Node* node = nullptr;  // Apply, Tree
  };
  void emit(const Node* n, size_t depth);

  std::vector<Instr> code_;
  size_t roots_ = 0;
  size_t max_depth_ = 0;   // stack slots the code needs
  size_t max_symbol_ = 0;  // symbols the code reads: the binding must be at least this long
};

}  // namespace ct::sym
