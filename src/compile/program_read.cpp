// program_read.cpp - load_program: a Program from a versioned binary file, which program_write.cpp
// writes. The layout, field by field, is in docs/program-format.md.
//
// Note [Loading a program file]
// A program file may come from anywhere, so loading trusts none of its bytes. Every read is
// bounds-checked, every count is checked against the bytes left before anything is allocated, and
// every enum, index, name and length is checked. The program is then rebuilt the way a trace builds
// one: symbols and expressions through the ShapeEnv's simplifying constructors, guards re-recorded
// with guard_bool (each must hold under the hints), runtime assertions with check(). Each call node
// is replayed on meta tensors, so its operator's meta function checks the arguments as it did
// while tracing, and the sizes and dtypes the file gives its results must agree with what the
// operator computes; the interpreter and fused kernels can then trust every TensorMeta. Replay runs
// meta functions only: no kernel, and nothing of the function that was exported. Any failure, the
// ShapeEnv's or an operator's included, becomes CT_ERROR_FORMAT naming the item and the offset.
#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "compile/export.h"
#include "compile/program_format.h"
#include "core/utf8.h"
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "runtime/defaults.h"

namespace ct::compile {
namespace {

using namespace program_format;

constexpr int kNumOps = static_cast<int>(sym::Op::ToInt) + 1;
constexpr int kNumArgKinds = static_cast<int>(Arg::Kind::String) + 1;
// The arguments each op takes, {min, max}: Add, Mul, And, Or, Min and Max are n-ary; Eq, Ne and Le
// take one int (the canonical `e <op> 0`, see Note [Canonical relations]) or two floats.
constexpr uint32_t kMany = UINT32_MAX;
constexpr std::pair<uint32_t, uint32_t> kArity[kNumOps] = {
    {0, 0}, {0, 0}, {1, kMany}, {1, kMany}, {2, 2}, {2, 2}, {2, 2}, {2, 2},  // Const .. TrueDiv
    {1, 2}, {1, 2}, {2, 2}, {1, 2}, {1, kMany}, {1, kMany}, {1, 1},          // Eq .. Not
    {1, kMany}, {1, kMany}, {3, 3}, {1, 1}, {1, 1}};                          // Min .. ToInt

bool same_sizes(const SymDimVector& a, const SymDimVector& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](SymInt x, SymInt y) { return x.raw() == y.raw(); });
}

// Bounds-checked little-endian reads. Each failure is CT_ERROR_FORMAT "program file: <item>
// <field> at offset <n>: <what is wrong>", the offset being where the field starts.
class Reader {
 public:
  Reader(const void* data, size_t size) : p_(static_cast<const uint8_t*>(data)), size_(size), limit_(size) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    ct::fail(CT_ERROR_FORMAT, str("program file: ", where_, where_.empty() || field.empty() ? "" : " ", field,
                                  " at offset ", at_, ": ", what));
  }

 protected:
  uint64_t uint(const char* field, size_t n) {
    at_ = pos_;
    if (limit_ - pos_ < n)
      fail(field, str("needs ", n, " bytes but ", limit_ - pos_, " are left", limit_ < size_ ? " in its section" : ""));
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t{p_[pos_ + i]} << (8 * i);
    pos_ += n;
    return v;
  }
  uint32_t u32(const char* field) { return static_cast<uint32_t>(uint(field, 4)); }
  int64_t i64(const char* field) { return static_cast<int64_t>(uint(field, 8)); }
  double f64(const char* field) {
    const uint64_t bits = uint(field, 8);
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  /// A u8 below n: an enum with n values, or a flag (n = 2).
  uint8_t choice(const char* field, int n) {
    const auto v = static_cast<uint8_t>(uint(field, 1));
    if (v >= n) fail(field, str(int{v}, " is not one of the ", n, " values this version knows"));
    return v;
  }
  uint32_t index(const char* field, size_t n) {
    const uint32_t v = u32(field);
    if (v >= n) fail(field, str(v, " is out of range (", n, " entries)"));
    return v;
  }
  /// A count of items taking at least min_bytes each, checked against the bytes left before the
  /// caller allocates anything for them.
  uint32_t count(const char* field, size_t min_bytes) {
    const uint32_t n = u32(field);
    if (n > (limit_ - pos_) / min_bytes)
      fail(field, str(n, " items of at least ", min_bytes, " bytes do not fit in the ", limit_ - pos_, " bytes left"));
    return n;
  }
  const uint8_t* bytes(const char* field, uint64_t n) {
    at_ = pos_;
    if (limit_ - pos_ < n) fail(field, str(n, " bytes do not fit in the ", limit_ - pos_, " bytes left"));
    pos_ += n;
    return p_ + at_;
  }
  /// A name or string argument: UTF-8, so that every binding can decode it (Python would raise
  /// UnicodeDecodeError on anything else).
  std::string string(const char* field) {
    const uint32_t n = count(field, 1);
    std::string s(reinterpret_cast<const char*>(bytes(field, n)), n);
    if (!valid_utf8(s)) fail(field, str("the ", n, "-byte string is not valid UTF-8"));
    return s;
  }
  DType dtype(const char* field) { return static_cast<DType>(choice(field, kNumDTypes)); }
  Device device(const char* field) {
    const auto type = static_cast<DeviceType>(choice(field, 3));
    const auto index = static_cast<int8_t>(uint(field, 1));
    if (index < -1) fail(field, str("device index ", int{index}, " is below -1"));
    return Device{type, index};
  }

  /// Starts the next section, which must be tag; reads until end_section() stay inside it.
  void begin_section(const char* tag) {
    where_.clear();
    if (std::memcmp(bytes("section tag", 4), tag, 4) != 0) fail("section tag", str("expected section ", tag));
    const uint64_t n = uint("section length", 8);
    if (n > limit_ - pos_) fail("section length", str(tag, " claims ", n, " bytes but ", limit_ - pos_, " are left"));
    limit_ = pos_ + n;
  }
  void end_section(const char* tag) {
    at_ = pos_;
    where_.clear();
    if (pos_ != limit_) fail(str("section ", tag), str(limit_ - pos_, " bytes are left unread"));
    limit_ = size_;
  }

  std::string where_;  // the item being read: "node 4 (add)"
  const uint8_t* p_;
  size_t size_, limit_, pos_ = 0, at_ = 0;
};

