// core.cpp - gradcheck cases of the operators from before the operator library: arithmetic,
// views, joins, reductions, matrix products, copies and random numbers.
#include <cstring>

#include "core/allocator.h"
#include "core/device_backend.h"
#include "gradcheck.h"

namespace ct::gradcheck {
namespace {

// A second device with data for to.device: host memory behind a plugin device type, registered
// once per process. Moving needs no kernel on it, so the round trip cpu -> it -> cpu is all ops.
Device host_memory_device() {
  static const Device d = [] {
    static const DeviceBackend backend{
        nullptr, [](void*, int, size_t n) { return cpu_allocate(n); }, [](void*, int, void* p, size_t n) { cpu_free(p, n); },
        [](void*, CopyKind, int, void* dst, const void* src, size_t n) { std::memcpy(dst, src, n); },
        [](void*) { return 1; }};
    const DeviceType t = register_plugin_device("gradcheck_host");
    set_device_backend(t, &backend);
    return Device{t, 0};
  }();
  return d;
}

std::vector<Case> core_cases() {
  const Input m{{2, 3}}, row{{3}}, pos{{2, 3}, 0.5, 2.0}, pos_row{{3}, 0.5, 2.0}, cube{{2, 3, 4}};
  std::vector<Case> cs = {
      {{"add.Tensor"}, {m, row}, [](const Inputs& x) { return op("add.Tensor", {x[0], x[1], 2.0}); }},
      {{"add.Scalar"}, {m}, [](const Inputs& x) { return op("add.Scalar", {x[0], 1.5, 2.0}); }},
      {{"add_.Tensor", "add_.Scalar"}, {m, row}, [](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("add_.Tensor", {c, x[1], 3.0});
         op("add_.Scalar", {c, 1.0, 1});
         return c;
       }},
      {{"sub.Tensor"}, {m, row}, [](const Inputs& x) { return op("sub.Tensor", {x[0], x[1], 2.0}); }},
      {{"sub.Scalar"}, {m}, [](const Inputs& x) { return op("sub.Scalar", {x[0], 1.5, 1}); }},
      {{"rsub.Scalar"}, {m}, [](const Inputs& x) { return op("rsub.Scalar", {x[0], 2.0, 3.0}); }},
      {{"sub_.Tensor", "sub_.Scalar"}, {m, row}, [](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("sub_.Tensor", {c, x[1], 1});
         op("sub_.Scalar", {c, 0.5, 1});
         return c;
       }},
      {{"mul.Tensor"}, {m, row}, [](const Inputs& x) { return op("mul.Tensor", {x[0], x[1]}); }},
      {{"mul.Scalar"}, {m}, [](const Inputs& x) { return op("mul.Scalar", {x[0], -2.5}); }},
      {{"mul_.Tensor", "mul_.Scalar"}, {m, row}, [](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("mul_.Tensor", {c, x[1]});  // saves self: autograd keeps its value from before
         op("mul_.Scalar", {c, 3.0});
         return c;
       }},
      {{"div.Tensor"}, {m, pos_row}, [](const Inputs& x) { return op("div.Tensor", {x[0], x[1]}); }},
      {{"div.Scalar"}, {m}, [](const Inputs& x) { return op("div.Scalar", {x[0], 4.0}); }},
      {{"div_.Tensor", "div_.Scalar"}, {m, pos_row}, [](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("div_.Tensor", {c, x[1]});
         op("div_.Scalar", {c, 2.0});
         return c;
       }},
      {{"pow.Tensor"}, {pos, row}, [](const Inputs& x) { return op("pow.Tensor", {x[0], x[1]}); }},
      {{"pow.Scalar"}, {m}, [](const Inputs& x) { return op("pow.Scalar", {x[0], 3}); }},
      {{"maximum.Tensor"}, {m, row}, [](const Inputs& x) { return op("maximum.Tensor", {x[0], x[1]}); }},
      {{"maximum.Scalar"}, {m}, [](const Inputs& x) { return op("maximum.Scalar", {x[0], 0.1}); }},
      {{"minimum.Tensor"}, {m, row}, [](const Inputs& x) { return op("minimum.Tensor", {x[0], x[1]}); }},
      {{"minimum.Scalar"}, {m}, [](const Inputs& x) { return op("minimum.Scalar", {x[0], 0.1}); }},
      {{"neg"}, {m}, [](const Inputs& x) { return op("neg", {x[0]}); }},
      {{"abs"}, {m}, [](const Inputs& x) { return op("abs", {x[0]}); }},
      {{"relu"}, {m}, [](const Inputs& x) { return op("relu", {x[0]}); }},
      {{"exp"}, {m}, [](const Inputs& x) { return op("exp", {x[0]}); }},
      {{"log"}, {pos}, [](const Inputs& x) { return op("log", {x[0]}); }},
      {{"sqrt"}, {pos}, [](const Inputs& x) { return op("sqrt", {x[0]}); }},
      {{"rsqrt"}, {pos}, [](const Inputs& x) { return op("rsqrt", {x[0]}); }},
      {{"sin"}, {m}, [](const Inputs& x) { return op("sin", {x[0]}); }},
      {{"cos"}, {m}, [](const Inputs& x) { return op("cos", {x[0]}); }},
      {{"tanh"}, {m}, [](const Inputs& x) { return op("tanh", {x[0]}); }},
      {{"sigmoid"}, {m}, [](const Inputs& x) { return op("sigmoid", {x[0]}); }},
      {{"reciprocal"}, {pos}, [](const Inputs& x) { return op("reciprocal", {x[0]}); }},
      {{"where.self"}, {m, row}, [](const Inputs& x) {
         const double pattern[6] = {1, -1, 1, 1, -1, -1};
         Tensor p = ops::empty({2, 3}, DType::Float64, kCPU);
         for (int i = 0; i < 6; ++i) p->data_as<double>()[i] = pattern[i];
         return op("where.self", {op("gt.Scalar", {p, 0}), x[0], x[1]});
       }},
      {{"clamp"}, {m}, [](const Inputs& x) {
         return ops::add(op("clamp", {x[0], -0.5, 0.5}), op("clamp", {x[0], 0.2, Value()}));
       }},
      {{"threshold_backward"}, {m, m}, [](const Inputs& x) { return op("threshold_backward", {x[0], x[1], 0.1}); }},
      {{"copy_"}, {m, row}, [](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("copy_", {c, x[1]});  // broadcasts x[1] over c; x[0]'s values are overwritten
         return ops::mul(c, c);
       }},
      // Random operators draw from a generator reseeded on every evaluation, so the numerical
      // derivative sees one fixed mask. Values drawn in place, and bernoulli's samples, do not
      // depend on the input's values: their gradient is zero both ways.
      {{"dropout", "bernoulli_.float"}, {m}, [](const Inputs& x) {
         return op("dropout", {x[0], 0.4, true, Value(seeded_generator())});
       }},
      {{"uniform_", "normal_", "bernoulli", "bernoulli.p"}, {m, m}, [](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("uniform_", {c, -1.0, 1.0, Value(seeded_generator())});
         Tensor d = copy_of(x[0]);
         op("normal_", {d, 0.0, 1.0, Value(seeded_generator())});
         Tensor p = op("sigmoid", {x[1]});
         Tensor b = ops::add(op("bernoulli", {p, Value(seeded_generator())}), op("bernoulli.p", {p, 0.3, Value(seeded_generator())}));
         return ops::add(ops::mul(ops::add(c, d), x[1]), ops::mul(b, x[0]));
       }},
      {{"to.dtype"}, {m}, [](const Inputs& x) {
         return ops::to(ops::mul(ops::to(x[0], DType::Float32), Scalar(3.0)), DType::Float64);
       }, true, 1e-3, 1e-3},
      {{"to.device"}, {m}, [](const Inputs& x) {
         const Tensor there = ops::to(ops::transpose(x[0], 0, 1), host_memory_device(), DType::Float32);
         return ops::mul(ops::to(there, kCPU, DType::Float64), Scalar(3.0));
       }, true, 1e-3, 1e-3},
      {{"contiguous", "clone"}, {m}, [](const Inputs& x) {
         return ops::mul(ops::contiguous(ops::transpose(x[0], 0, 1)), ops::clone(ops::transpose(x[0], 0, 1)));
       }},
      {{"view"}, {m}, [](const Inputs& x) { return op("view", {ops::contiguous(x[0]), IntArrayRef{3, 2}}); }},
      {{"reshape"}, {m}, [](const Inputs& x) {
         return ops::mul(op("reshape", {ops::transpose(x[0], 0, 1), IntArrayRef{6}}), op("reshape", {x[0], IntArrayRef{6}}));
       }},
      {{"permute"}, {cube}, [](const Inputs& x) { return op("permute", {x[0], IntArrayRef{2, 0, -2}}); }},
      {{"transpose.int"}, {m}, [](const Inputs& x) { return op("transpose.int", {x[0], 0, -1}); }},
      {{"expand"}, {{{3, 1}}}, [](const Inputs& x) { return op("expand", {x[0], IntArrayRef{2, 3, 4}}); }},
      {{"squeeze"}, {{{1, 3, 1}}}, [](const Inputs& x) { return op("squeeze", {x[0]}); }},
      {{"squeeze.dim"}, {{{2, 1, 3}}}, [](const Inputs& x) { return op("squeeze.dim", {x[0], -2}); }},
      {{"unsqueeze"}, {m}, [](const Inputs& x) { return op("unsqueeze", {x[0], 1}); }},
      {{"narrow"}, {cube}, [](const Inputs& x) { return op("narrow", {x[0], 1, -2, 2}); }},
      {{"select.int"}, {cube}, [](const Inputs& x) { return op("select.int", {x[0], 2, -1}); }},
      {{"slice.Tensor"}, {{{2, 7}}}, [](const Inputs& x) {
         return ops::add(op("slice.Tensor", {x[0], 1, 1, 6, 2}), op("slice.Tensor", {x[0], -1, Value(), 3, 1}));
       }},
      {{"flatten.using_ints"}, {cube}, [](const Inputs& x) { return op("flatten.using_ints", {x[0], 1, 2}); }},
      {{"cat"}, {m, {{2, 2}}}, [](const Inputs& x) {
         const TensorImpl* parts[3] = {x[0].impl(), x[1].impl(), x[0].impl()};
         return op("cat", {ArrayRef<const TensorImpl*>(parts, 3), -1});
       }},
      {{"stack"}, {m, m}, [](const Inputs& x) {
         const TensorImpl* parts[2] = {x[0].impl(), x[1].impl()};
         return op("stack", {ArrayRef<const TensorImpl*>(parts, 2), 1});
       }},
      {{"sum.dim_IntList"}, {cube}, [](const Inputs& x) {
         return ops::add(op("sum.dim_IntList", {x[0], IntArrayRef{0, 2}, false}), op("sum.dim_IntList", {x[0], Value(), false}));
       }},
      {{"mean.dim_IntList"}, {cube}, [](const Inputs& x) { return op("mean.dim_IntList", {x[0], IntArrayRef{1}, true}); }},
      {{"prod.dim_IntList"}, {{{2, 3}, 0.5, 1.5}}, [](const Inputs& x) {
         return ops::add(op("prod.dim_IntList", {x[0], IntArrayRef{1}, false}), op("prod.dim_IntList", {x[0], Value(), false}));
       }},
      // Zeros: one zero in row 0 (its entry gets the product of the rest), two in row 1 (all get 0).
      // The second derivative of prod is not reproduced at zeros.
      {{"prod.dim_IntList"}, {{{2, 3}, 0, 0, {0, 2, 3, 1, 0, 0}}}, [](const Inputs& x) {
         return op("prod.dim_IntList", {x[0], IntArrayRef{1}, false});
       }, false},
      {{"amax.dim_IntList"}, {cube}, [](const Inputs& x) { return op("amax.dim_IntList", {x[0], IntArrayRef{1}, false}); }},
      {{"amin.dim_IntList"}, {cube}, [](const Inputs& x) { return op("amin.dim_IntList", {x[0], IntArrayRef{0, 2}, true}); }},
      {{"mm"}, {m, {{3, 4}}}, [](const Inputs& x) { return op("mm", {x[0], x[1]}); }},
      {{"bmm"}, {{{2, 2, 3}}, {{2, 3, 2}}}, [](const Inputs& x) { return op("bmm", {x[0], x[1]}); }},
      {{"addmm"}, {{{4}}, m, {{3, 4}}}, [](const Inputs& x) { return op("addmm", {x[0], x[1], x[2], 0.5, 2.0}); }},
      {{"matmul"}, {{{2, 2, 3}}, {{3, 2}}, row}, [](const Inputs& x) {
         return ops::add(op("matmul", {x[0], x[1]}), ops::unsqueeze(op("matmul", {x[0], x[2]}), -1));
       }},
  };
  return cs;
}

const GradCheckFamily family(core_cases);

}  // namespace
}  // namespace ct::gradcheck
