// SPDX-License-Identifier: MIT
// The db writer fed the model in windows (model.hpp): for any split, and with
// a spill budget small enough that every sorter writes runs to disk, the
// database has the same tables and the same rows in the same rowid order as
// the whole-model export (and the same file bytes).
#include <doctest/doctest.h>
#include <msprof/convert/db.hpp>
#include <msprof/convert/export.hpp>
#include <msprof/convert/summary.hpp>
#include <msprof/convert/timeline.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "golden_util.hpp"
#include "window_util.hpp"

namespace cv = msprof::convert;
namespace fs = std::filesystem;

namespace {


/// sqlite_master in rowid order, then every table's rows in rowid order, one
/// line per row with typed values ("i:", "f:" %!.20g, "t:", "null").
std::vector<std::string> rowid_dump(const fs::path& path) {
  std::vector<std::string> out;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return {"cannot open " + path.string()};
  }
  auto query = [&](const std::string& sql, auto&& row) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      out.push_back("cannot prepare " + sql);
      return;
    }
    while (sqlite3_step(st) == SQLITE_ROW) row(st);
    sqlite3_finalize(st);
  };
  auto line_of = [](sqlite3_stmt* st) {
    std::string line;
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      line += '|';
      switch (sqlite3_column_type(st, i)) {
        case SQLITE_INTEGER: line += "i:" + std::to_string(sqlite3_column_int64(st, i)); break;
        case SQLITE_FLOAT: {
          char* s = sqlite3_mprintf("f:%!.20g", sqlite3_column_double(st, i));
          line += s;
          sqlite3_free(s);
          break;
        }
        case SQLITE_NULL: line += "null"; break;
        default: line += "t:" + std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, i)));
      }
    }
    return line;
  };
  std::vector<std::string> tables;
  query("SELECT type, name, sql FROM sqlite_master ORDER BY rowid", [&](sqlite3_stmt* st) {
    out.push_back("master" + line_of(st));
    if (std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))) == "table")
      tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 1)));
  });
  for (const auto& t : tables)
    query("SELECT rowid, * FROM " + t + " ORDER BY rowid", [&](sqlite3_stmt* st) { out.push_back(t + line_of(st)); });
  sqlite3_close(db);
  return out;
}

