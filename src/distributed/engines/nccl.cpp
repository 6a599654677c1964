// nccl.cpp - the "nccl" engine: CUDA buffers through NVIDIA's NCCL. A module of its own (Note
// [Engine modules] in ../engine.h): it sees device pointers, element counts, ct_dtype values and the
// CUDA stream the core orders the operation on; it links NCCL and the CUDA runtime, never libctorch.
//
// Note [NCCL timeouts]
// A blocking NCCL communicator waits inside ncclCommInitRank for a peer that never comes, and a
// collective whose peer is gone spins on the GPU forever. So communicators are made nonblocking
// (ncclConfig_t.blocking = 0): every NCCL call returns at once, possibly ncclInProgress, and this
// file polls ncclCommGetAsyncError (and, once an operation is enqueued, cudaStreamQuery on its
// stream) until it is done or the group's timeout passes. Past the timeout it calls ncclCommAbort,
// which stops the kernels and frees the communicator, and returns CT_ERROR_TIMEOUT; the group is
// then unusable (later operations fail at once), as with torch's NCCL watchdog.
//
// Each operation waits for its stream before returning, so the core's queue sees it finished (the
// core's work handles then behave as on the CPU engines).
#include <cuda_runtime.h>
#include <nccl.h>

#include <sched.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ctorch.h"
#include "distributed/engine.h"
#include "distributed/engines/engine_util.h"

