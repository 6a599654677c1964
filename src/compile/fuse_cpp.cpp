// fuse_cpp.cpp - fused cpu kernels as generated C++, built by the system compiler.
//
// Note [C++ kernels]
// The tile loops of fuse.cpp run each instruction of a plan as its own loop over the tile: every
// intermediate is stored to an L1 buffer and loaded again by the next instruction. RMSNorm
// (x * rsqrt(mean(x * x) + eps) * w) thus makes four passes over each row where a compiler would
// make two, with every value of the chain in registers: 1.1 ms against Inductor's 0.69 ms on
// 4096x1024. With the option "cpp_kernels", a cpu plan becomes C++ source instead, as Inductor's
// cpp backend does: per row, one loop over the columns per reduction (its operand's chain inlined
// into the fold), row values in scalars, and one loop for the per-element outputs. The system
// compiler builds it (while compiling in mode "max-autotune"; by default in the background, once
// the kernel is hot: Note [Building C++ kernels in the background]; a fraction of a second,
// `$CXX`, else `c++`), and the library loads it with dlopen and calls it from the same tile loop,
// threads and tiles, so only the inner loops change.
//
// Same bits. The source starts with the text of the headers the eager kernels are compiled from
// (vec_math.h, element_math.h and fns.h for the element functions; row_fold.h and folds.h for
// the order and the folds of reductions), embedded at build time (cmake/embed_source.cmake), and is
// built with the library's floating-point flags (-ffp-contract=off: no fused multiply-add that the
// eager kernels do not make) for the ISA the eager kernels dispatch to. Each element is computed by
// the functor eager calls, and a reduction folds its row in reduce_row's order. So results are the
// tile loops' bits, which are eager's (Note [Fused CPU kernels]). Plans this cannot promise for stay
// on the tile loops: sin and cos, whose loops switch to a wide form over a run with one large
// argument (cpp_unsupported).
//
// Cache. Sources are keyed by a 64-bit FNV-1a hash of their text, the compiler and its flags; the
// shared object goes to $CTORCH_CACHE_DIR, else $XDG_CACHE_HOME/ctorch/kernels, else
// ~/.cache/ctorch/kernels (with its source beside it, <key>.cpp), written under a temporary name and
// renamed, so processes and threads that compile the same kernel at once each see a whole file. A
// process loads each kernel once. Where no compiler runs or nothing can be written, the plan keeps
// its tile loops, and a warning says why. When kernels are built: Note [Building C++ kernels in the
// background].
#include "compile/fuse_cpp.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "core/fault_injection.h"
#include "ops/cpu/isa.h"

extern char** environ;

namespace ct::compile {
namespace {

class CppEmitter {
 public:
  explicit CppEmitter(const Plan& p) : p_(p), n_(p.code.size()) {}

