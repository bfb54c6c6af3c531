#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# README command 2: installs what is missing, builds everything and runs the whole
# test suite. Build directory: build/ (override with MSPROF_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
build=${MSPROF_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${MSPROF_BUILD_TYPE:-RelWithDebInfo} "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" -j "$(nproc)" --output-on-failure
