// SPDX-License-Identifier: MIT
// The SQLite writer (convert/db.hpp): the connection, table inserts, the
// reference's tables and enums, and db_window_writer.
#include "msprof/convert/db.hpp"
#include "msprof/convert/hccl.hpp"
#include "msprof/convert/beside.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "msprof/convert/llc.hpp"
#include "msprof/convert/qos.hpp"
#include "msprof/convert/npu_memory.hpp"
#include "msprof/convert/summary.hpp"
#include "msprof/convert/timeline.hpp"
#include "msprof/prof/layout.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace detail {
namespace {

struct db_table_def {
  const char* name;
  const char* columns;  // as in the reference's CREATE TABLE
  std::size_t ncols;
};

const db_table_def* db_tables() {
  static const db_table_def defs[] = {
      {"ACC_PMU",
       "accId INTEGER, readBwLevel INTEGER, writeBwLevel INTEGER, readOstLevel INTEGER, writeOstLevel INTEGER, "
       "timestampNs NUMERIC, deviceId INTEGER",
       7},
      {"AICORE_FREQ", "deviceId INTEGER, timestampNs NUMERIC, freq INTEGER, dieId NUMERIC", 4},
      {"CANN_API", "startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER, connectionId INTEGER PRIMARY KEY, name INTEGER", 6},
      {"CPU_USAGE", "timestampNs NUMERIC, cpuId NUMERIC, usage NUMERIC", 3},
      {"COMMUNICATION_OP",
       "opName INTEGER, startNs INTEGER, endNs INTEGER, connectionId INTEGER, groupName INTEGER, opId INTEGER PRIMARY "
       "KEY, relay INTEGER, retry INTEGER, dataType INTEGER, algType INTEGER, count NUMERIC, opType INTEGER, deviceId "
       "INTEGER, rankSize INTEGER",
       14},
      {"COMMUNICATION_TASK_INFO",
       "name INTEGER, globalTaskId INTEGER, taskType INTEGER, planeId INTEGER, groupName INTEGER, notifyId INTEGER, "
       "rdmaType INTEGER, srcRank INTEGER, dstRank INTEGER, transportType INTEGER, size INTEGER, dataType INTEGER, "
       "linkType INTEGER, opId INTEGER, isMaster INTEGER, bandwidth NUMERIC",
       16},
      {"COMPUTE_TASK_INFO",
       "name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockNum INTEGER, mixBlockNum INTEGER, taskType INTEGER, "
       "opType INTEGER, inputFormats INTEGER, inputDataTypes INTEGER, inputShapes INTEGER, outputFormats INTEGER, "
       "outputDataTypes INTEGER, outputShapes INTEGER, attrInfo INTEGER, opState INTEGER, hf32Eligible INTEGER, "
       "gridDim INTEGER, blockDim INTEGER",
       17},
      {"DDR", "deviceId INTEGER, timestampNs INTEGER, read NUMERIC, write NUMERIC", 4},
      {"HBM", "deviceId INTEGER, timestampNs INTEGER, bandwidth NUMERIC, hbmId INTEGER, type INTEGER", 5},
      {"HCCS", "deviceId INTEGER, timestampNs INTEGER, txThroughput NUMERIC, rxThroughput NUMERIC", 4},
      {"HOST_DISK_USAGE", "timestampNs NUMERIC, readRate NUMERIC, writeRate NUMERIC, usage NUMERIC", 4},
      {"HOST_INFO", "hostUid TEXT, hostName TEXT", 2},
      {"HOST_MEM_USAGE", "timestampNs NUMERIC, usage NUMERIC", 2},
      {"HOST_NETWORK_USAGE", "timestampNs NUMERIC, usage NUMERIC, speed NUMERIC", 3},
      {"LLC", "deviceId INTEGER, llcId INTEGER, timestampNs INTEGER, hitRate REAL, throughput INTEGER, mode INTEGER", 6},
      {"MEMCPY_INFO", "globalTaskId NUMERIC, size NUMERIC, memcpyOperation NUMERIC", 3},
      {"META_DATA", "name TEXT, value TEXT", 2},
      {"MSTX_EVENTS",
       "startNs INTEGER, endNs INTEGER, eventType INTEGER, rangeId INTEGER, category INTEGER, message INTEGER, "
       "globalTid INTEGER, endGlobalTid INTEGER, domainId INTEGER, connectionId INTEGER",
       10},
      {"NIC",
       "deviceId INTEGER, timestampNs INTEGER, bandwidth INTEGER, rxPacketRate NUMERIC, rxByteRate NUMERIC, rxPackets "
       "INTEGER, rxBytes INTEGER, rxErrors INTEGER, rxDropped INTEGER, txPacketRate NUMERIC, txByteRate NUMERIC, "
       "txPackets INTEGER, txBytes INTEGER, txErrors INTEGER, txDropped INTEGER, funcId INTEGER",
       16},
      {"NPU_INFO", "id INTEGER, name TEXT", 2},
      {"NPU_MEM", "type INTEGER, ddr NUMERIC, hbm NUMERIC, timestampNs INTEGER, deviceId INTEGER", 5},
      {"NPU_MODULE_MEM", "moduleId INTEGER, timestampNs INTEGER, totalReserved NUMERIC, deviceId INTEGER", 4},
      {"NPU_OP_MEM",
       "operatorName INTEGER, addr INTEGER, type INTEGER, size INTEGER, timestampNs INTEGER, globalTid INTEGER, "
       "totalAllocate NUMERIC, totalReserve NUMERIC, component INTEGER, deviceId INTEGER",
       10},
      {"OVERLAP_ANALYSIS", "id INTEGER PRIMARY KEY, deviceId INTEGER, startNs NUMERIC, endNs NUMERIC, type INTEGER", 5},
      {"PCIE",
       "deviceId INTEGER, timestampNs INTEGER, txPostMin NUMERIC, txPostMax NUMERIC, txPostAvg NUMERIC, txNonpostMin "
       "NUMERIC, txNonpostMax NUMERIC, txNonpostAvg NUMERIC, txCplMin NUMERIC, txCplMax NUMERIC, txCplAvg NUMERIC, "
       "txNonpostLatencyMin NUMERIC, txNonpostLatencyMax NUMERIC, txNonpostLatencyAvg NUMERIC, rxPostMin NUMERIC, "
       "rxPostMax NUMERIC, rxPostAvg NUMERIC, rxNonpostMin NUMERIC, rxNonpostMax NUMERIC, rxNonpostAvg NUMERIC, "
       "rxCplMin NUMERIC, rxCplMax NUMERIC, rxCplAvg NUMERIC",
       23},
      {"QOS", "deviceId INTEGER, eventName NUMERIC, bandwidth NUMERIC, timestampNs NUMERIC, dieId NUMERIC", 5},
      {"RANK_DEVICE_MAP", "rankId INTEGER, deviceId INTEGER", 2},
      {"ROCE",
       "deviceId INTEGER, timestampNs INTEGER, bandwidth INTEGER, rxPacketRate NUMERIC, rxByteRate NUMERIC, rxPackets "
       "INTEGER, rxBytes INTEGER, rxErrors INTEGER, rxDropped INTEGER, txPacketRate NUMERIC, txByteRate NUMERIC, "
       "txPackets INTEGER, txBytes INTEGER, txErrors INTEGER, txDropped INTEGER, funcId INTEGER",
       16},
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

std::vector<std::pair<const char*, std::vector<enum_row>>> db_enums() {
  const std::vector<enum_row> hccl_tail = {{255, "RESERVED"}, {65534, "N/A"}, {65535, "INVALID_TYPE"}};
  auto with_tail = [&](std::vector<enum_row> v) {
    v.insert(v.end(), hccl_tail.begin(), hccl_tail.end());
    return v;
  };
  std::vector<enum_row> modules;
  for (const auto& [id, name] : module_names()) modules.push_back({static_cast<std::int64_t>(id), name});
  // The HCCL names come from convert/hccl (one place): the ids below the tail it names.
  auto hccl_names = [](const char* (*name)(std::uint32_t) noexcept) {
    std::vector<enum_row> v;
    for (std::uint32_t id = 0; id < 255; ++id)
      if (std::strcmp(name(id), "N/A") != 0) v.push_back({id, name(id)});
    return v;
  };
  return {
      {"ENUM_API_TYPE", {{5000, "runtime"}, {5500, "communication"}, {10000, "node"}, {15000, "model"}, {20000, "acl"}}},
      {"ENUM_HCCL_DATA_TYPE", with_tail(hccl_names(hccl::data_type_name))},
      {"ENUM_HCCL_LINK_TYPE", with_tail(hccl_names(hccl::link_type_name))},
      {"ENUM_HCCL_RDMA_TYPE", with_tail(hccl_names(hccl::rdma_type_name))},
      {"ENUM_HCCL_TRANSPORT_TYPE", with_tail(hccl_names(hccl::transport_type_name))},
      {"ENUM_MEMCPY_OPERATION",
       {{0, memcpy_operation_name(0)}, {1, memcpy_operation_name(1)}, {2, memcpy_operation_name(2)},
        {3, memcpy_operation_name(3)}, {4, memcpy_operation_name(4)}, {5, memcpy_operation_name(5)},
        {6, memcpy_operation_name(6)}, {7, memcpy_operation_name(7)}, {65535, memcpy_operation_name(65535)}}},
      {"ENUM_MODULE", modules},
      {"ENUM_MSTX_EVENT_TYPE", {{0, "marker"}, {1, "push/pop"}, {2, "start/end"}, {3, "marker_ex"}}},
      {"ENUM_OVERLAP_ANALYSIS_TYPE",
       {{0, "COMPUTE"}, {1, "COMMUNICATION"}, {2, "COMM_NOT_OVERLAP_COMP"}, {3, "FREE"}, {65535, "RESERVE"}}},
  };
}

/// TASK_PMU_INFO names: total time and cycles, then every metric of the side's calculator.
std::vector<std::string> pmu_db_names(const pmu_side& side, const char* prefix) {
  std::vector<std::string> v = {std::string(prefix) + "total_time", std::string(prefix) + "total_cycles"};
  for (std::size_t k = 0; k < side.calc->size; ++k)
    v.push_back(prefix + std::string(codec::aic_metrics::output_name(side.calc->metrics[k].name)));
  return v;
}

}  // namespace

// string_ids ----------------------------------------------------------------

string_ids::string_ids() {
  (void)id("release");
  (void)id("allocate");
}

std::int64_t string_ids::id(std::string_view s) {
  auto it = map_.find(s);
  if (it != map_.end()) return it->second;
  const auto n = static_cast<std::int64_t>(values_.size());
  map_.emplace(values_.emplace_back(s), n);
  return n;
}

std::int64_t string_ids::id(std::string_view s, memo& m) {
  if (m.id < 0 || s != m.text) {
    m.id = id(s);
    m.text.assign(s);
  }
  return m.id;
}

// sqlite_db -------------------------------------------------------------------

sqlite_db::~sqlite_db() {
  if (db_) sqlite3_close(db_);
}

result<void> sqlite_db::open() {
  // NOMUTEX: one thread uses the connection; the per-call locking cost ~10 % of the export.
  // NOFOLLOW: the exporter creates the file (core/output_file.hpp); a link put in its place is refused.
  if (sqlite3_open_v2(path_.c_str(), &db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
                      nullptr) != SQLITE_OK)
    return fail("cannot create database");
  // Bulk loading: no journal and no sync (the file is a temporary until the
  // exporter renames it complete), one transaction. (64 KiB pages took 9 % less
  // CPU, but the 5 M-record export's peak RSS then grew past memory_test's bound.)
  return exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; "
              "PRAGMA cache_size=-65536; BEGIN");
}

result<void> sqlite_db::exec(const std::string& sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string m = msg ? msg : "unknown";
    sqlite3_free(msg);
    return make_error(errc::io, path_ + ": sqlite: " + m + " in `" + sql.substr(0, 80) + "`");
  }
  return {};
}

