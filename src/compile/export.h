// export.h - Program: a function traced once with declared dynamic dims, runnable without it.
//
// Note [Exported programs]
// ct_export traces the function on proxies whose declared dims are symbols with the declared
// ranges (Dim("batch", 1, 1024)); every other size is static. The result holds the graph (its
// captured tensors become constants owned by the program), each input's spec (dtype, device, and
// per dim a static size or a symbol), the ShapeEnv's guards (facts the trace relied on, such as
// s0 == s1, checked on every call) and runtime assertions over item() symbols. A declared dim the
// trace had to specialize to one value is an error naming the dim, as in torch.export. A program
// saves to a versioned file (program_write.cpp) and loads without running any kernel (program_read.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compile/trace.h"
#include "symbolic/program.h"

namespace ct::compile {

/// One declared dynamic dim of an export.
struct DimDecl {
  size_t input = 0;
  int64_t dim = 0;  // negative counts from the end
  std::string name;
  int64_t min = 2, max = sym::Range::kPosInf;
};

struct InputSpec {
  DType dtype = DType::Float32;
  Device device;
  SymDimVector sizes;  // static sizes, or symbols of the program's env
};

class Program {
 public:
  /// A program from its parts (export_program, load_program); builds the guard code from the
  /// graph's env and a fused copy of the graph to run.
  static std::unique_ptr<Program> create(Graph graph, std::vector<InputSpec> inputs);

  const Graph& graph() const { return graph_; }
  const std::vector<InputSpec>& inputs() const { return inputs_; }
  size_t num_outputs() const { return graph_.outputs.size(); }

  /// Checks inputs against the specs, ranges and guards (CT_ERROR_SHAPE, CT_ERROR_DTYPE,
  /// CT_ERROR_DEVICE or CT_ERROR_GUARD naming the input, dim and symbol), then runs the graph.
  void call(ArrayRef<const TensorImpl*> inputs, std::vector<Tensor>& outs) const;
  /// {"inputs": [spec...], "outputs": [spec...], "env": {"symbols", "guards", "runtime_asserts"}},
  /// each spec {"dtype", "device", "sizes"} with a symbolic size as its text.
  std::string to_json() const;

 private:
  Program(Graph graph, std::vector<InputSpec> inputs);
  Graph graph_;  // as exported and saved
  Graph exec_;   // graph_ with fused kernels: what call() runs
  std::vector<InputSpec> inputs_;
  sym::Program guard_code_;
  std::vector<const sym::Node*> guards_;
};

/// Traces fn on proxies of examples (real or meta tensors) with dims declared dynamic.
std::unique_ptr<Program> export_program(const TraceFn& fn, ArrayRef<const TensorImpl*> examples, const std::vector<DimDecl>& dims,
                        size_t nouts);

/// The program as the bytes of a program file (docs/program-format.md).
std::string save_program(const Program& p);
/// A program from the bytes of a program file; CT_ERROR_FORMAT naming the field and offset for
/// anything malformed, truncated or of an unknown version. Runs no kernel and nothing of the
/// exported function; operators are found by name (custom ones must be registered first) and their
/// meta functions check every call's result.
std::unique_ptr<Program> load_program(const void* data, size_t size);
/// The bytes a program file starts with (magic and version), which check_program_header reads.
size_t program_header_size();
/// CT_ERROR_FORMAT, as load_program gives it, when data[0, size) does not start a program file this
/// library reads: a file reader calls it before reading the rest of a file.
void check_program_header(const void* data, size_t size);

}  // namespace ct::compile
