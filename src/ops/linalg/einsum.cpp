// einsum.cpp - einsum with torch.einsum's rules (repeated labels take diagonals, labels missing from
// the output are summed, '...' broadcasts, the implicit output is the ellipsis then the labels seen
// once in alphabetical order). With more than two operands the pairwise contraction order is chosen
// to minimize the multiply-adds (exact over subsets up to 10 operands, greedy beyond); each pair is
// contracted by one bmm after permuting and reshaping. A composite: its derivative is implicit.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

constexpr int kEllipsisBase = 52;  // labels 0-25 'A'-'Z', 26-51 'a'-'z', then the ellipsis dims

int label_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}

// One term: its labels in order, with -1 where '...' stands.
std::vector<int> parse_term(const std::string& t, const std::string& eq) {
  std::vector<int> out;
  bool ellipsis = false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '.') {
      CT_CHECK(!ellipsis && t.compare(i, 3, "...") == 0, CT_ERROR_INVALID_ARGUMENT, "einsum: '", eq,
               "' has a '.' that is not one ellipsis '...' per term");
      ellipsis = true;
      out.push_back(-1);
      i += 2;
      continue;
    }
    const int l = label_of(t[i]);
    CT_CHECK(l >= 0, CT_ERROR_INVALID_ARGUMENT, "einsum: '", eq, "' has the character '", t[i],
             "'; subscripts are letters a-z, A-Z and '...'");
    out.push_back(l);
  }
  return out;
}

// An operand with one dim per distinct label.
struct Term {
  Tensor t;
  std::vector<int> labels;
};

SymInt prod_sizes(const std::vector<int>& labels, const std::vector<SymInt>& size) {
  SymInt p = 1;
  for (int l : labels) p = p * size[l];
  return p;
}

// Sums out the dims whose labels are not in keep.
Term sum_unneeded(Term x, const std::vector<bool>& keep) {
  DimVector dims;
  std::vector<int> rest;
  for (size_t d = 0; d < x.labels.size(); ++d) {
    if (keep[x.labels[d]])
      rest.push_back(x.labels[d]);
    else
      dims.push_back(int64_t(d));
  }
  if (dims.empty()) return x;
  const DType dt = x.t->dtype();
  Tensor s = sum(x.t, dims, false);
  if (s->dtype() != dt) s = to(s, dt);  // torch.einsum keeps the operands' dtype
  return {s, rest};
}

// Contracts a and b over their shared labels not in keep; keeps every other label.
Term contract(Term a, Term b, const std::vector<bool>& keep, const std::vector<SymInt>& size) {
  std::vector<bool> in_a(kEllipsisBase + 64, false), in_b(kEllipsisBase + 64, false);
  for (int l : a.labels) in_a[l] = true;
  for (int l : b.labels) in_b[l] = true;
  // A label of one side only and not kept is summed first.
  std::vector<bool> keep_a(keep), keep_b(keep);
  for (size_t l = 0; l < keep.size(); ++l) keep_a[l] = keep[l] || in_b[l], keep_b[l] = keep[l] || in_a[l];
  a = sum_unneeded(a, keep_a);
  b = sum_unneeded(b, keep_b);
  std::vector<int> batch, free_a, free_b, summed;
  for (int l : a.labels) (in_b[l] ? (keep[l] ? batch : summed) : free_a).push_back(l);
  for (int l : b.labels)
    if (!in_a[l]) free_b.push_back(l);
  auto arrange = [&](const Term& x, const std::vector<int>& g0, const std::vector<int>& g1,
                     const std::vector<int>& g2) {
    DimVector perm;
    SymDimVector full;
    for (const auto* g : {&g0, &g1, &g2})
      for (int l : *g) {
        perm.push_back(int64_t(std::find(x.labels.begin(), x.labels.end(), l) - x.labels.begin()));
        full.push_back(size[l]);
      }
    const Tensor p = permute(x.t, perm);
    return expand_symint(p, full);  // size-1 dims broadcast against the other operand
  };
  const SymInt nb = prod_sizes(batch, size), m = prod_sizes(free_a, size), n = prod_sizes(free_b, size),
               k = prod_sizes(summed, size);
  const Tensor ta = reshape_symint(arrange(a, batch, free_a, summed), {nb, m, k});
  const Tensor tb = reshape_symint(arrange(b, batch, summed, free_b), {nb, k, n});
  SymDimVector out_sizes;
  std::vector<int> labels;
  for (const auto* g : {&batch, &free_a, &free_b})
    for (int l : *g) out_sizes.push_back(size[l]), labels.push_back(l);
  Tensor r = k == 0 ? full_symint({nb, m, n}, Scalar(0), a.t->dtype(), a.t->device()) : bmm(ta, tb);
  return {reshape_symint(r, out_sizes), labels};
}

