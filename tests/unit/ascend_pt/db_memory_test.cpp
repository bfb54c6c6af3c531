// SPDX-License-Identifier: MIT
// The db export's MEMORY_RECORD, OP_MEMORY and GC_RECORD (torch_npu's
// MemoryDbParser and GCRecordDbParser): the rows of the text export's
// memory_record.csv and operator_memory.csv (golden-pt case pt_memory) in the
// db's units, and garbage collections added to a case.
#include <doctest/doctest.h>
#include <sqlite3.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../../support/generated_pt.hpp"
#include "pt_case.hpp"

namespace fs = std::filesystem;
namespace pt = msprof::convert::ascend_pt;

namespace {

using rows = std::vector<std::vector<std::string>>;

/// `sql`'s rows, each cell as text ("NULL" for NULL; integers as integers, anything else marked).
rows query(const fs::path& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(db_path.string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE_MESSAGE(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK, sqlite3_errmsg(db));
  rows out;
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::vector<std::string> r;
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      switch (sqlite3_column_type(st, i)) {
        case SQLITE_NULL:
          r.emplace_back("NULL");
          break;
        case SQLITE_INTEGER:
          r.push_back(std::to_string(sqlite3_column_int64(st, i)));
          break;
        default:
          r.push_back("not an integer: " + std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, i))));
      }
    }
    out.push_back(std::move(r));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

/// The CSV's data rows (CRLF lines, no quoted cells in these tables).
rows read_csv(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string line;
  rows out;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> r;
    std::stringstream s(line);
    std::string c;
    while (std::getline(s, c, ',')) r.push_back(c);
    if (!line.empty() && line.back() == ',') r.emplace_back();
    out.push_back(std::move(r));
  }
  return out;
}

/// The db's values of text cells: "…080.000\t" us -> ns, MB or KB -> bytes, "NPU:0" -> 0, "" -> NULL.
std::string ns_of(const std::string& us) {
  if (us.empty()) return "NULL";
  const auto dot = us.find('.');
  REQUIRE(dot != std::string::npos);
  std::string frac = us.substr(dot + 1, 3);
  return std::to_string(std::stoll(us.substr(0, dot)) * 1000 + std::stoll(frac));
}
std::string bytes_of(const std::string& v, double unit) {
  if (v.empty()) return "NULL";
  return std::to_string(std::llround(std::stod(v) * unit));
}
std::string device_of(const std::string& tag) {
  REQUIRE(tag.rfind("NPU:", 0) == 0);
  return tag.substr(4);
}

/// STRING_IDS' ids -> values.
std::map<std::string, std::string> strings(const fs::path& db) {
  std::map<std::string, std::string> out;
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.string().c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(h, "SELECT id, value FROM STRING_IDS", -1, &st, nullptr) == SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW)
    out[std::to_string(sqlite3_column_int64(st, 0))] = reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

/// Shows the first row where `got` and `want` differ.
void first_difference(const rows& got, const rows& want) {
  for (std::size_t i = 0; i < got.size() && i < want.size(); ++i) {
    if (got[i] == want[i]) continue;
    CAPTURE(i);
    for (std::size_t j = 0; j < got[i].size() && j < want[i].size(); ++j) {
      CAPTURE(j);
      CHECK(got[i][j] == want[i][j]);
    }
    return;
  }
}

