// SPDX-License-Identifier: MIT
// Every golden case through export_timeline/summary/db, diffed against the
// reference's own output (tests/golden/<case>/expected).
#include <doctest/doctest.h>
#include <msprof/convert/export.hpp>
#include <msprof/convert/timeline.hpp>

#include "golden_util.hpp"

namespace cv = msprof::convert;
using golden::fs::path;

namespace {

void check_lines_equal(const std::vector<std::string>& expected, const std::vector<std::string>& got,
                       const std::string& what) {
  const auto missing = golden::minus(expected, got);
  const auto extra = golden::minus(got, expected);
  for (const auto& m : missing) MESSAGE(what << " missing: " << m);
  for (const auto& e : extra) MESSAGE(what << " extra:   " << e);
  CHECK_MESSAGE(missing.empty(), what);
  CHECK_MESSAGE(extra.empty(), what);
}

}  // namespace

TEST_CASE("golden: summaries are byte-identical to the reference CSVs") {
  std::vector<std::string> all(std::begin(golden::cases), std::end(golden::cases));
  // communication_statistic and the collectives' op_summary rows too
  for (const char* c : {"hccl_allreduce", "hccl_groups"}) all.push_back(c);
  for (const auto& c : all) {
    CAPTURE(c);
    golden::temp_copy t(c);
    golden::export_everything(t);
    for (const auto& e : golden::fs::directory_iterator(golden::case_dir(c) / "expected")) {
      if (e.path().extension() != ".csv") continue;
      const std::string stem = e.path().stem().string();
      CAPTURE(stem);
      const auto ours = golden::output(t.prof, stem, "csv");
      REQUIRE_MESSAGE(!ours.empty(), "no " << stem << " written");
      CHECK(golden::slurp(ours) == golden::slurp(e.path()));
    }
  }
}

TEST_CASE("golden: timeline events equal the reference as a multiset, ids compared by links") {
  for (const char* c : {"host_api_only", "mstx_domains", "ops_pipeutil", "multi_thread_mixed", "hccl_allreduce",
                        "hccl_groups", "pcie", "hccs", "nic", "roce", "hbm", "llc", "host_usage", "host_io",
                        "host_sys_usage"}) {
    CAPTURE(c);
    golden::temp_copy t(c);
    golden::export_everything(t);
    for (const char* stem : {"msprof", "msprof_tx"}) {
      const auto exp = golden::case_dir(c) / "expected" / (std::string(stem) + ".json");
      const auto ours = golden::output(t.prof, stem, "json");
      CHECK(golden::fs::exists(exp) == !ours.empty());
      if (ours.empty() || !golden::fs::exists(exp)) continue;
      std::string e1, e2;
      const auto a = golden::canonical_timeline(golden::slurp(exp), e1);
      const auto b = golden::canonical_timeline(golden::slurp(ours), e2);
      REQUIRE(e1.empty());
      REQUIRE_MESSAGE(e2.empty(), e2);
      check_lines_equal(a, b, std::string(c) + "/" + stem);
    }
  }
}

TEST_CASE("golden: db canonical dump equals db.canonical.sql") {
  // The counter cases' dumps come from runs whose parallel savers registered
  // the strings in their usual order (see tests/golden/README.md).
  for (const char* c : {"host_api_only", "mstx_domains", "ops_pipeutil", "multi_thread_mixed", "pcie", "hccs", "nic",
                        "roce", "hbm", "llc", "host_usage", "host_io", "host_sys_usage"}) {
    CAPTURE(c);
    golden::temp_copy t(c);
    golden::export_everything(t);
    const auto got = golden::canonical_db(t.prof / "msprof_T.db");
    const auto exp = golden::lines(golden::slurp(golden::case_dir(c) / "expected" / "db.canonical.sql"));
    CHECK(got == exp);
    if (got != exp) check_lines_equal(exp, got, c);
  }
}

TEST_CASE("golden: truncated_tail keeps what the reference lost and reports the cut tails") {
  golden::temp_copy t("truncated_tail");
  auto m = cv::load_model(t.prof.string());
  REQUIRE(m.has_value());
  CHECK(m->apis.size() == 3);  // slice_0 intact; the reference dropped all of them
  CHECK(m->mstx.size() == 2);  // the cut third record is not whole
  REQUIRE(m->warnings.size() == 2);
  bool api_warned = false, tx_warned = false;
  for (const auto& w : m->warnings) {
    // file, byte offset of the cut record, bytes present of the record size (17 resp. 100 cut off)
    api_warned |= w.find("unaging.api_event.data.slice_1") != std::string::npos &&
                  w.find("byte offset 0") != std::string::npos && w.find("23 of 40 bytes") != std::string::npos;
    tx_warned |= w.find("aging.additional.msproftx.slice_0") != std::string::npos &&
                 w.find("byte offset 512") != std::string::npos && w.find("156 of 256 bytes") != std::string::npos;
  }
  CHECK(api_warned);
  CHECK(tx_warned);

  golden::export_everything(t);
  // What the reference did export is identical...
  std::string e1, e2;
  const auto exp = golden::canonical_timeline(golden::slurp(golden::case_dir("truncated_tail") / "expected/msprof.json"), e1);
  const auto ours = golden::canonical_timeline(golden::slurp(golden::output(t.prof, "msprof", "json")), e2);
  CHECK(golden::minus(exp, ours).empty());
  // ...and the only additions are the CANN process with the 3 recovered APIs.
  const auto added = golden::minus(ours, exp);
  CHECK(added.size() == 3 + 2 + 3);  // process meta 3 + thread meta 2 + 3 X
  for (const auto& a : added) CHECK(a.find("pid:8274175,") != std::string::npos);
  const auto db = golden::canonical_db(t.prof / "msprof_T.db");
  const auto dbexp = golden::lines(golden::slurp(golden::case_dir("truncated_tail") / "expected/db.canonical.sql"));
  CHECK(golden::minus(dbexp, db).empty());
  const auto dbadd = golden::minus(db, dbexp);
  CHECK(dbadd.size() == 1 + 3 + 3);  // CREATE CANN_API, 3 rows, 3 new strings
  CHECK(!golden::output(t.prof, "api_statistic", "csv").empty());

  cv::export_options strict = golden::fixed_ts();
  strict.strict = true;
  auto r = cv::export_timeline(t.prof.string(), strict);
  REQUIRE(!r.has_value());
  CHECK(r.err().code == msprof::errc::truncated);
}

