// SPDX-License-Identifier: MIT
// spill_sorter: an external merge sort of (key, payload) rows, so a writer can
// put rows that arrive in any order (windows of the model, see model.hpp) into
// its output order with memory bounded by a budget instead of by the number of
// rows. Rows stay in memory until the budget is reached; then they are sorted
// and written as one run to an unnamed temporary file; drain() merges the runs.
// Small exports never touch the disk.
#ifndef MSPROF_CONVERT_SPILL_HPP
#define MSPROF_CONVERT_SPILL_HPP

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/error.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// Bytes a spill_sorter keeps in memory before it writes a sorted run.
inline constexpr std::size_t spill_budget_default = 16u << 20;

/// Rows ordered by `Key` (a trivially copyable struct with operator<); equal keys keep push order.
template <class Key>
class spill_sorter {
  static_assert(std::is_trivially_copyable_v<Key>, "spill_sorter keys are written to disk as bytes: use a struct of numbers with operator< "
                "(std::pair and std::tuple are not trivially copyable)");

 public:
  /// Runs go to an unnamed temporary file created in `dir` on the first spill.
  explicit spill_sorter(std::string dir, std::size_t budget = spill_budget_default)
      : dir_(std::move(dir)), budget_(budget) {}
  spill_sorter(const spill_sorter&) = delete;
  spill_sorter& operator=(const spill_sorter&) = delete;
  ~spill_sorter() {
    if (fd_ >= 0) ::close(fd_);
  }

  /// Adds a row; `payload` is copied.
  void push(const Key& key, std::string_view payload) {
    rows_.push_back({key, seq_++, arena_.size(), static_cast<std::uint32_t>(payload.size())});
    arena_.append(payload);
    ++size_;
    if (arena_.size() + rows_.size() * sizeof(row) >= budget_) spill();
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
    if (runs_.empty()) {  // everything fit in memory
      if (pos_ < rows_.size()) {
        const row& r = rows_[pos_++];
        key = r.key;
        payload = std::string_view(arena_).substr(r.offset, r.size);
        return true;
      }
    } else if (status_ && merge_next(key, payload)) {
      return true;
    }
    stop_reading();
    return false;
  }

  /// The first error of the last pushes and reads (ok if none); resets it.
  result<void> take_status() {
    auto s = std::move(status_);
    status_ = {};
    return s;
  }

 private:
  struct row {
    Key key;
    std::uint64_t seq;
    std::size_t offset;
    std::uint32_t size;
  };
  // On disk a row is: Key bytes, u64 seq, u32 payload size, payload.
  static constexpr std::size_t head_size = sizeof(Key) + sizeof(std::uint64_t) + sizeof(std::uint32_t);
  struct run {
    std::uint64_t offset, bytes;
    std::size_t level;  // times its rows were merged
  };

  static bool before(const Key& a, std::uint64_t sa, const Key& b, std::uint64_t sb) {
    if (a < b) return true;
    if (b < a) return false;
    return sa < sb;
  }
  void sort_rows() {
    std::sort(rows_.begin(), rows_.end(), [](const row& a, const row& b) { return before(a.key, a.seq, b.key, b.seq); });
  }
  void clear_memory() {
    rows_.clear();
    arena_.clear();
  }
  std::string file_label() const { return dir_ + "/.msprof_sort_* (temporary sort file)"; }
  void fail(const std::string& what) {
    if (status_) status_ = make_error(errc::io, file_label() + ": " + what + ": " + std::strerror(errno));
  }

  void spill() {
    if (rows_.empty()) return;
    if (fd_ < 0 && status_) {
      std::string path = dir_ + "/.msprof_sort_XXXXXX";
      fd_ = ::mkstemp(path.data());
      if (fd_ < 0)
        fail("cannot create");
      else
        ::unlink(path.c_str());  // unnamed: gone with the descriptor, even after a crash
    }
    if (!status_) {  // the error is reported by drain(); memory still stays bounded
      clear_memory();
      return;
    }
    sort_rows();
    run_writer out(*this);
    for (const row& r : rows_) out.add(r.key, r.seq, std::string_view(arena_).substr(r.offset, r.size));
    runs_.push_back(out.finish(0));
    clear_memory();
    // Too many runs to merge within the budget: the newest ones of a level
    // become one run of the next level, so every row is rewritten only
    // log(rows) times and the final merge reads few runs.
    for (;;) {
      const std::size_t n = runs_.size(), level = runs_.back().level;
      std::size_t first = n;
      while (first > 0 && runs_[first - 1].level == level) --first;
      if (n - first < max_runs() || !status_) break;
      merge_runs(first, level + 1);
    }
  }

  /// Runs merged at once: their read-ahead (4 KiB at least) stays within the budget.
  std::size_t max_runs() const noexcept { return std::max<std::size_t>(16, budget_ / (4u << 10)); }

  /// Appends rows to the file as one run.
  class run_writer {
   public:
    explicit run_writer(spill_sorter& s) : s_(s), start_(s.written_) { buf_.reserve(1u << 20); }
    void add(const Key& key, std::uint64_t seq, std::string_view payload) {
      const std::size_t at = buf_.size();
      const auto size = static_cast<std::uint32_t>(payload.size());
      buf_.resize(at + head_size);
      std::memcpy(&buf_[at], &key, sizeof(Key));
      std::memcpy(&buf_[at + sizeof(Key)], &seq, sizeof seq);
      std::memcpy(&buf_[at + sizeof(Key) + sizeof seq], &size, sizeof size);
      buf_.append(payload);
      if (buf_.size() >= (1u << 20)) flush();
    }
    run finish(std::size_t level) {
      flush();
      return {start_, s_.written_ - start_, level};
    }

