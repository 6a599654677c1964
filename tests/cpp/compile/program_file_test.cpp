// Program files: exported programs (static, symbolic, with guards, with item() and runtime
// assertions) survive save and load with the same graph and results; malformed files (every
// truncation, every byte flip, random mutations) fail with a status and never crash.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compile/export.h"
#include "compile/fuse.h"
#include "dispatch/registry.h"
#include "ops/functions.h"

namespace ct::compile {
namespace {

using ProgramRef = std::unique_ptr<Program>;

// 0, scale, 2 * scale, ... in float32.
Tensor values(IntArrayRef sizes, double scale = 0.25) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  const Tensor t = ops::arange(0, static_cast<double>(n), 1, DType::Float32, kCPU);
  return ops::reshape(ops::mul(t, Scalar(scale)), sizes);
}

std::vector<float> floats(const Tensor& t) {
  const Tensor c = ops::contiguous(ops::to(t, DType::Float32));
  return std::vector<float>(c->data_as<float>(), c->data_as<float>() + c->numel());
}

std::vector<Tensor> run(const Program& p, const std::vector<Tensor>& inputs) {
  std::vector<const TensorImpl*> ins;
  for (const Tensor& t : inputs) ins.push_back(t.impl());
  std::vector<Tensor> outs;
  p.call(ins, outs);
  return outs;
}

ProgramRef export_fn(const TraceFn& fn, const std::vector<Tensor>& examples, const std::vector<DimDecl>& dims, size_t nouts) {
  std::vector<const TensorImpl*> ins;
  for (const Tensor& t : examples) ins.push_back(t.impl());
  return export_program(fn, ins, dims, nouts);
}

ProgramRef load(const std::string& bytes) { return load_program(bytes.data(), bytes.size()); }

// The message of the CT_ERROR_FORMAT that loading bytes fails with ("" and a test failure otherwise).
std::string format_error(const std::string& bytes) {
  try {
    load(bytes);
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_FORMAT) << e.what();
    return e.message();
  }
  ADD_FAILURE() << "loaded";
  return "";
}

void expect_same_results(const Program& a, const Program& b, const std::vector<Tensor>& inputs) {
  const std::vector<Tensor> x = run(a, inputs), y = run(b, inputs);
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_TRUE(x[i]->sizes().equals(y[i]->sizes())) << "output " << i;
    EXPECT_EQ(floats(x[i]), floats(y[i])) << "output " << i;
  }
}

// relu(x @ w + b) and the sum of its elements, with w and b captured constants.
ProgramRef mlp(const std::vector<DimDecl>& dims) {
  const Tensor w = values({3, 5}), b = values({5}, -0.5);
  return export_fn(
      [w, b](const TensorImpl* const* in, size_t, Tensor* out, size_t) {
        const Tensor y = ops::relu(ops::add(ops::matmul(Tensor::borrow(in[0]), w), b));
        out[0] = y;
        out[1] = ops::sum(ops::flatten(y, 0, 1), {}, false);
      },
      {values({4, 3})}, dims, 2);
}

// x[:k] for the value k of a one-element int64 tensor: an item node, an unbacked symbol and the
// runtime assertion narrow records for it.
ProgramRef head() {
  return export_fn(
      [](const TensorImpl* const* in, size_t, Tensor* out, size_t) {
        SymInt k(in[1]->shape_env()->create_unbacked(sym::Type::Int));
        record_item(*in[1], k);
        out[0] = ops::mul(ops::narrow_symint(Tensor::borrow(in[0]), 0, 0, k), Scalar(2.0));
      },
      {values({8, 3}), ops::full({}, Scalar(int64_t{5}), DType::Int64, kCPU)}, {}, 1);
}

// x + y over two declared dims: broadcasting makes the trace guard on how they relate.
ProgramRef guarded() {
  return export_fn(
      [](const TensorImpl* const* in, size_t, Tensor* out, size_t) {
        out[0] = ops::add(Tensor::borrow(in[0]), Tensor::borrow(in[1]));
      },
      {values({3, 4}), values({3, 4})}, {DimDecl{0, 0, "a", 2, 64}, DimDecl{1, 0, "b", 2, 64}}, 1);
}

TEST(ProgramFile, StaticProgramRoundTrips) {
  ProgramRef p = mlp({});
  const std::string bytes = save_program(*p);
  ProgramRef q = load(bytes);
  EXPECT_EQ(q->graph().to_string(), p->graph().to_string());
  EXPECT_EQ(q->to_json(), p->to_json());
  expect_same_results(*p, *q, {values({4, 3})});
  EXPECT_EQ(save_program(*q), bytes);  // a loaded program saves to the same bytes
}

