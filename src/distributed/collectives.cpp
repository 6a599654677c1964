// collectives.cpp - the collectives of collectives.h: what every engine shares.
//
// Note [Deterministic reduction order]
// An engine's all-reduce may combine the ranks' values in an order that depends on message size,
// topology or timing (a ring starts at a different rank for each chunk; a tree may differ between
// runs), so a float sum can differ in its last bits. With ct_use_deterministic_algorithms on, the
// core reduces in a fixed order instead, on every engine: the buffer is cut into one block per
// rank, an all-to-all brings every rank's copy of block r to rank r, which combines them as
// ((v0 op v1) op v2) ... in rank order, and an all-gather returns the reduced blocks to everyone.
// That moves the same number of bytes as a ring all-reduce (plus the padding of the last block);
// every rank holds bitwise the same result, and a run with the same world size reproduces it.
#include "distributed/collectives.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "core/error.h"
#include "cuda/context.h"
#include "ops/op_calls.h"
#include "runtime/determinism.h"

namespace ct::dist {
namespace {

const char* op_name(ReduceOp op) {
  static const char* names[] = {"SUM", "PRODUCT", "MIN", "MAX", "AVG"};
  return names[static_cast<int>(op)];
}

bool on_engine_device(const ProcessGroup& pg, const Tensor& t) {
  return pg.engine().device_type == 1 ? t->device().type == DeviceType::CUDA : t->device().is_cpu();
}

/// t must be contiguous and on the engine's device.
void check_tensor(const ProcessGroup& pg, const Tensor& t, const char* fn, const char* what) {
  CT_CHECK(on_engine_device(pg, t), CT_ERROR_DEVICE, fn, ": ", what, " is on ", t->device(), ", but the ",
           pg.engine().name, " backend works on ", pg.engine().device_type == 1 ? "CUDA" : "CPU",
           " tensors. Move it with .to(), or use the ", pg.engine().device_type == 1 ? "gloo" : "nccl",
           " backend for those tensors");
  CT_CHECK(t->is_contiguous(), CT_ERROR_SHAPE, fn, ": ", what, " (sizes ", t->sizes(), ", strides ", t->strides(),
           ") is not contiguous. Pass t.contiguous(), as torch.distributed requires");
  // The engines' element types are the real dtypes; a complex tensor travels as its real view.
  CT_CHECK(!is_complex(t->dtype()), CT_ERROR_DTYPE, fn, ": ", what, " is ", t->dtype(), "; collectives take real "
           "dtypes. Pass view_as_real(t), whose sums are the complex sums");
}

/// Every tensor of a list must be like `like` (sizes and dtype) and there must be one per rank.
void check_list(const ProcessGroup& pg, const std::vector<Tensor>& list, const Tensor& like, const char* fn,
                const char* what) {
  CT_CHECK(list.size() == static_cast<size_t>(pg.size()), CT_ERROR_INVALID_ARGUMENT, fn, ": ", what, " has ",
           list.size(), " tensors; the group has ", pg.size(), " ranks and needs one per rank");
  for (size_t r = 0; r < list.size(); ++r) {
    check_tensor(pg, list[r], fn, what);
    CT_CHECK(list[r]->dtype() == like->dtype(), CT_ERROR_DTYPE, fn, ": ", what, "[", r, "] is ", list[r]->dtype(),
             " but the other tensor is ", like->dtype(), "; every tensor of a collective has one dtype");
    CT_CHECK(list[r]->sizes().equals(like->sizes()), CT_ERROR_SHAPE, fn, ": ", what, "[", r, "] has sizes ",
             list[r]->sizes(), " but the other tensor has ", like->sizes());
  }
}

void check_rank(const ProcessGroup& pg, int r, const char* fn, const char* what) {
  CT_CHECK(r >= 0 && r < pg.size(), CT_ERROR_INVALID_ARGUMENT, fn, ": ", what, " ", r, " is not a rank of the group (",
           "size ", pg.size(), ")");
}

/// The CUDA stream an engine orders its work on, on the thread that runs the operation.
void* stream_for(const ProcessGroup& pg, const Tensor& t) {
  if (pg.engine().device_type != 1) return nullptr;
  cuda::set_device(t->device().index);
  return cuda::current_stream(t->device().index);
}

/// Work queued by the calling thread on its own stream must be done before another thread's stream
/// reads the tensor.
void fence_caller(const ProcessGroup& pg, const Tensor& t, const char* fn) {
  if (pg.engine().device_type != 1) return;
  cuda::check(cuda::driver().stream_synchronize(cuda::current_stream(t->device().index)), fn);
}

template <typename F>
void call(const ProcessGroup& pg, const char* fn, F&& f) {
  ct_engine_error err{};
  if (f(&err) != CT_OK) pg.raise_engine_error(fn, err);
}

// Note [Sizes agreed before sending]
// Every rank must give a collective the same sizes and dtype. Gloo checks that a peer's message is
// no longer than the buffer posted for it, but with an assertion in its I/O thread: a mismatch
// ends the process. For an engine that says so (ct_engine.needs_size_check), and for every CPU
// engine under TORCH_DISTRIBUTED_DEBUG=DETAIL (torch's switch for the same check), each collective
// first gathers every rank's (operation, dtype, element count, root) and fails on all ranks alike
// with CT_ERROR_DISTRIBUTED naming what each rank passed; a point-to-point message is preceded by
// its size, and a receive into a tensor of another size fails with CT_ERROR_SHAPE. It costs one
// small all-gather per collective, which shows at small sizes (docs/distributed.md);
// CTORCH_DIST_SIZE_CHECK=0 skips the collectives' check for programs that know their ranks agree.
constexpr const char* kOpNames[] = {"all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor",
                                    "reduce_scatter", "reduce_scatter_tensor", "gather", "scatter", "all_to_all",
                                    "all_to_all_single", "barrier"};

/// Tags a caller may use: a size header takes tag 2t and its message 2t + 1 where sizes are sent
/// ahead, so a tag's double must fit an int.
constexpr int kMaxTag = 1 << 29;

int payload_tag(const ProcessGroup& pg, int tag) { return pg.engine().needs_size_check ? 2 * tag + 1 : tag; }

bool checks_sizes(const ProcessGroup& pg) {
  static const bool detail = [] {
    const char* v = std::getenv("TORCH_DISTRIBUTED_DEBUG");
    return v && std::strcmp(v, "DETAIL") == 0;
  }();
  // CTORCH_DIST_SIZE_CHECK=0 trades the check for latency, where every rank is known to agree.
  static const bool off = [] {
    const char* v = std::getenv("CTORCH_DIST_SIZE_CHECK");
    return v && std::strcmp(v, "0") == 0;
  }();
  if (pg.size() == 1) return false;
  if (detail && pg.engine().device_type == 0) return true;
  return pg.engine().needs_size_check && !off;
}

std::string describe_call(const int64_t* f) {
  const int64_t op = f[0];
  const char* name = op >= 0 && op < static_cast<int64_t>(std::size(kOpNames)) ? kOpNames[op] : "?";
  if (str(name) == "barrier") return "barrier";
  return str(name, " of ", f[2], " ", static_cast<DType>(f[1]), f[3] >= 0 ? str(" (root ", f[3], ")") : "");
}

/// Fails on every rank when the ranks did not all call fn with this dtype, count and root (Note
/// [Sizes agreed before sending]); count is the elements per rank's buffer, root -1 when none.
void agree(ProcessGroup& pg, const char* fn, DType dtype, int64_t count, int root) {
  if (!checks_sizes(pg)) return;
  int64_t op = 0;
  while (op < static_cast<int64_t>(std::size(kOpNames)) && std::strcmp(kOpNames[op], fn) != 0) ++op;
  const int64_t mine[4] = {op, static_cast<int64_t>(dtype), count, root};
  std::vector<int64_t> all(4 * static_cast<size_t>(pg.size()));
  call(pg, fn, [&](ct_engine_error* err) {
    return pg.engine().all_gather(pg.comm(), mine, all.data(), 4, static_cast<int>(DType::Int64), nullptr, err);
  });
  bool same = true;
  for (int r = 0; r < pg.size(); ++r) same = same && std::equal(mine, mine + 4, &all[4 * static_cast<size_t>(r)]);
  if (same) return;
  std::string calls;
  for (int r = 0; r < pg.size(); ++r) calls += str(r ? "; " : "", "rank ", r, ": ", describe_call(&all[4 * static_cast<size_t>(r)]));
  fail(CT_ERROR_DISTRIBUTED, str(fn, ": the ranks disagree on this collective (", calls,
                                 "). Every rank must make the same call with tensors of the same sizes and dtype"));
}

/// How a reduction travels: the engine's dtype and op, and whether the values are converted.
struct Wire {
  DType dtype;
  int op;        // a ct_reduce_op other than AVG, which is a SUM and a division
  bool convert;  // carried as float32: a floating dtype the engine cannot reduce
};

/// A reduction's Wire: the tensor's own dtype; bool as its bytes, SUM and MAX being a logical or,
/// PRODUCT and MIN a logical and (as torch reduces bools); float32 for a floating dtype the engine
/// cannot reduce (float16 and bfloat16 on MPI, bfloat16 on gloo); else CT_ERROR_DTYPE.
Wire wire_for(const ProcessGroup& pg, DType d, ReduceOp op, const char* fn) {
  CT_CHECK(op != ReduceOp::Avg || is_floating(d), CT_ERROR_DTYPE, fn,
           ": ReduceOp.AVG needs a floating dtype, not ", d, ". Reduce with SUM and divide");
  int eop = static_cast<int>(op == ReduceOp::Avg ? ReduceOp::Sum : op);
  DType wire = d;
  if (d == DType::Bool) {
    wire = DType::UInt8;
    eop = op == ReduceOp::Sum || op == ReduceOp::Max ? CT_REDUCE_MAX : CT_REDUCE_MIN;
  }
  if (pg.engine().can_reduce(static_cast<int>(wire), eop)) return {wire, eop, false};
  if (is_floating(d) && pg.engine().can_reduce(static_cast<int>(DType::Float32), eop))
    return {DType::Float32, eop, true};
  std::string ok;
  for (int x = 0; x <= static_cast<int>(DType::Float64); ++x)
    if (pg.engine().can_reduce(x, eop)) ok += str(ok.empty() ? "" : ", ", static_cast<DType>(x));
  fail(CT_ERROR_DTYPE, str(fn, ": the ", pg.engine().name, " backend cannot reduce ", d, " with ", op_name(op),
                           "; it reduces ", ok));
}

size_t count_of(const Tensor& t) { return static_cast<size_t>(t->numel()); }

/// a := a op b, elementwise, in place (the combining step of the ordered reduction).
void combine(const Tensor& a, const Tensor& b, ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: ops::add_(a, b); break;
    case ReduceOp::Product: ops::mul_(a, b); break;
    case ReduceOp::Min: ops::copy_(a, ops::minimum(a, b)); break;
    case ReduceOp::Max: ops::copy_(a, ops::maximum(a, b)); break;
  }
}

/// blocks holds pg.size() blocks of chunk elements; returns block `rank` reduced over the ranks in
/// rank order (Note [Deterministic reduction order]).
Tensor ordered_reduce_scatter(ProcessGroup& pg, const Tensor& blocks, int64_t chunk, ReduceOp op, const char* fn) {
  Tensor got = ops::empty({pg.size(), chunk}, blocks->dtype(), blocks->device());
  call(pg, fn, [&](ct_engine_error* err) {
    return pg.engine().all_to_all(pg.comm(), blocks->data(), got->data(), static_cast<size_t>(chunk),
                                  static_cast<int>(blocks->dtype()), stream_for(pg, blocks), err);
  });
  Tensor acc = ops::clone(ops::select(got, 0, 0));
  for (int r = 1; r < pg.size(); ++r) combine(acc, ops::select(got, 0, r), op);
  return acc;
}

/// buf := op over the ranks' buf, in rank order on every rank.
void ordered_all_reduce(ProcessGroup& pg, const Tensor& buf, ReduceOp op, const char* fn) {
  const int64_t n = pg.size(), count = buf->numel();
  const int64_t chunk = (count + n - 1) / n;
  Tensor blocks = ops::zeros({n * chunk}, buf->dtype(), buf->device());
  ops::copy_(ops::narrow(blocks, 0, 0, count), ops::reshape(buf, {count}));
  Tensor mine = ordered_reduce_scatter(pg, blocks, chunk, op, fn);
  call(pg, fn, [&](ct_engine_error* err) {
    return pg.engine().all_gather(pg.comm(), mine->data(), blocks->data(), static_cast<size_t>(chunk),
                                  static_cast<int>(buf->dtype()), stream_for(pg, buf), err);
  });
  ops::copy_(ops::reshape(buf, {count}), ops::narrow(blocks, 0, 0, count));
}

bool deterministic() { return runtime::deterministic_mode() != runtime::DeterministicMode::Off; }

/// A contiguous tensor of the list's elements, one block per rank.
Tensor flatten_list(const std::vector<Tensor>& list) {
  const int64_t count = list[0]->numel();
  Tensor flat = ops::empty({static_cast<int64_t>(list.size()), count}, list[0]->dtype(), list[0]->device());
  for (size_t r = 0; r < list.size(); ++r) ops::copy_(ops::select(flat, 0, static_cast<int64_t>(r)), ops::reshape(list[r], {count}));
  return flat;
}

void unflatten_into(const Tensor& flat, const std::vector<Tensor>& list) {
  const int64_t count = list[0]->numel();
  Tensor rows = ops::reshape(flat, {static_cast<int64_t>(list.size()), count});
  for (size_t r = 0; r < list.size(); ++r)
    ops::copy_(list[r], ops::reshape(ops::select(rows, 0, static_cast<int64_t>(r)), list[r]->sizes()));
}

}  // namespace

