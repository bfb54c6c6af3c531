// SPDX-License-Identifier: MIT
// quickstart: marks and ranges in the default domain, with C++ RAII.
// Shows MSPROF_MARK and msprof::markf (points in time), MSPROF_FUNC_RANGE,
// MSPROF_RANGE and msprof::scoped_range (ranges that end when the scope does).
// Without a tool attached every call is one load and one branch. Build, profile:
//   cmake --build build --target examples_quickstart msprof_cli msprof_mstx
//   build/bin/msprof --output=out --application=build/bin/examples/quickstart
#include <msprof/mstx.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

double normalize(std::vector<double>& v) {
  MSPROF_FUNC_RANGE();  // a range named "normalize", literal: no copy on the hot path
  double sum = 0;
  for (double x : v) sum += x * x;
  const double norm = std::sqrt(sum);
  for (double& x : v) x /= norm;
  return norm;
}

double work(int round) {
  const std::string name = "round " + std::to_string(round);
  msprof::scoped_range r{name.c_str()};  // a dynamic message: copied by the collector
  std::vector<double> v(200000);
  {
    MSPROF_RANGE("fill");
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<double>(i + round));
  }
  return normalize(v);
}

}  // namespace

int main() {
  MSPROF_MARK("start");
  double total = 0;
  for (int round = 0; round < 5; ++round) {
    total += work(round);
    msprof::markf("round {} done, total {}", round, total);
  }
  MSPROF_MARK("end");
  std::printf("quickstart: total norm %.3f\n", total);
  return 0;
}
