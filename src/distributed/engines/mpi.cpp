// mpi.cpp - the "mpi" engine: CPU buffers through the MPI library that launched the process
// (Debian's Open MPI). A module of its own (Note [Engine modules] in ../engine.h): it sees raw
// buffers and ct_dtype values only, and links MPI, never libctorch.
//
// Note [MPI timeouts]
// MPI has no timeout of its own, and a blocking MPI_Allreduce whose peer never comes blocks
// forever. So every operation is issued nonblocking (MPI_Iallreduce, MPI_Isend, ...) and this file
// polls MPI_Test until the request completes or the group's timeout passes; then it returns
// CT_ERROR_TIMEOUT. Polling is what drives MPI's progress (a blocking MPI call spins the same way),
// so it spins first and backs off only slowly: a sleep between two tests of a large transfer would
// stall its pipeline and cost bandwidth. A collective cannot be cancelled in MPI, so after a
// timeout the communicator is marked broken: its later operations fail at once, and the process
// skips MPI_Finalize at exit (it would wait for the missing peer).
//
// Note [MPI initialization]
// The world communicator initializes MPI when nobody has (MPI_Init_thread asking for
// MPI_THREAD_MULTIPLE: the core calls each group from its own worker thread) and finalizes it at
// process exit, never in comm_destroy, since MPI cannot be initialized again once finalized. With
// only MPI_THREAD_SERIALIZED available every MPI call here takes one process-wide lock. A program
// that initialized MPI itself (mpi4py, say) keeps that job: this module then never finalizes.
// The C++ bindings Open MPI's header would pull in are deprecated and unused here.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <sched.h>
#include <time.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "ctorch.h"
#include "distributed/engine.h"
#include "distributed/engines/engine_util.h"

namespace {

using ct::engine::dtype_name;
using ct::engine::dtype_size;
using ct::engine::fail;

struct Comm {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 0;
  double timeout = 0;
  int tag_ub = 32767;
  std::string broken;  // the operation that timed out, after which comm is unusable (empty: usable)
};

std::mutex g_mpi_lock;       // taken around every MPI call when MPI is only SERIALIZED
bool g_serialized = false;   // INVARIANT: set once, before any group exists
bool g_we_initialized = false;
bool g_timed_out = false;    // an operation timed out: MPI_Finalize would wait for the missing peer

// Holds g_mpi_lock for one MPI call when MPI runs MPI_THREAD_SERIALIZED.
struct Locked {
  Locked() { if (g_serialized) g_mpi_lock.lock(); }
  ~Locked() { if (g_serialized) g_mpi_lock.unlock(); }
};


std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int n = 0;
  if (MPI_Error_string(code, text, &n) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<size_t>(n));
}

// The error class of this thread's last failed MPI call (MPI_ERR_TRUNCATE for a short receive).
thread_local int t_last_error_class = MPI_SUCCESS;

// A failed MPI call: CT_ERROR_DISTRIBUTED with what was asked and MPI's own words.
int mpi_fail(ct_engine_error* err, int code, const char* what) {
  if (MPI_Error_class(code, &t_last_error_class) != MPI_SUCCESS) t_last_error_class = MPI_ERR_OTHER;
  return fail(err, CT_ERROR_DISTRIBUTED, "mpi: %s failed: %s (a peer may have exited; see mpirun's output)", what,
              mpi_error_text(code).c_str());
}


// The MPI type a reduction of dtype runs in; MPI_DATATYPE_NULL for float16 and bfloat16, which MPI
// has no type for (the core carries them as float32). bool travels as bytes reduced with MIN/MAX
// (see reduce_op).
MPI_Datatype reduce_type(int dtype) {
  switch (dtype) {
    case CT_BOOL: return MPI_UINT8_T;
    case CT_UINT8: return MPI_UINT8_T;
    case CT_INT8: return MPI_INT8_T;
    case CT_INT16: return MPI_INT16_T;
    case CT_INT32: return MPI_INT32_T;
    case CT_INT64: return MPI_INT64_T;
    case CT_FLOAT32: return MPI_FLOAT;
    case CT_FLOAT64: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
  }
}

