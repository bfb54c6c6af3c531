// SPDX-License-Identifier: MIT
// The chrome form of every golden case: the same content as the exact form
// (Huawei's expected msprof.json / msprof_tx.json, and our own exact output of
// the raw input), and it loads in the DevTools trace engine as written.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <msprof/convert/chrome/chrome.hpp>
#include <msprof/convert/export.hpp>
#include <msprof/convert/load.hpp>
#include <msprof/convert/timeline.hpp>

#include "trace_testing.hpp"

namespace {

using namespace chrome_testing;
namespace chrome = msprof::convert::chrome;

std::vector<fs::path> golden_cases() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(MSPROF_TEST_DATA_DIR) / "golden"))
    if (e.is_directory() && fs::exists(e.path() / "expected")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

fs::path prof_input(const fs::path& c) {
  for (const auto& e : fs::directory_iterator(c / "input"))
    if (e.path().filename().string().rfind("PROF_", 0) == 0) return e.path();
  return {};
}

/// collectionTimeBegin of host/start_info (µs) in ns.
std::int64_t session_start_ns(const fs::path& c) {
  const std::string s = read_file(prof_input(c) / "host" / "start_info");
  const auto at = s.find("\"collectionTimeBegin\"");
  REQUIRE(at != std::string::npos);
  const auto q = s.find('"', s.find(':', at) + 1);
  return std::strtoll(s.c_str() + q + 1, nullptr, 10) * 1000;
}

struct chrome_of {
  parsed_trace exact;
  chrome::output out;
  std::vector<parsed_trace> parts;
};

/// The exact form in `text` written again as the chrome form.
chrome_of from_exact(const std::string& text, std::int64_t start, const std::string& stem, chrome::options opt = {}) {
  chrome_of r;
  r.exact = parse_trace(text, form::exact);
  for (const auto& p : r.exact.problems) FAIL_CHECK("exact form: " << p);
  auto out = chrome::render(r.exact.events, start, stem, opt);
  REQUIRE_MESSAGE(out.has_value(), out.err().what());
  r.out = std::move(*out);
  for (const auto& p : r.out.parts) {
    r.parts.push_back(parse_trace(p.text, form::chrome));
    for (const auto& pr : r.parts.back().problems) FAIL_CHECK(p.file_name << ": " << pr);
  }
  return r;
}

void check_same_content(const chrome_of& c) {
  REQUIRE(c.parts.size() == 1);
  const auto& st = c.out.totals;
  const auto diff = compare(normalize(c.exact, form::exact), normalize(c.parts[0], form::chrome),
                            st.clamped_overlap + st.clamped_rounding, st.flows_unpaired);
  for (const auto& d : diff) FAIL_CHECK(d);
}

}  // namespace

TEST_CASE("chrome: golden expected timelines keep their content in the chrome form") {
  for (const auto& c : golden_cases()) {
    for (const char* file : {"msprof.json", "msprof_tx.json"}) {
      if (!fs::exists(c / "expected" / file)) continue;
      CAPTURE(c.filename().string() + "/" + file);
      const auto r = from_exact(read_file(c / "expected" / file), session_start_ns(c), "chrome_trace");
      check_same_content(r);
      // Nothing in these cases overlaps: no overlap clamp may appear.
      CHECK(r.out.totals.clamped_overlap == 0);
      CHECK(r.out.totals.slices == static_cast<std::size_t>(std::count_if(
                                       r.exact.events.begin(), r.exact.events.end(), [](auto& e) { return e.ph == 'X'; })));
    }
  }
}

TEST_CASE("chrome: golden inputs: our exact form and our chrome form of the same model agree") {
  for (const auto& c : golden_cases()) {
    CAPTURE(c.filename().string());
    auto m = msprof::convert::load_model(prof_input(c).string());
    REQUIRE_MESSAGE(m.has_value(), m.err().what());
    const auto events = msprof::convert::build_timeline(*m);
    const auto r = from_exact(msprof::convert::timeline_json(events), m->session.start_ns, "chrome_trace");
    check_same_content(r);
    // Straight from the events too (no JSON round trip in between).
    auto direct = chrome::render(events, m->session.start_ns, "chrome_trace");
    REQUIRE(direct.has_value());
    CHECK(direct->parts.at(0).text == r.out.parts.at(0).text);
  }
}

