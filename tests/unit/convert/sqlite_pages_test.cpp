// SPDX-License-Identifier: MIT
// table_pages (convert/sqlite_pages.hpp): rows written as pages into a closed
// SQLite file read back exactly as SQLite's own INSERTs of the same bound values
// (values, storage types, rowids), at one leaf and at several interior levels,
// and SQLite goes on using the file (more rows, an index, integrity_check).
#include <doctest/doctest.h>
#include <msprof/convert/sqlite_pages.hpp>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "../../support/temp_dir.hpp"

namespace cv = msprof::convert;
using cv::detail::sqlite_cell;

namespace {

struct bound {  // a value as the exporter binds it
  bool real;
  std::int64_t i;
  double d;
};

void exec(sqlite3* db, const std::string& sql) {
  char* msg = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg);
  INFO(sql << ": " << (msg ? msg : ""));
  sqlite3_free(msg);
  REQUIRE(rc == SQLITE_OK);
}

constexpr const char* table_sql = "CREATE TABLE T (a INTEGER, b INTEGER, c NUMERIC)";

/// A database with table T (and a table before it), pages of `page_size`, closed.
void create(const std::string& path, int page_size) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  exec(db, "PRAGMA page_size=" + std::to_string(page_size) + "; PRAGMA journal_mode=OFF; CREATE TABLE before (x TEXT); " +
               "INSERT INTO before VALUES ('kept'); " + table_sql);
  REQUIRE(sqlite3_close(db) == SQLITE_OK);
}

std::uint32_t root_of(const std::string& path) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_schema WHERE name='T'", -1, &st, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(st) == SQLITE_ROW);
  const auto root = static_cast<std::uint32_t>(sqlite3_column_int64(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return root;
}

/// Every row as text: rowid, then each value with its storage type (reals by their bits).
std::vector<std::string> dump(const std::string& path, const std::string& query = "SELECT rowid, a, b, c FROM T ORDER BY rowid") {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, query.c_str(), -1, &st, nullptr) == SQLITE_OK);
  std::vector<std::string> rows;
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::string r;
    for (int k = 0; k < sqlite3_column_count(st); ++k) {
      switch (sqlite3_column_type(st, k)) {
        case SQLITE_INTEGER: r += "i" + std::to_string(sqlite3_column_int64(st, k)); break;
        case SQLITE_FLOAT: {
          const double d = sqlite3_column_double(st, k);
          std::uint64_t bits;
          std::memcpy(&bits, &d, sizeof bits);
          r += "r" + std::to_string(bits);
          break;
        }
        case SQLITE_NULL: r += "null"; break;
        default: r += "t" + std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, k)));
      }
      r += ' ';
    }
    rows.push_back(r);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return rows;
}

std::string integrity(const std::string& path) {
  const auto r = dump(path, "PRAGMA integrity_check");
  return r.size() == 1 ? r[0] : std::to_string(r.size()) + " problems, first: " + (r.empty() ? "" : r[0]);
}

/// Rows with the integers and doubles whose storage SQLite decides by size and value.
std::vector<std::vector<bound>> sample_rows(std::size_t n) {
  constexpr auto lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  const std::int64_t ints[] = {0,   1,     -1,     127,     128,     -128,       -129,      32767,     32768,
                               -32769, 8388607, 8388608, 2147483647, 2147483648LL, -2147483649LL, 140737488355327LL,
                               140737488355328LL, hi, lo};
  const double reals[] = {0.0,   -0.0, 1.0,  1.5,  3.0,     -7.0, 0.1, 1e300, 9.3e18, -9.3e18, 9223372036854775807.0,
                          -9223372036854775808.0, std::nan(""), std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity(), 123456789.0, 4503599627370497.0};
  std::vector<std::vector<bound>> rows;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t a = ints[i % (sizeof ints / sizeof ints[0])];
    const double c = i % 3 == 0 ? reals[(i / 3) % (sizeof reals / sizeof reals[0])] : static_cast<double>(i) / 8;
    rows.push_back({{false, a, 0}, {false, static_cast<std::int64_t>(i * 7919 % 100003), 0}, {true, 0, c}});
  }
  return rows;
}

/// `count` rows through SQLite's INSERT `sql` in one transaction, `bind(st, i)` binding the i-th.
template <class Bind>
void insert_each_sqlite(const std::string& path, const char* sql, std::size_t count, Bind&& bind) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  exec(db, "BEGIN");
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK);
  for (std::size_t i = 0; i < count; ++i) {
    bind(st, i);
    REQUIRE(sqlite3_step(st) == SQLITE_DONE);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  exec(db, "COMMIT");
  sqlite3_close(db);
}

