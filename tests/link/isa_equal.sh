#!/usr/bin/env bash
# isa_equal.sh - the baseline, AVX2 and AVX-512 kernels give the same bits: run PROGRAM with
# CTORCH_CPU_CAPABILITY=default, =avx2 and without, and compare what it prints.
set -euo pipefail
program=$1
native=$("$program")
printf '%s\n' "$native"
for capability in default avx2; do
  other=$(CTORCH_CPU_CAPABILITY=$capability "$program")
  if [[ "$other" != "$native" ]]; then
    echo "FAIL: results differ between CTORCH_CPU_CAPABILITY=$capability and the native kernels:" >&2
    diff <(printf '%s\n' "$other") <(printf '%s\n' "$native") >&2 || true
    exit 1
  fi
done
echo "baseline, AVX2 and native kernels agree bit for bit"
