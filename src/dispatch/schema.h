// schema.h - operator schemas in PyTorch's language, parsed:
//   "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dispatch/value.h"

namespace ct {

enum class ArgType : uint8_t { Tensor, TensorList, Int, IntList, Float, Bool, Scalar, ScalarType, Device, String, Generator };
const char* arg_type_name(ArgType t);

/// An argument's default, owned by the schema; as_value() borrows from it.
struct DefaultValue {
  Value::Kind kind = Value::Kind::None;
  int64_t i = 0;
  double d = 0;
  std::vector<int64_t> ints;
  std::string s;
  Value as_value() const;
  std::string to_string() const;
};

struct Argument {
  std::string name;
  ArgType type = ArgType::Tensor;
  bool optional = false;    // "Type?": accepts None
  bool kwarg_only = false;  // after "*"
  bool writes = false;      // "Tensor(a!)": the operator writes this argument
  bool has_default = false;
  DefaultValue default_value;
  std::string type_text;  // as written, e.g. "Tensor(a!)", "int[1]?"
};

struct Schema {
  std::string ns;        // "" for built-ins, "myext" for "myext::scale"
  std::string name;      // "add", "myext::scale"
  std::string overload;  // "Tensor", "" when none
  std::vector<Argument> args;
  std::vector<Argument> returns;
  std::string text;  // normalized schema text

  std::string full_name() const { return overload.empty() ? name : name + "." + overload; }
  /// True when some argument is written (in-place operators).
  bool mutates() const;
};

/// Parses a schema; raises CT_ERROR_FORMAT with the position on malformed text.
Schema parse_schema(const std::string& text);

}  // namespace ct
