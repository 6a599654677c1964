// store.cpp - the TCP, file and prefix stores (store.h).
//
// The TCP protocol is small on purpose: a request is a command byte and length-prefixed strings, a
// reply a status byte and one length-prefixed string. get does not wait on the server: the client
// asks again with a growing pause until the key is there or the timeout passes, which keeps the
// server a single poll() loop with no waiting lists. Stores are used at rendezvous and when a
// failure is explained, never per collective, so a few milliseconds of polling cost nothing.
#include "distributed/store.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "core/error.h"

namespace ct::dist {
namespace {

using Clock = std::chrono::steady_clock;

enum Command : uint8_t { kSet = 1, kGet = 2, kHello = 3, kLive = 4, kBye = 5 };
enum Reply : uint8_t { kFound = 0, kMissing = 1 };

void append_string(std::string& out, const std::string& s) {
  const uint32_t n = static_cast<uint32_t>(s.size());
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out.append(s);
}

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

bool read_all(int fd, char* p, size_t n) {
  while (n > 0) {
    const ssize_t k = ::recv(fd, p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

bool read_string(int fd, std::string& s) {
  uint32_t n = 0;
  if (!read_all(fd, reinterpret_cast<char*>(&n), sizeof n)) return false;
  s.resize(n);
  return n == 0 || read_all(fd, s.data(), n);
}

std::string describe(const std::string& host, int port) { return str("tcp store at ", host, ":", port); }

/// rank 0's server: one thread, one poll() loop over the listening socket and the clients.
class StoreServer {
 public:
  StoreServer(int listen_fd, double linger_seconds) : listen_fd_(listen_fd), linger_seconds_(linger_seconds) {
    if (::pipe(wake_) != 0) {
      ::close(listen_fd_);
      fail(CT_ERROR_DISTRIBUTED, str("init_process_group: cannot make the store's wake-up pipe: ", std::strerror(errno)));
    }
    thread_ = std::thread([this] { loop(); });
  }
  /// Serves on until every other rank has left or is lost, for at most linger_seconds: a rank
  /// that failed may still ask the store which ranks are gone (Note [Store liveness]), and rank 0
  /// is often the first to finish.
  ~StoreServer() {
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(linger_seconds_));
    while (connected_.load() > 0 && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    stop_ = true;
    const char c = 0;
    [[maybe_unused]] ssize_t k = ::write(wake_[1], &c, 1);
    thread_.join();
    for (auto& [fd, client] : clients_) ::close(fd);
    ::close(listen_fd_);
    ::close(wake_[0]);
    ::close(wake_[1]);
  }

 private:
  struct Client {
    int rank = -1;
    bool left = false;  // said goodbye: gone on purpose, not lost
    std::string in;     // bytes received and not yet a whole request
  };

  void drop(int fd) {
    const Client& c = clients_[fd];
    if (c.rank >= 0) {
      (c.left ? left_ : lost_).insert(c.rank);
      --connected_;
    }
    ::close(fd);
    clients_.erase(fd);
  }

  void loop() {
    std::vector<pollfd> fds;
    while (!stop_) {
      fds.clear();
      fds.push_back({wake_[0], POLLIN, 0});
      fds.push_back({listen_fd_, POLLIN, 0});
      for (auto& [fd, client] : clients_) fds.push_back({fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents & POLLIN) {
        const int fd = ::accept(listen_fd_, nullptr, nullptr);
        if (fd >= 0) {
          const int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          clients_[fd] = Client{};
        }
      }
      for (size_t i = 2; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const int fd = fds[i].fd;
        char buf[65536];
        const ssize_t k = ::recv(fd, buf, sizeof buf, 0);
        if (k <= 0) {  // the rank exited or was killed: Note [Store liveness]
          drop(fd);
          continue;
        }
        Client& c = clients_[fd];
        c.in.append(buf, static_cast<size_t>(k));
        if (!serve(fd, c)) drop(fd);
      }
    }
  }

  /// Answers every whole request in c.in; false when the client must be dropped.
  bool serve(int fd, Client& c) {
    for (;;) {
      if (c.in.size() < 4) return true;
      uint32_t len;
      std::memcpy(&len, c.in.data(), 4);
      if (c.in.size() < 4 + size_t{len}) return true;
      std::string req = c.in.substr(4, len);
      c.in.erase(0, 4 + size_t{len});
      if (req.empty()) return false;
      const uint8_t cmd = static_cast<uint8_t>(req[0]);
      size_t at = 1;
      auto field = [&](std::string& s) {
        if (req.size() < at + 4) return false;
        uint32_t n;
        std::memcpy(&n, req.data() + at, 4);
        if (req.size() < at + 4 + n) return false;
        s.assign(req, at + 4, n);
        at += 4 + n;
        return true;
      };
      std::string a, b, reply_value;
      uint8_t reply = kFound;
      switch (cmd) {
        case kSet:
          if (!field(a) || !field(b)) return false;
          data_[a] = b;
          break;
        case kGet: {
          if (!field(a)) return false;
          auto it = data_.find(a);
          if (it == data_.end()) reply = kMissing;
          else reply_value = it->second;
          break;
        }
        case kHello:
          if (!field(a) || c.rank >= 0) return false;
          c.rank = static_cast<int>(std::strtol(a.c_str(), nullptr, 10));
          lost_.erase(c.rank);
          left_.erase(c.rank);
          ++connected_;
          break;
        case kBye:
          c.left = true;
          break;
        case kLive: {  // "connected ranks | ranks that left on purpose"
          std::ostringstream os;
          for (auto& [other_fd, other] : clients_)
            if (other.rank >= 0) os << other.rank << ' ';
          os << '|';
          for (int r : left_) os << ' ' << r;
          reply_value = os.str();
          break;
        }
        default:
          return false;
      }
      std::string out(1, static_cast<char>(reply));
      append_string(out, reply_value);
      if (!write_all(fd, out.data(), out.size())) return false;
    }
  }

  int listen_fd_;
  double linger_seconds_;
  std::atomic<int> connected_{0};  // clients that said their rank and have not gone
  std::set<int> left_, lost_;
  int wake_[2] = {-1, -1};
  std::atomic<bool> stop_{false};
  std::map<int, Client> clients_;
  std::map<std::string, std::string> data_;
  std::thread thread_;
};

/// A socket listening on host:port (rank 0), or CT_ERROR_DISTRIBUTED saying why not.
int listen_on(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  const std::string port_s = std::to_string(port);
  const int rc = ::getaddrinfo(host.c_str(), port_s.c_str(), &hints, &res);
  CT_CHECK(rc == 0, CT_ERROR_DISTRIBUTED, "init_process_group: cannot resolve MASTER_ADDR '", host, "': ",
           gai_strerror(rc), ". Set MASTER_ADDR to this machine's address or name");
  std::string why;
  for (addrinfo* a = res; a; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 1024) == 0) {
      ::freeaddrinfo(res);
      return fd;
    }
    why = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(res);
  fail(CT_ERROR_DISTRIBUTED, str("init_process_group: rank 0 cannot serve the store on ", host, ":", port, " (", why,
                                 "). Choose a free MASTER_PORT, or end the process that holds it"));
}

/// A connection to host:port, retried until the deadline (the server may not be up yet).
int connect_to(const std::string& host, int port, Clock::time_point deadline, double timeout_seconds) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  const std::string port_s = std::to_string(port);
  std::string why = "no address";
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    addrinfo* res = nullptr;
    const int rc = ::getaddrinfo(host.c_str(), port_s.c_str(), &hints, &res);
    if (rc == 0) {
      for (addrinfo* a = res; a; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
          ::freeaddrinfo(res);
          const int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          return fd;
        }
        why = std::strerror(errno);
        ::close(fd);
      }
      ::freeaddrinfo(res);
    } else {
      why = gai_strerror(rc);
    }
    if (Clock::now() >= deadline)
      fail(CT_ERROR_TIMEOUT, str("init_process_group: could not reach the ", describe(host, port), " within ",
                                 timeout_seconds, " s (", why,
                                 "); rank 0 never arrived. Start rank 0, and check MASTER_ADDR and MASTER_PORT"));
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(100));
  }
}

class TcpStore final : public Store {
 public:
  TcpStore(const std::string& host, int port, int rank, int world_size, double timeout_seconds)
      : host_(host), port_(port) {
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(timeout_seconds));
    if (rank == 0) server_ = std::make_unique<StoreServer>(listen_on(host, port), std::min(timeout_seconds, 30.0));
    fd_ = connect_to(host, port, deadline, timeout_seconds);
    request(kHello, std::to_string(rank), nullptr);
  }
  ~TcpStore() override {
    try {
      request(kBye, "", nullptr);  // gone on purpose: not a missing rank
    } catch (const Error&) {
    }
    if (fd_ >= 0) ::close(fd_);
  }

