// SPDX-License-Identifier: MIT
// msprof_<ts>.db: SQLite, schema 1.2.0 as written by msprof 9ba1ac7be
// (export_unified_db). Strings are ids into STRING_IDS, registered in the
// order the reference registers them, so ids match its output.
#ifndef MSPROF_CONVERT_DB_HPP
#define MSPROF_CONVERT_DB_HPP

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "../core/error.hpp"
#include "model.hpp"
#include "summary.hpp"
#include "timeline.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

namespace detail {

/// STRING_IDS in registration order.
class string_ids {
 public:
  string_ids() {
    (void)id("release");
    (void)id("allocate");
  }
  std::int64_t id(const std::string& s) {
    auto it = map_.find(s);
    if (it != map_.end()) return it->second;
    const auto n = static_cast<std::int64_t>(values_.size());
    map_.emplace(s, n);
    values_.push_back(s);
    return n;
  }
  const std::vector<std::string>& values() const noexcept { return values_; }

 private:
  std::unordered_map<std::string, std::int64_t> map_;
  std::vector<std::string> values_;
};

using db_value = std::variant<std::int64_t, double, std::string>;

class sqlite_db {
 public:
  explicit sqlite_db(std::string path) : path_(std::move(path)) {}
  ~sqlite_db() {
    if (db_) sqlite3_close(db_);
  }
  sqlite_db(const sqlite_db&) = delete;
  sqlite_db& operator=(const sqlite_db&) = delete;

