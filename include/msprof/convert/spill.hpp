// SPDX-License-Identifier: MIT
// spill_sorter: an external merge sort of (key, payload) rows, so a writer can
// put rows that arrive in any order (windows of the model, see model.hpp) into
// its output order with memory bounded by a budget instead of by the number of
// rows. Rows stay in memory until the budget is reached; then they are sorted
// and written as one run to an unnamed temporary file; drain() merges the runs.
// Small exports never touch the disk.
#ifndef MSPROF_CONVERT_SPILL_HPP
#define MSPROF_CONVERT_SPILL_HPP

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/error.hpp"
#include "../core/output_file.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// Bytes a spill_sorter keeps in memory before it writes a sorted run.
inline constexpr std::size_t spill_budget_default = 16u << 20;

/// A payload's values: trivially copyable ones as their bytes, texts after
/// their u32 length; payload_reader reads them back in the order written.
template <class T>
std::string_view bytes_of(const T& v) noexcept {
  static_assert(std::is_trivially_copyable_v<T>);
  return {reinterpret_cast<const char*>(&v), sizeof v};
}
template <class T>
void put(std::string& out, const T& v) {
  out.append(bytes_of(v));
}
inline void put_text(std::string& out, std::string_view s) {
  put(out, static_cast<std::uint32_t>(s.size()));
  out.append(s);
}
/// The value whose bytes begin `b` (at least sizeof(T) of them).
template <class T>
T from_bytes(std::string_view b) noexcept {
  static_assert(std::is_trivially_copyable_v<T>);
  T v;
  std::memcpy(&v, b.data(), sizeof v);
  return v;
}
struct payload_reader {
  std::string_view in;
  template <class T>
  T get() noexcept {
    const T v = from_bytes<T>(in);
    in.remove_prefix(sizeof v);
    return v;
  }
  std::string_view text() noexcept {
    const auto n = get<std::uint32_t>();
    const auto s = in.substr(0, n);
    in.remove_prefix(s.size());
    return s;
  }
};

namespace detail {

/// The key-independent half of a spill_sorter (convert/spill.cpp): the
/// unnamed temporary file, the sorted runs in it, and the first error.
class spill_file {
 public:
  struct run {
    std::uint64_t offset, bytes;
    std::size_t level;  // times its rows were merged
  };

  spill_file(std::string dir, std::size_t budget) : dir_(std::move(dir)), budget_(budget) {}
  spill_file(const spill_file&) = delete;
  spill_file& operator=(const spill_file&) = delete;
  ~spill_file();

  /// Creates the file on the first spill; false once anything failed (the
  /// error is reported by drain(); memory still stays bounded).
  bool ready();
  bool ok() const noexcept { return static_cast<bool>(status_); }
  /// Records the first error: `what` and errno's text.
  void fail(const std::string& what);
  /// The first error of the last pushes and reads (ok if none); resets it.
  result<void> take_status();

  std::size_t budget() const noexcept { return budget_; }
  int fd() const noexcept { return fd_; }
  std::vector<run>& runs() noexcept { return runs_; }
  /// Appends `n` bytes at the end of the file.
  void write(const char* data, std::size_t n);
  /// Closes the file, its runs forgotten (a later spill makes a new one).
  void release() noexcept;
  std::uint64_t written() const noexcept { return written_; }

  /// Runs merged at once: their read-ahead (4 KiB at least) stays within the budget.
  std::size_t max_runs() const noexcept;
  /// Bytes read ahead per run when `n` runs are read together.
  std::size_t read_chunk(std::size_t n) const noexcept;
  /// The first of the newest runs of one level when they are too many to
  /// merge within the budget; runs().size() when no merge is due.
  std::size_t runs_to_merge() const noexcept;

 private:
  std::string file_label() const;

  std::string dir_;
  std::size_t budget_;
  int fd_ = -1;
  std::uint64_t written_ = 0;
  outfile::reserve_ahead reserve_;
  std::vector<run> runs_;
  result<void> status_;
};

/// Appends rows to a spill_file as one run. On disk a row is: key bytes, u64
/// seq, u32 payload size, payload.
class spill_run_writer {
 public:
  explicit spill_run_writer(spill_file& f);
  void add(const void* key, std::size_t key_size, std::uint64_t seq, std::string_view payload);
  spill_file::run finish(std::size_t level);

 private:
  void flush();
  spill_file& f_;
  std::uint64_t start_;
  std::string buf_;
};

/// Reads one run sequentially through a buffer.
class spill_run_reader {
 public:
  spill_run_reader(int fd, spill_file::run r, std::size_t chunk, std::size_t key_size)
      : fd_(fd), pos_(r.offset), end_(r.offset + r.bytes), chunk_(chunk), key_size_(key_size) {}
  /// Next row into `key` (key_size bytes), seq and payload; false at the end of
  /// the run or on a read error (`error` set).
  bool next(void* key, bool& error);
  std::uint64_t seq = 0;
  std::string_view payload;

