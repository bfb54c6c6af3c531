#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and runs the consumer projects: after `cmake --install` via
# find_package(msprof) and via pkg-config (msprof.pc), via add_subdirectory(), and
# as a meson subproject.
# Usage: tests/package/run.sh [work dir]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d)}
rm -rf "$work/build" "$work/prefix" "$work/fp" "$work/sub" "$work/pc" "$work/ms"
cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$work/prefix" \
  -DMSPROF_BUILD_TESTS=OFF -DMSPROF_BUILD_BENCH=OFF -DMSPROF_BUILD_EXAMPLES=OFF -DMSPROF_BUILD_TOOLS=OFF >/dev/null
cmake --build "$work/build" -j2
cmake --install "$work/build" >/dev/null
echo "== find_package(msprof) after cmake --install"
cmake -S "$src/tests/package/find_package" -B "$work/fp" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix"
cmake --build "$work/fp" -j2
"$work/fp/consumer"
"$work/fp/convert_consumer"
echo "== pkg-config msprof"
export PKG_CONFIG_PATH="$work/prefix/share/pkgconfig"
[ "$(pkg-config --modversion msprof)" = "$(cat "$src/VERSION")" ]
mkdir -p "$work/pc"
# shellcheck disable=SC2046
g++ -std=c++17 $(pkg-config --cflags msprof) "$src/tests/package/consumer.cpp" -o "$work/pc/consumer" $(pkg-config --libs msprof) -ldl -pthread
"$work/pc/consumer"
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
