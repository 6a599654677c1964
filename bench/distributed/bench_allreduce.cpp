// bench_allreduce.cpp - all_reduce bandwidth of ctorch's distributed engines beside each engine
// called directly in the same run, and beside torch.distributed's gloo backend: float32 sum,
// 4 KB to 256 MB, 2 ranks on this machine over loopback (issue 31; target: ctorch >= 90% of the
// engine's own figure).
//
//   bench_allreduce            runs every side it can and prints one table
//
// The program is its own launcher. For gloo it starts two copies of itself as workers with
// torchrun's variables (RANK, WORLD_SIZE, MASTER_ADDR=127.0.0.1, MASTER_PORT); each worker times
// gloo::allreduce on a gloo context of its own (rendezvous through a gloo FileStore in a temporary
// directory) and ct_dist_all_reduce on a ctorch "gloo" group, alternately. For mpi it runs
// `mpirun -np 2 --oversubscribe` on itself; each worker times MPI_Allreduce on MPI_COMM_WORLD and
// ct_dist_all_reduce on a ctorch "mpi" group (the same MPI library, initialized once). torch's
// column comes from torch_allreduce.py run by the interpreter in CTORCH_BENCH_TORCH_PYTHON (a
// venv with torch from PyPI; scripts/bench.sh makes it), left out when that is unset or fails.
//
// Bandwidth is algorithm bandwidth: the buffer's bytes over the time of one all_reduce, best of a
// few repetitions of a timed loop, measured on rank 0 (all_reduce synchronizes the ranks).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "ctorch.h"

#ifdef BENCH_HAVE_GLOO
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>
#endif
#ifdef BENCH_HAVE_MPI
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#endif

extern char** environ;

namespace {

const size_t kMinBytes = 4 << 10, kMaxBytes = 256 << 20;

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_allreduce: %s\n", what.c_str());
  std::exit(1);
}

void check(ct_status s, const char* what) {
  if (s != CT_OK) die(std::string(what) + " failed: " + ct_status_name(s) + ": " + ct_last_error());
}

// Iterations of the timed loop: about 32 MB moved per loop, 3 to 200 calls.
int iterations(size_t bytes) {
  size_t n = (size_t{32} << 20) / bytes;
  return n < 3 ? 3 : n > 200 ? 200 : static_cast<int>(n);
}
// Best of a few timed loops; more where a loop is short and a neighbour's burst of work (this is a
// 2-core machine) would decide the figure.
int repetitions(size_t bytes) { return bytes >= (size_t{64} << 20) ? 2 : bytes >= (size_t{4} << 20) ? 3 : 5; }

// ---- Workers: one per rank ----

struct Row {
  size_t bytes;
  double engine_s;  // seconds per all_reduce, the engine called directly
  double ctorch_s;  // seconds per ct_dist_all_reduce
};

// Times `direct` and ctorch's all_reduce alternately at every size; barrier() lines the ranks up.
template <typename Direct, typename Barrier>
std::vector<Row> measure(ct_process_group* pg, Direct direct, Barrier barrier) {
  std::vector<Row> rows;
  for (size_t bytes = kMinBytes; bytes <= kMaxBytes; bytes *= 4) {
    const size_t n = bytes / sizeof(float);
    std::vector<float> buf(n, 0.0f);
    const int64_t size = static_cast<int64_t>(n);
    ct_tensor* t = nullptr;
    check(ct_tensor_from_data(buf.data(), &size, 1, CT_FLOAT32, &t), "ct_tensor_from_data");
    const int iters = iterations(bytes);
    direct(buf.data(), n);  // warm-up: connections, first-touch pages
    check(ct_dist_all_reduce(pg, t, CT_REDUCE_SUM, nullptr), "ct_dist_all_reduce");
    Row row{bytes, 1e30, 1e30};
    auto time_direct = [&] {
      barrier();
      const double t0 = now_s();
      for (int i = 0; i < iters; ++i) direct(buf.data(), n);
      row.engine_s = std::min(row.engine_s, (now_s() - t0) / iters);
    };
    auto time_ctorch = [&] {
      barrier();
      const double t0 = now_s();
      for (int i = 0; i < iters; ++i) check(ct_dist_all_reduce(pg, t, CT_REDUCE_SUM, nullptr), "ct_dist_all_reduce");
      row.ctorch_s = std::min(row.ctorch_s, (now_s() - t0) / iters);
    };
    // Each side goes first in every other repetition: on 2 cores the loop timed first after a
    // switch of sides ran measurably faster or slower (Gloo's I/O thread waking), whichever it was.
    for (int rep = 0; rep < 2 * repetitions(bytes); ++rep) {
      if (rep % 2 == 0) {
        time_direct();
        time_ctorch();
      } else {
        time_ctorch();
        time_direct();
      }
    }
    ct_tensor_release(t);
    rows.push_back(row);
  }
  return rows;
}

