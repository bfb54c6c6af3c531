// SPDX-License-Identifier: MIT
// table_pages: rows encoded into SQLite's file format (https://sqlite.org/fileformat.html):
// records in table b-tree leaf pages, interior pages over them, the header's page count.
#include "msprof/convert/sqlite_pages.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <tuple>
#include <utility>

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace detail {
namespace {

constexpr char leaf_page = 0x0D, interior_page = 0x05;
constexpr std::size_t leaf_header = 8, interior_header = 12;
constexpr std::size_t pending_pages_bytes = 1u << 20;  // appended pages are written a MiB at a time
constexpr std::size_t writeback_step = 8u << 20;       // grafted pages go to the disk 8 MiB at a time

std::uint32_t get_be(const unsigned char* p, std::size_t n) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

void set_be(char* p, std::uint64_t v, std::size_t n) {
  for (std::size_t i = n; i-- > 0; v >>= 8) p[i] = static_cast<char>(v & 0xff);
}

char* put_be(char* p, std::uint64_t v, std::size_t n) {
  set_be(p, v, n);
  return p + n;
}

/// SQLite's varint: 7 bits a byte, most significant first; a ninth byte holds 8.
std::size_t varint_size(std::uint64_t v) {
  if (v <= 0x7f) return 1;  // most of them: serial types, small ids
  std::size_t n = 1;
  for (; n < 9 && v > 0x7f; v >>= 7) ++n;
  return n;
}

/// put_varint() of a value above 0x7f.
char* put_long_varint(char* p, std::uint64_t v) {
  if (v >> 56) {  // nine bytes: the last one takes 8 bits
    p[8] = static_cast<char>(v & 0xff);
    v >>= 8;
    for (int i = 7; i >= 0; --i, v >>= 7) p[i] = static_cast<char>((v & 0x7f) | 0x80);
    return p + 9;
  }
  const std::size_t n = varint_size(v);
  for (std::size_t i = n; i-- > 0; v >>= 7) p[i] = static_cast<char>((v & 0x7f) | (i + 1 < n ? 0x80 : 0));
  return p + n;
}

// Most varints (serial types, small ids) are one byte: that path is inlined.
inline char* put_varint(char* p, std::uint64_t v) {
  if (v > 0x7f) return put_long_varint(p, v);
  *p = static_cast<char>(v);
  return p + 1;
}

/// An integer's serial type and its bytes in a record (schema format 4: 0 and 1 take none).
std::pair<std::uint32_t, std::size_t> int_serial(std::int64_t v) {
  if (v == 0 || v == 1) return {8u + static_cast<std::uint32_t>(v), 0};
  const std::uint64_t u = v < 0 ? ~static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  if (u <= 0x7f) return {1, 1};
  if (u <= 0x7fff) return {2, 2};
  if (u <= 0x7fffff) return {3, 3};
  if (u <= 0x7fffffff) return {4, 4};
  if (u <= 0x7fffffffffffULL) return {5, 6};
  return {6, 8};
}

}  // namespace

result<table_pages> table_pages::create(const std::string& dir, std::uint32_t page_size) {
  table_pages t;
  t.temp_dir_ = dir;
  t.temp_label_ = dir + "/.msprof_pages_* (temporary pages file)";
  if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0)
    return make_error(errc::invalid_argument, t.temp_label_ + ": impossible page size " + std::to_string(page_size));
  t.state_ = state::laying_out;
  t.page_size_ = page_size;
  t.page_.assign(page_size, '\0');
  t.content_ = page_size;
  return result<table_pages>(std::move(t));
}

void table_pages::fail(const std::string& what) {
  if (status_) status_ = make_error(errc::io, label() + ": " + what + ": " + std::strerror(errno));
}

