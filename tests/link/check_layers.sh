#!/usr/bin/env bash
# check_layers.sh SRC_DIR - fails when an #include in src/ points up a layer (DESIGN.md section 1).
# Bottom to top:
#   core, symbolic, runtime  <  dispatch  <  ops  <  autograd, compile, train, io, distributed, cuda  <  capi
#   <  builtins.cpp (the composition root, which defines the operators and installs autograd and
#   the CUDA kernels over them)
# (cuda is the CUDA glue in libctorch, which calls operators; src/cuda/driver/ is a library of its
# own that includes only itself.) A file may include its own layer and the layers below it.
# EXCEPTIONS are the includes that still point up, each with why. The list only shrinks: an
# exception that no longer occurs fails the check too, so that it is taken off.
set -euo pipefail
src=${1:?usage: check_layers.sh SRC_DIR}
declare -A rank=([core]=0 [symbolic]=0 [runtime]=0 [dispatch]=1 [ops]=2 [autograd]=3 [compile]=3 [train]=3
                 [io]=3 [distributed]=3 [cuda]=3 [capi]=4 [builtins.cpp]=5)
EXCEPTIONS=()
declare -A seen=()
bad=0
cd "$src"
while IFS= read -r file; do
  layer=${file%%/*}
  [[ -n ${rank[$layer]:-} ]] || continue
  while IFS= read -r inc; do
    target=${inc%%/*}
    [[ -n ${rank[$target]:-} ]] || continue
    ((rank[$target] > rank[$layer])) || continue
    pair="$file $inc"
    if printf '%s\n' "${EXCEPTIONS[@]}" | grep -qxF "$pair"; then
      seen[$pair]=1
    else
      echo "check_layers: $file includes $inc: $target is above $layer (DESIGN.md section 1). Move the code it" \
        "needs down, or this file up" >&2
      bad=1
    fi
  done < <(sed -n 's/^#include "\([a-z_]*\/[^"]*\)".*/\1/p' "$file")
done < <(find . \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' \) -not -path './cuda/driver/*' | sed 's|^\./||' | sort)
for pair in "${EXCEPTIONS[@]}"; do
  if [[ -z ${seen[$pair]:-} ]]; then
    echo "check_layers: the exception '$pair' no longer occurs: take it off the list" >&2
    bad=1
  fi
done
((bad == 0)) && echo "check_layers: every include in $src points down or across"
exit $bad
