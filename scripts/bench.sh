#!/usr/bin/env bash
# bench.sh - build ctorch (Release) and run bench/bench_core: one table of ctorch vs its anchors.
#
#   scripts/bench.sh [BUILD_DIR]   (default: build, the Release build setup.sh makes)
#
# It uses every core for about a minute; run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

build_dir=${1:-build}
ctorch_configure "$build_dir" Release
ctorch_build "$build_dir" bench_core
"$build_dir/bench/bench_core"