void table_pages::row(std::int64_t rowid, const sqlite_cell* values, std::size_t n) {
  if (!status_ || state_ == state::done) return;
  if (rows_ != 0 && rowid <= last_rowid_) {
    status_ = make_error(errc::bad_value, label() + ": rowid " + std::to_string(rowid) + " after " +
                                              std::to_string(last_rowid_) + ": rows must come in ascending rowid order");
    return;
  }
  // The record: its header (size, then a serial type per value), then the values.
  std::uint64_t types[64];
  std::size_t sizes[64];
  if (n > sizeof types / sizeof types[0]) {
    status_ = make_error(errc::invalid_argument, label() + ": a row of " + std::to_string(n) + " values");
    return;
  }
  std::size_t type_bytes = 0, body = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const sqlite_cell& v = values[k];
    if (v.kind == sqlite_cell::integer) {
      std::uint32_t t;
      std::tie(t, sizes[k]) = int_serial(v.i);
      types[k] = t;
    } else if (v.kind == sqlite_cell::real) {
      types[k] = 7, sizes[k] = 8;
    } else if (v.kind == sqlite_cell::text) {
      sizes[k] = static_cast<std::size_t>(v.i);
      types[k] = 13 + 2 * std::uint64_t{sizes[k]};
    } else {
      types[k] = 0, sizes[k] = 0;
    }
    type_bytes += varint_size(types[k]);
    body += sizes[k];
  }
  std::size_t header = type_bytes + 1;
  while (varint_size(header) + type_bytes != header) header = varint_size(header) + type_bytes;
  const std::size_t payload = header + body;
  // A longer payload would need overflow pages: the tables written this way have no such row.
  if (payload > page_size_ - 35) {
    status_ = make_error(errc::invalid_argument, label() + ": a row of " + std::to_string(payload) +
                                                     " bytes, more than a page of " + std::to_string(page_size_) + " bytes holds");
    return;
  }
  // The cell goes straight into the leaf, ending it first when it does not fit.
  const std::size_t size = varint_size(payload) + varint_size(static_cast<std::uint64_t>(rowid)) + payload;
  if (leaf_header + 2 * (cells_ + 1) + size > content_) end_leaf();
  content_ -= size;
  set_be(&page_[leaf_header + 2 * cells_], content_, 2);
  ++cells_;
  char* p = put_varint(&page_[content_], payload);
  p = put_varint(p, static_cast<std::uint64_t>(rowid));
  p = put_varint(p, header);
  for (std::size_t k = 0; k < n; ++k) p = put_varint(p, types[k]);
  for (std::size_t k = 0; k < n; ++k) {
    const sqlite_cell& v = values[k];
    if (v.kind == sqlite_cell::integer) {
      p = put_be(p, static_cast<std::uint64_t>(v.i), sizes[k]);
    } else if (v.kind == sqlite_cell::real) {
      std::uint64_t bits;
      std::memcpy(&bits, &v.d, sizeof bits);
      bits = __builtin_bswap64(bits);  // big-endian, in one store
      std::memcpy(p, &bits, sizeof bits);
      p += sizeof bits;
    } else if (v.kind == sqlite_cell::text && v.i > 0) {
      std::memcpy(p, v.s, sizes[k]);
      p += sizes[k];
    }
  }
  ++rows_;
  last_rowid_ = page_last_ = rowid;
}

void table_pages::end_leaf() {
  page_[0] = leaf_page;
  set_be(&page_[3], cells_, 2);
  set_be(&page_[5], content_ == 65536 ? 0 : content_, 2);
  if (leaves_.empty() && !held_) {  // the first leaf: the root itself if no other follows
    held_ = true;
    first_leaf_ = page_;
    first_last_ = page_last_;
  } else {
    if (held_) {
      held_ = false;
      append(first_leaf_);
      leaves_.push_back({pages_, first_last_});
    }
    append(page_);
    leaves_.push_back({pages_, page_last_});
  }
  std::memset(page_.data(), 0, page_.size());
  cells_ = 0;
  content_ = page_size_;
}

void table_pages::append(const std::string& page) {
  if (out_.empty()) out_first_ = pages_ + 1;
  out_.append(page);
  ++pages_;
  if (out_.size() >= pending_pages_bytes) write_pending();
}

