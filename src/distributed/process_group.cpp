// process_group.cpp - rendezvous (init methods, the environment), sub-groups, the queue, and the
// errors that name missing ranks.
#include "distributed/process_group.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <set>
#include <system_error>

#include "core/error.h"
#include "cuda/context.h"
#include "runtime/defaults.h"
#include "distributed/engine_loader.h"
#include "train/no_record.h"

namespace ct::dist {
namespace {

constexpr double kDefaultTimeoutSeconds = 1800;  // torch's default for gloo

/// The integer environment variable name, or CT_ERROR_INVALID_ARGUMENT saying what to set.
int int_from_env(const char* name, const char* what) {
  const char* v = std::getenv(name);
  CT_CHECK(v && *v, CT_ERROR_INVALID_ARGUMENT, "init_process_group: ", what, " was not given and ", name,
           " is not set. Pass it, or launch with `python -m ctorch.distributed.run`, torchrun or mpirun, which set it");
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  CT_CHECK(end && *end == '\0' && x >= 0 && x < (1 << 24), CT_ERROR_INVALID_ARGUMENT, "init_process_group: ", name,
           "='", v, "' is not a valid ", what);
  return static_cast<int>(x);
}

/// rank or world_size as given, else from the environment: RANK / WORLD_SIZE as torchrun sets them,
/// else Open MPI's launcher's.
int from_env(int given, const char* name, const char* mpi_name, const char* what) {
  if (given >= 0) return given;
  if (!std::getenv(name) && std::getenv(mpi_name)) return int_from_env(mpi_name, what);
  return int_from_env(name, what);
}

std::string string_from_env(const char* name) {
  const char* v = std::getenv(name);
  CT_CHECK(v && *v, CT_ERROR_INVALID_ARGUMENT, "init_process_group: init_method env:// needs ", name,
           " (the address and port of rank 0's store). Set MASTER_ADDR and MASTER_PORT, or pass tcp://HOST:PORT");
  return v;
}

int port_of(const std::string& s, const char* where) {
  char* end = nullptr;
  const long p = std::strtol(s.c_str(), &end, 10);
  CT_CHECK(!s.empty() && end && *end == '\0' && p > 0 && p < 65536, CT_ERROR_INVALID_ARGUMENT,
           "init_process_group: port '", s, "' from ", where, " is not a port number in [1, 65535]");
  return static_cast<int>(p);
}

/// This host's address on the route to host: a UDP socket "connected" there sends nothing, but the
/// kernel picks the interface, and getsockname reads its address (127.0.0.1 when host is this one).
/// Empty when host does not resolve.
std::string local_address_towards(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), "9", &hints, &res) != 0) return {};
  std::string out;
  for (addrinfo* a = res; a && out.empty(); a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    sockaddr_storage local{};
    socklen_t len = sizeof local;
    char text[INET6_ADDRSTRLEN] = {};
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0 &&
        ::getnameinfo(reinterpret_cast<sockaddr*>(&local), len, text, sizeof text, nullptr, 0, NI_NUMERICHOST) == 0)
      out = text;
    ::close(fd);
  }
  ::freeaddrinfo(res);
  return out;
}

/// The CUDA device this rank's nccl communicator uses: the thread's current device when it is a CUDA
/// one (torch.cuda.set_device), else LOCAL_RANK's (one GPU per rank, as launchers arrange), else 0.
/// CT_ERROR_DEVICE when the process sees no CUDA device.
int nccl_device() {
  const int count = cuda::device_count();
  CT_CHECK(count > 0, CT_ERROR_DEVICE, "init_process_group: the nccl backend needs a CUDA GPU for each rank, and "
           "this process sees none (", cuda::unavailable_reason(), "). Use the gloo backend for CPU tensors");
  const Device current = runtime::current_device();
  if (current.type == DeviceType::CUDA) return current.index >= 0 ? current.index : 0;
  if (const char* local = std::getenv("LOCAL_RANK"); local && *local) return std::atoi(local) % count;
  return 0;
}

