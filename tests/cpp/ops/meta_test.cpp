// Every built-in operator, called with plausible meta-device arguments, either returns outputs on
// the meta device or raises ct::Error; it never crashes or touches (null) data.
#include <gtest/gtest.h>

#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "dispatch/dispatcher.h"
#include "dispatch/registry.h"
#include "ops/functions.h"

using ct::ArgType;
using ct::DType;
using ct::Tensor;
using ct::Value;

namespace {

bool supported(const ct::Argument& a) {
  switch (a.type) {
    case ArgType::Tensor:
    case ArgType::TensorList:
    case ArgType::Int:
    case ArgType::IntList:
    case ArgType::Scalar:
    case ArgType::Bool:
    case ArgType::ScalarType:
    case ArgType::Device: return true;
    default: return a.has_default;  // a float or str with a default is left at it
  }
}

// Owns whatever the Values borrow.
struct Args {
  std::vector<Value> values;
  std::deque<Tensor> tensors;
  std::deque<std::vector<int64_t>> lists;
  std::deque<std::vector<const ct::TensorImpl*>> tensor_lists;
};

std::vector<int64_t> int_list_for(const std::string& op, const std::string& name) {
  if (name == "dims" || op == "permute") return {1, 0};
  if (name == "size" && op == "expand") return {4, 2, 3};
  if (name == "size" || name == "shape") return op == "view" || op == "reshape" ? std::vector<int64_t>{3, 2}
                                                                                : std::vector<int64_t>{2, 3};
  if (name == "dim") return {0};
  return {1};
}

int64_t int_for(const std::string& name) {
  if (name == "length" || name == "steps" || name == "n") return 2;
  if (name == "end_dim" || name == "dim1") return 1;
  return 0;  // dim, dim0, start, index, start_dim, ...
}

// The linear-algebra functions of square matrices (torch.linalg's and their torch.* spellings).
bool takes_square_matrices(const std::string& op) {
  static const char* const kLegacy[] = {"det",      "inverse",          "logdet",         "slogdet",
                                        "cholesky", "cholesky_inverse", "cholesky_solve", "triangular_solve",
                                        "lu_solve", "symeig",           "matrix_power",   "matrix_exp"};
  if (op.rfind("linalg_", 0) == 0) return true;
  for (const char* name : kLegacy)
    if (op == name) return true;
  return false;
}

Args build(const ct::OperatorDef& op, ct::Device dev = ct::kMeta) {
  Args a;
  const std::string& base = op.schema.name;
  for (const ct::Argument& arg : op.schema.args) {
    switch (arg.type) {
      case ArgType::Tensor: {
        std::vector<int64_t> sizes = {2, 3};
        if (base == "bmm") sizes = {2, 3, 3};
        else if (takes_square_matrices(base)) sizes = {3, 3};
        else if ((base == "mm" || base == "matmul") && arg.name != "self") sizes = {3, 2};
        else if (base == "addmm" && arg.name == "mat1") sizes = {2, 3};
        else if (base == "addmm" && arg.name == "mat2") sizes = {3, 3};
        else if (arg.name == "index" && (base == "index_select" || base == "index_add" || base == "index_copy" ||
                                         base == "index_fill"))
          sizes = {2};
        DType d = arg.name == "condition" || arg.name == "mask" ? DType::Bool : DType::Float32;
        if (arg.name == "index" || arg.name == "indices") d = DType::Int64;  // the indexing family
        a.tensors.push_back(ct::ops::ones(sizes, d, dev));
        a.values.emplace_back(a.tensors.back());
        break;
      }
      case ArgType::TensorList: {
        a.tensors.push_back(ct::ops::ones({2, 3}, DType::Float32, dev));
        a.tensors.push_back(ct::ops::ones({2, 3}, DType::Float32, dev));
        a.tensor_lists.push_back({a.tensors[a.tensors.size() - 2].impl(), a.tensors.back().impl()});
        a.values.emplace_back(ct::ArrayRef<const ct::TensorImpl*>(a.tensor_lists.back()));
        break;
      }
      case ArgType::Device: a.values.emplace_back(dev); break;
      case ArgType::ScalarType:
        a.values.push_back(arg.has_default ? arg.default_value.as_value() : Value(DType::Float32));
        break;
      case ArgType::Int:
        if (arg.has_default && !(arg.optional && (arg.name == "dim"))) a.values.push_back(arg.default_value.as_value());
        else a.values.emplace_back(int_for(arg.name));
        break;
      case ArgType::IntList:
        if (arg.has_default && !arg.default_value.ints.empty()) {
          a.lists.push_back(arg.default_value.ints);
        } else {
          a.lists.push_back(int_list_for(base, arg.name));
        }
        a.values.emplace_back(ct::IntArrayRef(a.lists.back()));
        break;
      case ArgType::Scalar:
        if (arg.has_default) a.values.push_back(arg.default_value.as_value());
        else a.values.emplace_back(base == "arange" && arg.name == "end" ? int64_t(5) : int64_t(1));
        break;
      case ArgType::Bool:
        a.values.push_back(arg.has_default ? arg.default_value.as_value() : Value(false));
        break;
      default: a.values.push_back(arg.default_value.as_value()); break;
    }
  }
  return a;
}

}  // namespace

