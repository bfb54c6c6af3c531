// SPDX-License-Identifier: MIT
// The streamed chrome form (export timeline --timeline-format=chrome: the model
// handed over window by window, its hot records encoded straight from the
// model) is byte for byte the chrome form of the whole model's timeline
// (chrome::render of build_timeline with the device counters read from the
// slices), in one part and in parts.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <msprof/convert/chrome/chrome.hpp>
#include <msprof/convert/export.hpp>
#include <msprof/convert/export_writers.hpp>
#include <msprof/convert/load.hpp>
#include <msprof/convert/timeline.hpp>

#include "../../support/generated_prof.hpp"
#include "../../support/temp_dir.hpp"
#include "trace_testing.hpp"

namespace {

using namespace chrome_testing;
namespace chrome = msprof::convert::chrome;
namespace cv = msprof::convert;

/// The golden inputs and a generated collection, copied under `d`.
std::vector<fs::path> inputs(const temp_dir& d) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(MSPROF_TEST_DATA_DIR) / "golden")) {
    if (!e.is_directory() || !fs::exists(e.path() / "input")) continue;
    for (const auto& p : fs::directory_iterator(e.path() / "input")) {
      if (p.path().filename().string().rfind("PROF_", 0) != 0) continue;
      const fs::path to = d / e.path().filename().string() / p.path().filename();
      fs::create_directories(to.parent_path());
      fs::copy(p.path(), to, fs::copy_options::recursive);
      out.push_back(to);
    }
  }
  std::sort(out.begin(), out.end());
  const fs::path gen = d / "generated" / "PROF_000001_20260101000000000_STREAMSTREAMSTRE";
  generated_prof::generate(gen, 60000);
  out.push_back(gen);
  return out;
}

/// The whole model's timeline as the exact timeline has it: build_timeline's
/// events, with the device counter processes read from the slices (NPU MEM,
/// HCCS, ...) before Overlap Analysis; `counters` counts those.
std::vector<cv::trace_event> whole_timeline(const cv::model& m, std::size_t& counters) {
  cv::timeline_parts before;
  before.overlap = false;
  auto v = cv::build_timeline(m, before);
  const std::size_t n = v.size();
  auto push = [&](cv::trace_event&& e) { v.push_back(std::move(e)); };
  cv::detail::output_ref<decltype(push)> out(push);
  std::vector<std::string> warnings;
  REQUIRE(cv::detail::device_counter_events(m.session, {}, out, warnings).has_value());
  counters = static_cast<std::size_t>(std::count_if(v.begin() + static_cast<std::ptrdiff_t>(n), v.end(),
                                                    [](const cv::trace_event& e) { return e.ph == 'C'; }));
  cv::timeline_parts overlap;
  overlap.cann = overlap.hardware = overlap.freq = overlap.mstx = overlap.step_trace = overlap.losses = false;
  for (auto& e : cv::build_timeline(m, overlap)) v.push_back(std::move(e));
  return v;
}

/// The chrome files export_timeline wrote into `prof`, in part order.
std::vector<std::string> written_parts(const cv::export_result& r) {
  std::vector<std::string> texts;
  for (const auto& f : r.files)
    if (fs::path(f).extension() == ".json") texts.push_back(read_file(f));
  return texts;
}

}  // namespace

TEST_CASE("chrome: streamed: the export's bytes are the whole model's chrome form, in one part and in parts") {
  temp_dir d("msprof_chrome_stream");
  const auto profs = inputs(d);
  REQUIRE(profs.size() >= 6);
  std::size_t counter_inputs = 0;  // inputs with NPU MEM, HCCS, ... counters
  for (const auto& prof : profs) {
    CAPTURE(prof.string());
    auto m = cv::load_model(prof.string());
    REQUIRE_MESSAGE(m.has_value(), m.err().what());
    std::size_t counters = 0;
    const auto events = whole_timeline(*m, counters);
    counter_inputs += counters > 0;
    // One part, then parts of 64 KiB (the generated case spans several).
    for (std::uint64_t limit : {std::uint64_t{256} << 20, std::uint64_t{64} << 10}) {
      CAPTURE(limit);
      chrome::options co;
      co.max_part_bytes = limit;
      auto whole = chrome::render(events, m->session.start_ns, "chrome_trace_T", co);
      REQUIRE_MESSAGE(whole.has_value(), whole.err().what());
      cv::export_options eo;
      eo.timestamp = "T";
      eo.chrome = true;
      eo.chrome_options = co;
      eo.spill_budget = 64u << 10;  // every sorter spills
      auto r = cv::export_timeline(prof.string(), eo);
      REQUIRE_MESSAGE(r.has_value(), r.err().what());
      const auto texts = written_parts(*r);
      REQUIRE(texts.size() == whole->parts.size());
      for (std::size_t k = 0; k < texts.size(); ++k) {
        CAPTURE(k);
        CHECK(texts[k].size() == whole->parts[k].text.size());
        CHECK(texts[k] == whole->parts[k].text);
      }
      fs::remove_all(prof / "mindstudio_profiler_output");
    }
  }
  CHECK(counter_inputs >= 2);
}

TEST_CASE("chrome: streamed: memcpy tasks, ACL calls and odd strings from the model are the whole model's bytes") {
  // What no input above has: memcpy tasks (size, bandwidth, operation; a zero
  // length among them), ACL-level calls with items, strings to escape.
  temp_dir d("msprof_chrome_stream_fields");
  const fs::path src = fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "ops_pipeutil" / "input";
  fs::path prof;
  for (const auto& p : fs::directory_iterator(src))
    if (p.path().filename().string().rfind("PROF_", 0) == 0) prof = d / p.path().filename().string();
  REQUIRE_FALSE(prof.empty());
  fs::copy(src / prof.filename(), prof, fs::copy_options::recursive);
  auto m = cv::load_model(prof.string());
  REQUIRE_MESSAGE(m.has_value(), m.err().what());
  REQUIRE(m->tasks.size() >= 3);
  REQUIRE_FALSE(m->apis.empty());
  for (std::size_t k = 0; k < m->tasks.size(); ++k) {
    if (k % 2) continue;
    auto& t = m->tasks[k];
    t.memcpy = cv::memcpy_copy{k % 3 ? 4096 + k : 0, static_cast<std::uint16_t>(k % 4 ? k % 8 : 65535)};
  }
  for (std::size_t k = 0; k < m->apis.size(); ++k) {
    auto& a = m->apis[k];
    if (k % 2 == 0) a.level = cv::level::acl;
    a.item = k % 3 ? "item \"" + std::to_string(k) + "\"\\\n" : "";
    if (k == 1) a.name = std::string("bad\xff utf8 \xe2\x82");
  }
  const auto events = cv::build_timeline(*m);
  auto whole = chrome::render(events, m->session.start_ns, "chrome_trace_T");
  REQUIRE_MESSAGE(whole.has_value(), whole.err().what());
  REQUIRE(whole->parts.size() == 1);
  cv::export_options eo;
  eo.timestamp = "T";
  eo.chrome = true;
  cv::chrome_exporter ex(eo, prof.string(), 64u << 10);
  REQUIRE(ex.add(*m).has_value());
  auto r = ex.finish(*m);
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const auto texts = written_parts(*r);
  REQUIRE(texts.size() == 1);
  CHECK(texts[0].find("bandwidth(GB/s)") != std::string::npos);
  CHECK(texts[0] == whole->parts[0].text);
}
