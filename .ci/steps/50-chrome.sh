#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The chrome trace form in the DevTools trace engine (issue 8): installs the
# pinned engine (tests/js, npm ci), checks the engine rules the form relies on
# (selftest.mjs), then runs test_chrome and the new user's path (test_cli) with
# the engine required, so no case may skip. Reuses the README build (build/) when it exists.
set -euo pipefail
cd "$(dirname "$0")/../.."
(cd tests/js && npm ci --no-audit --no-fund && node selftest.mjs)
build=${MSPROF_BUILD_DIR:-build}
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j2 --target test_chrome test_cli test_soc_cli
# and the new user's path, whose trace (written by the launcher) the engine must draw
# and the SoC flow's task_time_* / acl_* timelines (docs/soc.md)
MSPROF_REQUIRE_ENGINE=1 ctest --test-dir "$build" -R "^test_chrome:|^test_cli:cli: a new user|^test_soc_cli:soc timelines" -j2 --output-on-failure