const char* arg_kind_name(Arg::Kind k) {
  static constexpr const char* names[] = {"None", "Tensor", "Tensor[]", "int", "SymInt", "float", "bool",
                                          "int[]", "SymInt[]", "ScalarType", "Device", "str"};
  return names[static_cast<int>(k)];
}

// Whether an argument of kind k can stand for schema argument a: kernels read a Value by the
// schema's type, so a kind that reads as another (an int where a tensor pointer is read) is refused.
bool fits(Arg::Kind k, const Argument& a) {
  using K = Arg::Kind;
  if (k == K::None) return a.optional || (a.has_default && a.default_value.kind == Value::Kind::None);
  switch (a.type) {
    case ArgType::Tensor: return k == K::Tensor;
    case ArgType::TensorList: return k == K::TensorList;
    case ArgType::Int: return k == K::Int || k == K::SymInt || k == K::Bool;
    case ArgType::IntList: return k == K::IntList || k == K::SymIntList;
    case ArgType::Float: return k == K::Double || k == K::Int || k == K::Bool;
    case ArgType::Bool: return k == K::Bool || k == K::Int;
    case ArgType::Scalar: return k == K::Int || k == K::Double || k == K::Bool;
    case ArgType::ScalarType: return k == K::DType;
    case ArgType::Device: return k == K::Device;
    case ArgType::String: return k == K::String;
    case ArgType::Generator: return false;  // a traced call always draws from the default generator
  }
  return false;
}

class Loader : public Reader {
 public:
  Loader(const void* data, size_t size) : Reader(data, size) {
    env_ = sym::ShapeEnv::create();
    g_.set_env(env_);
    env_->release();  // g_ holds it
  }

  /// The magic and the version: all a reader checks before it takes in the rest of a file.
  void header() {
    where_ = "header";
    if (std::memcmp(bytes("magic", sizeof kMagic), kMagic, sizeof kMagic) != 0)
      fail("magic", "not a ctorch program file (it must start with \"CTPROG\\0\\0\")");
    const uint32_t version = u32("version");
    if (version == 0 || version > kVersion)
      fail("version", str("the file has format version ", version, "; this library reads versions 1 to ", kVersion,
                          ". Load it with the ctorch that wrote it, or a newer one"));
  }

