#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and runs the consumer projects: after `cmake --install` via
# find_package(msprof) and via pkg-config (msprof.pc, msprof_convert.pc), via add_subdirectory(), and
# as a meson subproject. The install goes to another prefix than the configured one
# with a Debian-style libdir (lib/<multiarch>): msprof.pc and the installed
# launcher (bin/msprof -> libmsprof_mstx.so) must both still work. The installed build is
# Release, as a packager builds it: warnings only the optimiser sees (gcc's
# -Wmaybe-uninitialized at -O3) are errors here too.
# Usage: tests/package/run.sh [work dir]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
work=$(cd "$work" && pwd -P)  # the launcher reports paths through /proc/self/exe
rm -rf "$work/configured-prefix" "$work/build" "$work/prefix" "$work/fp" "$work/sub" "$work/pc" "$work/ms" "$work/launch"
cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$work/configured-prefix" \
  -DCMAKE_INSTALL_LIBDIR=lib/x86_64-linux-gnu \
  -DMSPROF_BUILD_TESTS=OFF -DMSPROF_BUILD_BENCH=OFF -DMSPROF_BUILD_EXAMPLES=OFF -DMSPROF_BUILD_TOOLS=ON >/dev/null
cmake --build "$work/build" -j2
cmake --install "$work/build" --prefix "$work/prefix" >/dev/null
[ ! -e "$work/configured-prefix" ]
echo "== find_package(msprof) after cmake --install"
cmake -S "$src/tests/package/find_package" -B "$work/fp" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix"
cmake --build "$work/fp" -j2
"$work/fp/consumer"
"$work/fp/convert_consumer"
echo "== pkg-config msprof"
export PKG_CONFIG_PATH="$work/prefix/share/pkgconfig"
[ "$(pkg-config --modversion msprof)" = "$(cat "$src/VERSION")" ]
# msprof.pc is relocatable: its prefix follows the install, not CMAKE_INSTALL_PREFIX.
pkg-config --cflags msprof
[ -f "$(pkg-config --variable=includedir msprof)/msprof/mstx.hpp" ]
mkdir -p "$work/pc"
# shellcheck disable=SC2046
g++ -std=c++17 $(pkg-config --cflags msprof) "$src/tests/package/consumer.cpp" -o "$work/pc/consumer" $(pkg-config --libs msprof) -ldl -pthread
"$work/pc/consumer"
echo "== pkg-config msprof_convert (libmsprof_convert.a)"
[ -f "$(pkg-config --variable=libdir msprof_convert)/libmsprof_convert.a" ]
# shellcheck disable=SC2046
g++ -std=c++17 $(pkg-config --cflags msprof_convert) "$src/tests/package/convert_consumer.cpp" -o "$work/pc/convert_consumer" $(pkg-config --libs msprof_convert) -ldl -pthread
"$work/pc/convert_consumer"
echo "== installed launcher finds lib/x86_64-linux-gnu/libmsprof_mstx.so (--export=off)"
# shellcheck disable=SC2046
g++ -std=c++17 $(pkg-config --cflags msprof) "$src/tests/unit/cli/cli_test_app.cpp" -o "$work/pc/mstx_app" -ldl -pthread
"$work/prefix/bin/msprof" --output="$work/launch" --export=off --application="$work/pc/mstx_app" >"$work/launch.out"
prof=$(cat "$work/launch.out")
case $prof in "$work/launch/PROF_"*) ;; *) echo "launcher printed '$prof', expected a PROF_ dir" >&2; exit 1 ;; esac
[ -d "$prof" ] && [ ! -e "$prof/mindstudio_profiler_output" ]
mv "$work/prefix/lib/x86_64-linux-gnu/libmsprof_mstx.so" "$work/pc/"
if "$work/prefix/bin/msprof" --output="$work/launch" --application=true 2>"$work/launch.err"; then
  echo "launcher ran without its injection library" >&2; exit 1
fi
grep -qF "$work/prefix/lib/x86_64-linux-gnu, $work/prefix/lib" "$work/launch.err" || { cat "$work/launch.err" >&2; exit 1; }
mv "$work/pc/libmsprof_mstx.so" "$work/prefix/lib/x86_64-linux-gnu/"
echo "== add_subdirectory(msprof)"
cmake -S "$src/tests/package/add_subdirectory" -B "$work/sub" -G Ninja -DMSPROF_SOURCE_DIR="$src"
cmake --build "$work/sub" -j2
"$work/sub/consumer"
"$work/sub/convert_consumer"
echo "== meson subproject (dependency('msprof') via override_dependency)"
mkdir -p "$work/ms/meson_subproject/subprojects"
cp "$src/tests/package/"*.cpp "$work/ms/"
cp "$src/tests/package/meson_subproject/meson.build" "$work/ms/meson_subproject/"
ln -sfn "$src" "$work/ms/meson_subproject/subprojects/msprof"
meson setup "$work/ms/build" "$work/ms/meson_subproject" >/dev/null
meson compile -C "$work/ms/build" -j 2
"$work/ms/build/consumer"
"$work/ms/build/convert_consumer"
echo "consumers: find_package, pkg-config, add_subdirectory and meson subproject all built and ran"