result<void> sqlite_db::insert(const std::string& table, std::size_t ncols,
                               const std::vector<std::vector<db_value>>& rows) {
  result<void> status;
  table_writer w(db_, table, ncols, &status);
  for (const auto& row : rows) w.values(row);
  w.flush();
  if (!status) return make_error(errc::io, path_ + ": " + status.err().message);
  return {};
}

result<std::int64_t> sqlite_db::query_int(const std::string& sql) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return fail("prepare `" + sql + "`");
  const bool found = sqlite3_step(st) == SQLITE_ROW;
  const std::int64_t v = found ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_finalize(st);
  if (!found) return make_error(errc::io, path_ + ": no row from `" + sql + "`");
  return v;
}

result<std::uint32_t> sqlite_db::root_page(const std::string& name) {
  auto root = query_int("SELECT rootpage FROM sqlite_schema WHERE type='table' AND name='" + name + "'");
  if (!root) return root.err();
  return static_cast<std::uint32_t>(*root);
}

result<void> sqlite_db::close() {
  MSPROF_TRY(exec("COMMIT"));
  if (sqlite3_close(db_) != SQLITE_OK) return fail("close");
  db_ = nullptr;
  return {};
}

error sqlite_db::fail(const std::string& what) {
  return make_error(errc::io, path_ + ": sqlite " + what + ": " + (db_ ? sqlite3_errmsg(db_) : "no handle"));
}