namespace {

using ct::engine::dtype_name;
using ct::engine::dtype_size;
using ct::engine::fail;

struct Comm {
  ncclComm_t comm = nullptr;
  int rank = 0;
  int size = 0;
  int device = 0;
  double timeout = 0;
  cudaStream_t own_stream = nullptr;  // for barrier, which has no stream of the core's
  float* scratch = nullptr;           // one float on the device, barrier's all-reduce
  std::string broken;                 // the operation that failed or timed out; the comm is aborted
};



const char* op_name(int op) {
  static const char* const names[] = {"sum", "product", "min", "max"};
  return op >= 0 && op <= CT_REDUCE_MAX ? names[op] : "unknown";
}

// The NCCL type a reduction of dtype runs in, or false: NCCL has no 16-bit integer type.
bool reduce_type(int dtype, ncclDataType_t* out) {
  switch (dtype) {
    case CT_BOOL: *out = ncclUint8; return true;  // values 0 and 1: see reduce_op
    case CT_UINT8: *out = ncclUint8; return true;
    case CT_INT8: *out = ncclInt8; return true;
    case CT_INT32: *out = ncclInt32; return true;
    case CT_INT64: *out = ncclInt64; return true;
    case CT_FLOAT16: *out = ncclFloat16; return true;
    case CT_BFLOAT16: *out = ncclBfloat16; return true;
    case CT_FLOAT32: *out = ncclFloat32; return true;
    case CT_FLOAT64: *out = ncclFloat64; return true;
    default: return false;
  }
}

// bool sums as a logical or (MAX) and multiplies as a logical and (MIN), as torch's NCCL backend.
bool reduce_op(int dtype, int op, ncclRedOp_t* out) {
  switch (op) {
    case CT_REDUCE_SUM: *out = dtype == CT_BOOL ? ncclMax : ncclSum; return true;
    case CT_REDUCE_PRODUCT: *out = dtype == CT_BOOL ? ncclMin : ncclProd; return true;
    case CT_REDUCE_MIN: *out = ncclMin; return true;
    case CT_REDUCE_MAX: *out = ncclMax; return true;
    default: return false;
  }
}

int can_reduce(int dtype, int op) {
  ncclDataType_t t = ncclFloat32;
  ncclRedOp_t o = ncclSum;
  return reduce_type(dtype, &t) && reduce_op(dtype, op, &o) ? 1 : 0;
}

double now_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Short spins first (a small collective finishes in microseconds), then sleeps growing to 1 ms.
struct Backoff {
  double start = now_seconds();
  unsigned polls = 0;
  double waited() const { return now_seconds() - start; }
  void pause() {
    if (++polls < 2048) {
      sched_yield();
      return;
    }
    const long ns = polls < 4096 ? 20000 : 1000000;
    timespec ts = {0, ns};
    nanosleep(&ts, nullptr);
  }
};

int cuda_fail(ct_engine_error* err, cudaError_t e, const char* what) {
  return fail(err, CT_ERROR_BACKEND, "nccl: %s: CUDA error %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

// Aborts the communicator after a failure or timeout (Note [NCCL timeouts]).
void abort_comm(Comm* c, const char* what) {
  if (c->comm) ncclCommAbort(c->comm);
  c->comm = nullptr;
  c->broken = what;
}

int nccl_fail(Comm* c, ct_engine_error* err, ncclResult_t r, const char* what) {
  const char* detail = c->comm ? ncclGetLastError(c->comm) : ncclGetLastError(nullptr);
  fail(err, CT_ERROR_DISTRIBUTED, "nccl: %s failed: %s%s%s%s", what, ncclGetErrorString(r),
       detail && *detail ? " (" : "", detail ? detail : "", detail && *detail ? ")" : "");
  if (r == ncclRemoteError || r == ncclSystemError || r == ncclInternalError) abort_comm(c, what);
  return CT_ERROR_DISTRIBUTED;
}

int timed_out(Comm* c, ct_engine_error* err, const char* what) {
  abort_comm(c, what);
  return fail(err, CT_ERROR_TIMEOUT,
              "nccl: %s did not finish within %g s; the communicator was aborted (a rank is missing or stuck: "
              "the core names it where the store can tell); destroy the group",
              what, c->timeout);
}

// Waits until the communicator has no NCCL call in progress (init, enqueue, finalize), at most the
// time left of the operation.
int wait_comm(Comm* c, Backoff& b, const char* what, ct_engine_error* err) {
  for (;;) {
    ncclResult_t state = ncclSuccess;
    ncclResult_t r = ncclCommGetAsyncError(c->comm, &state);
    if (r != ncclSuccess) return nccl_fail(c, err, r, what);
    if (state == ncclSuccess) return CT_OK;
    if (state != ncclInProgress) return nccl_fail(c, err, state, what);
    if (b.waited() > c->timeout) return timed_out(c, err, what);
    b.pause();
  }
}

// After an enqueue returned r: waits for the enqueue, then for the stream.
int finish(Comm* c, ncclResult_t r, cudaStream_t stream, const char* what, ct_engine_error* err) {
  Backoff b;
  if (r != ncclSuccess && r != ncclInProgress) return nccl_fail(c, err, r, what);
  if (int st = wait_comm(c, b, what, err)) return st;
  for (;;) {
    cudaError_t e = cudaStreamQuery(stream);
    if (e == cudaSuccess) return CT_OK;
    if (e != cudaErrorNotReady) {
      abort_comm(c, what);
      return cuda_fail(err, e, what);
    }
    // A peer's failure shows here while the kernel waits for it.
    ncclResult_t state = ncclSuccess;
    ncclCommGetAsyncError(c->comm, &state);
    if (state != ncclSuccess && state != ncclInProgress) return nccl_fail(c, err, state, what);
    if (b.waited() > c->timeout) return timed_out(c, err, what);
    b.pause();
  }
}

// Every operation starts here: a usable communicator, on its device.
int begin(Comm* c, const char* op, ct_engine_error* err) {
  if (!c->broken.empty())
    return fail(err, CT_ERROR_DISTRIBUTED,
                "nccl: %s refused: an earlier %s on this group failed or timed out and its communicator was "
                "aborted; destroy the group and make a new one", op, c->broken.c_str());
  cudaError_t e = cudaSetDevice(c->device);
  if (e != cudaSuccess) return cuda_fail(err, e, "cudaSetDevice");
  return CT_OK;
}

int check_reduce(int dtype, int op, const char* what, ncclDataType_t* t, ncclRedOp_t* o, ct_engine_error* err) {
  if (!reduce_type(dtype, t) || !reduce_op(dtype, op, o))
    return fail(err, CT_ERROR_DTYPE,
                "nccl: %s cannot reduce %s with %s; it reduces bool, uint8, int8, int32, int64, float16, "
                "bfloat16, float32 and float64 with sum, product, min and max", what, dtype_name(dtype),
                op_name(op));
  return CT_OK;
}

int comm_create(const ct_engine_init* init, void** out, int* rank, int* size, ct_engine_error* err) {
  *out = nullptr;
  if (!init->store)
    return fail(err, CT_ERROR_INVALID_ARGUMENT, "nccl: a communicator needs the rendezvous store (none was given)");
  if (init->rank < 0 || init->size < 1 || init->rank >= init->size)
    return fail(err, CT_ERROR_INVALID_ARGUMENT, "nccl: rank %d of %d is not a place in a group", init->rank,
                init->size);
  int devices = 0;
  cudaError_t ce = cudaGetDeviceCount(&devices);
  if (ce != cudaSuccess || devices == 0)
    return fail(err, CT_ERROR_DEVICE,
                "nccl: this process sees no CUDA device (%s); the nccl backend needs one GPU per rank: use gloo "
                "or mpi for CPU tensors", ce != cudaSuccess ? cudaGetErrorString(ce) : "cudaGetDeviceCount gave 0");
  if (init->device < 0)
    return fail(err, CT_ERROR_DEVICE, "nccl: no CUDA device was given for rank %d (device %d)", init->rank,
                init->device);
  if (init->device >= devices)
    return fail(err, CT_ERROR_DEVICE, "nccl: CUDA device %d does not exist (this process sees %d)", init->device,
                devices);
  ce = cudaSetDevice(init->device);
  if (ce != cudaSuccess) return cuda_fail(err, ce, "cudaSetDevice");

  // Rank 0 makes the id and publishes it; the others wait for it (at most the timeout).
  ncclUniqueId id;
  if (init->rank == 0) {
    ncclResult_t r = ncclGetUniqueId(&id);
    if (r != ncclSuccess)
      return fail(err, CT_ERROR_DISTRIBUTED, "nccl: ncclGetUniqueId failed: %s", ncclGetErrorString(r));
    if (int st = init->store->set(init->store->ctx, "nccl_id", &id, sizeof id, err)) return st;
  } else {
    void* value = nullptr;
    size_t n = 0;
    if (int st = init->store->get(init->store->ctx, "nccl_id", &value, &n, err)) return st;
    if (n != sizeof id) {
      free(value);
      return fail(err, CT_ERROR_DISTRIBUTED,
                  "nccl: the store's nccl_id has %zu bytes, not %zu; every rank must run the same NCCL", n,
                  sizeof id);
    }
    memcpy(&id, value, sizeof id);
    free(value);
  }

  Comm* c = new Comm;
  c->rank = init->rank;
  c->size = init->size;
  c->device = init->device;
  c->timeout = init->timeout_seconds > 0 ? init->timeout_seconds : 1800;
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclResult_t r = ncclCommInitRankConfig(&c->comm, c->size, id, c->rank, &config);
  int st = CT_OK;
  if (r != ncclSuccess && r != ncclInProgress) {
    st = nccl_fail(c, err, r, "ncclCommInitRankConfig");
  } else {
    Backoff b;
    st = wait_comm(c, b, "ncclCommInitRankConfig (the ranks meeting)", err);
  }
  if (st == CT_OK) {
    ce = cudaStreamCreateWithFlags(&c->own_stream, cudaStreamNonBlocking);
    if (ce == cudaSuccess) ce = cudaMalloc(reinterpret_cast<void**>(&c->scratch), sizeof(float));
    if (ce != cudaSuccess) st = cuda_fail(err, ce, "the barrier's stream and buffer");
  }
  if (st != CT_OK) {
    if (c->comm) ncclCommAbort(c->comm);
    if (c->scratch) cudaFree(c->scratch);
    if (c->own_stream) cudaStreamDestroy(c->own_stream);
    delete c;
    return st;
  }
  *out = c;
  *rank = c->rank;
  *size = c->size;
  return CT_OK;
}

void comm_destroy(void* comm) {
  Comm* c = static_cast<Comm*>(comm);
  if (!c) return;
  cudaSetDevice(c->device);
  if (c->comm) {
    // Finalize flushes the communicator's operations; bounded by the timeout, then abort.
    ncclResult_t r = ncclCommFinalize(c->comm);
    ct_engine_error err{};
    Backoff b;
    if ((r == ncclSuccess || r == ncclInProgress) && wait_comm(c, b, "ncclCommFinalize", &err) == CT_OK)
      ncclCommDestroy(c->comm);
    else if (c->comm)
      ncclCommAbort(c->comm);
  }
  if (c->scratch) cudaFree(c->scratch);
  if (c->own_stream) cudaStreamDestroy(c->own_stream);
  delete c;
}

int all_reduce(void* comm, void* buf, size_t count, int dtype, int op, void* stream, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  ncclDataType_t t = ncclFloat32;
  ncclRedOp_t o = ncclSum;
  if (int st = begin(c, "all_reduce", err)) return st;
  if (int st = check_reduce(dtype, op, "all_reduce", &t, &o, err)) return st;
  char what[160];
  snprintf(what, sizeof what, "all_reduce (%s) of %zu %s elements", op_name(op), count, dtype_name(dtype));
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  return finish(c, ncclAllReduce(buf, buf, count, t, o, c->comm, s), s, what, err);
}

int broadcast(void* comm, void* buf, size_t count, int dtype, int root, void* stream, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = begin(c, "broadcast", err)) return st;
  char what[160];
  snprintf(what, sizeof what, "broadcast of %zu %s elements from rank %d", count, dtype_name(dtype), root);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  // Data that only moves goes as bytes, so every dtype moves bit for bit.
  return finish(c, ncclBroadcast(buf, buf, count * dtype_size(dtype), ncclUint8, root, c->comm, s), s, what, err);
}

int reduce(void* comm, void* buf, size_t count, int dtype, int op, int root, void* stream, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  ncclDataType_t t = ncclFloat32;
  ncclRedOp_t o = ncclSum;
  if (int st = begin(c, "reduce", err)) return st;
  if (int st = check_reduce(dtype, op, "reduce", &t, &o, err)) return st;
  char what[160];
  snprintf(what, sizeof what, "reduce (%s) of %zu %s elements to rank %d", op_name(op), count, dtype_name(dtype),
           root);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  return finish(c, ncclReduce(buf, buf, count, t, o, root, c->comm, s), s, what, err);
}

int all_gather(void* comm, const void* in, void* out, size_t count, int dtype, void* stream, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = begin(c, "all_gather", err)) return st;
  char what[160];
  snprintf(what, sizeof what, "all_gather of %zu %s elements per rank", count, dtype_name(dtype));
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  return finish(c, ncclAllGather(in, out, count * dtype_size(dtype), ncclUint8, c->comm, s), s, what, err);
}

int reduce_scatter(void* comm, const void* in, void* out, size_t count, int dtype, int op, void* stream,
                   ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  ncclDataType_t t = ncclFloat32;
  ncclRedOp_t o = ncclSum;
  if (int st = begin(c, "reduce_scatter", err)) return st;
  if (int st = check_reduce(dtype, op, "reduce_scatter", &t, &o, err)) return st;
  char what[160];
  snprintf(what, sizeof what, "reduce_scatter (%s) of %zu %s elements per rank", op_name(op), count,
           dtype_name(dtype));
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  return finish(c, ncclReduceScatter(in, out, count, t, o, c->comm, s), s, what, err);
}

// gather, scatter and all_to_all are point-to-point transfers in one NCCL group; a rank's own
// block is a device copy on the same stream.
int grouped(Comm* c, cudaStream_t s, const char* what, ct_engine_error* err, size_t bytes, const char* send_base,
            bool send_all, int send_to, char* recv_base, bool recv_all, int recv_from) {
  ncclResult_t r = ncclGroupStart();
  for (int peer = 0; peer < c->size && r == ncclSuccess; ++peer) {
    if (peer == c->rank) continue;
    if (send_base && (send_all || peer == send_to))
      r = ncclSend(send_base + (send_all ? bytes * static_cast<size_t>(peer) : 0), bytes, ncclUint8, peer, c->comm, s);
    if (r == ncclSuccess && recv_base && (recv_all || peer == recv_from))
      r = ncclRecv(recv_base + (recv_all ? bytes * static_cast<size_t>(peer) : 0), bytes, ncclUint8, peer, c->comm, s);
  }
  ncclResult_t end = ncclGroupEnd();
  if (r == ncclSuccess) r = end;
  return finish(c, r, s, what, err);
}

int copy_own(Comm* c, void* dst, const void* src, size_t bytes, cudaStream_t s, const char* what,
             ct_engine_error* err) {
  if (dst == src || bytes == 0) return CT_OK;
  cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s);
  return e == cudaSuccess ? CT_OK : cuda_fail(err, e, what);
}