/// Values of one column, in rowid order, as text.
std::vector<std::string> column(const fs::path& path, const std::string& sql) {
  std::vector<std::string> out;
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      const auto* t = sqlite3_column_text(st, 0);
      out.emplace_back(t ? reinterpret_cast<const char*>(t) : "NULL");
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

cv::export_options stamped(const std::string& ts) {
  cv::export_options o;
  o.timestamp = ts;
  return o;
}

/// Exports `m` in `n` windows through db_exporter; returns the db path.
fs::path export_windows(const cv::model& m, std::size_t n, std::uint32_t seed, std::size_t budget,
                        const std::string& ts) {
  cv::db_exporter x(stamped(ts), m.session.prof_dir, budget);
  for (const auto& w : golden_windows::split(m, n, seed)) {
    auto a = x.add(w);
    REQUIRE_MESSAGE(a.has_value(), a.err().what());
  }
  auto r = x.finish(golden_windows::final_of(m));
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  REQUIRE(r->files.size() == 1);
  CHECK(r->records == m.apis.size() + m.tasks.size() + m.mstx.size());
  CHECK(r->warnings == m.warnings);
  return r->files[0];
}

/// Every split of `m` (1, 2 and 7 windows; default and tiny budget) gives the
/// whole-model database; returns the whole-model db path.
fs::path check_windows_equal_whole(const cv::model& m) {
  auto whole = cv::export_db(m, stamped("whole"));
  REQUIRE_MESSAGE(whole.has_value(), whole.err().what());
  const fs::path whole_db = whole->files.at(0);
  const auto expected = rowid_dump(whole_db);
  REQUIRE(expected.size() > 20);
  const auto expected_bytes = golden::slurp(whole_db);
  for (std::size_t n : {1u, 2u, 7u}) {
    for (std::size_t budget : {cv::spill_budget_default, golden_windows::tiny_budget}) {
      CAPTURE(n);
      CAPTURE(budget);
      const auto ts = "w" + std::to_string(n) + "_" + std::to_string(budget);
      const fs::path db = export_windows(m, n, static_cast<std::uint32_t>(n * 31 + budget), budget, ts);
      const auto got = rowid_dump(db);
      CHECK(got.size() == expected.size());
      for (std::size_t i = 0; i < std::min(got.size(), expected.size()); ++i) {
        if (got[i] == expected[i]) continue;
        CHECK_MESSAGE(got[i] == expected[i], "first differing row " << i);
        break;
      }
      // The same SQLite calls in the same order: the same file.
      CHECK(golden::slurp(db) == expected_bytes);
    }
  }
  return whole_db;
}

/// A collection with three devices, four streams each, reused task ids, ops
/// with tensors (AI Core, AI Vector, AI CPU, mixed; one dynamic), PipeUtilization
/// counters, tasks without op or launch API, overlapping ops, and mstx events
/// whose strings are shared with the API names.
cv::model generated(const fs::path& dir) {
  cv::model m;
  auto& s = m.session;
  s.prof_dir = dir.string();
  s.pid = 4242;
  s.hostname = "gen-host";
  s.host_uid = "77";
  s.platform_version = "5";
  s.rank_id = 3;
  s.start_ns = 1'000'000;
  s.end_ns = 90'000'000;
  s.devices = {{0, 1800, 24, 48}, {1, 1650, 20, 40}, {3, 1800, 24, 48}};
  s.ai_core_metrics = s.aiv_metrics = "PipeUtilization";
  s.aic_events = s.aiv_events = {0x8, 0xa, 0x9, 0xb, 0xc, 0xd, 0x54, 0x55};

  const char* api_names[] = {"aclnnAdd", "launch", "aclrtMemcpyAsync", "aclnnMatmul_a_name_longer_than_sso"};
  for (std::uint64_t i = 0; i < 80; ++i) {
    cv::api_call a;
    a.level = i % 3 == 0 ? cv::level::node : (i % 3 == 1 ? cv::level::runtime : cv::level::acl);
    a.type = static_cast<std::uint32_t>(0x10000 + i % 5);
    a.thread_id = 100 + static_cast<std::uint32_t>(i % 3);
    a.start_ns = 2'000'000 + static_cast<std::int64_t>(i) * 10'000;
    a.end_ns = a.start_ns + 5'000 + static_cast<std::int64_t>(i % 7) * 100;
    a.name = api_names[(i * 7) % 4];
    a.connection_id = i + 1;
    a.has_device_task = i % 2 == 0;
    m.apis.push_back(a);
  }

  auto op = [](const char* name, const char* type, std::uint32_t ge, std::uint32_t block, bool dynamic,
               std::vector<cv::tensor_desc> tensors) {
    auto o = std::make_shared<cv::op_info>();
    o->name = name;
    o->type = type;
    o->ge_task_type = ge;
    o->block_num = block;
    o->dynamic = dynamic;
    o->tensors = std::move(tensors);
    return std::shared_ptr<const cv::op_info>(std::move(o));
  };
  const std::shared_ptr<const cv::op_info> ops[] = {
      op("Add_1", "Add", 0, 8, false, {{0, 2, 1, {8, 16}}, {0, 2, 1, {8, 16}}, {1, 2, 1, {8, 16}}}),
      op("Mul_vec", "Mul", 2, 40, true, {{0, 29, 0, {1, 2, 3, 4}}, {1, 29, 0, {1, 2, 3, 4}}}),
      op("Cast_cpu", "Cast", 1, 1, false, {{0, 0, 3, {5}}, {1, 0, 27, {5}}}),
      op("MatMul_mix", "MatMul", 4, 30, false,
         {{0, 29, 1, {128, 256}}, {0, 4, 1, {256, 64}}, {1, 29, 1, {128, 64}}}),
      op("NoTensors", "Identity", 0, 0, false, {}),
  };
  const char* task_types[] = {"KERNEL_AICORE", "KERNEL_AIVEC", "KERNEL_AICPU", "MIX_AIC", "EVENT_RECORD"};
  const std::uint32_t devices[] = {0, 1, 3};
  for (std::uint64_t i = 0; i < 240; ++i) {
    cv::device_task t;
    t.device_id = devices[i % 3];
    t.stream_id = static_cast<std::uint32_t>((i / 3) % 4);
    t.task_id = static_cast<std::uint32_t>((i / 12) % 6);  // ids wrap: keys repeat with later starts
    // Starts leave gaps on some devices, ops overlap on others.
    t.start_ns = 3'000'000 + static_cast<std::int64_t>(i) * 20'000 + static_cast<std::int64_t>((i * 37) % 11) * 3'000;
    t.end_ns = t.start_ns + 4'000 + static_cast<std::int64_t>((i * 13) % 9) * 9'000;
    t.track_ns = t.start_ns - 500;
    t.thread_id = 100 + static_cast<std::uint32_t>(i % 3);
    t.task_type = task_types[i % 5];
    t.connection_id = i % 6 == 5 ? 0 : (i % 80) + 1;
    t.global_task_id = i;
    if (i % 4 != 3) t.op = ops[(i / 2) % 5];
    if (t.op && i % 3 != 2) {
      cv::pmu_counters p;
      p.total_cycles = 10'000 + i * 17;
      for (std::size_t k = 0; k < 8; ++k) p.events[k] = (i * 31 + k * 101) % 9'000;
      t.pmu = p;
    }
    m.tasks.push_back(t);
  }
  // Same (device, stream, task, start) as an earlier task: the task order breaks the tie.
  for (std::uint64_t i = 240; i < 243; ++i) {
    cv::device_task t = m.tasks[7];
    t.global_task_id = i;
    t.op = ops[i % 5];
    m.tasks.push_back(t);
  }

  const char* messages[] = {"step", "launch", "forward pass", "step", "backward", "aclnnAdd"};
  for (std::uint64_t i = 0; i < 50; ++i) {
    cv::mstx_event e;
    e.pid = s.pid;
    e.tid = 100 + static_cast<std::uint32_t>(i % 2);
    e.event_type = static_cast<std::uint32_t>(i % 4);
    e.start_ns = 2'500'000 + static_cast<std::int64_t>(i) * 50'000;
    e.end_ns = e.start_ns + (e.event_type == 0 ? 0 : 30'000);
    e.mark_id = i;
    e.message = messages[i % 6];
    e.domain = i % 3 == 0 ? "default" : "dom_a";
    m.mstx.push_back(e);
  }
  return m;
}

}  // namespace

TEST_CASE("db windows: every golden case, split into 1, 2 and 7 windows, gives the whole-model db") {
  for (const char* c : golden::cases) {
    CAPTURE(c);
    golden::temp_copy t(c, "_dbwin");
    auto m = cv::load_model(t.prof.string());
    REQUIRE(m.has_value());
    check_windows_equal_whole(*m);
    // And the reference's rows where the case has them (truncated_tail keeps more, see golden_test).
    const auto expected_sql = golden::case_dir(c) / "expected" / "db.canonical.sql";
    if (std::string(c) != "truncated_tail" && fs::exists(expected_sql)) {
      const fs::path db = export_windows(*m, 7, 99, golden_windows::tiny_budget, "golden7");
      CHECK(golden::canonical_db(db) == golden::lines(golden::slurp(expected_sql)));
    }
  }
}

TEST_CASE("db windows: a generated multi-device model with ops, PMU counters and mstx, in windows") {
  golden::temp_copy t("host_api_only", "_dbgen");  // only for its temp directory
  const cv::model m = generated(t.root);
  const fs::path db = check_windows_equal_whole(m);

  // What the rows hold, independent of the split.
  CHECK(column(db, "SELECT count(*) FROM TASK") == std::vector<std::string>{"243"});
  CHECK(column(db, "SELECT count(*) FROM CANN_API") == std::vector<std::string>{"80"});
  CHECK(column(db, "SELECT count(*) FROM MSTX_EVENTS") == std::vector<std::string>{"50"});
  std::size_t pmu_tasks = 0, op_tasks = 0;
  for (const auto& x : m.tasks) {
    op_tasks += x.op != nullptr;
    pmu_tasks += x.pmu && x.op && (cv::detail::is_aic(x.op->ge_task_type) || cv::detail::is_aiv(x.op->ge_task_type));
  }
  REQUIRE(pmu_tasks > 20);
  CHECK(column(db, "SELECT count(*) FROM TASK_PMU_INFO") == std::vector<std::string>{std::to_string(30 * pmu_tasks)});
  CHECK(column(db, "SELECT count(*) FROM COMPUTE_TASK_INFO") == std::vector<std::string>{std::to_string(op_tasks)});
  // TASK rows in global task order.
  std::vector<std::string> gids;
  for (const auto& x : m.tasks) gids.push_back(std::to_string(x.global_task_id));
  CHECK(column(db, "SELECT globalTaskId FROM TASK ORDER BY rowid") == gids);
  // STRING_IDS: release, allocate, then mstx messages/domains by first use, then
  // the PMU names, then API names by connection id.
  const auto strings = column(db, "SELECT value FROM STRING_IDS ORDER BY id");
  const std::vector<std::string> head = {"release", "allocate", "step", "default", "launch", "dom_a",
                                         "forward pass", "backward", "aclnnAdd", "aic_total_time"};
  REQUIRE(strings.size() > head.size());
  CHECK(std::vector<std::string>(strings.begin(), strings.begin() + static_cast<std::ptrdiff_t>(head.size())) == head);
  const auto api_first = static_cast<std::size_t>(std::find(strings.begin(), strings.end(), "aiv_icache_miss_rate") -
                                                  strings.begin()) + 1;
  REQUIRE(api_first + 2 <= strings.size());
  // Calls 1, 2, 3 are aclnnAdd, the long name, aclrtMemcpyAsync; aclnnAdd and launch came with the mstx.
  CHECK(strings[api_first] == "aclnnMatmul_a_name_longer_than_sso");
  CHECK(strings[api_first + 1] == "aclrtMemcpyAsync");
  // TASK_PMU_INFO by rowid (more tasks than one INSERT holds): each PMU task's
  // rows in task order, one per PMU name; the total cycles on the task's side,
  // 0 on the other.
  const std::vector<std::string> pmu_names(strings.begin() + 9, strings.begin() + static_cast<std::ptrdiff_t>(api_first));
  REQUIRE(pmu_names.size() == 30);
  std::vector<std::string> pmu_rows, cycles;
  for (const auto& x : m.tasks) {
    if (!x.pmu || !x.op) continue;
    const bool aic = cv::detail::is_aic(x.op->ge_task_type);
    if (!aic && !cv::detail::is_aiv(x.op->ge_task_type)) continue;
    const std::string gid = std::to_string(x.global_task_id), n = std::to_string(x.pmu->total_cycles);
    for (const auto& name : pmu_names) pmu_rows.push_back(gid + "," + name);
    cycles.push_back(gid + ",aic_total_cycles," + (aic ? n : "0"));
    cycles.push_back(gid + ",aiv_total_cycles," + (aic ? "0" : n));
  }
  CHECK(column(db, "SELECT p.globalTaskId||','||s.value FROM TASK_PMU_INFO p JOIN STRING_IDS s ON s.id = p.name "
                   "ORDER BY p.rowid") == pmu_rows);
  CHECK(column(db, "SELECT p.globalTaskId||','||s.value||','||p.value FROM TASK_PMU_INFO p JOIN STRING_IDS s ON "
                   "s.id = p.name WHERE s.value IN ('aic_total_cycles', 'aiv_total_cycles') ORDER BY p.rowid") == cycles);
  // OVERLAP_ANALYSIS holds what the timeline's overlap_analysis computes.
  std::vector<std::string> overlap;
  std::int64_t id = 0;
  for (const auto& iv : cv::overlap_analysis(m))
    overlap.push_back(std::to_string(id++) + "," + std::to_string(iv.device_id) + "," + std::to_string(iv.start_ns) +
                      "," + std::to_string(iv.end_ns) + "," + (iv.compute ? "0" : "3"));
  REQUIRE(overlap.size() > 6);
  CHECK(column(db, "SELECT id||','||deviceId||','||startNs||','||endNs||','||type FROM OVERLAP_ANALYSIS ORDER BY "
                   "rowid") == overlap);
  // Op names of COMPUTE_TASK_INFO by global task id.
  std::vector<std::string> op_names;
  for (const auto& x : m.tasks)
    if (x.op) op_names.push_back(x.op->name);
  CHECK(column(db, "SELECT s.value FROM COMPUTE_TASK_INFO c JOIN STRING_IDS s ON s.id = c.name ORDER BY c.rowid") ==
        op_names);
}

TEST_CASE("db windows: with a tiny budget the rows go through disk runs, and a spill failure is reported") {
  golden::temp_copy t("host_api_only", "_dbspill");
  const cv::model m = generated(t.root);
  const auto windows = golden_windows::split(m, 3, 5);
  const auto final = golden_windows::final_of(m);
  for (std::size_t budget : {cv::spill_budget_default, golden_windows::tiny_budget}) {
    CAPTURE(budget);
    // Runs go to a directory that does not exist: only a writer that spills fails.
    const auto path = t.root / ("spill_" + std::to_string(budget) + ".db");
    cv::db_window_writer w(path.string(), (t.root / "missing").string(), budget);
    bool ok = true;
    for (const auto& x : windows) ok = ok && w.add(x).has_value();
    auto r = w.finish(final);
    ok = ok && r.has_value();
    if (budget == golden_windows::tiny_budget) {
      CHECK_FALSE(ok);
      if (!r) CHECK(r.err().message.find(".msprof_sort_") != std::string::npos);
    } else {
      CHECK(ok);
    }
  }
}

TEST_CASE("db windows: the file appears only when finish() succeeds, an abandoned export leaves nothing") {
  golden::temp_copy t("host_api_only", "_dbtmp");
  const cv::model m = generated(t.prof);
  auto db_files = [&] {
    std::vector<std::string> v;
    for (const auto& e : fs::directory_iterator(t.prof))
      if (e.path().filename().string().rfind("msprof_", 0) == 0) v.push_back(e.path().filename().string());
    return v;
  };
  {
    cv::db_exporter x(stamped("abandoned"), m.session.prof_dir);
    REQUIRE(x.add(golden_windows::split(m, 2, 1)[0]).has_value());
    CHECK(db_files().size() == 1);  // the temporary file
    CHECK(db_files()[0].find(".tmp") != std::string::npos);
  }
  CHECK(db_files().empty());
  cv::db_exporter x(stamped("done"), m.session.prof_dir);
  REQUIRE(x.add(m).has_value());
  auto r = x.finish(m);
  REQUIRE(r.has_value());
  CHECK(db_files() == std::vector<std::string>{"msprof_done.db"});
}
