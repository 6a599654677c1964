// startup_libtorch.cpp - the same program as startup_ctorch.c over libtorch's ATen, the anchor of
// bench_runtime's start-up row.
#include <ATen/ATen.h>

#include <iostream>

int main() {
  const float a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
  at::Tensor x = at::from_blob(const_cast<float*>(a), {3}, at::kFloat);
  at::Tensor y = at::from_blob(const_cast<float*>(b), {3}, at::kFloat);
  std::cout << at::add(x, y) << "\n";
  return 0;
}