TEST(ProgramFile, SymbolicProgramRunsAtEveryBatchSizeAfterLoading) {
  ProgramRef p = mlp({DimDecl{0, 0, "batch", 1, 1024}});
  const std::string bytes = save_program(*p);
  ProgramRef q = load(bytes);
  EXPECT_EQ(q->graph().to_string(), p->graph().to_string());
  EXPECT_EQ(q->to_json(), p->to_json());
  EXPECT_EQ(save_program(*q), bytes);
  for (int64_t batch : {1, 2, 7, 64, 1024}) {
    SCOPED_TRACE(batch);
    expect_same_results(*p, *q, {values({batch, 3})});
    EXPECT_EQ(run(*q, {values({batch, 3})})[1]->numel(), 1);
  }
  try {
    run(*q, {values({1025, 3})});
    ADD_FAILURE() << "ran outside the declared range";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_SHAPE) << e.what();
  }
}

TEST(ProgramFile, GuardsSurviveLoading) {
  ProgramRef p = guarded();
  ASSERT_GT(p->graph().env().num_guards(), 0u);
  ProgramRef q = load(save_program(*p));
  EXPECT_EQ(q->to_json(), p->to_json());
  EXPECT_EQ(q->graph().env().num_guards(), p->graph().env().num_guards());
  expect_same_results(*p, *q, {values({9, 4}), values({9, 4})});
  try {
    run(*q, {values({5, 4}), values({6, 4})});
    ADD_FAILURE() << "ran with inputs that break a guard";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_GUARD) << e.what();
  }
}

TEST(ProgramFile, ItemNodesAndRuntimeAssertionsSurviveLoading) {
  ProgramRef p = head();
  ASSERT_FALSE(p->graph().asserts.empty());
  const std::string bytes = save_program(*p);
  ProgramRef q = load(bytes);
  EXPECT_EQ(save_program(*q), bytes);
  EXPECT_EQ(q->graph().to_string(), p->graph().to_string());
  EXPECT_EQ(q->to_json(), p->to_json());
  for (int64_t k : {0, 3, 8}) {
    const std::vector<Tensor> in = {values({8, 3}), ops::full({}, Scalar(k), DType::Int64, kCPU)};
    expect_same_results(*p, *q, in);
    EXPECT_EQ(run(*q, in)[0]->sizes()[0], k);
  }
  try {
    run(*q, {values({8, 3}), ops::full({}, Scalar(int64_t{9}), DType::Int64, kCPU)});
    ADD_FAILURE() << "ran past the runtime assertion";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_GUARD) << e.what();
  }
}

// A runtime assertion recorded after a size was made can pin its symbol to one value: x[:k] over a
// dim of size 0 asserts 0 <= k <= 0. The file writes such a size as that value, which is what
// loading makes of it, so a loaded program saves to the same bytes (fuzz_program found a guard on
// a backed symbol doing the same; its input is in the corpus).
TEST(ProgramFile, ASizePinnedToOneValueSavesAsThatValue) {
  ProgramRef p = export_fn(
      [](const TensorImpl* const* in, size_t, Tensor* out, size_t) {
        SymInt k(in[1]->shape_env()->create_unbacked(sym::Type::Int));
        record_item(*in[1], k);
        out[0] = ops::mul(ops::narrow_symint(Tensor::borrow(in[0]), 0, 0, k), Scalar(2.0));
      },
      {values({0, 3}), ops::full({}, Scalar(int64_t{0}), DType::Int64, kCPU)}, {}, 1);
  ASSERT_NE(p->graph().to_string().find("f32[u0, 3]"), std::string::npos) << p->graph().to_string();
  const std::string bytes = save_program(*p);
  ProgramRef q = load(bytes);
  EXPECT_EQ(save_program(*q), bytes);
  EXPECT_NE(q->graph().to_string().find("f32[0, 3]"), std::string::npos) << q->graph().to_string();
  const std::vector<Tensor> in = {values({0, 3}), ops::full({}, Scalar(int64_t{0}), DType::Int64, kCPU)};
  expect_same_results(*p, *q, in);
  try {
    run(*q, {values({0, 3}), ops::full({}, Scalar(int64_t{1}), DType::Int64, kCPU)});
    ADD_FAILURE() << "ran past the runtime assertion";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_GUARD) << e.what();
  }
}

