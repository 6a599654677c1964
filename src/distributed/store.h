// store.h - the key-value store the ranks of a job meet through (torch's c10d Store): a TCP store
// served by rank 0 for env:// and tcp://, a directory for file://.
//
// Note [Store liveness]
// Each rank keeps one connection to the TCP store for the life of its groups, and says its rank
// when it connects. The server (on rank 0) therefore knows which ranks are alive: a process that
// exits or is killed closes its socket, while one that ends its store says goodbye first, so the
// server tells a lost rank from one that left (after its own failure, say). When a collective
// fails or times out, the core asks the store which ranks never came or were lost, and names them
// in the error. Rank 0 keeps serving at exit until the others have gone (bounded), since it is
// often the first to finish. A file store cannot tell (a file outlives its writer): its errors name
// no rank.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace ct::dist {

class Store {
 public:
  virtual ~Store() = default;
  virtual void set(const std::string& key, const std::string& value) = 0;
  /// The value of key once some rank has set it; CT_ERROR_TIMEOUT after timeout_seconds.
  virtual std::string get(const std::string& key, double timeout_seconds) = 0;
  /// Whether key is set now (never waits).
  virtual bool check(const std::string& key) = 0;
  /// The ranks in [0, world_size) that never connected or were lost without leaving (Note [Store
  /// liveness]); {0} when the store itself is gone; empty when the store cannot tell.
  virtual std::vector<int> missing_ranks(int world_size) = 0;
  /// A description for messages ("tcp store at 127.0.0.1:29500").
  virtual std::string where() const = 0;
};

/// The TCP store at host:port: rank 0 serves it (and connects to itself), the others connect,
/// retrying until timeout_seconds. Raises CT_ERROR_DISTRIBUTED when rank 0 cannot listen on the
/// port, CT_ERROR_TIMEOUT when it cannot be reached in time.
std::shared_ptr<Store> tcp_store(const std::string& host, int port, int rank, int world_size, double timeout_seconds);
/// The store in directory path (created when missing), one file per key.
std::shared_ptr<Store> file_store(const std::string& path);

/// The keys of store under prefix: what a sub-group uses so its keys never meet the parent's.
std::shared_ptr<Store> prefix_store(std::shared_ptr<Store> base, std::string prefix);

}  // namespace ct::dist