WorkPtr all_reduce(ProcessGroup& pg, const Tensor& t, ReduceOp op, bool async) {
  const char* fn = "all_reduce";
  check_tensor(pg, t, fn, "tensor");
  const Wire wire = wire_for(pg, t->dtype(), op, fn);
  const bool ordered = deterministic();
  fence_caller(pg, t, fn);
  return pg.run(fn, [&pg, t, op, wire, ordered, fn] {
    agree(pg, fn, t->dtype(), t->numel(), -1);
    Tensor buf = wire.convert ? ops::to(t, wire.dtype) : t;
    if (ordered && pg.size() > 1) {
      ordered_all_reduce(pg, buf, op, fn);
    } else {
      call(pg, fn, [&](ct_engine_error* err) {
        return pg.engine().all_reduce(pg.comm(), buf->data(), count_of(buf), static_cast<int>(wire.dtype), wire.op,
                                      stream_for(pg, buf), err);
      });
    }
    if (op == ReduceOp::Avg) ops::div_(buf, Scalar(static_cast<int64_t>(pg.size())));
    if (buf.impl() != t.impl()) ops::copy_(t, buf);
  }, {t}, async);
}

WorkPtr broadcast(ProcessGroup& pg, const Tensor& t, int src, bool async) {
  const char* fn = "broadcast";
  check_tensor(pg, t, fn, "tensor");
  check_rank(pg, src, fn, "src");
  fence_caller(pg, t, fn);
  return pg.run(fn, [&pg, t, src, fn] {
    agree(pg, fn, t->dtype(), t->numel(), src);
    call(pg, fn, [&](ct_engine_error* err) {
      return pg.engine().broadcast(pg.comm(), t->data(), count_of(t), static_cast<int>(t->dtype()), src,
                                   stream_for(pg, t), err);
    });
  }, {t}, async);
}

