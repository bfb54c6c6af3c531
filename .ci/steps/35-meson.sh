#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The meson build (mirror of the CMake one): setup, compile everything (-O0: the
# optimised builds are the CMake ones), meson test but for the converters' suites
# (suite 'slow', tests/meson.build), which the CMake steps run.
set -euo pipefail
cd "$(dirname "$0")/../.."
b=build-ci-meson
rm -rf $b
meson setup $b --buildtype=debug -Dc_args=-g1 -Dcpp_args=-g1 >/dev/null  # line tables: -g is half again the compile time
meson compile -C $b -j 2
# The mutation test replays seeds of its own here (1301..2300; the README build
# runs 1..1000, the ASan step 1001..1300).
MSPROF_MUTATION_SEED=1301 meson test -C $b --num-processes 2 --print-errorlogs --no-suite slow