// Operations that only move data move elements as unsigned integers of the same width, so every
// dtype, float16 and bfloat16 included, moves bit for bit.
MPI_Datatype move_type(int dtype) {
  switch (dtype_size(dtype)) {
    case 1: return MPI_UINT8_T;
    case 2: return MPI_UINT16_T;
    case 4: return MPI_UINT32_T;
    case 8: return MPI_UINT64_T;
    default: return MPI_DATATYPE_NULL;
  }
}

// bool's values are 0 and 1: sum (logical or) is MAX, product (logical and) is MIN, as in torch.
MPI_Op reduce_op(int dtype, int op) {
  switch (op) {
    case CT_REDUCE_SUM: return dtype == CT_BOOL ? MPI_MAX : MPI_SUM;
    case CT_REDUCE_PRODUCT: return dtype == CT_BOOL ? MPI_MIN : MPI_PROD;
    case CT_REDUCE_MIN: return MPI_MIN;
    case CT_REDUCE_MAX: return MPI_MAX;
    default: return MPI_OP_NULL;
  }
}

const char* op_name(int op) {
  static const char* const names[] = {"sum", "product", "min", "max"};
  return op >= 0 && op <= CT_REDUCE_MAX ? names[op] : "unknown";
}

int can_reduce(int dtype, int op) {
  return reduce_type(dtype) != MPI_DATATYPE_NULL && reduce_op(dtype, op) != MPI_OP_NULL ? 1 : 0;
}

double now_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Refuses a communicator that an earlier timeout left unusable, and a call with bad arguments.
int check_usable(Comm* c, const char* what, ct_engine_error* err) {
  if (!c->broken.empty())
    return fail(err, CT_ERROR_DISTRIBUTED,
                "mpi: %s refused: an earlier %s on this group timed out and MPI cannot cancel it; "
                "destroy the group (the job usually has to be restarted)", what, c->broken.c_str());
  return CT_OK;
}

// Waits for req (Note [MPI timeouts]). what names the operation for the messages.
int wait(Comm* c, MPI_Request* req, const char* what, bool cancellable, ct_engine_error* err) {
  int done = 0;
  // Small messages finish within microseconds: spin without reading the clock.
  for (int i = 0; i < 4096; ++i) {
    int rc;
    {
      Locked l;
      rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
    }
    if (rc != MPI_SUCCESS) return mpi_fail(err, rc, what);
    if (done) return CT_OK;
  }
  const double start = now_seconds();
  long sleep_ns = 0;
  for (unsigned i = 1;; ++i) {
    int rc;
    {
      Locked l;
      rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
    }
    if (rc != MPI_SUCCESS) return mpi_fail(err, rc, what);
    if (done) return CT_OK;
    if ((i & 63) == 0) {
      const double waited = now_seconds() - start;
      if (waited > c->timeout) break;
      // After a second the peer is probably late rather than busy: back off to at most 1 ms
      // between tests, so a long wait does not burn a core the peer may need.
      if (waited > 1.0) sleep_ns = sleep_ns < 1000000 ? sleep_ns + 10000 : 1000000;
    }
    if (sleep_ns) {
      timespec ts = {0, sleep_ns};
      nanosleep(&ts, nullptr);
    } else {
      sched_yield();
    }
  }
  if (cancellable) {  // a receive can be taken back, leaving the communicator usable
    Locked l;
    if (MPI_Cancel(req) == MPI_SUCCESS) MPI_Wait(req, MPI_STATUS_IGNORE);
  } else {
    c->broken = what;
    g_timed_out = true;
  }
  return fail(err, CT_ERROR_TIMEOUT,
              "mpi: %s did not finish within %g s; MPI cannot tell which ranks are missing (look for a rank "
              "that exited or is stuck; mpirun's output names processes that died)",
              what, c->timeout);
}

// Issues one nonblocking call (rc, req) and waits for it.
int finish(Comm* c, int rc, MPI_Request* req, const char* what, ct_engine_error* err, bool cancellable = false) {
  if (rc != MPI_SUCCESS) return mpi_fail(err, rc, what);
  return wait(c, req, what, cancellable, err);
}

// MPI counts are int: a per-rank count beyond INT_MAX cannot be split for the block collectives.
int check_block_count(size_t count, const char* op, int dtype, ct_engine_error* err) {
  if (count > static_cast<size_t>(INT_MAX))
    return fail(err, CT_ERROR_INVALID_ARGUMENT,
                "mpi: %s of %zu %s elements per rank is more than MPI's int count allows (%d); "
                "split the tensor into smaller ones", op, count, dtype_name(dtype), INT_MAX);
  return CT_OK;
}

