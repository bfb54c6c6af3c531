#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""README.md's first program compiles as written: its C++ block is
examples/first_program.cpp (without that file's leading comment lines), and its
compile line, run in a fresh folder on the block saved as my_program.cpp, builds a
program that runs (exit 0). The launcher and `msprof show` on that program are
tested in tests/unit/cli/cli_test.cpp."""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def main():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    section = readme[readme.index("## A first program"):]
    program = re.search(r"```cpp\n(.*?)```", section, re.S).group(1)
    commands = re.search(r"```sh\n(.*?)```", section, re.S).group(1).splitlines()
    with open(os.path.join(ROOT, "examples", "first_program.cpp"), encoding="utf-8") as f:
        example = f.read().splitlines(keepends=True)
    while example and example[0].startswith("//"):
        example.pop(0)
    if "".join(example) != program:
        print("README.md's first program differs from examples/first_program.cpp")
        return 1
    compile_line = shlex.split(commands[0])
    if "my_program.cpp" not in compile_line:
        print(f"README.md: the first command does not compile my_program.cpp: {commands[0]}")
        return 1
    compiler = os.environ.get("CXX") or shutil.which(compile_line[0]) or shutil.which("c++")
    if compiler is None:
        print(f"no {compile_line[0]} here: only the program text was checked")
        return 0
    compile_line[0] = compiler
    compile_line = [os.path.join(ROOT, "include") if a == "include" else a for a in compile_line]
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "my_program.cpp"), "w", encoding="utf-8") as f:
            f.write(program)
        for argv in (compile_line, ["./my_program"]):
            r = subprocess.run(argv, cwd=d, capture_output=True, text=True, timeout=300)
            if r.returncode != 0:
                print(f"{' '.join(argv)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
                return 1
    print("README.md's first program compiles as written and runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