void table_pages::write_pending() {
  if (out_.empty() || !status_) return;
  if (!db_ && !temp_) {  // the first MiB of leaves laid out: into an unnamed temporary file
    temp_ = outfile::unnamed_temp(temp_dir_, ".msprof_pages_");
    if (!temp_) return fail("cannot create");
  }
  const int fd = db_ ? db_.get() : temp_.get();
  const std::uint64_t off = std::uint64_t{out_first_ - 1 + out_offset_} * page_size_;
  (db_ ? db_reserve_ : temp_reserve_).before_write(fd, off, out_.size());
  if (::pwrite(fd, out_.data(), out_.size(), static_cast<off_t>(off)) != static_cast<ssize_t>(out_.size()))
    fail("cannot write pages");
  out_.clear();
}

void table_pages::write_root(const std::string& page) {
  if (status_ && ::pwrite(db_.get(), page.data(), page_size_, static_cast<off_t>(root_ - 1) * page_size_) !=
                     static_cast<ssize_t>(page_size_))
    fail("cannot write page " + std::to_string(root_));
}

void table_pages::build_interior(std::vector<child> level) {
  for (;;) {
    // A page holds `cap` children: a cell (pointer, child page, its last rowid) each, the last one in the header.
    std::size_t key_bytes = 1;
    for (const child& c : level) key_bytes = std::max(key_bytes, varint_size(static_cast<std::uint64_t>(c.last_rowid)));
    const std::size_t cap = (page_size_ - interior_header) / (2 + 4 + key_bytes) + 1;
    const bool top = level.size() <= cap;
    // As few pages as hold them, the children shared evenly (two at least each).
    const std::size_t n = level.size(), pages = (n + cap - 1) / cap;
    std::vector<child> up;
    for (std::size_t p = 0, k = 0; p < pages; ++p) {
      const std::size_t end = k + n / pages + (p < n % pages ? 1 : 0);
      std::memset(page_.data(), 0, page_.size());
      std::size_t cells = 0, content = page_size_;
      for (; k + 1 < end; ++k, ++cells) {
        char cell[4 + 9];
        const char* end = put_varint(put_be(cell, level[k].page, 4), static_cast<std::uint64_t>(level[k].last_rowid));
        content -= static_cast<std::size_t>(end - cell);
        std::memcpy(&page_[content], cell, static_cast<std::size_t>(end - cell));
        set_be(&page_[interior_header + 2 * cells], content, 2);
      }
      page_[0] = interior_page;
      set_be(&page_[3], cells, 2);
      set_be(&page_[5], content == 65536 ? 0 : content, 2);
      set_be(&page_[8], level[k].page, 4);  // the right-most child
      if (top) {
        write_root(page_);
      } else {
        append(page_);
        up.push_back({pages_, level[k].last_rowid});
      }
      ++k;
    }
    if (top || !status_) return;
    level = std::move(up);
  }
}

/// Opens the database and checks what grafting relies on: the page size, the
/// header's page count, no auto-vacuum, and the table's root an empty leaf.
result<void> table_pages::open_db(const std::string& db) {
  auto bad = [&](const std::string& what) { return make_error(errc::bad_value, db + ": " + what); };
  db_path_ = db;
  db_ = outfile::unique_fd(::open(db.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC));
  if (!db_) return make_error(errc::io, db + ": cannot open to append rows: " + std::strerror(errno));
  unsigned char* const h = header_;
  if (::pread(db_.get(), h, sizeof header_, 0) != static_cast<ssize_t>(sizeof header_) ||
      std::memcmp(h, "SQLite format 3", 16) != 0)
    return bad("not an SQLite database");
  std::uint32_t page_size = get_be(h + 16, 2);
  if (page_size == 1) page_size = 65536;
  if (page_size != page_size_)
    return bad("pages of " + std::to_string(page_size) + " bytes, the rows were laid out in " + std::to_string(page_size_));
  if (h[20] != 0) return bad("pages with reserved bytes are not supported");
  if (get_be(h + 44, 4) != 4) return bad("schema format " + std::to_string(get_be(h + 44, 4)) + " is not supported");
  if (get_be(h + 52, 4) != 0) return bad("auto-vacuum databases are not supported");
  if (get_be(h + 24, 4) != get_be(h + 92, 4)) return bad("the header's page count is not valid");
  const std::uint32_t pages = get_be(h + 28, 4);
  db_pages_ = pages;
  if (root_ < 2 || root_ > pages) return bad("no page " + std::to_string(root_) + " to be a table's root");
  unsigned char r[leaf_header];
  if (::pread(db_.get(), r, sizeof r, static_cast<off_t>(root_ - 1) * page_size) != static_cast<ssize_t>(sizeof r))
    return bad("cannot read page " + std::to_string(root_));
  if (r[0] != static_cast<unsigned char>(leaf_page) || get_be(r + 3, 2) != 0)
    return bad("page " + std::to_string(root_) + " is not an empty table");
  return {};
}

