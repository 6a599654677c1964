#!/usr/bin/env bash
# expect_output.sh - run a program; fail unless it exits 0 and its output contains every STRING.
#
#   expect_output.sh [--not-needed LIB] [--expect-file FILE] PROGRAM STRING...
#
# --not-needed LIB also fails when PROGRAM's dynamic section lists LIB (a static link check).
# --expect-file FILE adds every non-empty line of FILE to the STRINGs.
set -euo pipefail

not_needed=""
if [[ "${1:-}" == "--not-needed" ]]; then
  not_needed=$2
  shift 2
fi
expected=()
if [[ "${1:-}" == "--expect-file" ]]; then
  while IFS= read -r line; do
    [[ -n "$line" ]] && expected+=("$line")
  done <"$2"
  shift 2
fi
program=$1
shift
set -- "$@" "${expected[@]}"

status=0
output=$("$program" 2>&1) || status=$?
printf '%s\n' "$output"
if [[ $status -ne 0 ]]; then
  echo "FAIL: $program exited with status $status" >&2
  exit 1
fi
for want in "$@"; do
  if ! grep -qF -- "$want" <<<"$output"; then
    echo "FAIL: the output of $program lacks: $want" >&2
    exit 1
  fi
done
if [[ -n "$not_needed" ]] && readelf -d "$program" | grep -q "NEEDED.*\[$not_needed"; then
  echo "FAIL: $program is meant to be linked statically but needs $not_needed:" >&2
  readelf -d "$program" | grep NEEDED >&2
  exit 1
fi
echo "ok: $program"