  std::string source() {
    s_ += kCpuKernelPreamble;
    s_ += str("\n// ---- the kernel: ", p_.description, "\ntypedef ", p_.dtype == DType::Float32 ? "float" : "double",
              " T;\nextern \"C\" void ct_fused_tile(T* const* slot, int64_t rows, int64_t C) {\n");
    for (size_t k = 0; k < p_.slots.size(); ++k) {
      const Slot& sl = p_.slots[k];
      if (sl.kind == Slot::Kind::Imm || (sl.kind == Slot::Kind::Input && sl.cls == Cls::Scalar))
        s_ += str("  const T s", k, " = *slot[", k, "];\n");
      else if (sl.kind == Slot::Kind::Input)
        s_ += str("  const T* __restrict s", k, " = slot[", k, "];\n");
      else if (sl.kind == Slot::Kind::Output)
        s_ += str("  T* __restrict s", k, " = slot[", k, "];\n");
    }
    plan_loops();
    if (!kept_.empty()) s_ += str("  std::unique_ptr<T[]> kept(new T[", kept_.size(), " * C]);\n");
    s_ += "  for (int64_t r = 0; r < rows; ++r) {\n";
    size_t loop = 0;
    for (size_t k = 0; k < n_; ++k) {
      if (!row_value(p_, k)) continue;
      const Instr& in = p_.code[k];
      if (is_reduction(in.code)) {
        const char* fold = in.code == Code::Amax   ? "ExtremumFold<T, true>"
                           : in.code == Code::Amin ? "ExtremumFold<T, false>"
                                                   : "SumFold<T>";
        s_ += str("    const T v", k, " = ct::cpu::fold_row<ct::cpu::", fold, ">(C, [&](int64_t i) -> T {\n");
        elements(loop++, "      ");
        s_ += str("      return ", operand(in.a), ";\n    })", in.code == Code::Mean ? " / T(C)" : "", ";\n");
      } else {
        s_ += str("    const T v", k, " = ", call(in), ";\n");
      }
      if (p_.slots[k].kind == Slot::Kind::Output) s_ += str("    s", k, "[r] = v", k, ";\n");
    }
    if (loop < loops_.size()) {
      s_ += "    for (int64_t i = 0; i < C; ++i) {\n";
      elements(loop, "      ");
      for (size_t k = 0; k < n_; ++k) {
        if (p_.slots[k].kind != Slot::Kind::Output || row_value(p_, k)) continue;
        // A column sum adds the row to its block's sums (Note [Fused column sums] in fuse.cpp).
        if (p_.code[k].code == Code::ColumnSum)
          s_ += str("      s", k, "[i] = ct::cpu::SumFold<T>::step(s", k, "[i], ", operand(p_.code[k].a), ", 0);\n");
        else s_ += str("      s", k, "[r * C + i] = v", k, ";\n");
      }
      s_ += "    }\n";
    }
    s_ += "  }\n}\n";
    return s_;
  }

 private:
  std::string operand(const Operand& o) const {
    if (static_cast<size_t>(o.slot) < n_) return str("v", o.slot);
    const Slot& sl = p_.slots[o.slot];
    if (sl.kind == Slot::Kind::Imm || sl.cls == Cls::Scalar) return str("s", o.slot);
    return str("s", o.slot, sl.cls == Cls::Full ? "[r * C + i]" : sl.cls == Cls::Row ? "[r]" : "[i]");
  }

  std::string call(const Instr& in) const {
    return element_call(in, [this](const Operand& o) { return operand(o); });
  }

  // The loops over a row's columns: one per reduction (its operand), then one for the per-element
  // outputs, if any; and which values a loop keeps for later ones (see keep below).
  void plan_loops() {
    for (size_t k = 0; k < n_; ++k) {
      if (!is_reduction(p_.code[k].code)) continue;
      std::vector<bool> need(n_, false);
      if (static_cast<size_t>(p_.code[k].a.slot) < n_) need[p_.code[k].a.slot] = true;
      loops_.push_back(std::move(need));
    }
    std::vector<bool> outs(n_, false);
    bool any = false;
    for (size_t k = 0; k < n_; ++k) any |= outs[k] = p_.slots[k].kind == Slot::Kind::Output && !row_value(p_, k);
    if (any) loops_.push_back(std::move(outs));
    // A transcendental value that several loops need (softmax's exp(x - max), summed, then divided)
    // is computed once, in the first, and kept in a row buffer for the others: an exp costs more
    // than a store and a load from L1. The kept values are the same bits either way.
    std::vector<int> first(n_, -1), uses(n_, 0);
    for (size_t l = 0; l < loops_.size(); ++l) {
      std::vector<bool> need = loops_[l];
      close_over_elements(p_, need);
      for (size_t k = 0; k < n_; ++k)
        if (need[k] && !row_value(p_, k)) {
          if (first[k] < 0) first[k] = static_cast<int>(l);
          ++uses[k];
        }
    }
    for (size_t k = 0; k < n_; ++k)
      if (uses[k] >= 2 && p_.code[k].unary()) kept_.emplace_back(k, first[k]);
  }

