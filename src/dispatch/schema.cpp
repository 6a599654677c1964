#include "dispatch/schema.h"

#include <cctype>
#include <cstdlib>

#include "core/error.h"

namespace ct {

const char* arg_type_name(ArgType t) {
  switch (t) {
    case ArgType::Tensor: return "Tensor";
    case ArgType::TensorList: return "Tensor[]";
    case ArgType::Int: return "int";
    case ArgType::IntList: return "int[]";
    case ArgType::Float: return "float";
    case ArgType::Bool: return "bool";
    case ArgType::Scalar: return "Scalar";
    case ArgType::ScalarType: return "ScalarType";
    case ArgType::Device: return "Device";
    case ArgType::String: return "str";
    case ArgType::Generator: return "Generator";
  }
  return "?";
}

Value DefaultValue::as_value() const {
  switch (kind) {
    case Value::Kind::Int: return Value(i);
    case Value::Kind::Bool: return Value(i != 0);
    case Value::Kind::Double: return Value(d);
    case Value::Kind::IntList: return Value(IntArrayRef(ints));
    case Value::Kind::String: return Value(s.c_str());
    default: return Value();
  }
}

std::string DefaultValue::to_string() const {
  switch (kind) {
    case Value::Kind::Int: return std::to_string(i);
    case Value::Kind::Bool: return i ? "True" : "False";
    case Value::Kind::Double: {  // keep it a float literal: 2.0, not 2
      std::string t = str(d);
      return t.find_first_of(".en") == std::string::npos ? t + ".0" : t;
    }
    case Value::Kind::IntList: return str(IntArrayRef(ints));
    case Value::Kind::String: return "'" + s + "'";
    default: return "None";
  }
}

bool Schema::mutates() const {
  for (const Argument& a : args)
    if (a.writes) return true;
  return false;
}

namespace {

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  Schema parse() {
    Schema sc;
    std::string qual = ident("operator name");
    if (peek("::")) {
      pos_ += 2;
      sc.ns = qual;
      qual = qual + "::" + ident("operator name");
    }
    sc.name = qual;
    if (accept('.')) sc.overload = ident("overload name");
    expect('(');
    bool kw = false;
    if (!accept(')')) {
      do {
        if (accept('*')) {
          kw = true;
          continue;
        }
        Argument a = argument(true);
        a.kwarg_only = kw;
        sc.args.push_back(std::move(a));
      } while (accept(','));
      expect(')');
    }
    expect('-');
    expect('>');
    if (accept('(')) {
      if (!accept(')')) {
        do sc.returns.push_back(argument(false));
        while (accept(','));
        expect(')');
      }
    } else {
      sc.returns.push_back(argument(false));
    }
    skip_ws();
    if (pos_ != s_.size()) error("unexpected text after the returns");
    sc.text = normalize(sc);
    return sc;
  }

 private:
  Argument argument(bool named) {
    Argument a;
    // type_text is rebuilt from the tokens, not copied from the source: the printed schema is one
    // line in one spelling whatever whitespace (newlines too) the definition had between them.
    std::string base = ident("type");
    a.type_text = base;
    bool list = false;
    if (accept('[')) {
      const size_t digits = pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      a.type_text += "[" + s_.substr(digits, pos_ - digits) + "]";
      expect(']');
      list = true;
    }
    if (accept('(')) {  // alias annotation: (a) or (a!)
      a.type_text += "(" + ident("alias set");
      if (accept('!')) {
        a.writes = true;
        a.type_text += "!";
      }
      expect(')');
      a.type_text += ")";
    }
    if (accept('?')) {
      a.optional = true;
      a.type_text += "?";
    }
    a.type = type_of(base, list);
    skip_ws();
    if (named || (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))) {
      a.name = ident("argument name");
    }
    if (named && accept('=')) {
      a.has_default = true;
      a.default_value = default_value(a);
      check_default(a);
    }
    return a;
  }

  // Kernels, the tracer and program files take a default as a value of the argument's type (a
  // file holding "int" for a Tensor argument does not load), so any other default is refused.
  void check_default(const Argument& a) {
    using K = Value::Kind;
    const K k = a.default_value.kind;
    bool fits = false;
    switch (a.type) {
      case ArgType::Int: fits = k == K::Int; break;
      case ArgType::IntList: fits = k == K::IntList; break;  // "int[2] x=1" is already [1, 1]
      case ArgType::Float: fits = k == K::Int || k == K::Double; break;
      case ArgType::Bool: fits = k == K::Bool; break;
      case ArgType::Scalar: fits = k == K::Int || k == K::Double || k == K::Bool; break;
      case ArgType::String: fits = k == K::String; break;
      default: break;  // tensors, dtypes, devices and generators default to None only
    }
    if (k == K::None) fits = a.optional;
    if (!fits && k == K::None)
      error("'" + a.name + "' defaults to None, so its type must be optional (" + a.type_text + "?)");
    if (!fits) error("the default " + a.default_value.to_string() + " of '" + a.name + "' is not a " + a.type_text);
  }

