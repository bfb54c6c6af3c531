#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The docs name only flags and variables that exist: every option of the `msprof`
command that README.md and docs/*.md show in backquotes (a `msprof ...` command line, or
a lone `--option`) must be one the command parses (tools/msprof/) or one of the
trace checker (tests/js/check_trace.mjs), and every `MSPROF_*` / `MSTX_*` variable or
macro they name must appear in the sources. Renaming or removing a flag or a variable
without its docs fails here."""
import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PLACEHOLDERS = {"flag"}  # cli.md: "Every flag may be written `--flag=value`, ..."
SPAN = re.compile(r"`([^`]+)`")
FLAG = re.compile(r"(?<![\w-])(--?[a-z][a-z0-9-]*)")
LONE = re.compile(r"--[a-z][a-z0-9-]*(?:=\S*)?")
NAME = re.compile(r"\b((?:MSPROF|MSTX)_[A-Z0-9_]*[A-Z0-9])\b")
SOURCE_DIRS = ["include", "src", "tools", "tests", "bench", "scripts", "examples", "cmake", ".ci"]
SOURCE_FILES = ["CMakeLists.txt", "meson.build", "meson_options.txt"]


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def known_flags():
    src = "\n".join(read(f) for f in sorted(glob.glob(os.path.join(ROOT, "tools", "msprof", "*.[ch]pp"))))
    flags = set(re.findall(r'take\("([a-z0-9-]+)"', src))      # arg_parser::take("name", ...)
    flags |= set(re.findall(r'name == "([a-z0-9-]+)"', src))   # the launcher's option names
    flags |= set(re.findall(r'\{"([a-z0-9-]+)", "', src))     # its table of CANN's options
    flags |= set(re.findall(r'\{"([a-z0-9-]+)",\s*&', src))   # its on|off switches
    flags |= set(re.findall(r'"--?([a-z][a-z0-9-]*)', src))
    for js in glob.glob(os.path.join(ROOT, "tests", "js", "*.mjs")):
        flags |= set(re.findall(r"--([a-z][a-z0-9-]*)", read(js)))
    return flags


def source_text():
    parts = [read(os.path.join(ROOT, f)) for f in SOURCE_FILES if os.path.exists(os.path.join(ROOT, f))]
    for d in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, d)):
            dirnames[:] = [n for n in dirnames if n not in ("node_modules", "corpus", "golden", "golden-pt")]
            for n in filenames:
                if n.endswith((".hpp", ".h", ".cpp", ".c", ".py", ".sh", ".txt", ".build", ".cmake", ".in", ".mjs")) \
                        or n == "run":
                    parts.append(read(os.path.join(dirpath, n)))
    return "\n".join(parts)


SUBCOMMANDS = {"msprof", "export", "import", "show", "analyse", "timeline", "summary", "db", "help", "version"}


def msprof_part(span):
    """The words of a command line up to the program it runs: `msprof --output=o prog --lr 1`
    stops before `prog`; a word after an option without `=` is that option's value."""
    words, kept = span.split(), []
    for w in words:
        if not w.startswith("-") and w not in SUBCOMMANDS and not (kept and kept[-1].startswith("-") and "=" not in kept[-1]):
            break
        kept.append(w)
    return " ".join(kept)


def main():
    flags = known_flags()
    sources = source_text()
    docs = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    stale = []
    for doc in docs:
        rel = os.path.relpath(doc, ROOT)
        for n, line in enumerate(read(doc).splitlines(), 1):
            for span in SPAN.findall(line):
                span = span.strip()
                if span.startswith("msprof ") or LONE.fullmatch(span):
                    for f in FLAG.findall(msprof_part(span)):
                        name = f.lstrip("-")
                        if name not in flags and name not in PLACEHOLDERS:
                            stale.append(f"{rel}:{n}: flag {f} is not an option of msprof ({span})")
            for v in NAME.findall(line):
                if v not in sources:
                    stale.append(f"{rel}:{n}: {v} appears in no source file")
    for s in stale:
        print(s)
    print(f"{len(docs)} documents checked, {len(stale)} stale flags or names")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
