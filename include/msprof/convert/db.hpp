// SPDX-License-Identifier: MIT
// msprof_<ts>.db: SQLite, schema 1.2.0 as written by msprof 9ba1ac7be
// (export_unified_db). Strings are ids into STRING_IDS, registered in the
// order the reference registers them, so ids match its output.
#ifndef MSPROF_CONVERT_DB_HPP
#define MSPROF_CONVERT_DB_HPP

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "../core/error.hpp"
#include "model.hpp"
#include "overlap.hpp"
#include "spill.hpp"
#include "sqlite_pages.hpp"
#include "summary.hpp"

struct sqlite3;
struct sqlite3_stmt;

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace hccl {
struct communication;
}  // namespace hccl

namespace detail {

/// STRING_IDS in registration order.
class string_ids {
 public:
  /// The id a call site got last time and its text: a constant's (or a
  /// column's repeated value's) id without hashing it again.
  struct memo {
    std::string text;
    std::int64_t id = -1;
  };

  string_ids();
  std::int64_t id(std::string_view s);
  std::int64_t id(std::string_view s, memo& m);
  const std::deque<std::string>& values() const noexcept { return values_; }

 private:
  std::unordered_map<std::string_view, std::int64_t> map_;  // views into values_
  std::deque<std::string> values_;  // a deque: its strings never move, so the views stay valid
};

/// A cell: an integer, a real, text, or NULL (monostate).
using db_value = std::variant<std::int64_t, double, std::string, std::monostate>;

class sqlite_db {
 public:
  explicit sqlite_db(std::string path) : path_(std::move(path)) {}
  ~sqlite_db();
  sqlite_db(const sqlite_db&) = delete;
  sqlite_db& operator=(const sqlite_db&) = delete;

  result<void> open();
  result<void> exec(const std::string& sql);
  result<void> insert(const std::string& table, std::size_t ncols, const std::vector<std::vector<db_value>>& rows);
  sqlite3* handle() const noexcept { return db_; }
  const std::string& path() const noexcept { return path_; }
  /// The first column of the first row of `sql`.
  result<std::int64_t> query_int(const std::string& sql);
  /// The root page of table `name`.
  result<std::uint32_t> root_page(const std::string& name);
  /// Commits and closes; open() may open the file again.
  result<void> close();

 private:
  error fail(const std::string& what);
  std::string path_;
  sqlite3* db_ = nullptr;
};

/// Tables whose rows are laid out as pages (sqlite_pages.hpp) in a spill
/// directory while SQLite writes the others, and put into the file at their
/// (empty) root pages once SQLite has closed it (close()). Each table must
/// exist in the schema by then.
class paged_tables {
 public:
  paged_tables(sqlite_db& db, std::string spill_dir) : db_(db), spill_dir_(std::move(spill_dir)) {}
  sqlite_db& db() noexcept { return db_; }
  /// An empty table's pages, of the database's page size.
  result<table_pages> create();
  /// The table `name`'s rows, for close(); the pages stay where they are
  /// (a deque), so more rows may still come through the reference.
  table_pages& add(std::string name, table_pages&& pages);
  /// The tables added, in order.
  const std::deque<std::pair<std::string, table_pages>>& tables() const noexcept { return laid_out_; }
  /// Closes SQLite, then puts each table's pages in at its root page, in add() order.
  result<void> close();

 private:
  sqlite_db& db_;
  std::string spill_dir_;
  std::uint32_t page_size_ = 0;
  std::deque<std::pair<std::string, table_pages>> laid_out_;
};

/// Rows of one table, inserted in the order row() gets them, `batch` rows per
/// INSERT statement (one prepared multi-row statement reused): SQLite's
/// per-statement work dominated tables with many small rows (TASK_PMU_INFO:
/// 30 rows per task). The last rows wait until flush() (or the destructor).
class table_writer {
 public:
  table_writer(sqlite3* db, std::string name, std::size_t ncols, result<void>* status);
  ~table_writer();
  table_writer(const table_writer&) = delete;
  table_writer& operator=(const table_writer&) = delete;
  /// One row: the values in column order (integers, doubles, strings).
  template <class... Args>
  void row(const Args&... vs) {
    if (!batch_st_ || !*status_) return;
    (put(vs), ...);
    if (++pending_ == batch_) step_batch();
  }
  /// One row of cells of any kind (NULL included), in column order.
  void values(const std::vector<db_value>& cells) {
    if (!batch_st_ || !*status_) return;
    if (cells.size() != ncols_) {  // a writer's bug; the cells would shift into the next row
      *status_ = make_error(errc::invalid_argument, name_ + ": a row of " + std::to_string(cells.size()) +
                                                        " values for " + std::to_string(ncols_) + " columns");
      return;
    }
    for (const auto& v : cells) std::visit([this](const auto& x) { put(x); }, v);
    if (++pending_ == batch_) step_batch();
  }
  /// Inserts the rows still waiting.
  void flush();
  std::uint64_t rows() const noexcept { return rows_; }
  const std::string& name() const noexcept { return name_; }