int check_reduce(int dtype, int op, const char* what, ct_engine_error* err) {
  if (!can_reduce(dtype, op))
    return fail(err, CT_ERROR_DTYPE,
                "mpi: %s cannot reduce %s with %s; it reduces bool, uint8, int8, int16, int32, int64, float32 "
                "and float64 with sum, product, min and max", what, dtype_name(dtype), op_name(op));
  return CT_OK;
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && !g_timed_out) MPI_Finalize();
}

int init_mpi(ct_engine_error* err) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    return fail(err, CT_ERROR_DISTRIBUTED,
                "mpi: MPI was already finalized in this process and cannot be initialized again; "
                "create the mpi group before MPI_Finalize runs");
  int provided = MPI_THREAD_SINGLE;
  if (!initialized) {
    // Open MPI's nonblocking all-reduce (libnbc) picks a binomial tree for small groups, which moves
    // every byte twice: about 40% of the bandwidth of the blocking MPI_Allreduce on 2 ranks. Its
    // reduce-scatter + all-gather (Rabenseifner) algorithm matches MPI_Allreduce from 16 KB up.
    // A choice the user made in the environment (or mpirun's -mca) wins.
    setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "3", /*overwrite=*/0);
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    if (rc != MPI_SUCCESS) return mpi_fail(err, rc, "MPI_Init_thread");
    g_we_initialized = true;
    std::atexit(finalize_at_exit);
  } else {
    MPI_Query_thread(&provided);
  }
  if (provided < MPI_THREAD_SERIALIZED) {
    if (g_we_initialized) {
      // Without SERIALIZED, MPI may only be called from the thread that initialized it, and the
      // core's worker threads are not that thread.
      return fail(err, CT_ERROR_DISTRIBUTED,
                  "mpi: this MPI library provides thread level %d, below MPI_THREAD_SERIALIZED, and ctorch "
                  "calls MPI from a worker thread; use an MPI built with thread support (Open MPI is)", provided);
    }
    return fail(err, CT_ERROR_DISTRIBUTED,
                "mpi: the program initialized MPI with thread level %d, below MPI_THREAD_SERIALIZED, and ctorch "
                "calls MPI from a worker thread; initialize it with MPI_Init_thread(MPI_THREAD_MULTIPLE)",
                provided);
  }
  g_serialized = provided < MPI_THREAD_MULTIPLE;
  return CT_OK;
}

int comm_create(const ct_engine_init* init, void** out, int* rank, int* size, ct_engine_error* err) {
  *out = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;
  if (!init->parent) {
    if (int st = init_mpi(err)) return st;
    Locked l;
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (rc != MPI_SUCCESS) return mpi_fail(err, rc, "MPI_Comm_dup of MPI_COMM_WORLD");
  } else {
    Comm* parent = static_cast<Comm*>(init->parent);
    if (int st = check_usable(parent, "new_group", err)) return st;
    if (!init->ranks || init->n_ranks < 1 || init->n_ranks > parent->size)
      return fail(err, CT_ERROR_INVALID_ARGUMENT, "mpi: new_group got %d ranks for a parent group of %d",
                  init->n_ranks, parent->size);
    Locked l;
    MPI_Group parent_group = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
    int rc = MPI_Comm_group(parent->comm, &parent_group);
    if (rc == MPI_SUCCESS) rc = MPI_Group_incl(parent_group, init->n_ranks, init->ranks, &group);
    // MPI_Comm_create_group is collective over the members only, as new_group's members are.
    if (rc == MPI_SUCCESS) rc = MPI_Comm_create_group(parent->comm, group, 0x6374, &comm);
    if (group != MPI_GROUP_NULL) MPI_Group_free(&group);
    if (parent_group != MPI_GROUP_NULL) MPI_Group_free(&parent_group);
    if (rc != MPI_SUCCESS) return mpi_fail(err, rc, "MPI_Comm_create_group for new_group");
    if (comm == MPI_COMM_NULL)
      return fail(err, CT_ERROR_INVALID_ARGUMENT,
                  "mpi: new_group was asked to make a communicator on a rank that is not among its %d members",
                  init->n_ranks);
  }
  Comm* c = new Comm;
  c->comm = comm;
  c->timeout = init->timeout_seconds > 0 ? init->timeout_seconds : 1800;
  {
    Locked l;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &c->rank);
    MPI_Comm_size(comm, &c->size);
    int* ub = nullptr;
    int flag = 0;
    MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &flag);
    if (flag && ub) c->tag_ub = *ub;
  }
  if ((init->rank >= 0 && init->rank != c->rank) || (init->size >= 0 && init->size != c->size)) {
    const int want_rank = init->rank, want_size = init->size;
    const int got_rank = c->rank, got_size = c->size;
    {
      Locked l;
      MPI_Comm_free(&c->comm);
    }
    delete c;
    return fail(err, CT_ERROR_INVALID_ARGUMENT,
                "mpi: rank %d of %d was asked for, but MPI says this process is rank %d of %d; with the mpi "
                "backend pass -1 for rank and world_size (MPI's launcher decides them)",
                want_rank, want_size, got_rank, got_size);
  }
  *out = c;
  *rank = c->rank;
  *size = c->size;
  return CT_OK;
}