/// T's rows through SQLite's INSERT with bound values.
void insert_sqlite(const std::string& path, const std::vector<std::vector<bound>>& rows) {
  insert_each_sqlite(path, "INSERT INTO T VALUES (?, ?, ?)", rows.size(), [&](sqlite3_stmt* st, std::size_t i) {
    for (int k = 0; k < 3; ++k)
      if (rows[i][k].real)
        sqlite3_bind_double(st, k + 1, rows[i][k].d);
      else
        sqlite3_bind_int64(st, k + 1, rows[i][k].i);
  });
}

/// T's rows through table_pages: laid out in `dir` then grafted into `path`.
void insert_pages(const std::string& dir, const std::string& path, const std::vector<std::vector<bound>>& rows,
                  std::uint32_t page_size) {
  auto pages = cv::detail::table_pages::create(dir, page_size);
  REQUIRE_MESSAGE(pages, (pages ? "" : pages.err().what()));
  for (const auto& r : rows) {
    sqlite_cell v[3];
    for (int k = 0; k < 3; ++k) v[k] = r[k].real ? sqlite_cell::of(r[k].d) : sqlite_cell::of(r[k].i);
    pages->row(v, 3);
  }
  CHECK(pages->rows() == rows.size());
  const auto done = pages->graft(path, root_of(path));
  REQUIRE_MESSAGE(done, (done ? "" : done.err().what()));
}

}  // namespace

TEST_CASE("table_pages: rows read back as SQLite's own inserts of the same values, one leaf to four levels") {
  temp_dir d("msprof_sqlite_pages");
  // 512-byte pages: 100 k rows make four levels (about 20 rows a leaf, 56 children an interior page).
  for (std::size_t n : {0u, 1u, 12u, 30u, 1200u, 100000u}) {
    CAPTURE(n);
    const auto rows = sample_rows(n);
    const std::string by_sqlite = (d / ("sqlite" + std::to_string(n) + ".db")).string();
    const std::string by_pages = (d / ("pages" + std::to_string(n) + ".db")).string();
    create(by_sqlite, 512);
    create(by_pages, 512);
    insert_sqlite(by_sqlite, rows);
    insert_pages(d.path, by_pages, rows, 512);
    CHECK(integrity(by_pages) == "tok ");
    const auto want = dump(by_sqlite), got = dump(by_pages);
    CHECK(got.size() == n);
    CHECK(got == want);
    CHECK(dump(by_pages, "SELECT x FROM before") == std::vector<std::string>{"tkept "});
    // SQLite goes on with the file: more rows after the last rowid, an index over all of them.
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(by_pages.c_str(), &db) == SQLITE_OK);
    exec(db, "INSERT INTO T VALUES (5, 6, 7.5); CREATE INDEX TI ON T (b, a); CREATE TABLE after (y INTEGER)");
    sqlite3_close(db);
    CHECK(integrity(by_pages) == "tok ");
    const auto last = dump(by_pages, "SELECT rowid, a FROM T ORDER BY rowid DESC LIMIT 1");
    CHECK(last == std::vector<std::string>{"i" + std::to_string(n + 1) + " i5 "});
    CHECK(dump(by_pages, "SELECT count(*) FROM T INDEXED BY TI WHERE b >= 0") ==
          std::vector<std::string>{"i" + std::to_string(n + 1) + " "});
  }
}

TEST_CASE("table_pages: default 4 KiB pages, the exporter's size") {
  temp_dir d("msprof_sqlite_pages");
  const auto rows = sample_rows(50000);
  const std::string by_sqlite = (d / "sqlite.db").string(), by_pages = (d / "pages.db").string();
  create(by_sqlite, 4096);
  create(by_pages, 4096);
  insert_sqlite(by_sqlite, rows);
  insert_pages(d.path, by_pages, rows, 4096);
  CHECK(integrity(by_pages) == "tok ");
  CHECK(dump(by_pages) == dump(by_sqlite));
}

