// gloo.cpp - the "gloo" engine: CPU buffers over Gloo's TCP transport (Note [Engine modules]).
//
// Rendezvous goes through the core's store: each rank publishes its address and connects to every
// other (Gloo's full mesh). Collectives use Gloo's options API, one tag per operation: the core
// runs one operation at a time per group in the same order on every rank, so a counter gives every
// rank the same tag. Point-to-point messages use the caller's tag as Gloo's slot; collectives' slots
// carry a prefix in their top byte, so the two never meet.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/gather.h>
#include <gloo/math.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>

#include "ctorch.h"
#include "distributed/engine.h"
#include "distributed/engines/engine_util.h"

namespace {

struct Comm {
  std::shared_ptr<gloo::rendezvous::Context> context;
  std::chrono::milliseconds timeout;
  uint32_t next_tag = 0;
};

int report(ct_engine_error* err, int status, const std::string& message) {
  return ct::engine::fail(err, status, "%s", message.c_str());
}

// Note [SIGPIPE from a dead peer]
// Gloo writes to its sockets without MSG_NOSIGNAL, so a write to a rank that was killed raises
// SIGPIPE, whose default action ends the process: a C host died of its peer's death instead of
// getting CT_ERROR_DISTRIBUTED. (Python, the JVM and Rust programs ignore SIGPIPE; C programs do
// not.) The process's disposition is the host's to choose, so instead every Gloo call runs with
// SIGPIPE blocked in its thread: the write then fails with EPIPE, Gloo raises, and the SIGPIPE left
// pending for the thread is taken before the mask is restored. Gloo's I/O thread is started inside
// comm_create under the same mask and inherits it, so its writes never raise the signal either.
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlocked() {
    sigset_t pending;
    if (!sigismember(&old_, SIGPIPE) && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE)) {
      const timespec now{0, 0};
      sigtimedwait(&pipe_, nullptr, &now);
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

 private:
  sigset_t pipe_, old_;
};

/// Gloo raises on failure; a timeout says "Timed out" in its message, a closed connection does not.
template <typename F>
int guarded(ct_engine_error* err, const char* op, F&& f) {
  SigpipeBlocked no_sigpipe;  // Note [SIGPIPE from a dead peer]
  try {
    f();
    return CT_OK;
  } catch (const std::exception& e) {
    const std::string what = e.what();
    const bool timed_out = what.find("Timed out") != std::string::npos || what.find("timed out") != std::string::npos;
    return report(err, timed_out ? CT_ERROR_TIMEOUT : CT_ERROR_DISTRIBUTED,
                  std::string("gloo ") + op + (timed_out ? " did not finish within the group's timeout" : " failed") +
                      " (" + what + ")");
  }
}

/// The core's store as Gloo's: rendezvous sets each rank's address and waits for the others'.
class StoreBridge final : public gloo::rendezvous::Store {
 public:
  explicit StoreBridge(const ct_engine_store* s) : s_(s) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    ct_engine_error err{};
    if (s_->set(s_->ctx, key.c_str(), data.data(), data.size(), &err) != CT_OK) throw Failure(err);
  }
  std::vector<char> get(const std::string& key) override {
    ct_engine_error err{};
    void* value = nullptr;
    size_t n = 0;
    if (s_->get(s_->ctx, key.c_str(), &value, &n, &err) != CT_OK) throw Failure(err);
    std::vector<char> out(static_cast<char*>(value), static_cast<char*>(value) + n);
    std::free(value);
    return out;
  }
  void wait(const std::vector<std::string>& keys) override {
    for (const auto& k : keys) get(k);
  }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds&) override { wait(keys); }

  /// A store failure keeps its status (a timeout stays a timeout) through Gloo.
  struct Failure : std::exception {
    explicit Failure(const ct_engine_error& e) : err(e) {}
    const char* what() const noexcept override { return err.message; }
    ct_engine_error err;
  };

 private:
  const ct_engine_store* s_;
};