  std::unique_ptr<Program> load() {
    header();
    symbols();
    expressions();
    facts();
    inputs();
    constants();
    graph();
    at_ = pos_;
    if (pos_ != size_) fail("end of file", str(size_ - pos_, " bytes follow the last section"));
    for (const auto& [cond, message] : env_->runtime_asserts()) {  // as trace() does, replay's included
      RuntimeAssert a;
      a.cond = cond;
      a.message = message;
      collect_symbols(cond, a.symbols);
      g_.asserts.push_back(std::move(a));
    }
    return Program::create(std::move(g_), std::move(inputs_));
  }

 private:
  struct InputSource {
    uint32_t input, dim;
    size_t at;  // its offset, for messages
  };

  void symbols() {
    begin_section(kSymbolsTag);
    const uint32_t n = count("symbol count", 2);
    for (uint32_t k = 0; k < n; ++k) {
      where_ = str("symbol ", k);
      if (static_cast<sym::Type>(choice("type", 3)) != sym::Type::Int)
        fail("type", "only int symbols can be bound by a program (by input sizes or item nodes)");
      SymbolSource src;
      InputSource in{};
      if (choice("backed", 2)) {
        const std::string name = string("name");
        const int64_t hint = i64("hint"), lo = i64("min"), hi = i64("max");
        env_->create_symbol(hint, lo, hi, name);
        in.at = pos_;
        in.input = u32("input");
        in.dim = u32("dim");
      } else {
        env_->create_unbacked(sym::Type::Int);
        src.kind = SymbolSource::Kind::Item;  // src.node is set by the item node that binds it
      }
      g_.sources.push_back(src);
      sources_.push_back(in);
    }
    end_section(kSymbolsTag);
  }

  void expressions() {
    begin_section(kExpressionsTag);
    const uint32_t n = count("expression count", 6);
    for (uint32_t k = 0; k < n; ++k) {
      where_ = str("expression ", k);
      const auto op = static_cast<sym::Op>(choice("op", kNumOps));
      const auto type = static_cast<sym::Type>(choice("type", 3));
      Cost cost;
      sym::Node* node;
      if (op == sym::Op::Const) {
        const int64_t bits = i64("value");
        double f;
        std::memcpy(&f, &bits, 8);
        if (type == sym::Type::Bool && (bits & ~int64_t{1})) fail("value", str(bits, " is not a bool"));
        node = type == sym::Type::Int ? env_->int_const(bits) : type == sym::Type::Float ? env_->float_const(f)
                                                                                            : env_->bool_const(bits);
        cost.walk = 0;
      } else if (op == sym::Op::Symbol) {
        node = env_->symbols()[index("symbol", env_->symbols().size())].node;
      } else {
        const uint32_t argc = count("argument count", 4);
        const auto [lo, hi] = kArity[static_cast<int>(op)];
        if (argc < lo || argc > hi)
          fail("argument count", str(argc, " arguments; this op takes ", lo, lo == hi ? "" : hi == kMany ? " or more" : str(" to ", hi)));
        std::vector<sym::Node*> args;
        for (uint32_t i = 0; i < argc; ++i) {
          const uint32_t a = index("argument", k);  // an earlier entry: the table is topologically ordered
          args.push_back(exprs_[a]);
          cost.add(costs_[a]);
        }
        if (cost.depth > kMaxExprDepth) fail("argument", str("the expression nests deeper than ", kMaxExprDepth, " levels"));
        node = build(op, args);
      }
      if (node->type != type) fail("type", "differs from the type of the expression the arguments make");
      exprs_.push_back(node);
      costs_.push_back(cost);
    }
    end_section(kExpressionsTag);
  }

  // The node op makes of args (as many as kArity allows), through the simplifying constructors.
  sym::Node* build(sym::Op op, const std::vector<sym::Node*>& a) {
    using sym::Op;
    sym::ShapeEnv& e = *env_;
    sym::Node* rhs = a.size() == 1 ? e.int_const(0) : a[1];
    switch (op) {
      case Op::Add: return e.add(a);
      case Op::Mul: return e.mul(a);
      case Op::And: return e.logical_and(a);
      case Op::Or: return e.logical_or(a);
      case Op::Min: return e.min(a);
      case Op::Max: return e.max(a);
      case Op::FloorDiv: return e.floordiv(a[0], a[1]);
      case Op::Mod: return e.mod(a[0], a[1]);
      case Op::Pow: return e.pow(a[0], a[1]);
      case Op::TrueDiv: return e.truediv(a[0], a[1]);
      case Op::Lt: return e.lt(a[0], a[1]);
      case Op::Le: return e.le(a[0], rhs);
      case Op::Eq: return e.eq(a[0], rhs);
      case Op::Ne: return e.ne(a[0], rhs);
      case Op::Not: return e.logical_not(a[0]);
      case Op::ToFloat: return e.to_float(a[0]);
      case Op::ToInt: return e.to_int(a[0]);
      case Op::Ite: return e.ite(a[0], a[1], a[2]);
      case Op::Const: case Op::Symbol: break;  // leaves: read by expressions()
    }
    fail("op", "not an operation");
  }