// table_writer ------------------------------------------------------------------

table_writer::table_writer(sqlite3* db, std::string name, std::size_t ncols, result<void>* status)
    : db_(db),
      name_(std::move(name)),
      ncols_(ncols),
      // About 500 values per statement: past that, larger statements gained nothing.
      batch_(std::max<std::size_t>(1, 500 / std::max<std::size_t>(ncols, 1))),
      status_(status) {
  batch_st_ = prepare(batch_);
  cells_.reserve(batch_ * ncols_);
}

table_writer::~table_writer() {
  flush();
  if (batch_st_) sqlite3_finalize(batch_st_);
}

sqlite3_stmt* table_writer::prepare(std::size_t rows) {
  std::string sql = "INSERT INTO " + name_ + " VALUES";
  for (std::size_t r = 0; r < rows; ++r) {
    sql += r ? ",(" : "(";
    for (std::size_t i = 0; i < ncols_; ++i) sql += i ? ",?" : "?";
    sql += ")";
  }
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    fail("prepare");
    return nullptr;
  }
  return st;
}

void table_writer::put(std::string_view v) {
  cells_.push_back({cell::text, static_cast<std::int64_t>(text_.size()), static_cast<double>(v.size())});
  text_.append(v);
}

void table_writer::run(sqlite3_stmt* st, std::size_t rows) {
  const std::size_t n = rows * ncols_;
  for (std::size_t k = 0; k < n && k < cells_.size(); ++k) {
    const cell& c = cells_[k];
    const int at = static_cast<int>(k + 1);
    if (c.kind == cell::integer)
      sqlite3_bind_int64(st, at, c.i);
    else if (c.kind == cell::real)
      sqlite3_bind_double(st, at, c.d);
    else if (c.kind == cell::null)
      sqlite3_bind_null(st, at);
    else  // text_ stays unchanged until the statement has run
      sqlite3_bind_text(st, at, text_.data() + c.i, static_cast<int>(c.d), SQLITE_STATIC);
  }
  if (sqlite3_step(st) != SQLITE_DONE) fail("insert into");
  sqlite3_reset(st);
  rows_ += rows;
  cells_.clear();
  text_.clear();
  pending_ = 0;
}