  result<void> open() {
    if (sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK)
      return fail("cannot create database");
    return exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; "
                "PRAGMA cache_size=-65536; BEGIN");
  }
  result<void> exec(const std::string& sql) {
    char* msg = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
      std::string m = msg ? msg : "unknown";
      sqlite3_free(msg);
      return make_error(errc::io, path_ + ": sqlite: " + m + " in `" + sql.substr(0, 80) + "`");
    }
    return {};
  }
  result<void> insert(const std::string& table, std::size_t ncols, const std::vector<std::vector<db_value>>& rows) {
    if (rows.empty()) return {};
    std::string sql = "INSERT INTO " + table + " VALUES(";
    for (std::size_t i = 0; i < ncols; ++i) sql += i ? ",?" : "?";
    sql += ")";
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return fail("prepare " + table);
    for (const auto& row : rows) {
      for (std::size_t i = 0; i < ncols && i < row.size(); ++i) {
        const int c = static_cast<int>(i + 1);
        if (auto* iv = std::get_if<std::int64_t>(&row[i]))
          sqlite3_bind_int64(st, c, *iv);
        else if (auto* dv = std::get_if<double>(&row[i]))
          sqlite3_bind_double(st, c, *dv);
        else {
          const auto& s = std::get<std::string>(row[i]);
          sqlite3_bind_text(st, c, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
        }
      }
      if (sqlite3_step(st) != SQLITE_DONE) {
        sqlite3_finalize(st);
        return fail("insert into " + table);
      }
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return {};
  }
  sqlite3* handle() const noexcept { return db_; }
  result<void> close() {
    MSPROF_TRY(exec("COMMIT"));
    if (sqlite3_close(db_) != SQLITE_OK) return fail("close");
    db_ = nullptr;
    return {};
  }

 private:
  error fail(const std::string& what) {
    return make_error(errc::io, path_ + ": sqlite " + what + ": " + (db_ ? sqlite3_errmsg(db_) : "no handle"));
  }
  std::string path_;
  sqlite3* db_ = nullptr;
};

struct db_table_def;
inline const db_table_def* db_tables();

/// Rows go straight into a prepared INSERT (nothing is buffered).
class table_sink {
 public:
  table_sink(sqlite3* db, std::string name, std::size_t ncols, result<void>* status)
      : db_(db), name_(std::move(name)), ncols_(ncols), status_(status) {
    std::string sql = "INSERT INTO " + name_ + " VALUES(";
    for (std::size_t i = 0; i < ncols_; ++i) sql += i ? ",?" : "?";
    sql += ")";
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st_, nullptr) != SQLITE_OK) fail("prepare");
  }
  ~table_sink() {
    if (st_) sqlite3_finalize(st_);
    if (batch_st_) sqlite3_finalize(batch_st_);
  }
  table_sink(const table_sink&) = delete;
  table_sink& operator=(const table_sink&) = delete;
  /// Inserts N rows with one statement: SQLite's per-statement work dominated
  /// tables that get many rows per task (TASK_PMU_INFO: 30).
  template <std::size_t N, class... Args>
  void rows(const std::array<std::tuple<Args...>, N>& rs) {
    if (!st_ || !*status_) return;
    if (!batch_st_) {
      std::string sql = "INSERT INTO " + name_ + " VALUES";
      for (std::size_t r = 0; r < N; ++r) {
        sql += r ? ",(" : "(";
        for (std::size_t i = 0; i < ncols_; ++i) sql += i ? ",?" : "?";
        sql += ")";
      }
      if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &batch_st_, nullptr) != SQLITE_OK) return fail("prepare");
    }
    int c = 0;
    for (const auto& r : rs) std::apply([&](const auto&... v) { (bind(batch_st_, ++c, v), ...); }, r);
    if (sqlite3_step(batch_st_) != SQLITE_DONE) fail("insert into");
    sqlite3_reset(batch_st_);
  }
  void push_back(const std::vector<db_value>& row) {
    if (!st_ || !*status_) return;
    for (std::size_t i = 0; i < ncols_ && i < row.size(); ++i)
      std::visit([&](const auto& v) { bind(st_, static_cast<int>(i + 1), v); }, row[i]);
    if (sqlite3_step(st_) != SQLITE_DONE) fail("insert into");
    sqlite3_reset(st_);
  }

 private:
  static void bind(sqlite3_stmt* st, int c, std::int64_t v) { sqlite3_bind_int64(st, c, v); }
  static void bind(sqlite3_stmt* st, int c, double v) { sqlite3_bind_double(st, c, v); }
  static void bind(sqlite3_stmt* st, int c, const std::string& v) {
    sqlite3_bind_text(st, c, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void fail(const char* what) {
    if (*status_) *status_ = make_error(errc::io, std::string("sqlite ") + what + " " + name_ + ": " + sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  std::string name_;
  std::size_t ncols_;
  result<void>* status_;
  sqlite3_stmt* st_ = nullptr;
  sqlite3_stmt* batch_st_ = nullptr;  ///< rows(): N rows per statement
};

struct db_table_def {
  const char* name;
  const char* columns;  // as in the reference's CREATE TABLE
  std::size_t ncols;
};

inline const db_table_def* db_tables() {
  static const db_table_def defs[] = {
      {"AICORE_FREQ", "deviceId INTEGER, timestampNs NUMERIC, freq INTEGER, dieId NUMERIC", 4},
      {"CANN_API", "startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER, connectionId INTEGER PRIMARY KEY, name INTEGER", 6},
      {"COMPUTE_TASK_INFO",
       "name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockNum INTEGER, mixBlockNum INTEGER, taskType INTEGER, "
       "opType INTEGER, inputFormats INTEGER, inputDataTypes INTEGER, inputShapes INTEGER, outputFormats INTEGER, "
       "outputDataTypes INTEGER, outputShapes INTEGER, attrInfo INTEGER, opState INTEGER, hf32Eligible INTEGER, "
       "gridDim INTEGER, blockDim INTEGER",
       17},
      {"HOST_INFO", "hostUid TEXT, hostName TEXT", 2},
      {"META_DATA", "name TEXT, value TEXT", 2},
      {"MSTX_EVENTS",
       "startNs INTEGER, endNs INTEGER, eventType INTEGER, rangeId INTEGER, category INTEGER, message INTEGER, "
       "globalTid INTEGER, endGlobalTid INTEGER, domainId INTEGER, connectionId INTEGER",
       10},
      {"NPU_INFO", "id INTEGER, name TEXT", 2},
      {"OVERLAP_ANALYSIS", "id INTEGER PRIMARY KEY, deviceId INTEGER, startNs NUMERIC, endNs NUMERIC, type INTEGER", 5},
      {"RANK_DEVICE_MAP", "rankId INTEGER, deviceId INTEGER", 2},
      {"SESSION_TIME_INFO", "startTimeNs INTEGER, endTimeNs INTEGER", 2},
      {"STRING_IDS", "id INTEGER PRIMARY KEY, value TEXT", 2},
      {"TASK",
       "startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER, "
       "globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER",
       11},
      {"TASK_PMU_INFO", "globalTaskId INTEGER, name INTEGER, value NUMERIC", 3},
      {nullptr, nullptr, 0}};
  return defs;
}

struct enum_row {
  std::int64_t id;
  const char* name;
};

inline std::vector<std::pair<const char*, std::vector<enum_row>>> db_enums() {
  const std::vector<enum_row> hccl_tail = {{255, "RESERVED"}, {65534, "N/A"}, {65535, "INVALID_TYPE"}};
  auto with_tail = [&](std::vector<enum_row> v) {
    v.insert(v.end(), hccl_tail.begin(), hccl_tail.end());
    return v;
  };
  return {
      {"ENUM_API_TYPE", {{5000, "runtime"}, {5500, "communication"}, {10000, "node"}, {15000, "model"}, {20000, "acl"}}},
      {"ENUM_HCCL_DATA_TYPE",
       {{0, "INT8"}, {1, "INT16"}, {2, "INT32"}, {3, "FP16"}, {4, "FP32"}, {5, "INT64"}, {6, "UINT64"},
        {7, "UINT8"}, {8, "UINT16"}, {9, "UINT32"}, {10, "FP64"}, {11, "BFP16"}, {12, "INT128"}, {14, "HIF8"},
        {15, "FP8E4M3"}, {16, "FP8E5M2"}, {17, "FP8E8M0"}, {255, "RESERVED"}, {65534, "N/A"}, {65535, "INVALID_TYPE"}}},
      {"ENUM_HCCL_LINK_TYPE",
       with_tail({{0, "ON_CHIP"}, {1, "HCCS"}, {2, "PCIE"}, {3, "ROCE"}, {4, "SIO"}, {5, "HCCS_SW"},
                  {6, "STANDARD_ROCE"}, {7, "UB"}, {8, "UBoE"}})},
      {"ENUM_HCCL_RDMA_TYPE", with_tail({{0, "RDMA_SEND_NOTIFY"}, {1, "RDMA_SEND_PAYLOAD"}})},
      {"ENUM_HCCL_TRANSPORT_TYPE", with_tail({{0, "SDMA"}, {1, "RDMA"}, {2, "LOCAL"}, {3, "UB"}, {4, "ROCE"}})},
      {"ENUM_MEMCPY_OPERATION",
       {{0, "host to host"}, {1, "host to device"}, {2, "device to host"}, {3, "device to device"},
        {4, "managed memory"}, {5, "addr device to device"}, {6, "host to device ex"}, {7, "device to host ex"},
        {65535, "other"}}},
      {"ENUM_MODULE",
       {{0, "SLOG"}, {1, "IDEDD"}, {2, "SCC"}, {3, "HCCL"}, {4, "FMK"}, {5, "CCU"}, {6, "DVPP"}, {7, "RUNTIME"},
        {8, "CCE"}, {9, "HDC"}, {10, "DRV"}, {11, "NET"}, {22, "DEVMM"}, {23, "KERNEL"}, {24, "LIBMEDIA"},
        {25, "CCECPU"}, {27, "ROS"}, {28, "HCCP"}, {29, "ROCE"}, {30, "TEFUSION"}, {31, "PROFILING"}, {32, "DP"},
        {33, "APP"}, {34, "TS"}, {35, "TSDUMP"}, {36, "AICPU"}, {37, "LP"}, {38, "TDT"}, {39, "FE"}, {40, "MD"},
        {41, "MB"}, {42, "ME"}, {43, "IMU"}, {44, "IMP"}, {45, "GE"}, {47, "CAMERA"}, {48, "ASCENDCL"},
        {49, "TEEOS"}, {50, "ISP"}, {51, "SIS"}, {52, "HSM"}, {53, "DSS"}, {54, "PROCMGR"}, {55, "BBOX"},
        {56, "AIVECTOR"}, {57, "TBE"}, {58, "FV"}, {60, "TUNE"}, {61, "HSS"}, {62, "FFTS"}, {63, "OP"},
        {64, "UDF"}, {65, "HICAID"}, {66, "TSYNC"}, {67, "AUDIO"}, {68, "TPRT"}, {69, "ASCENDCKERNEL"},
        {70, "ASYS"}, {71, "ATRACE"}, {72, "RTC"}, {73, "SYSMONITOR"}, {74, "AMP"}, {75, "ADETECT"},
        {76, "MBUFF"}, {77, "CUSTOM"}}},
      {"ENUM_MSTX_EVENT_TYPE", {{0, "marker"}, {1, "push/pop"}, {2, "start/end"}, {3, "marker_ex"}}},
      {"ENUM_OVERLAP_ANALYSIS_TYPE",
       {{0, "COMPUTE"}, {1, "COMMUNICATION"}, {2, "COMM_NOT_OVERLAP_COMP"}, {3, "FREE"}, {65535, "RESERVE"}}},
  };
}

inline const char* const* pmu_db_names() {
  static const char* const names[] = {
      "aic_total_time", "aic_total_cycles", "aic_vec_time", "aic_vec_ratio", "aic_mac_time", "aic_mac_ratio",
      "aic_scalar_time", "aic_scalar_ratio", "aic_mte1_time", "aic_mte1_ratio", "aic_mte2_time", "aic_mte2_ratio",
      "aic_mte3_time", "aic_mte3_ratio", "aic_icache_miss_rate", "aiv_total_time", "aiv_total_cycles",
      "aiv_vec_time", "aiv_vec_ratio", "aiv_mac_time", "aiv_mac_ratio", "aiv_scalar_time", "aiv_scalar_ratio",
      "aiv_mte1_time", "aiv_mte1_ratio", "aiv_mte2_time", "aiv_mte2_ratio", "aiv_mte3_time", "aiv_mte3_ratio",
      "aiv_icache_miss_rate"};
  return names;
}

}  // namespace detail

/// Writes the database to `path` (which must not exist).
inline result<void> write_db(const model& m, const std::string& path) {
  detail::sqlite_db db(path);
  MSPROF_TRY(db.open());
  detail::string_ids ids;
  // Tables are created on first use; rows go straight to SQLite.
  result<void> status;
  std::vector<std::pair<std::string, std::unique_ptr<detail::table_sink>>> sinks;
  auto rows_of = [&](const char* name) -> detail::table_sink& {
    for (auto& d : sinks)
      if (d.first == name) return *d.second;
    const detail::db_table_def* def = detail::db_tables();
    while (def->name && std::string(def->name) != name) ++def;
    auto created = db.exec(std::string("CREATE TABLE ") + name + " (" + (def->name ? def->columns : "") + ")");
    if (!created && status) status = created.err();
    sinks.emplace_back(name, std::make_unique<detail::table_sink>(db.handle(), name, def->ncols, &status));
    return *sinks.back().second;
  };
  using V = std::vector<detail::db_value>;
  const auto& s = m.session;
  const auto pid = static_cast<std::int64_t>(s.pid);
  auto gtid = [&](std::uint32_t tid) { return static_cast<std::int64_t>((static_cast<std::uint64_t>(s.pid) << 32) | tid); };

  // Registration order follows the reference: mstx, PMU names, APIs, tasks, compute info.
  if (!m.mstx.empty()) {
    auto& r = rows_of("MSTX_EVENTS");
    for (const auto& e : m.mstx) {
      const auto msg = ids.id(e.message);
      const auto dom = ids.id(e.domain);
      r.push_back(V{e.start_ns, e.end_ns, static_cast<std::int64_t>(e.event_type), std::int64_t{4294967295},
                    std::int64_t{4294967295}, msg, gtid(e.tid), gtid(e.tid), dom,
                    static_cast<std::int64_t>(detail::mstx_connection_id(e))});
    }
  }
  bool any_pmu = false;
  for (const auto& t : m.tasks) any_pmu = any_pmu || t.pmu.has_value();
  std::int64_t pmu_name_ids[30] = {};
  if (any_pmu && has_pipe_pmu(m))
    for (int i = 0; i < 30; ++i) pmu_name_ids[i] = ids.id(detail::pmu_db_names()[i]);
  if (!m.apis.empty()) {
    auto& r = rows_of("CANN_API");
    for (const auto& a : m.apis)
      r.push_back(V{a.start_ns, a.end_ns, static_cast<std::int64_t>(a.level), gtid(a.thread_id),
                    static_cast<std::int64_t>(a.connection_id), ids.id(a.name)});
  }
  if (!m.tasks.empty()) {
    auto& r = rows_of("TASK");
    for (const auto& t : m.tasks)
      r.push_back(V{t.start_ns, t.end_ns, static_cast<std::int64_t>(t.device_id),
                    static_cast<std::int64_t>(t.connection_id), static_cast<std::int64_t>(t.global_task_id), pid,
                    ids.id(t.task_type), std::int64_t{4294967295}, static_cast<std::int64_t>(t.stream_id),
                    static_cast<std::int64_t>(t.task_id), std::int64_t{4294967295}});
    std::vector<const device_task*> ops;
    for (const auto& t : m.tasks)
      if (t.op) ops.push_back(&t);
    std::stable_sort(ops.begin(), ops.end(), [](const device_task* a, const device_task* b) {
      return std::tie(a->device_id, a->stream_id, a->task_id, a->start_ns) <
             std::tie(b->device_id, b->stream_id, b->task_id, b->start_ns);
    });
    auto& c = rows_of("COMPUTE_TASK_INFO");
    for (const device_task* t : ops) {
      const op_info& op = *t->op;
      auto dt = [](const tensor_desc& d) { return data_type_name(d.data_type); };
      auto fm = [](const tensor_desc& d) { return format_name(d.format); };
      V row;
      row.push_back(ids.id(op.name));
      row.push_back(static_cast<std::int64_t>(t->global_task_id));
      row.push_back(static_cast<std::int64_t>(op.block_num));
      row.push_back(std::int64_t{0});
      row.push_back(ids.id(ge_task_type_name(op.ge_task_type)));
      row.push_back(ids.id(op.type));
      row.push_back(ids.id(detail::join_tensors(op, 0, fm)));
      row.push_back(ids.id(detail::join_tensors(op, 0, dt)));
      row.push_back(ids.id(detail::shape_cell(op, 0)));
      row.push_back(ids.id(detail::join_tensors(op, 1, fm)));
      row.push_back(ids.id(detail::join_tensors(op, 1, dt)));
      row.push_back(ids.id(detail::shape_cell(op, 1)));
      row.push_back(ids.id(""));
      row.push_back(ids.id(op.dynamic ? "dynamic" : "static"));
      row.push_back(ids.id("NO"));
      row.push_back(ids.id("N/A"));
      row.push_back(ids.id("N/A"));
      c.push_back(std::move(row));
    }
    if (any_pmu && has_pipe_pmu(m)) {
      auto& p = rows_of("TASK_PMU_INFO");
      for (const auto& t : m.tasks) {
        if (!t.pmu || !t.op) continue;
        const bool aic = detail::is_aic(t.op->ge_task_type), aiv = detail::is_aiv(t.op->ge_task_type);
        const device_info* dev = m.device(t.device_id);
        if ((!aic && !aiv) || !dev) continue;
        const auto pm =
            compute_pipe(*t.pmu, t.op->block_num, dev->aic_frequency_mhz, aic ? dev->ai_core_num : dev->aiv_num);
        double vals[15];
        vals[0] = pm.total_time_us * 1000.0;
        vals[1] = pm.total_cycles;
        for (int i = 0; i < 6; ++i) {
          vals[2 + 2 * i] = pm.time_us[static_cast<std::size_t>(i)] * 1000.0;
          vals[3 + 2 * i] = pm.ratio[static_cast<std::size_t>(i)];
        }
        vals[14] = pm.icache_miss_rate;
        std::array<std::tuple<std::int64_t, std::int64_t, double>, 30> task_rows;
        for (std::size_t side = 0; side < 2; ++side) {
          const bool on = side == 0 ? aic : aiv;
          for (std::size_t i = 0; i < 15; ++i)
            task_rows[side * 15 + i] = {static_cast<std::int64_t>(t.global_task_id), pmu_name_ids[side * 15 + i],
                                        on ? vals[i] : 0.0};
        }
        p.rows(task_rows);
      }
    }
    for (const auto& d : s.devices) {
      auto& f = rows_of("AICORE_FREQ");
      for (auto ts : {s.start_ns, s.end_ns})
        f.push_back(V{static_cast<std::int64_t>(d.id), ts, static_cast<std::int64_t>(d.aic_frequency_mhz),
                      std::int64_t{-1}});
    }
    auto& o = rows_of("OVERLAP_ANALYSIS");
    std::int64_t oid = 0;
    for (const auto& iv : overlap_analysis(m))
      o.push_back(V{oid++, static_cast<std::int64_t>(iv.device_id), iv.start_ns, iv.end_ns,
                    std::int64_t{iv.compute ? 0 : 3}});
  }
  rows_of("HOST_INFO").push_back(V{s.host_uid, s.hostname});
  for (auto [k, v] : {std::pair<const char*, const char*>{"SCHEMA_VERSION", "1.2.0"},
                      {"SCHEMA_VERSION_MAJOR", "1"},
                      {"SCHEMA_VERSION_MINOR", "2"},
                      {"SCHEMA_VERSION_MICRO", "0"}})
    rows_of("META_DATA").push_back(V{std::string(k), std::string(v)});
  if (m.has_device()) {
    for (const auto& d : s.devices) {
      rows_of("NPU_INFO").push_back(V{static_cast<std::int64_t>(d.id), chip_name(s.platform_version)});
      rows_of("RANK_DEVICE_MAP").push_back(V{s.rank_id, static_cast<std::int64_t>(d.id)});
    }
  } else {
    rows_of("NPU_INFO").push_back(V{std::int64_t{-1}, std::string("UNKNOWN")});
    rows_of("RANK_DEVICE_MAP").push_back(V{s.rank_id, std::int64_t{-1}});
  }
  rows_of("SESSION_TIME_INFO").push_back(V{s.start_ns, s.end_ns});
  {
    auto& r = rows_of("STRING_IDS");
    const auto& vals = ids.values();
    for (std::size_t i = 0; i < vals.size(); ++i) r.push_back(V{static_cast<std::int64_t>(i), vals[i]});
  }

  const bool has_task = std::any_of(sinks.begin(), sinks.end(), [](const auto& p) { return p.first == "TASK"; });
  sinks.clear();  // finalize statements
  if (!status) return status;
  if (has_task) MSPROF_TRY(db.exec("CREATE INDEX TaskIndex ON TASK (startNs,globalTaskId)"));
  for (const auto& [name, rows] : detail::db_enums()) {
    MSPROF_TRY(db.exec(std::string("CREATE TABLE ") + name + " (id INTEGER PRIMARY KEY, name TEXT)"));
    std::vector<std::vector<detail::db_value>> v;
    for (const auto& e : rows) v.push_back(V{e.id, std::string(e.name)});
    MSPROF_TRY(db.insert(name, 2, v));
  }
  return db.close();
}

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_DB_HPP