WorkPtr reduce(ProcessGroup& pg, const Tensor& t, int dst, ReduceOp op, bool async) {
  const char* fn = "reduce";
  check_tensor(pg, t, fn, "tensor");
  check_rank(pg, dst, fn, "dst");
  const Wire wire = wire_for(pg, t->dtype(), op, fn);
  const bool ordered = deterministic();
  fence_caller(pg, t, fn);
  return pg.run(fn, [&pg, t, dst, op, wire, ordered, fn] {
    agree(pg, fn, t->dtype(), t->numel(), dst);
    // The engine may use a non-root's buffer as scratch; only dst's tensor changes.
    Tensor buf = wire.convert ? ops::to(t, wire.dtype) : pg.rank() == dst ? t : ops::clone(t);
    if (ordered && pg.size() > 1) {
      ordered_all_reduce(pg, buf, op, fn);
    } else {
      call(pg, fn, [&](ct_engine_error* err) {
        return pg.engine().reduce(pg.comm(), buf->data(), count_of(buf), static_cast<int>(wire.dtype), wire.op, dst,
                                  stream_for(pg, buf), err);
      });
    }
    if (pg.rank() != dst) return;
    if (op == ReduceOp::Avg) ops::div_(buf, Scalar(static_cast<int64_t>(pg.size())));
    if (buf.impl() != t.impl()) ops::copy_(t, buf);
  }, {t}, async);
}