void comm_destroy(void* comm) {
  Comm* c = static_cast<Comm*>(comm);
  if (!c) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  // A broken communicator still has a collective in flight, which MPI_Comm_free would wait on.
  if (!finalized && c->broken.empty()) {
    Locked l;
    MPI_Comm_free(&c->comm);
  }
  delete c;
}

int all_reduce(void* comm, void* buf, size_t count, int dtype, int op, void*, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = check_usable(c, "all_reduce", err)) return st;
  if (int st = check_reduce(dtype, op, "all_reduce", err)) return st;
  const MPI_Datatype type = reduce_type(dtype);
  const size_t item = dtype_size(dtype);
  char what[160];
  snprintf(what, sizeof what, "all_reduce (%s) of %zu %s elements", op_name(op), count, dtype_name(dtype));
  // MPI counts are int: a larger buffer goes in pieces, each a complete all-reduce.
  for (size_t done = 0; done < count;) {
    const size_t n = count - done < static_cast<size_t>(INT_MAX) ? count - done : static_cast<size_t>(INT_MAX);
    MPI_Request req;
    int rc;
    {
      Locked l;
      rc = MPI_Iallreduce(MPI_IN_PLACE, static_cast<char*>(buf) + done * item, static_cast<int>(n), type,
                          reduce_op(dtype, op), c->comm, &req);
    }
    if (int st = finish(c, rc, &req, what, err)) return st;
    done += n;
  }
  return CT_OK;
}

int broadcast(void* comm, void* buf, size_t count, int dtype, int root, void*, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = check_usable(c, "broadcast", err)) return st;
  const MPI_Datatype type = move_type(dtype);
  const size_t item = dtype_size(dtype);
  char what[160];
  snprintf(what, sizeof what, "broadcast of %zu %s elements from rank %d", count, dtype_name(dtype), root);
  for (size_t done = 0; done < count;) {
    const size_t n = count - done < static_cast<size_t>(INT_MAX) ? count - done : static_cast<size_t>(INT_MAX);
    MPI_Request req;
    int rc;
    {
      Locked l;
      rc = MPI_Ibcast(static_cast<char*>(buf) + done * item, static_cast<int>(n), type, root, c->comm, &req);
    }
    if (int st = finish(c, rc, &req, what, err)) return st;
    done += n;
  }
  return CT_OK;
}

int reduce(void* comm, void* buf, size_t count, int dtype, int op, int root, void*, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = check_usable(c, "reduce", err)) return st;
  if (int st = check_reduce(dtype, op, "reduce", err)) return st;
  const MPI_Datatype type = reduce_type(dtype);
  const size_t item = dtype_size(dtype);
  char what[160];
  snprintf(what, sizeof what, "reduce (%s) of %zu %s elements to rank %d", op_name(op), count, dtype_name(dtype),
           root);
  for (size_t done = 0; done < count;) {
    const size_t n = count - done < static_cast<size_t>(INT_MAX) ? count - done : static_cast<size_t>(INT_MAX);
    char* p = static_cast<char*>(buf) + done * item;
    MPI_Request req;
    int rc;
    {
      Locked l;
      rc = c->rank == root ? MPI_Ireduce(MPI_IN_PLACE, p, static_cast<int>(n), type, reduce_op(dtype, op), root,
                                         c->comm, &req)
                           : MPI_Ireduce(p, nullptr, static_cast<int>(n), type, reduce_op(dtype, op), root,
                                         c->comm, &req);
    }
    if (int st = finish(c, rc, &req, what, err)) return st;
    done += n;
  }
  return CT_OK;
}

