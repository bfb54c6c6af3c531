// SPDX-License-Identifier: MIT
// The db export of ascend_pt::analyse against torch_npu's own dbs (golden-pt
// cases pt_db and pt_mstx): every table and column of the expected is there,
// and each table holds the same rows as a multiset. torch_npu's dbs differ from
// run to run in row order, STRING_IDS numbering and the connection, global
// task and call chain ids (tests/golden-pt/README.md), so rows are compared
// with string ids resolved and those ids replaced by the rows they link.
#include <doctest/doctest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <set>
#include <string>
#include <vector>

#include "pt_case.hpp"

namespace fs = std::filesystem;
namespace pt = msprof::convert::ascend_pt;

namespace {

using row = std::vector<std::string>;

struct table {
  std::vector<std::string> columns;
  std::vector<row> rows;
  std::size_t col(const std::string& name) const {
    return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
  }
};

using database = std::map<std::string, table>;

/// A cell as text with its storage class, so 1, 1.0 and '1' stay apart.
std::string cell(sqlite3_stmt* st, int i) {
  switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER:
      return "i:" + std::to_string(sqlite3_column_int64(st, i));
    case SQLITE_FLOAT: {
      char buf[40];
      std::snprintf(buf, sizeof buf, "r:%.17g", sqlite3_column_double(st, i));
      return buf;
    }
    case SQLITE_NULL:
      return "null";
    default:
      return "t:" + std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, i)));
  }
}

database read_db(const fs::path& path) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  const auto query = [&](const std::string& sql, auto&& each) {
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) each(st);
    sqlite3_finalize(st);
  };
  database out;
  std::vector<std::string> names;
  query("SELECT name FROM sqlite_master WHERE type='table'",
        [&](sqlite3_stmt* st) { names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))); });
  for (const auto& n : names) {
    table& t = out[n];
    query("SELECT * FROM \"" + n + "\"", [&](sqlite3_stmt* st) {
      if (t.columns.empty())
        for (int i = 0; i < sqlite3_column_count(st); ++i) t.columns.emplace_back(sqlite3_column_name(st, i));
      row r;
      for (int i = 0; i < sqlite3_column_count(st); ++i) r.push_back(cell(st, i));
      t.rows.push_back(std::move(r));
    });
    if (t.columns.empty())
      query("PRAGMA table_info(\"" + n + "\")", [&](sqlite3_stmt* st) {
        t.columns.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 1)));
      });
  }
  sqlite3_close(db);
  return out;
}

/// Columns holding STRING_IDS ids.
const std::map<std::string, std::set<std::string>> string_columns = {
    {"CANN_API", {"name"}},
    {"TASK", {"taskType"}},
    {"COMPUTE_TASK_INFO",
     {"name", "taskType", "opType", "inputFormats", "inputDataTypes", "inputShapes", "outputFormats", "outputDataTypes",
      "outputShapes", "attrInfo", "opState", "hf32Eligible", "gridDim", "blockDim"}},
    {"TASK_PMU_INFO", {"name"}},
    {"MSTX_EVENTS", {"message", "domainId"}},
    {"PYTORCH_API", {"name", "inputDtypes", "inputShapes"}},
    {"PYTORCH_CALLCHAINS", {"stack"}},
};

std::string join(const std::vector<std::string>& v) {
  std::string s = "(";
  for (const auto& x : v) s += x + "|";
  return s + ")";
}

/// The cells of `r` but those at `skip`.
std::string key_of(const row& r, const std::vector<std::size_t>& skip) {
  row k;
  for (std::size_t i = 0; i < r.size(); ++i)
    if (std::find(skip.begin(), skip.end(), i) == skip.end()) k.push_back(r[i]);
  return join(k);
}

