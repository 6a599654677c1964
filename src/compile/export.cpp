#include "compile/export.h"

#include <algorithm>

#include "compile/fuse.h"
#include "compile/passes.h"
#include "compile/run.h"
#include "runtime/json.h"

namespace ct::compile {

Program::Program(Graph graph, std::vector<InputSpec> inputs) : graph_(std::move(graph)), inputs_(std::move(inputs)) {
  for (const sym::Node* g : graph_.env().guards()) {
    guard_code_.add_root(g);
    guards_.push_back(g);
  }
  exec_ = graph_.clone();
  fuse(exec_);
}

std::unique_ptr<Program> Program::create(Graph graph, std::vector<InputSpec> inputs) {
  CT_CHECK(inputs.size() == graph.num_inputs, CT_ERROR_INVALID_ARGUMENT, "program: ", inputs.size(),
           " input specs for a graph of ", graph.num_inputs, " inputs");
  return std::unique_ptr<Program>(new Program(std::move(graph), std::move(inputs)));
}

void Program::call(ArrayRef<const TensorImpl*> inputs, std::vector<Tensor>& outs) const {
  CT_CHECK(inputs.size() == inputs_.size(), CT_ERROR_INVALID_ARGUMENT, "ct_program_call: ", inputs.size(),
           " inputs given; the program takes ", inputs_.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorImpl& t = *inputs[i];
    const InputSpec& s = inputs_[i];
    CT_CHECK(t.dtype() == s.dtype, CT_ERROR_DTYPE, "ct_program_call: input ", i, " is ", t.dtype(),
             "; the program was exported for ", s.dtype, ". Convert it with to()");
    CT_CHECK(t.device() == s.device, CT_ERROR_DEVICE, "ct_program_call: input ", i, " is on ", t.device(),
             "; the program was exported for ", s.device);
    CT_CHECK(t.dim() == s.sizes.size() && !t.is_symbolic(), CT_ERROR_SHAPE, "ct_program_call: input ", i, " has sizes ",
             t.sym_sizes(), "; the program takes ", s.sizes.ref());
  }
  // Ranks checked: every symbol's source dim exists.
  std::vector<sym::BoundValue> binding = bind_inputs(graph_, inputs);
  const sym::ShapeEnv& env = graph_.env();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorImpl& t = *inputs[i];
    const InputSpec& s = inputs_[i];
    for (size_t d = 0; d < t.dim(); ++d) {
      const SymInt want = s.sizes[d];
      const int64_t got = t.sizes()[d];
      if (!want.is_symbolic()) {
        CT_CHECK(got == want.raw(), CT_ERROR_SHAPE, "ct_program_call: input ", i, " has sizes ", t.sizes(),
                 "; dim ", d, " must be ", want.raw(), " (it is static in the program). Export with this dim "
                 "declared dynamic to vary it");
        continue;
      }
      const sym::Node* n = want.node();
      CT_CHECK(eval_symint(want, binding) == got, CT_ERROR_SHAPE, "ct_program_call: input ", i, " has sizes ",
               t.sizes(), "; dim ", d, " must equal ", want, " = ", eval_symint(want, binding), " here");
      CT_CHECK(n->range.contains(got), CT_ERROR_SHAPE, "ct_program_call: input ", i, " dim ", d, " is ", got,
               ", outside the range of ", want, ": [", n->range.lo, ", ",
               n->range.hi == sym::Range::kPosInf ? std::string("inf") : std::to_string(n->range.hi), "]");
    }
  }
  const int64_t failing = guards_.empty() ? -1 : guard_code_.first_false(binding);
  CT_CHECK(failing < 0, CT_ERROR_GUARD, "ct_program_call: the inputs break the program's guard ",
           env.to_string(guards_[failing]), ", a fact the export relied on. Pass sizes where it holds, or export "
           "again from such inputs");
  run_graph(exec_, inputs, binding, outs);
}

