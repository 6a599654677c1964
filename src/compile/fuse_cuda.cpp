#include "compile/fuse_cuda.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>

#include "core/error.h"
#include "cuda/context.h"
#include "cuda/nvrtc_kernels.h"
#include "ops/pointwise/element_preamble.h"

namespace ct::compile {
namespace {

// Builds the source of one plan; see Note [Fused CUDA kernels].
class Emitter {
 public:
  explicit Emitter(const Plan& p) : p_(p), n_(p.code.size()) {}

  std::string source() {
    s_ += kElementPreamble;
    s_ += str("\n// ---- the kernel\ntypedef ", p_.dtype == DType::Float32 ? "float" : "double", " T;\n");
    s_ += "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(kBlock) + ") ct_fused(";
    for (size_t k = 0; k < p_.slots.size(); ++k) {
      const Slot& sl = p_.slots[k];
      if (sl.kind == Slot::Kind::Input) s_ += str("const T* __restrict__ s", k, ", ");
      if (sl.kind == Slot::Kind::Output) s_ += str("T* __restrict__ s", k, ", ");
    }
    s_ += "long long R, long long C) {\n";
    for (size_t k = 0; k < p_.slots.size(); ++k)
      if (p_.slots[k].kind == Slot::Kind::Imm) s_ += str("  const T imm", p_.slots[k].index, " = ", literal(p_.imms[p_.slots[k].index]), ";\n");
    if (p_.whole_rows) rows_kernel();
    else flat_kernel();
    s_ += "}\n";
    return s_;
  }

 private:
  bool row_value(size_t k) const { return compile::row_value(p_, k); }
  bool is_output(size_t k) const { return p_.slots[k].kind == Slot::Kind::Output; }

  // A number of the plan as its exact bits in T.
  std::string literal(const Scalar& v) const {
    char buf[64];
    if (p_.dtype == DType::Float32) {
      const float x = v.to<float>();
      uint32_t u;
      std::memcpy(&u, &x, sizeof u);
      std::snprintf(buf, sizeof buf, "__int_as_float(0x%08" PRIx32 ")", u);
    } else {
      const double x = v.to<double>();
      uint64_t u;
      std::memcpy(&u, &x, sizeof u);
      std::snprintf(buf, sizeof buf, "__longlong_as_double(0x%016" PRIx64 "LL)", u);
    }
    return buf;
  }

  std::string operand(const Operand& o) const {
    if (static_cast<size_t>(o.slot) < n_) return str("v", o.slot);
    const Slot& sl = p_.slots[o.slot];
    if (sl.kind == Slot::Kind::Imm) return str("imm", sl.index);
    const char* at = sl.cls == Cls::Full ? "i" : sl.cls == Cls::Row ? "r" : sl.cls == Cls::Col ? "c" : "0";
    return str("s", o.slot, "[", at, "]");
  }

  std::string expr(const Instr& in) const {
    CT_CHECK(in.code == Code::Element, CT_ERROR_INTERNAL, "fused cuda kernel: no element function for a reduction");
    return element_call(in, [this](const Operand& o) { return operand(o); });
  }

  // Emits, in program order, the per-element values the targets need (row values are computed
  // outside the column loops, so the closure stops at them).
  void emit_elements(std::vector<bool> need, const char* indent) {
    close_over_elements(p_, need);
    for (size_t k = 0; k < n_; ++k)
      if (need[k] && !row_value(k)) s_ += str(indent, "const T v", k, " = ", expr(p_.code[k]), ";\n");
  }

  void flat_kernel() {
    bool rc = false;  // a Row or Col operand needs the element's row and column
    for (const Slot& sl : p_.slots) rc |= sl.kind == Slot::Kind::Input && (sl.cls == Cls::Row || sl.cls == Cls::Col);
    s_ += str("  const long long n = R * C;\n  for (long long i = (long long)blockIdx.x * ", kBlock,
              " + threadIdx.x; i < n; i += (long long)gridDim.x * ", kBlock, ") {\n");
    if (rc) s_ += "    const long long r = i / C, c = i - r * C;\n";
    std::vector<bool> need(n_, false);
    for (size_t k = 0; k < n_; ++k) need[k] = is_output(k);
    emit_elements(need, "    ");
    for (size_t k = 0; k < n_; ++k)
      if (is_output(k)) s_ += str("    s", k, "[i] = v", k, ";\n");
    s_ += "  }\n";
  }