  /// An expression used outside the table; counts one evaluation of it.
  sym::Node* expr(const char* field) {
    const uint32_t i = index(field, exprs_.size());
    work_ += costs_[i].walk;
    if (work_ > kMaxExprWork) fail(field, str("evaluating every expression use once walks more than ", kMaxExprWork, " nodes"));
    return exprs_[i];
  }
  SymInt symint(const char* field) {
    sym::Node* n = expr(field);
    if (n->type != sym::Type::Int) fail(field, "is not an int expression");
    return SymInt(n);
  }
  SymDimVector sizes(const char* field) {
    const uint32_t rank = count(field, 4);
    if (rank > kMaxDims) fail(field, str(rank, " dims; tensors have at most ", kMaxDims));
    SymDimVector s;
    for (uint32_t d = 0; d < rank; ++d) {
      s.push_back(symint(field));
      if (!s.back().is_symbolic() && s.back().raw() < 0) fail(field, str("size ", s.back().raw(), " is negative"));
    }
    return s;
  }

  void facts() {
    begin_section(kGuardsTag);
    const uint32_t n = count("guard count", 4);
    for (uint32_t k = 0; k < n; ++k) {
      where_ = str("guard ", k);
      if (!env_->guard_bool(expr("expression"))) fail("expression", "the guard is false under the symbols' hints");
    }
    const uint32_t m = count("runtime assert count", 8);
    for (uint32_t k = 0; k < m; ++k) {
      where_ = str("runtime assert ", k);
      sym::Node* cond = expr("expression");
      env_->check(cond, CT_ERROR_GUARD, string("message"));
    }
    end_section(kGuardsTag);
  }

  void inputs() {
    begin_section(kInputsTag);
    const uint32_t n = count("input count", 7);
    for (uint32_t i = 0; i < n; ++i) {
      where_ = str("input ", i);
      InputSpec s;
      s.dtype = dtype("dtype");
      s.device = device("device");
      s.sizes = sizes("sizes");
      inputs_.push_back(std::move(s));
    }
    end_section(kInputsTag);
    for (size_t k = 0; k < sources_.size(); ++k) {  // backed symbols take the size of an input dim
      if (g_.sources[k].kind != SymbolSource::Kind::InputSize) continue;
      const InputSource& s = sources_[k];
      where_ = str("symbol ", k);
      at_ = s.at;
      if (s.input >= n || s.dim >= inputs_[s.input].sizes.size() ||
          inputs_[s.input].sizes[s.dim].raw() != SymInt(env_->symbols()[k].node).raw())
        fail("source", str("input ", s.input, " dim ", s.dim, " is not a dim of this symbol's size"));
      g_.sources[k].input = static_cast<int32_t>(s.input);
      g_.sources[k].dim = static_cast<int32_t>(s.dim);
    }
  }

  void constants() {
    begin_section(kConstantsTag);
    const uint32_t n = count("constant count", 13);
    for (uint32_t i = 0; i < n; ++i) {
      where_ = str("constant ", i);
      const DType dt = dtype("dtype");
      const uint32_t rank = count("rank", 8);
      if (rank > kMaxDims) fail("rank", str(rank, " dims; tensors have at most ", kMaxDims));
      DimVector sizes;
      uint64_t numel = 1, span = 1;  // span: the product of max(size, 1), which strides must hold
      for (uint32_t d = 0; d < rank; ++d) {
        const int64_t s = i64("size");
        if (s < 0) fail("size", str(s, " is negative"));
        if (__builtin_mul_overflow(span, static_cast<uint64_t>(std::max<int64_t>(s, 1)), &span) || span > INT64_MAX)
          fail("size", "the sizes' product overflows int64");
        numel *= static_cast<uint64_t>(s);
        sizes.push_back(s);
      }
      const uint64_t nbytes = uint("byte length", 8);
      if (numel > nbytes / itemsize(dt) || nbytes != numel * itemsize(dt))  // the product cannot overflow
        fail("byte length", str(nbytes, " bytes for ", numel, " elements of ", dt, " (", itemsize(dt), " bytes each)"));
      const uint8_t* data = bytes("data", nbytes);
      if (dt == DType::Bool)
        for (uint64_t b = 0; b < nbytes; ++b)
          if (data[b] > 1) fail("data", str("element ", b, " is ", int{data[b]}, ", not a bool"));
      Tensor t = ops::empty(sizes, dt, kCPU);
      if (nbytes) std::memcpy(t->data(), data, nbytes);
      g_.constants.push_back(std::move(t));
    }
    end_section(kConstantsTag);
  }

