// distributed.cpp - the ct_dist_* and ct_work_* functions: handles and arguments around
// src/distributed.
#include <memory>

#include "capi/handle.h"
#include "capi/tagged_handle.h"
#include "distributed/collectives.h"
#include "distributed/engine_loader.h"

using namespace ct;
using ct::dist::ProcessGroup;
using ct::dist::ReduceOp;
using ct::dist::Work;

struct ct_process_group {
  uint32_t tag;
  std::shared_ptr<ProcessGroup> pg;
};

struct ct_work {
  uint32_t tag;
  std::shared_ptr<Work> work;
  double timeout;  // the group's, for a wait given none
};

namespace {

constexpr uint32_t kGroupTag = 0x44495354;  // "DIST"
constexpr uint32_t kWorkTag = 0x574f524b;   // "WORK"

ProcessGroup& group_arg(const ct_process_group* pg, const char* fn) {
  return *capi::live_tagged(const_cast<ct_process_group*>(pg), kGroupTag, fn, "pg").pg;
}

ReduceOp reduce_op_arg(ct_reduce_op op, const char* fn) {
  const int v = capi::raw_enum(op);
  CT_CHECK(v >= CT_REDUCE_SUM && v <= CT_REDUCE_AVG, CT_ERROR_INVALID_ARGUMENT, fn, ": op ", v,
           " is not a ct_reduce_op (SUM, PRODUCT, MIN, MAX or AVG)");
  return static_cast<ReduceOp>(v);
}

Tensor tensor_of(const ct_tensor* t, const char* fn, const char* arg) { return Tensor::borrow(&capi::tensor_arg(t, fn, arg)); }

std::vector<Tensor> list_of(const ct_tensor* const* ts, size_t n, const char* fn, const char* arg) {
  return capi::tensor_list(ts, n, fn, arg, false);
}

/// Runs a collective: work NULL waits for it; otherwise *work receives the queued operation.
template <typename F>
ct_status collective(const ct_process_group* pg, ct_work** work, const char* fn, F&& body) {
  return capi::guard([&] {
    if (work) *work = nullptr;
    ProcessGroup& g = group_arg(pg, fn);
    std::shared_ptr<Work> w = body(g, work != nullptr);
    if (work) {
      ct_work* h = capi::new_tagged<ct_work>(kWorkTag);
      h->work = std::move(w);
      h->timeout = g.timeout();
      *work = h;
    }
  });
}

}  // namespace

