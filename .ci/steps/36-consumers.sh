#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ways to consume msprof (cmake --install + find_package / pkg-config,
# add_subdirectory, meson subproject): tiny projects in tests/package/ build and run.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tests/package/run.sh "$PWD/build-ci-consumers"