/// The C view of a Store that an engine's comm_create uses during rendezvous.
struct StoreAdapter {
  Store* store;
  double timeout;
  ct_engine_store c;

  StoreAdapter(Store* s, double t) : store(s), timeout(t) {
    c.ctx = this;
    c.set = [](void* ctx, const char* key, const void* value, size_t n, ct_engine_error* err) -> int {
      auto* self = static_cast<StoreAdapter*>(ctx);
      try {
        self->store->set(key, std::string(static_cast<const char*>(value), n));
        return CT_OK;
      } catch (const Error& e) {
        return report(err, e.status(), e.message());
      } catch (const std::exception& e) {
        return report(err, CT_ERROR_INTERNAL, e.what());
      }
    };
    c.get = [](void* ctx, const char* key, void** value, size_t* n, ct_engine_error* err) -> int {
      auto* self = static_cast<StoreAdapter*>(ctx);
      try {
        const std::string v = self->store->get(key, self->timeout);
        void* p = std::malloc(v.size() ? v.size() : 1);
        if (!p) return report(err, CT_ERROR_OUT_OF_MEMORY, "store get: out of memory");
        std::memcpy(p, v.data(), v.size());
        *value = p;
        *n = v.size();
        return CT_OK;
      } catch (const Error& e) {
        return report(err, e.status(), e.message());
      } catch (const std::exception& e) {
        return report(err, CT_ERROR_INTERNAL, e.what());
      }
    };
  }

  static int report(ct_engine_error* err, ct_status s, const std::string& m) {
    err->status = s;
    std::snprintf(err->message, sizeof err->message, "%s", m.c_str());
    return s;
  }
};

}  // namespace

// ---- Work ----

ct_status Work::wait(double timeout_seconds, std::string* message) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_for(lock, std::chrono::duration<double>(timeout_seconds), [&] { return done_; })) {
    *message = str("wait: the operation did not finish within ", timeout_seconds,
                   " s; it goes on. Wait again, or destroy the group");
    return CT_ERROR_TIMEOUT;
  }
  *message = message_;
  return status_;
}

bool Work::completed() {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

void Work::finish(ct_status status, std::string message) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    status_ = status;
    message_ = std::move(message);
    done_ = true;
    keep.clear();  // the tensors may go now
  }
  cv_.notify_all();
}

// ---- ProcessGroup ----