 private:
  struct cell {
    enum kind_t : std::uint8_t { integer, real, text, null } kind;
    std::int64_t i;    ///< integer, or the text's offset in text_
    double d;          ///< real, or the text's length
  };
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  void put(T v) {
    cells_.push_back({cell::integer, static_cast<std::int64_t>(v), 0});
  }
  void put(double v) { cells_.push_back({cell::real, 0, v}); }
  void put(std::string_view v);
  void put(std::monostate) { cells_.push_back({cell::null, 0, 0}); }
  template <class T>
  void put(const std::optional<T>& v) {
    if (v)
      put(*v);
    else
      put(std::monostate{});
  }
  void step_batch();
  /// Binds cells_ [0, rows * ncols) to `st` and runs it.
  void run(sqlite3_stmt* st, std::size_t rows);
  sqlite3_stmt* prepare(std::size_t rows);
  void fail(const char* what);
  sqlite3* db_;
  std::string name_;
  std::size_t ncols_;
  std::size_t batch_;
  result<void>* status_;
  sqlite3_stmt* batch_st_ = nullptr;  ///< `batch_` rows per statement
  std::vector<cell> cells_;           ///< the rows waiting, row after row
  std::string text_;                  ///< their text values
  std::size_t pending_ = 0;
  std::uint64_t rows_ = 0;
};

// Sort keys. They go to disk as bytes, so they have no padding.
struct id_key {
  std::uint64_t id;  ///< connection id (CANN_API) or global task id (TASK, TASK_PMU_INFO)
  bool operator<(const id_key& o) const noexcept { return id < o.id; }
};
/// COMPUTE_TASK_INFO order; the global task id breaks ties as the task order did
/// in the whole-model writer's stable sort.
struct compute_key {
  std::int64_t start_ns;
  std::uint64_t global_task_id;
  std::uint32_t device_id, stream_id, task_id, pad;
  bool operator<(const compute_key& o) const noexcept {
    return std::tie(device_id, stream_id, task_id, start_ns, global_task_id) <
           std::tie(o.device_id, o.stream_id, o.task_id, o.start_ns, o.global_task_id);
  }
};
/// A time range on a device (OVERLAP_ANALYSIS): an op's, or a free gap.
struct interval_key {
  std::int64_t start_ns, end_ns;
  std::uint32_t device_id, pad;
  bool operator<(const interval_key& o) const noexcept {
    return std::tie(device_id, start_ns, end_ns) < std::tie(o.device_id, o.start_ns, o.end_ns);
  }
};

}  // namespace detail

/// A table's rows and the time finish() spent writing it (the bench's rows/s per table).
struct db_table_stat {
  std::string table;
  std::uint64_t rows = 0;
  double seconds = 0;
};

/// Writes the database to `path` (which must not exist) from windows of the
/// model (model.hpp): add() every window, then finish() with the final model.
/// MSTX_EVENTS rows go in as they arrive (their strings are the first
/// registered, so their ids are final at once). Every other table has a global
/// order: its rows wait in spill_sorters (together they keep about
/// `spill_budget` bytes in memory, runs go to `spill_dir`) and finish() writes
/// them, registering their strings, in exactly the order of the whole-model
/// writer. The SQLite calls are the same whatever the windows, so the file is too.
class db_window_writer {
  static constexpr std::size_t sorters = 6;

 public:
  db_window_writer(std::string path, const std::string& spill_dir, std::size_t spill_budget = spill_budget_default);

  /// Takes one window; the database is created on the first call.
  result<void> add(const model& w);

  /// The collectives (convert/hccl.hpp; must outlive finish()): their
  /// COMMUNICATION_OP and COMMUNICATION_TASK_INFO rows and overlap lanes.
  void set_communication(const hccl::communication& c) { comm_ = &c; }

  /// Writes the ordered tables and the rest from the final model (its records
  /// are ignored) and closes the database.
  result<void> finish(const model& final);

  /// After finish(): every table's rows, and the seconds finish() spent on the
  /// ones it writes in order (0 for those written as windows came), then the
  /// TaskIndex and the enum tables as two more entries.
  const std::vector<db_table_stat>& table_stats() const noexcept { return stats_; }
  /// After finish(): problems of data it read itself (npu_module_mem slices).
  const std::vector<std::string>& warnings() const noexcept { return warnings_; }

 private:
  result<void> open();

  /// The table's insert; the table is created on first use, so tables appear
  /// in the reference's order.
  detail::table_writer& rows_of(const char* name);
  /// The table created now, with no insert (rows_of() adds one, or its rows
  /// go in as pages); its column count.
  std::size_t create_table(const char* name);

  static std::int64_t gtid(const model& m, std::uint32_t tid);

  /// table_stats(): the time since the last lap goes to `what` (a table's
  /// rows, flushed first, or another step of finish()).
  db_table_stat& stat_of(const std::string& table);
  void lap_named(const std::string& what);
  void lap(detail::table_writer& t);