  void rows_kernel() {
    s_ += str("  __shared__ T red[", kBlock, "];\n  for (long long r = blockIdx.x; r < R; r += gridDim.x) {\n");
    for (size_t k = 0; k < n_; ++k) {
      if (!row_value(k)) continue;
      const Instr& in = p_.code[k];
      if (is_reduction(in.code)) {
        const bool extremum = in.code == Code::Amax || in.code == Code::Amin;
        // The fold of the eager reductions: NaN wins an extremum, and ties keep the first.
        const std::string merge = in.code == Code::Amax ? "ct::fn::Maximum{}" : in.code == Code::Amin ? "ct::fn::Minimum{}" : "";
        const double inf = std::numeric_limits<double>::infinity();
        const std::string identity = literal(Scalar(in.code == Code::Amax ? -inf : in.code == Code::Amin ? inf : 0.0));
        s_ += str("    T acc", k, " = ", identity, ";\n");
        s_ += str("    for (long long c = threadIdx.x; c < C; c += ", kBlock, ") {\n      const long long i = r * C + c;\n");
        std::vector<bool> need(n_, false);
        if (static_cast<size_t>(in.a.slot) < n_) need[in.a.slot] = true;
        emit_elements(need, "      ");
        s_ += extremum ? str("      acc", k, " = ", merge, "(acc", k, ", ", operand(in.a), ");\n")
                       : str("      acc", k, " = acc", k, " + ", operand(in.a), ";\n");
        s_ += str("    }\n    red[threadIdx.x] = acc", k, ";\n    __syncthreads();\n");
        s_ += str("    for (int w = ", kBlock / 2, "; w > 0; w >>= 1) {\n      if (threadIdx.x < w) red[threadIdx.x] = ",
                  extremum ? merge + "(red[threadIdx.x], red[threadIdx.x + w])" : "red[threadIdx.x] + red[threadIdx.x + w]",
                  ";\n      __syncthreads();\n    }\n");
        s_ += str("    const T v", k, " = red[0]", in.code == Code::Mean ? " / (T)C" : "", ";\n    __syncthreads();\n");
      } else {
        s_ += str("    const T v", k, " = ", expr(in), ";\n");
      }
      if (is_output(k)) s_ += str("    if (threadIdx.x == 0) s", k, "[r] = v", k, ";\n");
    }
    std::vector<bool> need(n_, false);
    bool any = false;
    for (size_t k = 0; k < n_; ++k) any |= need[k] = is_output(k) && !row_value(k);
    if (any) {
      s_ += str("    for (long long c = threadIdx.x; c < C; c += ", kBlock, ") {\n      const long long i = r * C + c;\n");
      emit_elements(need, "      ");
      for (size_t k = 0; k < n_; ++k)
        if (need[k]) s_ += str("      s", k, "[i] = v", k, ";\n");
      s_ += "    }\n";
    }
    s_ += "  }\n";
  }

  const Plan& p_;
  const size_t n_;
  std::string s_;
};

}  // namespace

std::string cuda_source(const Plan& p) { return Emitter(p).source(); }

std::vector<std::pair<bool, int32_t>> cuda_params(const Plan& p) {
  std::vector<std::pair<bool, int32_t>> params;
  for (const Slot& sl : p.slots)  // the order Emitter::source declares them in
    if (sl.kind == Slot::Kind::Input || sl.kind == Slot::Kind::Output)
      params.emplace_back(sl.kind == Slot::Kind::Output, sl.index);
  return params;
}

int64_t cuda_kernels_compiled() { return cuda::nvrtc_kernels_compiled(); }

void run_cuda(const Plan& p, const std::string& source, cuda::KernelCache& cache, ArrayRef<const TensorImpl*> inputs,
              int64_t rows, int64_t cols, Tensor* outs) {
  const int device = p.device.index;
  cuda::set_device(device);
  void* fn = cache.get(device, [&] { return source; }, "ct_fused", "fused cuda kernel");
  std::vector<void*> pointers;
  for (const auto& [output, index] : cuda_params(p))
    pointers.push_back(output ? outs[index]->data() : const_cast<void*>(inputs[index]->data()));
  std::vector<void*> args;
  for (void*& ptr : pointers) args.push_back(&ptr);
  long long R = rows, C = cols;
  args.push_back(&R);
  args.push_back(&C);
  const int64_t work = p.whole_rows ? rows : (rows * cols + kBlock - 1) / kBlock;
  const uint32_t grid = static_cast<uint32_t>(std::min<int64_t>(work, 65535));
  cuda::check(cuda::driver().launch(fn, grid, 1, 1, kBlock, 1, 1, 0, cuda::current_stream(device), args.data()),
              "fused cuda kernel: launch");
}

}  // namespace ct::compile
