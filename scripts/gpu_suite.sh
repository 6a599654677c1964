#!/usr/bin/env bash
# gpu_suite.sh - on a machine with an NVIDIA GPU: build ctorch with CUDA (or take a build packed by
# scripts/gpu_pack.sh), run the CUDA tests and the CUDA benchmark against torch. Every step runs,
# under its own time limit, even when one before it failed; prints what it ran and exits non-zero
# when any step failed.
#
#   scripts/gpu_suite.sh [--prebuilt] [BUILD_DIR]   (default: build-gpu)
#
# CTORCH_GPU_LOGS=DIR: also write each test's output there (ctest.xml, pytest.xml: JUnit XML).
# CTORCH_GPU_SANITIZE=1: also run the C tests of the kernels under compute-sanitizer's memcheck
# (bad accesses; not the API errors that tests cause on purpose, such as an allocation too large).
# --prebuilt: BUILD_DIR holds a finished build (unpacked by scripts/gpu_device.sh): nothing is
# configured or compiled here, so the machine needs CUDA's libraries, Python and CMake's ctest only.
#
# The tests that need a device: cuda.driver (every kernel family of libctorch_cuda.so against host
# references), capi_test_cuda (operators on cuda against the cpu, gradients, determinism, RNG
# equality, memory), FuseCuda (generated kernels), and the Python suite's CUDA and DLPack tests, among
# them test_cuda_vs_cpu.py: every differential case on cuda against the cpu (values, gradients,
# repeatability), and dist.nccl.single_rank (the nccl engine's collectives in a group of one GPU).
set -uo pipefail
cd "$(dirname "$0")/.."
prebuilt=0
if [[ ${1:-} == --prebuilt ]]; then prebuilt=1; shift; fi
build_dir=${1:-build-gpu}
failed=()

# step NAME SECONDS COMMAND...: runs one step under a hard limit, remembering a failure.
step() {
  local name=$1 limit=$2 start=$SECONDS rc
  shift 2
  echo "== gpu_suite: $name (limit ${limit}s)"
  timeout --kill-after=10 "$limit" "$@"
  rc=$?
  ((rc == 124 || rc == 137)) && echo "gpu_suite: $name ran past ${limit}s and was stopped" >&2
  echo "== gpu_suite: $name: exit $rc after $((SECONDS - start))s"
  ((rc == 0)) || failed+=("$name")
}

python_ok=1
if ((prebuilt)); then
  ls "$build_dir"/bindings/python/ctorch/__C.cpython-"$(python3 -c 'import sys; print(f"{sys.version_info[0]}{sys.version_info[1]}")')"-*.so \
    >/dev/null 2>&1 || { echo "gpu_suite: the packed build has no Python extension for $(python3 -V)" >&2; python_ok=0; }
else
  # A GPU machine may lack what the Debian scripts install: say so up front. OpenBLAS and
  # GoogleTest are needed to build and test; without SWIG or pytest the Python part is left out.
  pkg-config --exists openblas || echo "gpu_suite: OpenBLAS (pkg-config openblas) is missing: carry it in" >&2
  python_opts=()
  if ! command -v swig >/dev/null || ! python3 -c "import pytest, numpy" 2>/dev/null; then
    echo "gpu_suite: no SWIG, pytest or numpy here: building without the Python package" >&2
    python_opts=(-DCTORCH_BUILD_PYTHON=OFF)
    python_ok=0
  fi
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d .)
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DCTORCH_WITH_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="${arch:-90}" -DCTORCH_BUILD_BENCH=OFF "${python_opts[@]}" || exit 1
  cmake --build "$build_dir" --parallel || exit 1
fi
python3 -c "import pytest, numpy" 2>/dev/null || python_ok=0

nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
# The C and C++ tests: the kernels on their own first, then through the C ABI.
logs=${CTORCH_GPU_LOGS:+$(realpath "$CTORCH_GPU_LOGS")}
step ctest 150 ctest --test-dir "$build_dir" --output-on-failure --timeout 100 \
  ${logs:+--output-junit "$logs/ctest.xml"} -R "cuda|Cuda|dlpack|plugins|capi_test_random|dist.nccl"
if ((python_ok)); then
  export PYTHONPATH="$build_dir/bindings/python" PYTHONUNBUFFERED=1
  # Tests skip when ctorch sees no device; on a GPU machine that is a failure, said with its reason.
  step sees_the_gpu 60 python3 -c "import ctorch, sys
n = ctorch.cuda.device_count()
print('ctorch sees', n, 'cuda device(s)')
if n == 0: ctorch.zeros(1, device='cuda')"
  # Several processes where pytest-xdist is installed: faster, and a test that crashes its process
  # is reported as failed while the others run on.
  workers=()
  python3 -c "import xdist" 2>/dev/null && workers=(-n 8)
  step pytest 240 python3 -m pytest -q -rfE --tb=short -p no:cacheprovider "${workers[@]}" \
    ${logs:+--junitxml "$logs/pytest.xml"} \
    bindings/python/tests/test_devices.py bindings/python/tests/test_cuda_vs_cpu.py \
    bindings/python/tests/test_compile.py
  step bench_cuda 150 python3 bench/bench_cuda.py ${CTORCH_BENCH_SMALL:+--small}
else
  failed+=(python)
fi
if [[ ${CTORCH_GPU_SANITIZE:-} == 1 ]]; then
  for t in tests/cuda/test_cuda_driver tests/capi/capi_test_cuda; do
    step "memcheck ${t##*/}" 120 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 "$build_dir/$t"
  done
fi
if ((${#failed[@]})); then
  echo "gpu_suite: failed: ${failed[*]}" >&2
  exit 1
fi
echo "gpu_suite: every step passed"
