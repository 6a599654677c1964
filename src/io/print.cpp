#include "io/print.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "autograd/meta.h"
#include "dispatch/grad_mode.h"
#include "ops/functions.h"
#include "runtime/defaults.h"

namespace ct::io {

using namespace ops;  // printing reads values through the operators

namespace {

// The elements, read exactly: integers as int64 (doubles would round past 2^53).
struct Values {
  std::vector<double> f;
  std::vector<int64_t> i;
};

// Formats every shown element alike: one width, one notation (PyTorch's _Formatter rules).
class Formatter {
 public:
  Formatter(DType dtype, const Values& v, const std::vector<int64_t>& shown, const runtime::PrintOptions& o)
      : dtype_(dtype), v_(v), precision_(o.precision), sci_mode_(o.sci_mode) {
    floating_ = is_floating(dtype);
    if (floating_) choose_float_mode(shown);
    // Floats take their width from the nonzero finite values only, as PyTorch does, and in the
    // notation the values would choose: a forced sci_mode changes the notation, not the width.
    for (int64_t o : shown)
      if (!floating_ || (std::isfinite(v_.f[o]) && v_.f[o] != 0)) width_ = std::max(width_, format(o).size());
    if (floating_ && sci_mode_ >= 0) sci_ = sci_mode_ == 1;
  }
  std::string padded(int64_t offset) const {
    std::string s = format(offset);
    return std::string(width_ - std::min(width_, s.size()), ' ') + s;
  }
  size_t width() const { return width_; }

 private:
  void choose_float_mode(const std::vector<int64_t>& shown) {
    double lo = INFINITY, hi = 0;
    bool integral = true;
    for (int64_t o : shown) {
      const double v = v_.f[o];
      if (!std::isfinite(v)) continue;
      if (v != std::ceil(v)) integral = false;
      const double a = std::fabs(v);
      if (a == 0) continue;
      lo = std::min(lo, a);
      hi = std::max(hi, a);
    }
    int_mode_ = integral;
    if (hi == 0) return;
    sci_ = hi / lo > 1000.0 || hi > 1e8 || (!integral && lo < 1e-4);
  }
  std::string format(int64_t offset) const {
    char buf[64];
    if (dtype_ == DType::Bool) return v_.i[offset] != 0 ? "True" : "False";
    if (!floating_) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v_.i[offset]));
      return buf;
    }
    const double v = v_.f[offset];
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    // Fixed notation of a large value can outgrow any buffer: snprintf tells the length needed.
    std::string out(64, '\0');
    for (int pass = 0; pass < 2; ++pass) {
      int n;
      if (sci_) n = std::snprintf(out.data(), out.size(), "%.*e", precision_, v);
      else if (int_mode_) n = std::snprintf(out.data(), out.size(), "%.0f.", v);
      else n = std::snprintf(out.data(), out.size(), "%.*f", precision_, v);
      if (n >= 0 && static_cast<size_t>(n) < out.size()) {
        out.resize(static_cast<size_t>(n));
        break;
      }
      out.assign(static_cast<size_t>(n) + 1, '\0');
    }
    return out;
  }

  DType dtype_;
  const Values& v_;
  int precision_, sci_mode_;
  bool floating_ = false, int_mode_ = false, sci_ = false;
  size_t width_ = 1;
};

// Complex elements as torch writes them: the real parts padded to one width, then the imaginary
// parts with their sign and a j (1.+2.j, -0.5000-1.2500j); each part's notation chosen over its
// own values, as torch's two formatters do.
class ComplexFormatter {
 public:
  ComplexFormatter(const Values& re, const Values& im, const std::vector<int64_t>& shown,
                   const runtime::PrintOptions& o)
      : re_(DType::Float64, re, shown, o), im_(DType::Float64, im, shown, o) {}
  std::string padded(int64_t offset) const {
    std::string imag = im_.padded(offset);
    imag.erase(0, imag.find_first_not_of(' '));
    if (imag[0] != '-' && imag[0] != '+') imag.insert(0, "+");
    return re_.padded(offset) + imag + "j";
  }
  size_t width() const { return re_.width() + im_.width() + 2; }

 private:
  Formatter re_, im_;
};

struct Printer {
  IntArrayRef sizes;
  DimVector strides;  // of the contiguous value buffer
  bool summarize;
  int64_t edgeitems, linewidth;