WorkPtr all_gather_into_tensor(ProcessGroup& pg, const Tensor& output, const Tensor& input, bool async) {
  const char* fn = "all_gather_into_tensor";
  check_tensor(pg, input, fn, "input");
  check_tensor(pg, output, fn, "output");
  CT_CHECK(output->dtype() == input->dtype(), CT_ERROR_DTYPE, fn, ": output is ", output->dtype(), " but input is ",
           input->dtype());
  CT_CHECK(output->numel() == input->numel() * pg.size(), CT_ERROR_SHAPE, fn, ": output has ", output->numel(),
           " elements (sizes ", output->sizes(), "); it needs the group's size ", pg.size(), " times input's ",
           input->numel(), " (sizes ", input->sizes(), ")");
  fence_caller(pg, input, fn);
  return pg.run(fn, [&pg, output, input, fn] {
    agree(pg, fn, input->dtype(), input->numel(), -1);
    call(pg, fn, [&](ct_engine_error* err) {
      return pg.engine().all_gather(pg.comm(), input->data(), output->data(), count_of(input),
                                    static_cast<int>(input->dtype()), stream_for(pg, input), err);
    });
  }, {output, input}, async);
}

WorkPtr all_gather(ProcessGroup& pg, const std::vector<Tensor>& outputs, const Tensor& input, bool async) {
  const char* fn = "all_gather";
  check_tensor(pg, input, fn, "input");
  check_list(pg, outputs, input, fn, "output_tensor_list");
  fence_caller(pg, input, fn);
  std::vector<Tensor> keep = outputs;
  keep.push_back(input);
  return pg.run(fn, [&pg, outputs, input, fn] {
    agree(pg, fn, input->dtype(), input->numel(), -1);
    Tensor flat = ops::empty({pg.size(), input->numel()}, input->dtype(), input->device());
    call(pg, fn, [&](ct_engine_error* err) {
      return pg.engine().all_gather(pg.comm(), input->data(), flat->data(), count_of(input),
                                    static_cast<int>(input->dtype()), stream_for(pg, input), err);
    });
    unflatten_into(flat, outputs);
  }, std::move(keep), async);
}

