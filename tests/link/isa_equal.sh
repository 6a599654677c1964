#!/usr/bin/env bash
# isa_equal.sh - the baseline and AVX2 kernels give the same bits: run PROGRAM with
# CTORCH_CPU_CAPABILITY=default and without, and compare what it prints.
set -euo pipefail
program=$1
base=$(CTORCH_CPU_CAPABILITY=default "$program")
native=$("$program")
printf '%s\n' "$native"
if [[ "$base" != "$native" ]]; then
  echo "FAIL: results differ between CTORCH_CPU_CAPABILITY=default and the native kernels:" >&2
  diff <(printf '%s\n' "$base") <(printf '%s\n' "$native") >&2 || true
  exit 1
fi
echo "baseline and native kernels agree bit for bit"