int gather(void* comm, const void* in, void* out, size_t count, int dtype, int root, void* stream,
           ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = begin(c, "gather", err)) return st;
  char what[160];
  snprintf(what, sizeof what, "gather of %zu %s elements per rank to rank %d", count, dtype_name(dtype), root);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const size_t bytes = count * dtype_size(dtype);
  if (c->rank == root) {
    char* o = static_cast<char*>(out);
    if (int st = copy_own(c, o + bytes * static_cast<size_t>(root), in, bytes, s, what, err)) return st;
    return grouped(c, s, what, err, bytes, nullptr, false, -1, o, true, -1);
  }
  return grouped(c, s, what, err, bytes, static_cast<const char*>(in), false, root, nullptr, false, -1);
}

int scatter(void* comm, const void* in, void* out, size_t count, int dtype, int root, void* stream,
            ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = begin(c, "scatter", err)) return st;
  char what[160];
  snprintf(what, sizeof what, "scatter of %zu %s elements per rank from rank %d", count, dtype_name(dtype), root);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const size_t bytes = count * dtype_size(dtype);
  if (c->rank == root) {
    const char* i = static_cast<const char*>(in);
    if (int st = copy_own(c, out, i + bytes * static_cast<size_t>(root), bytes, s, what, err)) return st;
    return grouped(c, s, what, err, bytes, i, true, -1, nullptr, false, -1);
  }
  return grouped(c, s, what, err, bytes, nullptr, false, -1, static_cast<char*>(out), false, root);
}