extern "C" {

ct_status ct_dist_is_backend_available(const char* backend, int* out) {
  return capi::guard([&] {
    capi::require_out(out, "ct_dist_is_backend_available", "out");
    *out = 0;
    CT_CHECK(backend, CT_ERROR_INVALID_ARGUMENT, "ct_dist_is_backend_available: backend is NULL");
    try {
      dist::load_engine(backend);
      *out = 1;
    } catch (const Error& e) {
      if (e.status() != CT_ERROR_BACKEND) throw;
      capi::explain_answer(e.message());  // why it is 0
    }
  });
}

ct_status ct_dist_init_process_group(const char* backend, const char* init_method, int rank, int world_size,
                                     double timeout_seconds, ct_process_group** out) {
  return capi::guard([&] {
    capi::require_out(out, "ct_dist_init_process_group", "out");
    *out = nullptr;
    CT_CHECK(backend, CT_ERROR_INVALID_ARGUMENT, "ct_dist_init_process_group: backend is NULL; pass \"gloo\", "
             "\"mpi\" or \"nccl\"");
    auto pg = ProcessGroup::init(backend, init_method, rank, world_size, timeout_seconds);
    ct_process_group* h = capi::new_tagged<ct_process_group>(kGroupTag);
    h->pg = std::move(pg);
    *out = h;
  });
}

ct_status ct_dist_new_group(ct_process_group* pg, const int* ranks, size_t n_ranks, double timeout_seconds,
                            ct_process_group** out) {
  return capi::guard([&] {
    const char* fn = "ct_dist_new_group";
    capi::require_out(out, fn, "out");
    *out = nullptr;
    ProcessGroup& g = group_arg(pg, fn);
    CT_CHECK(ranks || n_ranks == 0, CT_ERROR_INVALID_ARGUMENT, fn, ": ranks is NULL with n_ranks ", n_ranks);
    CT_CHECK(n_ranks <= 1u << 24, CT_ERROR_INVALID_ARGUMENT, fn, ": n_ranks ", n_ranks, " is too large");
    auto sub = g.new_group(std::vector<int>(ranks, ranks + n_ranks), timeout_seconds);
    ct_process_group* h = capi::new_tagged<ct_process_group>(kGroupTag);
    h->pg = std::move(sub);
    *out = h;
  });
}

void ct_process_group_destroy(ct_process_group* pg) {
  if (!capi::is_live_tagged(pg, kGroupTag)) return;
  pg->pg->destroy();
  capi::free_tagged(pg);
}

ct_status ct_dist_get_rank(const ct_process_group* pg, int* out) {
  return capi::guard([&] {
    capi::require_out(out, "ct_dist_get_rank", "out");
    *out = group_arg(pg, "ct_dist_get_rank").rank();
  });
}

ct_status ct_dist_get_world_size(const ct_process_group* pg, int* out) {
  return capi::guard([&] {
    capi::require_out(out, "ct_dist_get_world_size", "out");
    *out = group_arg(pg, "ct_dist_get_world_size").size();
  });
}

ct_status ct_dist_get_backend(const ct_process_group* pg, const char** out) {
  return capi::guard([&] {
    capi::require_out(out, "ct_dist_get_backend", "out");
    *out = nullptr;
    *out = group_arg(pg, "ct_dist_get_backend").engine().name;
  });
}

ct_status ct_dist_all_reduce(ct_process_group* pg, ct_tensor* t, ct_reduce_op op, ct_work** work) {
  const char* fn = "ct_dist_all_reduce";
  return collective(pg, work, fn, [&](ProcessGroup& g, bool async) {
    return dist::all_reduce(g, tensor_of(t, fn, "t"), reduce_op_arg(op, fn), async);
  });
}

ct_status ct_dist_broadcast(ct_process_group* pg, ct_tensor* t, int src, ct_work** work) {
  const char* fn = "ct_dist_broadcast";
  return collective(pg, work, fn, [&](ProcessGroup& g, bool async) {
    return dist::broadcast(g, tensor_of(t, fn, "t"), src, async);
  });
}

ct_status ct_dist_reduce(ct_process_group* pg, ct_tensor* t, int dst, ct_reduce_op op, ct_work** work) {
  const char* fn = "ct_dist_reduce";
  return collective(pg, work, fn, [&](ProcessGroup& g, bool async) {
    return dist::reduce(g, tensor_of(t, fn, "t"), dst, reduce_op_arg(op, fn), async);
  });
}

ct_status ct_dist_all_gather(ct_process_group* pg, ct_tensor* const* outputs, size_t n_outputs, const ct_tensor* input,
                             ct_work** work) {
  const char* fn = "ct_dist_all_gather";
  return collective(pg, work, fn, [&](ProcessGroup& g, bool async) {
    return dist::all_gather(g, list_of(outputs, n_outputs, fn, "outputs"), tensor_of(input, fn, "input"), async);
  });
}

ct_status ct_dist_all_gather_into_tensor(ct_process_group* pg, ct_tensor* output, const ct_tensor* input,
                                         ct_work** work) {
  const char* fn = "ct_dist_all_gather_into_tensor";
  return collective(pg, work, fn, [&](ProcessGroup& g, bool async) {
    return dist::all_gather_into_tensor(g, tensor_of(output, fn, "output"), tensor_of(input, fn, "input"), async);
  });
}

ct_status ct_dist_reduce_scatter(ct_process_group* pg, ct_tensor* output, const ct_tensor* const* inputs,
                                 size_t n_inputs, ct_reduce_op op, ct_work** work) {
  const char* fn = "ct_dist_reduce_scatter";
  return collective(pg, work, fn, [&](ProcessGroup& g, bool async) {
    return dist::reduce_scatter(g, tensor_of(output, fn, "output"), list_of(inputs, n_inputs, fn, "inputs"),
                                reduce_op_arg(op, fn), async);
  });
}

ct_status ct_dist_reduce_scatter_tensor(ct_process_group* pg, ct_tensor* output, const ct_tensor* input,
                                        ct_reduce_op op, ct_work** work) {
  const char* fn = "ct_dist_reduce_scatter_tensor";
  return collective(pg, work, fn, [&](ProcessGroup& g, bool async) {
    return dist::reduce_scatter_tensor(g, tensor_of(output, fn, "output"), tensor_of(input, fn, "input"),
                                       reduce_op_arg(op, fn), async);
  });
}

ct_status ct_dist_gather(ct_process_group* pg, const ct_tensor* input, ct_tensor* const* outputs, size_t n_outputs,
                         int dst, ct_work** work) {
  const char* fn = "ct_dist_gather";
  return collective(pg, work, fn, [&](ProcessGroup& g, bool async) {
    return dist::gather(g, tensor_of(input, fn, "input"), list_of(outputs, n_outputs, fn, "outputs"), dst, async);
  });
}

ct_status ct_dist_scatter(ct_process_group* pg, ct_tensor* output, const ct_tensor* const* inputs, size_t n_inputs,
                          int src, ct_work** work) {
  const char* fn = "ct_dist_scatter";
  return collective(pg, work, fn, [&](ProcessGroup& g, bool async) {
    return dist::scatter(g, tensor_of(output, fn, "output"), list_of(inputs, n_inputs, fn, "inputs"), src, async);
  });
}

ct_status ct_dist_all_to_all(ct_process_group* pg, ct_tensor* const* outputs, const ct_tensor* const* inputs, size_t n,
                             ct_work** work) {
  const char* fn = "ct_dist_all_to_all";
  return collective(pg, work, fn, [&](ProcessGroup& g, bool async) {
    return dist::all_to_all(g, list_of(outputs, n, fn, "outputs"), list_of(inputs, n, fn, "inputs"), async);
  });
}

ct_status ct_dist_all_to_all_single(ct_process_group* pg, ct_tensor* output, const ct_tensor* input, ct_work** work) {
  const char* fn = "ct_dist_all_to_all_single";
  return collective(pg, work, fn, [&](ProcessGroup& g, bool async) {
    return dist::all_to_all_single(g, tensor_of(output, fn, "output"), tensor_of(input, fn, "input"), async);
  });
}

ct_status ct_dist_send(ct_process_group* pg, const ct_tensor* t, int dst, int tag, ct_work** work) {
  const char* fn = "ct_dist_send";
  return collective(pg, work, fn, [&](ProcessGroup& g, bool async) {
    return dist::send(g, tensor_of(t, fn, "t"), dst, tag, async);
  });
}

ct_status ct_dist_recv(ct_process_group* pg, ct_tensor* t, int src, int tag, ct_work** work) {
  const char* fn = "ct_dist_recv";
  return collective(pg, work, fn, [&](ProcessGroup& g, bool async) {
    return dist::recv(g, tensor_of(t, fn, "t"), src, tag, async);
  });
}

ct_status ct_dist_barrier(ct_process_group* pg, ct_work** work) {
  return collective(pg, work, "ct_dist_barrier", [&](ProcessGroup& g, bool async) { return dist::barrier(g, async); });
}

ct_status ct_work_wait(ct_work* w, double timeout_seconds) {
  return capi::guard([&] {
    ct_work& h = capi::live_tagged(w, kWorkTag, "ct_work_wait", "w");
    std::string message;
    const ct_status s = h.work->wait(timeout_seconds > 0 ? timeout_seconds : h.timeout, &message);
    if (s != CT_OK) fail(s, message);
  });
}

ct_status ct_work_is_completed(ct_work* w, int* out) {
  return capi::guard([&] {
    capi::require_out(out, "ct_work_is_completed", "out");
    *out = capi::live_tagged(w, kWorkTag, "ct_work_is_completed", "w").work->completed() ? 1 : 0;
  });
}

void ct_work_release(ct_work* w) { capi::release_single_tagged(w, kWorkTag); }

}  // extern "C"
