// fuse_plan.h - what a fused kernel runs: its calls as instructions over slots (fuse.cpp builds
// it; the CPU tile loops in fuse.cpp and the CUDA source of fuse_cuda.cpp both execute it).
#pragma once

#include <string>
#include <vector>

#include "compile/graph.h"
#include "core/scalar.h"

namespace ct::compile {

/// What an instruction computes: its operator's element function (Instr::fn), or one of the fused
/// reductions over the last dim.
enum class Code : uint8_t { Element, Sum, Mean, Amax, Amin };

constexpr bool is_reduction(Code k) { return k != Code::Element; }

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

}  // namespace ct::compile