namespace {

/// output := block `rank` of flat (size blocks of output's elements) reduced over the ranks.
void reduce_scatter_flat(ProcessGroup& pg, const Tensor& output, const Tensor& flat, ReduceOp op, Wire wire,
                         bool ordered, const char* fn) {
  Tensor in = wire.convert ? ops::to(flat, wire.dtype) : flat;
  Tensor out;
  if (ordered && pg.size() > 1) {
    out = ordered_reduce_scatter(pg, in, output->numel(), op, fn);
  } else {
    out = wire.convert ? ops::empty(output->sizes(), wire.dtype, output->device()) : output;
    call(pg, fn, [&](ct_engine_error* err) {
      return pg.engine().reduce_scatter(pg.comm(), in->data(), out->data(), count_of(output),
                                        static_cast<int>(wire.dtype), wire.op, stream_for(pg, in), err);
    });
  }
  if (op == ReduceOp::Avg) ops::div_(out, Scalar(static_cast<int64_t>(pg.size())));
  if (out.impl() != output.impl()) ops::copy_(output, ops::reshape(out, output->sizes()));
}

}  // namespace

WorkPtr reduce_scatter(ProcessGroup& pg, const Tensor& output, const std::vector<Tensor>& inputs, ReduceOp op,
                       bool async) {
  const char* fn = "reduce_scatter";
  check_tensor(pg, output, fn, "output");
  check_list(pg, inputs, output, fn, "input_list");
  const Wire wire = wire_for(pg, output->dtype(), op, fn);
  const bool ordered = deterministic();
  fence_caller(pg, output, fn);
  std::vector<Tensor> keep = inputs;
  keep.push_back(output);
  return pg.run(fn, [&pg, output, inputs, op, wire, ordered, fn] {
    agree(pg, fn, output->dtype(), output->numel(), -1);
    reduce_scatter_flat(pg, output, flatten_list(inputs), op, wire, ordered, fn);
  }, std::move(keep), async);
}

