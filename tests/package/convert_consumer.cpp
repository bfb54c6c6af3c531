// SPDX-License-Identifier: MIT
// A consumer of msprof::convert (fmt and SQLite come with it): loading a
// directory that does not exist must fail with an error naming it.
#include <msprof/convert/export.hpp>
#include <msprof/convert/load.hpp>

#include <cstdio>
#include <string>

int main() {
  const std::string missing = "/nonexistent/msprof-consumer/PROF_000001";
  auto m = msprof::convert::load_model(missing);
  if (m) {
    std::fprintf(stderr, "convert consumer: loading %s succeeded\n", missing.c_str());
    return 1;
  }
  const bool names_it = m.err().message.find(missing) != std::string::npos;
  std::printf("convert consumer: %s (%s)\n", names_it ? "ok" : "error does not name the directory",
              m.err().what().c_str());
  return names_it ? 0 : 1;
}
