// SPDX-License-Identifier: MIT
// `msprof analyse` decodes FRAMEWORK/ on a second thread beside the PROF_
// part's load, and writes trace_view.json beside the text tables
// (analyse_options::threaded). Whatever the threads' timing, its files and
// warnings must be those of one thread, byte for byte. Here, so the
// ThreadSanitizer step of CI runs it.
#include <doctest/doctest.h>
#include <msprof/convert/ascend_pt/analyse.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "../../support/generated_pt.hpp"
#include "../../support/temp_dir.hpp"
#include "../convert/golden_util.hpp"

namespace pt = msprof::convert::ascend_pt;
namespace fs = std::filesystem;

TEST_CASE("analyse: FRAMEWORK/ beside the load and trace_view.json beside the text tables give one thread's files and warnings") {
  temp_dir d("msprof_analyse_threads");
  const auto one = generated_pt::generate(d / "one", 20000);
  const fs::path two = d / "two" / one.dir.filename();
  fs::create_directories(two.parent_path());
  fs::copy(one.dir, two, fs::copy_options::recursive);

  const auto outputs = [](const fs::path& dir, const char* type, bool threaded) {
    pt::analyse_options o;
    o.export_type = type;
    o.data_simplification = false;
    o.threaded = threaded;
    auto r = pt::analyse(dir.string(), o);
    REQUIRE_MESSAGE(r.has_value(), r.err().what());
    // In the order analyse() lists them; the warnings without the directory's path.
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& f : r->files) out.emplace_back(fs::path(f).filename().string(), golden::slurp(f));
    for (auto w : r->warnings) {
      for (auto at = w.find(dir.string()); at != std::string::npos; at = w.find(dir.string()))
        w.replace(at, dir.string().size(), "DIR");
      out.emplace_back("warning", w);
    }
    return out;
  };
  for (const char* type : {"text", "db"}) {
    CAPTURE(type);
    const auto a = outputs(one.dir, type, false), b = outputs(two, type, true);
    const auto has = [&](const char* name) {
      return std::any_of(a.begin(), a.end(), [&](const auto& f) { return f.first == name; });
    };
    CHECK(has(type == std::string("text") ? "trace_view.json" : "ascend_pytorch_profiler_0.db"));
    CHECK(has(type == std::string("text") ? "kernel_details.csv" : "analysis.db"));
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      CAPTURE(a[i].first);
      CHECK(a[i].first == b[i].first);
      CHECK(a[i].second == b[i].second);
    }
  }
}