/// MEMORY_RECORD and OP_MEMORY of `db` hold the rows of memory_record.csv and
/// operator_memory.csv in `expected`, in order, in the db's units; the counts
/// of rows found (records, ops).
std::pair<std::size_t, std::size_t> check_memory_tables(const fs::path& db, const fs::path& expected) {
  const auto ids = strings(db);
  const auto text_of = [&](const std::string& id) {
    if (id == "4294967295") return std::string();  // torch_npu's id of ""
    REQUIRE_MESSAGE(ids.count(id), "no STRING_IDS row " << id);
    return ids.at(id);
  };

  // The columns as torch_npu declares them.
  const auto info = [&](const std::string& table) {
    sqlite3* h = nullptr;
    REQUIRE(sqlite3_open_v2(db.string().c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(h, ("PRAGMA table_info(" + table + ")").c_str(), -1, &st, nullptr) == SQLITE_OK);
    std::vector<std::string> out;
    while (sqlite3_step(st) == SQLITE_ROW)
      out.push_back(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, 1))) + " " +
                    reinterpret_cast<const char*>(sqlite3_column_text(st, 2)));
    sqlite3_finalize(st);
    sqlite3_close(h);
    return out;
  };
  CHECK(info("MEMORY_RECORD") ==
        std::vector<std::string>{"component INTEGER", "timestamp INTEGER", "totalAllocated INTEGER",
                                 "totalReserved INTEGER", "totalActive INTEGER", "streamPtr INTEGER",
                                 "deviceId INTEGER"});
  CHECK(info("OP_MEMORY") ==
        std::vector<std::string>{"name INTEGER",
                                 "size INTEGER",
                                 "allocationTime INTEGER",
                                 "releaseTime INTEGER",
                                 "activeReleaseTime INTEGER",
                                 "duration INTEGER",
                                 "activeDuration INTEGER",
                                 "allocationTotalAllocated INTEGER",
                                 "allocationTotalReserved INTEGER",
                                 "allocationTotalActive INTEGER",
                                 "releaseTotalAllocated INTEGER",
                                 "releaseTotalReserved INTEGER",
                                 "releaseTotalActive INTEGER",
                                 "streamPtr INTEGER",
                                 "deviceId INTEGER"});

  constexpr double mb = 1024.0 * 1024.0;
  rows want_records;
  for (const auto& c : read_csv(expected / "memory_record.csv")) {
    REQUIRE(c.size() == 7);
    want_records.push_back({c[0], ns_of(c[1]), bytes_of(c[2], mb), bytes_of(c[3], mb), bytes_of(c[4], mb), c[5],
                            device_of(c[6])});
  }
  rows got_records = query(db, "SELECT * FROM MEMORY_RECORD ORDER BY rowid");
  for (auto& g : got_records) g[0] = text_of(g[0]);
  first_difference(got_records, want_records);
  CHECK(got_records == want_records);

  rows want_ops;
  for (const auto& c : read_csv(expected / "operator_memory.csv")) {
    REQUIRE(c.size() == 15);
    std::vector<std::string> w = {c[0], bytes_of(c[1], 1024.0)};
    for (int i = 2; i <= 6; ++i) w.push_back(ns_of(c[static_cast<std::size_t>(i)]));
    for (int i = 7; i <= 12; ++i) w.push_back(bytes_of(c[static_cast<std::size_t>(i)], mb));
    w.push_back(c[13]);
    w.push_back(device_of(c[14]));
    want_ops.push_back(std::move(w));
  }
  rows got_ops = query(db, "SELECT * FROM OP_MEMORY ORDER BY rowid");
  for (auto& g : got_ops) g[0] = text_of(g[0]);
  first_difference(got_ops, want_ops);
  CHECK(got_ops == want_ops);

  return {want_records.size(), want_ops.size()};
}

}  // namespace

