// matmul.cpp - matmul with torch.matmul's rules, decomposed into mm and bmm over views.
#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"

namespace ct::ops {
namespace {

// matmul(Tensor self, Tensor other) -> Tensor
void matmul_kernel(void*, Frame& f) {
  const Tensor a = Tensor::borrow(&f.tensor(0)), b = Tensor::borrow(&f.tensor(1));
  const size_t da = a->dim(), db = b->dim();
  CT_CHECK(da > 0 && db > 0, CT_ERROR_SHAPE, "matmul: both inputs need at least 1 dim, got a ", a->sym_sizes(),
           " and b ", b->sym_sizes(), ". Use mul for scalars");
  const SymInt ka = a->sym_size(da - 1), kb = b->sym_size(db == 1 ? 0 : db - 2);
  CT_CHECK(ka == kb, CT_ERROR_SHAPE, "matmul: inner sizes differ (a ", a->sym_sizes(), ", b ", b->sym_sizes(), ", ",
           a->dtype(),
           ", ", a->device(), "). Make a.size(-1) equal b.size(", db == 1 ? "0" : "-2", ")");
  // A 1-D a is a row vector, a 1-D b a column vector; their unit dims are dropped at the end.
  const Tensor a2 = da == 1 ? unsqueeze(a, 0) : a;
  const Tensor b2 = db == 1 ? unsqueeze(b, 1) : b;
  Tensor out;
  if (da <= 2 && db <= 2) {
    out = mm(a2, b2);
  } else if (db <= 2) {
    // Fold a's batch dims into its rows: one large mm instead of many small ones.
    SymDimVector rows(a2->sym_sizes());
    SymInt folded = 1;  // counted, not inferred: with ka == 0 a -1 would be ambiguous
    for (size_t d = 0; d + 1 < rows.size(); ++d) folded = folded * rows[d];
    out = mm(reshape_symint(a2, {folded, ka}), b2);
    rows.back() = b2->sym_size(1);
    out = view_symint(out, rows);
  } else {
    SymIntArrayRef sa = a2->sym_sizes(), sb = b2->sym_sizes();
    const SymDimVector batch = broadcast_shapes("matmul", SymIntArrayRef(sa.data(), sa.size() - 2),
                                                SymIntArrayRef(sb.data(), sb.size() - 2));
    SymInt nb = 1;
    for (SymInt s : batch) nb = nb * s;
    const SymInt n = sa[sa.size() - 2], m = sb[sb.size() - 1];
    SymDimVector ea(batch), eb(batch), eo(batch);
    ea.push_back(n), ea.push_back(ka);
    eb.push_back(ka), eb.push_back(m);
    eo.push_back(n), eo.push_back(m);
    out = view_symint(bmm(reshape_symint(expand_symint(a2, ea), {nb, n, ka}), reshape_symint(expand_symint(b2, eb), {nb, ka, m})),
                      eo);
  }
  if (da == 1) out = squeeze(out, -2);
  if (db == 1) out = squeeze(out, -1);
  f.outs[0] = out;
}

}  // namespace

void define_matmul(Registry& r) { r.def("matmul(Tensor self, Tensor other) -> Tensor").composite(matmul_kernel); }

}  // namespace ct::ops
