#!/usr/bin/env bash
# sanitize.sh - the hardening half of the test suite (docs/reliability.md); scripts/test.sh runs it
# after the main suite, and it runs alone the same way. Two more builds of the library:
#
#   build-sanitize  clang, AddressSanitizer + UndefinedBehaviorSanitizer, libFuzzer coverage and
#                   allocation-failure injection: the whole C and C++ test suite (C ABI tests, C++
#                   unit tests, examples, plugins), the allocation-failure scenarios and the
#                   C ABI tests with their allocations failing in turn (fault.*), the fuzzers'
#                   corpora, and the fuzzers for CTORCH_FUZZ_SECONDS seconds each (default 30),
#                   each with a new seed (printed; CTORCH_FUZZ_SEED=N replays one)
#   build-tsan      ThreadSanitizer: the threading tests (capi_test_threads, capi_test_stress)
#
# The bindings are left out of both: their runtimes (CPython, the JVM, Julia, cargo's test binaries)
# cannot load an instrumented library. Exits non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

ctorch_install_deps "${CTORCH_SANITIZER_PACKAGES[@]}"

# -O1: instrumented code at -O0 makes the C++ tests several times slower, and -O2 builds slower.
common=(-G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DCMAKE_CXX_FLAGS_DEBUG="-g -O1"
        -DCTORCH_WITH_CUDA=OFF -DCTORCH_BUILD_BENCH=OFF -DCTORCH_BUILD_PYTHON=OFF -DCTORCH_BUILD_RUST=OFF
        -DCTORCH_BUILD_JAVA=OFF -DCTORCH_BUILD_JULIA=OFF)

status=0
ctorch_log "configuring build-sanitize (clang, address;undefined, fuzzers, fault injection)"
CC=clang CXX=clang++ cmake -S . -B build-sanitize "${common[@]}" -DCTORCH_SANITIZE="address;undefined" \
  -DCTORCH_BUILD_FUZZERS=ON -DCTORCH_FAULT_INJECTION=ON -DCTORCH_FUZZ_SECONDS="${CTORCH_FUZZ_SECONDS:-30}" \
  -DCTORCH_FUZZ_SEED="${CTORCH_FUZZ_SEED:-0}"
ctorch_build build-sanitize
# ASan's leak checker runs at every test's exit; UBSan stops at the first finding (the build says
# -fno-sanitize-recover) and prints where.
UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build-sanitize --output-on-failure -j "$(ctorch_nproc)" || status=1

ctorch_log "configuring build-tsan (gcc, thread)"
cmake -S . -B build-tsan "${common[@]}" -DCTORCH_SANITIZE=thread
ctorch_build build-tsan capi_test_threads capi_test_stress
# A race report makes the test's process exit non-zero (TSan's exitcode), failing the test.
ctest --test-dir build-tsan --output-on-failure -R '^capi_test_(threads|stress)$' || status=1
exit $status