void table_writer::step_batch() { run(batch_st_, batch_); }

void table_writer::flush() {
  if (pending_ == 0 || !*status_) return;
  if (sqlite3_stmt* st = prepare(pending_)) {
    run(st, pending_);
    sqlite3_finalize(st);
  }
}

void table_writer::fail(const char* what) {
  if (*status_) *status_ = make_error(errc::io, std::string("sqlite ") + what + " " + name_ + ": " + sqlite3_errmsg(db_));
}

// paged_tables --------------------------------------------------------------------

result<table_pages> paged_tables::create() {
  if (page_size_ == 0) {
    auto size = db_.query_int("PRAGMA page_size");
    if (!size) return size.err();
    page_size_ = static_cast<std::uint32_t>(*size);
  }
  return table_pages::create(spill_dir_, page_size_);
}

table_pages& paged_tables::add(std::string name, table_pages&& pages) {
  laid_out_.emplace_back(std::move(name), std::move(pages));
  return laid_out_.back().second;
}

result<void> paged_tables::close() {
  std::vector<std::uint32_t> roots;
  for (const auto& t : laid_out_) {
    auto root = db_.root_page(t.first);
    if (!root) return root.err();
    roots.push_back(*root);
  }
  MSPROF_TRY(db_.close());
  for (std::size_t k = 0; k < laid_out_.size(); ++k) MSPROF_TRY(laid_out_[k].second.graft(db_.path(), roots[k]));
  laid_out_.clear();
  return {};
}

}  // namespace detail

// db_window_writer ----------------------------------------------------------------

db_window_writer::db_window_writer(std::string path, const std::string& spill_dir, std::size_t spill_budget)
    : db_(std::move(path)),
      spill_dir_(spill_dir),
      sorter_budget_(spill_budget / sorters),
      paged_(db_, spill_dir),
      apis_(spill_dir, spill_budget / sorters),
      tasks_(spill_dir, spill_budget / sorters),
      pmu_(spill_dir, spill_budget / sorters),
      compute_(spill_dir, spill_budget / sorters),
      overlap_(spill_dir, spill_budget / sorters),
      gaps_(spill_dir, spill_budget / sorters) {}

/// Takes one window; the database is created on the first call.
result<void> db_window_writer::add(const model& w) {
  MSPROF_TRY(open());
  register_early_ids(w.session.prof_dir);
  if (!w.mstx.empty()) {
    auto& r = rows_of("MSTX_EVENTS");
    for (const auto& e : w.mstx) {
      const auto msg = ids_.id(e.message);
      const auto dom = ids_.id(e.domain);
      r.row(e.start_ns, e.end_ns, e.event_type, 4294967295u, 4294967295u, msg, gtid(w, e.tid), gtid(w, e.tid), dom,
            detail::mstx_connection_id(e));
    }
  }
  for (const auto& a : w.apis) {
    apis_.push_with({a.connection_id}, [&](std::string& out) {
      put(out, a.start_ns);
      put(out, a.end_ns);
      put(out, a.level);
      put(out, a.thread_id);
      out += display_name(a);
    });
  }
  for (const auto& t : w.tasks) add_task(w, t);
  return status_;
}

/// Writes the ordered tables and the rest from the final model (its records
/// are ignored) and closes the database.
result<void> db_window_writer::finish(const model& final) {
  MSPROF_TRY(open());
  lap_start_ = std::chrono::steady_clock::now();
  const auto& s = final.session;
  register_early_ids(s.prof_dir);
  // Registration order follows the reference's savers: LLC's modes and mstx (done), PMU names, HBM's
  // types, APIs, GE's memory, NPU_MEM's types, tasks, compute info.
  const bool pmu = any_pmu_ && pmu_cols_ && !pmu_cols_->empty();
  std::vector<std::int64_t> pmu_name_ids;
  std::size_t aic_names = 0;
  if (pmu) {
    for (const auto& n : detail::pmu_db_names(pmu_cols_->aic, "aic_")) pmu_name_ids.push_back(ids_.id(n));
    aic_names = pmu_name_ids.size();
    for (const auto& n : detail::pmu_db_names(pmu_cols_->aiv, "aiv_")) pmu_name_ids.push_back(ids_.id(n));
  }
  // TASK_PMU_INFO, most of the rows, needs only its names' ids and pmu_: its
  // pages are laid out on a second thread while this one writes the rest.
  std::optional<detail::table_pages> pmu_pages;
  if (pmu && tasks_.size()) {
    auto t = paged_.create();
    if (!t) return t.err();
    pmu_pages.emplace(std::move(*t));
  }
  result<void> pmu_laid_out, rest;
  double pmu_seconds = 0;
  beside(
      pmu_pages.has_value(),
      [&] {
        if (!pmu_pages) return;
        const auto start = std::chrono::steady_clock::now();
        pmu_laid_out = lay_out_pmu(*pmu_pages, pmu_name_ids, aic_names);
        pmu_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      },
      [&] { rest = write_tables(final, pmu); });
  MSPROF_TRY(rest);
  MSPROF_TRY(pmu_laid_out);
  if (pmu_pages) {
    stat_of("TASK_PMU_INFO").seconds += pmu_seconds;
    paged_.add("TASK_PMU_INFO", std::move(*pmu_pages));
  }
  lap_start_ = std::chrono::steady_clock::now();
  MSPROF_TRY(write_pages());
  // SQLite sorts the index in memory up to its cache size, then in temporary
  // files: a small cache keeps that sort from growing with the task count.
  if (has_task_) {
    MSPROF_TRY(db_.exec("PRAGMA cache_size=-8192; CREATE INDEX TaskIndex ON TASK (startNs,globalTaskId)"));
    lap_named("TaskIndex (index on TASK)");
  }
  for (const auto& [name, rows] : detail::db_enums()) {
    MSPROF_TRY(db_.exec(std::string("CREATE TABLE ") + name + " (id INTEGER PRIMARY KEY, name TEXT)"));
    std::vector<std::vector<detail::db_value>> v;
    for (const auto& e : rows) v.push_back({e.id, std::string(e.name)});
    MSPROF_TRY(db_.insert(name, 2, v));
  }
  lap_named("ENUM_* tables");
  MSPROF_TRY(db_.close());
  lap_named("commit and close");
  return {};
}