result<void> table_pages::graft(const std::string& db, std::uint32_t root) {
  if (state_ != state::laying_out)
    return make_error(errc::invalid_argument, db + ": no rows to graft (table_pages not created, or grafted)");
  state_ = state::done;
  root_ = root;
  if (cells_ != 0) end_leaf();
  if (temp_) write_pending();
  MSPROF_TRY(status_);
  MSPROF_TRY(open_db(db));
  // The leaves after the database's last page: from the temporary file, or
  // (less than a MiB of them) from memory.
  const std::uint32_t leaves = pages_;
  if (temp_) {
    const std::uint64_t base = std::uint64_t{db_pages_} * page_size_;
    std::string chunk(pending_pages_bytes, '\0');
    std::uint64_t synced = 0;  // bytes handed to the disk
    for (std::uint64_t at = 0, bytes = std::uint64_t{leaves} * page_size_; at < bytes && status_;) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), bytes - at));
      if (::pread(temp_.get(), chunk.data(), n, static_cast<off_t>(at)) != static_cast<ssize_t>(n)) {
        fail("cannot read back the pages of " + temp_label_);
        break;
      }
      db_reserve_.before_write(db_.get(), base + at, n);
      if (::pwrite(db_.get(), chunk.data(), n, static_cast<off_t>(base + at)) != static_cast<ssize_t>(n))
        fail("cannot write pages");
      at += n;
      // The disk starts on them now: the export's final fsync then waits for little.
      if (at - synced >= writeback_step || at == bytes) {
        ::sync_file_range(db_.get(), static_cast<off_t>(base + synced), static_cast<off_t>(at - synced),
                          SYNC_FILE_RANGE_WRITE);
        synced = at;
      }
    }
    temp_.reset();
  } else {
    out_offset_ = db_pages_;
    write_pending();
    out_offset_ = 0;
  }
  for (child& c : leaves_) c.page += db_pages_;
  pages_ = db_pages_ + leaves;
  return close_tree();
}

/// The root (the only leaf, or the interior pages' top), the pages still
/// pending, the header's page count (valid for this change: the change
/// counter at 24 equal to offset 92); then the file is closed.
result<void> table_pages::close_tree() {
  if (held_)
    write_root(first_leaf_);
  else if (!leaves_.empty())
    build_interior(std::move(leaves_));
  write_pending();
  if (status_) {  // the header open_db() read: nothing but these pages has changed the file since
    char* p = reinterpret_cast<char*>(header_);
    const std::uint32_t change = get_be(header_ + 24, 4) + 1;
    set_be(p + 24, change, 4);
    set_be(p + 28, pages_, 4);
    set_be(p + 92, change, 4);
    if (::pwrite(db_.get(), header_, sizeof header_, 0) != static_cast<ssize_t>(sizeof header_))
      fail("cannot write the header");
  }
  if (status_ && !db_reserve_.give_back(db_.get(), std::uint64_t{pages_} * page_size_)) fail("cannot truncate");
  if (::close(db_.release()) != 0) fail("cannot close");
  return status_;
}

}  // namespace detail
}  // namespace convert
MSPROF_END_NAMESPACE
