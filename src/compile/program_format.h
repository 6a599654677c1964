// program_format.h - what the program file's writer (program_write.cpp) and reader
// (program_read.cpp) share: the magic, the version, the section tags, the enum numbers the file
// pins, and the limits on its expressions. The layout, field by field, is in docs/program-format.md.
#pragma once

#include <algorithm>
#include <cstdint>

#include "compile/graph.h"

namespace ct::compile::program_format {

// Constants are saved as their elements' bytes in memory order.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the program file stores little-endian element bytes");

// The file numbers these enums by their C++ values (docs/program-format.md lists them).
static_assert(static_cast<int>(sym::Op::ToInt) == 19 && static_cast<int>(Arg::Kind::String) == 11 &&
                  static_cast<int>(Node::Kind::Item) == 3 && kNumDTypes == 12 && static_cast<int>(DeviceType::Meta) == 2,
              "renumbering an enum the program file stores changes the format: give it a new version");

constexpr char kMagic[8] = {'C', 'T', 'P', 'R', 'O', 'G', '\0', '\0'};
constexpr uint32_t kVersion = 1;

// Section tags (4 bytes each, the terminator is not written), in the order the file holds them.
constexpr char kSymbolsTag[] = "SYMB";
constexpr char kExpressionsTag[] = "EXPR";
constexpr char kGuardsTag[] = "GARD";
constexpr char kInputsTag[] = "INPT";
constexpr char kConstantsTag[] = "CNST";
constexpr char kGraphTag[] = "GRPH";

// Evaluators and the printer walk an expression's tree recursively, a shared subexpression once per
// path to it. Bounding each tree's depth and the walk over every use keeps a small file from causing
// a deep recursion or an exponential walk.
constexpr uint32_t kMaxExprDepth = 256;
constexpr uint64_t kMaxExprWork = uint64_t{1} << 22;

/// An expression table entry's depth and the cost of evaluating it once, checked against the limits.
struct Cost {
  uint32_t depth = 1;
  uint64_t walk = 1;  // nodes one evaluation visits (constants are free), saturating past kMaxExprWork
  void add(const Cost& arg) {
    depth = std::max(depth, arg.depth + 1);
    walk = std::min(walk + arg.walk, kMaxExprWork + 1);
  }
};

}  // namespace ct::compile::program_format
