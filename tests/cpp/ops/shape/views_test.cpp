#include <gtest/gtest.h>

#include <functional>

#include "ops/functions.h"

using ct::DType;
using ct::Tensor;

namespace {
Tensor range(int64_t n, std::initializer_list<int64_t> sizes) {
  return ct::ops::reshape(ct::ops::arange(0, static_cast<double>(n), 1, DType::Int64, ct::kCPU), sizes);
}
std::vector<int64_t> values(const Tensor& t) {
  Tensor c = ct::ops::contiguous(t);
  return std::vector<int64_t>(c->data_as<int64_t>(), c->data_as<int64_t>() + c->numel());
}
ct_status status_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ct::Error& e) {
    return e.status();
  }
  return CT_OK;
}
}  // namespace

TEST(View, OfAContiguousTensorSharesStorage) {
  Tensor a = range(6, {2, 3});
  Tensor v = ct::ops::view(a, {3, -1});
  EXPECT_TRUE(v->sizes().equals({3, 2}));
  EXPECT_TRUE(v->strides().equals({2, 1}));
  EXPECT_EQ(v->storage(), a->storage());
  v->data_as<int64_t>()[5] = 50;
  EXPECT_EQ(a->data_as<int64_t>()[5], 50);
}

TEST(View, OfATransposedTensorRaisesShapeErrorWhileReshapeCopies) {
  Tensor t = ct::ops::transpose(range(6, {2, 3}), 0, 1);  // [[0, 3], [1, 4], [2, 5]]
  try {
    ct::ops::view(t, {6});
    FAIL() << "view of a transposed tensor did not raise";
  } catch (const ct::Error& e) {
    EXPECT_EQ(e.status(), CT_ERROR_SHAPE);
    EXPECT_NE(e.message().find("view"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("reshape"), std::string::npos) << e.message();
  }
  Tensor r = ct::ops::reshape(t, {6});
  EXPECT_NE(r->storage(), t->storage());
  EXPECT_TRUE(r->is_contiguous());
  EXPECT_EQ(values(r), (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
}

TEST(View, OfATransposedTensorWorksWhereNoDimSpansTwoChunks) {
  Tensor t = ct::ops::transpose(range(24, {2, 3, 4}), 1, 2);  // [2, 4, 3], strides [12, 1, 4]
  Tensor v = ct::ops::view(t, {2, 2, 2, 3});                  // splits the stride-1 dim only
  EXPECT_EQ(v->storage(), t->storage());
  EXPECT_TRUE(v->strides().equals({12, 2, 1, 4}));
  EXPECT_EQ(values(v), values(ct::ops::reshape(ct::ops::contiguous(t), {2, 2, 2, 3})));
  Tensor m = ct::ops::view(t, {2, 1, 4, 3});
  EXPECT_EQ(m->storage(), t->storage());
  EXPECT_EQ(status_of([&] { ct::ops::view(t, {2, 12}); }), CT_ERROR_SHAPE);
  EXPECT_EQ(status_of([&] { ct::ops::view(t, {8, 3}); }), CT_ERROR_SHAPE);  // dim 1 (stride 1) and dim 2 (stride 4) do not merge
}

TEST(View, OfAnExpandedTensorRaisesWhileReshapeCopies) {
  Tensor e = ct::ops::expand(range(3, {3}), {2, 3});
  EXPECT_TRUE(e->strides().equals({0, 1}));
  EXPECT_EQ(status_of([&] { ct::ops::view(e, {6}); }), CT_ERROR_SHAPE);
  Tensor r = ct::ops::reshape(e, {6});
  EXPECT_EQ(values(r), (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
}

TEST(View, WrongElementCountRaisesShapeError) {
  Tensor a = range(6, {2, 3});
  EXPECT_EQ(status_of([&] { ct::ops::view(a, {4}); }), CT_ERROR_SHAPE);
  EXPECT_EQ(status_of([&] { ct::ops::view(a, {-1, -1}); }), CT_ERROR_SHAPE);
  EXPECT_EQ(status_of([&] { ct::ops::view(a, {-1, 4}); }), CT_ERROR_SHAPE);
  EXPECT_EQ(status_of([&] { ct::ops::reshape(a, {5}); }), CT_ERROR_SHAPE);
}

TEST(Reshape, OfAContiguousTensorIsAView) {
  Tensor a = range(6, {2, 3});
  Tensor r = ct::ops::reshape(a, {6});
  EXPECT_EQ(r->storage(), a->storage());
  Tensor z = ct::ops::reshape(ct::ops::zeros({0, 4}, DType::Float32, ct::kCPU), {-1, 2, 2});
  EXPECT_TRUE(z->sizes().equals({0, 2, 2}));
}

TEST(Views, NarrowSelectPermuteAndSqueezeShareStorageWithTorchGeometry) {
  Tensor a = range(24, {2, 3, 4});
  Tensor n = ct::ops::narrow(a, 2, 1, 2);
  EXPECT_TRUE(n->sizes().equals({2, 3, 2}));
  EXPECT_TRUE(n->strides().equals({12, 4, 1}));
  EXPECT_EQ(n->storage_offset(), 1);
  Tensor s = ct::ops::select(a, 1, -1);
  EXPECT_TRUE(s->sizes().equals({2, 4}));
  EXPECT_EQ(s->storage_offset(), 8);
  EXPECT_EQ(values(s), (std::vector<int64_t>{8, 9, 10, 11, 20, 21, 22, 23}));
  Tensor p = ct::ops::permute(a, {2, 0, 1});
  EXPECT_TRUE(p->sizes().equals({4, 2, 3}));
  EXPECT_TRUE(p->strides().equals({1, 12, 4}));
  Tensor u = ct::ops::unsqueeze(a, -1);
  EXPECT_TRUE(u->sizes().equals({2, 3, 4, 1}));
  Tensor q = ct::ops::squeeze(u);
  EXPECT_TRUE(q->sizes().equals({2, 3, 4}));
  Tensor f = ct::ops::flatten(a, 1, -1);
  EXPECT_TRUE(f->sizes().equals({2, 12}));
  for (const Tensor* t : {&n, &s, &p, &u, &q, &f}) EXPECT_EQ((*t)->storage(), a->storage());
  EXPECT_EQ(status_of([&] { ct::ops::permute(a, {0, 0, 1}); }), CT_ERROR_SHAPE);
  EXPECT_EQ(status_of([&] { ct::ops::select(a, 3, 0); }), CT_ERROR_INDEX);
}

TEST(Views, KeepTheStorageAliveAfterTheBaseGoes) {
  Tensor v;
  {
    Tensor a = range(6, {2, 3});
    v = ct::ops::select(ct::ops::transpose(a, 0, 1), 0, 2);  // column 2: [2, 5]
  }
  EXPECT_EQ(values(v), (std::vector<int64_t>{2, 5}));
}