void write_rows(const std::vector<Row>& rows, const char* backend) {
  const char* dir = std::getenv("CTORCH_BENCH_DIR");
  if (!dir) die("CTORCH_BENCH_DIR is not set (workers are started by bench_allreduce itself)");
  const std::string path = std::string(dir) + "/" + backend + ".txt";
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) die("cannot write " + path);
  for (const Row& r : rows) std::fprintf(f, "%zu %.9g %.9g\n", r.bytes, r.engine_s, r.ctorch_s);
  std::fclose(f);
}

#ifdef BENCH_HAVE_GLOO
int gloo_worker() {
  const int rank = std::atoi(std::getenv("RANK")), size = std::atoi(std::getenv("WORLD_SIZE"));
  ct_process_group* pg = nullptr;
  check(ct_dist_init_process_group("gloo", nullptr, -1, -1, 300, &pg), "ct_dist_init_process_group(gloo)");
  // The engine's own context: its own rendezvous (a FileStore) and connections.
  gloo::rendezvous::FileStore store(std::string(std::getenv("CTORCH_BENCH_DIR")) + "/gloo_store");
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
  context->setTimeout(std::chrono::seconds(300));
  context->connectFullMesh(store, device);
  uint32_t tag = 0;
  using ReduceFn = void (*)(void*, const void*, const void*, size_t);
  auto direct = [&](float* p, size_t n) {
    gloo::AllreduceOptions opts(context);
    opts.setOutput(p, n);
    opts.setReduceFunction(static_cast<ReduceFn>(&gloo::sum<float>));
    opts.setTag(tag++);
    gloo::allreduce(opts);
  };
  auto barrier = [&] {
    gloo::BarrierOptions opts(context);
    opts.setTag(tag++);
    gloo::barrier(opts);
  };
  const std::vector<Row> rows = measure(pg, direct, barrier);
  if (rank == 0) write_rows(rows, "gloo");
  ct_process_group_destroy(pg);
  return 0;
}
#endif

#ifdef BENCH_HAVE_MPI
int mpi_worker() {
  ct_process_group* pg = nullptr;
  // ctorch initializes MPI (MPI_THREAD_MULTIPLE) and finalizes it at exit; the direct calls share it.
  check(ct_dist_init_process_group("mpi", nullptr, -1, -1, 300, &pg), "ct_dist_init_process_group(mpi)");
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  auto direct = [](float* p, size_t n) {
    MPI_Allreduce(MPI_IN_PLACE, p, static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  };
  auto barrier = [] { MPI_Barrier(MPI_COMM_WORLD); };
  const std::vector<Row> rows = measure(pg, direct, barrier);
  if (rank == 0) write_rows(rows, "mpi");
  ct_process_group_destroy(pg);
  return 0;
}
#endif

// ---- The launcher ----

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    die("cannot find a free loopback port");
  close(fd);
  return ntohs(a.sin_port);
}