// The cheapest pairwise order over subsets (cost: multiply-adds of each contraction), as a list
// of pairs of positions in a list that appends each result at the end (opt_einsum's convention).
// Symbolic sizes count with their hints: the order changes the cost, never the result, so choosing it
// records no guard.
std::vector<std::pair<int, int>> best_path(const std::vector<std::vector<int>>& labels, const std::vector<bool>& out,
                                           const std::vector<SymInt>& size) {
  const int n = int(labels.size());
  const size_t nl = size.size();
  // The labels a subset's result keeps: those in the output or in an operand outside it.
  auto result_labels = [&](unsigned s) {
    std::vector<int> cnt_in(nl, 0), cnt_out(nl, 0);
    for (int i = 0; i < n; ++i)
      for (int l : labels[i]) ((s >> i) & 1 ? cnt_in : cnt_out)[l] = 1;
    std::vector<int> r;
    for (size_t l = 0; l < nl; ++l)
      if (cnt_in[l] && (out[l] || cnt_out[l])) r.push_back(int(l));
    return r;
  };
  auto pair_cost = [&](const std::vector<int>& x, const std::vector<int>& y) {
    std::vector<bool> u(nl, false);
    double c = 1;
    for (int l : x) u[l] = true;
    for (int l : y) u[l] = true;
    for (size_t l = 0; l < nl; ++l)
      if (u[l]) c *= double(size_hint(size[l]));
    return c;
  };
  std::vector<std::pair<int, int>> path;
  if (n <= 10) {
    const unsigned full = (1u << n) - 1;
    std::vector<double> cost(full + 1, std::numeric_limits<double>::infinity());
    std::vector<unsigned> split(full + 1, 0);
    std::vector<std::vector<int>> res(full + 1);
    for (unsigned s = 1; s <= full; ++s) {
      res[s] = result_labels(s);
      if ((s & (s - 1)) == 0) cost[s] = 0;
    }
    for (unsigned s = 1; s <= full; ++s) {
      if ((s & (s - 1)) == 0) continue;
      for (unsigned a = (s - 1) & s; a; a = (a - 1) & s) {
        const unsigned b = s ^ a;
        if (a < b) continue;  // each split once
        const double c = cost[a] + cost[b] + pair_cost(res[a], res[b]);
        if (c < cost[s]) cost[s] = c, split[s] = a;
      }
    }
    // Replays the tree in post-order on a list that appends results.
    std::vector<unsigned> list;
    for (int i = 0; i < n; ++i) list.push_back(1u << i);
    std::vector<unsigned> order;
    std::vector<unsigned> stack = {full};
    while (!stack.empty()) {  // reverse post-order of the inner nodes
      const unsigned s = stack.back();
      stack.pop_back();
      if ((s & (s - 1)) == 0) continue;
      order.push_back(s);
      stack.push_back(split[s]);
      stack.push_back(s ^ split[s]);
    }
    std::reverse(order.begin(), order.end());
    for (unsigned s : order) {
      const unsigned a = split[s], b = s ^ a;
      int ia = int(std::find(list.begin(), list.end(), a) - list.begin());
      int ib = int(std::find(list.begin(), list.end(), b) - list.begin());
      if (ia > ib) std::swap(ia, ib);
      path.emplace_back(ia, ib);
      list.erase(list.begin() + ib);
      list.erase(list.begin() + ia);
      list.push_back(s);
    }
    return path;
  }
  // Greedy: the cheapest pair each time.
  std::vector<unsigned> list;
  for (int i = 0; i < n; ++i) list.push_back(1u << i);
  while (list.size() > 1) {
    double best = std::numeric_limits<double>::infinity();
    int bi = 0, bj = 1;
    for (size_t i = 0; i < list.size(); ++i)
      for (size_t j = i + 1; j < list.size(); ++j) {
        const double c = pair_cost(result_labels(list[i]), result_labels(list[j]));
        if (c < best) best = c, bi = int(i), bj = int(j);
      }
    path.emplace_back(bi, bj);
    const unsigned s = list[bi] | list[bj];
    list.erase(list.begin() + bj);
    list.erase(list.begin() + bi);
    list.push_back(s);
  }
  return path;
}

// einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor
void einsum_kernel(void*, Frame& f) {
  std::string eq;
  for (const char* c = f.arg(0).str(); *c; ++c)
    if (*c != ' ') eq.push_back(*c);
  const auto ops = f.arg(1).tensor_list();
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::vector<int>> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(parse_term(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start), eq));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  CT_CHECK(!ops.empty(), CT_ERROR_INVALID_ARGUMENT, "einsum: needs at least one operand");
  CT_CHECK(terms.size() == ops.size(), CT_ERROR_INVALID_ARGUMENT, "einsum: '", eq, "' has ", terms.size(),
           " operand terms but ", ops.size(), " operands were given");
  for (size_t i = 1; i < ops.size(); ++i)
    CT_CHECK(ops[i]->dtype() == ops[0]->dtype(), CT_ERROR_DTYPE, "einsum: operands must have one dtype, got ",
             ops[0]->dtype(), " and ", ops[i]->dtype());
  // Ellipsis dims align from the right across operands, labelled kEllipsisBase + j.
  int64_t ell = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const bool has = std::count(terms[i].begin(), terms[i].end(), -1) > 0;
    const int64_t named = int64_t(terms[i].size()) - (has ? 1 : 0);
    CT_CHECK(has ? int64_t(ops[i]->dim()) >= named : int64_t(ops[i]->dim()) == named, CT_ERROR_SHAPE,
             "einsum: operand ", i, " has ", ops[i]->dim(), " dims but its subscripts '", lhs, "' name ", named);
    if (has) ell = std::max(ell, int64_t(ops[i]->dim()) - named);
  }
  const size_t nl = size_t(kEllipsisBase + ell);
  std::vector<SymInt> size(nl, SymInt(1));
  std::vector<bool> seen(nl, false);
  std::vector<int> count(nl, 0);
  std::vector<Term> xs;
  for (size_t i = 0; i < ops.size(); ++i) {
    const int64_t named = int64_t(terms[i].size()) - (std::count(terms[i].begin(), terms[i].end(), -1) ? 1 : 0);
    const int64_t e = int64_t(ops[i]->dim()) - named;
    std::vector<int> labels;
    for (int l : terms[i]) {
      if (l >= 0)
        labels.push_back(l);
      else
        for (int64_t j = 0; j < e; ++j) labels.push_back(int(kEllipsisBase + ell - e + j));
    }
    Term x{Tensor::borrow(ops[i]), {}};
    // Repeated labels: the diagonal, as a product with an identity mask summed over the repeat.
    for (size_t d = 0; d < labels.size(); ++d) {
      const auto first = std::find(labels.begin(), labels.begin() + d, labels[d]);
      if (first == labels.begin() + d) continue;
      const int64_t d0 = first - labels.begin();
      CT_CHECK(x.t->sym_size(d0) == x.t->sym_size(d), CT_ERROR_SHAPE, "einsum: a subscript repeated in operand ", i,
               " covers dims of sizes ", x.t->sym_size(d0), " and ", x.t->sym_size(d));
    }
    std::vector<int> kept;
    Tensor t = x.t;
    for (size_t d = 0, src = 0; d < labels.size(); ++d, ++src) {
      const auto first = std::find(kept.begin(), kept.end(), labels[d]);
      if (first == kept.end()) {
        kept.push_back(labels[d]);
        continue;
      }
      // Move the repeat next to the first occurrence's dim and take the diagonal.
      const int64_t d0 = first - kept.begin(), d1 = int64_t(kept.size());
      const int64_t n = t->sym_size(d0).guard_int();  // the identity mask needs its size
      DimVector mask_sizes(t->dim(), 1);
      mask_sizes[d0] = n, mask_sizes[d1] = n;
      const Tensor mask = reshape(eye(n, n, t->dtype(), t->device()), mask_sizes);
      const DType dt = t->dtype();
      t = sum(mul(t, mask), {d1}, false);
      if (t->dtype() != dt) t = to(t, dt);
    }
    for (size_t d = 0; d < kept.size(); ++d) {
      const int l = kept[d];
      const SymInt s = t->sym_size(d);
      CT_CHECK(!seen[l] || size[l] == s || size[l] == 1 || s == 1, CT_ERROR_SHAPE,
               "einsum: a subscript covers dims of sizes ", size[l], " and ", s, " in '", eq, "'");
      if (!seen[l] || size[l] == 1) size[l] = s;
      seen[l] = true;
      ++count[l];
    }
    xs.push_back({t, kept});
  }
  // The output's labels.
  std::vector<int> out;
  if (arrow == std::string::npos) {
    for (int64_t j = 0; j < ell; ++j) out.push_back(int(kEllipsisBase + j));
    for (int l = 0; l < kEllipsisBase; ++l) {
      int total = 0;  // occurrences in the equation, repeats within a term included
      for (const auto& t : terms) total += int(std::count(t.begin(), t.end(), l));
      if (total == 1) out.push_back(l);
    }
  } else {
    for (int l : parse_term(eq.substr(arrow + 2), eq)) {
      if (l < 0) {
        for (int64_t j = 0; j < ell; ++j) out.push_back(int(kEllipsisBase + j));
        continue;
      }
      CT_CHECK(seen[l], CT_ERROR_INVALID_ARGUMENT, "einsum: output subscript '", char(l < 26 ? 'A' + l : 'a' + l - 26),
               "' does not appear in the operands of '", eq, "'");
      CT_CHECK(std::count(out.begin(), out.end(), l) == 0, CT_ERROR_INVALID_ARGUMENT, "einsum: output subscript '",
               char(l < 26 ? 'A' + l : 'a' + l - 26), "' appears more than once in '", eq, "'");
      out.push_back(l);
    }
  }
  std::vector<bool> in_out(nl, false);
  for (int l : out) in_out[l] = true;
  // Labels of one operand only and not in the output are summed before any contraction.
  for (auto& x : xs) {
    std::vector<bool> keep(nl, false);
    for (size_t l = 0; l < nl; ++l) keep[l] = in_out[l];
    for (const auto& y : xs)
      if (&y != &x)
        for (int l : y.labels) keep[l] = true;
    x = sum_unneeded(x, keep);
  }
  std::vector<std::pair<int, int>> path;
  if (!f.arg(2).is_none()) {
    const IntArrayRef p = f.arg(2).int_list();
    CT_CHECK(p.size() == 2 * (xs.size() - 1), CT_ERROR_INVALID_ARGUMENT, "einsum: path must hold ", xs.size() - 1,
             " pairs of operand positions, got ", p);
    for (size_t i = 0; i < p.size(); i += 2) path.emplace_back(int(p[i]), int(p[i + 1]));
  } else if (xs.size() > 2) {
    std::vector<std::vector<int>> ls;
    for (const auto& x : xs) ls.push_back(x.labels);
    path = best_path(ls, in_out, size);
  } else if (xs.size() == 2) {
    path.emplace_back(0, 1);
  }
  for (auto [i, j] : path) {
    CT_CHECK(i != j && i >= 0 && j >= 0 && size_t(std::max(i, j)) < xs.size(), CT_ERROR_INVALID_ARGUMENT,
             "einsum: path pair (", i, ", ", j, ") does not name two of the ", xs.size(), " operands left");
    if (i > j) std::swap(i, j);
    std::vector<bool> keep(in_out);
    for (size_t k = 0; k < xs.size(); ++k)
      if (int(k) != i && int(k) != j)
        for (int l : xs[k].labels) keep[l] = true;
    Term r = contract(xs[size_t(i)], xs[size_t(j)], keep, size);
    xs.erase(xs.begin() + j);
    xs.erase(xs.begin() + i);
    xs.push_back(r);
  }
  Term r = sum_unneeded(xs[0], in_out);
  DimVector perm;
  SymDimVector full;
  for (int l : out) {
    perm.push_back(int64_t(std::find(r.labels.begin(), r.labels.end(), l) - r.labels.begin()));
    full.push_back(size[l]);
  }
  Tensor y = permute(r.t, perm);
  f.outs[0] = identical(y->sym_sizes(), full.ref()) ? y : expect_contiguous(expand_symint(y, full));
}

}  // namespace

void define_einsum(Registry& r) {
  r.def("einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor").composite(einsum_kernel);
}

}  // namespace ct::ops
