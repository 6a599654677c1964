// program_write.cpp - save_program: a Program as a versioned binary file. The layout, field by
// field, is in docs/program-format.md; program_read.cpp reads it back.
#include <cstring>
#include <optional>
#include <unordered_map>
#include <utility>

#include "compile/export.h"
#include "compile/program_format.h"
#include "ops/functions.h"

namespace ct::compile {
namespace {

using namespace program_format;

class Writer {
 public:
  void u8(uint64_t v) { put(v, 1); }
  void u32(uint64_t v) { put(v, 4); }
  void i64(int64_t v) { put(static_cast<uint64_t>(v), 8); }
  void f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    put(bits, 8);
  }
  void str(const std::string& s) {
    u32(s.size());
    out += s;
  }
  void device(Device d) {
    u8(static_cast<uint8_t>(d.type));
    u8(static_cast<uint8_t>(d.index));
  }
  void section(const char* tag, const Writer& body) {
    out.append(tag, 4);
    i64(static_cast<int64_t>(body.out.size()));
    out += body.out;
  }
  std::string out;

 private:
  void put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  }
};

class Saver {
 public:
  explicit Saver(const Program& p) : p_(p), g_(p.graph()), env_(g_.env()) {}

  std::string save() {
    Writer symbols, facts, inputs, constants, graph;
    symbols.u32(env_.num_symbols());
    CT_CHECK(g_.sources.size() == env_.num_symbols(), CT_ERROR_INVALID_ARGUMENT, "save_program: the graph binds ",
             g_.sources.size(), " of its ", env_.num_symbols(), " symbols");
    for (size_t k = 0; k < g_.sources.size(); ++k) {
      const sym::SymbolInfo& s = env_.symbols()[k];
      const SymbolSource& src = g_.sources[k];
      CT_CHECK(s.backed == (src.kind == SymbolSource::Kind::InputSize), CT_ERROR_INVALID_ARGUMENT, "save_program: symbol ",
               s.name, " is ", s.backed ? "backed but bound by an item node" : "unbacked but bound by an input size");
      symbols.u8(static_cast<uint8_t>(s.node->type));
      symbols.u8(s.backed);
      if (!s.backed) continue;  // its item node binds it; its range comes from the runtime assertions
      symbols.str(s.name);
      symbols.i64(s.node->hint.i);
      // The declared range, not the narrowed one: guards narrowing it again on loading are then
      // recorded again, where under the narrowed range they would fold to true and be lost.
      symbols.i64(s.declared.lo);
      symbols.i64(s.declared.hi);
      symbols.u32(src.input);
      symbols.u32(src.dim);
    }
    const std::vector<sym::Node*> guards = env_.guards();
    facts.u32(guards.size());
    for (const sym::Node* n : guards) facts.u32(use(n));
    const auto asserts = env_.runtime_asserts();
    facts.u32(asserts.size());
    for (const auto& [cond, message] : asserts) {
      facts.u32(use(cond));
      facts.str(message);
    }
    inputs.u32(p_.inputs().size());
    for (const InputSpec& s : p_.inputs()) {
      inputs.u8(static_cast<uint8_t>(s.dtype));
      inputs.device(s.device);
      sizes(inputs, s.sizes);
    }
    constants.u32(g_.constants.size());
    for (size_t i = 0; i < g_.constants.size(); ++i) constant(constants, i);
    graph.u32(g_.nodes.size());
    for (const Node& n : g_.nodes) node(graph, n);
    graph.u32(g_.outputs.size());
    for (Ref r : g_.outputs) ref(graph, r);
    CT_CHECK(work_ <= kMaxExprWork, CT_ERROR_INVALID_ARGUMENT, "save_program: evaluating every size of the program "
             "once walks ", work_, " expression nodes; a program file holds at most ", kMaxExprWork);

    Writer table;
    table.u32(costs_.size());
    table.out += exprs_.out;
    Writer file;
    file.out.assign(kMagic, sizeof kMagic);
    file.u32(kVersion);
    file.section(kSymbolsTag, symbols);
    file.section(kExpressionsTag, table);
    file.section(kGuardsTag, facts);
    file.section(kInputsTag, inputs);
    file.section(kConstantsTag, constants);
    file.section(kGraphTag, graph);
    return std::move(file.out);
  }