  // Indices of dim d that are shown; -1 marks the "..." gap.
  std::vector<int64_t> shown(size_t d) const {
    std::vector<int64_t> idx;
    const int64_t n = sizes[d];
    if (summarize && n > 2 * edgeitems) {
      for (int64_t i = 0; i < edgeitems; ++i) idx.push_back(i);
      idx.push_back(-1);
      for (int64_t i = n - edgeitems; i < n; ++i) idx.push_back(i);
    } else {
      for (int64_t i = 0; i < n; ++i) idx.push_back(i);
    }
    return idx;
  }
  void collect(size_t d, int64_t offset, std::vector<int64_t>& out) const {
    if (d == sizes.size()) {
      out.push_back(offset);
      return;
    }
    for (int64_t i : shown(d))
      if (i >= 0) collect(d + 1, offset + i * strides[d], out);
  }
  template <typename Fmt>
  std::string emit(size_t d, int64_t offset, size_t indent, const Fmt& fmt) const {
    const size_t rest = sizes.size() - d;
    if (rest == 1) {
      std::vector<std::string> items;
      for (int64_t i : shown(d)) items.push_back(i < 0 ? " ..." : fmt.padded(offset + i * strides[d]));
      const size_t per_line = std::max<int64_t>(1, (linewidth - static_cast<int64_t>(indent)) /
                                                     static_cast<int64_t>(fmt.width() + 2));
      std::string s = "[";
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) s += i % per_line == 0 ? ",\n" + std::string(indent + 1, ' ') : ", ";
        s += items[i];
      }
      return s + "]";
    }
    const std::string sep = "," + std::string(rest - 1, '\n') + std::string(indent + 1, ' ');
    std::string s = "[";
    bool first = true;
    for (int64_t i : shown(d)) {
      if (!first) s += sep;
      first = false;
      s += i < 0 ? "..." : emit(d + 1, offset + i * strides[d], indent + 1, fmt);
    }
    return s + "]";
  }
};

std::string size_suffix(IntArrayRef sizes) {
  std::string s = "size=(";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + (sizes.size() == 1 ? ",)" : ")");
}

}  // namespace

std::string to_string(const Tensor& t) {
  autograd::GradModeGuard no_grad(autograd::GradMode::NoGrad);  // reading values records nothing
  std::vector<std::string> suffix;
  const DType d = t->dtype();
  // PyTorch names every dtype but the default float dtype (float32 unless set_default_dtype changed
  // it) and, when elements show it, int64 and bool: an empty tensor's do not (tensor([], dtype=int64)).
  // The default complex dtype (complex64 beside float32) goes unnamed as well.
  const bool default_dtype = d == runtime::default_dtype() || d == complex_dtype(runtime::default_dtype()) ||
                             ((d == DType::Int64 || d == DType::Bool) && t->numel() > 0);
  std::string body;
  if (t->device().is_meta()) {
    body = "...";
    suffix.push_back("device='meta'");
    suffix.push_back(size_suffix(t->sizes()));
  } else if (t->numel() == 0 && t->dim() != 1) {
    body = "[]";
    suffix.push_back(size_suffix(t->sizes()));
  } else {
    const runtime::PrintOptions o = runtime::print_options();
    Printer p{t->sizes(), contiguous_strides(t->sizes()), t->numel() > o.threshold, o.edgeitems, o.linewidth};
    std::vector<int64_t> shown;
    p.collect(0, 0, shown);
    Values values;
    if (is_complex(d)) {
      const Tensor c = expect_contiguous(to(t, DType::Complex128));
      const double* z = reinterpret_cast<const double*>(c->data());
      Values re, im;
      for (int64_t k = 0; k < c->numel(); ++k) {
        re.f.push_back(z[2 * k]);
        im.f.push_back(z[2 * k + 1]);
      }
      ComplexFormatter fmt(re, im, shown, o);
      body = t->dim() == 0 ? fmt.padded(0) : p.emit(0, 0, 7, fmt);
    } else if (is_floating(d)) {
      Tensor c = expect_contiguous(to(t, DType::Float64));
      values.f.assign(c->data_as<double>(), c->data_as<double>() + c->numel());
    } else {
      Tensor c = expect_contiguous(to(t, DType::Int64));
      values.i.assign(c->data_as<int64_t>(), c->data_as<int64_t>() + c->numel());
    }
    if (!is_complex(d)) {
      Formatter fmt(d, values, shown, o);
      body = t->dim() == 0 ? fmt.padded(0) : p.emit(0, 0, 7, fmt);
    }
  }
  if (!default_dtype) suffix.push_back(std::string("dtype=") + dtype_name(d));
  if (const autograd::AutogradMeta* m = autograd::meta_of(*t); m && m->grad_fn)
    suffix.push_back("grad_fn=<" + m->grad_fn->name() + ">");
  else if (t->requires_grad())
    suffix.push_back("requires_grad=True");
  std::string s = "tensor(" + body;
  for (const std::string& x : suffix) s += ", " + x;
  return s + ")";
}

}  // namespace ct::io
