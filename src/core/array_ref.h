// array_ref.h - ArrayRef<T>, a borrowed (pointer, length) view; SmallVector<T, N>, inline storage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>
#include <optional>
#include <ostream>
#include <type_traits>
#include <vector>

#include "core/fault_injection.h"

namespace ct {

/// A borrowed, read-only span. INVARIANT: data points at size valid elements (or size == 0).
template <typename T>
class ArrayRef {
 public:
  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T* data, size_t size) : data_(data), size_(size) {}
  ArrayRef(const std::vector<T>& v) : data_(v.data()), size_(v.size()) {}
#if defined(__GNUC__) && !defined(__clang__)  // gcc's warning; clang has no such group
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  // Valid for the full expression that holds the braces, which is how call arguments use it.
  constexpr ArrayRef(std::initializer_list<T> l) : data_(l.begin()), size_(l.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  const T& back() const { return data_[size_ - 1]; }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  bool equals(ArrayRef other) const {
    if (size_ != other.size_) return false;
    for (size_t i = 0; i < size_; ++i)
      if (!(data_[i] == other.data_[i])) return false;
    return true;
  }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

using IntArrayRef = ArrayRef<int64_t>;

/// A schema's int[]? argument: no list (None), or a list taken as IntArrayRef takes it. Braces are a
/// list ({0, 2}); empty braces, like std::nullopt, are None.
class OptionalIntArrayRef {
 public:
  constexpr OptionalIntArrayRef() = default;
  constexpr OptionalIntArrayRef(std::nullopt_t) {}
  /// From anything that is an IntArrayRef: a vector, a SmallVector, an IntArrayRef itself.
  template <typename List, typename = std::enable_if_t<std::is_convertible_v<const List&, IntArrayRef>>>
  constexpr OptionalIntArrayRef(const List& v) : has_value_(true), value_(v) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  constexpr OptionalIntArrayRef(std::initializer_list<int64_t> l) : has_value_(true), value_(l) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  constexpr bool has_value() const { return has_value_; }
  constexpr explicit operator bool() const { return has_value_; }
  constexpr IntArrayRef operator*() const { return value_; }

 private:
  bool has_value_ = false;
  IntArrayRef value_;
};

/// Prints sizes the way error messages show them: [2, 3], [] for 0-dim.
inline std::ostream& operator<<(std::ostream& os, IntArrayRef a) {
  os << '[';
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << ']';
}

/// A vector of trivially copyable T that keeps up to N elements inline, so tensors of ordinary
/// rank cost no heap allocation for their sizes and strides.
template <typename T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable<T>::value, "SmallVector holds trivially copyable types");

 public:
  SmallVector() = default;
  SmallVector(ArrayRef<T> a) { assign(a.data(), a.size()); }
  SmallVector(std::initializer_list<T> l) { assign(l.begin(), l.size()); }
  SmallVector(size_t n, T value) {
    resize(n);
    for (size_t i = 0; i < n; ++i) data_[i] = value;
  }
  SmallVector(const SmallVector& o) { assign(o.data_, o.size_); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.data_, o.size_);
    return *this;
  }
  ~SmallVector() {
    if (data_ != inline_) std::free(data_);
  }

  void assign(const T* src, size_t n) {
    reserve(n);
    for (size_t i = 0; i < n; ++i) data_[i] = src[i];  // short: cheaper than a memcpy call
    size_ = n;
  }
  void reserve(size_t n) {
    if (n <= cap_) return;
    size_t cap = cap_ * 2 > n ? cap_ * 2 : n;
    T* p = static_cast<T*>(ct::fault::malloc(cap * sizeof(T)));
    if (!p) throw std::bad_alloc();
    if (size_) std::memcpy(static_cast<void*>(p), data_, size_ * sizeof(T));
    if (data_ != inline_) std::free(data_);
    data_ = p;
    cap_ = cap;
  }
  void resize(size_t n) {
    reserve(n);
    size_ = n;
  }
  void push_back(T v) {
    reserve(size_ + 1);
    data_[size_++] = v;
  }
  void insert(size_t pos, T v) {
    reserve(size_ + 1);
    std::memmove(static_cast<void*>(data_ + pos + 1), data_ + pos, (size_ - pos) * sizeof(T));
    data_[pos] = v;
    ++size_;
  }
  void erase(size_t pos) {
    std::memmove(static_cast<void*>(data_ + pos), data_ + pos + 1, (size_ - pos - 1) * sizeof(T));
    --size_;
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& back() { return data_[size_ - 1]; }
  operator ArrayRef<T>() const { return ArrayRef<T>(data_, size_); }
  ArrayRef<T> ref() const { return ArrayRef<T>(data_, size_); }

 private:
  T* data_ = inline_;
  size_t size_ = 0;
  size_t cap_ = N;
  T inline_[N];
};

using DimVector = SmallVector<int64_t, 6>;

}  // namespace ct