  void graph() {
    begin_section(kGraphTag);
    const uint32_t n = count("node count", 9);
    for (uint32_t i = 0; i < n; ++i) {
      where_ = str("node ", i);
      Node node;
      node.kind = static_cast<Node::Kind>(choice("kind", 4));  // Fused nodes are never saved
      node.name = string("name");
      if (g_.fresh_name(node.name) != node.name) fail("name", str("\"", node.name, "\" names an earlier node too"));
      where_ = str("node ", i, " (", node.name, ")");
      const uint32_t nouts = count("result count", 7);
      for (uint32_t k = 0; k < nouts; ++k) {
        TensorMeta m;
        m.dtype = dtype("result dtype");
        m.device = device("result device");
        m.sizes = sizes("result sizes");
        node.outs.push_back(std::move(m));
      }
      switch (node.kind) {
        case Node::Kind::Placeholder: {
          node.index = index("input", inputs_.size());
          const InputSpec& s = inputs_[node.index];
          if (nouts != 1 || node.outs[0].dtype != s.dtype || node.outs[0].device != s.device ||
              !same_sizes(node.outs[0].sizes, s.sizes))
            fail("input", "the placeholder's result differs from the input's spec");
          break;
        }
        case Node::Kind::Constant: {
          node.index = index("constant", g_.constants.size());
          node.folded = choice("folded", 2);
          const TensorImpl& c = *g_.constants[node.index];
          if (nouts != 1 || node.outs[0].dtype != c.dtype() || !node.outs[0].device.is_cpu() ||
              !same_sizes(node.outs[0].sizes, SymDimVector(c.sym_sizes())))
            fail("constant", "the node's result differs from the constant's dtype, device or sizes");
          break;
        }
        case Node::Kind::Call: call(node, i); break;
        case Node::Kind::Item: {
          node.index = index("symbol", g_.sources.size());
          SymbolSource& src = g_.sources[node.index];
          if (src.kind != SymbolSource::Kind::Item || src.node >= 0)
            fail("symbol", "must be an unbacked symbol that no earlier item node binds");
          src.node = static_cast<int32_t>(i);
          node.src = ref("source", i);
          if (nouts != 0) fail("result count", "an item node has no tensor results");
          break;
        }
        case Node::Kind::Fused: break;
      }
      replay(node);
      g_.nodes.push_back(std::move(node));
    }
    check_pinned_sizes();
    const uint32_t nout = count("output count", 8);
    for (uint32_t k = 0; k < nout; ++k) {
      where_ = str("output ", k);
      g_.outputs.push_back(ref("node", n));
    }
    end_section(kGraphTag);
    for (size_t k = 0; k < g_.sources.size(); ++k) {
      where_ = str("symbol ", k);
      if (g_.sources[k].kind == SymbolSource::Kind::Item && g_.sources[k].node < 0)
        fail("", "no item node binds this unbacked symbol");
    }
    g_.num_inputs = inputs_.size();
  }

  /// Every result whose symbolic sizes the facts recorded by the whole graph pin to values has its
  /// bytes checked as those concrete sizes: save_program writes them so (program_write.cpp), and
  /// loading that file checks them as any concrete size, so a file that loads saves to one that
  /// loads. (A symbolic size's bytes cannot be checked while its symbol may still grow.)
  void check_pinned_sizes() {
    for (size_t i = 0; i < g_.nodes.size(); ++i)
      for (size_t k = 0; k < g_.nodes[i].outs.size(); ++k) {
        const TensorMeta& m = g_.nodes[i].outs[k];
        DimVector concrete;
        bool pinned = false;
        for (SymInt s : m.sizes) {
          const std::optional<int64_t> v = s.is_symbolic() ? env_->known_int(s.node()) : s.raw();
          if (!v) break;
          pinned |= s.is_symbolic();
          concrete.push_back(*v);
        }
        if (!pinned || concrete.size() != m.sizes.size()) continue;
        where_ = str("node ", i, " (", g_.nodes[i].name, ") result ", k);
        checked_nbytes(concrete, m.dtype, "sizes pinned by the guards and runtime assertions");
      }
  }