/// finish()'s tables but TASK_PMU_INFO's rows (`pmu`: the table is created
/// in its place), SQLite's written and the paged ones laid out.
result<void> db_window_writer::write_tables(const model& final, bool pmu) {
  const auto& s = final.session;
  MSPROF_TRY(write_hbm(s.prof_dir));
  if (apis_.size()) {
    auto* r = pages_of("CANN_API");
    if (!r) return status_;
    using n = detail::sqlite_cell;
    MSPROF_TRY(apis_.drain([&](const detail::id_key& k, std::string_view payload) {
      payload_reader in{payload};
      const auto start = in.get<std::int64_t>(), end = in.get<std::int64_t>();
      const auto level = in.get<std::uint16_t>();
      const auto tid = in.get<std::uint32_t>();
      // connectionId is the INTEGER PRIMARY KEY: the rowid.
      const n row[] = {n::of(start), n::of(std::int64_t{end}), n::of(std::int64_t{level}), n::of(gtid(final, tid)),
                       n::null_value(), n::of(ids_.id(in.in))};
      r->row(static_cast<std::int64_t>(k.id), row, 6);
    }));
    lap_named("CANN_API");
  }
  MSPROF_TRY(write_ge_memory(final));
  MSPROF_TRY(write_npu_mem(final.session.prof_dir));
  if (tasks_.size()) {
    MSPROF_TRY(write_tasks(final));
    if (pmu) {  // created here, in the reference's table order; its rows go into the file once SQLite has closed it
      create_table("TASK_PMU_INFO");
      stat_of("TASK_PMU_INFO");
    }
    for (const auto& d : s.devices) {
      auto& f = rows_of("AICORE_FREQ");
      for (auto ts : {s.start_ns, s.end_ns})
        f.row(d.id, ts, static_cast<std::int64_t>(d.aic_frequency_mhz), -1);
    }
    MSPROF_TRY(write_overlap());
    lap_named("OVERLAP_ANALYSIS");
    if (comm_ && !comm_->tasks.empty()) write_communication();
  }
  MSPROF_TRY(write_module_mem(s.prof_dir));
  MSPROF_TRY(write_pcie(s.prof_dir));
  MSPROF_TRY(write_hccs(s.prof_dir));
  MSPROF_TRY(write_network(s.prof_dir, prof::layout::nic, "NIC"));
  MSPROF_TRY(write_network(s.prof_dir, prof::layout::roce, "ROCE"));
  MSPROF_TRY(write_ddr(s.prof_dir));
  MSPROF_TRY(write_llc(s.prof_dir));
  MSPROF_TRY(write_qos(s.prof_dir));
  MSPROF_TRY(write_acc_pmu(s.prof_dir));
  MSPROF_TRY(write_host_usage(s.prof_dir));
  rows_of("HOST_INFO").row(s.host_uid, s.hostname);
  for (auto [k, v] : {std::pair<const char*, const char*>{"SCHEMA_VERSION", "1.2.0"},
                      {"SCHEMA_VERSION_MAJOR", "1"},
                      {"SCHEMA_VERSION_MINOR", "2"},
                      {"SCHEMA_VERSION_MICRO", "0"}})
    rows_of("META_DATA").row(std::string_view(k), std::string_view(v));
  if (final.has_device()) {
    for (const auto& d : s.devices) {
      rows_of("NPU_INFO").row(d.id, chip_name(s.platform_version));
      rows_of("RANK_DEVICE_MAP").row(s.rank_id, d.id);
    }
  } else {
    rows_of("NPU_INFO").row(-1, std::string_view("UNKNOWN"));
    rows_of("RANK_DEVICE_MAP").row(s.rank_id, -1);
  }
  rows_of("SESSION_TIME_INFO").row(s.start_ns, s.end_ns);
  {
    auto& r = rows_of("STRING_IDS");
    const auto& vals = ids_.values();
    for (std::size_t i = 0; i < vals.size(); ++i) r.row(i, vals[i]);
    lap(r);
  }

  has_task_ = std::any_of(tables_.begin(), tables_.end(), [](const auto& p) { return p.first == "TASK"; });
  for (auto& t : tables_) {
    auto& stat = stat_of(t.first);  // every table, in creation order; the paged ones' rows come with their pages
    if (!t.second) continue;
    t.second->flush();
    stat.rows = t.second->rows();
  }
  tables_.clear();  // finalize statements
  return status_;
}

