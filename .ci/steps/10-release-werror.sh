# Release build of everything with -Wall -Wextra -Wpedantic -Werror.
set -euo pipefail
cmake -S . -B build-ci-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DMSPROF_WERROR=ON >/dev/null
cmake --build build-ci-release -j2
