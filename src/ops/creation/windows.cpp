// windows.cpp - the signal windows: hann_window, hamming_window, bartlett_window, blackman_window
// and kaiser_window, each with torch's overloads (periodic; hamming's alpha and beta; kaiser's
// beta). Composites of arange and pointwise operators in the requested dtype, in PyTorch's order of
// operations, so float32 windows round as PyTorch's do. A periodic window of length N is the
// symmetric window of length N + 1 without its last sample.
#include <string>

#include "dispatch/dispatcher.h"
#include "ops/functions.h"
#include "ops/op_common.h"
#include "runtime/defaults.h"

namespace ct::ops {
namespace {

enum class Window { Hann, Hamming, Bartlett, Blackman, Kaiser };

constexpr const char* window_name(Window w) {
  constexpr const char* names[] = {"hann_window", "hamming_window", "bartlett_window", "blackman_window",
                                   "kaiser_window"};
  return names[static_cast<int>(w)];
}

constexpr double kPi = 3.14159265358979323846;

// The symmetric window of n >= 2 samples over the positions i = arange(n).
Tensor symmetric_window(Window w, const Tensor& i, int64_t n, double alpha, double beta) {
  const double last = static_cast<double>(n - 1);
  switch (w) {
    case Window::Hann:
    case Window::Hamming: return add(mul(cos(mul(i, Scalar(2 * kPi / last))), Scalar(-beta)), Scalar(alpha));
    case Window::Bartlett: {  // 2i / (n-1) rising, then 2 - 2i / (n-1) falling
      const Tensor ramp = mul(i, Scalar(2.0 / last));
      const int64_t rising = ((n - 1) >> 1) + 1;
      return cat({narrow(ramp, 0, 0, rising).impl(), rsub(narrow(ramp, 0, rising, n - rising), Scalar(2)).impl()}, 0);
    }
    case Window::Blackman: {
      const Tensor x = mul(i, Scalar(kPi / last));
      return add(sub(mul(cos(mul(x, Scalar(4))), Scalar(0.08)), mul(cos(mul(x, Scalar(2))), Scalar(0.5))), Scalar(0.42));
    }
    case Window::Kaiser: {  // I0(beta sqrt(1 - ((i - m) / m)^2)) / I0(beta), m = (n - 1) / 2
      const double m = last / 2;
      const Tensor t = div(sub(i, Scalar(m)), Scalar(m));
      const Tensor shape = i0(mul(sqrt(rsub(mul(t, t), Scalar(1))), Scalar(beta)));
      return div(shape, i0(full({}, Scalar(beta), i->dtype(), i->device())));
    }
  }
  return Tensor();
}

// <name>(int window_length, [bool periodic, [float alpha | float beta, [float beta]]] *,
//        ScalarType? dtype=None, Device? device=None) -> Tensor
// Positional arguments after window_length: Params of them (0 to 3).
template <Window W, int Params>
void window_kernel(void*, Frame& f) {
  const char* op = window_name(W);
  const int64_t length = f.arg(0).to_int();
  const bool periodic = Params >= 1 ? f.arg(1).to_bool() : true;
  double alpha = W == Window::Hamming ? 0.54 : 0.5, beta = W == Window::Hamming ? 0.46 : W == Window::Kaiser ? 12.0 : 0.5;
  if (W == Window::Hamming && Params >= 2) alpha = f.arg(2).to_double();
  if (W == Window::Hamming && Params >= 3) beta = f.arg(3).to_double();
  if (W == Window::Kaiser && Params >= 2) beta = f.arg(2).to_double();
  const Value& dtype_arg = f.arg(static_cast<size_t>(Params) + 1);
  const Value& device_arg = f.arg(static_cast<size_t>(Params) + 2);
  const DType dt = dtype_arg.is_none() ? runtime::default_dtype() : dtype_arg.dtype();
  const Device dev = device_arg.is_none() ? runtime::current_device() : device_arg.device();
  CT_CHECK(is_floating(dt), CT_ERROR_DTYPE, op, ": dtype ", dt, " is not a floating dtype. Pass float32 or float64");
  CT_CHECK(length >= 0, CT_ERROR_INVALID_ARGUMENT, op, ": window_length is ", length, ". Pass a length >= 0");
  if (length <= 1) {
    f.outs[0] = full({length}, Scalar(1), dt, dev);
    return;
  }
  const int64_t n = periodic ? length + 1 : length;
  const Tensor window = symmetric_window(W, arange(Scalar(0), Scalar(n), Scalar(1), dt, dev), n, alpha, beta);
  f.outs[0] = periodic ? contiguous(narrow(window, 0, 0, length)) : window;
}

}  // namespace

void define_windows(Registry& r) {
  const std::string opts = "*, ScalarType? dtype=None, Device? device=None) -> Tensor";
  auto def = [&](const std::string& head, int device_index, KernelFn fn) {
    r.def(head + opts).composite(fn).device_arg(device_index).not_differentiable();
  };
  def("hann_window(int window_length, ", 2, window_kernel<Window::Hann, 0>);
  def("hann_window.periodic(int window_length, bool periodic, ", 3, window_kernel<Window::Hann, 1>);
  def("hamming_window(int window_length, ", 2, window_kernel<Window::Hamming, 0>);
  def("hamming_window.periodic(int window_length, bool periodic, ", 3, window_kernel<Window::Hamming, 1>);
  def("hamming_window.periodic_alpha(int window_length, bool periodic, float alpha, ", 4,
      window_kernel<Window::Hamming, 2>);
  def("hamming_window.periodic_alpha_beta(int window_length, bool periodic, float alpha, float beta, ", 5,
      window_kernel<Window::Hamming, 3>);
  def("bartlett_window(int window_length, ", 2, window_kernel<Window::Bartlett, 0>);
  def("bartlett_window.periodic(int window_length, bool periodic, ", 3, window_kernel<Window::Bartlett, 1>);
  def("blackman_window(int window_length, ", 2, window_kernel<Window::Blackman, 0>);
  def("blackman_window.periodic(int window_length, bool periodic, ", 3, window_kernel<Window::Blackman, 1>);
  def("kaiser_window(int window_length, ", 2, window_kernel<Window::Kaiser, 0>);
  def("kaiser_window.periodic(int window_length, bool periodic, ", 3, window_kernel<Window::Kaiser, 1>);
  def("kaiser_window.beta(int window_length, bool periodic, float beta, ", 4, window_kernel<Window::Kaiser, 2>);
}

}  // namespace ct::ops