pid_t spawn(const std::vector<std::string>& args, const std::vector<std::string>& extra_env) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  for (const std::string& e : extra_env) env_strings.push_back(e);
  std::vector<char*> argv, envp;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data()) != 0) return -1;
  return pid;
}

// Waits for every pid, at most seconds in all; kills what is left. True when all exited 0.
bool wait_all(std::vector<pid_t> pids, double seconds, const char* what) {
  const double end = now_s() + seconds;
  bool ok = true;
  while (!pids.empty()) {
    for (size_t i = 0; i < pids.size();) {
      int st = 0;
      pid_t r = waitpid(pids[i], &st, WNOHANG);
      if (r == pids[i]) {
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) ok = false;
        pids.erase(pids.begin() + static_cast<long>(i));
      } else {
        ++i;
      }
    }
    if (pids.empty()) break;
    if (now_s() > end) {
      std::fprintf(stderr, "bench_allreduce: %s did not finish within %.0f s; stopping it\n", what, seconds);
      for (pid_t p : pids) kill(p, SIGKILL);
      for (pid_t p : pids) waitpid(p, nullptr, 0);
      return false;
    }
    usleep(20000);
  }
  return ok;
}

std::map<size_t, std::vector<double>> read_rows(const std::string& path) {
  std::map<size_t, std::vector<double>> rows;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    size_t bytes = 0;
    double a = 0, b = 0;
    const int n = std::sscanf(line.c_str(), "%zu %lf %lf", &bytes, &a, &b);
    if (n >= 2) rows[bytes] = n == 3 ? std::vector<double>{a, b} : std::vector<double>{a};
  }
  return rows;
}

std::string size_name(size_t bytes) {
  char s[32];
  if (bytes >= (1u << 20)) std::snprintf(s, sizeof s, "%zu MB", bytes >> 20);
  else std::snprintf(s, sizeof s, "%zu KB", bytes >> 10);
  return s;
}