WorkPtr reduce_scatter_tensor(ProcessGroup& pg, const Tensor& output, const Tensor& input, ReduceOp op, bool async) {
  const char* fn = "reduce_scatter_tensor";
  check_tensor(pg, output, fn, "output");
  check_tensor(pg, input, fn, "input");
  CT_CHECK(output->dtype() == input->dtype(), CT_ERROR_DTYPE, fn, ": output is ", output->dtype(), " but input is ",
           input->dtype());
  CT_CHECK(input->numel() == output->numel() * pg.size(), CT_ERROR_SHAPE, fn, ": input has ", input->numel(),
           " elements (sizes ", input->sizes(), "); it needs the group's size ", pg.size(), " times output's ",
           output->numel(), " (sizes ", output->sizes(), ")");
  const Wire wire = wire_for(pg, output->dtype(), op, fn);
  const bool ordered = deterministic();
  fence_caller(pg, input, fn);
  return pg.run(fn, [&pg, output, input, op, wire, ordered, fn] {
    agree(pg, fn, output->dtype(), output->numel(), -1);
    reduce_scatter_flat(pg, output, input, op, wire, ordered, fn);
  }, {output, input}, async);
}

WorkPtr gather(ProcessGroup& pg, const Tensor& input, const std::vector<Tensor>& outputs, int dst, bool async) {
  const char* fn = "gather";
  check_tensor(pg, input, fn, "input");
  check_rank(pg, dst, fn, "dst");
  if (pg.rank() == dst) {
    check_list(pg, outputs, input, fn, "gather_list");
  } else {
    CT_CHECK(outputs.empty(), CT_ERROR_INVALID_ARGUMENT, fn, ": gather_list must be empty on ranks other than dst ",
             dst, " (this is rank ", pg.rank(), ")");
  }
  fence_caller(pg, input, fn);
  std::vector<Tensor> keep = outputs;
  keep.push_back(input);
  return pg.run(fn, [&pg, input, outputs, dst, fn] {
    agree(pg, fn, input->dtype(), input->numel(), dst);
    Tensor flat;
    if (pg.rank() == dst) flat = ops::empty({pg.size(), input->numel()}, input->dtype(), input->device());
    call(pg, fn, [&](ct_engine_error* err) {
      return pg.engine().gather(pg.comm(), input->data(), flat.defined() ? flat->data() : nullptr, count_of(input),
                                static_cast<int>(input->dtype()), dst, stream_for(pg, input), err);
    });
    if (flat.defined()) unflatten_into(flat, outputs);
  }, std::move(keep), async);
}

