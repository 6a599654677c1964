#!/usr/bin/env bash
# check_doc_example.sh - the program quoted in a Markdown file is identical to the source file.
#
#   check_doc_example.sh DOC SOURCE NAME
#
# DOC quotes SOURCE in a ```c block between "<!-- begin NAME -->" and "<!-- end NAME -->".
set -euo pipefail
doc=$1 source=$2 name=$3

quoted=$(awk -v begin="<!-- begin $name -->" -v end="<!-- end $name -->" '
  $0 == begin { inside = 1; next }
  $0 == end { inside = 0 }
  inside && /^```/ { next }
  inside { print }' "$doc")
if [[ -z "$quoted" ]]; then
  echo "FAIL: $doc has no block between <!-- begin $name --> and <!-- end $name -->" >&2
  exit 1
fi
if ! diff -u <(printf '%s\n' "$quoted") "$source" >&2; then
  echo "FAIL: the copy of $name in $doc differs from $source (diff above: - doc, + source)" >&2
  exit 1
fi
echo "ok: $doc quotes $source exactly"
