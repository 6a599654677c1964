#!/usr/bin/env bash
# check_exports.sh - the shared library exports ct_* functions and nothing else.
#
#   check_exports.sh NM LIBRARY [SANITIZER]
#
# Allowed besides ct_*: symbols the linker defines in every shared object (_init, _fini, _edata,
# _end, __bss_start), the symbol-version node of src/ctorch.map (CTORCH_<n>), and, when SANITIZER
# names a sanitizer build, its runtime's hooks.
set -euo pipefail

nm_tool=${1:-"nm"}
library=$2
sanitizer_build=${3:-}
[[ -n "$nm_tool" ]] || nm_tool="nm"

symbols=$("$nm_tool" -D --defined-only "$library" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u)
if [[ -z "$symbols" ]]; then
  echo "FAIL: $nm_tool -D --defined-only $library listed no symbols" >&2
  exit 1
fi

linker_defined='^(_init|_fini|_edata|_end|__bss_start|CTORCH_[0-9]+)$'
sanitizer='^$'
[[ -z "$sanitizer_build" ]] || sanitizer='^(__asan|__odr_asan|__tsan|__ubsan|__sanitizer|__lsan)'
stray=$(grep -v '^ct_' <<<"$symbols" | grep -Ev "$linker_defined" | grep -Ev "$sanitizer" || true)

count=$(grep -c '^ct_' <<<"$symbols" || true)
echo "$library exports $count ct_* symbols"
if [[ -n "$stray" ]]; then
  echo "FAIL: symbols outside the ct_ namespace are exported (they must be hidden):" >&2
  if command -v c++filt >/dev/null; then
    c++filt <<<"$stray" | paste - <(printf '%s\n' "$stray") | sed 's/^/  /' | head -50 >&2
  else
    sed 's/^/  /' <<<"$stray" | head -50 >&2
  fi
  echo "  ($(wc -l <<<"$stray") in all)" >&2
  exit 1
fi
for required in ct_tensor_add ct_tensor_release ct_last_error ct_init; do
  if ! grep -qx "$required" <<<"$symbols"; then
    echo "FAIL: $required is not exported" >&2
    exit 1
  fi
done
echo "ok: only ct_* symbols are exported"
