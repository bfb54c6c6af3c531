// SPDX-License-Identifier: MIT
// The streaming export hands its windows to a writers' thread while the next
// one loads (load_options::threaded, load.cpp's window_pipe). Whatever the
// threads' timing, its files must be those of the whole model written on one
// thread, byte for byte; the collection spans several windows so that the
// handoff really happens. So for `msprof analyse`, whose PROF_ part has two
// writer threads and FRAMEWORK/ a thread of its own. A folder of its own
// (test_convert_threads), so the ThreadSanitizer step of CI builds this file
// rather than all of test_convert.
#include <doctest/doctest.h>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <msprof/convert/export.hpp>
#include <msprof/convert/export_writers.hpp>
#include <msprof/convert/load.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "../../support/generated_prof.hpp"
#include "../../support/generated_pt.hpp"
#include "../../support/temp_dir.hpp"
#include "../convert/golden_util.hpp"

namespace cv = msprof::convert;
namespace fs = std::filesystem;

namespace {

/// Every file an export wrote under `prof` (outputs and the db), by relative path.
std::map<std::string, std::string> outputs_of(const fs::path& prof) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(prof)) {
    const std::string rel = fs::relative(e.path(), prof).string();
    const bool out = rel.rfind("mindstudio_profiler_output", 0) == 0 || e.path().extension() == ".db";
    if (out && e.is_regular_file()) files[rel] = golden::slurp(e.path());
  }
  return files;
}

}  // namespace

TEST_CASE("export: the writers' thread writes the files of the whole model, byte for byte") {
  temp_dir d("msprof_threads");
  const fs::path streamed = d / "PROF_000001_20260101000000000_THREADSA";
  const fs::path whole = d / "PROF_000001_20260101000000000_THREADSB";
  // 300 k raw records: about 84 k calls and tasks, several windows.
  generated_prof::generate(streamed, 300000);
  fs::copy(streamed, whole, fs::copy_options::recursive);
  const auto o = golden::fixed_ts();

  auto r = cv::export_all(streamed.string(), o);
  REQUIRE_MESSAGE(r.has_value(), r.err().what());

  std::size_t windows = 0;
  cv::load_options lo;
  REQUIRE(cv::load_windows(whole.string(), lo, [&](cv::model&) { ++windows; }).has_value());
  CHECK(windows >= 3);
  auto m = cv::load_model(whole.string());
  REQUIRE(m.has_value());
  using whole_export = msprof::result<cv::export_result> (*)(const cv::model&, const cv::export_options&);
  for (whole_export part : {whole_export{&cv::export_timeline}, &cv::export_summary, &cv::export_db}) {
    auto w = part(*m, o);
    REQUIRE_MESSAGE(w.has_value(), w.err().what());
  }

  const auto a = outputs_of(streamed), b = outputs_of(whole);
  CHECK(a.size() >= 8);
  REQUIRE(a.size() == b.size());
  for (const auto& [name, bytes] : a) {
    CAPTURE(name);
    REQUIRE(b.count(name) == 1);
    CHECK(bytes == b.at(name));
  }
}

TEST_CASE("export: the API calls, the host's other records and the devices' read on two threads give one thread's warnings, in order") {
  temp_dir d("msprof_threads_warn");
  const fs::path prof = d / "PROF_000001_20260101000000000_THREADSC";
  generated_prof::generate(prof, 20000);
  // A cut record at the end of an API slice, another host slice and a device
  // slice: each reader warns about its own, in the order the files are listed
  // (API calls, the host's other records, the devices').
  const auto cut = [](const fs::path& dir, const std::string& stem) {
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename().string().rfind(stem, 0) == 0) {
        std::ofstream(e.path(), std::ios::binary | std::ios::app) << "cut";
        return;
      }
    FAIL("no " << stem << " slice in " << dir.string());
  };
  cut(prof / "host" / "data", "unaging.api_event.data");
  cut(prof / "host" / "data", "unaging.compact.task_track");
  cut(prof / "device_0" / "data", "stars_soc.data");
  cv::load_options one, two;
  two.threaded = true;
  auto a = cv::load_windows(prof.string(), one, [](cv::model&) {});
  auto b = cv::load_windows(prof.string(), two, [](cv::model&) {});
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  CHECK(a->warnings == b->warnings);
  std::size_t api = a->warnings.size(), host = api, device = api;
  for (std::size_t i = 0; i < a->warnings.size(); ++i) {
    if (a->warnings[i].find("unaging.api_event.data") != std::string::npos) api = std::min(api, i);
    if (a->warnings[i].find("unaging.compact.task_track") != std::string::npos) host = std::min(host, i);
    if (a->warnings[i].find("stars_soc.data") != std::string::npos) device = std::min(device, i);
  }
  CHECK(api < host);
  CHECK(host < device);
  CHECK(device < a->warnings.size());
}

TEST_CASE("analyse: its threads write the files of one thread, byte for byte (text and db)") {
  temp_dir d("msprof_threads_pt");
  // 8 k framework ops (about 14 k CANN records, one window: its two writers
  // read it at the same time); a 64 KiB budget makes the sorted runs spill.
  const generated_pt::written w = generated_pt::generate(d / "gen", 8000);
  for (const char* type : {"text", "db"}) {
    CAPTURE(type);
    std::map<std::string, std::string> files[2];
    for (int threaded = 0; threaded < 2; ++threaded) {
      const fs::path dir = d / (std::string(type) + std::to_string(threaded)) / w.dir.filename();
      fs::create_directories(dir.parent_path());
      fs::copy(w.dir, dir, fs::copy_options::recursive);
      msprof::convert::ascend_pt::analyse_options o;
      o.export_type = type;
      o.threaded = threaded == 1;
      o.spill_budget = 64u << 10;
      o.data_simplification = false;
      auto r = msprof::convert::ascend_pt::analyse(dir.string(), o);
      REQUIRE_MESSAGE(r.has_value(), r.err().what());
      for (const auto& e : fs::recursive_directory_iterator(dir / "ASCEND_PROFILER_OUTPUT"))
        if (e.is_regular_file()) files[threaded][fs::relative(e.path(), dir).string()] = golden::slurp(e.path());
    }
    CHECK(files[0].size() >= 2);
    REQUIRE(files[0].size() == files[1].size());
    for (const auto& [name, bytes] : files[0]) {
      CAPTURE(name);
      REQUIRE(files[1].count(name) == 1);
      CHECK(bytes == files[1].at(name));
    }
  }
}