  void set(const std::string& key, const std::string& value) override { request(kSet, key, &value); }

  std::string get(const std::string& key, double timeout_seconds) override {
    const auto start = Clock::now();
    auto pause = std::chrono::microseconds(200);
    for (;;) {
      std::string value;
      if (request(kGet, key, nullptr, &value) == kFound) return value;
      if (std::chrono::duration<double>(Clock::now() - start).count() >= timeout_seconds)
        fail(CT_ERROR_TIMEOUT, str("store get: key '", key, "' was not set within ", timeout_seconds, " s (",
                                   where(), ")"));
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(50000));
    }
  }

  bool check(const std::string& key) override {
    std::string value;
    return request(kGet, key, nullptr, &value) == kFound;
  }

  std::vector<int> missing_ranks(int world_size) override {
    std::string live;
    try {
      request(kLive, "", nullptr, &live);
    } catch (const Error&) {
      return {0};  // the store itself is gone, and with it rank 0, which served it
    }
    std::set<int> present;  // connected, or left on purpose
    std::string token;
    std::istringstream is(live);
    while (is >> token)
      if (token != "|") present.insert(static_cast<int>(std::strtol(token.c_str(), nullptr, 10)));
    std::vector<int> missing;
    for (int r = 0; r < world_size; ++r)
      if (!present.count(r)) missing.push_back(r);
    return missing;
  }

  std::string where() const override { return describe(host_, port_); }

 private:
  uint8_t request(Command cmd, const std::string& a, const std::string* b, std::string* reply_value = nullptr) {
    std::string body(1, static_cast<char>(cmd));
    append_string(body, a);
    if (b) append_string(body, *b);
    std::string msg;
    const uint32_t n = static_cast<uint32_t>(body.size());
    msg.append(reinterpret_cast<const char*>(&n), sizeof n);
    msg.append(body);
    std::lock_guard<std::mutex> lock(mu_);
    char reply = 0;
    std::string value;
    if (!write_all(fd_, msg.data(), msg.size()) || !read_all(fd_, &reply, 1) || !read_string(fd_, value))
      fail(CT_ERROR_DISTRIBUTED, str("store: the connection to the ", where(),
                                     " closed: rank 0, which serves it, has exited or was killed"));
    if (reply_value) *reply_value = std::move(value);
    return static_cast<uint8_t>(reply);
  }

  std::string host_;
  int port_;
  std::unique_ptr<StoreServer> server_;  // rank 0 only; destroyed after fd_ is closed (declared before it)
  int fd_ = -1;
  std::mutex mu_;
};

