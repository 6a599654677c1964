// index.cpp - gradcheck cases of the indexing family: index_select/add/copy/fill, gather, scatter*,
// masked_*, take, put, embedding and advanced indexing (index, index_put).
#include "gradcheck.h"

namespace ct::gradcheck {
namespace {

Tensor ints(std::vector<int64_t> v, std::vector<int64_t> sizes) {
  Tensor t = ops::empty(sizes, DType::Int64, kCPU);
  for (size_t i = 0; i < v.size(); ++i) t->data_as<int64_t>()[i] = v[i];
  return t;
}

Tensor mask(std::vector<int64_t> v, std::vector<int64_t> sizes) {
  return ops::to(ints(std::move(v), sizes), DType::Bool);
}

Tensor list_op(const char* name, const Tensor& self, std::vector<Tensor> idx, std::vector<int64_t> dims,
               std::initializer_list<Value> rest = {}) {
  std::vector<const TensorImpl*> ps;
  for (const Tensor& t : idx) ps.push_back(t.impl());
  std::vector<Value> args = {self, ArrayRef<const TensorImpl*>(ps)};
  args.insert(args.end(), rest.begin(), rest.end());
  args.emplace_back(IntArrayRef(dims));
  Tensor out;
  dispatch(builtin_op(name), args.data(), args.size(), &out, 1);
  return out;
}

std::vector<Case> index_cases() {
  const Input m{{4, 3}}, src2{{2, 3}}, cube{{2, 3, 4}}, pos{{3, 4}, 0.5, 1.5};
  const Tensor rows = ints({3, 0, 3}, {3});
  const Tensor gidx = ints({0, 2, 1, 2, 1, 0, 0, 2}, {2, 4});
  const Tensor sidx = ints({0, 2, 1, 2, 1, 0, 2, 0}, {2, 4});  // distinct targets per column
  const Tensor ridx = ints({0, 2, 1, 2, 0, 2, 2, 0, 0, 0, 0, 1}, {3, 4});
  std::vector<Case> cs = {
      {{"take_along_dim"}, {{{3, 4}}}, [](const Inputs& x) {
         Tensor idx = ops::empty({3, 2}, DType::Int64, kCPU);
         const int64_t values[] = {0, 3, 2, 2, 1, 0};
         for (int i = 0; i < 6; ++i) idx->data_as<int64_t>()[i] = values[i];
         return ops::add(ops::sum(op("take_along_dim", {x[0], idx, 1})), ops::sum(op("take_along_dim", {x[0], idx, Value()})));
       }},
      {{"index_select"}, {m}, [=](const Inputs& x) { return op("index_select", {x[0], 0, rows}); }},
      {{"index_select"}, {cube}, [=](const Inputs& x) { return op("index_select", {x[0], -1, ints({3, 1, 3}, {3})}); }},
      {{"index_add", "index_add_"}, {m, {{3, 3}}}, [=](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("index_add_", {c, 0, rows, x[1], 1});
         return op("index_add", {c, 0, ints({1, 1, 0}, {3}), ops::mul(x[1], x[1]), 2.5});
       }},
      {{"index_copy", "index_copy_"}, {m, src2}, [=](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("index_copy_", {c, 0, ints({1, 3}, {2}), x[1]});
         return ops::mul(op("index_copy", {c, 0, ints({0, 1}, {2}), ops::mul(x[1], Scalar(2.0))}), c);
       }},
      {{"index_fill.int_Scalar", "index_fill_.int_Scalar"}, {m}, [=](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("index_fill_.int_Scalar", {c, 1, ints({2}, {1}), 0.5});
         return op("index_fill.int_Scalar", {c, 0, rows, -1.0});
       }},
      {{"index_fill.int_Tensor", "index_fill_.int_Tensor"}, {m, {{}}}, [=](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("index_fill_.int_Tensor", {c, 1, ints({-1}, {1}), x[1]});
         return op("index_fill.int_Tensor", {c, 0, rows, ops::mul(x[1], x[1])});
       }},
      {{"gather"}, {{{3, 4}}}, [=](const Inputs& x) { return op("gather", {x[0], 0, gidx, false}); }},
      {{"scatter.src", "scatter_.src"}, {{{3, 4}}, {{2, 4}}}, [=](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("scatter_.src", {c, 1, ints({3, 1}, {2, 1}), x[1]});
         return op("scatter.src", {c, 0, sidx, ops::mul(x[1], x[1])});
       }},
      {{"scatter.value", "scatter_.value"}, {{{3, 4}}}, [=](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("scatter_.value", {c, 1, ints({0, 2}, {2, 1}), 2.0});
         return op("scatter.value", {c, 0, sidx, -1.0});
       }},
      {{"scatter.reduce", "scatter_.reduce"}, {{{3, 4}}, {{3, 4}}}, [=](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("scatter_.reduce", {c, 0, ridx, x[1], "add"});
         return op("scatter.reduce", {c, 1, ridx, x[1], "multiply"});
       }},
      {{"scatter.value_reduce", "scatter_.value_reduce"}, {{{3, 4}}}, [=](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("scatter_.value_reduce", {c, 0, ridx, 1.5, "add"});
         return op("scatter.value_reduce", {c, 1, ridx, -2.0, "multiply"});
       }},
      {{"scatter_add", "scatter_add_"}, {{{3, 4}}, {{3, 4}}}, [=](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("scatter_add_", {c, 0, ridx, x[1]});
         return op("scatter_add", {c, 1, ridx, ops::mul(x[1], x[1])});
       }},
      {{"scatter_reduce.two", "scatter_reduce_.two"}, {{{3, 4}}, {{3, 4}}}, [=](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("scatter_reduce_.two", {c, 0, ridx, x[1], "sum", false});
         return op("scatter_reduce.two", {c, 0, ridx, x[1], "mean", true});
       }},
      {{"scatter_reduce.two"}, {{{3, 4}}, {{3, 4}}}, [=](const Inputs& x) {
         return ops::add(op("scatter_reduce.two", {x[0], 0, ridx, x[1], "sum", true}),
                         op("scatter_reduce.two", {x[0], 0, ridx, x[1], "mean", false}));
       }},
      {{"scatter_reduce.two"}, {pos, pos}, [=](const Inputs& x) {
         return ops::add(op("scatter_reduce.two", {x[0], 0, ridx, x[1], "prod", true}),
                         op("scatter_reduce.two", {x[0], 0, ridx, x[1], "prod", false}));
       }},
      // Zeros among the factors: one zero in a product (its factor gets the product of the rest),
      // two zeros (every factor gets 0). The second derivative is not reproduced at zeros.
      {{"scatter_reduce.two"}, {{{3, 4}, 0, 0, {0, 1.5, 0.5, 2, 1, 1, 1, 1, 0.5, 1, 1, 1}},
                                {{3, 4}, 0, 0, {2, 0, 1, 0.5, 1, 1, 0, 1, 1, 1, 2, 1}}},
       [=](const Inputs& x) {
         return ops::add(op("scatter_reduce.two", {x[0], 0, ridx, x[1], "prod", true}),
                         op("scatter_reduce.two", {x[0], 0, ridx, x[1], "prod", false}));
       }, false},
      {{"scatter_reduce.two"}, {{{3, 4}}, {{3, 4}}}, [=](const Inputs& x) {
         return ops::add(op("scatter_reduce.two", {x[0], 0, ridx, x[1], "amax", true}),
                         op("scatter_reduce.two", {x[0], 1, ridx, x[1], "amin", false}));
       }},
      {{"masked_fill.Scalar", "masked_fill_.Scalar"}, {{{3, 4}}}, [=](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("masked_fill_.Scalar", {c, mask({1, 0, 0, 1}, {4}), 0.5});
         return op("masked_fill.Scalar", {c, mask({0, 1, 1}, {3, 1}), 2.0});
       }},
      {{"masked_fill.Tensor", "masked_fill_.Tensor"}, {{{3, 4}}, {{}}}, [=](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("masked_fill_.Tensor", {c, mask({1, 0, 0, 1}, {4}), x[1]});
         return op("masked_fill.Tensor", {c, mask({0, 1, 1}, {3, 1}), ops::mul(x[1], x[1])});
       }},
      {{"masked_scatter", "masked_scatter_"}, {{{3, 4}}, {{14}}}, [=](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("masked_scatter_", {c, mask({1, 0, 0, 1}, {4}), x[1]});
         return op("masked_scatter", {c, mask({0, 1, 1}, {3, 1}), ops::mul(x[1], x[1])});
       }},
      {{"masked_select"}, {{{3, 4}}}, [=](const Inputs& x) {
         return op("masked_select", {x[0], mask({1, 0, 1, 1}, {4})});
       }},
      {{"take"}, {{{3, 4}}}, [=](const Inputs& x) { return op("take", {x[0], ints({11, 0, -1, 5}, {2, 2})}); }},
      {{"put", "put_"}, {{{3, 4}}, {{3}}}, [=](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         op("put_", {c, ints({1, 1, -2}, {3}), x[1], true});
         return op("put", {c, ints({0, 5, 4}, {3}), ops::mul(x[1], x[1]), false});
       }},
      {{"embedding"}, {{{5, 3}}}, [=](const Inputs& x) {
         // padding_idx 3 is a row no index picks: a picked padding row gets no gradient by design,
         // which central differences would disagree with (test_index_py checks that row).
         return ops::add(op("embedding", {x[0], ints({0, 4, 2, 2}, {2, 2}), -1, false, false}),
                         op("embedding", {x[0], ints({2, 1, 2, 2}, {2, 2}), 3, false, false}));
       }},
      {{"index.Tensor"}, {cube}, [=](const Inputs& x) {
         const Tensor a = list_op("index.Tensor", x[0], {ints({1, 0, 1}, {3}), ints({3, 3, 0}, {3})}, {0, 2});
         const Tensor b = list_op("index.Tensor", x[0], {mask({1, 0, 1}, {3})}, {1});
         const Tensor fa = ops::reshape(a, {-1}), fb = ops::reshape(b, {-1});
         const TensorImpl* parts[2] = {fa.impl(), fb.impl()};
         return ops::cat(ArrayRef<const TensorImpl*>(parts, 2), 0);
       }},
      {{"index_put", "index_put_"}, {m, src2}, [=](const Inputs& x) {
         Tensor c = copy_of(x[0]);
         list_op("index_put_", c, {ints({2, 0}, {2})}, {0}, {x[1], false});
         return list_op("index_put", c, {ints({1, 1}, {2})}, {0}, {ops::mul(x[1], x[1]), true});
       }},
  };
  return cs;
}

const GradCheckFamily family(index_cases);

}  // namespace
}  // namespace ct::gradcheck
