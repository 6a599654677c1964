#!/usr/bin/env bash
# gpu_suite.sh - on a machine with an NVIDIA GPU: build ctorch with CUDA, run the CUDA tests and
# the CUDA benchmark against torch. Prints what it ran; exits non-zero when a test fails.
#
#   scripts/gpu_suite.sh [BUILD_DIR]   (default: build-gpu)
#
# The tests that need a device: cuda.driver (every kernel family of libctorch_cuda.so against host
# references), capi_test_cuda (operators on cuda against the cpu, gradients, determinism, RNG
# equality, memory), FuseCuda (generated kernels), and the Python suite's CUDA and DLPack tests, among
# them test_cuda_vs_cpu.py: every differential case on cuda against the cpu (values, gradients,
# repeatability).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build-gpu}
# A GPU machine may lack what the Debian scripts install: say so up front. OpenBLAS and GoogleTest
# are needed to build and test; without SWIG or pytest the Python part is left out.
pkg-config --exists openblas || echo "gpu_suite: OpenBLAS (pkg-config openblas) is missing: carry it in" >&2
python_opts=()
if ! command -v swig >/dev/null || ! python3 -c "import pytest, numpy" 2>/dev/null; then
  echo "gpu_suite: no SWIG, pytest or numpy here: building without the Python package" >&2
  python_opts=(-DCTORCH_BUILD_PYTHON=OFF)
fi
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d .)
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DCTORCH_WITH_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="${arch:-90}" -DCTORCH_BUILD_BENCH=OFF "${python_opts[@]}"
cmake --build "$build_dir" --parallel
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
ctest --test-dir "$build_dir" --output-on-failure -R "cuda|Cuda|dlpack|plugins|capi_test_random"
if ((${#python_opts[@]} == 0)); then
  PYTHONPATH="$build_dir/bindings/python" python3 -m pytest -q -p no:cacheprovider \
    bindings/python/tests/test_devices.py bindings/python/tests/test_cuda_vs_cpu.py bindings/python/tests/test_compile.py
  PYTHONPATH="$build_dir/bindings/python" python3 bench/bench_cuda.py
fi