// A hand-built graph: x0 : f32[2] = placeholder[0], then `last` reading it, returned.
ProgramRef by_hand(Node last) {
  Graph g;
  sym::ShapeEnv* env = sym::ShapeEnv::create();
  g.set_env(env);
  env->release();
  g.num_inputs = 1;
  Node x;
  x.kind = Node::Kind::Placeholder;
  x.name = g.fresh_name("x0");
  x.outs.push_back(TensorMeta{SymDimVector{SymInt(2)}, DType::Float32, kCPU});
  last.name = g.fresh_name(last.name);
  Arg a;
  a.kind = Arg::Kind::Tensor;
  a.refs.push_back(Ref{0, 0});
  last.args.insert(last.args.begin(), a);
  g.nodes = {x, last};
  g.outputs.push_back(Ref{1, 0});
  return Program::create(std::move(g), {InputSpec{DType::Float32, kCPU, SymDimVector{SymInt(2)}}});
}

TEST(ProgramFile, FusedNodesAreNotSaved) {
  struct Identity final : FusedKernel {
    void run(ArrayRef<const TensorImpl*> in, ArrayRef<sym::BoundValue>, Tensor* outs) const override {
      outs[0] = Tensor::borrow(in[0]);
    }
    std::string describe() const override { return "fused[identity]"; }
  };
  Node f;
  f.kind = Node::Kind::Fused;
  f.name = "fused";
  f.fused = std::make_shared<Identity>();
  f.outs.push_back(TensorMeta{SymDimVector{SymInt(2)}, DType::Float32, kCPU});
  try {
    save_program(*by_hand(f));
    ADD_FAILURE() << "saved a fused node";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(e.message().find("fused region"), std::string::npos) << e.what();
  }
}

TEST(ProgramFile, ResultsTheOperatorDoesNotComputeAreFormatErrors) {
  Node neg;
  neg.kind = Node::Kind::Call;
  neg.name = "neg";
  neg.op = &builtin_op("neg");
  neg.outs.push_back(TensorMeta{SymDimVector{SymInt(3)}, DType::Float32, kCPU});
  const std::string message = format_error(save_program(*by_hand(neg)));
  EXPECT_NE(message.find("node 1 (neg) result 0"), std::string::npos) << message;
  EXPECT_NE(message.find("the file says float32 [3] on cpu but neg computes float32 [2] on cpu"), std::string::npos)
      << message;
  neg.outs[0].sizes = SymDimVector{SymInt(2)};
  ProgramRef p = by_hand(neg);
  EXPECT_EQ(floats(run(*load(save_program(*p)), {values({2})})[0]), (std::vector<float>{-0.0f, -0.25f}));
}

TEST(ProgramFile, GuardsFalseUnderTheHintsAreFormatErrors) {
  std::string bytes = save_program(*guarded());
  // Symbol 1's hint: after the section header (28 bytes) and symbol 0 (39 bytes: type, backed,
  // name "a", hint, min, max, input, dim), its type, backed flag and name "b".
  ASSERT_EQ(bytes[73], 'b');
  bytes[74] = 4;
  const std::string message = format_error(bytes);
  EXPECT_NE(message.find("guard 0 expression"), std::string::npos) << message;
  EXPECT_NE(message.find("false under the symbols' hints"), std::string::npos) << message;
}

TEST(ProgramFile, NonCpuConstantsAreRefused) {
  const Tensor c = ops::empty({3}, DType::Float32, kMeta);
  ProgramRef p = export_fn(
      [c](const TensorImpl* const* in, size_t, Tensor* out, size_t) { out[0] = ops::add(Tensor::borrow(in[0]), c); },
      {values({3})}, {}, 1);
  try {
    save_program(*p);
    ADD_FAILURE() << "saved a meta constant";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(e.message().find("CPU constants only"), std::string::npos) << e.what();
  }
}

TEST(ProgramFile, WrongMagicFutureVersionAndTrailingBytesAreFormatErrors) {
  const std::string good = save_program(*mlp({}));
  std::string bad = good;
  bad[0] = 'X';
  EXPECT_NE(format_error(bad).find("not a ctorch program file"), std::string::npos);
  bad = good;
  bad[8] = 2;  // the version's low byte
  EXPECT_NE(format_error(bad).find("format version 2; this library reads versions 1 to 1"), std::string::npos);
  EXPECT_NE(format_error(good + '\0').find("1 bytes follow the last section"), std::string::npos);
  EXPECT_NE(format_error("").find("magic at offset 0"), std::string::npos);
}