int all_gather(void* comm, const void* in, void* out, size_t count, int dtype, void*, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = check_usable(c, "all_gather", err)) return st;
  if (int st = check_block_count(count, "all_gather", dtype, err)) return st;
  const MPI_Datatype type = move_type(dtype);
  const int n = static_cast<int>(count);
  // MPI forbids a send buffer inside the receive buffer, and MPI_IN_PLACE would have to be chosen
  // on every rank alike; so an input that overlaps the output travels from a copy.
  const size_t block = count * dtype_size(dtype);
  const char* o = static_cast<const char*>(out);
  const char* i = static_cast<const char*>(in);
  std::vector<char> copy;
  const void* send = in;
  if (i < o + block * static_cast<size_t>(c->size) && o < i + block) {
    copy.assign(i, i + block);
    send = copy.data();
  }
  char what[160];
  snprintf(what, sizeof what, "all_gather of %zu %s elements per rank", count, dtype_name(dtype));
  MPI_Request req;
  int rc;
  {
    Locked l;
    rc = MPI_Iallgather(send, n, type, out, n, type, c->comm, &req);
  }
  return finish(c, rc, &req, what, err);
}

int reduce_scatter(void* comm, const void* in, void* out, size_t count, int dtype, int op, void*,
                   ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = check_usable(c, "reduce_scatter", err)) return st;
  if (int st = check_reduce(dtype, op, "reduce_scatter", err)) return st;
  if (int st = check_block_count(count, "reduce_scatter", dtype, err)) return st;
  char what[160];
  snprintf(what, sizeof what, "reduce_scatter (%s) of %zu %s elements per rank", op_name(op), count,
           dtype_name(dtype));
  MPI_Request req;
  int rc;
  {
    Locked l;
    rc = MPI_Ireduce_scatter_block(in, out, static_cast<int>(count), reduce_type(dtype), reduce_op(dtype, op),
                                   c->comm, &req);
  }
  return finish(c, rc, &req, what, err);
}

int gather(void* comm, const void* in, void* out, size_t count, int dtype, int root, void*, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = check_usable(c, "gather", err)) return st;
  if (int st = check_block_count(count, "gather", dtype, err)) return st;
  const MPI_Datatype type = move_type(dtype);
  const int n = static_cast<int>(count);
  const void* send = c->rank == root && in == static_cast<char*>(out) + count * dtype_size(dtype) *
                                                                            static_cast<size_t>(c->rank)
                         ? MPI_IN_PLACE : in;
  char what[160];
  snprintf(what, sizeof what, "gather of %zu %s elements per rank to rank %d", count, dtype_name(dtype), root);
  MPI_Request req;
  int rc;
  {
    Locked l;
    rc = MPI_Igather(send, n, type, c->rank == root ? out : nullptr, n, type, root, c->comm, &req);
  }
  return finish(c, rc, &req, what, err);
}

int scatter(void* comm, const void* in, void* out, size_t count, int dtype, int root, void*, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = check_usable(c, "scatter", err)) return st;
  if (int st = check_block_count(count, "scatter", dtype, err)) return st;
  const MPI_Datatype type = move_type(dtype);
  const int n = static_cast<int>(count);
  char what[160];
  snprintf(what, sizeof what, "scatter of %zu %s elements per rank from rank %d", count, dtype_name(dtype), root);
  MPI_Request req;
  int rc;
  {
    Locked l;
    rc = MPI_Iscatter(c->rank == root ? in : nullptr, n, type, out, n, type, root, c->comm, &req);
  }
  return finish(c, rc, &req, what, err);
}

