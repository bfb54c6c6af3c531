// SPDX-License-Identifier: MIT
// Every golden-pt case (tests/golden-pt) through ascend_pt::analyse: each
// file written equals torch_npu's own, byte for byte, except trace_view.json,
// which is compared as a multiset of events (torch_npu's own runs differ in
// event order and renumber CANN's connection ids).
#include <doctest/doctest.h>

#include <filesystem>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <set>
#include <string>

#include "../../support/trace_multiset.hpp"
#include "pt_case.hpp"

namespace fs = std::filesystem;
namespace pt = msprof::convert::ascend_pt;

namespace {

/// Flow categories whose ids torch_npu's runs renumber (CANN's connection ids,
/// shifted: HostToDevice); the other flow ids (torch_to_npu = kernel ts,
/// enqueue_to_dequeue = correlation id, fwdbwd = sequence number) must match.
const std::set<std::string> renumbered = {"HostToDevice"};

/// trace_view.json: the same events (every field) as torch_npu's, ids that
/// vary compared by what they link, and the same size, as the events are
/// written in json.dumps' layout and only their order may differ.
void check_trace_view(const fs::path& ours, const fs::path& expected) {
  std::string e1, e2;
  const auto want = trace_multiset::lines(read_text(expected), renumbered, e1);
  const auto got = trace_multiset::lines(read_text(ours), renumbered, e2);
  REQUIRE_MESSAGE(e1.empty(), e1);
  REQUIRE_MESSAGE(e2.empty(), e2);
  const auto missing = trace_multiset::minus(want, got);
  const auto extra = trace_multiset::minus(got, want);
  for (const auto& m : missing) MESSAGE("missing: " << m);
  for (const auto& x : extra) MESSAGE("extra:   " << x);
  CHECK(missing.empty());
  CHECK(extra.empty());
  CHECK(fs::file_size(ours) == fs::file_size(expected));
}

/// The dbs (and their canonical dumps) of a text + db case: golden_pt_db_test.cpp checks them.
bool db_file(const std::string& name) {
  const auto ends = [&](const std::string& e) {
    return name.size() >= e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0;
  };
  return ends(".db") || ends(".canonical.sql");
}

}  // namespace

TEST_CASE("golden-pt: analyse writes torch_npu's text files") {
  for (const char* c : {"pt_text_steps", "pt_level0", "pt_memory", "pt_mstx"}) {
    CAPTURE(c);
    temp_dir tmp("golden_pt");
    const fs::path dir = copy_case(tmp, c);
    auto r = pt::analyse(dir.string(), {"text"});
    REQUIRE_MESSAGE(r.has_value(), r.err().what());
    for (const auto& w : r->warnings) MESSAGE("warning: " << w);
    if (std::string(c) == "pt_memory") {
      // torch_npu prints "14 memory record(s) are incomplete." for this case too.
      REQUIRE(r->warnings.size() == 1);
      CHECK(r->warnings[0] == (dir / "FRAMEWORK" / "torch.memory_usage").string() +
                                  ": 14 memory record(s) are incomplete (blocks without their free records)");
    } else {
      CHECK(r->warnings.empty());
    }
    const fs::path out = dir / "ASCEND_PROFILER_OUTPUT";
    CHECK(fs::path(r->output_dir) == out);
    std::set<std::string> expected;
    for (const auto& e : fs::directory_iterator(fs::path(MSPROF_TEST_DATA_DIR) / "golden-pt" / c / "expected")) {
      const std::string name = e.path().filename().string();
      if (db_file(name)) continue;
      expected.insert(name);
      CAPTURE(name);
      REQUIRE_MESSAGE(fs::exists(out / name), "not written: " << name);
      if (name == "trace_view.json")
        check_trace_view(out / name, e.path());
      else
        CHECK(read_text(out / name) == read_text(e.path()));
    }
    // Nothing written that torch_npu does not write.
    for (const auto& e : fs::directory_iterator(out)) {
      CAPTURE(e.path());
      CHECK(expected.count(e.path().filename().string()) == 1);
    }
  }
}

TEST_CASE("golden-pt: a parent of several *_ascend_pt directories lists each of them") {
  temp_dir tmp("golden_pt_parent");
  const fs::path a = copy_case(tmp, "pt_text_steps");
  fs::create_directories(tmp / "unrelated");
  const auto dirs = pt::find_pt_dirs(tmp.path);
  REQUIRE(dirs.size() == 1);
  CHECK(fs::path(dirs[0]) == a);
  CHECK(pt::find_pt_dirs(a.string()) == std::vector<std::string>{a.string()});
}