  /// A reference to a defined result of a node before node `before`.
  Ref ref(const char* field, uint32_t before) {
    Ref r;
    r.node = static_cast<int32_t>(index(field, before));
    r.out = static_cast<int32_t>(index("result", values_[r.node].size()));
    if (!values_[r.node][r.out].defined()) fail("result", "refers to a result the operator leaves undefined");
    return r;
  }

  void call(Node& node, uint32_t i) {
    const std::string name = string("operator");
    node.op = Registry::get().find(name);
    if (!node.op) fail("operator", str("unknown operator \"", name, "\". Define it (ct_library_define) before loading"));
    const Schema& schema = node.op->schema;
    if (node.outs.size() != schema.returns.size())
      fail("operator", str(name, " has ", schema.returns.size(), " results, the node ", node.outs.size()));
    if (count("argument count", 1) != schema.args.size())
      fail("argument count", str(name, " takes ", schema.args.size(), " arguments"));
    for (const Argument& a : schema.args) node.args.push_back(arg(a, i));
  }

  Arg arg(const Argument& a, uint32_t node) {
    Arg arg;
    arg.kind = static_cast<Arg::Kind>(choice("argument kind", kNumArgKinds));
    if (!fits(arg.kind, a))
      fail("argument kind", str("argument '", a.name, "' is ", a.type_text, ", not ", arg_kind_name(arg.kind)));
    switch (arg.kind) {
      case Arg::Kind::None: break;
      case Arg::Kind::Tensor: arg.refs.push_back(ref("argument", node)); break;
      case Arg::Kind::TensorList:
        for (uint32_t k = count("list length", 8); k > 0; --k) arg.refs.push_back(ref("argument", node));
        break;
      case Arg::Kind::Int: arg.i = i64("argument"); break;
      case Arg::Kind::SymInt: arg.ints.push_back(symint("argument")); break;
      case Arg::Kind::Double: arg.d = f64("argument"); break;
      case Arg::Kind::Bool: arg.i = choice("argument", 2); break;
      case Arg::Kind::IntList:
        for (uint32_t k = count("list length", 8); k > 0; --k) arg.ints.push_back(SymInt(i64("argument")));
        break;
      case Arg::Kind::SymIntList:
        for (uint32_t k = count("list length", 4); k > 0; --k) arg.ints.push_back(symint("argument"));
        break;
      case Arg::Kind::DType: arg.i = static_cast<int64_t>(dtype("argument")); break;
      case Arg::Kind::Device: arg.device = device("argument"); break;
      case Arg::Kind::String: arg.s = string("argument"); break;
    }
    if (a.writes)  // as while tracing: a constant is shared by every call, so no call may write it
      for (Ref r : arg.refs)
        if (g_.nodes[r.node].kind == Node::Kind::Constant) fail("argument", str("'", a.name, "' writes to a constant"));
    return arg;
  }

