#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The generated single header: up to date, self-sufficient, and the whole
# test suite passes when <msprof/mstx.hpp> is the generated file.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 tools/amalgamate.py --output single_include/msprof/mstx.hpp msprof/mstx.hpp
git diff --exit-code --stat single_include/ || {
  echo "single_include/ is out of date: run python3 tools/amalgamate.py --output single_include/msprof/mstx.hpp msprof/mstx.hpp"
  exit 1
}
# Every example whose only msprof include is msprof/mstx.hpp builds with -I single_include alone.
out=$(mktemp -d)
n=0
for f in examples/*.cpp; do
  own=$(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]((msprof|mstx)\/[^>"]+)[>"].*/\1/p' "$f" | sort -u)
  [ "$own" = "msprof/mstx.hpp" ] || continue
  echo "single header: $f"
  # exactly what a vendoring user types (glibc >= 2.34 needs no -ldl / -pthread)
  g++ -std=c++17 -I single_include -Wall -Wextra -Wpedantic -Werror "$f" -o "$out/$(basename "$f" .cpp)"
  n=$((n + 1))
done
# The collector part (MSPROF_IMPLEMENT) compiles from the single header too.
printf '#define MSPROF_IMPLEMENT\n#include "msprof/mstx.hpp"\nint main() { MSPROF_FUNC_RANGE(); return msprof::collect::collecting() ? 1 : 0; }\n' >"$out/implement.cpp"
g++ -std=c++17 -I single_include -Wall -Wextra -Wpedantic -Werror "$out/implement.cpp" -o "$out/implement"
"$out/implement"
echo "single header: $n examples + MSPROF_IMPLEMENT compiled with -I single_include only"
[ "$n" -gt 0 ]
# The whole test suite with <msprof/mstx.hpp> resolving to the generated header.
b=build-ci-single
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1 -DMSPROF_TEST_SINGLE_HEADER=ON \
  -DMSPROF_BUILD_BENCH=OFF -DMSPROF_BUILD_EXAMPLES=OFF >/dev/null
cmake --build $b -j2
ctest --test-dir $b -j2 --output-on-failure