TEST_CASE("table_pages: an INTEGER PRIMARY KEY table takes each row's key as its rowid") {
  temp_dir d("msprof_sqlite_pages");
  const std::string by_sqlite = (d / "sqlite.db").string(), by_pages = (d / "pages.db").string();
  for (const auto& p : {by_sqlite, by_pages}) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(p.c_str(), &db) == SQLITE_OK);
    exec(db, "PRAGMA page_size=512; CREATE TABLE K (x INTEGER, id INTEGER PRIMARY KEY, y NUMERIC)");
    sqlite3_close(db);
  }
  const std::int64_t keys[] = {-5, 0, 3, 4, 1000, 1001, 70000, 1LL << 40};
  auto pages = cv::detail::table_pages::create(d.path, 512);
  REQUIRE(pages);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(by_sqlite.c_str(), &db) == SQLITE_OK);
  for (std::size_t rep = 0; rep < 200; ++rep)  // several leaves, keys ascending
    for (std::int64_t k : keys) {
      const std::int64_t id = k + static_cast<std::int64_t>(rep) * (std::int64_t{1} << 41);
      const double y = static_cast<double>(rep) + 0.25 * static_cast<double>(k % 4);
      exec(db, "INSERT INTO K VALUES (" + std::to_string(rep) + ", " + std::to_string(id) + ", " + std::to_string(y) + ")");
      const sqlite_cell row[] = {sqlite_cell::of(static_cast<std::int64_t>(rep)), sqlite_cell::null_value(),
                                   sqlite_cell::of(y)};
      pages->row(id, row, 3);
    }
  sqlite3_close(db);
  const auto done = pages->graft(by_pages, [&] {
    sqlite3* h = nullptr;
    sqlite3_open(by_pages.c_str(), &h);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(h, "SELECT rootpage FROM sqlite_schema WHERE name='K'", -1, &st, nullptr);
    sqlite3_step(st);
    const auto r = static_cast<std::uint32_t>(sqlite3_column_int64(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(h);
    return r;
  }());
  REQUIRE_MESSAGE(done, (done ? "" : done.err().what()));
  CHECK(integrity(by_pages) == "tok ");
  const std::string q = "SELECT rowid, x, id, y FROM K ORDER BY rowid";
  CHECK(dump(by_pages, q).size() == 1600);
  CHECK(dump(by_pages, q) == dump(by_sqlite, q));
  CHECK(dump(by_pages, "SELECT x FROM K WHERE id = 1099511627776") == std::vector<std::string>{"i0 "});
}

TEST_CASE("table_pages: rows out of rowid order are refused, naming the temporary file") {
  temp_dir d("msprof_sqlite_pages");
  auto pages = cv::detail::table_pages::create(d.path, 4096);
  REQUIRE(pages);
  const sqlite_cell v[] = {sqlite_cell::of(std::int64_t{1})};
  pages->row(10, v, 1);
  pages->row(10, v, 1);
  const std::string db = (d / "t.db").string();
  create(db, 4096);
  const auto e = pages->graft(db, root_of(db));
  REQUIRE_FALSE(e);
  CHECK(e.err().message.find("rowid 10 after 10") != std::string::npos);
  CHECK(e.err().message.find(".msprof_pages_") != std::string::npos);
  CHECK(dump(db).empty());
  CHECK(integrity(db) == "tok ");
}

TEST_CASE("table_pages: a file that is no SQLite database, a root that is no empty table, a link: errors naming the file") {
  temp_dir d("msprof_sqlite_pages");
  auto graft = [&](const std::string& path, std::uint32_t root, std::uint32_t page_size = 512) {
    auto pages = cv::detail::table_pages::create(d.path, page_size);
    REQUIRE(pages);
    for (const auto& r : sample_rows(100)) {
      const sqlite_cell v[] = {sqlite_cell::of(r[0].i), sqlite_cell::of(r[1].i), sqlite_cell::of(r[2].d)};
      pages->row(v, 3);
    }
    return pages->graft(path, root);
  };
  const std::string text = (d / "text.db").string();
  std::ofstream(text) << std::string(200, 'x');
  auto e = graft(text, 2);
  REQUIRE_FALSE(e);
  CHECK(e.err().message.find(text) != std::string::npos);
  CHECK(e.err().message.find("not an SQLite database") != std::string::npos);

  const std::string db = (d / "full.db").string();
  create(db, 512);
  insert_sqlite(db, sample_rows(3));
  const auto before = dump(db);
  e = graft(db, root_of(db));
  REQUIRE_FALSE(e);
  CHECK(e.err().message.find("is not an empty table") != std::string::npos);
  e = graft(db, 999);
  REQUIRE_FALSE(e);
  CHECK(e.err().message.find("no page 999") != std::string::npos);
  e = graft(db, 1);
  REQUIRE_FALSE(e);
  e = graft(db, root_of(db), 4096);
  REQUIRE_FALSE(e);
  CHECK(e.err().message.find("pages of 512 bytes") != std::string::npos);

  const std::string link = (d / "link.db").string();
  std::filesystem::create_symlink(db, link);
  e = graft(link, root_of(db));
  REQUIRE_FALSE(e);
  CHECK(e.err().message.find(link) != std::string::npos);
  CHECK(dump(db) == before);  // nothing written through any of them
  CHECK(integrity(db) == "tok ");
  CHECK_FALSE(cv::detail::table_pages::create(d.path, 1000));
}

TEST_CASE("table_pages: leaves stay in memory up to a MiB, past it in a temporary file, and one that cannot be made is an error naming it") {
  temp_dir d("msprof_sqlite_pages");
  const std::string missing = (d / "no such dir").string();
  for (std::size_t n : {1000u, 200000u}) {  // about 25 KiB and 5 MiB of leaves
    CAPTURE(n);
    const std::string db = (d / ("t" + std::to_string(n) + ".db")).string();
    create(db, 4096);
    auto pages = cv::detail::table_pages::create(missing, 4096);
    REQUIRE(pages);
    for (const auto& r : sample_rows(n)) {
      const sqlite_cell v[] = {sqlite_cell::of(r[0].i), sqlite_cell::of(r[1].i), sqlite_cell::of(r[2].d)};
      pages->row(v, 3);
    }
    const auto e = pages->graft(db, root_of(db));
    if (n == 1000) {
      CHECK(e);
      CHECK(dump(db).size() == n);
    } else {
      REQUIRE_FALSE(e);
      CHECK(e.err().message.find(missing + "/.msprof_pages_") != std::string::npos);
      CHECK(e.err().message.find("cannot create") != std::string::npos);
      CHECK(dump(db).empty());
    }
    CHECK(integrity(db) == "tok ");
  }
}

TEST_CASE("table_pages: a grafted database keeps no blocks allocated past its last page") {
  temp_dir d("msprof_sqlite_pages");
  const std::string db = (d / "t.db").string();
  create(db, 4096);
  auto pages = cv::detail::table_pages::create(d.path, 4096);
  REQUIRE(pages);
  const std::size_t n = 200000;  // about 5 MiB of leaves, less than a step of blocks allocated ahead
  for (const auto& r : sample_rows(n)) {
    const sqlite_cell v[] = {sqlite_cell::of(r[0].i), sqlite_cell::of(r[1].i), sqlite_cell::of(r[2].d)};
    pages->row(v, 3);
  }
  REQUIRE(pages->graft(db, root_of(db)));
  const auto size = std::filesystem::file_size(db);
  struct stat st {};
  REQUIRE(::stat(db.c_str(), &st) == 0);
  CHECK(size > (std::uint64_t{4} << 20));
  CHECK(static_cast<std::uint64_t>(st.st_blocks) * 512 < size + (std::uint64_t{1} << 20));
  CHECK(dump(db).size() == n);
  CHECK(integrity(db) == "tok ");
}

namespace {

/// A row of table X (s TEXT, n INTEGER, u TEXT): texts of many lengths (the
/// serial type's varint grows past 57 bytes, the record header's past 63 ones
/// ... 127), UTF-8 beyond ASCII, NULLs and integers among them.
struct pages_text_row {
  bool s_null;
  std::string s;
  std::int64_t n;
  std::string u;
};

std::vector<pages_text_row> pages_text_rows(std::size_t count, std::size_t longest) {
  std::vector<pages_text_row> rows;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t len = (i * 37) % (longest + 1);
    std::string s;
    for (std::size_t k = 0; k < len; ++k) s += static_cast<char>('a' + (i + k) % 26);
    if (i % 11 == 3) s = "\xce\xbb-" + std::to_string(i) + "-\xe6\x97\xb6";  // λ and 时
    rows.push_back({i % 13 == 5, s, static_cast<std::int64_t>(i * 104729) - 5000000, std::to_string(1700000000000000000LL + static_cast<std::int64_t>(i))});
  }
  return rows;
}

void pages_text_create(const std::string& path, int page_size) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  exec(db, "PRAGMA page_size=" + std::to_string(page_size) + "; CREATE TABLE before (x TEXT); INSERT INTO before VALUES ('kept'); "
           "CREATE TABLE X (s TEXT, n INTEGER, u TEXT)");
  REQUIRE(sqlite3_close(db) == SQLITE_OK);
}

