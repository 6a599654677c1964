# shellcheck shell=bash
# lib.sh - steps shared by setup.sh, test.sh and bench.sh. Source it from the repository root;
# it only defines functions.

# Debian packages the build and the tests need.
# The Python package needs SWIG and Python's headers; its tests use numpy, pytest and torch (the
# oracle of the differential tests), all Debian's, for /usr/bin/python3.
CTORCH_PACKAGES=(cmake g++ ninja-build pkg-config libopenblas-dev googletest libgtest-dev binutils
                 swig python3-dev python3-numpy python3-pytest python3-torch)

ctorch_log() { printf '== %s\n' "$*" >&2; }

ctorch_nproc() { nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2; }

# The Rust crates need cargo 1.77 or later. Debian's cargo-web (1.85 and later) installs it when
# the machine has none (rustup's ~/.cargo/bin counts).
if ! command -v cargo >/dev/null && [[ ! -x ${CARGO_HOME:-$HOME/.cargo}/bin/cargo ]]; then
  CTORCH_PACKAGES+=(cargo-web)
fi

# Packages only the benchmarks need: libtorch, measured beside ctorch in bench_core.
CTORCH_BENCH_PACKAGES=(libtorch-dev)

# Installs the packages in CTORCH_PACKAGES (and any given as arguments) that are missing; does
# nothing when all are there.
ctorch_install_deps() {
  if ! command -v dpkg >/dev/null; then
    ctorch_log "no dpkg: not a Debian system; install by hand: ${CTORCH_PACKAGES[*]}"
    return 0
  fi
  local missing=() pkg
  for pkg in "${CTORCH_PACKAGES[@]}" "$@"; do
    dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed' || missing+=("$pkg")
  done
  if ((${#missing[@]} == 0)); then
    ctorch_log "dependencies already installed"
    return 0
  fi
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null; then
      echo "error: installing ${missing[*]} needs root, and sudo is not available" >&2
      return 1
    fi
    sudo=(sudo)
  fi
  ctorch_log "installing ${missing[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# ctorch_configure DIR [BUILD_TYPE]: configures DIR (Ninja when present, for a new DIR only: an
# existing build keeps its generator). The CUDA backend builds when nvcc is found, on PATH or in
# the toolkit's usual place (/usr/local/cuda).
ctorch_configure() {
  local dir=${1:-build} type=${2:-Release} generator=() cuda=()
  if [[ ! -f "$dir/CMakeCache.txt" ]] && command -v ninja >/dev/null; then
    generator=(-G Ninja)
  fi
  if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
    cuda=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
  fi
  ctorch_log "configuring $dir ($type)"
  cmake -S . -B "$dir" "${generator[@]}" "${cuda[@]}" -DCMAKE_BUILD_TYPE="$type"
}

# ctorch_build DIR [TARGET...]: builds DIR with every core.
ctorch_build() {
  local dir=${1:-build}
  shift || true
  local targets=()
  (($# == 0)) || targets=(--target "$@")
  ctorch_log "building $dir with $(ctorch_nproc) jobs"
  cmake --build "$dir" --parallel "$(ctorch_nproc)" "${targets[@]}"
}