/// String ids resolved; global task ids replaced by their TASK row, CANN
/// connection ids by their CANN_API or MSTX_EVENTS row, CONNECTION_IDS ids by
/// the list of (resolved) connection ids they stand for, call chain ids by
/// their frames; STRING_IDS compared by value alone. Rows sorted.
database normalise(database db) {
  std::map<std::string, std::string> strings;
  for (const auto& r : db["STRING_IDS"].rows) strings[r[0]] = "s:" + r[1].substr(2);
  for (auto& [name, t] : db) {
    const auto cols = string_columns.find(name);
    if (cols == string_columns.end()) continue;
    for (const auto& c : cols->second) {
      const std::size_t i = t.col(c);
      for (auto& r : t.rows)
        if (i < r.size() && r[i] != "null") r[i] = strings.count(r[i]) ? strings[r[i]] : "unresolved " + r[i];
    }
  }
  // Renumberable ids -> what they link.
  std::map<std::string, std::string> task_key, conn_key;
  const auto keys_from = [&](const std::string& tname, const std::vector<std::string>& ids, const std::string& id,
                             std::map<std::string, std::string>& into) {
    table& t = db[tname];
    std::vector<std::size_t> skip;
    for (const auto& c : ids) skip.push_back(t.col(c));
    for (const auto& r : t.rows) into[r[t.col(id)]] = tname + key_of(r, skip);
  };
  keys_from("TASK", {"globalTaskId", "connectionId"}, "globalTaskId", task_key);
  keys_from("CANN_API", {"connectionId"}, "connectionId", conn_key);
  keys_from("MSTX_EVENTS", {"connectionId"}, "connectionId", conn_key);
  const auto replace = [](table& t, const std::string& c, const std::map<std::string, std::string>& by) {
    const std::size_t i = t.col(c);
    for (auto& r : t.rows)
      if (i < r.size() && by.count(r[i])) r[i] = by.at(r[i]);
  };
  for (const char* t : {"TASK", "COMPUTE_TASK_INFO", "TASK_PMU_INFO"}) replace(db[t], "globalTaskId", task_key);
  for (const char* t : {"TASK", "CANN_API", "MSTX_EVENTS", "CONNECTION_IDS"}) replace(db[t], "connectionId", conn_key);
  std::map<std::string, std::vector<std::string>> groups, chains;
  for (const auto& r : db["CONNECTION_IDS"].rows) groups[r[0]].push_back(r[1]);
  for (auto& [id, g] : groups) std::sort(g.begin(), g.end());
  for (const auto& r : db["PYTORCH_CALLCHAINS"].rows) {
    auto& c = chains[r[0]];
    c.push_back(r[2] + "=" + r[1]);
  }
  for (auto& [id, c] : chains) std::sort(c.begin(), c.end());
  const auto by_list = [](const std::map<std::string, std::vector<std::string>>& m) {
    std::map<std::string, std::string> out;
    for (const auto& [id, v] : m) out[id] = join(v);
    return out;
  };
  const auto group_key = by_list(groups), chain_key = by_list(chains);
  replace(db["CONNECTION_IDS"], "id", group_key);
  replace(db["PYTORCH_CALLCHAINS"], "id", chain_key);
  replace(db["PYTORCH_API"], "connectionId", group_key);
  replace(db["PYTORCH_API"], "callchainId", chain_key);
  for (auto& r : db["STRING_IDS"].rows) r = {r[1]};
  for (auto it = db.begin(); it != db.end();) {
    // db[] above made empty entries for tables a file does not have.
    if (it->second.columns.empty() && it->second.rows.empty()) {
      it = db.erase(it);
      continue;
    }
    std::sort(it->second.rows.begin(), it->second.rows.end());
    ++it;
  }
  return db;
}

/// Every difference of `ours` from `expected` (tables, columns, rows), one a line.
std::vector<std::string> differences(const database& ours, const database& expected) {
  std::vector<std::string> out;
  for (const auto& [name, e] : expected) {
    const auto o = ours.find(name);
    if (o == ours.end()) {
      out.push_back("missing table " + name);
      continue;
    }
    if (o->second.columns != e.columns)
      out.push_back(name + ": columns " + join(o->second.columns) + " expected " + join(e.columns));
    std::vector<row> extra, missing;
    std::set_difference(o->second.rows.begin(), o->second.rows.end(), e.rows.begin(), e.rows.end(),
                        std::back_inserter(extra));
    std::set_difference(e.rows.begin(), e.rows.end(), o->second.rows.begin(), o->second.rows.end(),
                        std::back_inserter(missing));
    for (const auto& r : extra) out.push_back(name + ": extra row " + join(r));
    for (const auto& r : missing) out.push_back(name + ": missing row " + join(r));
  }
  for (const auto& [name, t] : ours)
    if (!expected.count(name)) out.push_back("extra table " + name);
  return out;
}