std::shared_ptr<ProcessGroup> ProcessGroup::init(const std::string& backend, const char* init_method, int rank,
                                                 int world_size, double timeout_seconds) {
  const ct_engine& engine = load_engine(backend);
  std::shared_ptr<ProcessGroup> pg(new ProcessGroup());
  pg->engine_ = &engine;
  pg->timeout_ = timeout_seconds > 0 ? timeout_seconds : kDefaultTimeoutSeconds;
  ct_engine_init init{};
  init.timeout_seconds = pg->timeout_;
  init.device = -1;
  init.rank = init.size = -1;
  std::unique_ptr<StoreAdapter> adapter;
  if (backend != "mpi") {
    const std::string method = init_method && *init_method ? init_method : "env://";
    init.rank = from_env(rank, "RANK", "OMPI_COMM_WORLD_RANK", "rank");
    init.size = from_env(world_size, "WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "world_size");
    CT_CHECK(init.size >= 1 && init.rank < init.size, CT_ERROR_INVALID_ARGUMENT, "init_process_group: rank ",
             init.rank, " is not in [0, world_size ", init.size, ")");
    if (method == "env://") {
      pg->host_ = string_from_env("MASTER_ADDR");
      pg->store_ = tcp_store(pg->host_, port_of(string_from_env("MASTER_PORT"), "MASTER_PORT"), init.rank, init.size,
                             pg->timeout_);
    } else if (method.rfind("tcp://", 0) == 0) {
      const std::string hp = method.substr(6);
      const size_t colon = hp.rfind(':');
      CT_CHECK(colon != std::string::npos && colon > 0, CT_ERROR_INVALID_ARGUMENT, "init_process_group: init_method '",
               method, "' has no port; write tcp://HOST:PORT");
      std::string host = hp.substr(0, colon);
      if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
      pg->host_ = host;
      pg->store_ = tcp_store(host, port_of(hp.substr(colon + 1), "init_method"), init.rank, init.size, pg->timeout_);
    } else if (method.rfind("file://", 0) == 0) {
      pg->store_ = file_store(method.substr(7));
    } else {
      fail(CT_ERROR_INVALID_ARGUMENT, str("init_process_group: unknown init_method '", method,
                                          "'. Use env://, tcp://HOST:PORT or file:///PATH"));
    }
    pg->store_ = prefix_store(pg->store_, "world/");
    adapter = std::make_unique<StoreAdapter>(pg->store_.get(), pg->timeout_);
    init.store = &adapter->c;
    if (engine.device_type == 1) pg->device_ = init.device = nccl_device();
    if (!pg->host_.empty()) pg->local_addr_ = local_address_towards(pg->host_);
    init.local_addr = pg->local_addr_.empty() ? nullptr : pg->local_addr_.c_str();
  } else {
    init.rank = rank;
    init.size = world_size;
  }
  auto set_members = [&](int size) {
    pg->world_size_ = size;
    pg->members_.resize(static_cast<size_t>(size));
    for (int r = 0; r < size; ++r) pg->members_[static_cast<size_t>(r)] = r;
  };
  if (init.size > 0) set_members(init.size);  // a failed rendezvous names its missing ranks
  ct_engine_error err{};
  if (engine.comm_create(&init, &pg->comm_, &pg->rank_, &pg->size_, &err) != CT_OK)
    pg->raise_engine_error("init_process_group", err);
  set_members(pg->size_);
  pg->await_members("init_process_group");
  return pg;
}

std::shared_ptr<ProcessGroup> ProcessGroup::new_group(const std::vector<int>& ranks, double timeout_seconds) {
  CT_CHECK(!destroyed_, CT_ERROR_INVALID_ARGUMENT, "new_group: the parent group was destroyed");
  CT_CHECK(is_member(), CT_ERROR_INVALID_ARGUMENT,
           "new_group: this process is not a member of the parent group; make sub-groups from the world group");
  std::set<int> seen;
  for (int r : ranks) {
    CT_CHECK(r >= 0 && r < size_, CT_ERROR_INVALID_ARGUMENT, "new_group: rank ", r, " is not in [0, ", size_,
             ") (the parent group's size)");
    CT_CHECK(seen.insert(r).second, CT_ERROR_INVALID_ARGUMENT, "new_group: rank ", r, " is listed twice");
  }
  CT_CHECK(!ranks.empty(), CT_ERROR_INVALID_ARGUMENT, "new_group: the list of ranks is empty");
  const int id = next_group_++;  // every rank of the parent counts its new_group calls alike
  std::shared_ptr<ProcessGroup> g(new ProcessGroup());
  g->engine_ = engine_;
  g->timeout_ = timeout_seconds > 0 ? timeout_seconds : timeout_;
  g->world_size_ = world_size_;
  g->size_ = static_cast<int>(ranks.size());
  for (int r : ranks) g->members_.push_back(members_[static_cast<size_t>(r)]);
  const auto me = std::find(ranks.begin(), ranks.end(), rank_);
  if (me == ranks.end()) return g;  // not a member: rank -1, no communicator
  const int my_rank = static_cast<int>(me - ranks.begin());
  std::unique_ptr<StoreAdapter> adapter;
  ct_engine_init init{};
  init.rank = my_rank;
  init.size = g->size_;
  init.timeout_seconds = g->timeout_;
  init.parent = comm_;
  init.ranks = ranks.data();
  init.n_ranks = g->size_;
  init.device = g->device_ = device_;
  if (store_) {
    g->store_ = prefix_store(store_, str("group", id, "/"));
    adapter = std::make_unique<StoreAdapter>(g->store_.get(), g->timeout_);
    init.store = &adapter->c;
    g->host_ = host_;
    g->local_addr_ = local_addr_;
    init.local_addr = g->local_addr_.empty() ? nullptr : g->local_addr_.c_str();
  }
  ct_engine_error err{};
  // Through the parent's queue: an MPI sub-communicator is made by a collective over the parent.
  run("new_group", [&] {
    if (engine_->comm_create(&init, &g->comm_, &g->rank_, &g->size_, &err) != CT_OK) g->raise_engine_error("new_group", err);
  }, std::vector<Tensor>(), false);
  g->await_members("new_group");
  return g;
}

// Note [Joining ends together]
// An engine's rendezvous can return on one rank before it has on another: Gloo's full mesh is
// complete for a rank once its own pairs are connected, while a peer may still be finishing its
// side. A rank that then exited at once (a program that only joins, or one that fails right after)
// broke the peer's join with "Connection closed by peer". So, as torch's store-based barrier does,
// a group is returned only when every member has finished making it: each says so in the store and
// waits for the others, within the group's timeout, and a rank that never does is named.
void ProcessGroup::await_members(const char* fn) {
  if (!store_ || size_ <= 1) return;
  store_->set(str("joined/", rank_), "1");
  for (int r = 0; r < size_; ++r) {
    try {
      store_->get(str("joined/", r), timeout_);
    } catch (const Error& e) {
      ct_engine_error err{};
      err.status = e.status();
      std::snprintf(err.message, sizeof err.message, "rank %d did not finish joining the group (%s)", r, e.what());
      raise_engine_error(fn, err);
    }
  }
}

ProcessGroup::~ProcessGroup() { destroy(); }

void ProcessGroup::destroy() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (destroyed_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  {
    // A synchronous call still running on another thread finishes before the communicator goes.
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !busy_ && p2p_running_ == 0; });
    destroyed_ = true;
  }
  if (comm_) engine_->comm_destroy(comm_);
  comm_ = nullptr;
}