int launcher(const char* self) {
  char dir_template[] = "/tmp/ctorch-bench-allreduce-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (!dir) die("cannot make a temporary directory");
  const std::string d = dir;
  if (mkdir((d + "/gloo_store").c_str(), 0700) != 0) die("cannot make " + d + "/gloo_store");
  std::vector<std::string> notes;

  std::vector<std::string> backends;
  for (const char* b : {"gloo", "mpi"}) {
    int available = 0;
    check(ct_dist_is_backend_available(b, &available), "ct_dist_is_backend_available");
    bool compiled = false;
#ifdef BENCH_HAVE_GLOO
    compiled |= std::strcmp(b, "gloo") == 0;
#endif
#ifdef BENCH_HAVE_MPI
    compiled |= std::strcmp(b, "mpi") == 0;
#endif
    if (!available) notes.push_back(std::string(b) + ": not measured (" + ct_last_error() + ")");
    else if (!compiled) notes.push_back(std::string(b) + ": not measured (this benchmark was built without it)");
    else backends.push_back(b);
  }

  for (const std::string& b : backends) {
    std::vector<pid_t> pids;
    if (b == "gloo") {
      const std::string port = std::to_string(free_port());
      for (int r = 0; r < 2; ++r)
        pids.push_back(spawn({self, "--worker", "gloo"},
                             {"RANK=" + std::to_string(r), "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1",
                              "MASTER_PORT=" + port, "CTORCH_BENCH_DIR=" + d}));
    } else {
#ifdef BENCH_MPIEXEC
      pids.push_back(spawn({BENCH_MPIEXEC, "-np", "2", "--oversubscribe", self, "--worker", "mpi"},
                           {"CTORCH_BENCH_DIR=" + d, "OMPI_ALLOW_RUN_AS_ROOT=1",
                            "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"}));
#endif
    }
    for (pid_t p : pids)
      if (p < 0) die("cannot start the " + b + " workers");
    if (!wait_all(pids, 150, (b + " workers").c_str())) notes.push_back(b + ": the workers failed (see above)");
  }

  bool have_torch = false;
  std::string torch_version;
  if (const char* py = std::getenv("CTORCH_BENCH_TORCH_PYTHON"); py && *py) {
    const pid_t p = spawn({py, BENCH_TORCH_SCRIPT, d + "/torch.txt", std::to_string(kMinBytes),
                           std::to_string(kMaxBytes)}, {});
    have_torch = p > 0 && wait_all({p}, 150, "torch_allreduce.py");
    std::ifstream v(d + "/torch.txt.version");
    std::getline(v, torch_version);
    if (!have_torch) notes.push_back("torch: torch_allreduce.py failed (see above)");
  } else {
    notes.push_back("torch: not measured (set CTORCH_BENCH_TORCH_PYTHON to a python with torch; scripts/bench.sh does)");
  }

  auto gloo = read_rows(d + "/gloo.txt"), mpi = read_rows(d + "/mpi.txt"), torch = read_rows(d + "/torch.txt");
  std::printf("all_reduce bandwidth, float32 sum, 2 ranks on this machine (loopback), GB/s = bytes / time of one call\n");
  std::printf("  gloo: gloo::allreduce called directly vs ct_dist_all_reduce(\"gloo\")%s\n",
              have_torch ? (", and torch.distributed's gloo backend (torch " + torch_version + ")").c_str() : "");
  std::printf("  mpi:  MPI_Allreduce called directly vs ct_dist_all_reduce(\"mpi\")\n\n");
  std::printf("%-8s | %10s %10s %7s | %10s %10s %7s | %10s %11s\n", "size", "gloo", "ctorch", "ratio", "mpi", "ctorch",
              "ratio", "torch gloo", "ctorch/torch");
  auto gbps = [](size_t bytes, double s) { return static_cast<double>(bytes) / s / 1e9; };
  for (size_t bytes = kMinBytes; bytes <= kMaxBytes; bytes *= 4) {
    std::printf("%-8s |", size_name(bytes).c_str());
    for (auto* rows : {&gloo, &mpi}) {
      auto it = rows->find(bytes);
      if (it == rows->end()) std::printf(" %10s %10s %7s |", "-", "-", "-");
      else
        std::printf(" %10.3f %10.3f %7.2f |", gbps(bytes, it->second[0]), gbps(bytes, it->second[1]),
                    it->second[0] / it->second[1]);
    }
    auto t = torch.find(bytes);
    auto g = gloo.find(bytes);
    if (t == torch.end()) std::printf(" %10s %11s\n", "-", "-");
    else if (g == gloo.end()) std::printf(" %10.3f %11s\n", gbps(bytes, t->second[0]), "-");
    else std::printf(" %10.3f %11.2f\n", gbps(bytes, t->second[0]), t->second[0] / g->second[1]);
  }
  for (const std::string& n : notes) std::printf("note: %s\n", n.c_str());
  // The temporary directory: result files and gloo's FileStore keys.
  std::string rm = "rm -rf '" + d + "'";
  if (std::system(rm.c_str()) != 0) std::fprintf(stderr, "bench_allreduce: could not remove %s\n", d.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  check(ct_init(CT_ABI_VERSION), "ct_init");
  if (argc >= 3 && std::strcmp(argv[1], "--worker") == 0) {
#ifdef BENCH_HAVE_GLOO
    if (std::strcmp(argv[2], "gloo") == 0) return gloo_worker();
#endif
#ifdef BENCH_HAVE_MPI
    if (std::strcmp(argv[2], "mpi") == 0) return mpi_worker();
#endif
    die(std::string("no worker for ") + argv[2] + " in this build");
  }
  // Workers are started by path: /proc/self/exe is this program wherever it was run from.
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) die("cannot find this program's path");
  self[n] = '\0';
  return launcher(self);
}
