#!/usr/bin/env bash
# test.sh - install what is missing, build build/ (Release), run the whole test suite with CTest,
# then the hardening half (scripts/sanitize.sh: the C and C++ suite under ASan+UBSan, allocation-
# failure injection, the fuzzers, the threading tests under TSan; scripts/valgrind.sh: the C ABI
# tests and C examples under memcheck). Exits non-zero when any part fails. CI runs it through .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

ctorch_install_deps
ctorch_install_julia
ctorch_configure build Release
ctorch_build build
status=0
# Every core, as sanitize.sh does: the suite is a few hundred programs, several of them launching
# ranks or runtimes that mostly wait.
ctest --test-dir build --output-on-failure -j "$(ctorch_nproc)" || status=1
scripts/sanitize.sh || status=1
scripts/valgrind.sh || status=1
exit $status