using ReduceFn = void (*)(void*, const void*, const void*, size_t);

template <typename T>
gloo::AllreduceOptions::Func reduce_fn(int op) {
  switch (op) {
    case CT_REDUCE_SUM: return static_cast<ReduceFn>(&gloo::sum<T>);
    case CT_REDUCE_PRODUCT: return static_cast<ReduceFn>(&gloo::product<T>);
    case CT_REDUCE_MIN: return static_cast<ReduceFn>(&gloo::min<T>);
    default: return static_cast<ReduceFn>(&gloo::max<T>);
  }
}

/// Gloo's reduction for a ct_dtype, or an empty function when Gloo has none (bool, int16, bfloat16).
gloo::AllreduceOptions::Func reduction(int dtype, int op) {
  switch (dtype) {
    case CT_UINT8: return reduce_fn<uint8_t>(op);
    case CT_INT8: return reduce_fn<int8_t>(op);
    case CT_INT32: return reduce_fn<int32_t>(op);
    case CT_INT64: return reduce_fn<int64_t>(op);
    case CT_FLOAT16: return reduce_fn<gloo::float16>(op);
    case CT_FLOAT32: return reduce_fn<float>(op);
    case CT_FLOAT64: return reduce_fn<double>(op);
    default: return {};
  }
}

/// Typed pointer setters of Gloo's options take T*; the bytes are what matter for moves, so every
/// dtype travels as its width of unsigned integers.
template <typename F>
void with_width(int dtype, F&& f) {
  switch (ct::engine::dtype_size(dtype)) {
    case 1: f(uint8_t{}); break;
    case 2: f(uint16_t{}); break;
    case 4: f(uint32_t{}); break;
    default: f(uint64_t{}); break;
  }
}

template <typename T>
T* typed(const void* p) { return static_cast<T*>(const_cast<void*>(p)); }

/// Reduced dtypes need their element type for the reduction function but the pointers only as
/// bytes: gloo's reduce ops take elements of the pointer type and call fn on byte-exact spans.
template <typename F>
void with_reduced_type(int dtype, F&& f) {
  switch (dtype) {
    case CT_UINT8: f(uint8_t{}); break;
    case CT_INT8: f(int8_t{}); break;
    case CT_INT32: f(int32_t{}); break;
    case CT_INT64: f(int64_t{}); break;
    case CT_FLOAT16: f(gloo::float16{}); break;
    case CT_FLOAT32: f(float{}); break;
    default: f(double{}); break;
  }
}

Comm& as_comm(void* c) { return *static_cast<Comm*>(c); }

int can_reduce(int dtype, int op) { return reduction(dtype, op) ? 1 : 0; }

int comm_create(const ct_engine_init* init, void** out, int* rank, int* size, ct_engine_error* err) {
  *out = nullptr;
  auto comm = std::make_unique<Comm>();
  comm->timeout = std::chrono::milliseconds(static_cast<int64_t>(init->timeout_seconds * 1000));
  gloo::transport::tcp::attr attr;
  // GLOO_SOCKET_IFNAME picks an interface, as for torch.distributed; otherwise the address on the
  // route to the store's host, else this host's name.
  if (const char* iface = std::getenv("GLOO_SOCKET_IFNAME"); iface && *iface) {
    attr.iface = iface;
  } else if (init->local_addr) {
    attr.hostname = init->local_addr;
  } else {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    attr.hostname = host;
  }
  StoreBridge store(init->store);
  SigpipeBlocked no_sigpipe;  // Gloo's I/O thread, started here, inherits the mask
  try {
    auto device = gloo::transport::tcp::CreateDevice(attr);
    comm->context = std::make_shared<gloo::rendezvous::Context>(init->rank, init->size);
    comm->context->setTimeout(comm->timeout);
    comm->context->connectFullMesh(store, device);
  } catch (const StoreBridge::Failure& f) {
    *err = f.err;
    return err->status;
  } catch (const std::exception& e) {
    const std::string what = e.what();
    const bool timed_out = what.find("Timed out") != std::string::npos || what.find("timed out") != std::string::npos;
    return report(err, timed_out ? CT_ERROR_TIMEOUT : CT_ERROR_DISTRIBUTED,
                  "gloo could not connect rank " + std::to_string(init->rank) + " to the other " +
                      std::to_string(init->size - 1) + " ranks (" + what + ")");
  }
  *rank = init->rank;
  *size = init->size;
  *out = comm.release();
  return CT_OK;
}

