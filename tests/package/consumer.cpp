// SPDX-License-Identifier: MIT
// A consumer of msprof::msprof: collects its own marks and ranges in-process
// through the collector and checks that they arrive at its sink.
#define MSPROF_IMPLEMENT
#include <msprof/mstx.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {
struct memory_sink final : msprof::collect::record_sink {
  std::vector<std::string> messages;
  void write_tx(const msprof::collect::tx_record& r) override { messages.emplace_back(r.message); }
};
}  // namespace

int main() {
  auto sink = std::make_shared<memory_sink>();
  msprof::collect::options o;
  o.sink = sink;
  if (auto r = msprof::collect::start(o); !r) {
    std::fprintf(stderr, "consumer: start failed: %s\n", r.err().message.c_str());
    return 1;
  }
  MSPROF_MARK("consumer mark");
  { MSPROF_RANGE("consumer range"); }
  msprof::collect::stop();
  const bool mark = std::find(sink->messages.begin(), sink->messages.end(), "consumer mark") != sink->messages.end();
  const bool range = std::find(sink->messages.begin(), sink->messages.end(), "consumer range") != sink->messages.end();
  std::printf("consumer: msprof %s, %zu records, mark %s, range %s\n", MSPROF_VERSION_STRING,
              sink->messages.size(), mark ? "ok" : "MISSING", range ? "ok" : "MISSING");
  return mark && range ? 0 : 1;
}
