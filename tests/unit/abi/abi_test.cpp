// SPDX-License-Identifier: MIT
// A TU built with MSPROF_DISABLE and one without, in one binary: the ABI tag
// keeps their inline code apart, the disabled one records nothing.
#include <msprof/collect/collector.hpp>

#include <doctest/doctest.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

long disabled_work();
unsigned long long enabled_work();

namespace {
struct names : msprof::collect::record_sink {
  std::vector<std::string> v;
  void write_tx(const msprof::collect::tx_record& r) override { v.emplace_back(r.message); }
};
}  // namespace

TEST_CASE("disabled and enabled TUs link together and behave as specified") {
  auto rec = std::make_shared<names>();
  msprof::collect::options o;
  o.sink = rec;
  REQUIRE(static_cast<bool>(msprof::collect::start(o)));
  CHECK(disabled_work() == 0);
  CHECK(enabled_work() != 0);
  msprof::collect::stop();
  for (auto& s : rec->v) CHECK(s.find("disabled") == std::string::npos);
  auto has = [&](const char* m) {
    for (auto& s : rec->v)
      if (s == m) return true;
    return false;
  };
  CHECK(has("enabled range"));
  CHECK(has("enabled range in dom"));
  CHECK(has("enabled mark"));
}
