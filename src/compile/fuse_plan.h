// fuse_plan.h - what a fused kernel runs: its calls as instructions over slots (fuse.cpp builds
// it; the CPU tile loops in fuse.cpp and the CUDA source of fuse_cuda.cpp both execute it).
#pragma once

#include <string>
#include <vector>

#include "compile/graph.h"
#include "core/scalar.h"

namespace ct::compile {

/// What an instruction computes: its operator's element function (Instr::fn), one of the fused
/// reductions over the last dim, or a sum over the rows (ColumnSum: a Col result, cpu only; Note
/// [Fused column sums] in fuse.cpp).
enum class Code : uint8_t { Element, Sum, Mean, Amax, Amin, ColumnSum };

/// A reduction over the last dim: one value per row.
constexpr bool is_reduction(Code k) { return k != Code::Element && k != Code::ColumnSum; }

/// How a value covers the group's [R, C] iteration space (Note [Fused CPU kernels] in fuse.cpp).
enum class Cls : uint8_t { Full, Row, Col, Scalar };

struct Slot {
  enum class Kind : uint8_t { Input, Output, Scratch, Imm };
  Kind kind;
  int32_t index;  // input, output, scratch buffer or immediate number
  Cls cls;
};

struct Operand {
  int32_t slot = -1;
  Cls cls = Cls::Full;
};

struct Instr {
  Code code;
  const ElementFn* fn;  // Code::Element: the operator's element function
  Cls cls;              // of the result
  bool per_line;        // a Row or Col operand of a Full result: one loop per row of the tile
  int32_t dst;
  Operand a, b;
  int32_t alpha = -1;  // the scaled form of fn (add, sub with alpha != 1): an Imm slot
  bool unary() const { return code == Code::Element && fn->arity == 1; }
};

// What a kernel runs: its calls as instructions over slots, and the calls themselves.
struct Plan {
  DType dtype = DType::Float32;
  Device device = kCPU;     // cpu: fuse.cpp's tile loops; cuda: fuse_cuda.cpp's generated kernel
  SymDimVector full;
  bool whole_rows = false;  // some result is one per row: tiles are whole rows
  bool flat = false;        // only Full and Scalar operands: [R, C] is read as [1, R * C]
  std::vector<Slot> slots;  // INVARIANT: slot k < code.size() holds instruction k's result
  std::vector<Instr> code;
  std::vector<Scalar> imms;
  int32_t num_scratch = 0;
  int32_t live_full = 1;  // Full inputs, outputs and scratch buffers: what a tile keeps in cache
  // The original calls, for the fallback: Refs 0..ninputs-1 name the inputs, ninputs + k call k.
  std::vector<Node> calls;
  std::vector<int32_t> output_calls;  // per output, the call computing it
  std::string description;
};

// ---- What the generated kernels (fuse_cuda.cpp, fuse_cpp.cpp) share.

/// Whether instruction k's value is one per row (a reduction, or a Row element): computed once per
/// row, outside the loops over columns.
inline bool row_value(const Plan& p, size_t k) { return is_reduction(p.code[k].code) || p.code[k].cls == Cls::Row; }

/// Adds to need the per-element instructions that the needed ones read, up to row values and the
/// leaves given (values a loop reads instead of computing): what a loop over columns computes to
/// have them.
inline void close_over_elements(const Plan& p, std::vector<bool>& need, const std::vector<bool>* leaves = nullptr) {
  for (size_t k = p.code.size(); k-- > 0;) {
    if (!need[k] || row_value(p, k) || (leaves && (*leaves)[k])) continue;
    for (const Operand& o : {p.code[k].a, p.code[k].b})
      if (o.slot >= 0 && static_cast<size_t>(o.slot) < p.code.size()) need[o.slot] = true;
  }
}

/// The call of an element instruction's functor, the one its eager kernels call (Note [Element
/// functions]): "ct::fn::Mul{}(a, b)", with its operands (and alpha) spelled by name(Operand).
template <typename Name>
std::string element_call(const Instr& in, Name name) {
  std::string e = std::string("ct::fn::") + in.fn->functor + "{}(" + name(in.a);
  if (in.b.slot >= 0) e += ", " + name(in.b);
  if (in.alpha >= 0) e += ", " + name(Operand{in.alpha, Cls::Scalar});
  return e + ")";
}

}  // namespace ct::compile
