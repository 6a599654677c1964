// graph.h - Graph: the IR a traced function becomes. Nodes in execution order, each a placeholder
// (an input), a constant (a tensor captured during tracing), a call of a registered operator, an
// item (the value of a one-element tensor, bound to an unbacked symbol), or a fused region of
// pointwise and reduction calls (see fuse.h).
//
// Note [Graph values]
// A tensor flowing through a graph is named by Ref{node, output}. Every call node keeps its
// arguments in schema order as Args: tensors are Refs; ints may be SymInts whose nodes belong to
// the graph's ShapeEnv; sizes of every result are kept as SymInts too, so a graph traced with
// symbolic sizes describes every binding of its symbols at once. Running a graph evaluates those
// SymInts under the binding read from the inputs' sizes (and from item nodes) to plain ints.
#pragma once

#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/tensor.h"
#include "dispatch/operator.h"
#include "symbolic/shape_env.h"

namespace ct::compile {

struct Ref {
  int32_t node = -1;
  int32_t out = 0;
  bool operator==(const Ref& o) const { return node == o.node && out == o.out; }
};

/// One operator argument as a graph holds it: owned (strings, lists) and tensor-free (Refs).
struct Arg {
  enum class Kind : uint8_t { None, Tensor, TensorList, Int, SymInt, Double, Bool, IntList, SymIntList, DType,
                              Device, String };
  Kind kind = Kind::None;
  int64_t i = 0;                // Int, Bool, DType
  double d = 0;                 // Double
  Device device;                // Device
  std::string s;                // String
  std::vector<Ref> refs;        // Tensor (one), TensorList
  std::vector<SymInt> ints;     // SymInt (one), IntList, SymIntList
};

/// What one tensor result looks like: its sizes (symbolic where the graph is), dtype and device.
struct TensorMeta {
  SymDimVector sizes;
  DType dtype = DType::Float32;
  Device device;
};

class FusedKernel;  // fuse.h

struct Node {
  enum class Kind : uint8_t { Placeholder, Constant, Call, Item, Fused };
  Kind kind = Kind::Call;
  std::string name;                 // unique within the graph: x0, add, add_1
  const OperatorDef* op = nullptr;  // Call
  std::vector<Arg> args;            // Call; Fused: its input tensors (Arg::Kind::Tensor each)
  std::vector<TensorMeta> outs;     // one per result; Item: none
  int64_t index = 0;                // Placeholder: input number; Constant: constants index; Item: symbol index
  Ref src;                          // Item: the tensor read
  // Constant: false for a tensor captured from the caller (held by reference, so its values may
  // change between calls and passes never fold through it); true for a value computed at compile
  // time from factories inside the graph (fold_constants), which passes may fold further.
  bool folded = false;
  std::shared_ptr<const FusedKernel> fused;  // Fused
};

/// Where each symbol of a graph's env takes its value when the graph runs.
struct SymbolSource {
  enum class Kind : uint8_t { InputSize, Item };
  Kind kind = Kind::InputSize;
  int32_t input = 0;  // InputSize: input number
  int32_t dim = 0;    // InputSize: which dim
  int32_t node = -1;  // Item: the item node
};

/// A condition on unbacked symbols (k <= n for topk's k from item()), checked when the graph runs,
/// as soon as the item nodes have bound every symbol it reads.
struct RuntimeAssert {
  const sym::Node* cond = nullptr;
  std::string message;
  std::vector<int32_t> symbols;  // the symbols cond reads
};

class Graph {
 public:
  Graph();
  Graph(Graph&& o) noexcept;
  Graph& operator=(Graph&& o) noexcept;
  Graph(const Graph&) = delete;
  ~Graph();

  std::vector<Node> nodes;       // in execution order: every Ref points backwards
  std::vector<Ref> outputs;
  std::vector<Tensor> constants;
  std::vector<SymbolSource> sources;  // one per symbol of env, in creation order
  std::vector<RuntimeAssert> asserts;
  size_t num_inputs = 0;

  /// A copy sharing the env and the constants (tensors by reference).
  Graph clone() const;

  sym::ShapeEnv& env() const { return *env_; }
  sym::ShapeEnv* env_ptr() const { return env_; }
  /// Replaces the env (retained); the graph's SymInts must belong to it.
  void set_env(sym::ShapeEnv* env);

  /// A name not used yet, from base ("add" -> "add", "add_1", ...).
  std::string fresh_name(const std::string& base);
  const TensorMeta& meta(Ref r) const { return nodes[r.node].outs[r.out]; }
  /// Number of uses of each node's results (by args, fused inputs, item sources and outputs).
  std::vector<int32_t> use_counts() const;

  /// Text in the style of an FX graph, one node per line:
  ///   %x0 : f32[s0, 8] = placeholder[0]
  ///   %add : f32[s0, 8] = add.Tensor(%x0, %x1, alpha=1)
  ///   return (%add,)
  std::string to_string() const;

 private:
  sym::ShapeEnv* env_ = nullptr;
  std::unordered_set<std::string> names_;
};

/// v's value under binding (one value per symbol of its env, in creation order).
int64_t eval_symint(SymInt v, ArrayRef<sym::BoundValue> binding);

/// Text of one argument (for printing and messages).
std::string arg_to_string(const Graph& g, const Arg& a);

}  // namespace ct::compile
