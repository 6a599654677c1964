/* engine.h - the C interface between ctorch's distributed core and an engine module.
 *
 * Note [Engine modules]
 * Each communication engine (Gloo, MPI, NCCL) is a shared module, libctorch_<name>.so, built only
 * when its development package is found and dlopened on the first ct_dist_* call that names it.
 * So libctorch itself links none of them: a program that never uses distributed never loads MPI,
 * a machine without Gloo still runs everything else, and a program that links libctorch.a statically
 * (the Rust crates) needs no extra libraries at link time. The price is this small C interface:
 * a module sees raw buffers, element counts and ct_dtype values, never a tensor, so it cannot
 * depend on ctorch's C++ internals (a module linked to libctorch.so would load a second copy of
 * the library into a statically linked program). Everything about tensors - checking sizes,
 * dtypes, devices and contiguity, lists flattened into one buffer, AVG as a SUM then a division,
 * the deterministic reduction order, the work queue, the store and naming missing ranks - lives in
 * the core (src/distributed/), once for every engine.
 *
 * A module exports one function, ct_engine_get(), returning a static table. Every entry fills
 * *err and returns its status (a ct_status value) on failure; CT_OK is 0. Buffers are host
 * pointers, or CUDA device pointers for an engine whose device is CUDA, which then also gets the
 * CUDA stream the core orders the operation on. An engine bounds every operation by the timeout
 * given at comm_create and returns CT_ERROR_TIMEOUT past it; the core then names the missing ranks.
 */
#ifndef CTORCH_DISTRIBUTED_ENGINE_H
#define CTORCH_DISTRIBUTED_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CT_ENGINE_ABI 1

typedef struct ct_engine_error {
  int status;          /* a ct_status value */
  char message[1024];  /* what failed, for ct_last_error: the engine, the operation, the peer */
} ct_engine_error;

/* The rendezvous store the core runs (TCP for env:// and tcp://, a directory for file://). Keys are
   already unique to the group. get waits until the key is set, at most the group's timeout; its
   *value is malloc'ed, for the caller to free. */
typedef struct ct_engine_store {
  void* ctx;
  int (*set)(void* ctx, const char* key, const void* value, size_t n, ct_engine_error* err);
  int (*get)(void* ctx, const char* key, void** value, size_t* n, ct_engine_error* err);
} ct_engine_store;

/* What a communicator is made from. For the world group parent is NULL; for a sub-group made by
   ct_dist_new_group parent is the world's comm (of the same engine), ranks lists the members as
   parent ranks, and rank/size are this process's place among them. */
typedef struct ct_engine_init {
  int rank;                     /* -1 for mpi's world: the engine reads it from MPI */
  int size;                     /* -1 likewise */
  double timeout_seconds;       /* > 0 */
  const ct_engine_store* store; /* NULL for mpi */
  void* parent;                 /* the parent's comm, or NULL */
  const int* ranks;             /* the members as parent ranks (NULL for the world) */
  int n_ranks;
  int device;                   /* the CUDA device for nccl; -1 otherwise */
  const char* local_addr;       /* this host's address on the route to the store's host (127.0.0.1
                                   when that host is this one); NULL for a file store or mpi. An
                                   engine that opens its own sockets listens there. */
} ct_engine_init;

typedef struct ct_engine {
  uint32_t abi;      /* CT_ENGINE_ABI */
  const char* name;  /* "gloo", "mpi", "nccl" */
  int device_type;   /* 0: CPU buffers; 1: CUDA buffers */
  /* 1 when the engine reduces dtype (a ct_dtype) with op (CT_REDUCE_SUM .. CT_REDUCE_MAX) itself; the
     core carries floating dtypes it cannot reduce as float32, and refuses the rest. */
  int (*can_reduce)(int dtype, int op);
  /* A new communicator: *comm, this process's *rank and the group's *size. */
  int (*comm_create)(const ct_engine_init* init, void** comm, int* rank, int* size, ct_engine_error* err);
  void (*comm_destroy)(void* comm);
  /* count elements of dtype at buf, in place. */
  int (*all_reduce)(void* comm, void* buf, size_t count, int dtype, int op, void* stream, ct_engine_error* err);
  int (*broadcast)(void* comm, void* buf, size_t count, int dtype, int root, void* stream, ct_engine_error* err);
  /* In place on root; other ranks' buf may be used as scratch but is restored by the core. */
  int (*reduce)(void* comm, void* buf, size_t count, int dtype, int op, int root, void* stream, ct_engine_error* err);
  /* out holds size * count elements: rank r's count at r * count. */
  int (*all_gather)(void* comm, const void* in, void* out, size_t count, int dtype, void* stream,
                    ct_engine_error* err);
  /* in holds size * count elements; out gets count: block `rank` reduced over the ranks. */
  int (*reduce_scatter)(void* comm, const void* in, void* out, size_t count, int dtype, int op, void* stream,
                        ct_engine_error* err);
  /* out (size * count elements) is used on root only and may be NULL elsewhere. */
  int (*gather)(void* comm, const void* in, void* out, size_t count, int dtype, int root, void* stream,
                ct_engine_error* err);
  /* in (size * count elements) is read on root only and may be NULL elsewhere. */
  int (*scatter)(void* comm, const void* in, void* out, size_t count, int dtype, int root, void* stream,
                 ct_engine_error* err);
  /* in and out hold size * count elements: block r of in goes to rank r, block r of out is rank r's. */
  int (*all_to_all)(void* comm, const void* in, void* out, size_t count, int dtype, void* stream,
                    ct_engine_error* err);
  int (*send)(void* comm, const void* buf, size_t nbytes, int dst, int tag, void* stream, ct_engine_error* err);
  int (*recv)(void* comm, void* buf, size_t nbytes, int src, int tag, void* stream, ct_engine_error* err);
  int (*barrier)(void* comm, ct_engine_error* err);
  /* 1 when ranks that disagree on a collective's sizes, or a receive shorter than its message, would
     abort the process inside the engine (Gloo asserts in its I/O thread): the core then exchanges
     every collective's sizes first, and sends a message's size ahead of it (Note [Sizes agreed
     before sending] in collectives.cpp). 0 when the engine reports such mismatches itself or
     times out. */
  int needs_size_check;
} ct_engine;

typedef const ct_engine* (*ct_engine_get_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* CTORCH_DISTRIBUTED_ENGINE_H */