/// `PRAGMA integrity_check`'s answer: "ok", or its first problem. The
/// framework tables are written as SQLite pages (sqlite_pages.hpp), not inserted.
std::string golden_pt_integrity(const fs::path& path) {
  sqlite3* db = nullptr;
  std::string out = "cannot open";
  if (sqlite3_open_v2(path.string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

/// ENV_VARIABLES holds the analysing process's values of these (torch_npu's
/// collect_env_vars); the golden run had none set.
void clear_recorded_env() {
  for (const char* n :
       {"ASCEND_GLOBAL_LOG_LEVEL", "HCCL_RDMA_TC", "HCCL_RDMA_SL", "ACLNN_CACHE_LIMIT", "HOST_CACHE_CAPACITY",
        "ASCEND_ENHANCE_ENABLE", "PYTORCH_NPU_ALLOC_CONF", "ASCEND_LAUNCH_BLOCKING", "HCCL_ALGO"})
    ::unsetenv(n);
}

}  // namespace

TEST_CASE("golden-pt: the db export equals torch_npu's dbs table by table, row by row") {
  clear_recorded_env();
  for (const char* c : {"pt_db", "pt_mstx"}) {
    CAPTURE(c);
    temp_dir tmp("golden_pt_db");
    const fs::path dir = copy_case(tmp, c);
    auto r = pt::analyse(dir.string());  // the export types profiler_info asks for
    REQUIRE_MESSAGE(r.has_value(), r.err().what());
    CHECK(r->warnings.empty());
    const fs::path out = dir / "ASCEND_PROFILER_OUTPUT";
    const fs::path expected = fs::path(MSPROF_TEST_DATA_DIR) / "golden-pt" / c / "expected";
    for (const char* db : {"ascend_pytorch_profiler_0.db", "analysis.db"}) {
      CAPTURE(db);
      REQUIRE(fs::exists(out / db));
      CHECK(golden_pt_integrity(out / db) == "ok");
      const auto diff = differences(normalise(read_db(out / db)), normalise(read_db(expected / db)));
      for (const auto& d : diff) MESSAGE(d);
      CHECK(diff.empty());
    }
    CHECK(fs::exists(out / "analyse.done"));
    // pt_mstx's profiler_info asks for text and db: its text files come too (equal), pt_db's none.
    for (const auto& e : fs::directory_iterator(out)) {
      if (e.path().extension() != ".csv") continue;
      CAPTURE(e.path());
      REQUIRE(fs::exists(expected / e.path().filename()));
      CHECK(read_text(e.path()) == read_text(expected / e.path().filename()));
    }
    for (const auto& e : fs::directory_iterator(expected))
      if (e.path().extension() == ".csv") CHECK(fs::exists(out / e.path().filename()));
  }
}

TEST_CASE("golden-pt: the db comparison sees a missing, an extra and a changed row") {
  clear_recorded_env();
  temp_dir tmp("golden_pt_db_neg");
  const fs::path dir = copy_case(tmp, "pt_db");
  REQUIRE(pt::analyse(dir.string(), {"db"}).has_value());
  const fs::path ours = dir / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db";
  const auto expected = normalise(
      read_db(fs::path(MSPROF_TEST_DATA_DIR) / "golden-pt" / "pt_db" / "expected" / "ascend_pytorch_profiler_0.db"));
  REQUIRE(differences(normalise(read_db(ours)), expected).empty());
  for (const char* sql :
       {"DELETE FROM PYTORCH_API WHERE rowid = 3", "INSERT INTO STEP_TIME SELECT * FROM STEP_TIME LIMIT 1",
        "UPDATE CONNECTION_IDS SET connectionId = connectionId + 1 WHERE rowid = 1",
        "UPDATE PYTORCH_CALLCHAINS SET stackDepth = 7 WHERE rowid = 2",
        "UPDATE TASK SET streamId = 9 WHERE rowid = 1"}) {
    CAPTURE(sql);
    const fs::path changed = tmp / "changed.db";
    fs::copy_file(ours, changed, fs::copy_options::overwrite_existing);
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(changed.string().c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    CHECK_FALSE(differences(normalise(read_db(changed)), expected).empty());
  }
}
