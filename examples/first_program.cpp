// SPDX-License-Identifier: MIT
// The README's first program, as printed there (tests/package/docs_paths_test.py keeps them equal).
#include <msprof/mstx.hpp>

struct io { static constexpr const char* name = "io"; };   // a domain is a type

void load_batch(int i) {
  MSPROF_FUNC_RANGE_IN(io);                 // a range named after the function, in "io"
  msprof::markf("batch {}", i);             // a formatted mark in the default domain
  msprof::scoped_range r{"decode"};         // ends when r goes out of scope
}

int main() {
  for (int i = 0; i < 3; ++i) load_batch(i);
}
