#!/usr/bin/env bash
# install_test.sh - install ctorch into a fresh prefix, then build and run programs against it:
# a CMake project using find_package(ctorch) (shared and static) and a plain compile with
# pkg-config (shared, and static through Libs.private/Requires.private).
#
#   install_test.sh SOURCE_DIR BUILD_DIR WORK_DIR CMAKE CC GENERATOR [CONFIG] [EXTRA_FLAGS]
#
# EXTRA_FLAGS go to every compile and link (a sanitizer build passes -fsanitize=...).
set -euo pipefail

src=$1 build=$2 work=$3 cmake=$4 cc=$5 generator=$6 config=${7:-} extra=${8:-}
here=$(cd "$(dirname "$0")" && pwd)
quickstart=$src/examples/c/quickstart.c
expect=("[[11., 22., 33.]," "[44., 55., 66.]]" "shape [2, 3], dtype float32")
read -r -a extra_flags <<<"$extra"

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

echo "== cmake --install into $prefix"
"$cmake" --install "$build" --prefix "$prefix" ${config:+--config "$config"} >"$work/install.log"
pcdir=$(dirname "$(find "$prefix" -name ctorch.pc -print -quit)")
libdir=$(dirname "$(find "$prefix" -name 'libctorch.so.*' -print -quit)")
[[ -f "$pcdir/ctorch.pc" && -f "$libdir/libctorch.a" && -f "$prefix/include/ctorch.h" &&
   -f "$prefix/include/ctorch_dlpack.h" ]] || {
  echo "FAIL: the prefix lacks ctorch.pc, libctorch.a, include/ctorch.h or include/ctorch_dlpack.h" >&2
  find "$prefix" >&2
  exit 1
}

echo "== CMake consumer: find_package(ctorch CONFIG REQUIRED)"
"$cmake" -S "$here/consumer" -B "$work/consumer" -G "$generator" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCTORCH_QUICKSTART="$quickstart" -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" \
  >"$work/consumer-configure.log" || { cat "$work/consumer-configure.log" >&2; exit 1; }
"$cmake" --build "$work/consumer" >"$work/consumer-build.log" || { cat "$work/consumer-build.log" >&2; exit 1; }
bash "$here/expect_output.sh" "$work/consumer/consumer_shared" "${expect[@]}"
bash "$here/expect_output.sh" --not-needed libctorch "$work/consumer/consumer_static" "${expect[@]}"

echo "== pkg-config consumer"
export PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
pkg-config --exists --print-errors ctorch
read -r -a pc_shared <<<"$(pkg-config --cflags --libs ctorch)"
"$cc" "${extra_flags[@]}" "$quickstart" "${pc_shared[@]}" -Wl,-rpath,"$libdir" -o "$work/pkgconfig_shared"
bash "$here/expect_output.sh" "$work/pkgconfig_shared" "${expect[@]}"
# Static: libctorch.a in place of -lctorch, plus what --static adds (Libs.private, openblas).
read -r -a pc_static <<<"$(pkg-config --static --cflags --libs ctorch | sed 's/ -lctorch / /; s/^-lctorch //')"
"$cc" "${extra_flags[@]}" "$quickstart" "$libdir/libctorch.a" "${pc_static[@]}" -o "$work/pkgconfig_static"
bash "$here/expect_output.sh" --not-needed libctorch "$work/pkgconfig_static" "${expect[@]}"

echo "ok: the installed package, its CMake config and ctorch.pc all link and run"