bool ProcessGroup::begin_inline(const char* name) {
  CT_CHECK(is_member(), CT_ERROR_INVALID_ARGUMENT, name,
           ": this process is not a member of the group (new_group gave it a non-member group); "
           "call collectives only on groups this rank belongs to");
  std::lock_guard<std::mutex> lock(mu_);
  CT_CHECK(!stopping_ && !destroyed_, CT_ERROR_INVALID_ARGUMENT, name, ": the process group was destroyed");
  if (!queue_.empty() || busy_) return false;
  busy_ = true;
  return true;
}

void ProcessGroup::end_inline() {
  // Notified under the lock: once destroy sees busy_ false it may free the group.
  std::lock_guard<std::mutex> lock(mu_);
  busy_ = false;
  cv_.notify_all();
}

std::shared_ptr<Work> ProcessGroup::enqueue(const char* name, std::function<void()> op, std::vector<Tensor> keep,
                                            bool async) {
  auto work = std::make_shared<Work>();
  work->keep = std::move(keep);
  {
    std::lock_guard<std::mutex> lock(mu_);
    CT_CHECK(!stopping_ && !destroyed_, CT_ERROR_INVALID_ARGUMENT, name, ": the process group was destroyed");
    queue_.push_back(Task{name, std::move(op), work});
    if (!thread_.joinable()) thread_ = std::thread([this] { worker(); });
    cv_.notify_all();
  }
  if (async) return work;
  std::string message;
  // The engine bounds each operation by the group's timeout, so this wait ends; the margin covers
  // the operations queued before this one.
  const ct_status s = work->wait(1e9, &message);
  if (s != CT_OK) fail(s, message);
  return nullptr;
}

