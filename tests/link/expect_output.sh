#!/usr/bin/env bash
# expect_output.sh - run a program; fail unless it exits 0 and its output contains every STRING.
#
#   expect_output.sh [--not-needed LIB] PROGRAM STRING...
#
# --not-needed LIB also fails when PROGRAM's dynamic section lists LIB (a static link check).
set -euo pipefail

not_needed=""
if [[ "${1:-}" == "--not-needed" ]]; then
  not_needed=$2
  shift 2
fi
program=$1
shift

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