TEST(MetaDevice, EveryBuiltinOperatorReturnsMetaOutputsOrRaises) {
  int ran = 0, returned = 0, raised = 0;
  std::string raised_names;
  for (const ct::OperatorDef* op : ct::Registry::get().all()) {
    if (!op->builtin) continue;
    bool ok = true;
    for (const ct::Argument& arg : op->schema.args) ok = ok && supported(arg);
    if (!ok) continue;
    SCOPED_TRACE(op->full_name);
    std::fprintf(stderr, "[meta] %s\n", op->full_name.c_str());  // names the culprit if this crashes
    Args args = build(*op);
    const size_t nouts = op->num_returns();
    ASSERT_LE(nouts, ct::kMaxOutputs);
    Tensor outs[ct::kMaxOutputs];
    ++ran;
    try {
      ct::dispatch(*op, args.values.data(), args.values.size(), outs, nouts);
    } catch (const ct::Error& e) {
      ++raised;
      raised_names += op->full_name + " (" + e.what() + ")\n";
      continue;
    }
    ++returned;
    for (size_t i = 0; i < nouts; ++i) {
      ASSERT_TRUE(outs[i].defined()) << op->full_name << " output " << i;
      EXPECT_TRUE(outs[i]->device().is_meta()) << op->full_name << " output " << i << " is on " << outs[i]->device();
      EXPECT_EQ(outs[i]->data(), nullptr) << op->full_name;
    }
  }
  std::fprintf(stderr, "[meta] %d operators ran: %d returned meta outputs, %d raised:\n%s", ran, returned, raised,
               raised_names.c_str());
  EXPECT_GT(ran, 40);
  // The arguments are chosen to be valid for nearly every operator; a flood of errors means the
  // meta path is broken, not that the arguments are odd.
  EXPECT_GT(returned, ran * 3 / 4);
}

namespace {

bool eligible(const ct::OperatorDef& op) {
  if (!op.builtin) return false;
  for (const ct::Argument& arg : op.schema.args)
    if (!supported(arg)) return false;
  return true;
}

// Runs op on dev; returns the status it raised (CT_OK when it returned) and fills outs.
ct_status run_on(const ct::OperatorDef& op, ct::Device dev, Tensor* outs, std::string* msg) {
  Args args = build(op, dev);
  try {
    ct::dispatch(op, args.values.data(), args.values.size(), outs, op.num_returns());
  } catch (const ct::Error& e) {
    *msg = e.what();
    return e.status();
  }
  return CT_OK;
}

}  // namespace

// Operators whose output size depends on the data: the meta device refuses them (the cpu does not).
bool data_dependent(const std::string& name) { return name == "nonzero" || name == "masked_select"; }