std::uint32_t pages_text_root(const std::string& path) {
  const auto r = dump(path, "SELECT rootpage FROM sqlite_schema WHERE name='X'");
  REQUIRE(r.size() == 1);
  return static_cast<std::uint32_t>(std::stoul(r[0].substr(1)));
}

}  // namespace

TEST_CASE("table_pages: TEXT cells read back as SQLite's own inserts of the same texts, one leaf to several levels") {
  temp_dir d("msprof_sqlite_pages");
  const std::string q = "SELECT rowid, s, typeof(s), length(s), n, u, typeof(u) FROM X ORDER BY rowid";
  // 512-byte pages, texts up to 400 bytes: about one row a leaf at the longest, so 20 k rows make three levels or more.
  for (std::size_t n : {1u, 40u, 20000u}) {
    CAPTURE(n);
    const auto rows = pages_text_rows(n, 400);
    const std::string by_sqlite = (d / ("xs" + std::to_string(n) + ".db")).string();
    const std::string by_pages = (d / ("xp" + std::to_string(n) + ".db")).string();
    pages_text_create(by_sqlite, 512);
    insert_each_sqlite(by_sqlite, "INSERT INTO X VALUES (?, ?, ?)", rows.size(), [&](sqlite3_stmt* st, std::size_t i) {
      const auto& r = rows[i];
      if (r.s_null)
        sqlite3_bind_null(st, 1);
      else
        sqlite3_bind_text(st, 1, r.s.data(), static_cast<int>(r.s.size()), SQLITE_TRANSIENT);
      sqlite3_bind_int64(st, 2, r.n);
      sqlite3_bind_text(st, 3, r.u.data(), static_cast<int>(r.u.size()), SQLITE_TRANSIENT);
    });
    pages_text_create(by_pages, 512);
    auto pages = cv::detail::table_pages::create(d.path, 512);
    REQUIRE(pages);
    for (const auto& r : rows) {
      const sqlite_cell v[] = {r.s_null ? sqlite_cell::null_value() : sqlite_cell::of(std::string_view(r.s)),
                               sqlite_cell::of(r.n), sqlite_cell::of(std::string_view(r.u))};
      pages->row(v, 3);
    }
    const auto done = pages->graft(by_pages, pages_text_root(by_pages));
    REQUIRE_MESSAGE(done, (done ? "" : done.err().what()));
    CHECK(integrity(by_pages) == "tok ");
    const auto got = dump(by_pages, q);
    CHECK(got.size() == n);
    CHECK(got == dump(by_sqlite, q));
    CHECK(dump(by_pages, "SELECT x FROM before") == std::vector<std::string>{"tkept "});
    if (n == 20000) {  // the tree has interior pages over interior pages
      CHECK(std::stoul(dump(by_pages, "PRAGMA page_count").front().substr(1)) > n / 4);
      CHECK(dump(by_pages, "SELECT s FROM X WHERE rowid = 12345") ==
            std::vector<std::string>{rows[12344].s_null ? "null " : "t" + rows[12344].s + " "});
    }
  }
}

TEST_CASE("table_pages: a TEXT row longer than a page holds is refused, naming the file, and no row goes in") {
  temp_dir d("msprof_sqlite_pages");
  const std::string db = (d / "long.db").string();
  pages_text_create(db, 512);
  auto pages = cv::detail::table_pages::create(d.path, 512);
  REQUIRE(pages);
  const std::string fits(470, 'x'), too_long(480, 'y');  // 477 bytes at most in a 512-byte leaf
  const sqlite_cell ok[] = {sqlite_cell::of(std::string_view(fits)), sqlite_cell::of(std::int64_t{1}), sqlite_cell::null_value()};
  const sqlite_cell bad[] = {sqlite_cell::of(std::string_view(too_long)), sqlite_cell::of(std::int64_t{2}), sqlite_cell::null_value()};
  pages->row(ok, 3);
  pages->row(bad, 3);
  const auto e = pages->graft(db, pages_text_root(db));
  REQUIRE_FALSE(e);
  CHECK(e.err().message.find(".msprof_pages_") != std::string::npos);
  CHECK(e.err().message.find("more than a page of 512 bytes holds") != std::string::npos);
  CHECK(dump(db, "SELECT * FROM X").empty());
  CHECK(integrity(db) == "tok ");
}
