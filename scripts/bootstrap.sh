#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages msprof needs, only those that are missing.
# Prints nothing when everything is already present. Extra package names may be
# passed as arguments (e.g. clang for the fuzzers).
set -euo pipefail
packages=(g++ cmake ninja-build meson pkg-config python3 libfmt-dev libsimdjson-dev doctest-dev libsqlite3-dev sqlite3 "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "bootstrap: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
