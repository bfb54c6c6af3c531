# The whole test suite under AddressSanitizer and UndefinedBehaviorSanitizer,
# and the fuzz corpus replayed (fuzz:replay, g++) through the same build.
# (The README build, scripts/test.sh, is the -Werror build of everything.)
set -euo pipefail
# -g1: line tables give the reports their lines; full -g is half again the compile time.
cmake -S . -B build-ci-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1 \
  -DMSPROF_SANITIZE=address,undefined -DMSPROF_FUZZ=ON -DMSPROF_BUILD_BENCH=OFF -DMSPROF_BUILD_EXAMPLES=OFF >/dev/null
cmake --build build-ci-asan -j2
ctest --test-dir build-ci-asan -j2 --output-on-failure
