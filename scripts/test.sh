#!/usr/bin/env bash
# test.sh - install what is missing, build build/ (Release), run the whole test suite with CTest.
# Exits with CTest's status. CI runs it through .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

ctorch_install_deps
ctorch_install_julia
ctorch_configure build Release
ctorch_build build
exec ctest --test-dir build --output-on-failure
