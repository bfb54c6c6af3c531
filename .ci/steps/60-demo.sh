#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# README command 1 exactly as a user runs it; fails when the demo prints no
# PROF_ directory, no operator table or no timeline to open.
set -euo pipefail
cd "$(dirname "$0")/../.."
log=$(mktemp)
bash scripts/demo.sh | tee "$log"
grep -q '^== collected' "$log"
grep -q 'PROF_' "$log"
grep -q 'msprof_[0-9]*\.json' "$log"
grep -q 'Chrome DevTools' "$log"
if [ -f examples/training_loop.cpp ]; then
  grep -q 'Op summary' "$log"
  grep -q 'API statistic' "$log"
fi
