// SPDX-License-Identifier: MIT
// CANN's msprof command line as a CANN user writes it (issue 22): every
// collection option with CANN's spelling and values, the long forms of the
// short flags, and -h on every command.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_helpers.hpp"

namespace fs = std::filesystem;

#ifdef MSPROF_TEST_CLI

namespace {

using namespace msprof_cli_test;

fs::path add_pt_case(const sandbox& s, const std::string& c) {
  fs::path dir;
  for (const auto& e : fs::directory_iterator(fs::path(MSPROF_TEST_DATA_DIR) / "golden-pt" / c / "input")) {
    dir = s.root / e.path().filename();
    fs::copy(e.path(), dir, fs::copy_options::recursive);
  }
  return dir;
}

}  // namespace

TEST_CASE("cann options: --collection-dir is -dir for export, import, show and analyse") {
  sandbox s;
  const auto prof = s.add("multi_thread_mixed");
  auto r = s.run({"export", "summary", "--collection-dir=" + prof.string()});
  CAPTURE(r.err);
  CHECK(r.rc == 0);
  CHECK(r.out.find("op_summary_") != std::string::npos);
  r = s.run({"export", "timeline", "--collection-dir", prof.string()});
  CHECK(r.rc == 0);
  CHECK(r.out.find("msprof_") != std::string::npos);
  r = s.run({"import", "--collection-dir=" + prof.string()});
  CHECK(r.rc == 0);
  CHECK(r.out.find("9 API calls") != std::string::npos);
  r = s.run({"show", "--collection-dir=" + prof.string()});
  CHECK(r.rc == 0);
  CHECK(r.out.find("Op statistic") != std::string::npos);
  const auto pt = add_pt_case(s, "pt_text_steps");
  r = s.run({"analyse", "--collection-dir=" + pt.string()});
  CHECK(r.rc == 0);
  CHECK(fs::exists(pt / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv"));
  r = s.run({"import", "--collection-dir"});  // no value: a usage error naming the option
  CHECK(r.rc == 2);
  CHECK(r.err.find("'--collection-dir' needs a value") != std::string::npos);
}

#endif  // MSPROF_TEST_CLI