void db_window_writer::register_early_ids(const std::string& prof_dir) {
  if (early_ids_) return;
  early_ids_ = true;
  for (const auto& mode : llc_modes(prof_dir)) (void)ids_.id(mode);
  for (const auto& name : qos_event_names(prof_dir)) (void)ids_.id(name);
}

result<void> db_window_writer::open() {
  if (!opened_ && status_) {
    opened_ = true;
    auto r = db_.open();
    if (!r) status_ = r.err();
  }
  return status_;
}

/// The table's insert; the table is created on first use, so tables appear
/// in the reference's order.
detail::table_writer& db_window_writer::rows_of(const char* name) {
  for (auto& d : tables_)
    if (d.first == name && d.second) return *d.second;
  const std::size_t ncols = create_table(name);
  tables_.back().second = std::make_unique<detail::table_writer>(db_.handle(), name, ncols, &status_);
  return *tables_.back().second;
}

std::size_t db_window_writer::create_table(const char* name) {
  const detail::db_table_def* def = detail::db_tables();
  while (def->name && std::string(def->name) != name) ++def;
  auto created = db_.exec(std::string("CREATE TABLE ") + name + " (" + (def->name ? def->columns : "") + ")");
  if (!created && status_) status_ = created.err();
  tables_.emplace_back(name, nullptr);
  return def->ncols;
}

db_table_stat& db_window_writer::stat_of(const std::string& table) {
  for (auto& s : stats_)
    if (s.table == table) return s;
  stats_.push_back({table, 0, 0});
  return stats_.back();
}

void db_window_writer::lap_named(const std::string& what) {
  const auto now = std::chrono::steady_clock::now();
  stat_of(what).seconds += std::chrono::duration<double>(now - lap_start_).count();
  lap_start_ = now;
}

void db_window_writer::lap(detail::table_writer& t) {
  t.flush();
  lap_named(t.name());
}

std::int64_t db_window_writer::gtid(const model& m, std::uint32_t tid) {
  return static_cast<std::int64_t>((static_cast<std::uint64_t>(m.session.pid) << 32) | tid);
}

/// One task's rows for TASK, COMPUTE_TASK_INFO, TASK_PMU_INFO and OVERLAP_ANALYSIS.
void db_window_writer::add_task(const model& w, const device_task& t) {
  any_pmu_ = any_pmu_ || t.pmu.has_value();
  overlap_.add(t);
  // The rows are written straight into the sorters' memory.
  tasks_.push_with({t.global_task_id}, [&](std::string& out) {
    put(out, t.start_ns);
    put(out, t.end_ns);
    put(out, t.connection_id);
    put(out, t.device_id);
    put(out, t.stream_id);
    put(out, t.task_id);
    put(out, t.model_id);
    out += t.task_type;
  });
  if (t.memcpy) rows_of("MEMCPY_INFO").row(t.global_task_id, t.memcpy->size, t.memcpy->operation);
  if (!t.op) return;
  const op_info& op = *t.op;

  auto dt = [](const tensor_desc& d) { return data_type_name(d.data_type); };
  auto fm = [](const tensor_desc& d) { return format_name(d.format); };
  compute_.push_with({t.start_ns, t.global_task_id, t.device_id, t.stream_id, t.task_id, 0}, [&](std::string& out) {
    put(out, op.block_num);
    put(out, op.ge_task_type);
    put(out, static_cast<std::uint8_t>(op.dynamic));
    put_text(out, op.name);
    put_text(out, op.type);
    for (std::uint32_t kind : {0u, 1u}) {
      put_text(out, detail::join_tensors(op, kind, fm));
      put_text(out, detail::join_tensors(op, kind, dt));
      put_text(out, detail::shape_cell(op, kind));
    }
  });

  if (!t.pmu) return;
  if (!pmu_cols_) pmu_cols_ = pmu_columns::of(w.session);
  const bool aic = detail::is_aic(op.ge_task_type), aiv = detail::is_aiv(op.ge_task_type);
  const device_spec* dev = w.device(t.device_id);
  if (pmu_cols_->empty() || (!aic && !aiv) || !dev) return;
  const pmu_side& side = aic ? pmu_cols_->aic : pmu_cols_->aiv;
  const auto v = compute_pmu(side, *t.pmu, op.block_num, dev->aic_frequency_mhz, aic ? dev->ai_core_num : dev->aiv_num);
  // Times in ns, as the reference stores them.
  pmu_.push_with({t.global_task_id}, [&](std::string& out) {
    put(out, static_cast<std::uint8_t>(aic));
    put(out, v.total_time_us * 1000.0);
    put(out, static_cast<double>(t.pmu->total_cycles));
    for (std::size_t k = 0; k < v.size; ++k)
      put(out, side.calc->metrics[k].kind == codec::aic_metrics::formula::time ? v.metrics[k] * 1000.0 : v.metrics[k]);
  });
}

