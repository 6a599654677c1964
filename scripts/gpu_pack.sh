#!/usr/bin/env bash
# gpu_pack.sh - here, on a machine without a GPU: pack a finished CUDA build for a lent GPU machine
# whose time is short and which has CUDA's libraries, Python, torch and CMake's ctest but none of the
# Debian packages the build needs (OpenBLAS, GoogleTest, SWIG). Its minutes then go to running the
# tests, not to compiling them.
#
#   scripts/gpu_pack.sh [BUILD_DIR]     (default: build, which must be configured with CUDA)
#   there: scripts/gpu_device.sh        (unpacks, runs scripts/gpu_suite.sh --prebuilt)
#
# Writes .gpu/ (ignored by git; carry it to the GPU machine): ctorch-gpu.tar.xz with the libraries,
# the CUDA tests and the Python package of BUILD_DIR, the shared libraries they need that such a
# machine lacks (OpenBLAS and its Fortran runtime) and a Python extension built for that machine's
# Python; ROOT and BUILD say where the build was made, so its absolute paths resolve there too.
#   CTORCH_GPU_ARCH    the GPU's compute capability, checked present in libctorch_cuda.so (90: Hopper)
#   CTORCH_GPU_PYTHON  that machine's Python version (3.12), whose headers pyenv has here
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
arch=${CTORCH_GPU_ARCH:-90}
py=${CTORCH_GPU_PYTHON:-3.12}

grep -q '^CTORCH_WITH_CUDA:BOOL=ON' "$build_dir/CMakeCache.txt" 2>/dev/null ||
  { echo "gpu_pack: $build_dir is not configured with -DCTORCH_WITH_CUDA=ON" >&2; exit 1; }
cmake --build "$build_dir"
grep -q -- "code=\\[compute_$arch,sm_$arch\\]" "$build_dir/build.ninja" ||
  { echo "gpu_pack: $build_dir builds no sm_$arch code: reconfigure it with -DCMAKE_CUDA_ARCHITECTURES=$arch" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
copy() { cp -P --parents "$@" "$stage/"; }
copy "$build_dir"/src/libctorch.so* "$build_dir"/src/libctorch_cuda.so
copy "$build_dir"/tests/capi/capi_test_{cuda,dlpack,random} "$build_dir"/tests/cuda/test_cuda_driver \
  "$build_dir"/tests/cpp/ctorch_cpp_tests
cp -rP --parents "$build_dir"/tests/plugins "$build_dir"/examples/plugin/plugins "$stage/"
find "$build_dir" \( -name CTestTestfile.cmake -o -name '*_include.cmake' -o -name '*_tests.cmake' \) \
  -exec cp --parents {} "$stage/" \;
cp -r --parents "$build_dir"/bindings/python/ctorch "$stage/"
find "$stage" -name __pycache__ -prune -exec rm -rf {} +

# The extension for that machine's Python: SWIG's wrapper, already generated, compiled against
# pyenv's headers of the same minor version (the C API is stable within one).
include=$(ls -d "$(pyenv root 2>/dev/null || echo ~/.pyenv)"/versions/"$py".*/include/python"$py" 2>/dev/null | tail -1)
[[ -n $include ]] || { echo "gpu_pack: no Python $py headers here (pyenv install $py)" >&2; exit 1; }
abi=${py/./}
lib=$(readlink -f "$build_dir/src/libctorch.so")
cc -I include -isystem "$include" -O3 -DNDEBUG -fPIC -w -shared \
  -o "$stage/$build_dir/bindings/python/ctorch/__C.cpython-$abi-x86_64-linux-gnu.so" \
  "$build_dir/bindings/python/swig/ctorchPYTHON_wrap.c" -Wl,-rpath,"$PWD/$build_dir/src" "$lib"

# What libctorch needs beyond glibc, libstdc++ and CUDA: OpenBLAS and the Fortran runtime it uses.
mkdir -p "$stage/.gpu/lib"
ldd "$lib" | awk '/openblas|gfortran|quadmath/ { print $3 }' | xargs -I{} cp -L {} "$stage/.gpu/lib/"
find "$stage" -type f -exec file {} + | awk -F: '/ELF/ { print $1 }' | xargs -r strip --strip-unneeded

rm -rf .gpu && mkdir .gpu
tar -C "$stage" -cf - . | xz -T2 -6 >.gpu/ctorch-gpu.tar.xz
echo "$PWD" >.gpu/ROOT
echo "$build_dir" >.gpu/BUILD
echo "gpu_pack: .gpu/ctorch-gpu.tar.xz $(du -h .gpu/ctorch-gpu.tar.xz | cut -f1) ($(du -sh "$stage" | cut -f1) unpacked)," \
  "for sm_$arch and Python $py"
