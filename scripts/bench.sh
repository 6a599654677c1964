#!/usr/bin/env bash
# bench.sh - build ctorch (Release) and run bench/bench_core, bench_autograd, bench_runtime, bench_compile,
# bench_allreduce (the distributed engines' all_reduce bandwidth beside each engine and torch.distributed),
# bench_torch2 (current torch from PyPI, eager and torch.compile, beside ctorch: operators, compiled
# graphs, training steps, per-call costs and peak memory),
# bench_python, bench_optim (Adam over 10M parameters vs torch), bench_linalg (torch.linalg vs torch), bench_complex (complex arithmetic and products vs torch), bench_fft (torch.fft vs torch
# and numpy), bench_training (the digits MLP and
# CNN per epoch: ctorch C and Python vs PyTorch) and the Rust crate's per_op: ctorch beside its anchors (OpenBLAS, plain loops, libtorch; torch
# and numpy for the Python package; the raw C ABI for the Rust binding).
#
#   scripts/bench.sh [BUILD_DIR]   (default: build, the Release build setup.sh makes)
#
# It uses every core for about a minute; run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

build_dir=${1:-build}
ctorch_install_deps "${CTORCH_BENCH_PACKAGES[@]}"
ctorch_configure "$build_dir" Release
ops_benches=()
for src in bench/bench_ops_*.c; do
  [[ -e $src ]] && ops_benches+=("$(basename "$src" .c)")
done
ctorch_build "$build_dir" bench_core bench_autograd bench_runtime bench_compile "${ops_benches[@]}" ctorch_python \
  digits digits_cnn bench_allreduce

# ctorch_bench_torch_venv: prints the python of a virtual environment with torch from PyPI (current
# torch: bench_allreduce's torch.distributed column and bench_torch2's anchors), making it on first use. It lives outside
# the repository: CTORCH_BENCH_VENV, else ~/.cache/ctorch/bench-torch-venv. Prints nothing (and
# says why) when it cannot be made, e.g. offline.
ctorch_bench_torch_venv() {
  local venv=${CTORCH_BENCH_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ctorch/bench-torch-venv}
  if ! "$venv/bin/python" -c 'import numpy, torch.distributed' >/dev/null 2>&1; then
    ctorch_log "making $venv: torch and numpy from PyPI (several GB, once)"
    if ! { /usr/bin/python3 -m venv "$venv" && "$venv/bin/pip" install -q torch numpy; } >&2; then
      ctorch_log "no torch venv at $venv: bench_allreduce leaves the torch column out, bench_torch2 is skipped"
      return 0
    fi
  fi
  echo "$venv/bin/python"
}
# libtorch's OpenMP workers spin after each parallel region by default, taking a core from whatever
# runs next; on a 2-core machine that would slow the ctorch call timed right after it. Passive
# waiting measures each library without the other in the way.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
"$build_dir/bench/bench_core"
echo
"$build_dir/bench/bench_autograd"
echo
"$build_dir/bench/bench_runtime"
echo
"$build_dir/bench/bench_compile"
echo
for b in "${ops_benches[@]}"; do
  "$build_dir/bench/$b"
  echo
done
# all_reduce bandwidth: each distributed engine called directly beside ct_dist_all_reduce over it,
# and torch.distributed's gloo (2 ranks each; about 20 s).
torch_python=$(ctorch_bench_torch_venv)
CTORCH_BENCH_TORCH_PYTHON=$torch_python "$build_dir/bench/distributed/bench_allreduce"
echo
# ctorch beside torch 2.x in one process: the venv's Python (the system's minor version) imports
# ctorch's package from the build (about 5 minutes, most of it Inductor compiling). torch runs with
# its own default OpenMP wait policy, as its users run it: under PASSIVE each parallel region pays a
# wake-up (a 2-thread embedding of 32x64 rows took 84 us against 10).
if [[ -n $torch_python ]]; then
  env -u OMP_WAIT_POLICY PYTHONPATH="$build_dir/bindings/python" "$torch_python" bench/bench_torch2.py
  echo
fi
# CTorch.jl's per-op cost beside the C ABI (bench/julia/per_op.jl), when julia is installed.
if command -v julia >/dev/null; then
  CTORCH_LIBRARY="$build_dir/src/libctorch.so" JULIA_DEPOT_PATH="$build_dir/bindings/julia/depot" \
    julia --startup-file=no --project=bindings/julia/CTorch bench/julia/per_op.jl
  echo
fi
PYTHONPATH="$build_dir/bindings/python" /usr/bin/python3 bench/bench_python.py
echo
PYTHONPATH="$build_dir/bindings/python" /usr/bin/python3 bench/bench_optim.py
echo
# torch.linalg, complex tensors and torch.fft beside current torch when the venv is there (its LAPACK
# and FFT are MKL's), else beside Debian's.
for b in bench_linalg bench_complex bench_fft; do
  if [[ -n $torch_python ]]; then
    env -u OMP_WAIT_POLICY PYTHONPATH="$build_dir/bindings/python" "$torch_python" "bench/$b.py"
  else
    PYTHONPATH="$build_dir/bindings/python" /usr/bin/python3 "bench/$b.py"
  fi
  echo
done
PYTHONPATH="$build_dir/bindings/python" /usr/bin/python3 bench/bench_training.py --build-dir "$build_dir"
if [[ -f "$build_dir/bindings/rust/CTestTestfile.cmake" ]]; then
  echo
  CTORCH_DIR="$PWD/$build_dir/src" CARGO_TARGET_DIR="$PWD/$build_dir/bindings/rust/target" CARGO_NET_OFFLINE=true \
    "$(grep -m1 '^CARGO_EXECUTABLE:' "$build_dir/CMakeCache.txt" | cut -d= -f2)" \
    bench --quiet --manifest-path bindings/rust/Cargo.toml --bench per_op
fi
if [[ -f "$build_dir/bindings/java/ctorch-bench.jar" ]]; then
  echo
  java -cp "$build_dir/bindings/java/ctorch.jar:$build_dir/bindings/java/ctorch-bench.jar" PerOp
fi