/// TASK by global task id, then COMPUTE_TASK_INFO by (device, stream, task, start).
result<void> db_window_writer::write_tasks(const model& final) {
  auto* r = pages_of("TASK");
  if (!r) return status_;
  const auto pid = static_cast<std::int64_t>(final.session.pid);
  detail::string_ids::memo task_type;  // a few types, mostly in runs
  MSPROF_TRY(tasks_.drain([&](const detail::id_key& k, std::string_view payload) {
    payload_reader in{payload};
    const auto start = in.get<std::int64_t>(), end = in.get<std::int64_t>();
    const auto conn = in.get<std::uint64_t>();
    const auto device = in.get<std::uint32_t>(), stream = in.get<std::uint32_t>(), task = in.get<std::uint32_t>();
    const auto model_id = in.get<std::uint32_t>();
    using n = detail::sqlite_cell;
    const n row[] = {n::of(start),
                     n::of(std::int64_t{end}),
                     n::of(std::int64_t{device}),
                     n::of(static_cast<std::int64_t>(conn)),
                     n::of(static_cast<std::int64_t>(k.id)),
                     n::of(pid),
                     n::of(ids_.id(in.in, task_type)),
                     n::of(std::int64_t{4294967295u}),
                     n::of(std::int64_t{stream}),
                     n::of(std::int64_t{task}),
                     n::of(std::int64_t{model_id})};
    r->row(row, 11);
  }));
  lap_named("TASK");
  // Its strings register in this order; its rows are by globalTaskId, the
  // INTEGER PRIMARY KEY (the rowid): sorted again by it, then laid out.
  auto* c = pages_of("COMPUTE_TASK_INFO");
  if (!c) return status_;
  constexpr std::size_t cols = 17;
  spill_sorter<detail::id_key> by_id(spill_dir_, sorter_budget_);
  detail::string_ids::memo ge_type, none, op_state, no, na;  // the columns of few values
  MSPROF_TRY(compute_.drain([&](const detail::compute_key& k, std::string_view payload) {
    payload_reader in{payload};
    const auto block_num = in.get<std::uint32_t>(), ge_task_type = in.get<std::uint32_t>();
    const bool dynamic = in.get<std::uint8_t>() != 0;
    const auto name = in.text(), type = in.text();
    // Braced lists evaluate in order: the strings register in column order.
    const std::int64_t id[] = {ids_.id(name),
                               ids_.id(ge_task_type_name(ge_task_type), ge_type),
                               ids_.id(type),
                               ids_.id(in.text()),
                               ids_.id(in.text()),
                               ids_.id(in.text()),
                               ids_.id(in.text()),
                               ids_.id(in.text()),
                               ids_.id(in.text()),
                               ids_.id(std::string_view(), none),
                               ids_.id(dynamic ? "dynamic" : "static", op_state),
                               ids_.id("NO", no),
                               ids_.id("N/A", na)};
    // The columns but globalTaskId (the key).
    const std::int64_t row[cols - 1] = {id[0], block_num, 0,     id[1],  id[2],  id[3],  id[4],  id[5],
                                        id[6], id[7],     id[8], id[9],  id[10], id[11], id[12], id[12]};
    by_id.push({k.global_task_id}, std::string_view(reinterpret_cast<const char*>(row), sizeof row));
  }));
  MSPROF_TRY(by_id.drain([&](const detail::id_key& k, std::string_view payload) {
    using n = detail::sqlite_cell;
    n cells[cols];
    payload_reader in{payload};
    for (std::size_t i = 0; i < cols; ++i) cells[i] = i == 1 ? n::null_value() : n::of(in.get<std::int64_t>());
    c->row(static_cast<std::int64_t>(k.id), cells, cols);
  }));
  lap_named("COMPUTE_TASK_INFO");
  return {};
}

/// TASK_PMU_INFO: a row per name (aic then aiv names) per task, by global
/// task id; the side the task did not run on reads 0. Most of the db's rows
/// (no string is registered on the way: finish() lays them out on a thread of
/// their own).
result<void> db_window_writer::lay_out_pmu(detail::table_pages& p, const std::vector<std::int64_t>& name_ids,
                                           std::size_t aic_names) {
  detail::sqlite_cell row[3];
  return pmu_.drain([&](const detail::id_key& k, std::string_view payload) {
    payload_reader in{payload};
    const bool aic = in.get<std::uint8_t>() != 0;
    row[0] = detail::sqlite_cell::of(static_cast<std::int64_t>(k.id));
    for (std::size_t i = 0; i < name_ids.size(); ++i) {
      const bool mine = (i < aic_names) == aic;
      row[1] = detail::sqlite_cell::of(name_ids[i]);
      row[2] = detail::sqlite_cell::of(mine ? in.get<double>() : 0.0);
      p.row(row, 3);
    }
  });
}

