// SPDX-License-Identifier: MIT
// table_pages: a table's rows written straight into SQLite's file format, the
// bulk load no INSERT can match. SQLite creates the database and the (empty)
// table and closes the file; the rows are then encoded as records into leaf
// pages appended to the file, the interior pages are built over them, the
// table's root page becomes the tree's root, and the header's page count is
// set. SQLite reads the file as if it had inserted the rows itself (same
// values, same types, `PRAGMA integrity_check` ok). Used for the db's largest
// tables (db.cpp: TASK_PMU_INFO, TASK, CANN_API, ...; their inserts were half
// the export's time) and torch_npu's framework tables (ascend_pt/db.cpp).
#ifndef MSPROF_CONVERT_SQLITE_PAGES_HPP
#define MSPROF_CONVERT_SQLITE_PAGES_HPP

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "../core/error.hpp"
#include "../core/output_file.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace detail {

/// A value as SQLite stores it: a number in a column of INTEGER or NUMERIC
/// affinity, or a text (the column's affinity TEXT, or none).
struct sqlite_cell {
  enum kind_t : std::uint8_t { integer, real, null, text } kind;
  std::int64_t i;     ///< integer, or the text's length in bytes
  double d;
  const char* s;      ///< text: its UTF-8 bytes, alive until row() returns
  static sqlite_cell of(std::int64_t v) noexcept { return {integer, v, 0, nullptr}; }
  static sqlite_cell null_value() noexcept { return {null, 0, 0, nullptr}; }
  static sqlite_cell of(std::string_view t) noexcept { return {text, static_cast<std::int64_t>(t.size()), 0, t.data()}; }
  /// A double as those affinities store it: an integral value inside the
  /// int64 range as that integer, NaN as NULL (what sqlite3_bind_double and
  /// the column's affinity make of it).
  static sqlite_cell of(double v) noexcept {
    if (std::isnan(v)) return null_value();
    constexpr auto lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
    // SQLite's real-to-integer rule: the round trip is exact and the integer is
    // neither int64 bound (a double at or past them clamps there). Inline: the
    // db's most frequent cell (TASK_PMU_INFO's values).
    const std::int64_t i = v <= static_cast<double>(lo) ? lo : v >= static_cast<double>(hi) ? hi : static_cast<std::int64_t>(v);
    if (static_cast<double>(i) == v && i > lo && i < hi) return of(i);
    return {real, 0, v, nullptr};
  }
};

/// A table's rows, in rowid order, as SQLite table b-tree pages, into a
/// database SQLite has closed, whose table (created empty by SQLite) becomes
/// the tree: the leaves are appended after its last page, the interior pages
/// built over them, the table's root page made the tree's root and the
/// header's page count set. The pages are laid out while SQLite still writes
/// the other tables, then copied in (create(), graft()): in memory up to a MiB
/// of leaves, past that in an unnamed temporary file. A row must fit in its
/// leaf (no overflow pages: at most the page size less 35 bytes), or it is an
/// error. Errors name the file.
class table_pages {
 public:
  /// Rows laid out as pages of `page_size` bytes (the database's) in a temporary file in `dir`.
  static result<table_pages> create(const std::string& dir, std::uint32_t page_size);
  table_pages() = default;  ///< no file: create() makes a usable one
  table_pages(table_pages&&) = default;
  table_pages& operator=(table_pages&&) = default;

  /// A row of a table without INTEGER PRIMARY KEY: rowid 1, 2, ...
  void row(const sqlite_cell* values, std::size_t n) { row(last_rowid_ + 1, values, n); }
  /// A row and its rowid, greater than the last one: a table's INTEGER PRIMARY
  /// KEY is the rowid, and its column NULL in `values`.
  void row(std::int64_t rowid, const sqlite_cell* values, std::size_t n);
  std::uint64_t rows() const noexcept { return rows_; }
  /// The pages into the closed database `db` (no link followed) as its table
  /// whose root is page `root`, then the tree and the header. Once.
  result<void> graft(const std::string& db, std::uint32_t root);

 private:
  struct child {
    std::uint32_t page;
    std::int64_t last_rowid;
  };
  void end_leaf();
  /// `page` as the next page (of the temporary file, or of the database once grafting).
  void append(const std::string& page);
  void write_pending();
  void write_root(const std::string& page);
  /// Interior pages over `level`, the top one written at the root page.
  void build_interior(std::vector<child> level);
  result<void> open_db(const std::string& db);
  result<void> close_tree();
  const std::string& label() const noexcept { return db_ ? db_path_ : temp_label_; }
  void fail(const std::string& what);

  enum class state : std::uint8_t { unusable, laying_out, done } state_ = state::unusable;
  std::string temp_dir_, temp_label_, db_path_;
  outfile::unique_fd temp_, db_;  ///< pages are appended to db_ once it is open, else to temp_ (made when needed)
  outfile::reserve_ahead temp_reserve_, db_reserve_;  ///< their blocks allocated ahead of the pages
  std::uint32_t page_size_ = 0, pages_ = 0, root_ = 0;
  std::uint32_t db_pages_ = 0;  ///< the database's pages when opened
  unsigned char header_[100] = {};  ///< the database's header when opened
  std::uint64_t rows_ = 0;
  std::int64_t last_rowid_ = 0, page_last_ = 0;  ///< the last row's rowid, the last one in page_
  std::string page_;                     ///< the page being filled
  std::size_t cells_ = 0, content_ = 0;  ///< its cell count and the start of its cell content
  std::string out_;                      ///< pages waiting to be written
  std::uint32_t out_first_ = 0;          ///< page number of out_'s first page
  std::uint32_t out_offset_ = 0;         ///< pages before page 1 where out_ is written (graft from memory)
  std::vector<child> leaves_;            ///< leaves written, each with its last rowid
  bool held_ = false;                    ///< the first leaf stays in memory: the root if it is the only one
  std::string first_leaf_;
  std::int64_t first_last_ = 0;
  result<void> status_;
};

}  // namespace detail
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_SQLITE_PAGES_HPP