  ArgType type_of(const std::string& base, bool list) {
    if (base == "Tensor") return list ? ArgType::TensorList : ArgType::Tensor;
    if (base == "int" || base == "SymInt") return list ? ArgType::IntList : ArgType::Int;
    if (list) error("only Tensor[] and int[] lists are supported, got " + base + "[]");
    if (base == "float") return ArgType::Float;
    if (base == "bool") return ArgType::Bool;
    if (base == "Scalar") return ArgType::Scalar;
    if (base == "ScalarType") return ArgType::ScalarType;
    if (base == "Device") return ArgType::Device;
    if (base == "str") return ArgType::String;
    if (base == "Generator") return ArgType::Generator;
    error("unknown type '" + base + "'");
  }

  DefaultValue default_value(const Argument& a) {
    skip_ws();
    DefaultValue v;
    if (accept_word("None")) return v;
    if (accept_word("True") || accept_word("False")) {
      v.kind = Value::Kind::Bool;
      v.i = s_[pos_ - 4] == 'T';  // "True" starts 4 characters back; "False" has 'a' there
      return v;
    }
    if (accept('[')) {
      v.kind = Value::Kind::IntList;
      if (!accept(']')) {
        do v.ints.push_back(integer());
        while (accept(','));
        expect(']');
      }
      return v;
    }
    if (accept('\'')) {
      size_t end = s_.find('\'', pos_);
      if (end == std::string::npos) error("unterminated string default");
      v.kind = Value::Kind::String;
      v.s = s_.substr(pos_, end - pos_);
      // A schema is one line of text (ct_op_schema prints one per line), so no newline or other
      // control character may hide in a string.
      for (char c : v.s)
        if (static_cast<unsigned char>(c) < 0x20) error("control character in a string default");
      pos_ = end + 1;
      return v;
    }
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '-' ||
                                s_[pos_] == '+' || s_[pos_] == '.'))
      ++pos_;
    std::string num = s_.substr(start, pos_ - start);
    if (num.empty()) error("expected a default value for '" + a.name + "'");
    char* end = nullptr;
    if (num.find_first_of(".eEn") == std::string::npos) {
      v.kind = Value::Kind::Int;
      v.i = std::strtoll(num.c_str(), &end, 0);
    } else {
      v.kind = Value::Kind::Double;
      v.d = std::strtod(num.c_str(), &end);
    }
    if (*end != '\0') error("bad default '" + num + "' for '" + a.name + "'");
    if (a.type == ArgType::IntList && v.kind == Value::Kind::Int) {  // int[2] x=1 means [1, 1]
      v.kind = Value::Kind::IntList;
      v.ints.push_back(v.i);
    }
    return v;
  }

  int64_t integer() {
    skip_ws();
    size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (start == pos_) error("expected an integer");
    return std::strtoll(s_.substr(start, pos_ - start).c_str(), nullptr, 10);
  }

  std::string ident(const char* what) {
    skip_ws();
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    if (start == pos_) error(std::string("expected ") + what);
    return s_.substr(start, pos_ - start);
  }
  bool accept_word(const char* w) {
    size_t n = std::char_traits<char>::length(w);
    if (s_.compare(pos_, n, w) != 0) return false;
    if (pos_ + n < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_ + n])) || s_[pos_ + n] == '_'))
      return false;
    pos_ += n;
    return true;
  }
  bool peek(const char* t) {
    skip_ws();
    return s_.compare(pos_, std::char_traits<char>::length(t), t) == 0;
  }
  bool accept(char c) {
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) error(std::string("expected '") + c + "'");
  }
  void skip_ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  [[noreturn]] void error(const std::string& what) {
    fail(CT_ERROR_FORMAT, str("schema: ", what, " at position ", pos_, " of \"", s_,
                              "\". Write schemas like \"ns::op(Tensor x, float alpha=1.0) -> Tensor\""));
  }

  static std::string normalize(const Schema& sc) {
    std::string out = sc.full_name() + "(";
    bool kw = false;
    for (size_t i = 0; i < sc.args.size(); ++i) {
      const Argument& a = sc.args[i];
      if (i) out += ", ";
      if (a.kwarg_only && !kw) {
        out += "*, ";
        kw = true;
      }
      out += a.type_text + " " + a.name;
      if (a.has_default) out += "=" + a.default_value.to_string();
    }
    out += ") -> ";
    if (sc.returns.size() == 1) {
      out += sc.returns[0].type_text + (sc.returns[0].name.empty() ? "" : " " + sc.returns[0].name);
    } else {
      out += "(";
      for (size_t i = 0; i < sc.returns.size(); ++i)
        out += (i ? ", " : "") + sc.returns[i].type_text + (sc.returns[i].name.empty() ? "" : " " + sc.returns[i].name);
      out += ")";
    }
    return out;
  }

  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace

Schema parse_schema(const std::string& text) { return Parser(text).parse(); }

}  // namespace ct
