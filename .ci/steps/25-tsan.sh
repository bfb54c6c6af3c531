#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The concurrency tests under ThreadSanitizer: ring buffers and the collector
# (test_collect_hot), the mstx tool core (test_mstx*), sessions (test_session*).
set -euo pipefail
cd "$(dirname "$0")/../.."
b=build-ci-tsan
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMSPROF_SANITIZE=thread \
  -DMSPROF_BUILD_BENCH=OFF -DMSPROF_BUILD_EXAMPLES=OFF >/dev/null
targets=$(cmake --build $b --target help | sed -nE 's/^(test_(collect_hot|mstx|session)[a-z_]*):.*/\1/p' | sort -u)
echo "tsan targets:" $targets
cmake --build $b -j2 --target $targets
# halt_on_error: a race fails the test even when the test's own checks pass.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
  ctest --test-dir $b -R '^test_(collect_hot|mstx|session)[a-z_]*:' -j2 --output-on-failure
