#include "compile/graph.h"

#include <sstream>

#include "compile/fuse.h"
#include "symbolic/eval.h"

namespace ct::compile {

Graph::Graph() = default;
Graph::Graph(Graph&& o) noexcept { *this = std::move(o); }
Graph& Graph::operator=(Graph&& o) noexcept {
  if (this == &o) return *this;
  nodes = std::move(o.nodes);
  outputs = std::move(o.outputs);
  constants = std::move(o.constants);
  sources = std::move(o.sources);
  asserts = std::move(o.asserts);
  num_inputs = o.num_inputs;
  names_ = std::move(o.names_);
  if (env_) env_->release();
  env_ = o.env_;
  o.env_ = nullptr;
  return *this;
}
Graph::~Graph() {
  nodes.clear();  // SymInts in nodes point into env_: drop them first
  if (env_) env_->release();
}

Graph Graph::clone() const {
  Graph g;
  g.nodes = nodes;
  g.outputs = outputs;
  g.constants = constants;
  g.sources = sources;
  g.asserts = asserts;
  g.num_inputs = num_inputs;
  g.names_ = names_;
  g.set_env(env_);
  return g;
}

void Graph::set_env(sym::ShapeEnv* env) {
  if (env) env->retain();
  if (env_) env_->release();
  env_ = env;
}

std::string Graph::fresh_name(const std::string& base) {
  std::string name = base;
  for (int k = 1; names_.count(name); ++k) name = base + "_" + std::to_string(k);
  names_.insert(name);
  return name;
}

std::vector<int32_t> Graph::use_counts() const {
  std::vector<int32_t> uses(nodes.size(), 0);
  for (const Node& n : nodes) {
    for (const Arg& a : n.args)
      for (Ref r : a.refs) ++uses[r.node];
    if (n.kind == Node::Kind::Item) ++uses[n.src.node];
  }
  for (Ref r : outputs) ++uses[r.node];
  return uses;
}

int64_t eval_symint(SymInt v, ArrayRef<sym::BoundValue> binding) {
  if (!v.is_symbolic()) return v.raw();
  return sym::evaluate(v.node(), binding).i;
}

namespace {

const char* short_dtype(DType d) {
  switch (d) {
    case DType::Bool: return "b8";
    case DType::UInt8: return "u8";
    case DType::Int8: return "i8";
    case DType::Int16: return "i16";
    case DType::Int32: return "i32";
    case DType::Int64: return "i64";
    case DType::Float16: return "f16";
    case DType::BFloat16: return "bf16";
    case DType::Float32: return "f32";
    case DType::Float64: return "f64";
    case DType::Complex64: return "c64";
    case DType::Complex128: return "c128";
  }
  return "?";
}

std::string ref_name(const Graph& g, Ref r) {
  const Node& n = g.nodes[r.node];
  std::string s = "%" + n.name;
  if (n.outs.size() > 1) s += "[" + std::to_string(r.out) + "]";
  return s;
}

std::string meta_text(const TensorMeta& m) {
  std::ostringstream os;
  os << short_dtype(m.dtype) << "[";
  for (size_t i = 0; i < m.sizes.size(); ++i) os << (i ? ", " : "") << m.sizes[i];
  os << "]";
  if (!m.device.is_cpu()) os << "@" << m.device;
  return os.str();
}

}  // namespace

std::string arg_to_string(const Graph& g, const Arg& a) {
  std::ostringstream os;
  switch (a.kind) {
    case Arg::Kind::None: os << "None"; break;
    case Arg::Kind::Tensor: os << ref_name(g, a.refs[0]); break;
    case Arg::Kind::TensorList:
      os << "[";
      for (size_t i = 0; i < a.refs.size(); ++i) os << (i ? ", " : "") << ref_name(g, a.refs[i]);
      os << "]";
      break;
    case Arg::Kind::Int: os << a.i; break;
    case Arg::Kind::SymInt: os << a.ints[0]; break;
    case Arg::Kind::Double: os << a.d; break;
    case Arg::Kind::Bool: os << (a.i ? "True" : "False"); break;
    case Arg::Kind::IntList:
    case Arg::Kind::SymIntList:
      os << "[";
      for (size_t i = 0; i < a.ints.size(); ++i) os << (i ? ", " : "") << a.ints[i];
      os << "]";
      break;
    case Arg::Kind::DType: os << dtype_name(static_cast<DType>(a.i)); break;
    case Arg::Kind::Device: os << "'" << a.device << "'"; break;
    case Arg::Kind::String: os << "'" << a.s << "'"; break;
  }
  return os.str();
}

std::string Graph::to_string() const {
  std::ostringstream os;
  std::vector<std::string> params(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) params[i] = "x" + std::to_string(i);
  for (const Node& n : nodes)
    if (n.kind == Node::Kind::Placeholder && static_cast<size_t>(n.index) < num_inputs) params[n.index] = n.name;
  os << "graph(";
  for (size_t i = 0; i < num_inputs; ++i) os << (i ? ", " : "") << params[i];
  os << "):\n";
  for (const Node& n : nodes) {
    os << "    %" << n.name << " : ";
    if (n.outs.size() == 1) {
      os << meta_text(n.outs[0]);
    } else if (n.kind == Node::Kind::Item) {
      os << "SymInt";
    } else {
      os << "(";
      for (size_t i = 0; i < n.outs.size(); ++i) os << (i ? ", " : "") << meta_text(n.outs[i]);
      os << ")";
    }
    os << " = ";
    switch (n.kind) {
      case Node::Kind::Placeholder: os << "placeholder[" << n.index << "]"; break;
      case Node::Kind::Constant: os << "constant[" << n.index << "]"; break;
      case Node::Kind::Item:
        os << "item(" << ref_name(*this, n.src) << ") -> " << env().symbols()[n.index].name;
        break;
      case Node::Kind::Call:
      case Node::Kind::Fused: {
        if (n.kind == Node::Kind::Call) {
          os << n.op->full_name << "(";
        } else {
          os << n.fused->describe() << "(";
        }
        for (size_t i = 0; i < n.args.size(); ++i) {
          os << (i ? ", " : "");
          if (n.kind == Node::Kind::Call && i < n.op->schema.args.size() && n.op->schema.args[i].kwarg_only)
            os << n.op->schema.args[i].name << "=";
          os << arg_to_string(*this, n.args[i]);
        }
        os << ")";
        break;
      }
    }
    os << "\n";
  }
  os << "    return (";
  for (size_t i = 0; i < outputs.size(); ++i) os << (i ? ", " : "") << ref_name(*this, outputs[i]);
  if (outputs.size() == 1) os << ",";
  os << ")\n";
  return os.str();
}

}  // namespace ct::compile