 private:
  // The table index of n's entry, appending it (arguments first) when new. An Int constant shares
  // the entry of the same concrete size.
  uint32_t expr(const sym::Node* n) {
    if (n->is_const() && n->type == sym::Type::Int) return int_expr(n->int_value());
    if (auto it = index_.find(n); it != index_.end()) return it->second;
    Cost cost;
    cost.walk = n->is_const() ? 0 : 1;
    std::vector<uint32_t> args;
    for (const sym::Node* a : n->args) {
      args.push_back(expr(a));
      cost.add(costs_[args.back()]);
    }
    CT_CHECK(cost.depth <= kMaxExprDepth, CT_ERROR_INVALID_ARGUMENT, "save_program: the expression ",
             env_.to_string(n), " nests deeper than ", kMaxExprDepth, " levels, the most a program file holds");
    exprs_.u8(static_cast<uint8_t>(n->op));
    exprs_.u8(static_cast<uint8_t>(n->type));
    if (n->op == sym::Op::Const) {
      exprs_.i64(n->value.i);  // the bits of the value, whichever type
    } else if (n->op == sym::Op::Symbol) {
      exprs_.u32(n->value.i);
    } else {
      exprs_.u32(args.size());
      for (uint32_t a : args) exprs_.u32(a);
    }
    return index_[n] = push(cost);
  }
  uint32_t int_expr(int64_t v) {
    if (auto it = ints_.find(v); it != ints_.end()) return it->second;
    exprs_.u8(static_cast<uint8_t>(sym::Op::Const));
    exprs_.u8(static_cast<uint8_t>(sym::Type::Int));
    exprs_.i64(v);
    return ints_[v] = push(Cost{1, 0});
  }
  uint32_t push(Cost c) {
    costs_.push_back(c);
    return static_cast<uint32_t>(costs_.size() - 1);
  }
  // An expression used outside the table: counts one evaluation of it.
  uint32_t use(const sym::Node* n) {
    const uint32_t i = expr(n);
    work_ += costs_[i].walk;
    return i;
  }
  // A size or int argument that the facts recorded since it was made (a guard, a runtime assertion)
  // allow one value is written as that value: loading, which records the facts before it reads
  // the sizes and the graph, may make it one (SymInt's constructor folds a node whose range is one
  // point), and writing it so keeps a loaded program saving to the same bytes.
  uint32_t use(SymInt v) {
    if (!v.is_symbolic()) return int_expr(v.raw());
    const std::optional<int64_t> known = env_.known_int(v.node());
    return known ? int_expr(*known) : use(v.node());
  }

  void sizes(Writer& w, const SymDimVector& s) {
    w.u32(s.size());
    for (SymInt v : s) w.u32(use(v));
  }
  void ref(Writer& w, Ref r) {
    w.u32(r.node);
    w.u32(r.out);
  }

  void constant(Writer& w, size_t i) {
    const Tensor& t = g_.constants[i];
    CT_CHECK(t->device().is_cpu(), CT_ERROR_INVALID_ARGUMENT, "save_program: constant ", i, " (", t->sizes(), ", ",
             t->dtype(), ") is on ", t->device(), "; a program file holds CPU constants only. Capture a CPU tensor "
             "(move it with to()) before exporting");
    const Tensor c = ops::expect_contiguous(t);
    w.u8(static_cast<uint8_t>(c->dtype()));
    w.u32(c->dim());
    for (int64_t s : c->sizes()) w.i64(s);
    const uint64_t nbytes = static_cast<uint64_t>(c->numel()) * itemsize(c->dtype());
    w.i64(static_cast<int64_t>(nbytes));
    if (nbytes) w.out.append(static_cast<const char*>(c->data()), nbytes);
  }

  void node(Writer& w, const Node& n) {
    CT_CHECK(n.kind != Node::Kind::Fused, CT_ERROR_INVALID_ARGUMENT, "save_program: node ", n.name, " is a fused "
             "region, which a program file cannot hold. Save the program's unfused graph");
    w.u8(static_cast<uint8_t>(n.kind));
    w.str(n.name);
    w.u32(n.outs.size());
    for (const TensorMeta& m : n.outs) {
      w.u8(static_cast<uint8_t>(m.dtype));
      w.device(m.device);
      sizes(w, m.sizes);
    }
    switch (n.kind) {
      case Node::Kind::Placeholder: w.u32(n.index); break;
      case Node::Kind::Constant:
        w.u32(n.index);
        w.u8(n.folded);
        break;
      case Node::Kind::Call:
        w.str(n.op->full_name);
        w.u32(n.args.size());
        for (const Arg& a : n.args) arg(w, a);
        break;
      case Node::Kind::Item:
        w.u32(n.index);
        ref(w, n.src);
        break;
      case Node::Kind::Fused: break;
    }
  }

  void arg(Writer& w, const Arg& a) {
    w.u8(static_cast<uint8_t>(a.kind));
    switch (a.kind) {
      case Arg::Kind::None: break;
      case Arg::Kind::Tensor: ref(w, a.refs[0]); break;
      case Arg::Kind::TensorList:
        w.u32(a.refs.size());
        for (Ref r : a.refs) ref(w, r);
        break;
      case Arg::Kind::Int: w.i64(a.i); break;
      case Arg::Kind::SymInt: w.u32(use(a.ints[0])); break;
      case Arg::Kind::Double: w.f64(a.d); break;
      case Arg::Kind::Bool: w.u8(a.i != 0); break;
      case Arg::Kind::IntList:
        w.u32(a.ints.size());
        for (SymInt v : a.ints) w.i64(v.raw());
        break;
      case Arg::Kind::SymIntList:
        w.u32(a.ints.size());
        for (SymInt v : a.ints) w.u32(use(v));
        break;
      case Arg::Kind::DType: w.u8(a.i); break;
      case Arg::Kind::Device: w.device(a.device); break;
      case Arg::Kind::String: w.str(a.s); break;
    }
  }

  const Program& p_;
  const Graph& g_;
  sym::ShapeEnv& env_;  // not const: known_int refreshes a node's cached range
  Writer exprs_;
  std::vector<Cost> costs_;
  std::unordered_map<const sym::Node*, uint32_t> index_;
  std::unordered_map<int64_t, uint32_t> ints_;
  uint64_t work_ = 0;
};

}  // namespace

std::string save_program(const Program& p) { return Saver(p).save(); }

}  // namespace ct::compile