/// The table, created now (tables appear in the reference's order), its rows
/// laid out as pages until write_pages(); null after a failure (status_).
detail::table_pages* db_window_writer::pages_of(const char* name) {
  create_table(name);
  if (!status_) return nullptr;
  auto t = paged_.create();
  if (!t) {
    status_ = t.err();
    return nullptr;
  }
  return &paged_.add(name, std::move(*t));
}

/// With SQLite's tables written and the file closed: the tables laid out as
/// pages go in; then SQLite opens the file again for the index and the enum tables.
result<void> db_window_writer::write_pages() {
  if (paged_.tables().empty()) return {};
  for (const auto& [name, pages] : paged_.tables()) stat_of(name).rows = pages.rows();
  MSPROF_TRY(paged_.close());
  lap_named("pages into the file");
  return db_.open();
}

/// OVERLAP_ANALYSIS per device: the merged op intervals, then the free gaps
/// between the device's first task start and last task end.
result<void> db_window_writer::write_overlap() {
  auto* pages = pages_of("OVERLAP_ANALYSIS");
  if (!pages) return status_;
  std::int64_t oid = 0;
  // id is the INTEGER PRIMARY KEY: the rowid.
  auto row = [&](std::uint32_t device, std::int64_t start, std::int64_t end, std::int64_t type) {
    using n = detail::sqlite_cell;
    const n cells[] = {n::null_value(), n::of(std::int64_t{device}), n::of(start), n::of(end), n::of(type)};
    pages->row(oid++, cells, 5);
  };
  std::uint32_t dev = 0;
  result<void> gaps_status;
  auto open = [&](std::uint32_t d) { dev = d; };
  auto on_compute = [&](std::int64_t b, std::int64_t e) { row(dev, b, e, 0); };
  auto on_free = [&](std::int64_t b, std::int64_t e) { gaps_.push({b, e, dev, 0}, {}); };
  auto close = [&](std::uint32_t) {
    // With collectives: their lane (1), and each gap split into communication not overlapped (2) and free (3).
    std::optional<hccl::overlap_lanes> comm;
    if (comm_) comm.emplace(*comm_, dev);
    if (comm)
      for (const auto& sp : comm->communication_spans()) row(dev, sp.first, sp.second, 1);
    auto g = gaps_.drain([&](const detail::interval_key& k, std::string_view) {
      if (!comm) return row(k.device_id, k.start_ns, k.end_ns, 3);
      const auto parts = comm->free_gap(k.start_ns, k.end_ns);
      for (const auto& sp : parts.not_overlapped) row(k.device_id, sp.first, sp.second, 2);
      for (const auto& sp : parts.free) row(k.device_id, sp.first, sp.second, 3);
    });
    if (!g && gaps_status) gaps_status = g;
  };
  MSPROF_TRY(overlap_.drain(open, on_compute, on_free, close));
  return gaps_status;
}

/// COMMUNICATION_OP (opId: the collective's place by start) and
/// COMMUNICATION_TASK_INFO; bandwidths in B/s, names and groups as strings.
void db_window_writer::write_communication() {
  const auto& c = *comm_;
  std::map<std::pair<std::string, std::uint32_t>, std::size_t> op_id;
  auto& ops = rows_of("COMMUNICATION_OP");
  for (std::size_t i = 0; i < c.ops.size(); ++i) {
    const auto& op = c.ops[i];
    op_id.emplace(std::make_pair(op.name, op.device_id), i);
    ops.row(ids_.id(op.name), op.start_ns, op.end_ns, op.connection_id, ids_.id(op.group), i,
            op.has_info ? op.relay : 0, op.has_info ? op.retry : 0, op.has_info ? op.data_type : 65534u,
            ids_.id(op.has_info ? op.alg_type : std::string("N/A")), op.count, ids_.id(op.op_type), op.device_id,
            op.rank_size);
  }
  lap(ops);
  auto& tasks = rows_of("COMMUNICATION_TASK_INFO");
  for (const auto& t : c.tasks) {
    auto id = op_id.find({t.op_name, t.device_id});
    if (id == op_id.end()) continue;  // its collective was left out (hccl::link warned)
    const auto& i = t.info;
    tasks.row(ids_.id(t.op_name), t.global_task_id, ids_.id(t.name), i.planeID, ids_.id(t.group),
              t.has_info ? static_cast<std::int64_t>(i.notifyID) : -1, i.rdmaType, i.localRank, i.remoteRank,
              i.transportType, i.dataSize, i.dataType, i.linkType, id->second, t.master ? 1 : 0, t.bandwidth * 1e9);
  }
  lap(tasks);
}

result<void> write_db(const model& m, const std::string& path, std::size_t spill_budget) {
  const auto dir = std::filesystem::path(path).parent_path();
  db_window_writer w(path, dir.empty() ? "." : dir.string(), spill_budget);
  MSPROF_TRY(w.add(m));
  return w.finish(m);
}

}  // namespace convert
MSPROF_END_NAMESPACE