TEST_CASE("chrome: golden: a forced small part size splits a case into parts with all metadata") {
  const fs::path c = fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "multi_thread_mixed";
  const std::string text = read_file(c / "expected" / "msprof.json");
  chrome::options opt;
  const auto whole = from_exact(text, session_start_ns(c), "chrome_trace");
  opt.max_part_bytes = whole.out.parts.at(0).bytes / 2;
  const auto r = from_exact(text, session_start_ns(c), "chrome_trace", opt);
  REQUIRE(r.parts.size() >= 2);
  std::size_t slices = 0, meta = 0;
  for (const auto& p : r.parts)
    for (const auto& e : p.events) {
      slices += e.ph == 'X';
      meta += e.ph == 'M';
    }
  CHECK(slices == whole.out.totals.slices);
  CHECK(meta == r.parts.size() * whole.out.totals.metadata);
  CHECK(r.out.totals.flows_written + r.out.totals.flows_cut == whole.out.totals.flows_written);
}

TEST_CASE("chrome: engine: every golden case loads in DevTools as written") {
  if (engine_skipped()) return;
  for (const auto& c : golden_cases()) {
    for (const char* file : {"msprof.json", "msprof_tx.json"}) {
      if (!fs::exists(c / "expected" / file)) continue;
      CAPTURE(c.filename().string() + "/" + file);
      const auto r = from_exact(read_file(c / "expected" / file), session_start_ns(c), "chrome_trace");
      const auto path = temp_file("golden_" + c.filename().string() + "_" + file, r.out.parts.at(0).text);
      const auto rep = run_engine(path);
      REQUIRE(rep.ran);
      for (const auto& f : engine_findings(rep, r.parts.at(0))) FAIL_CHECK(f);
      CHECK(rep.flows_bound == r.out.totals.flows_written);
    }
    // The same from our own loader (truncated_tail keeps the records Huawei's tool lost).
    auto m = msprof::convert::load_model(prof_input(c).string());
    REQUIRE(m.has_value());
    auto out = chrome::render(msprof::convert::build_timeline(*m), m->session.start_ns, "chrome_trace");
    REQUIRE(out.has_value());
    const auto t = parse_trace(out->parts.at(0).text, form::chrome);
    const auto rep = run_engine(temp_file("ours_" + c.filename().string() + ".json", out->parts.at(0).text));
    REQUIRE(rep.ran);
    for (const auto& f : engine_findings(rep, t)) FAIL_CHECK("ours: " << f);
  }
}

TEST_CASE("chrome: engine: forced parts of a golden case each load") {
  if (engine_skipped()) return;
  const fs::path c = fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "multi_thread_mixed";
  const std::string text = read_file(c / "expected" / "msprof.json");
  chrome::options opt;
  opt.max_part_bytes = from_exact(text, session_start_ns(c), "chrome_trace").out.parts.at(0).bytes / 2;
  const auto r = from_exact(text, session_start_ns(c), "chrome_trace", opt);
  REQUIRE(r.parts.size() >= 2);
  for (std::size_t k = 0; k < r.parts.size(); ++k) {
    const auto rep = run_engine(temp_file("golden_part_" + r.out.parts[k].file_name, r.out.parts[k].text));
    REQUIRE(rep.ran);
    for (const auto& f : engine_findings(rep, r.parts[k])) FAIL_CHECK(r.out.parts[k].file_name << ": " << f);
  }
}

#ifdef MSPROF_TEST_CLI
TEST_CASE("chrome: msprof export timeline --timeline-format=chrome writes chrome_trace_<ts>.json") {
  const fs::path c = fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "ops_pipeutil";
  const fs::path work = fs::path(MSPROF_TEST_BINARY_DIR) / "chrome_cli_test";
  fs::remove_all(work);
  fs::create_directories(work);
  const fs::path prof = work / prof_input(c).filename();
  fs::copy(prof_input(c), prof, fs::copy_options::recursive);
  const std::string cmd = fmt::format("'{}' export timeline -dir '{}' --timeline-format=chrome > '{}' 2>&1", MSPROF_TEST_CLI,
                                      prof.string(), (work / "log.txt").string());
  REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, read_file(work / "log.txt"));
  std::vector<fs::path> chrome_files, exact_files;
  for (const auto& e : fs::directory_iterator(prof / "mindstudio_profiler_output")) {
    const std::string n = e.path().filename().string();
    if (n.rfind("chrome_trace_", 0) == 0 && e.path().extension() == ".json") chrome_files.push_back(e.path());
    if (n.rfind("msprof_", 0) == 0 && e.path().extension() == ".json") exact_files.push_back(e.path());
  }
  REQUIRE(chrome_files.size() == 1);
  CHECK(exact_files.empty());  // the chrome form instead of the exact one
  const auto t = parse_trace(read_file(chrome_files[0]), form::chrome);
  for (const auto& p : t.problems) FAIL_CHECK(p);
  const auto exact = parse_trace(read_file(c / "expected" / "msprof.json"), form::exact);
  const auto diff = compare(normalize(exact, form::exact), normalize(t, form::chrome),
                            static_cast<std::size_t>(t.other.at("clamped_rounding") + t.other.at("clamped_overlap")),
                            static_cast<std::size_t>(t.other.at("flows_unpaired")));
  for (const auto& d : diff) FAIL_CHECK(d);
}
#endif

