#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The docs name only files that exist: every header (`msprof/...hpp`, `<msprof/...h>`,
`collect/...hpp`) and every repository path in backquotes (`src/...`, `tests/...`, ...)
that README.md and docs/*.md mention must be in the tree, so moving or renaming a file
without its docs fails here. Paths that name build or install outputs are listed in
NOT_IN_TREE with the reason."""
import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
NOT_IN_TREE = {
    "include/msprof_single": "install destination of single_include/",
    "tests/js/node_modules": "made by npm ci",
    "tools/bin/msprof": "meson build output",
    "tools/lib/libmsprof_mstx.so": "meson build output",
    "bench/convert_throughput": "the benchmark program (bench/convert_throughput.cpp)",
}
HEADER = re.compile(r"(?:include/)?(msprof/[A-Za-z0-9_/]+\.hpp|msprof/[A-Za-z0-9_/]+\.h)\b")
# Headers named from include/msprof/, as the docs often do (`collect/collector.hpp`).
SHORT = re.compile(r"`((?:collect|convert|codec|prof|session|core|instrument|device|detail|ext)/[A-Za-z0-9_/]+\.hpp)`")
PATH = re.compile(r"`((?:src|tests|tools|bench|examples|scripts|include|cmake|docs)/[A-Za-z0-9_./-]+)`")


def main():
    docs = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    missing = []
    for doc in docs:
        with open(doc, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                for h in HEADER.findall(line):
                    if not os.path.exists(os.path.join(ROOT, "include", h)):
                        missing.append(f"{os.path.relpath(doc, ROOT)}:{n}: header {h} does not exist")
                for h in SHORT.findall(line):
                    if not os.path.exists(os.path.join(ROOT, "include", "msprof", h)):
                        missing.append(f"{os.path.relpath(doc, ROOT)}:{n}: header msprof/{h} does not exist")
                for p in PATH.findall(line):
                    p = p.rstrip(".")
                    if p not in NOT_IN_TREE and not os.path.exists(os.path.join(ROOT, p)):
                        missing.append(f"{os.path.relpath(doc, ROOT)}:{n}: {p} does not exist")
    for m in missing:
        print(m)
    print(f"{len(docs)} documents checked, {len(missing)} stale names")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