// Note [Point-to-point outside the queue]
// Collectives must run in one order on every rank, but sends and receives need not: a rank may
// post two sends (tags 7 then 3) that its peer receives in the other order, as isend/irecv allow.
// Run through the queue, the first send would wait for its receive while the receive that could
// proceed sat behind it: a deadlock until the timeout. So point-to-point operations never queue.
// A synchronous one runs on the caller's thread; an asynchronous one gets a thread of its own, and
// destroy waits for those. Engines allow this: Gloo's transfers are independent unbound buffers,
// MPI runs with MPI_THREAD_MULTIPLE, NCCL's sends and receives are enqueued on a stream.
std::shared_ptr<Work> ProcessGroup::run_p2p(const char* name, std::function<void()> op, std::vector<Tensor> keep,
                                            bool async) {
  CT_CHECK(is_member(), CT_ERROR_INVALID_ARGUMENT, name,
           ": this process is not a member of the group (new_group gave it a non-member group)");
  {
    std::lock_guard<std::mutex> lock(mu_);
    CT_CHECK(!stopping_ && !destroyed_, CT_ERROR_INVALID_ARGUMENT, name, ": the process group was destroyed");
    ++p2p_running_;
  }
  auto done = [this] {
    // Notified under the lock: once destroy sees the count reach 0 it may free the group.
    std::lock_guard<std::mutex> lock(mu_);
    --p2p_running_;
    cv_.notify_all();
  };
  if (!async) {
    struct Done {
      std::function<void()> f;
      ~Done() { f(); }
    } on_exit{done};
    train::NoRecordGuard no_record;
    op();
    return nullptr;
  }
  auto work = std::make_shared<Work>();
  work->keep = std::move(keep);
  try {
    std::thread([this, name, op = std::move(op), work, done] {
      execute(name, op, *work);
      done();
    }).detach();
  } catch (const std::system_error& e) {
    done();
    fail(CT_ERROR_OUT_OF_MEMORY, str(name, ": cannot start a thread for the asynchronous operation: ", e.what()));
  }
  return work;
}

void ProcessGroup::worker() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return (!queue_.empty() && !busy_) || (stopping_ && queue_.empty()); });
    if (queue_.empty()) return;
    Task task = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    execute(task.name, task.op, *task.work);
    lock.lock();
    busy_ = false;
    cv_.notify_all();
  }
}

void ProcessGroup::execute(const char* name, const std::function<void()>& op, Work& work) {
  try {
    train::NoRecordGuard no_record;
    op();
    work.finish(CT_OK, {});
  } catch (const Error& e) {
    work.finish(e.status(), e.message());
  } catch (const std::exception& e) {
    work.finish(CT_ERROR_INTERNAL, str(name, ": ", e.what()));
  }
}

void ProcessGroup::raise_engine_error(const char* fn, const ct_engine_error& err) const {
  const ct_status s = err.status != CT_OK ? static_cast<ct_status>(err.status) : CT_ERROR_INTERNAL;
  std::string note;
  if ((s == CT_ERROR_TIMEOUT || s == CT_ERROR_DISTRIBUTED) && store_) note = missing_ranks_note();
  fail(s, str(fn, ": ", err.message, note));
}

std::string ProcessGroup::missing_ranks_note() const {
  std::vector<int> gone;
  // A killed rank's socket closes at once, but the store's server may not have read the close
  // yet when a neighbour's transfer already failed: ask twice before saying nobody is gone.
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      gone = store_->missing_ranks(world_size_);
    } catch (const Error&) {
      return "";
    }
    if (!gone.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::string named;
  for (size_t r = 0; r < members_.size(); ++r)
    if (std::find(gone.begin(), gone.end(), members_[r]) != gone.end())
      named += str(named.empty() ? "" : ", ", r, members_[r] != static_cast<int>(r) ? str(" (world rank ", members_[r], ")") : "");
  if (named.empty())
    return str(". Every rank of the group is still connected to the ", store_->where(),
               ": one is late or stuck, or the ranks issued different collectives");
  return str(". Missing ranks: ", named, " (not connected to the ", store_->where(),
             ": exited, killed or never started)");
}

}  // namespace ct::dist
