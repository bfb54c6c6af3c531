# The whole test suite under AddressSanitizer and UndefinedBehaviorSanitizer,
# and the fuzz corpus replayed (fuzz:replay, g++) through the same build.
# (The README build, scripts/test.sh, is the -Werror build of everything.)
set -euo pipefail
cmake -S . -B build-ci-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMSPROF_SANITIZE=address,undefined -DMSPROF_FUZZ=ON \
  -DMSPROF_BUILD_BENCH=OFF -DMSPROF_BUILD_EXAMPLES=OFF >/dev/null
cmake --build build-ci-asan -j2
ctest --test-dir build-ci-asan -j2 --output-on-failure