void comm_destroy(void* c) {
  SigpipeBlocked no_sigpipe;  // closing the pairs may flush to a peer that is gone
  delete static_cast<Comm*>(c);
}

int all_reduce(void* c, void* buf, size_t count, int dtype, int op, void*, ct_engine_error* err) {
  Comm& comm = as_comm(c);
  return guarded(err, "all_reduce", [&] {
    gloo::AllreduceOptions opts(comm.context);
    with_reduced_type(dtype, [&](auto t) { opts.setOutput(typed<decltype(t)>(buf), count); });
    opts.setReduceFunction(reduction(dtype, op));
    opts.setTag(comm.next_tag++);
    opts.setTimeout(comm.timeout);
    gloo::allreduce(opts);
  });
}

int broadcast(void* c, void* buf, size_t count, int dtype, int root, void*, ct_engine_error* err) {
  Comm& comm = as_comm(c);
  return guarded(err, "broadcast", [&] {
    gloo::BroadcastOptions opts(comm.context);
    with_width(dtype, [&](auto t) { opts.setOutput(typed<decltype(t)>(buf), count); });
    opts.setRoot(root);
    opts.setTag(comm.next_tag++);
    opts.setTimeout(comm.timeout);
    gloo::broadcast(opts);
  });
}

int reduce(void* c, void* buf, size_t count, int dtype, int op, int root, void*, ct_engine_error* err) {
  Comm& comm = as_comm(c);
  return guarded(err, "reduce", [&] {
    gloo::ReduceOptions opts(comm.context);
    with_reduced_type(dtype, [&](auto t) { opts.setOutput(typed<decltype(t)>(buf), count); });
    opts.setReduceFunction(reduction(dtype, op));
    opts.setRoot(root);
    opts.setTag(comm.next_tag++);
    opts.setTimeout(comm.timeout);
    gloo::reduce(opts);
  });
}

int all_gather(void* c, const void* in, void* out, size_t count, int dtype, void*, ct_engine_error* err) {
  Comm& comm = as_comm(c);
  return guarded(err, "all_gather", [&] {
    gloo::AllgatherOptions opts(comm.context);
    with_width(dtype, [&](auto t) {
      using T = decltype(t);
      opts.setInput(typed<T>(in), count);
      opts.setOutput(typed<T>(out), count * static_cast<size_t>(comm.context->size));
    });
    opts.setTag(comm.next_tag++);
    opts.setTimeout(comm.timeout);
    gloo::allgather(opts);
  });
}

/// Gloo's reduce-scatter is an old-API algorithm bound to fixed buffers; an all-reduce of a copy
/// followed by taking this rank's block gives the same result with the same reduction.
int reduce_scatter(void* c, const void* in, void* out, size_t count, int dtype, int op, void* stream,
                   ct_engine_error* err) {
  Comm& comm = as_comm(c);
  const size_t bytes = count * ct::engine::dtype_size(dtype);
  std::unique_ptr<char[]> all;
  try {
    all.reset(new char[bytes * static_cast<size_t>(comm.context->size)]);
  } catch (const std::bad_alloc&) {
    return report(err, CT_ERROR_OUT_OF_MEMORY, "gloo reduce_scatter: out of memory for its staging buffer");
  }
  std::memcpy(all.get(), in, bytes * static_cast<size_t>(comm.context->size));
  const int rc = all_reduce(c, all.get(), count * static_cast<size_t>(comm.context->size), dtype, op, stream, err);
  if (rc != CT_OK) return rc;
  std::memcpy(out, all.get() + bytes * static_cast<size_t>(comm.context->rank), bytes);
  return CT_OK;
}