  // Computes node's results on meta tensors (Note [Loading a program file]) into values_. A call's
  // saved sizes must not contradict the operator's; the node keeps the operator's, which are the
  // ones a trace would record now.
  void replay(Node& node) {
    std::vector<Tensor>& out = values_.emplace_back();
    const Device meta{DeviceType::Meta, 0};
    if (node.kind != Node::Kind::Call) {
      for (const TensorMeta& m : node.outs)
        out.push_back(Tensor::adopt(TensorImpl::empty_sym(m.sizes, m.dtype, meta, env_)));
      return;
    }
    const OperatorDef& op = *node.op;
    std::vector<Value> args;
    std::vector<std::vector<const TensorImpl*>> lists(node.args.size());
    Device device = runtime::current_device();  // where the results live, decided as trace() does
    bool have_device = false;
    for (size_t i = 0; i < node.args.size(); ++i) {
      const Arg& a = node.args[i];
      for (Ref r : a.refs) lists[i].push_back(values_[r.node][r.out].impl());
      if (!have_device && !a.refs.empty()) device = g_.meta(a.refs[0]).device, have_device = true;
      switch (a.kind) {
        case Arg::Kind::None: args.emplace_back(); break;
        case Arg::Kind::Tensor: args.emplace_back(lists[i][0]); break;
        case Arg::Kind::TensorList: args.emplace_back(ArrayRef<const TensorImpl*>(lists[i])); break;
        case Arg::Kind::Int: args.emplace_back(a.i); break;
        case Arg::Kind::SymInt: args.emplace_back(a.ints[0]); break;
        case Arg::Kind::Double: args.emplace_back(a.d); break;
        case Arg::Kind::Bool: args.emplace_back(a.i != 0); break;
        case Arg::Kind::IntList:
        case Arg::Kind::SymIntList: args.emplace_back(SymIntArrayRef(a.ints.data(), a.ints.size())); break;
        case Arg::Kind::DType: args.emplace_back(static_cast<DType>(a.i)); break;
        case Arg::Kind::Device: args.emplace_back(a.device); break;
        case Arg::Kind::String: args.emplace_back(a.s.c_str()); break;
      }
    }
    if (op.device_arg >= 0) {
      const Arg& d = node.args[op.device_arg];
      device = d.kind == Arg::Kind::Device ? d.device : runtime::current_device();
      args[op.device_arg] = Value(meta);
    }
    const size_t nsym = env_->num_symbols();
    out.resize(node.outs.size());
    {
      DispatchKeyGuard off(DispatchKeySet(), DispatchKeySet(DispatchKey::Tracer).add(DispatchKey::Autograd));
      dispatch(op, args.data(), args.size(), out.data(), out.size());
    }
    if (env_->num_symbols() != nsym) fail("operator", "its meta function makes a symbol the program cannot bind");
    for (size_t k = 0; k < out.size(); ++k) {
      TensorMeta& m = node.outs[k];
      if (!out[k].defined()) {
        m = TensorMeta{};
        continue;
      }
      const TensorImpl& t = *out[k];
      bool contradicts = t.dtype() != m.dtype || m.device != device || t.dim() != m.sizes.size();
      for (size_t d = 0; d < m.sizes.size() && !contradicts; ++d) {
        const sym::Node* eq = env_->eq(m.sizes[d].to_node(*env_), t.sym_sizes()[d].to_node(*env_));
        contradicts = eq->is_const() && !eq->int_value();
      }
      if (contradicts)
        fail(str("result ", k), str("the file says ", m.dtype, " ", m.sizes.ref(), " on ", m.device, " but ",
                                    op.full_name, " computes ", t.dtype(), " ", t.sym_sizes(), " on ", device));
      m.sizes = t.sym_sizes();
    }
  }

  static void collect_symbols(const sym::Node* n, std::vector<int32_t>& out) {
    if (n->op == sym::Op::Symbol) {
      if (std::find(out.begin(), out.end(), n->value.i) == out.end()) out.push_back(static_cast<int32_t>(n->value.i));
      return;
    }
    for (const sym::Node* a : n->args) collect_symbols(a, out);
  }

  sym::ShapeEnv* env_;
  Graph g_;
  std::vector<InputSpec> inputs_;
  std::vector<InputSource> sources_;  // per symbol; read before the inputs they name
  std::vector<sym::Node*> exprs_;
  std::vector<Cost> costs_;
  uint64_t work_ = 0;
  std::vector<std::vector<Tensor>> values_;  // each node's results replayed on meta tensors
};

}  // namespace

size_t program_header_size() { return sizeof kMagic + sizeof(uint32_t); }

void check_program_header(const void* data, size_t size) {
  Loader(data, std::min(size, program_header_size())).header();
}

std::unique_ptr<Program> load_program(const void* data, size_t size) {
  CT_CHECK(data || size == 0, CT_ERROR_INVALID_ARGUMENT, "load_program: data is NULL but size is ", size);
  Loader loader(data, size);
  try {
    return loader.load();
  } catch (const Error& e) {
    // The ShapeEnv's or an operator's objection to what the file says becomes a format error at
    // the item being read; running out of memory stays what it is. The status tells the loader's
    // own errors apart, not the text: a failing assertion's message comes from the file itself.
    const bool loaders_own = e.status() == CT_ERROR_FORMAT && e.message().rfind("program file: ", 0) == 0;
    if (e.status() == CT_ERROR_OUT_OF_MEMORY || loaders_own) throw;
    loader.fail("", e.message());
  }
}

}  // namespace ct::compile