/// One file per key, named by the key's hex bytes; a write goes to a temporary file renamed into
/// place, so a reader sees a whole value or none.
class FileStore final : public Store {
 public:
  explicit FileStore(std::string dir) : dir_(std::move(dir)) {
    ::mkdir(dir_.c_str(), 0777);
    struct stat st;
    CT_CHECK(::stat(dir_.c_str(), &st) == 0 && S_ISDIR(st.st_mode), CT_ERROR_INVALID_ARGUMENT,
             "init_process_group: the file store '", dir_, "' is not a directory and cannot be made one (",
             std::strerror(errno), "). Give file:// a directory every rank can write");
  }

  void set(const std::string& key, const std::string& value) override {
    const std::string path = path_of(key);
    const std::string tmp = str(path, ".tmp.", ::getpid(), ".", tmp_counter_++);
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out.write(value.data(), static_cast<std::streamsize>(value.size()));
      CT_CHECK(out.good(), CT_ERROR_IO, "store set: cannot write '", tmp, "'");
    }
    CT_CHECK(::rename(tmp.c_str(), path.c_str()) == 0, CT_ERROR_IO, "store set: cannot rename '", tmp, "' to '", path,
             "': ", std::strerror(errno));
  }

  std::string get(const std::string& key, double timeout_seconds) override {
    const auto start = Clock::now();
    auto pause = std::chrono::microseconds(500);
    for (;;) {
      std::ifstream in(path_of(key), std::ios::binary);
      if (in) return std::string(std::istreambuf_iterator<char>(in), {});
      if (std::chrono::duration<double>(Clock::now() - start).count() >= timeout_seconds)
        fail(CT_ERROR_TIMEOUT,
             str("store get: key '", key, "' was not set within ", timeout_seconds, " s (", where(), ")"));
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(50000));
    }
  }

  bool check(const std::string& key) override { return ::access(path_of(key).c_str(), F_OK) == 0; }

  std::vector<int> missing_ranks(int) override { return {}; }
  std::string where() const override { return str("file store in ", dir_); }

 private:
  std::string path_of(const std::string& key) const {
    static const char* hex = "0123456789abcdef";
    std::string name;
    for (unsigned char ch : key) {
      name += hex[ch >> 4];
      name += hex[ch & 15];
    }
    return dir_ + "/" + name;
  }

  std::string dir_;
  std::atomic<int64_t> tmp_counter_{0};
};

class PrefixStore final : public Store {
 public:
  PrefixStore(std::shared_ptr<Store> base, std::string prefix) : base_(std::move(base)), prefix_(std::move(prefix)) {}
  void set(const std::string& key, const std::string& value) override { base_->set(prefix_ + key, value); }
  std::string get(const std::string& key, double timeout_seconds) override {
    return base_->get(prefix_ + key, timeout_seconds);
  }
  bool check(const std::string& key) override { return base_->check(prefix_ + key); }
  std::vector<int> missing_ranks(int world_size) override { return base_->missing_ranks(world_size); }
  std::string where() const override { return base_->where(); }

 private:
  std::shared_ptr<Store> base_;
  std::string prefix_;
};

}  // namespace

std::shared_ptr<Store> tcp_store(const std::string& host, int port, int rank, int world_size, double timeout_seconds) {
  return std::make_shared<TcpStore>(host, port, rank, world_size, timeout_seconds);
}

std::shared_ptr<Store> file_store(const std::string& path) { return std::make_shared<FileStore>(path); }

std::shared_ptr<Store> prefix_store(std::shared_ptr<Store> base, std::string prefix) {
  return std::make_shared<PrefixStore>(std::move(base), std::move(prefix));
}

}  // namespace ct::dist