int gather(void* c, const void* in, void* out, size_t count, int dtype, int root, void*, ct_engine_error* err) {
  Comm& comm = as_comm(c);
  return guarded(err, "gather", [&] {
    gloo::GatherOptions opts(comm.context);
    with_width(dtype, [&](auto t) {
      using T = decltype(t);
      opts.setInput(typed<T>(in), count);
      if (comm.context->rank == root) opts.setOutput(typed<T>(out), count * static_cast<size_t>(comm.context->size));
    });
    opts.setRoot(root);
    opts.setTag(comm.next_tag++);
    opts.setTimeout(comm.timeout);
    gloo::gather(opts);
  });
}

int scatter(void* c, const void* in, void* out, size_t count, int dtype, int root, void*, ct_engine_error* err) {
  Comm& comm = as_comm(c);
  return guarded(err, "scatter", [&] {
    gloo::ScatterOptions opts(comm.context);
    with_width(dtype, [&](auto t) {
      using T = decltype(t);
      if (comm.context->rank == root) {
        std::vector<T*> blocks;
        for (int r = 0; r < comm.context->size; ++r) blocks.push_back(typed<T>(in) + static_cast<size_t>(r) * count);
        opts.setInputs(blocks, count);
      }
      opts.setOutput(typed<T>(out), count);
    });
    opts.setRoot(root);
    opts.setTag(comm.next_tag++);
    opts.setTimeout(comm.timeout);
    gloo::scatter(opts);
  });
}

int all_to_all(void* c, const void* in, void* out, size_t count, int dtype, void*, ct_engine_error* err) {
  Comm& comm = as_comm(c);
  return guarded(err, "all_to_all", [&] {
    gloo::AlltoallOptions opts(comm.context);
    const size_t total = count * static_cast<size_t>(comm.context->size);
    with_width(dtype, [&](auto t) {
      using T = decltype(t);
      opts.setInput(typed<T>(in), total);
      opts.setOutput(typed<T>(out), total);
    });
    opts.setTag(comm.next_tag++);
    opts.setTimeout(comm.timeout);
    gloo::alltoall(opts);
  });
}

int send(void* c, const void* buf, size_t nbytes, int dst, int tag, void*, ct_engine_error* err) {
  Comm& comm = as_comm(c);
  return guarded(err, "send", [&] {
    auto ub = comm.context->createUnboundBuffer(const_cast<void*>(buf), nbytes);
    ub->send(dst, static_cast<uint64_t>(tag));
    ub->waitSend(comm.timeout);
  });
}

int recv(void* c, void* buf, size_t nbytes, int src, int tag, void*, ct_engine_error* err) {
  Comm& comm = as_comm(c);
  return guarded(err, "recv", [&] {
    auto ub = comm.context->createUnboundBuffer(buf, nbytes);
    ub->recv(src, static_cast<uint64_t>(tag));
    ub->waitRecv(comm.timeout);
  });
}

int barrier(void* c, ct_engine_error* err) {
  Comm& comm = as_comm(c);
  return guarded(err, "barrier", [&] {
    gloo::BarrierOptions opts(comm.context);
    opts.setTag(comm.next_tag++);
    opts.setTimeout(comm.timeout);
    gloo::barrier(opts);
  });
}

const ct_engine kGloo = {CT_ENGINE_ABI, "gloo",     0,          can_reduce, comm_create, comm_destroy, all_reduce,
                         broadcast,     reduce,     all_gather, reduce_scatter, gather,  scatter,      all_to_all,
                         send,          recv,       barrier,
                         1};  // a size mismatch trips GLOO_ENFORCE in Gloo's I/O thread: std::terminate

}  // namespace

extern "C" __attribute__((visibility("default"))) const ct_engine* ct_engine_get(void) { return &kGloo; }
