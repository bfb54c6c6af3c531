#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tests of tools/amalgamate.py on small generated include trees: what it
inlines, marks and refuses, and that its output is stable. (Whether
single_include/ is current is CI step 30's check.)
    python3 tests/package/amalgamate_test.py   (exit 0 = all passed)"""
import os
import subprocess
import sys
import tempfile
import unittest

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(SRC, "tools", "amalgamate.py")


def run(include_dir, *args):
    p = subprocess.run([sys.executable, TOOL, "--include-dir", include_dir, *args],
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


class Tree:
    def __init__(self, files):
        self.tmp = tempfile.TemporaryDirectory()
        self.include = os.path.join(self.tmp.name, "include")
        for name, text in files.items():
            path = os.path.join(self.include, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.tmp.cleanup()


def guarded(name, body):
    g = "G_" + name.upper().replace("/", "_").replace(".", "_")
    return f"// SPDX-License-Identifier: MIT\n#ifndef {g}\n#define {g}\n{body}#endif\n"


class AmalgamateTest(unittest.TestCase):
    def test_inlines_once_with_marks_and_keeps_system_includes(self):
        files = {
            "msprof/root.hpp": guarded("root", '#include <vector>\n#include "core/a.hpp"\n#include "b.hpp"\nint root;\n'),
            "msprof/core/a.hpp": guarded("a", "int a;\n"),
            "msprof/b.hpp": guarded("b", '#include "core/a.hpp"\n#include <msprof/core/a.hpp>\nint b;\n'),
        }
        with Tree(files) as t:
            rc, out, err = run(t.include, "msprof/root.hpp")
            self.assertEqual(rc, 0, err)
            self.assertTrue(out.startswith("// SPDX-License-Identifier: MIT\n"))
            self.assertIn("DO NOT EDIT", out)
            self.assertIn("#include <vector>", out)
            self.assertEqual(out.count("int a;"), 1)
            self.assertEqual(out.count("// ======== begin msprof/core/a.hpp (inlined) ========"), 1)
            self.assertEqual(out.count("already inlined above: msprof/core/a.hpp"), 2)
            self.assertLess(out.index("int a;"), out.index("int b;"))
            self.assertEqual(out.count("SPDX"), 1)  # only the banner's
            rc2, out2, _ = run(t.include, "msprof/root.hpp")
            self.assertEqual((rc2, out2), (rc, out), "output must be deterministic")

    def test_refuses_a_cycle(self):
        files = {"msprof/a.hpp": guarded("a", '#include "b.hpp"\n'),
                 "msprof/b.hpp": guarded("b", '#include "a.hpp"\n')}
        with Tree(files) as t:
            rc, _, err = run(t.include, "msprof/a.hpp")
            self.assertEqual(rc, 1)
            self.assertIn("include cycle: msprof/a.hpp -> msprof/b.hpp -> msprof/a.hpp", err)

    def test_refuses_an_unreached_header_unless_excluded(self):
        files = {"msprof/a.hpp": guarded("a", ""), "msprof/stray.hpp": guarded("stray", ""),
                 "msprof/convert/x.hpp": guarded("x", "")}
        with Tree(files) as t:
            rc, _, err = run(t.include, "msprof/a.hpp")
            self.assertEqual(rc, 1)
            self.assertIn("msprof/stray.hpp: neither reached from the root nor excluded", err)
            self.assertNotIn("convert/x.hpp", err)  # convert/ is in the exclude list
            rc, _, err = run(t.include, "--exclude", "stray.hpp", "msprof/a.hpp")
            self.assertEqual(rc, 0, err)

    def test_refuses_a_reached_header_that_is_excluded(self):
        files = {"msprof/a.hpp": guarded("a", '#include "ext/f.hpp"\n'), "msprof/ext/f.hpp": guarded("f", "")}
        with Tree(files) as t:
            rc, _, err = run(t.include, "msprof/a.hpp")
            self.assertEqual(rc, 1)
            self.assertIn("msprof/ext/f.hpp: reached from the root but excluded", err)

    def test_refuses_dropping_an_include_first_inlined_under_a_condition(self):
        files = {"msprof/a.hpp": guarded("a", '#ifdef X\n#include "b.hpp"\n#endif\n#include "c.hpp"\n'),
                 "msprof/b.hpp": guarded("b", ""),
                 "msprof/c.hpp": guarded("c", '#include "b.hpp"\n')}
        with Tree(files) as t:
            rc, _, err = run(t.include, "msprof/a.hpp")
            self.assertEqual(rc, 1)
            self.assertIn("msprof/c.hpp:4: msprof/b.hpp is included here under other preprocessor conditions", err)

    def test_same_condition_is_fine(self):
        files = {"msprof/a.hpp": guarded("a", '#ifdef X\n#include "b.hpp"\n#include "c.hpp"\n#endif\n'),
                 "msprof/b.hpp": guarded("b", ""),
                 "msprof/c.hpp": guarded("c", '#include "b.hpp"\n')}
        with Tree(files) as t:
            rc, _, err = run(t.include, "msprof/a.hpp")
            self.assertEqual(rc, 0, err)

    def test_missing_quoted_include_is_an_error(self):
        with Tree({"msprof/a.hpp": guarded("a", '#include "nope.hpp"\n')}) as t:
            rc, _, err = run(t.include, "msprof/a.hpp")
            self.assertEqual(rc, 1)
            self.assertIn('#include "nope.hpp" not found', err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
