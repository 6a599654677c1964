# shellcheck shell=bash
# lib.sh - steps shared by setup.sh, test.sh and bench.sh. Source it from the repository root;
# it only defines functions.

# Debian packages the build and the tests need.
# The Python package needs SWIG and Python's headers; its tests use numpy, pytest, Hypothesis (the
# binding's property-based fuzzer) and torch (the oracle of the differential tests), all Debian's,
# for /usr/bin/python3.
# The distributed engines (src/distributed/engines) build on Gloo and Open MPI; mpirun launches the
# MPI tests.
CTORCH_PACKAGES=(cmake g++ ninja-build pkg-config libopenblas-dev googletest libgtest-dev binutils
                 swig python3-dev python3-numpy python3-pytest python3-hypothesis python3-torch
                 default-jdk-headless junit5 libgloo-dev libopenmpi-dev openmpi-bin libkissfft-dev)

ctorch_log() { printf '== %s\n' "$*" >&2; }

ctorch_nproc() { nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2; }

# The Rust crates need cargo 1.77 or later. Debian's cargo-web (1.85 and later) installs it when
# the machine has none (rustup's ~/.cargo/bin counts).
if ! command -v cargo >/dev/null && [[ ! -x ${CARGO_HOME:-$HOME/.cargo}/bin/cargo ]]; then
  CTORCH_PACKAGES+=(cargo-web)
fi

# Packages scripts/sanitize.sh needs: clang with its sanitizer and libFuzzer runtimes.
CTORCH_SANITIZER_PACKAGES=(clang libclang-rt-dev)

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

# ctorch_julia_works: true when `julia` runs and survives an exception thrown from compiled code.
ctorch_julia_works() {
  command -v julia >/dev/null &&
    sh -c 'julia --startup-file=no -e "f() = error(1); try; f(); catch; end"' >/dev/null 2>&1
}

# ctorch_install_julia: installs Julia for bindings/julia when the machine has none. Debian bookworm
# packages no Julia; bullseye's (1.5) installs cleanly there. This adds bullseye as a second apt source
# (the URI is read from the machine's own Debian source, so the same mirror serves both), pinned at
# priority 1 so that apt takes from it only packages bookworm does not have, never an upgrade or a
# replacement of an installed package. Julia 1.5 crashes (SIGSEGV while unwinding) on any exception
# with bookworm's libunwind 1.6, so when the installed julia fails that probe, bullseye's libunwind8
# is unpacked into /usr/local/lib/ctorch-julia (the system's stays) and /usr/local/bin/julia runs
# /usr/bin/julia with it. Idempotent; a no-op when a working julia is on PATH or off Debian.
ctorch_install_julia() {
  ctorch_julia_works && return 0
  if ! command -v dpkg >/dev/null; then
    ctorch_log "no dpkg: install Julia 1.5 or later by hand for bindings/julia"
    return 0
  fi
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null; then
      echo "error: installing julia needs root, and sudo is not available" >&2
      return 1
    fi
    sudo=(sudo)
  fi
  local list=/etc/apt/sources.list.d/ctorch-bullseye.sources pin=/etc/apt/preferences.d/ctorch-bullseye
  if [[ ! -f $list ]]; then
    local uri="" keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
      uri=$(awk '/^URIs:/ && $2 !~ /-security/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
    fi
    if [[ -z $uri && -f /etc/apt/sources.list ]]; then
      uri=$(awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) {print $i; exit}}' \
        /etc/apt/sources.list)
    fi
    if [[ -z $uri ]]; then
      ctorch_log "no Debian apt source found to take a mirror from: install Julia 1.5 or later by hand"
      return 0
    fi
    ctorch_log "adding Debian bullseye ($uri) as a pinned apt source for julia"
    printf 'Types: deb\nURIs: %s\nSuites: bullseye\nComponents: main\nSigned-By: %s\n' "$uri" "$keyring" |
      "${sudo[@]}" tee "$list" >/dev/null
  fi
  if [[ ! -f $pin ]]; then
    printf 'Package: *\nPin: release n=bullseye\nPin-Priority: 1\n' | "${sudo[@]}" tee "$pin" >/dev/null
  fi
  if ! command -v julia >/dev/null; then
    ctorch_log "installing julia from bullseye"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends julia
  fi
  ctorch_julia_works && return 0
  local libdir=/usr/local/lib/ctorch-julia tmp
  ctorch_log "julia crashes on exceptions with this libunwind: giving it bullseye's libunwind8 in $libdir"
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download -q libunwind8/bullseye) || {
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    (cd "$tmp" && apt-get download -q libunwind8/bullseye)
  }
  dpkg-deb -x "$tmp"/libunwind8_*.deb "$tmp/root"
  "${sudo[@]}" mkdir -p "$libdir"
  "${sudo[@]}" cp -a "$tmp"/root/usr/lib/x86_64-linux-gnu/libunwind*.so.* "$libdir/"
  rm -rf "$tmp"
  printf '#!/bin/sh\n# Installed by ctorch scripts/lib.sh (ctorch_install_julia): Debian julia 1.5 with bullseye'"'"'s libunwind.\nLD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec /usr/bin/julia "$@"\n' \
    "$libdir" | "${sudo[@]}" tee /usr/local/bin/julia >/dev/null
  "${sudo[@]}" chmod 755 /usr/local/bin/julia
  hash -r
  ctorch_julia_works || { echo "error: julia still crashes on exceptions; see $libdir" >&2; return 1; }
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