int all_to_all(void* comm, const void* in, void* out, size_t count, int dtype, void*, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = check_usable(c, "all_to_all", err)) return st;
  if (int st = check_block_count(count, "all_to_all", dtype, err)) return st;
  const MPI_Datatype type = move_type(dtype);
  const int n = static_cast<int>(count);
  char what[160];
  snprintf(what, sizeof what, "all_to_all of %zu %s elements per rank", count, dtype_name(dtype));
  MPI_Request req;
  int rc;
  {
    Locked l;
    rc = MPI_Ialltoall(in, n, type, out, n, type, c->comm, &req);
  }
  return finish(c, rc, &req, what, err);
}

int check_peer(Comm* c, const char* op, int peer, int tag, ct_engine_error* err) {
  if (peer < 0 || peer >= c->size || peer == c->rank)
    return fail(err, CT_ERROR_INVALID_ARGUMENT, "mpi: %s with peer rank %d in a group of %d where this is rank %d",
                op, peer, c->size, c->rank);
  if (tag < 0 || tag > c->tag_ub)
    return fail(err, CT_ERROR_INVALID_ARGUMENT, "mpi: %s with tag %d; this MPI takes tags 0 to %d", op, tag,
                c->tag_ub);
  return CT_OK;
}

int send(void* comm, const void* buf, size_t nbytes, int dst, int tag, void*, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = check_usable(c, "send", err)) return st;
  if (int st = check_peer(c, "send", dst, tag, err)) return st;
  char what[160];
  snprintf(what, sizeof what, "send of %zu bytes to rank %d (tag %d)", nbytes, dst, tag);
  // Messages beyond INT_MAX bytes go in pieces; MPI keeps their order (same peer, tag and comm).
  size_t done = 0;
  do {
    const size_t n = nbytes - done < static_cast<size_t>(INT_MAX) ? nbytes - done : static_cast<size_t>(INT_MAX);
    MPI_Request req;
    int rc;
    {
      Locked l;
      rc = MPI_Isend(static_cast<const char*>(buf) + done, static_cast<int>(n), MPI_BYTE, dst, tag, c->comm, &req);
    }
    if (int st = finish(c, rc, &req, what, err)) return st;
    done += n;
  } while (done < nbytes);
  return CT_OK;
}

int recv(void* comm, void* buf, size_t nbytes, int src, int tag, void*, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = check_usable(c, "recv", err)) return st;
  if (int st = check_peer(c, "recv", src, tag, err)) return st;
  char what[160];
  snprintf(what, sizeof what, "recv of %zu bytes from rank %d (tag %d)", nbytes, src, tag);
  size_t done = 0;
  do {
    const size_t n = nbytes - done < static_cast<size_t>(INT_MAX) ? nbytes - done : static_cast<size_t>(INT_MAX);
    MPI_Request req;
    int rc;
    {
      Locked l;
      rc = MPI_Irecv(static_cast<char*>(buf) + done, static_cast<int>(n), MPI_BYTE, src, tag, c->comm, &req);
    }
    // A receive that timed out before any of it arrived can be cancelled: the group stays usable.
    if (int st = finish(c, rc, &req, what, err, /*cancellable=*/done == 0)) {
      if (st == CT_ERROR_DISTRIBUTED && t_last_error_class == MPI_ERR_TRUNCATE)
        fail(err, CT_ERROR_SHAPE,
             "mpi: recv of %zu bytes from rank %d (tag %d) got a longer message; send and recv tensors of the "
             "same sizes and dtype", nbytes, src, tag);
      return err->status;
    }
    done += n;
  } while (done < nbytes);
  return CT_OK;
}

int barrier(void* comm, ct_engine_error* err) {
  Comm* c = static_cast<Comm*>(comm);
  if (int st = check_usable(c, "barrier", err)) return st;
  MPI_Request req;
  int rc;
  {
    Locked l;
    rc = MPI_Ibarrier(c->comm, &req);
  }
  return finish(c, rc, &req, "barrier", err);
}

const ct_engine kEngine = {
    CT_ENGINE_ABI, "mpi", 0, can_reduce, comm_create, comm_destroy, all_reduce, broadcast, reduce, all_gather,
    reduce_scatter, gather, scatter, all_to_all, send, recv, barrier,
    0,  // MPI reports a truncated receive itself; other mismatches are what TORCH_DISTRIBUTED_DEBUG=DETAIL checks
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const ct_engine* ct_engine_get(void) { return &kEngine; }
