#!/usr/bin/env bash
# gpu_device.sh - on a lent GPU machine, from a copy of the repository that carries .gpu/ (made by
# scripts/gpu_pack.sh here): unpack the build, make it reachable at the path it was built at (its
# test lists and run paths are absolute), find CUDA's libraries, run scripts/gpu_suite.sh
# --prebuilt, and keep the logs under $OUT (or /tmp/ctorch-gpu).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/ctorch-gpu}
mkdir -p "$out"
root=$(cat .gpu/ROOT)
build_dir=$(cat .gpu/BUILD)
tar -xJf .gpu/ctorch-gpu.tar.xz || exit 1
if [[ $root != "$PWD" ]]; then
  [[ -e $root ]] && { echo "gpu_device: $root exists here and is not this checkout" >&2; exit 1; }
  mkdir -p "$(dirname "$root")" && ln -s "$PWD" "$root"
fi
# The CUDA toolkit's own libraries first, then any a Python package brought (torch's).
cuda_dirs=$(find /usr/local /opt -maxdepth 9 \( -name libcudart.so.13 -o -name libcublas.so.13 \
  -o -name libcublasLt.so.13 -o -name libnvrtc.so.13 -o -name libcusolver.so.12 -o -name libcusparse.so.12 \
  -o -name libnvJitLink.so.13 -o -name libcufft.so.12 \) -printf '%h\n' 2>/dev/null | awk '!seen[$0]++' | paste -sd:)
export LD_LIBRARY_PATH="$PWD/.gpu/lib:$cuda_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{
  nvidia-smi
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  ldd "$build_dir/src/libctorch_cuda.so"
} >"$out/machine.txt" 2>&1
CTORCH_GPU_LOGS=$out scripts/gpu_suite.sh --prebuilt "$build_dir" 2>&1 | tee "$out/suite.log"