int all_to_all(void* comm, const void* in, void* out, size_t count, int dtype, void* stream, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = begin(c, "all_to_all", err)) return st;
  char what[160];
  snprintf(what, sizeof what, "all_to_all of %zu %s elements per rank", count, dtype_name(dtype));
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const size_t bytes = count * dtype_size(dtype);
  const size_t own = bytes * static_cast<size_t>(c->rank);
  if (int st = copy_own(c, static_cast<char*>(out) + own, static_cast<const char*>(in) + own, bytes, s, what, err))
    return st;
  return grouped(c, s, what, err, bytes, static_cast<const char*>(in), true, -1, static_cast<char*>(out), true, -1);
}

int check_peer(Comm* c, const char* op, int peer, ct_engine_error* err) {
  if (peer < 0 || peer >= c->size || peer == c->rank)
    return fail(err, CT_ERROR_INVALID_ARGUMENT, "nccl: %s with peer rank %d in a group of %d where this is rank %d",
                op, peer, c->size, c->rank);
  return CT_OK;
}

// NCCL has no tags: messages between two ranks match in the order they were sent (as in torch's
// NCCL backend), so the tag is not used.
int send(void* comm, const void* buf, size_t nbytes, int dst, int, void* stream, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = begin(c, "send", err)) return st;
  if (int st = check_peer(c, "send", dst, err)) return st;
  char what[160];
  snprintf(what, sizeof what, "send of %zu bytes to rank %d", nbytes, dst);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  return finish(c, ncclSend(buf, nbytes, ncclUint8, dst, c->comm, s), s, what, err);
}

int recv(void* comm, void* buf, size_t nbytes, int src, int, void* stream, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = begin(c, "recv", err)) return st;
  if (int st = check_peer(c, "recv", src, err)) return st;
  char what[160];
  snprintf(what, sizeof what, "recv of %zu bytes from rank %d", nbytes, src);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  return finish(c, ncclRecv(buf, nbytes, ncclUint8, src, c->comm, s), s, what, err);
}

// A barrier is an all-reduce of one float on the group's own stream (as torch's NCCL backend does).
int barrier(void* comm, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = begin(c, "barrier", err)) return st;
  return finish(c, ncclAllReduce(c->scratch, c->scratch, 1, ncclFloat32, ncclSum, c->comm, c->own_stream),
                c->own_stream, "barrier", err);
}

const ct_engine kEngine = {
    CT_ENGINE_ABI, "nccl", 1, can_reduce, comm_create, comm_destroy, all_reduce, broadcast, reduce, all_gather,
    reduce_scatter, gather, scatter, all_to_all, send, recv, barrier,
    0,  // a mismatch hangs until the timeout aborts the communicator
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const ct_engine* ct_engine_get(void) { return &kEngine; }
