#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The concurrency tests under ThreadSanitizer: ring buffers and the collector
# (test_collect_hot: growth, thread and fork storms), the mstx tool core
# (test_mstx*), sessions (test_session*), and the launcher's collection cases
# (test_cli: buffer policies, fork, kill -9, the staging and its storage limit, the --delay window, --dynamic's windows), whose programs and injection
# library are built with TSan too (a race there fails the program, so the case),
# `msprof collect` over ssh (soc:collect-ssh: the askpass server's thread), and
# the export's writers' thread (test_convert_threads).
set -euo pipefail
cd "$(dirname "$0")/../.."
b=build-ci-tsan
# -g1: line tables give the reports their lines; full -g is half again the compile time.
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMSPROF_SANITIZE=thread \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
  -DMSPROF_BUILD_BENCH=OFF -DMSPROF_BUILD_EXAMPLES=OFF >/dev/null
targets=$(cmake --build $b --target help | sed -nE 's/^(test_(collect_hot|mstx|session)[a-z_]*):.*/\1/p' | sort -u)
targets="$targets test_cli test_convert_threads msprof_cli msprof_mstx msprof_soc_cli_inference"
echo "tsan targets:" $targets
cmake --build $b -j2 --target $targets
# halt_on_error: a race fails the test even when the test's own checks pass.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
  ctest --test-dir $b -R '^test_(collect_hot|mstx|session)[a-z_]*:|^test_cli:cli: (buffers|fork|kill|staging|storage limit|launcher --delay|launcher --dynamic)|^soc:collect-ssh$|^test_convert_threads:' -j2 --output-on-failure
