// SPDX-License-Identifier: MIT
// summary_exporter takes the model in windows (model.hpp): every summary file
// must be byte-identical to the whole-model export, for any split, with rows
// kept in memory or spilled to disk, in CSV and JSON; and the exporter's files
// must equal the table API's text (one formatter for both).
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <msprof/convert/summary.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "golden_util.hpp"
#include "window_util.hpp"

namespace cv = msprof::convert;
namespace fs = std::filesystem;

namespace {

const std::size_t budgets[] = {cv::spill_budget_default, golden_windows::tiny_budget};
const std::size_t window_counts[] = {1, 2, 7};

/// file name -> content of <prof>/mindstudio_profiler_output.
std::map<std::string, std::string> outputs(const fs::path& prof) {
  std::map<std::string, std::string> m;
  for (const auto& e : fs::directory_iterator(prof / "mindstudio_profiler_output"))
    m[e.path().filename().string()] = golden::slurp(e.path());
  return m;
}

/// A fresh empty directory standing in for a PROF_ directory; removed on destruction.
struct scratch_dir {
  fs::path path;
  explicit scratch_dir(const std::string& tag) {
    path = fs::temp_directory_path() / ("msprof_sumwin_" + tag + "_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(golden::temp_copy::counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~scratch_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

cv::export_options options(const std::string& format, std::size_t slice_rows = 1000000) {
  cv::export_options o;
  o.timestamp = "T";
  o.format = format;
  o.slice_rows = slice_rows;
  return o;
}

/// Exports `m` split into `n` windows into `prof`'s output directory.
msprof::result<cv::export_result> export_windows(const cv::model& m, const cv::export_options& o, const fs::path& prof,
                                             std::size_t n, std::size_t budget, std::uint32_t seed = 11) {
  cv::summary_exporter x(o, prof.string(), budget);
  for (const auto& w : golden_windows::split(m, n, seed)) {
    auto r = x.add(w);
    if (!r) return r.err();
  }
  return x.finish(golden_windows::final_of(m));
}

/// Whole-model export of `m` into `whole_prof`, then every split into a fresh
/// directory: same file names, same bytes.
void check_windows_equal_whole(const cv::model& m, const cv::export_options& o, const fs::path& whole_prof) {
  auto whole = cv::export_summary(m, o);
  REQUIRE_MESSAGE(whole.has_value(), whole.err().what());
  const auto expected = outputs(whole_prof);
  REQUIRE(expected.size() == whole->files.size());
  for (std::size_t budget : budgets) {
    for (std::size_t n : window_counts) {
      CAPTURE(budget);
      CAPTURE(n);
      scratch_dir d("win");
      auto r = export_windows(m, o, d.path, n, budget);
      REQUIRE_MESSAGE(r.has_value(), r.err().what());
      CHECK(r->records == whole->records);
      CHECK(r->warnings == whole->warnings);
      const auto got = outputs(d.path);
      REQUIRE(got.size() == expected.size());
      for (const auto& [name, text] : expected) {
        CAPTURE(name);
        const auto it = got.find(name);
        REQUIRE(it != got.end());
        CHECK(it->second == text);
      }
    }
  }
}

/// The file of table `t` written unsliced equals the table API's text.
void check_files_equal_tables(const cv::model& m, const fs::path& prof, bool json) {
  for (const auto& t : cv::all_summaries(m)) {
    CAPTURE(t.name);
    const auto stem = cv::detail::summary_stem(t.name, json);
    const auto p = golden::output(prof, stem, json ? "json" : "csv");
    REQUIRE_MESSAGE(!p.empty(), "no " << stem << " written");
    CHECK(golden::slurp(p) == (json ? cv::json_text(t) : cv::csv_text(t)));
  }
}

}  // namespace

TEST_CASE("summary windows: golden cases, every file equals the whole-model export and the reference") {
  for (const char* c : golden::cases) {
    for (const char* format : {"csv", "json"}) {
      CAPTURE(c);
      CAPTURE(format);
      golden::temp_copy t(c, "_sumwin");
      auto m = cv::load_model(t.prof.string());
      REQUIRE(m.has_value());
      check_windows_equal_whole(*m, options(format), t.prof);
      check_files_equal_tables(*m, t.prof, std::string(format) == "json");
      if (std::string(format) != "csv") continue;
      // The reference's own CSVs, through 7 spilling windows.
      scratch_dir d("ref");
      REQUIRE(export_windows(*m, options("csv"), d.path, 7, golden_windows::tiny_budget).has_value());
      for (const auto& e : fs::directory_iterator(golden::case_dir(c) / "expected")) {
        if (e.path().extension() != ".csv") continue;
        CAPTURE(e.path().filename().string());
        const auto ours = golden::output(d.path, e.path().stem().string(), "csv");
        REQUIRE(!ours.empty());
        CHECK(golden::slurp(ours) == golden::slurp(e.path()));
      }
    }
  }
}

namespace {

std::shared_ptr<const cv::op_info> make_op(const std::string& name, const std::string& type, std::uint32_t ge,
                                           std::uint32_t block) {
  auto op = std::make_shared<cv::op_info>();
  op->name = name;
  op->type = type;
  op->ge_task_type = ge;
  op->block_num = block;
  op->dynamic = ge == 2;
  op->tensors.push_back({0, 2, 1, {8, 128, 256}});
  op->tensors.push_back({0, 0, 0, {256}});
  op->tensors.push_back({1, 29, 27, {8, 128}});
  return op;
}

/// Three devices, ops (AI Core with PMU, AI Vector, AI CPU, an excluded
/// WRITE_BACK, an AivKernel communication op) on some tasks, tasks of one
/// device starting at the same time, mstx events with equal start times,
/// mstx_mem records, iterations and a loss counter.
cv::model generated(const std::string& prof) {
  cv::model m;
  m.session.prof_dir = prof;
  m.session.pid = 4242;
  m.session.ai_core_metrics = m.session.aiv_metrics = "PipeUtilization";
  m.session.aic_events = m.session.aiv_events = {0x8, 0xa, 0x9, 0xb, 0xc, 0xd, 0x54, 0x55};
  m.session.devices = {{0, 1800, 24, 48}, {1, 1650, 20, 40}, {3, 1800, 24, 48}};
  m.session.losses = {{"dropped", 3}, {"rejected", 0}};
  m.warnings = {"a made-up warning"};
  const std::shared_ptr<const cv::op_info> ops[] = {
      make_op("MatMul_1", "MatMul", 0, 24),        make_op("Add, \"fused\"", "Add", 2, 8),
      make_op("Cast_3", "Cast", 1, 1),              make_op("WriteBack", "WB", 3, 1),
      make_op("hcom_allReduce_AivKernel", "AllReduce", 9, 4), make_op("MatMul_9", "MatMul", 4, 48)};
  const char* const api_names[] = {"aclnnMatmul", "aclrtMalloc", "aclnnAdd", "rtKernelLaunch"};
  const std::uint16_t levels[] = {cv::level::acl, cv::level::acl, cv::level::node, cv::level::runtime};
  for (std::uint64_t i = 0; i < 60; ++i) {
    cv::api_call a;
    a.level = levels[i % 4];
    a.name = api_names[(i * 7) % 4];
    a.thread_id = 100 + static_cast<std::uint32_t>(i % 3);
    a.start_ns = 1'700'000'000'000'000'000 + static_cast<std::int64_t>(i) * 3'333;
    a.end_ns = a.start_ns + 1'001 + static_cast<std::int64_t>((i * 37) % 11) * 777;
    a.connection_id = i + 1;
    a.has_device_task = i % 2 == 0;
    m.apis.push_back(a);
  }
  for (std::uint64_t i = 0; i < 50; ++i) {
    cv::device_task t;
    t.device_id = m.session.devices[i % 3].id;
    t.stream_id = 2 + static_cast<std::uint32_t>(i % 2);
    t.task_id = static_cast<std::uint32_t>(i);
    // Every fourth task starts with the task 3 launches earlier, on the same device: ties broken by launch.
    t.start_ns = 1'700'000'000'000'100'000 + static_cast<std::int64_t>(i) * 2'500 - static_cast<std::int64_t>(i % 5) * 900;
    if (i % 4 == 3) t.start_ns = m.tasks[i - 3].start_ns;
    t.end_ns = t.start_ns + 1'200 + static_cast<std::int64_t>((i * 13) % 7) * 1'111;
    t.task_type = i % 6 == 5 ? "KERNEL_AICPU" : "KERNEL_AICORE";
    t.kernel_name = i % 9 == 0 ? "" : "kernel_" + std::to_string(i % 4);
    t.connection_id = i % 2 == 0 ? 2 * i + 1 : 0;
    t.global_task_id = i;
    if (i % 7 != 6) t.op = ops[i % 6];
    if (i % 3 != 2) {
      cv::pmu_counters p;
      p.total_cycles = 10'000 + i * 101;
      for (std::size_t k = 0; k < 8; ++k) p.events[k] = (i + 1) * (k + 3) * 17;
      t.pmu = p;
    }
    m.tasks.push_back(t);
  }
  for (std::uint32_t i = 0; i < 23; ++i) {
    cv::mstx_event e;
    e.pid = 4242;
    e.tid = 100 + i % 2;
    e.event_type = i % 4;
    e.start_ns = 1'700'000'000'000'000'000 + (i / 3) * 5'000;  // three events per start time, then...
    if (i % 5 == 4) e.start_ns -= 20'000;                         // ...some earlier than their predecessors
    e.end_ns = e.start_ns + i * 10;
    e.start_mono_ns = e.start_ns - 1'600'000'000'000'000'000;
    e.end_mono_ns = e.end_ns - 1'600'000'000'000'000'000;
    e.mark_id = i;
    e.message = "step " + std::to_string(i) + (i % 4 == 1 ? ", \"quoted\"\t" : "");
    e.domain = i % 2 ? "default" : "io";
    m.mstx.push_back(e);
  }
  for (std::uint32_t i = 0; i < 7; ++i) {
    cv::mstx_mem_event e;
    e.tid = 100;
    e.ts_ns = 1'700'000'000'000'000'000 + (7 - i) * 1'000;  // record order, not time order
    e.op = static_cast<std::uint8_t>(i % 5);
    e.device_id = i % 2;
    e.handle = i + 1;
    e.heap = i % 2 ? 1 : 0;
    e.address = 0xff000000u + i * 4096;
    e.size = 4096;
    e.domain = "pool";
    m.mstx_mem.push_back(e);
  }
  for (std::uint32_t i = 0; i < 4; ++i) {
    cv::iteration it;
    it.device_id = i / 2;
    it.model_id = 4294967295u;
    it.iteration_id = i + 1;
    it.start_ns = 1'700'000'000'000'000'000 + i * 100'000;
    it.end_ns = it.start_ns + 90'000;
    it.fp_ns = i % 2 ? 0 : it.start_ns + 1'000;
    it.bp_ns = it.start_ns + 80'000;
    m.iterations.push_back(it);
  }
  return m;
}

}  // namespace

TEST_CASE("summary windows: a generated model with several devices, sliced every 3 rows") {
  scratch_dir whole("gen");
  const cv::model m = generated(whole.path.string());
  for (const char* format : {"csv", "json"}) {
    CAPTURE(format);
    fs::remove_all(whole.path / "mindstudio_profiler_output");
    check_windows_equal_whole(m, options(format, 3), whole.path);
    // Slicing happened: op_summary has 50 - 7 (no op) - 6 (WRITE_BACK) ... rows, 3 a file.
    const auto files = outputs(whole.path);
    const std::string ext = std::string(".") + format;
    const std::size_t op_rows = cv::op_summary(m).rows.size();
    REQUIRE(op_rows > 6);
    CHECK(files.count("op_summary_slice_0_T" + ext) == 1);
    CHECK(files.count("op_summary_slice_" + std::to_string((op_rows - 1) / 3) + "_T" + ext) == 1);
    CHECK(files.count("op_summary_slice_" + std::to_string((op_rows - 1) / 3 + 1) + "_T" + ext) == 0);
    CHECK(files.count("op_summary_T" + ext) == 0);
    CHECK(files.count(cv::detail::summary_stem("msprof_tx", ext == ".json") + "_slice_7_T" + ext) == 1);
    CHECK(files.count("msprof_losses_T" + ext) == 1);  // 1 row: not sliced
  }
  // Unsliced, the files are the table API's text.
  for (const char* format : {"csv", "json"}) {
    fs::remove_all(whole.path / "mindstudio_profiler_output");
    REQUIRE(cv::export_summary(m, options(format)).has_value());
    check_files_equal_tables(m, whole.path, std::string(format) == "json");
  }
}

TEST_CASE("summary windows: row order across windows") {
  scratch_dir d("order");
  const cv::model m = generated(d.path.string());
  // msprof_tx: by start time, equal starts in record order.
  const auto tx = cv::msprof_tx(m);
  REQUIRE(tx.rows.size() == m.mstx.size());
  CHECK(tx.rows[0][10] == "step 4");  // moved 20 µs earlier: first
  CHECK(tx.rows[1][10] == "step 9, \"quoted\"\t");
  CHECK(tx.rows[2][10] == "step 0");  // steps 0, 1, 2 and 14 start together
  CHECK(tx.rows[3][10] == "step 1, \"quoted\"\t");
  CHECK(tx.rows[4][10] == "step 2");
  CHECK(tx.rows[5][10] == "step 14");
  // op_summary: by device, start, then launch; the wait cell of the first op is
  // 0, that of a later device's first op counts from the previous row, as the
  // reference's. task_time: by start over the devices, then device.
  const auto ops = cv::op_summary(m);
  REQUIRE(ops.rows.size() > 1);
  CHECK(ops.rows[0][10] == "0");
  std::set<std::string> devices;
  for (std::size_t k = 1; k < ops.rows.size(); ++k) {
    CHECK(ops.rows[k][0] >= ops.rows[k - 1][0]);
    CHECK(ops.rows[k][10] != "0");
    devices.insert(ops.rows[k][0]);
  }
  CHECK(devices.size() > 1);
  const auto tasks = cv::task_time(m);
  for (std::size_t k = 1; k < tasks.rows.size(); ++k) {
    CHECK(tasks.rows[k][6] >= tasks.rows[k - 1][6]);
    if (tasks.rows[k][6] == tasks.rows[k - 1][6]) CHECK(tasks.rows[k][0] >= tasks.rows[k - 1][0]);
  }
  // One call and one task a window, in reverse launch order, give the same files.
  cv::export_options o = options("csv");
  REQUIRE(cv::export_summary(m, o).has_value());
  const auto expected = outputs(d.path);
  scratch_dir r("reverse");
  cv::summary_exporter x(o, r.path.string(), golden_windows::tiny_budget);
  for (std::size_t i = std::max(m.apis.size(), m.tasks.size()); i-- > 0;) {
    cv::model w = golden_windows::final_of(m);
    if (i < m.apis.size()) w.apis.push_back(m.apis[i]);
    if (i < m.tasks.size()) w.tasks.push_back(m.tasks[i]);
    REQUIRE(x.add(w).has_value());
  }
  cv::model rest = golden_windows::final_of(m);
  rest.mstx = m.mstx;
  rest.mstx_mem = m.mstx_mem;
  REQUIRE(x.add(rest).has_value());
  auto res = x.finish(golden_windows::final_of(m));
  REQUIRE(res.has_value());
  CHECK(outputs(r.path) == expected);
}

TEST_CASE("summary windows: a tiny budget spills to disk, the default one does not") {
  scratch_dir d("spill");
  const cv::model m = generated(d.path.string());
  // The spill file goes into the PROF_ directory: one that does not exist yet
  // makes a spilling export fail (finish() creates it too late), naming the file.
  const fs::path missing = d.path / "not_yet";
  auto spilled = export_windows(m, options("csv"), missing, 2, golden_windows::tiny_budget);
  REQUIRE(!spilled.has_value());
  CHECK(spilled.err().what().find(".msprof_sort_") != std::string::npos);
  fs::remove_all(missing);
  CHECK(export_windows(m, options("csv"), missing, 2, cv::spill_budget_default).has_value());
}

TEST_CASE("summary windows: nothing to summarize is an error, and add() records are ignored at finish") {
  scratch_dir d("empty");
  cv::model m;
  m.session.prof_dir = d.path.string();
  cv::summary_exporter x(options("csv"), d.path.string());
  REQUIRE(x.add(m).has_value());
  auto r = x.finish(m);
  REQUIRE(!r.has_value());
  CHECK(r.err().code == msprof::errc::not_found);
  CHECK(r.err().what().find("no API, task or mstx records to summarize") != std::string::npos);
  // Records handed only to finish() are not exported: the final model's records are ignored.
  cv::summary_exporter y(options("csv"), d.path.string());
  const cv::model g = generated(d.path.string());
  auto ry = y.finish(g);  // step_trace and losses come from the final model
  REQUIRE(ry.has_value());
  CHECK(ry->records == 0);
  CHECK(!golden::output(d.path, "step_trace", "csv").empty());
  CHECK(golden::output(d.path, "op_summary", "csv").empty());
  CHECK(golden::output(d.path, "task_time", "csv").empty());
}