TEST_CASE("timeline: the streamed msprof JSON equals the event-list form byte for byte") {
  for (const char* c : golden::cases) {
    CAPTURE(c);
    golden::temp_copy t(c);
    auto m = cv::load_model(t.prof.string());
    REQUIRE(m.has_value());
    REQUIRE(cv::export_timeline(*m, golden::fixed_ts()).has_value());
    CHECK(golden::slurp(golden::output(t.prof, "msprof", "json")) == cv::timeline_json(cv::build_timeline(*m)));
    if (!m->mstx.empty()) {
      std::vector<cv::trace_event> tx;
      cv::build_mstx_events(*m, tx);
      CHECK(golden::slurp(golden::output(t.prof, "msprof_tx", "json")) == cv::timeline_json(tx));
    }
  }
}

namespace {

/// Rows of a query, cells joined by '|' (REAL as %.17g), one line each.
std::string query_lines(const golden::fs::path& db_path, const char* sql) {
  sqlite3* db = nullptr;
  std::string out;
  if (sqlite3_open_v2(db_path.string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return "cannot open " + db_path.string();
  }
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) out = std::string("bad query: ") + sqlite3_errmsg(db);
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      if (i) out += '|';
      if (sqlite3_column_type(st, i) == SQLITE_FLOAT) {
        char b[40];
        std::snprintf(b, sizeof b, "%.17g", sqlite3_column_double(st, i));
        out += b;
      } else if (const auto* t = sqlite3_column_text(st, i)) {
        out += reinterpret_cast<const char*>(t);
      }
    }
    out += '\n';
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

/// The case's COMMUNICATION_OP and COMMUNICATION_TASK_INFO rows, and its overlap lanes, equal the reference's.
void check_communication_db(const char* c) {
  golden::temp_copy t(c);
  golden::export_everything(t);
  const auto db = t.prof / "msprof_T.db";
  // String ids and global task ids are numbered in registration order, so the
  // rows are compared by what they name (expected/communication_db.txt).
  const std::string got =
      query_lines(db,
                  "SELECT n.value, o.startNs, o.endNs, o.connectionId, g.value, o.relay, o.retry, o.dataType, a.value, "
                  "o.count, ty.value, o.deviceId, o.rankSize FROM COMMUNICATION_OP o JOIN STRING_IDS n ON n.id = "
                  "o.opName JOIN STRING_IDS g ON g.id = o.groupName JOIN STRING_IDS a ON a.id = o.algType JOIN "
                  "STRING_IDS ty ON ty.id = o.opType ORDER BY o.startNs") +
      query_lines(db,
                  "SELECT n.value, k.streamId, k.taskId, ty.value, c.planeId, c.notifyId, c.rdmaType, c.srcRank, "
                  "c.dstRank, c.transportType, c.size, c.dataType, c.linkType, opn.value, c.isMaster, c.bandwidth "
                  "FROM COMMUNICATION_TASK_INFO c JOIN TASK k ON k.globalTaskId = c.globalTaskId JOIN STRING_IDS n "
                  "ON n.id = c.name JOIN STRING_IDS ty ON ty.id = c.taskType JOIN COMMUNICATION_OP o ON o.opId = "
                  "c.opId JOIN STRING_IDS opn ON opn.id = o.opName ORDER BY k.startNs");
  CHECK(got == golden::slurp(golden::case_dir(c) / "expected" / "communication_db.txt"));
  // The overlap lanes: communication (1), not overlapped (2) and free (3) as the reference has them.
  const char* lanes = "SELECT deviceId, startNs, endNs, type FROM OVERLAP_ANALYSIS ORDER BY type, startNs";
  sqlite3* ref = nullptr;
  REQUIRE(sqlite3_open(":memory:", &ref) == SQLITE_OK);
  const std::string dump = golden::slurp(golden::case_dir(c) / "expected" / "db.sql");
  REQUIRE(sqlite3_exec(ref, dump.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
  std::string want;
  sqlite3_exec(
      ref, lanes,
      [](void* w, int n, char** v, char**) {
        auto& s = *static_cast<std::string*>(w);
        for (int i = 0; i < n; ++i) s += std::string(i ? "|" : "") + (v[i] ? v[i] : "");
        s += '\n';
        return 0;
      },
      &want, nullptr);
  sqlite3_close(ref);
  CHECK(want.find("|1\n") != std::string::npos);
  CHECK(query_lines(db, lanes) == want);
}

}  // namespace

TEST_CASE("golden: the HCCL cases' db communication tables, strings and tasks resolved, equal the reference's") {
  for (const char* c : {"hccl_allreduce", "hccl_groups"}) {
    CAPTURE(c);
    check_communication_db(c);
  }
}