TEST_CASE("ascend_pt db: MEMORY_RECORD and OP_MEMORY hold memory_record.csv's and operator_memory.csv's rows") {
  temp_dir tmp("pt_db_memory");
  const fs::path dir = copy_case(tmp, "pt_memory");
  auto r = pt::analyse(dir.string(), {"db"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const fs::path db = dir / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db";
  REQUIRE(fs::exists(db));
  const fs::path expected = fs::path(MSPROF_TEST_DATA_DIR) / "golden-pt" / "pt_memory" / "expected";
  const auto [records, ops] = check_memory_tables(db, expected);
  CHECK(records == 14);
  CHECK(ops == 7);
  const auto ids = strings(db);
  // Their strings are numbered from 2 << 28 in torch_npu's order: components, then op names.
  const auto id_of = [&](const std::string& v) {
    for (const auto& [id, s] : ids)
      if (s == v && std::stoll(id) >= (2LL << 28)) return std::stoll(id);
    return -1LL;
  };
  // WORKSPACE too, though no record is one: torch_npu's merge (_combine_record) asks for its id for every record.
  CHECK(id_of("PTA") == (2LL << 28));
  CHECK(id_of("WORKSPACE") == (2LL << 28) + 1);
  CHECK(id_of("PTA+GE") == (2LL << 28) + 2);
  CHECK(id_of("aten::mm") == (2LL << 28) + 3);
  CHECK(id_of("aten::add") == (2LL << 28) + 4);

  // No torch.gc_record file: no GC_RECORD.
  CHECK(query(db, "SELECT name FROM sqlite_master WHERE name = 'GC_RECORD'").empty());
}

TEST_CASE("ascend_pt db: GC_RECORD holds the torch.gc_record spans, and no memory table comes without memory records") {
  temp_dir tmp("pt_db_gc");
  const fs::path dir = copy_case(tmp, "pt_text_steps");
  // Raw records: pid, start, end (monotonic ns; the collection starts at raw 1e12 = local 1767268800000000 us).
  std::string bytes;
  const auto put = [&](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes += static_cast<char>((v >> (8 * i)) & 0xff);
  };
  const std::uint64_t raw_start = 1000000000000ull;
  put(6060), put(raw_start + 300000), put(raw_start + 310000);
  put(6061), put(raw_start + 50000), put(raw_start + 52500);
  std::ofstream(dir / "FRAMEWORK" / "torch.gc_record", std::ios::binary) << bytes;
  auto r = pt::analyse(dir.string(), {"db"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  const fs::path db = dir / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db";
  const long long local = 1767268800000000000LL;
  const auto gtid = [](long long pid) { return std::to_string((pid << 32) | pid); };
  CHECK(query(db, "SELECT * FROM GC_RECORD ORDER BY rowid") ==
        rows{{std::to_string(local + 300000), std::to_string(local + 310000), gtid(6060)},
             {std::to_string(local + 50000), std::to_string(local + 52500), gtid(6061)}});
  CHECK(query(db, "SELECT name FROM sqlite_master WHERE name IN ('MEMORY_RECORD', 'OP_MEMORY')").empty());
}

TEST_CASE("ascend_pt db: MEMORY_RECORD and OP_MEMORY equal the text export's rows with frees and block frees") {
  // Per launch two allocations: one freed, one freed and block-freed (tests/support/generated_pt.hpp).
  constexpr std::uint64_t launches = 300;
  temp_dir tmp("pt_db_memory_gen");
  fs::path out[2];
  for (int k = 0; k < 2; ++k) {
    const generated_pt::written w = generated_pt::generate(tmp / (k ? "db" : "text"), 4 * launches);
    auto r = pt::analyse(w.dir.string(), {k ? "db" : "text"});
    REQUIRE_MESSAGE(r.has_value(), r.err().what());
    out[k] = w.dir / "ASCEND_PROFILER_OUTPUT";
  }
  // The text has release times and totals to compare.
  const std::string ops_csv = read_text(out[0] / "operator_memory.csv");
  REQUIRE(ops_csv.find(",,") != std::string::npos);
  const auto [records, ops] = check_memory_tables(out[1] / "ascend_pytorch_profiler_0.db", out[0]);
  CHECK(records == 2 * 5 * launches);  // a PTA and a PTA+GE row per record
  CHECK(ops == 2 * launches);
  const rows released = query(out[1] / "ascend_pytorch_profiler_0.db",
                              "SELECT count(releaseTime), count(activeReleaseTime), count(releaseTotalActive) "
                              "FROM OP_MEMORY");
  CHECK(released == rows{{std::to_string(2 * launches), std::to_string(launches), std::to_string(2 * launches)}});
}

TEST_CASE("ascend_pt db: the memory components are numbered as the records show them, PTA+GE last") {
  // pt_memory with a workspace allocation (component 1) after its first record: torch_npu registers the
  // components as the records (by time) first show them, then PTA+GE (not in row order: PTA, PTA+GE, WORKSPACE).
  const temp_dir tmp[2] = {temp_dir("pt_db_workspace_text"), temp_dir("pt_db_workspace_db")};
  fs::path out[2];
  for (int k = 0; k < 2; ++k) {
    const fs::path dir = copy_case(tmp[k], "pt_memory");
    msprof::codec::framework::memory_usage u;
    u.ptr = 77;
    u.time = 1000000000000 + 90000;  // raw monotonic ns: 90 us after the collection start, after the first record
    u.alloc_size = 4096;
    u.total_allocated = u.total_active = 4096;
    u.total_reserved = 1 << 20;
    u.stream_ptr = 2748;
    u.device_type = 20;
    u.component_type = 1;  // workspace
    u.tid = 6000;
    u.pid = 6060;
    std::string bytes;
    msprof::codec::framework::encode(u, bytes);
    std::ofstream(dir / "FRAMEWORK" / "torch.memory_usage", std::ios::binary | std::ios::app) << bytes;
    auto r = pt::analyse(dir.string(), {k ? "db" : "text"});
    REQUIRE_MESSAGE(r.has_value(), r.err().what());
    out[k] = dir / "ASCEND_PROFILER_OUTPUT";
  }
  REQUIRE(read_text(out[0] / "memory_record.csv").find("\r\nWORKSPACE,1767268800000090.000\t,") != std::string::npos);
  const fs::path db = out[1] / "ascend_pytorch_profiler_0.db";
  const auto [records, ops] = check_memory_tables(db, out[0]);
  CHECK(records == 15);
  CHECK(ops >= 7);
  const auto ids = strings(db);
  const auto value_at = [&](long long id) {
    const auto it = ids.find(std::to_string(id));
    return it == ids.end() ? std::string("none") : it->second;
  };
  CHECK(value_at(2LL << 28) == "PTA");
  CHECK(value_at((2LL << 28) + 1) == "WORKSPACE");
  CHECK(value_at((2LL << 28) + 2) == "PTA+GE");
}
