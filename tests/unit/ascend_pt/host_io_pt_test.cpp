// SPDX-License-Identifier: MIT
// The host's disk and network usage in `msprof analyse`: the pt_memory case
// with the golden case host_io's host_disk and host_network slices added to
// its PROF_ part (the same clock), its netCard list and host_disk_freq.
// torch_npu copies the CANN timeline whole, so trace_view.json holds its Disk
// Usage and Network Usage processes; the db has the CANN tables.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <string>
#include <vector>

#include "pt_case.hpp"

namespace fs = std::filesystem;
namespace pt = msprof::convert::ascend_pt;

namespace {

/// `file` with its first `from` replaced by `to`.
void replace_in(const fs::path& file, const std::string& from, const std::string& to) {
  std::string text = read_text(file);
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  std::ofstream(file, std::ios::trunc) << text;
}

/// The pt_memory case with host_io's slices, netCard and host_disk_freq.
fs::path with_host_io(const temp_dir& tmp) {
  const fs::path dir = copy_case(tmp, "pt_memory");
  const fs::path golden = fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "host_io" / "input" /
                          "PROF_000001_20260101120000000_GOLDENCASEAAAAAA" / "host";
  const std::string info = read_text(golden / "info.json");
  const auto cards = info.substr(info.find("\"netCard\": ["));
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("PROF_", 0) != 0) continue;
    for (const auto& f : fs::directory_iterator(golden / "data"))
      if (f.path().filename().string().rfind("host_disk", 0) == 0 || f.path().filename().string().rfind("host_network", 0) == 0)
        fs::copy_file(f.path(), e.path() / "host" / "data" / f.path().filename());
    replace_in(e.path() / "host" / "info.json", "\"netCard\": []}", cards);
    replace_in(e.path() / "host" / "sample.json", "\"runtimeApi\": \"on\"}", "\"runtimeApi\": \"on\", \"host_disk_freq\": 7}");
  }
  return dir;
}

}  // namespace

TEST_CASE("ascend_pt host disk and network usage: trace_view.json holds the CANN timeline's Disk Usage and Network Usage processes") {
  temp_dir tmp("pt_host_io");
  const fs::path dir = with_host_io(tmp);
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const std::string trace = read_text(dir / "ASCEND_PROFILER_OUTPUT" / "trace_view.json");
  const auto count = [&](const std::string& s) { return count_of(trace, s); };
  CHECK(count("\"args\": {\"name\": \"Disk Usage\"}") == 1);
  CHECK(count("\"args\": {\"name\": \"Network Usage\"}") == 1);
  CHECK(count("{\"name\": \"Disk Usage\"") == 62 + 1);  // the counters after the collection start, and the process name's args
  CHECK(count("{\"name\": \"Network Usage\"") == 6 + 1);
  CHECK(count("\"args\": {\"Usage(%)\": 175.5555}") == 1);
}

TEST_CASE("ascend_pt host disk and network usage: the db has HOST_DISK_USAGE and HOST_NETWORK_USAGE") {
  temp_dir tmp("pt_host_io_db");
  const fs::path dir = with_host_io(tmp);
  auto r = pt::analyse(dir.string(), {"db"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  fs::path db;
  for (const auto& e : fs::directory_iterator(dir / "ASCEND_PROFILER_OUTPUT"))
    if (e.path().filename().string().rfind("ascend_pytorch_profiler", 0) == 0) db = e.path();
  REQUIRE(!db.empty());
  CHECK(db_rows(db, "SELECT COUNT(*) FROM HOST_DISK_USAGE") == std::vector<std::string>{"62"});
  CHECK(db_rows(db, "SELECT COUNT(*) FROM HOST_NETWORK_USAGE") == std::vector<std::string>{"6"});
  CHECK(db_rows(db, "SELECT usage FROM HOST_NETWORK_USAGE WHERE usage > 100") == std::vector<std::string>{"175.5555"});
}