   private:
    void flush() {
      for (std::size_t done = 0; done < buf_.size() && s_.status_;) {
        const auto n = ::write(s_.fd_, buf_.data() + done, buf_.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          s_.fail("cannot write (disk full?)");
          break;
        }
        done += static_cast<std::size_t>(n);
      }
      s_.written_ += buf_.size();
      buf_.clear();
    }
    spill_sorter& s_;
    std::uint64_t start_;
    std::string buf_;
  };

  /// Replaces runs_[first..] by their merge, one run of `level`.
  void merge_runs(std::size_t first, std::size_t level) {
    open_readers(first);
    run_writer out(*this);
    Key key{};
    std::string_view payload;
    while (merge_next(key, payload)) out.add(key, readers_[current_].seq, payload);
    runs_.resize(first);
    runs_.push_back(out.finish(level));
    readers_.clear();
    heads_.clear();
    current_ = none;
  }

  /// Reads one run sequentially through a buffer.
  class run_reader {
   public:
    run_reader(int fd, run r, std::size_t chunk) : fd_(fd), pos_(r.offset), end_(r.offset + r.bytes), chunk_(chunk) {}
    /// Next row into key/seq/payload; false at the end of the run or on a read error (`error` set).
    bool next(bool& error) {
      if (pos_ == end_ && at_ == buf_.size()) return false;
      if (!fill(head_size, error)) return false;
      std::uint32_t size = 0;
      std::memcpy(&key, &buf_[at_], sizeof(Key));
      std::memcpy(&seq, &buf_[at_ + sizeof(Key)], sizeof seq);
      std::memcpy(&size, &buf_[at_ + sizeof(Key) + sizeof seq], sizeof size);
      at_ += head_size;
      if (!fill(size, error)) return false;
      payload = std::string_view(buf_).substr(at_, size);
      at_ += size;
      return true;
    }
    Key key{};
    std::uint64_t seq = 0;
    std::string_view payload;

   private:
    // Makes `n` unread bytes available at at_.
    bool fill(std::size_t n, bool& error) {
      if (buf_.size() - at_ >= n) return true;
      buf_.erase(0, at_);
      at_ = 0;
      while (buf_.size() < n) {
        const std::size_t want = static_cast<std::size_t>(
            std::min<std::uint64_t>(end_ - pos_, std::max(n - buf_.size(), chunk_)));
        if (want == 0) break;
        const std::size_t have = buf_.size();
        buf_.resize(have + want);
        const auto got = ::pread(fd_, &buf_[have], want, static_cast<off_t>(pos_));
        if (got < 0 && errno == EINTR) {
          buf_.resize(have);
          continue;
        }
        if (got <= 0) {
          buf_.resize(have);
          break;
        }
        buf_.resize(have + static_cast<std::size_t>(got));
        pos_ += static_cast<std::uint64_t>(got);
      }
      if (buf_.size() >= n) return true;
      error = true;
      return false;
    }
    int fd_;
    std::uint64_t pos_, end_;
    std::size_t chunk_;  // bytes read ahead at a time
    std::string buf_;
    std::size_t at_ = 0;
  };

  void start_reading() {
    reading_ = true;
    pos_ = 0;
    if (runs_.empty()) {
      sort_rows();
      return;
    }
    spill();  // the rest becomes a run too: one merge path
    open_readers(0);
  }
  /// Readers of runs_[first..], each at its first row.
  void open_readers(std::size_t first) {
    readers_.clear();
    heads_.clear();
    current_ = none;
    const std::size_t n = runs_.size() - first;
    readers_.reserve(n);
    // The read-ahead of all runs together stays within the budget (64 KiB
    // each at most, 4 KiB at least; max_runs() keeps their number down).
    const std::size_t chunk = std::clamp<std::size_t>(budget_ / n, 4u << 10, 64u << 10);
    for (std::size_t i = first; i < runs_.size(); ++i) readers_.emplace_back(fd_, runs_[i], chunk);
    for (std::size_t i = 0; i < readers_.size() && status_; ++i) advance(i);
  }
  void stop_reading() {
    reading_ = false;
    size_ = 0;
    clear_memory();
    runs_.clear();  // the file keeps growing: later runs are written after these
    readers_.clear();
    heads_.clear();
  }
  // Reads reader i's next row into the heap of run heads.
  void advance(std::size_t i) {
    bool error = false;
    if (readers_[i].next(error)) {
      heads_.push_back(i);
      std::push_heap(heads_.begin(), heads_.end(), later());
    } else if (error) {
      errno = EIO;
      fail("cannot read back a sorted run (file truncated?)");
    }
  }
  auto later() {
    return [this](std::size_t a, std::size_t b) {
      return before(readers_[b].key, readers_[b].seq, readers_[a].key, readers_[a].seq);
    };
  }
  bool merge_next(Key& key, std::string_view& payload) {
    if (current_ != none) advance(current_);  // its previous payload is no longer needed
    current_ = none;
    if (heads_.empty() || !status_) return false;
    std::pop_heap(heads_.begin(), heads_.end(), later());
    current_ = heads_.back();
    heads_.pop_back();
    key = readers_[current_].key;
    payload = readers_[current_].payload;
    return true;
  }

  std::string dir_;
  std::size_t budget_;
  std::vector<row> rows_;
  std::string arena_;
  std::uint64_t seq_ = 0;
  std::size_t size_ = 0;
  int fd_ = -1;
  std::uint64_t written_ = 0;
  std::vector<run> runs_;
  result<void> status_;
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