  // The per-element values loop l needs, in program order, for one column i: a kept value is
  // computed and stored in its first loop and read back in later ones.
  void elements(size_t l, const char* indent) {
    std::vector<bool> need = loops_[l];
    std::vector<bool> read_back(n_, false);
    for (const auto& [k, at] : kept_) read_back[k] = static_cast<size_t>(at) < l;
    close_over_elements(p_, need, &read_back);
    for (size_t k = 0; k < n_; ++k) {
      if (!need[k] || row_value(p_, k) || p_.code[k].code == Code::ColumnSum) continue;
      const auto kept = std::find_if(kept_.begin(), kept_.end(), [&](const auto& e) { return e.first == k; });
      const std::string at = str("kept[", kept - kept_.begin(), " * C + i]");
      if (read_back[k]) {
        s_ += str(indent, "const T v", k, " = ", at, ";\n");
        continue;
      }
      s_ += str(indent, "const T v", k, " = ", call(p_.code[k]), ";\n");
      if (kept != kept_.end()) s_ += str(indent, at, " = v", k, ";\n");
    }
  }

  const Plan& p_;
  const size_t n_;
  std::string s_;
  std::vector<std::vector<bool>> loops_;           // per loop, the values it must produce
  std::vector<std::pair<size_t, int>> kept_;       // values kept in a row buffer, and their first loop
};

// ---- Building and loading.

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string cache_dir() {
  if (const char* d = std::getenv("CTORCH_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return str(x, "/ctorch/kernels");
  if (const char* h = std::getenv("HOME"); h && *h) return str(h, "/.cache/ctorch/kernels");
  return "";
}

// mkdir -p; false when some part cannot be made.
bool make_dirs(const std::string& dir) {
  for (size_t at = 1; at <= dir.size(); ++at) {
    if (at < dir.size() && dir[at] != '/') continue;
    const std::string part = dir.substr(0, at);
    if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string read_head(const std::string& path, size_t most) {
  std::ifstream f(path);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return text.size() > most ? text.substr(0, most) + "..." : text;
}

// The compiler's flags: the library's floating-point flags (src/CMakeLists.txt) and the ISA its
// eager kernels dispatch to (Note [CPU capability dispatch]).
std::vector<std::string> compiler_flags() {
  std::vector<std::string> f = {"-O3", "-std=c++17", "-fPIC", "-shared", "-ffp-contract=off", "-fno-math-errno",
                                "-fwrapv", "-w"};
#if CT_HAVE_AVX2_KERNELS
  if (cpu::has_avx512()) {
    for (const char* m : {"-mavx512f", "-mavx512dq", "-mavx512vl", "-mavx2", "-mfma"}) f.push_back(m);
  } else if (cpu::has_avx2()) {
    for (const char* m : {"-mavx2", "-mfma"}) f.push_back(m);
  }
#endif
  return f;
}

// Runs argv (argv[0] looked up in PATH) with its output to log; its exit status, or why it did not run.
bool run_compiler(const std::vector<std::string>& argv, const std::string& log, std::string& why) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 2, 1);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    why = str("the C++ compiler `", argv[0], "` could not be run (", std::strerror(err),
              "); install one or name it in $CXX");
    return false;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      why = str("waiting for the C++ compiler `", argv[0], "` failed (", std::strerror(errno), ")");
      return false;
    }
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  why = str("the C++ compiler `", argv[0], "` failed: ", read_head(log, 600));
  return false;
}

}  // namespace

std::string cpp_unsupported(const Plan& p) {
  if (!p.device.is_cpu()) return "not a cpu kernel";
  for (const Instr& in : p.code)
    if (in.code == Code::Element && in.fn->has_wide_form)
      return str("ct::fn::", in.fn->functor, " switches to its wide form per run of elements, which a C++ kernel does not");
  return "";
}

std::string cpp_source(const Plan& p) { return CppEmitter(p).source(); }

namespace {

// The process's loaded kernels, by key: they stay loaded. Never destroyed, as the background
// builder may still use it while the process exits.
struct LoadedKernels {
  std::mutex mu;
  std::unordered_map<uint64_t, void*> fns;
};
LoadedKernels& loaded_kernels() {
  static LoadedKernels* k = new LoadedKernels;
  return *k;
}

}  // namespace

void* load_cpp_kernel(const std::string& source, std::string& why) {
  const char* cxx_env = std::getenv("CXX");
  const std::string cxx = cxx_env && *cxx_env ? cxx_env : "c++";
  const std::vector<std::string> flags = compiler_flags();
  std::string keyed = source + "\n// " + cxx;
  for (const std::string& f : flags) keyed += " " + f;
  const uint64_t key = fnv1a(keyed);
  why.clear();  // below, an empty why means every step so far went well
  LoadedKernels& loaded = loaded_kernels();
  {
    // Held only to look up and to record: the compiler runs unlocked, so a kernel built while
    // compiling does not wait for one the background builder is building.
    std::lock_guard<std::mutex> lock(loaded.mu);
    if (auto it = loaded.fns.find(key); it != loaded.fns.end()) return it->second;
  }
  const std::string dir = cache_dir();
  if (dir.empty() || !make_dirs(dir)) {
    why = str("the kernel cache directory \"", dir, "\" cannot be made; set $CTORCH_CACHE_DIR to a writable one");
    return nullptr;
  }
  char name[32];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(key));
  const std::string stem = str(dir, "/", name), so = stem + ".so";
  if (::access(so.c_str(), R_OK) != 0) {
    // Unique per process and call: two threads may build the same kernel at once.
    static std::atomic<uint64_t> calls{0};
    const std::string tmp = str(stem, ".", ::getpid(), ".", calls.fetch_add(1));
    {
      std::ofstream out(tmp + ".cpp");
      out << source;
      if (!out.flush()) why = str("cannot write ", tmp, ".cpp; set $CTORCH_CACHE_DIR to a writable directory");
    }
    std::vector<std::string> argv = {cxx};
    argv.insert(argv.end(), flags.begin(), flags.end());
    for (const std::string& a : {std::string("-o"), tmp + ".so", tmp + ".cpp"}) argv.push_back(a);
    if (why.empty() && run_compiler(argv, tmp + ".log", why)) {
      // The source stays beside its object, for whoever wants to read what runs.
      for (const char* ext : {".cpp", ".so"})
        if (why.empty() && std::rename((tmp + ext).c_str(), (stem + ext).c_str()) != 0)
          why = str("cannot rename ", tmp, ext, " to ", stem, ext, " (", std::strerror(errno), ")");
    }
    for (const char* ext : {".cpp", ".log", ".so"}) std::remove((tmp + ext).c_str());  // what is left
    if (::access(so.c_str(), R_OK) != 0) return nullptr;
  }
  void* handle = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  void* fn = handle ? ::dlsym(handle, "ct_fused_tile") : nullptr;
  if (!fn) {
    const char* e = ::dlerror();
    why = str("cannot load the C++ kernel ", so, ": ", e ? e : "no ct_fused_tile in it");
    if (handle) ::dlclose(handle);
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(loaded.mu);
  return loaded.fns.emplace(key, fn).first->second;  // dlopen of one path twice gives one object
}

// Note [Building C++ kernels in the background]
// Mode "max-autotune" builds every C++ kernel while compiling: a fraction of a second each, on
// top of a compile that otherwise takes milliseconds. The default ("cpp_kernels": "auto") compiles
// in milliseconds and starts on the tile loops, as a tiered JIT starts in its interpreter: a kernel
// that has spent "cpp_kernels_hot_ms" milliseconds (an option, 20 by default) in its tile loops
// has shown it runs in a loop, and its source is queued for the process's one builder thread. The
// thread builds kernels one at a time (the system compiler takes a core; more at once would take
// the cores the program computes on) and stores each in its slot; the kernel's next run calls it.
// A C++ kernel gives the tile loops' bits (Note [C++ kernels]), so nothing a program computes
// depends on when the switch happens, only its speed. Out of memory while queueing or building is
// absorbed: the kernel keeps its tile loops, and its next call warns, or asks again.
//
// Lifetime. The thread is detached and its state never destroyed: a process may exit while it
// builds (its compiler child then finishes alone, and the cache's rename keeps the file whole).
// A job holds its slot, not the kernel, so a graph released while its kernel builds is freed as
// usual. fork: the child has no builder thread, so the child's handler (pthread_atfork, both locks
// held across the fork) forgets the parent's queue and lets the child start a thread of its own.
namespace {

struct BuildJob {
  std::string source;
  std::shared_ptr<CppKernelSlot> slot;
};

struct Builder {
  std::mutex mu;
  std::condition_variable queued, idle;
  std::deque<BuildJob> jobs;
  int64_t pending = 0;  // queued or building
  bool started = false;
};

Builder& builder();

void lock_for_fork() {
  builder().mu.lock();
  loaded_kernels().mu.lock();
}
void unlock_after_fork() {
  loaded_kernels().mu.unlock();
  builder().mu.unlock();
}
void reset_in_child() {
  Builder& b = builder();
  b.jobs.clear();
  b.pending = 0;
  b.started = false;
  unlock_after_fork();
}

Builder& builder() {
  static Builder* b = [] {
    auto* made = new Builder;  // never destroyed: see Lifetime in the Note
    ::pthread_atfork(lock_for_fork, unlock_after_fork, reset_in_child);
    return made;
  }();
  return *b;
}

// Builds one job into its slot. Nothing escapes: an exception here would end the process.
void build(BuildJob& job) noexcept {
  try {
    std::string why;
    if (void* fn = load_cpp_kernel(job.source, why)) return job.slot->fn.store(fn, std::memory_order_release);
    job.slot->why = std::move(why);
  } catch (const std::exception& e) {
    // Out of memory, most likely: absorbed on purpose, as the kernel keeps its tile loops and its
    // next call says why.
    if (dynamic_cast<const std::bad_alloc*>(&e)) fault::failure_absorbed();
    try {
      job.slot->why = str("building it failed (", e.what(), ")");
    } catch (...) {
    }
  }
  job.slot->failed.store(true, std::memory_order_release);
}

void build_jobs() {
  Builder& b = builder();
  for (;;) {
    BuildJob job;
    {
      std::unique_lock<std::mutex> lock(b.mu);
      b.queued.wait(lock, [&] { return !b.jobs.empty(); });
      job = std::move(b.jobs.front());
      b.jobs.pop_front();
    }
    build(job);
    job = {};
    std::lock_guard<std::mutex> lock(b.mu);
    if (--b.pending == 0) b.idle.notify_all();
  }
}

}  // namespace

void build_in_background(std::string source, std::shared_ptr<CppKernelSlot> slot) {
  Builder& b = builder();
  std::lock_guard<std::mutex> lock(b.mu);
  b.jobs.push_back({std::move(source), slot});  // may throw, before anything changed
  if (!b.started) {
    try {
      std::thread(build_jobs).detach();
      b.started = true;
    } catch (const std::exception& e) {  // no thread (std::system_error) or no memory for one
      if (dynamic_cast<const std::bad_alloc*>(&e)) fault::failure_absorbed();
      b.jobs.pop_back();
      slot->why = str("no thread could be started to build it (", e.what(), ")");
      slot->failed.store(true, std::memory_order_release);
      return;
    }
  }
  ++b.pending;
  b.queued.notify_one();
}

void wait_for_background_builds() noexcept {
  try {
    Builder& b = builder();  // throws only when it cannot be made: then nothing was ever queued
    std::unique_lock<std::mutex> lock(b.mu);
    b.idle.wait(lock, [&] { return b.pending == 0; });
  } catch (...) {
  }
}

}  // namespace ct::compile