WorkPtr scatter(ProcessGroup& pg, const Tensor& output, const std::vector<Tensor>& inputs, int src, bool async) {
  const char* fn = "scatter";
  check_tensor(pg, output, fn, "output");
  check_rank(pg, src, fn, "src");
  if (pg.rank() == src) {
    check_list(pg, inputs, output, fn, "scatter_list");
  } else {
    CT_CHECK(inputs.empty(), CT_ERROR_INVALID_ARGUMENT, fn, ": scatter_list must be empty on ranks other than src ",
             src, " (this is rank ", pg.rank(), ")");
  }
  fence_caller(pg, output, fn);
  std::vector<Tensor> keep = inputs;
  keep.push_back(output);
  return pg.run(fn, [&pg, output, inputs, src, fn] {
    agree(pg, fn, output->dtype(), output->numel(), src);
    Tensor flat;
    if (pg.rank() == src) flat = flatten_list(inputs);
    call(pg, fn, [&](ct_engine_error* err) {
      return pg.engine().scatter(pg.comm(), flat.defined() ? flat->data() : nullptr, output->data(), count_of(output),
                                 static_cast<int>(output->dtype()), src, stream_for(pg, output), err);
    });
  }, std::move(keep), async);
}

WorkPtr all_to_all(ProcessGroup& pg, const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs, bool async) {
  const char* fn = "all_to_all";
  CT_CHECK(!inputs.empty(), CT_ERROR_INVALID_ARGUMENT, fn, ": input_tensor_list is empty; it needs one tensor per rank");
  check_list(pg, inputs, inputs[0], fn, "input_tensor_list");
  check_list(pg, outputs, inputs[0], fn, "output_tensor_list");
  fence_caller(pg, inputs[0], fn);
  std::vector<Tensor> keep = inputs;
  keep.insert(keep.end(), outputs.begin(), outputs.end());
  return pg.run(fn, [&pg, outputs, inputs, fn] {
    agree(pg, fn, inputs[0]->dtype(), inputs[0]->numel(), -1);
    Tensor in = flatten_list(inputs);
    Tensor out = ops::empty(in->sizes(), in->dtype(), in->device());
    call(pg, fn, [&](ct_engine_error* err) {
      return pg.engine().all_to_all(pg.comm(), in->data(), out->data(), count_of(inputs[0]),
                                    static_cast<int>(in->dtype()), stream_for(pg, in), err);
    });
    unflatten_into(out, outputs);
  }, std::move(keep), async);
}

WorkPtr all_to_all_single(ProcessGroup& pg, const Tensor& output, const Tensor& input, bool async) {
  const char* fn = "all_to_all_single";
  check_tensor(pg, input, fn, "input");
  check_tensor(pg, output, fn, "output");
  CT_CHECK(output->dtype() == input->dtype(), CT_ERROR_DTYPE, fn, ": output is ", output->dtype(), " but input is ",
           input->dtype());
  CT_CHECK(output->numel() == input->numel(), CT_ERROR_SHAPE, fn, ": output has sizes ", output->sizes(),
           " and input ", input->sizes(), "; they need the same number of elements");
  CT_CHECK(input->dim() > 0 && input->size(0) % pg.size() == 0, CT_ERROR_SHAPE, fn, ": input's first dim (sizes ",
           input->sizes(), ") must split evenly over the group's ", pg.size(), " ranks");
  fence_caller(pg, input, fn);
  return pg.run(fn, [&pg, output, input, fn] {
    agree(pg, fn, input->dtype(), input->numel(), -1);
    call(pg, fn, [&](ct_engine_error* err) {
      return pg.engine().all_to_all(pg.comm(), input->data(), output->data(), count_of(input) / pg.size(),
                                    static_cast<int>(input->dtype()), stream_for(pg, input), err);
    });
  }, {output, input}, async);
}

