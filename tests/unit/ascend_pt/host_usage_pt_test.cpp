// SPDX-License-Identifier: MIT
// The host's CPU and memory usage in `msprof analyse`: the pt_memory case with
// the golden case host_usage's host_cpu and host_mem slices added to its PROF_
// part (the same clock). torch_npu copies the CANN timeline whole, so
// trace_view.json holds its CPU Usage and Memory Usage processes.
#include <doctest/doctest.h>

#include <filesystem>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <string>

#include "pt_case.hpp"

namespace fs = std::filesystem;
namespace pt = msprof::convert::ascend_pt;

TEST_CASE("ascend_pt host usage: trace_view.json holds the CANN timeline's CPU Usage and Memory Usage processes") {
  temp_dir tmp("pt_host_usage");
  const fs::path dir = copy_case(tmp, "pt_memory");
  const fs::path golden = fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "host_usage" / "input" /
                          "PROF_000001_20260101120000000_GOLDENCASEAAAAAA" / "host" / "data";
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("PROF_", 0) == 0)
      for (const char* f : {"host_cpu.data.slice_0", "host_cpu.data.slice_0.done", "host_mem.data.slice_0", "host_mem.data.slice_0.done"})
        fs::copy_file(golden / f, e.path() / "host" / "data" / f);
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const std::string trace = read_text(dir / "ASCEND_PROFILER_OUTPUT" / "trace_view.json");
  const auto count = [&](const std::string& s) { return count_of(trace, s); };
  CHECK(count("\"args\": {\"name\": \"CPU Usage\"}") == 1);
  CHECK(count("\"args\": {\"name\": \"Memory Usage\"}") == 1);
  CHECK(count("{\"name\": \"CPU Avg\"") == 4);  // pt_memory's info.json: cpuNums 1, so Avg is the threads' sum
  CHECK(count("{\"name\": \"Memory Usage\"") == 5 + 1);  // 5 counters, and the process name's args
  CHECK(count("\"args\": {\"Usage(%)\": 11.444473}") == 1);
}