TEST_CASE("chrome: export_chrome_trace writes mindstudio_profiler_output/chrome_trace_<ts>.json in-process") {
  const fs::path c = fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "mstx_domains";
  const fs::path work = fs::path(MSPROF_TEST_BINARY_DIR) / "chrome_export_test";
  fs::remove_all(work);
  fs::create_directories(work);
  const fs::path prof = work / prof_input(c).filename();
  fs::copy(prof_input(c), prof, fs::copy_options::recursive);
  msprof::convert::export_options eo;
  eo.timestamp = "20260101120000";
  auto r = chrome::export_chrome_trace(prof.string(), eo);
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  REQUIRE(r->files.size() == 2);
  CHECK(r->files[0] == (prof / "mindstudio_profiler_output" / "chrome_trace_20260101120000.json").string());
  CHECK(r->files[1] == (prof / "mindstudio_profiler_output" / "README.txt").string());
  CHECK(r->records == 9);  // 1 API + 8 mstx events (checks.json)
  const auto t = parse_trace(read_file(r->files[0]), form::chrome);
  for (const auto& p : t.problems) FAIL_CHECK(p);
  const auto exact = parse_trace(read_file(c / "expected" / "msprof.json"), form::exact);
  const auto diff = compare(normalize(exact, form::exact), normalize(t, form::chrome),
                            static_cast<std::size_t>(t.other.at("clamped_rounding") + t.other.at("clamped_overlap")),
                            static_cast<std::size_t>(t.other.at("flows_unpaired")));
  for (const auto& d : diff) FAIL_CHECK(d);
  // A directory without data is an error naming it, not an empty file.
  auto bad = chrome::export_chrome_trace((work / "no_such_PROF").string(), eo);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.err().message.find("no_such_PROF") != std::string::npos);
}

TEST_CASE("chrome: export_all with chrome_too writes the chrome form beside the exact files, up to a size") {
  const fs::path c = fs::path(MSPROF_TEST_DATA_DIR) / "golden" / "mstx_domains";
  const fs::path work = fs::path(MSPROF_TEST_BINARY_DIR) / "chrome_too_test";
  fs::remove_all(work);
  fs::create_directories(work);
  const fs::path prof = work / prof_input(c).filename();
  fs::copy(prof_input(c), prof, fs::copy_options::recursive);
  msprof::convert::export_options eo;
  eo.chrome_too = true;
  eo.chrome_writer = chrome::writer();
  eo.timestamp = "20260101120000";
  auto r = msprof::convert::export_all(prof.string(), eo);
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const fs::path out = prof / "mindstudio_profiler_output";
  const auto listed = [&](const fs::path& f) {
    return std::find(r->files.begin(), r->files.end(), f.string()) != r->files.end();
  };
  CHECK(listed(out / "msprof_20260101120000.json"));
  REQUIRE(listed(out / "chrome_trace_20260101120000.json"));
  CHECK(r->warnings.empty());
  const auto t = parse_trace(read_file(out / "chrome_trace_20260101120000.json"), form::chrome);
  for (const auto& p : t.problems) FAIL_CHECK(p);
  CHECK(read_file(out / "README.txt").find("  chrome_trace_20260101120000.json\n") != std::string::npos);

  // Above the size the form is built in memory for, no file but a warning
  // that says how to write it.
  eo.timestamp = "20260101120001";
  eo.chrome_too_max_bytes = 1;
  r = msprof::convert::export_all(prof.string(), eo);
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  CHECK(listed(out / "msprof_20260101120001.json"));
  CHECK_FALSE(fs::exists(out / "chrome_trace_20260101120001.json"));
  REQUIRE(r->warnings.size() == 1);
  CHECK(r->warnings[0].find("msprof export timeline --timeline-format=chrome -dir " + prof.string()) !=
        std::string::npos);
}