WorkPtr send(ProcessGroup& pg, const Tensor& t, int dst, int tag, bool async) {
  const char* fn = "send";
  check_tensor(pg, t, fn, "tensor");
  check_rank(pg, dst, fn, "dst");
  CT_CHECK(dst != pg.rank(), CT_ERROR_INVALID_ARGUMENT, fn, ": dst ", dst, " is this rank; send to another rank");
  CT_CHECK(tag >= 0 && tag < kMaxTag, CT_ERROR_INVALID_ARGUMENT, fn, ": tag ", tag, " is not in [0, ", kMaxTag, ")");
  fence_caller(pg, t, fn);
  return pg.run_p2p(fn, [&pg, t, dst, tag, fn] {
    const int64_t nbytes = t->numel() * static_cast<int64_t>(itemsize(t->dtype()));
    if (pg.engine().needs_size_check) {  // Note [Sizes agreed before sending]
      call(pg, fn, [&](ct_engine_error* err) {
        return pg.engine().send(pg.comm(), &nbytes, sizeof nbytes, dst, 2 * tag, nullptr, err);
      });
    }
    call(pg, fn, [&](ct_engine_error* err) {
      return pg.engine().send(pg.comm(), t->data(), static_cast<size_t>(nbytes), dst, payload_tag(pg, tag),
                              stream_for(pg, t), err);
    });
  }, {t}, async);
}

WorkPtr recv(ProcessGroup& pg, const Tensor& t, int src, int tag, bool async) {
  const char* fn = "recv";
  check_tensor(pg, t, fn, "tensor");
  check_rank(pg, src, fn, "src");
  CT_CHECK(src != pg.rank(), CT_ERROR_INVALID_ARGUMENT, fn, ": src ", src, " is this rank; receive from another rank");
  CT_CHECK(tag >= 0 && tag < kMaxTag, CT_ERROR_INVALID_ARGUMENT, fn, ": tag ", tag, " is not in [0, ", kMaxTag, ")");
  fence_caller(pg, t, fn);
  return pg.run_p2p(fn, [&pg, t, src, tag, fn] {
    const int64_t nbytes = t->numel() * static_cast<int64_t>(itemsize(t->dtype()));
    if (pg.engine().needs_size_check) {  // Note [Sizes agreed before sending]
      int64_t sent = -1;
      call(pg, fn, [&](ct_engine_error* err) {
        return pg.engine().recv(pg.comm(), &sent, sizeof sent, src, 2 * tag, nullptr, err);
      });
      CT_CHECK(sent == nbytes, CT_ERROR_SHAPE, fn, ": rank ", src, " sent ", sent, " bytes with tag ", tag,
               ", but this tensor (sizes ", t->sizes(), ", ", t->dtype(), ") holds ", nbytes,
               ". Receive into a tensor of the sender's sizes and dtype");
    }
    call(pg, fn, [&](ct_engine_error* err) {
      return pg.engine().recv(pg.comm(), t->data(), static_cast<size_t>(nbytes), src, payload_tag(pg, tag),
                              stream_for(pg, t), err);
    });
  }, {t}, async);
}

WorkPtr barrier(ProcessGroup& pg, bool async) {
  const char* fn = "barrier";
  return pg.run(fn, [&pg, fn] {
    agree(pg, fn, DType::UInt8, 0, -1);
    call(pg, fn, [&](ct_engine_error* err) { return pg.engine().barrier(pg.comm(), err); });
  }, std::vector<Tensor>(), async);
}

}  // namespace ct::dist