  /// One task's rows for TASK, COMPUTE_TASK_INFO, TASK_PMU_INFO and OVERLAP_ANALYSIS.
  void add_task(const model& w, const device_task& t);

  /// TASK by global task id, then COMPUTE_TASK_INFO by (device, stream, task, start).
  result<void> write_tasks(const model& final);

  /// finish()'s tables, TASK_PMU_INFO's rows aside (`pmu`: the table is created in its place).
  result<void> write_tables(const model& final, bool pmu);

  /// TASK_PMU_INFO's rows into `p`: a row per name (`aic_names` aic names,
  /// then the aiv ones) per task, by global task id.
  result<void> lay_out_pmu(detail::table_pages& p, const std::vector<std::int64_t>& name_ids, std::size_t aic_names);

  /// The table, created now; its rows go through the returned table_pages
  /// (sqlite_pages.hpp) into the file at write_pages(). Null after a failure.
  detail::table_pages* pages_of(const char* name);
  /// Closes SQLite, puts the paged tables in, opens it again.
  result<void> write_pages();

  /// OVERLAP_ANALYSIS per device: the merged op intervals, then the free gaps
  /// between the device's first task start and last task end.
  result<void> write_overlap();

  /// NPU_MODULE_MEM from the PROF_ directory's npu_module_mem slices (defined in npu_memory.cpp).
  result<void> write_module_mem(const std::string& prof_dir);
  /// NPU_MEM from its npu_mem slices, registering "app" and "device" (npu_memory.cpp).
  result<void> write_npu_mem(const std::string& prof_dir);
  /// PCIE from its pcie slices, HCCS from its hccs slices (sys_io.cpp).
  result<void> write_pcie(const std::string& prof_dir);
  result<void> write_hccs(const std::string& prof_dir);
  /// NIC or ROCE (`table`) from its slices `stem` (nic, roce; sys_io.cpp).
  result<void> write_network(const std::string& prof_dir, const char* stem, const char* table);
  /// HBM from its hbm slices, registering "read" and "write"; DDR from its ddr slices (sys_mem.cpp).
  result<void> write_hbm(const std::string& prof_dir);
  result<void> write_ddr(const std::string& prof_dir);
  /// LLC from its llc slices (llc.cpp); its modes' ids come first (register_early_ids).
  result<void> write_llc(const std::string& prof_dir);
  /// QOS from its qos slices (qos.cpp); its event names' ids come early (register_early_ids).
  result<void> write_qos(const std::string& prof_dir);
  /// ACC_PMU from the stars_soc slices' accelerator PMU samples (acc_pmu.cpp).
  result<void> write_acc_pmu(const std::string& prof_dir);
  /// Once, before the first string of a window or of finish(): the LLC modes,
  /// whose saver the reference starts before the others, then the QoS event names.
  void register_early_ids(const std::string& prof_dir);
  /// CPU_USAGE, HOST_MEM_USAGE, HOST_DISK_USAGE and HOST_NETWORK_USAGE from the host's usage slices (host_usage.cpp).
  result<void> write_host_usage(const std::string& prof_dir);
  /// NPU_OP_MEM from its task_memory_info slices, registering "GE" and the op names (npu_memory.cpp).
  result<void> write_ge_memory(const model& final);

  detail::sqlite_db db_;
  std::string spill_dir_;
  std::size_t sorter_budget_;  ///< each spill sorter's memory
  /// CANN_API, TASK, COMPUTE_TASK_INFO, OVERLAP_ANALYSIS and TASK_PMU_INFO: laid out as pages,
  /// put in by write_pages().
  detail::paged_tables paged_;
  bool opened_ = false;
  bool has_task_ = false;  ///< a TASK table was written: its index follows
  bool early_ids_ = false;  ///< the strings the reference registers before any other (register_early_ids)
  result<void> status_;  ///< the first failure; every later call returns it
  detail::string_ids ids_;
  std::vector<std::pair<std::string, std::unique_ptr<detail::table_writer>>> tables_;  ///< in creation order; no writer: no insert
  bool any_pmu_ = false;
  const hccl::communication* comm_ = nullptr;
  void write_communication();
  std::optional<pmu_columns> pmu_cols_;  ///< the collection's PMU metrics, from the first task with PMU
  spill_sorter<detail::id_key> apis_, tasks_, pmu_;
  spill_sorter<detail::compute_key> compute_;
  overlap_windows overlap_;                  ///< OVERLAP_ANALYSIS's compute intervals and free time
  spill_sorter<detail::interval_key> gaps_;  ///< a device's free gaps, until its lanes are written
  std::vector<db_table_stat> stats_;
  std::vector<std::string> warnings_;
  std::chrono::steady_clock::time_point lap_start_;
};

/// Writes the whole model to `path` (which must not exist) as one window.
result<void> write_db(const model& m, const std::string& path, std::size_t spill_budget = spill_budget_default);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_DB_HPP