TEST(ProgramFile, AbsurdCountsAndLengthsFailBeforeAllocating) {
  const std::string good = save_program(*mlp({}));
  // Header (8 + 4), then SYMB's tag (4) and length (8), then the symbol count.
  std::string bad = good;
  std::memset(&bad[24], 0xff, 4);
  EXPECT_NE(format_error(bad).find("symbol count at offset 24: 4294967295 items"), std::string::npos);
  bad = good;
  std::memset(&bad[16], 0xff, 8);
  EXPECT_NE(format_error(bad).find("section length at offset 16"), std::string::npos);
  // The first constant's byte length: its data claims more than the file holds.
  const size_t cnst = good.find("CNST");
  ASSERT_NE(cnst, std::string::npos);
  bad = good;
  const size_t nbytes = cnst + 4 + 8 + 4 + 1 + 4 + 2 * 8;  // tag, length, count, dtype, rank, sizes [3, 5]
  std::memset(&bad[nbytes], 0x7f, 8);
  EXPECT_NE(format_error(bad).find("constant 0 byte length"), std::string::npos);
}

TEST(ProgramFile, UnknownOperatorsAreFormatErrors) {
  std::string bytes = save_program(*mlp({}));
  const size_t at = bytes.find("add.Tensor");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 9] = 'x';
  EXPECT_NE(format_error(bytes).find("unknown operator \"add.Tensox\""), std::string::npos);
}

TEST(ProgramFile, EveryTruncationIsAFormatError) {
  for (const std::string& bytes : {save_program(*mlp({DimDecl{0, 0, "batch", 1, 1024}})), save_program(*head())}) {
    for (size_t n = 0; n < bytes.size(); ++n) {
      try {
        load(bytes.substr(0, n));
        ADD_FAILURE() << "a prefix of " << n << " of " << bytes.size() << " bytes loaded";
      } catch (const Error& e) {
        ASSERT_EQ(e.status(), CT_ERROR_FORMAT) << n << ": " << e.what();
      }
    }
  }
}

// Loads bytes; a program that loads must be usable: printable and runnable on inputs (failing, if
// at all, with a status). Returns whether it loaded.
bool load_and_use(const std::string& bytes, const std::vector<Tensor>& inputs) {
  ProgramRef p;
  try {
    p = load(bytes);
  } catch (const Error& e) {
    EXPECT_NE(e.status(), CT_OK);
    return false;
  }
  EXPECT_FALSE(p->graph().to_string().empty());
  EXPECT_FALSE(p->to_json().empty());
  try {
    run(*p, inputs);
  } catch (const Error&) {
  }
  return true;
}

TEST(ProgramFile, EverySingleByteFlipLoadsConsistentlyOrFails) {
  ProgramRef sym = mlp({DimDecl{0, 0, "batch", 1, 1024}});
  ProgramRef item = head();
  const std::vector<std::pair<std::string, std::vector<Tensor>>> cases = {
      {save_program(*sym), {values({6, 3})}},
      {save_program(*item), {values({8, 3}), ops::full({}, Scalar(int64_t{4}), DType::Int64, kCPU)}}};
  for (const auto& [bytes, inputs] : cases) {
    size_t loaded = 0;
    for (size_t i = 0; i < bytes.size(); ++i) {
      for (uint8_t mask : {0x01, 0x80, 0xff}) {
        std::string bad = bytes;
        bad[i] = static_cast<char>(bad[i] ^ mask);
        loaded += load_and_use(bad, inputs);
      }
    }
    // Most flips are caught; the rest change what no check can tell from intended (data, names, ranges).
    EXPECT_LT(loaded, bytes.size());
  }
}

TEST(ProgramFile, RandomMutationsLoadConsistentlyOrFail) {
  const std::pair<std::string, std::vector<Tensor>> cases[] = {
      {save_program(*mlp({DimDecl{0, 0, "batch", 1, 1024}})), {values({5, 3})}},
      {save_program(*head()), {values({8, 3}), ops::full({}, Scalar(int64_t{2}), DType::Int64, kCPU)}},
      {save_program(*guarded()), {values({6, 4}), values({6, 4})}}};
  std::mt19937 rng(20240611);
  for (int iter = 0; iter < 4500; ++iter) {
    const auto& [bytes, inputs] = cases[iter % 3];
    std::string bad = bytes;
    // Small values reach deeper than random ones: they pass as counts and indices more often.
    for (int k = 1 + iter % 6; k > 0; --k) bad[rng() % bad.size()] = static_cast<char>(rng() % 2 ? rng() : rng() % 4);
    if (iter % 10 == 0) bad.resize(rng() % bad.size());
    load_and_use(bad, inputs);
  }
}

}  // namespace
}  // namespace ct::compile