// Note [Structured operators]: one meta function serves every backend, so the meta device must
// agree with the cpu on every output's sizes and dtype, and on the error raised.
TEST(MetaDevice, EveryBuiltinOperatorAgreesWithTheCpuOnSizesDTypesAndErrors) {
  int compared = 0;
  for (const ct::OperatorDef* op : ct::Registry::get().all()) {
    const ct::OperatorDef& target = op->alias_of ? *op->alias_of : *op;  // argwhere is nonzero
    if (!eligible(*op) || data_dependent(target.schema.name)) continue;
    SCOPED_TRACE(op->full_name);
    Tensor meta[ct::kMaxOutputs], cpu[ct::kMaxOutputs];
    std::string meta_msg, cpu_msg;
    const ct_status ms = run_on(*op, ct::kMeta, meta, &meta_msg);
    const ct_status cs = run_on(*op, ct::kCPU, cpu, &cpu_msg);
    ++compared;
    // Operators whose output sizes depend on the values (unique, nonzero) cannot have a meta
    // function: they refuse the meta device with CT_ERROR_NOT_IMPLEMENTED naming why.
    if (ms == CT_ERROR_NOT_IMPLEMENTED && meta_msg.find("data-dependent") != std::string::npos) continue;
    // A matrix LAPACK cannot factor (these all-ones matrices are singular) is a fact about values,
    // which meta tensors lack: the meta device answers with sizes.
    if (cs == CT_ERROR_LINALG && ms == CT_OK) continue;
    EXPECT_EQ(ms, cs) << op->full_name << ": meta says '" << meta_msg << "', cpu says '" << cpu_msg << "'";
    if (ms != CT_OK || cs != CT_OK) continue;
    for (size_t i = 0; i < op->num_returns(); ++i) {
      ASSERT_TRUE(meta[i].defined() && cpu[i].defined()) << op->full_name;
      EXPECT_TRUE(meta[i]->sizes().equals(cpu[i]->sizes()))
          << op->full_name << ": meta " << meta[i]->sizes() << " vs cpu " << cpu[i]->sizes();
      EXPECT_EQ(meta[i]->dtype(), cpu[i]->dtype()) << op->full_name;
      EXPECT_TRUE(cpu[i]->device().is_cpu()) << op->full_name;
    }
  }
  EXPECT_GT(compared, 40);
}

TEST(MetaDevice, DataDependentOperatorsRaiseNamingTheOperator) {
  const Tensor m = ct::ops::ones({2, 3}, DType::Bool, ct::kMeta);
  for (const char* name : {"nonzero", "masked_select"}) {
    const ct::OperatorDef& op = ct::builtin_op(name);
    std::vector<Value> args = {Value(m)};
    if (op.schema.args.size() > 1) args.emplace_back(m);
    Tensor out;
    try {
      ct::dispatch(op, args.data(), args.size(), &out, 1);
      ADD_FAILURE() << name << " returned on the meta device";
    } catch (const ct::Error& e) {
      EXPECT_EQ(e.status(), CT_ERROR_NOT_IMPLEMENTED) << name;
      EXPECT_NE(std::string(e.what()).find(std::string(name) + ": the output size depends on the data"),
                std::string::npos) << e.what();
    }
  }
}

TEST(MetaDevice, ShapesAndDTypesMatchTheCpuResult) {
  Tensor a = ct::ops::empty({2, 1, 3}, DType::Int32, ct::kMeta), b = ct::ops::empty({4, 1}, DType::Float16, ct::kMeta);
  Tensor c = ct::ops::add(a, b);
  EXPECT_TRUE(c->device().is_meta());
  EXPECT_TRUE(c->sizes().equals({2, 4, 3}));
  EXPECT_EQ(c->dtype(), DType::Float16);
  Tensor s = ct::ops::sum(c, {1}, true);
  EXPECT_TRUE(s->sizes().equals({2, 1, 3}));
  Tensor m = ct::ops::matmul(ct::ops::empty({5, 2, 3}, DType::Float32, ct::kMeta),
                             ct::ops::empty({3, 7}, DType::Float32, ct::kMeta));
  EXPECT_TRUE(m->sizes().equals({5, 2, 7}));
  EXPECT_TRUE(m->device().is_meta());
}

TEST(MetaDevice, ShapeErrorsMatchTheCpuErrors) {
  auto status_of = [](ct::Device d) {
    try {
      ct::ops::add(ct::ops::empty({2, 3}, DType::Float32, d), ct::ops::empty({4}, DType::Float32, d));
    } catch (const ct::Error& e) {
      return e.status();
    }
    return CT_OK;
  };
  EXPECT_EQ(status_of(ct::kMeta), CT_ERROR_SHAPE);
  EXPECT_EQ(status_of(ct::kCPU), CT_ERROR_SHAPE);
}

TEST(MetaDevice, MixingMetaAndCpuTensorsRaisesDeviceError) {
  try {
    ct::ops::add(ct::ops::empty({2}, DType::Float32, ct::kMeta), ct::ops::empty({2}, DType::Float32, ct::kCPU));
    FAIL() << "no error";
  } catch (const ct::Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_DEVICE) << e.what();
  }
}
