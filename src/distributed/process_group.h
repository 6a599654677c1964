// process_group.h - ProcessGroup (one communicator of one engine, with its store and its queue)
// and Work (one queued operation's outcome).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/tensor.h"
#include "distributed/engine.h"
#include "distributed/store.h"
#include "train/no_record.h"

namespace ct::dist {

/// The outcome of one operation: pending until the queue has run it, then a status and message.
class Work {
 public:
  /// Waits at most timeout_seconds; the operation's status (message in *message), or
  /// CT_ERROR_TIMEOUT when it is still running.
  ct_status wait(double timeout_seconds, std::string* message);
  bool completed();
  void finish(ct_status status, std::string message);
  /// Tensors the operation reads or writes, kept alive until it has run.
  std::vector<Tensor> keep;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  ct_status status_ = CT_OK;
  std::string message_;
};

/// Note [The group's queue]
/// Every rank must issue a group's collectives in the same order, so a group runs them one at a
/// time in the order received: an asynchronous call queues its operation for the group's worker
/// thread; a synchronous one runs on the calling thread when nothing is queued or running (no
/// thread hand-off on the common path) and otherwise queues and waits. The engine is only ever
/// entered by one thread per group at a time.
class ProcessGroup {
 public:
  /// torch.distributed.init_process_group; see ct_dist_init_process_group.
  static std::shared_ptr<ProcessGroup> init(const std::string& backend, const char* init_method, int rank,
                                            int world_size, double timeout_seconds);
  /// torch.distributed.new_group; see ct_dist_new_group. Called by every rank of this group.
  std::shared_ptr<ProcessGroup> new_group(const std::vector<int>& ranks, double timeout_seconds);
  ~ProcessGroup();

  /// Drains the queue, stops the worker and closes the communicator; later calls are refused.
  void destroy();

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_member() const { return rank_ >= 0; }
  double timeout() const { return timeout_; }
  const ct_engine& engine() const { return *engine_; }
  void* comm() const { return comm_; }

  /// Runs op (which raises ct::Error) as described in Note [The group's queue]. With async, returns
  /// at once with the Work; otherwise runs it to completion and raises its error. keep: the tensors
  /// op uses, held by a queued operation until it has run. A template, so that the common path (a
  /// synchronous call on an idle group) calls op in place, with no std::function or vector made.
  template <typename Op>
  std::shared_ptr<Work> run(const char* name, Op&& op, std::initializer_list<Tensor> keep, bool async) {
    if (!async && begin_inline(name)) return run_inline(op);
    return enqueue(name, std::function<void()>(std::forward<Op>(op)), std::vector<Tensor>(keep), async);
  }
  template <typename Op>
  std::shared_ptr<Work> run(const char* name, Op&& op, std::vector<Tensor> keep, bool async) {
    if (!async && begin_inline(name)) return run_inline(op);
    return enqueue(name, std::function<void()>(std::forward<Op>(op)), std::move(keep), async);
  }

  /// Runs a point-to-point op outside the queue (Note [Point-to-point outside the queue]): on the
  /// calling thread when synchronous, on a thread of its own when asynchronous.
  std::shared_ptr<Work> run_p2p(const char* name, std::function<void()> op, std::vector<Tensor> keep, bool async);

  /// Raises the failure an engine call reported, naming fn and, for a timeout or a broken
  /// connection, the ranks that are gone (Note [Store liveness]).
  void raise_engine_error(const char* fn, const ct_engine_error& err) const;

 private:
  ProcessGroup() = default;
  /// Checks that the group can take name; true (and busy_ set) when the caller may run it in place.
  bool begin_inline(const char* name);
  void end_inline();
  template <typename Op>
  std::shared_ptr<Work> run_inline(Op& op) {
    struct End {
      ProcessGroup* pg;
      ~End() { pg->end_inline(); }
    } end{this};
    train::NoRecordGuard no_record;
    op();
    return nullptr;
  }
  std::shared_ptr<Work> enqueue(const char* name, std::function<void()> op, std::vector<Tensor> keep, bool async);
  /// Returns once every member has finished making the group (Note [Joining ends together]).
  void await_members(const char* fn);
  void worker();
  void execute(const char* name, const std::function<void()>& op, Work& work);
  std::string missing_ranks_note() const;

  const ct_engine* engine_ = nullptr;
  void* comm_ = nullptr;
  int rank_ = -1;
  int size_ = 0;
  double timeout_ = 1800;
  std::shared_ptr<Store> store_;   // null for mpi
  std::string host_;               // the store's host (tcp stores)
  std::string local_addr_;         // this host's address towards it (ct_engine_init.local_addr)
  int device_ = -1;                // the CUDA device of a CUDA engine's communicator
  std::vector<int> members_;       // this group's ranks as world ranks (store ranks)
  int world_size_ = 0;             // the store's world
  int next_group_ = 0;             // new_group calls so far: the sub-group's store prefix

  struct Task {
    const char* name;
    std::function<void()> op;
    std::shared_ptr<Work> work;
  };
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> queue_;
  bool busy_ = false;     // an operation is running, on the worker or a caller
  int p2p_running_ = 0;   // point-to-point operations in flight, which destroy waits for
  bool stopping_ = false;
  bool destroyed_ = false;
  std::thread thread_;    // started on the first asynchronous call
};

}  // namespace ct::dist