 private:
  // Makes `n` unread bytes available at at_.
  bool fill(std::size_t n, bool& error);
  int fd_;
  std::uint64_t pos_, end_;
  std::size_t chunk_;  // bytes read ahead at a time
  std::size_t key_size_;
  std::string buf_;        // bytes [at_, filled_) are read and not yet handed out
  std::size_t at_ = 0, filled_ = 0;
};

}  // namespace detail

/// Rows ordered by `Key` (a trivially copyable struct with operator<); equal keys keep push order.
template <class Key>
class spill_sorter {
  static_assert(std::is_trivially_copyable_v<Key>, "spill_sorter keys are written to disk as bytes: use a struct of numbers with operator< "
                "(std::pair and std::tuple are not trivially copyable)");

 public:
  /// Runs go to an unnamed temporary file created in `dir` on the first spill.
  explicit spill_sorter(std::string dir, std::size_t budget = spill_budget_default) : file_(std::move(dir), budget) {}
  spill_sorter(const spill_sorter&) = delete;
  spill_sorter& operator=(const spill_sorter&) = delete;

  /// Adds a row; `payload` is copied.
  void push(const Key& key, std::string_view payload) {
    push_with(key, [payload](std::string& out) { out.append(payload); });
  }
  /// Adds a row whose payload write(std::string& out) appends to `out` (the
  /// sorter's memory: no copy through a buffer of the caller's).
  template <class Write>
  void push_with(const Key& key, Write&& write) {
    if (rows_.capacity() == 0) reserve_budget();
    const std::size_t at = arena_.size();
    write(arena_);
    rows_.push_back({key, seq_++, at, static_cast<std::uint32_t>(arena_.size() - at)});
    ++size_;
    if (arena_.size() + rows_.size() * sizeof(row) >= file_.budget()) spill();
  }

  /// Rows pushed and not yet drained.
  std::size_t size() const noexcept { return size_; }

  /// Calls fn(const Key&, std::string_view) for every row in order, then empties the sorter.
  template <class Fn>
  result<void> drain(Fn&& fn) {
    Key key{};
    std::string_view payload;
    while (next(key, payload)) fn(key, payload);
    return take_status();
  }

  /// Pull form of drain(): the next row in order (payload valid until the next
  /// call); false when all rows were read, then the sorter is empty and takes
  /// pushes again. No push() while rows are being read. A false return may be
  /// an error: take_status() tells.
  bool next(Key& key, std::string_view& payload) {
    if (!reading_) start_reading();
    if (file_.runs().empty()) {  // everything fit in memory
      if (pos_ < rows_.size()) {
        const row& r = rows_[pos_++];
        key = r.key;
        payload = std::string_view(arena_).substr(r.offset, r.size);
        return true;
      }
    } else if (file_.ok() && merge_next(key, payload)) {
      return true;
    }
    stop_reading();
    return false;
  }

  /// The first error of the last pushes and reads (ok if none); resets it.
  result<void> take_status() { return file_.take_status(); }

  /// Closes the file of the sorted runs, once drained: freeing its pages takes
  /// about as long as writing them, so its owner may do it beside other work.
  void release_file() noexcept { file_.release(); }

 private:
  struct row {
    Key key;
    std::uint64_t seq;
    std::size_t offset;
    std::uint32_t size;
  };
  using run = detail::spill_file::run;

  static bool before(const Key& a, std::uint64_t sa, const Key& b, std::uint64_t sb) {
    if (a < b) return true;
    if (b < a) return false;
    return sa < sb;
  }
  /// Rows usually come as a few ascending runs (one per input file or record
  /// kind; a spool's constant key is one run): those are merged, not sorted.
  void sort_rows() {
    auto less = [](const row& a, const row& b) { return before(a.key, a.seq, b.key, b.seq); };
    std::vector<std::size_t> starts{0};
    for (std::size_t i = 1; i < rows_.size() && starts.size() <= max_merged_runs; ++i)
      if (less(rows_[i], rows_[i - 1])) starts.push_back(i);
    if (starts.size() > max_merged_runs) {
      std::sort(rows_.begin(), rows_.end(), less);
      return;
    }
    // Pairwise merges of neighbouring runs until one is left.
    starts.push_back(rows_.size());
    while (starts.size() > 2) {
      std::vector<std::size_t> merged{0};
      for (std::size_t k = 0; k + 2 < starts.size(); k += 2) {
        std::inplace_merge(rows_.begin() + static_cast<std::ptrdiff_t>(starts[k]),
                           rows_.begin() + static_cast<std::ptrdiff_t>(starts[k + 1]),
                           rows_.begin() + static_cast<std::ptrdiff_t>(starts[k + 2]), less);
        merged.push_back(starts[k + 2]);
      }
      if (starts.size() % 2 == 0) merged.push_back(starts.back());  // an odd run out waits for the next round
      starts = std::move(merged);
    }
  }
  static constexpr std::size_t max_merged_runs = 16;
  /// Room for a budget's worth of rows at the first push: pages are touched
  /// only as rows fill them, and the buffers never move (grown by doubling,
  /// every row was copied again and every page faulted in twice). Unbounded
  /// sorters (in-memory joins) grow as they go.
  void reserve_budget() {
    if (file_.budget() > max_reserved_budget) return;
    rows_.reserve(file_.budget() / sizeof(row) + 1);
    arena_.reserve(file_.budget());
  }
  static constexpr std::size_t max_reserved_budget = std::size_t{1} << 30;
  void clear_memory() {
    rows_.clear();
    arena_.clear();
  }

