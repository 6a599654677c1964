#!/usr/bin/env bash
# valgrind.sh - every C ABI test and C example of a build under valgrind's memcheck: a definite or
# indirect leak, or any memory error, fails the program (docs/reliability.md, "Leaks").
#
#   scripts/valgrind.sh [BUILD_DIR]   (default: build, the Release build setup.sh makes)
#
# scripts/test.sh runs it last (about 2.5 minutes on 2 cores). Memory the library keeps on purpose
# until exit (the allocator's cache, object pools, registries) is "still reachable" and does not
# count. glibc's own false alarms are in tests/valgrind/glibc.supp.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

build_dir=${1:-build}
ctorch_install_deps valgrind libc6-dbg
ctorch_build "$build_dir"

programs=("$build_dir"/tests/capi/capi_test_*)
for example in quickstart abi_tour tensor_tour custom_op autograd devices reproducible symbolic compile \
               ops_index ops_linalg_conv ops_nn ops_pointwise ops_reduce ops_shape digits; do
  programs+=("$build_dir/examples/$example")
done

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# One program per core; each writes its own log, named after it.
printf '%s\n' "${programs[@]}" | xargs -P "$(ctorch_nproc)" -I{} sh -c \
  'valgrind -q --suppressions=tests/valgrind/glibc.supp --leak-check=full --errors-for-leak-kinds=definite,indirect \
     --error-exitcode=99 --log-file="$1/$(basename "$2").vg" "$2" >/dev/null 2>&1; echo $? > "$1/$(basename "$2").rc"' \
  _ "$logs" {}

passed=0 failed=0
for p in "${programs[@]}"; do
  name=$(basename "$p")
  rc=$(cat "$logs/$name.rc")
  if [[ $rc == 0 ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL $name (exit $rc)"
    sed 's/^/  /' "$logs/$name.vg" | head -40
  fi
done
echo "memcheck: ${#programs[@]} programs, no definite or indirect leak and no memory error in $passed"
echo "$passed passed, $failed failed"
((failed == 0))
