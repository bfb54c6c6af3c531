// SPDX-License-Identifier: MIT
// The timeline exporter fed the model in windows (model.hpp) writes the bytes
// export_timeline writes for the whole model: every golden case and a
// generated model with several devices, streams and threads, split into 1, 2
// and 7 windows, with the default spill budget and with one so small that
// every sorter spills runs to disk and merges them.
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <msprof/convert/timeline.hpp>

#include <map>
#include <random>

#include "golden_util.hpp"
#include "window_util.hpp"

namespace cv = msprof::convert;
namespace fs = std::filesystem;

namespace {


/// The timeline files stamped `ts` in prof's output directory: stem -> bytes.
std::map<std::string, std::string> timeline_files(const fs::path& prof, const std::string& ts) {
  std::map<std::string, std::string> out;
  for (const char* stem : {"msprof", "msprof_tx", "step_trace"}) {
    const auto p = prof / "mindstudio_profiler_output" / (std::string(stem) + "_" + ts + ".json");
    if (fs::exists(p)) out[stem] = golden::slurp(p);
  }
  return out;
}

/// Exports `m` through timeline_exporter in `n` windows; each window is wiped
/// right after add(), as the loader frees it.
msprof::result<cv::export_result> export_windows(const cv::model& m, cv::export_options o, std::size_t n,
                                             std::uint32_t seed, std::size_t budget) {
  cv::timeline_exporter x(o, m.session.prof_dir, budget);
  auto windows = golden_windows::split(m, n, seed);
  for (auto& w : windows) {
    auto r = x.add(w);
    if (!r) return r.err();
    w = cv::model{};
  }
  return x.finish(golden_windows::final_of(m));
}

/// Whole-model export_timeline vs the windowed exporter for n in {1, 2, 7} and both budgets.
void check_windows_match_whole(const cv::model& m, const fs::path& prof, cv::export_options o = {}) {
  o.timestamp = "whole";
  auto whole = cv::export_timeline(m, o);
  REQUIRE_MESSAGE(whole.has_value(), whole.err().what());
  const auto expect = timeline_files(prof, "whole");
  REQUIRE(!expect.empty());
  // The whole-model files are what the trace_event path (build_timeline, the
  // chrome writer's input) formats, event for event.
  std::vector<cv::trace_event> tx, steps;
  cv::build_mstx_events(m, tx);
  auto keep = [&](cv::trace_event&& e) { steps.push_back(std::move(e)); };
  cv::emit_step_trace(m, keep);
  if (expect.count("msprof")) CHECK(expect.at("msprof") == cv::timeline_json(cv::build_timeline(m)));
  if (expect.count("msprof_tx")) CHECK(expect.at("msprof_tx") == cv::timeline_json(tx));
  if (expect.count("step_trace")) CHECK(expect.at("step_trace") == cv::timeline_json(steps));
  for (std::size_t budget : {cv::spill_budget_default, golden_windows::tiny_budget}) {
    for (std::size_t n : {1u, 2u, 7u}) {
      CAPTURE(budget);
      CAPTURE(n);
      o.timestamp = "w" + std::to_string(n) + "_" + std::to_string(budget);
      auto r = export_windows(m, o, n, static_cast<std::uint32_t>(n * 31 + budget), budget);
      REQUIRE_MESSAGE(r.has_value(), r.err().what());
      CHECK(r->records == whole->records);
      CHECK(r->warnings == whole->warnings);
      CHECK(r->files.size() == whole->files.size());
      const auto got = timeline_files(prof, o.timestamp);
      CHECK(got.size() == expect.size());
      for (const auto& [stem, bytes] : expect) {
        CAPTURE(stem);
        REQUIRE(got.count(stem) == 1);
        CHECK(got.at(stem) == bytes);
      }
    }
  }
}

/// A collection with what the golden cases lack: three devices (one without
/// ops), several streams and threads, tasks with and without connection ids
/// and ops, overlapping and disjoint op intervals in no time order, iterations
/// and losses.
cv::model generated_model(const fs::path& prof) {
  cv::model m;
  auto& s = m.session;
  s.prof_dir = prof.string();
  s.pid = 4242;
  s.pid_name = "gen";
  s.start_ns = 1'000'000'000;
  s.end_ns = 9'000'000'000;
  s.devices = {{0, 1800, 24, 48}, {1, 1650, 24, 48}, {3, 1000, 8, 8}};
  s.losses = {{"ring_full", 3}, {"bad_record", 0}};
  std::mt19937 rng(7);
  auto op = std::make_shared<cv::op_info>();
  op->name = "MatMul_\"quoted\"";
  op->type = "MatMul";
  for (std::uint64_t i = 0; i < 400; ++i) {
    cv::api_call a;
    a.level = i % 3 == 0 ? cv::level::acl : cv::level::node;
    a.type = 0x10000u + static_cast<std::uint32_t>(i % 5);
    a.thread_id = 100 + static_cast<std::uint32_t>(rng() % 4);
    a.start_ns = s.start_ns + static_cast<std::int64_t>(i) * 10'000;
    a.end_ns = a.start_ns + 4'000 + static_cast<std::int64_t>(rng() % 3000);
    a.name = i % 3 == 0 ? "aclopCompileAndExecute" : "launch";
    a.item = i % 4 == 0 ? "" : "item" + std::to_string(i);
    a.connection_id = i + 1;
    a.has_device_task = i % 2 == 0;
    m.apis.push_back(a);
  }
  for (std::uint64_t i = 0; i < 500; ++i) {
    cv::device_task t;
    t.device_id = i % 7 == 0 ? 3 : static_cast<std::uint32_t>(rng() % 2);
    t.stream_id = static_cast<std::uint32_t>(rng() % 5);
    t.task_id = static_cast<std::uint32_t>(i);
    t.batch_id = static_cast<std::uint32_t>(i % 2);
    t.start_ns = s.start_ns + static_cast<std::int64_t>(rng() % 5'000'000);  // not in launch order
    t.end_ns = t.start_ns + static_cast<std::int64_t>(rng() % 40'000);
    t.task_type = i % 3 ? "KERNEL_AICORE" : "EVENT_RECORD";
    t.connection_id = i < 400 && i % 2 == 0 ? i + 1 : 0;
    t.host_flow = t.connection_id != 0;
    t.global_task_id = i;
    if (t.device_id != 3 && i % 5 != 0) t.op = op;
    m.tasks.push_back(t);
  }
  for (std::uint64_t i = 0; i < 60; ++i) {
    cv::mstx_event e;
    e.pid = s.pid;
    e.tid = 100 + static_cast<std::uint32_t>(i % 3);
    e.event_type = static_cast<std::uint32_t>(i % 4);
    e.start_ns = s.start_ns + static_cast<std::int64_t>(i) * 50'000;
    e.end_ns = e.start_ns + (i % 4 == 0 ? 0 : 20'000);
    e.mark_id = i;
    e.message = "step " + std::to_string(i);
    e.domain = i % 2 ? "default" : "mine";
    m.mstx.push_back(e);
  }
  for (std::uint32_t k = 1; k <= 3; ++k) {
    cv::iteration it;
    it.device_id = 0;
    it.model_id = 4294967295u;
    it.iteration_id = k;
    it.start_ns = s.start_ns + static_cast<std::int64_t>(k) * 1'000'000;
    it.end_ns = it.start_ns + 900'000;
    it.fp_ns = k == 2 ? 0 : it.start_ns + 100'000;
    it.bp_ns = k == 2 ? 0 : it.start_ns + 700'000;
    it.data_aug_ns = 50'000;
    m.iterations.push_back(it);
  }
  m.warnings = {"a warning"};
  return m;
}

struct scratch_prof {
  fs::path root;
  explicit scratch_prof(const std::string& tag)
      : root(fs::temp_directory_path() / ("msprof_timeline_window_" + tag + "_" + std::to_string(::getpid()))) {
    fs::remove_all(root);
    fs::create_directories(root / "PROF_000001");
  }
  ~scratch_prof() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  fs::path prof() const { return root / "PROF_000001"; }
};

}  // namespace

TEST_CASE("timeline windows: every golden case in 1, 2 and 7 windows gives the whole-model bytes") {
  for (const char* c : golden::cases) {
    CAPTURE(c);
    golden::temp_copy t(c, "_windows");
    auto m = cv::load_model(t.prof.string());
    REQUIRE_MESSAGE(m.has_value(), m.err().what());
    check_windows_match_whole(*m, t.prof);
  }
}

TEST_CASE("timeline windows: devices, streams, threads, flows and overlap spread over windows") {
  scratch_prof d("gen");
  const auto m = generated_model(d.prof());
  check_windows_match_whole(m, d.prof());
  // The generated model does reach every section.
  const auto text = golden::slurp(d.prof() / "mindstudio_profiler_output" / "msprof_whole.json");
  for (const char* what : {"\"Computing\"", "\"Free\"", "Overlap Analysis", "\"ph\":\"f\"", "MsTx_", "Iteration 3",
                           "events lost", "AI Core Freq", "\"NPU 3\""})
    CHECK_MESSAGE(text.find(what) != std::string::npos, what);
}

TEST_CASE("timeline windows: -reports selects the same files as the whole-model export") {
  scratch_prof d("reports");
  const auto m = generated_model(d.prof());
  cv::export_options o;
  o.reports = {"msprof_tx", "step_trace"};
  check_windows_match_whole(m, d.prof(), o);
  CHECK(timeline_files(d.prof(), "w7_256").count("msprof") == 0);
}

TEST_CASE("timeline windows: only empty windows is the whole-model error") {
  scratch_prof d("empty");
  cv::model m;
  m.session.prof_dir = d.prof().string();
  cv::timeline_exporter x({}, m.session.prof_dir);
  REQUIRE(x.add(m).has_value());
  REQUIRE(x.add(m).has_value());
  auto r = x.finish(m);
  REQUIRE(!r.has_value());
  CHECK(r.err().what().find("no API, task or mstx records to export") != std::string::npos);
  auto whole = cv::export_timeline(m, {});
  REQUIRE(!whole.has_value());
  CHECK(whole.err().what() == r.err().what());
}

TEST_CASE("timeline windows: a spill that cannot be written fails the export and leaves no file") {
  scratch_prof d("nospill");
  // Nothing exists at prof_dir when the windows arrive, so the first spill fails;
  // finish() creates the output directory and must then report the spill.
  auto m = generated_model(d.root / "missing" / "PROF_000001");
  cv::export_options o;
  o.timestamp = "T";
  auto r = export_windows(m, o, 2, 1, golden_windows::tiny_budget);
  REQUIRE(!r.has_value());
  CHECK(r.err().what().find(".msprof_sort_") != std::string::npos);
  CHECK(!fs::exists(d.root / "missing" / "PROF_000001" / "mindstudio_profiler_output" / "msprof_T.json"));
}