  void spill() {
    if (rows_.empty()) return;
    if (!file_.ready()) {
      clear_memory();
      return;
    }
    sort_rows();
    detail::spill_run_writer out(file_);
    for (const row& r : rows_) out.add(&r.key, sizeof(Key), r.seq, std::string_view(arena_).substr(r.offset, r.size));
    file_.runs().push_back(out.finish(0));
    clear_memory();
    // Too many runs to merge within the budget: the newest ones of a level
    // become one run of the next level, so every row is rewritten only
    // log(rows) times and the final merge reads few runs.
    for (;;) {
      const std::size_t first = file_.runs_to_merge();
      if (first == file_.runs().size() || !file_.ok()) break;
      merge_runs(first, file_.runs().back().level + 1);
    }
  }

  /// Replaces runs[first..] by their merge, one run of `level`.
  void merge_runs(std::size_t first, std::size_t level) {
    open_readers(first);
    detail::spill_run_writer out(file_);
    Key key{};
    std::string_view payload;
    while (merge_next(key, payload)) out.add(&key, sizeof(Key), readers_[current_].seq, payload);
    file_.runs().resize(first);
    file_.runs().push_back(out.finish(level));
    readers_.clear();
    heads_.clear();
    current_ = none;
  }

  /// A run's reader with its current row's key.
  struct run_reader : detail::spill_run_reader {
    run_reader(int fd, run r, std::size_t chunk) : spill_run_reader(fd, r, chunk, sizeof(Key)) {}
    bool next(bool& error) { return spill_run_reader::next(&key, error); }
    Key key{};
  };

  void start_reading() {
    reading_ = true;
    pos_ = 0;
    if (file_.runs().empty()) {
      sort_rows();
      return;
    }
    spill();  // the rest becomes a run too: one merge path
    open_readers(0);
  }
  /// Readers of runs[first..], each at its first row.
  void open_readers(std::size_t first) {
    readers_.clear();
    heads_.clear();
    current_ = none;
    const auto& runs = file_.runs();
    readers_.reserve(runs.size() - first);
    const std::size_t chunk = file_.read_chunk(runs.size() - first);
    for (std::size_t i = first; i < runs.size(); ++i) readers_.emplace_back(file_.fd(), runs[i], chunk);
    for (std::size_t i = 0; i < readers_.size() && file_.ok(); ++i) advance(i);
  }
  void stop_reading() {
    reading_ = false;
    size_ = 0;
    clear_memory();
    file_.runs().clear();  // the file keeps growing: later runs are written after these
    readers_.clear();
    heads_.clear();
  }
  // Reads reader i's next row; false at its end (or on an error, recorded).
  bool read_next(std::size_t i) {
    bool error = false;
    if (readers_[i].next(error)) return true;
    if (error) {
      errno = EIO;
      file_.fail("cannot read back a sorted run (file truncated?)");
    }
    return false;
  }
  // Reads reader i's next row into the heap of run heads.
  void advance(std::size_t i) {
    if (!read_next(i)) return;
    heads_.push_back(i);
    std::push_heap(heads_.begin(), heads_.end(), later());
  }
  auto later() {
    return [this](std::size_t a, std::size_t b) {
      return before(readers_[b].key, readers_[b].seq, readers_[a].key, readers_[a].seq);
    };
  }
  bool merge_next(Key& key, std::string_view& payload) {
    if (current_ != none) {  // its previous payload is no longer needed
      const std::size_t i = current_;
      current_ = none;
      if (read_next(i)) {
        // Still before every other run's head (runs of nearly sorted input
        // barely overlap): next without touching the heap.
        if (file_.ok() && (heads_.empty() || later()(heads_.front(), i))) {
          current_ = i;
          key = readers_[i].key;
          payload = readers_[i].payload;
          return true;
        }
        heads_.push_back(i);
        std::push_heap(heads_.begin(), heads_.end(), later());
      }
    }
    if (heads_.empty() || !file_.ok()) return false;
    std::pop_heap(heads_.begin(), heads_.end(), later());
    current_ = heads_.back();
    heads_.pop_back();
    key = readers_[current_].key;
    payload = readers_[current_].payload;
    return true;
  }

  detail::spill_file file_;
  std::vector<row> rows_;
  std::string arena_;
  std::uint64_t seq_ = 0;
  std::size_t size_ = 0;
  // Reading state.
  static constexpr std::size_t none = static_cast<std::size_t>(-1);
  bool reading_ = false;
  std::size_t pos_ = 0;  // next in-memory row
  std::vector<run_reader> readers_;
  std::vector<std::size_t> heads_;  // heap of readers by their current row
  std::size_t current_ = none;      // reader whose row next() returned last
};

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_SPILL_HPP
