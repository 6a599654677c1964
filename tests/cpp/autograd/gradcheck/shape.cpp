// shape.cpp - gradcheck cases of the shape family: repeat, tile, roll, flip (rot90, fliplr,
// flipud), tril, triu, diag, diagflat, diagonal (and its scatter), slice_scatter, select_scatter,
// unfold, ravel, movedim, unflatten, expand_as, broadcast_to, the paddings, block_diag,
// cartesian_prod, combinations, and split, chunk and unbind (functions over views, checked through
// the views they return).
#include "gradcheck.h"

namespace ct::gradcheck {
namespace {

// The pieces of a list of views, each scaled differently and joined, so that every piece's
// gradient is checked.
Tensor weigh(const std::vector<Tensor>& pieces, int64_t dim) {
  std::vector<Tensor> scaled;
  std::vector<const TensorImpl*> impls;
  for (size_t i = 0; i < pieces.size(); ++i) {
    scaled.push_back(ops::mul(pieces[i], Scalar(static_cast<double>(i + 1))));
    impls.push_back(scaled.back().impl());
  }
  return ops::cat(impls, dim);
}

std::vector<Case> shape_cases() {
  const Input m{{3, 4}}, cube{{2, 3, 4}}, vec{{4}}, col{{3, 1}}, tall{{7, 3}};
  const Input img{{2, 3, 4, 5}}, vol{{1, 2, 3, 4, 3}}, seq{{2, 3, 5}};
  std::vector<Case> cs = {
      {{"repeat"}, {m}, [](const Inputs& x) { return op("repeat", {x[0], IntArrayRef{2, 1, 3}}); }},
      {{"tile"}, {m}, [](const Inputs& x) { return op("tile", {x[0], IntArrayRef{2}}); }},
      {{"roll"}, {cube}, [](const Inputs& x) {
         return ops::add(op("roll", {x[0], IntArrayRef{1, -2}, IntArrayRef{0, 2}}), op("roll", {x[0], IntArrayRef{5}, IntArrayRef{}}));
       }},
      {{"flip"}, {cube}, [](const Inputs& x) { return op("flip", {x[0], IntArrayRef{0, -1}}); }},
      {{"tril"}, {cube}, [](const Inputs& x) { return op("tril", {x[0], -1}); }},
      {{"triu"}, {cube}, [](const Inputs& x) { return op("triu", {x[0], 1}); }},
      {{"diag"}, {vec, m}, [](const Inputs& x) {
         return ops::add(ops::sum(op("diag", {x[0], 1}), {}, false), op("diag", {x[1], -1}));
       }},
      {{"diagonal"}, {cube}, [](const Inputs& x) {
         return ops::add(op("diagonal", {x[0], 1, 2, 0}), op("diagonal", {x[0], -1, 0, 2}));
       }},
      {{"movedim.intlist", "movedim.int"}, {cube}, [](const Inputs& x) {
         return ops::add(op("movedim.intlist", {x[0], IntArrayRef{0, 1}, IntArrayRef{2, 0}}),
                         op("movedim.int", {x[0], 0, 2}));
       }},
      {{"moveaxis.intlist", "moveaxis.int"}, {cube}, [](const Inputs& x) {
         return ops::add(op("moveaxis.intlist", {x[0], IntArrayRef{2}, IntArrayRef{0}}), op("moveaxis.int", {x[0], -1, 0}));
       }},
      {{"unflatten.int"}, {m}, [](const Inputs& x) { return op("unflatten.int", {x[0], 1, IntArrayRef{2, -1}}); }},
      {{"expand_as"}, {col, cube}, [](const Inputs& x) { return ops::mul(op("expand_as", {x[0], x[1]}), x[1]); }},
      {{"broadcast_to"}, {col}, [](const Inputs& x) { return op("broadcast_to", {x[0], IntArrayRef{2, 3, 4}}); }},
      {{"constant_pad_nd"}, {cube}, [](const Inputs& x) {
         return op("constant_pad_nd", {x[0], IntArrayRef{1, -1, 0, 2}, 0.5});
       }},
      {{"reflection_pad1d"}, {seq}, [](const Inputs& x) { return op("reflection_pad1d", {x[0], IntArrayRef{2, 3}}); }},
      {{"reflection_pad2d"}, {img}, [](const Inputs& x) {
         return op("reflection_pad2d", {x[0], IntArrayRef{1, 2, 3, 0}});
       }},
      {{"reflection_pad3d"}, {vol}, [](const Inputs& x) {
         return op("reflection_pad3d", {x[0], IntArrayRef{1, 0, 2, 1, 0, 2}});
       }},
      {{"replication_pad1d"}, {seq}, [](const Inputs& x) { return op("replication_pad1d", {x[0], IntArrayRef{3, 1}}); }},
      {{"replication_pad2d"}, {img}, [](const Inputs& x) {
         return op("replication_pad2d", {x[0], IntArrayRef{2, 1, 0, 3}});
       }},
      {{"replication_pad3d"}, {vol}, [](const Inputs& x) {
         return op("replication_pad3d", {x[0], IntArrayRef{1, 1, 0, 2, 3, 0}});
       }},
      {{"pad"}, {seq}, [](const Inputs& x) {
         const Tensor c = op("pad", {x[0], IntArrayRef{1, 2}, "constant", 1.5});
         const Tensor r = op("pad", {x[0], IntArrayRef{2, 1}, "reflect", Value()});
         const Tensor w = op("pad", {x[0], IntArrayRef{3, 0}, "circular", Value()});
         return ops::add(ops::add(c, r), w);
       }},
      {{"diag_embed"}, {m}, [](const Inputs& x) {
         return ops::add(ops::sum(op("diag_embed", {x[0], 1, 0, 2})), ops::sum(op("diag_embed", {x[0], -1, -1, -2})));
       }},
      {{"trace"}, {m}, [](const Inputs& x) { return op("trace", {x[0]}); }},
      {{"repeat_interleave.self_int", "repeat_interleave.self_Tensor"}, {m}, [](const Inputs& x) {
         const Tensor counts = ops::full({3}, Scalar(2), DType::Int64, kCPU);
         return ops::add(ops::sum(op("repeat_interleave.self_int", {x[0], 2, 1, Value()})),
                         ops::sum(op("repeat_interleave.self_Tensor", {x[0], counts, 0, Value()})));
       }},
      {{"hstack", "vstack", "dstack", "column_stack"}, {m, m}, [](const Inputs& x) {
         const TensorImpl* parts[2] = {x[0].impl(), x[1].impl()};
         const ArrayRef<const TensorImpl*> both(parts, 2);
         Tensor total = ops::sum(op("hstack", {both}));
         for (const char* name : {"vstack", "dstack", "column_stack"})
           total = ops::add(total, ops::sum(ops::mul(op(name, {both}), Scalar(2.0))));
         return total;
       }},
      {{"atleast_1d", "atleast_2d", "atleast_3d"}, {{{}}, {{3}}}, [](const Inputs& x) {
         return ops::add(ops::sum(op("atleast_1d", {x[0]})),
                         ops::add(ops::sum(op("atleast_2d", {x[1]})), ops::sum(op("atleast_3d", {x[1]}))));
       }},
      {{"diff"}, {m, {{3, 1}}}, [](const Inputs& x) {
         return ops::add(ops::sum(op("diff", {x[0], 2, 1, x[1], Value()})), ops::sum(op("diff", {x[0], 1, 0, Value(), Value()})));
       }},
      {{"rot90"}, {cube}, [](const Inputs& x) {
         return ops::add(op("rot90", {x[0], 1, IntArrayRef{1, 2}}), ops::mul(op("rot90", {x[0], 3, IntArrayRef{2, 1}}), Scalar(2.0)));
       }},
      {{"fliplr", "flipud"}, {m}, [](const Inputs& x) {
         return ops::add(op("fliplr", {x[0]}), ops::mul(op("flipud", {x[0]}), Scalar(3.0)));
       }},
      {{"diagflat"}, {col}, [](const Inputs& x) { return op("diagflat", {x[0], -1}); }},
      {{"diagonal_scatter"}, {m, {{3}}}, [](const Inputs& x) { return op("diagonal_scatter", {x[0], x[1], 1, 0, 1}); }},
      {{"slice_scatter"}, {m, {{3, 2}}}, [](const Inputs& x) {
         return op("slice_scatter", {x[0], x[1], 1, 1, Value(), 2});
       }},
      {{"select_scatter"}, {cube, {{2, 4}}}, [](const Inputs& x) { return op("select_scatter", {x[0], x[1], 1, -1}); }},
      {{"as_strided"},
       {{{12}}},
       [](const Inputs& x) {  // overlapping windows of a vector, and of its transposed matrix view
         const Tensor windows = op("as_strided", {x[0], IntArrayRef{3, 4}, IntArrayRef{2, 1}, 1});
         const Tensor t = ops::transpose(ops::reshape(x[0], {3, 4}), 0, 1);
         const Tensor picked = op("as_strided", {t, IntArrayRef{2, 2}, IntArrayRef{4, 1}, Value()});
         return ops::add(ops::sum(ops::mul(windows, windows)), ops::sum(ops::mul(picked, picked)));
       }},
      {{"unfold"}, {seq}, [](const Inputs& x) {  // overlapping windows: an element's gradient sums over them
         return ops::add(ops::sum(op("unfold", {x[0], 2, 3, 1})), ops::sum(ops::mul(op("unfold", {x[0], 1, 2, 1}), Scalar(2.0))));
       }},
      {{"ravel"}, {cube}, [](const Inputs& x) { return op("ravel", {ops::transpose(x[0], 0, 2)}); }},
      {{"block_diag"}, {m, vec, {{}}}, [](const Inputs& x) {
         const TensorImpl* parts[3] = {x[0].impl(), x[1].impl(), x[2].impl()};
         return op("block_diag", {ArrayRef<const TensorImpl*>(parts, 3)});
       }},
      {{"cartesian_prod"}, {vec, {{3}}}, [](const Inputs& x) {
         const TensorImpl* parts[2] = {x[0].impl(), x[1].impl()};
         return ops::mul(op("cartesian_prod", {ArrayRef<const TensorImpl*>(parts, 2)}), Scalar(1.5));
       }},
      {{"combinations"}, {vec}, [](const Inputs& x) {
         return ops::add(ops::sum(op("combinations", {x[0], 2, false})), ops::sum(op("combinations", {x[0], 3, true})));
       }},
      // Not operators: lists of narrow and select views.
      {{"narrow"}, {tall}, [](const Inputs& x) {
         return ops::add(weigh(ops::split(x[0], 3, 0), 0), weigh(ops::chunk(x[0], 3, 0), 0));
       }},
      {{"narrow"}, {m}, [](const Inputs& x) { return weigh(ops::split_with_sizes(x[0], {1, 0, 3}, 1), 1); }},
      {{"select.int"}, {m}, [](const Inputs& x) { return weigh(ops::unbind(x[0], 1), 0); }},
  };
  return cs;
}

const GradCheckFamily family(shape_cases);

}  // namespace
}  // namespace ct::gradcheck