std::string Program::to_json() const {
  // {"dtype": "float32", "device": "cpu", "sizes": ["batch", 8]}: a symbolic size as its text.
  auto spec = [&](DType dtype, Device device, SymIntArrayRef sizes) {
    std::string t = str("{\"dtype\": \"", dtype_name(dtype), "\", \"device\": \"", device, "\", \"sizes\": [");
    for (size_t d = 0; d < sizes.size(); ++d) {
      t += d ? ", " : "";
      if (sizes[d].is_symbolic()) {
        runtime::append_json_string(t, graph_.env().to_string(sizes[d].node()).c_str());
      } else {
        t += std::to_string(sizes[d].raw());
      }
    }
    return t + "]}";
  };
  std::string out = "{\"inputs\": [";
  for (size_t i = 0; i < inputs_.size(); ++i)
    out += (i ? ", " : "") + spec(inputs_[i].dtype, inputs_[i].device, inputs_[i].sizes);
  out += "], \"outputs\": [";
  for (size_t i = 0; i < graph_.outputs.size(); ++i) {
    const TensorMeta& m = graph_.meta(graph_.outputs[i]);
    out += (i ? ", " : "") + spec(m.dtype, m.device, m.sizes);
  }
  return out + "], \"env\": " + graph_.env().to_json() + "}";
}

std::unique_ptr<Program> export_program(const TraceFn& fn, ArrayRef<const TensorImpl*> examples,
                                        const std::vector<DimDecl>& dims, size_t nouts) {
  sym::ShapeEnv* env = sym::ShapeEnv::create();
  struct EnvRef {
    sym::ShapeEnv* env;
    ~EnvRef() { env->release(); }
  } hold{env};
  std::vector<ProxySpec> specs;
  std::vector<InputSpec> inputs;
  for (const TensorImpl* t : examples) {
    CT_CHECK(!t->is_symbolic(), CT_ERROR_INVALID_ARGUMENT, "ct_export: example inputs need concrete sizes, got ",
             t->sym_sizes());
    ProxySpec p;
    p.dtype = t->dtype();
    p.device = t->device();
    for (int64_t n : t->sizes()) p.sizes.push_back(SymInt(n));
    specs.push_back(p);
  }
  // Declared dims become symbols; dims sharing a name share one symbol.
  std::vector<SymbolSource> sources;
  std::vector<std::pair<std::string, SymInt>> named;
  for (const DimDecl& d : dims) {
    CT_CHECK(d.input < examples.size(), CT_ERROR_INDEX, "ct_export: dynamic dim \"", d.name, "\" names input ", d.input,
             " of ", examples.size());
    const int64_t ndim = static_cast<int64_t>(examples[d.input]->dim());
    const int64_t dim = d.dim < 0 ? d.dim + ndim : d.dim;
    CT_CHECK(dim >= 0 && dim < ndim, CT_ERROR_INDEX, "ct_export: dynamic dim \"", d.name, "\": dim ", d.dim,
             " is out of range for input ", d.input, " of sizes ", examples[d.input]->sizes());
    const int64_t hint = examples[d.input]->sizes()[dim];
    CT_CHECK(d.min <= hint && hint <= d.max, CT_ERROR_INVALID_ARGUMENT, "ct_export: dynamic dim \"", d.name,
             "\" has range [", d.min, ", ", d.max, "] but input ", d.input, " dim ", dim, " is ", hint,
             ". Give an example inside the range");
    SymInt s;
    auto it = std::find_if(named.begin(), named.end(), [&](const auto& p) { return p.first == d.name; });
    if (it != named.end()) {
      s = it->second;
      CT_CHECK(s.node()->hint.i == hint, CT_ERROR_INVALID_ARGUMENT, "ct_export: dim \"", d.name,
               "\" is ", s.node()->hint.i, " in one example input and ", hint, " in input ", d.input,
               "; dims sharing a name must be equal");
    } else {
      s = SymInt(env->create_symbol(hint, d.min, d.max, d.name));
      named.emplace_back(d.name, s);
      SymbolSource src;
      src.input = static_cast<int32_t>(d.input);
      src.dim = static_cast<int32_t>(dim);
      sources.push_back(src);
    }
    specs[d.input].sizes[dim] = s;
  }
  Graph g = trace(env, specs, sources, fn, nouts);
  for (const auto& [name, s] : named) {
    const sym::Node* n = s.node();
    CT_CHECK(!n->range.is_point(), CT_ERROR_GUARD, "ct_export: dynamic dim \"", name, "\" was specialized to ",
             n->range.lo, " while tracing (the function's code requires that value). Declare it static, or change "
             "the code; the guards were: ", env->to_json());
  }
  eliminate_dead_code(g);
  eliminate_common_subexpressions(g);
  fold_constants(g);
  for (size_t i = 0; i < specs.size(); ++i) inputs.push_back(InputSpec{specs[i].dtype, specs[i].device, specs[i].sizes});
  return Program::create(std::move(g), std::move(inputs));
}

}  // namespace ct::compile
