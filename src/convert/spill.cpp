// SPDX-License-Identifier: MIT
// spill_sorter's key-independent machinery: the unnamed temporary file, run
// bookkeeping, and writing and reading runs as bytes.
#include "msprof/convert/spill.hpp"

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "msprof/core/output_file.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace detail {

// spill_file ------------------------------------------------------------------

spill_file::~spill_file() {
  if (fd_ >= 0) ::close(fd_);
}

bool spill_file::ready() {
  if (fd_ < 0 && status_) {
    fd_ = outfile::unnamed_temp(dir_, ".msprof_sort_").release();
    if (fd_ < 0) fail("cannot create");
  }
  return static_cast<bool>(status_);
}

std::string spill_file::file_label() const { return dir_ + "/.msprof_sort_* (temporary sort file)"; }

void spill_file::fail(const std::string& what) {
  if (status_) status_ = make_error(errc::io, file_label() + ": " + what + ": " + std::strerror(errno));
}

result<void> spill_file::take_status() {
  auto s = std::move(status_);
  status_ = {};
  return s;
}

void spill_file::write(const char* data, std::size_t size) {
  if (status_) reserve_.before_write(fd_, written_, size);
  for (std::size_t done = 0; done < size && status_;) {
    const auto n = ::write(fd_, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      fail("cannot write (disk full?)");
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  written_ += size;
}

void spill_file::release() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  written_ = 0;
  reserve_ = {};
  runs_.clear();
}

std::size_t spill_file::max_runs() const noexcept { return std::max<std::size_t>(16, budget_ / (4u << 10)); }

std::size_t spill_file::read_chunk(std::size_t n) const noexcept {
  // The read-ahead of all runs together stays within the budget (64 KiB
  // each at most, 4 KiB at least; max_runs() keeps their number down).
  return std::clamp<std::size_t>(budget_ / n, 4u << 10, 64u << 10);
}

std::size_t spill_file::runs_to_merge() const noexcept {
  const std::size_t n = runs_.size(), level = runs_.back().level;
  std::size_t first = n;
  while (first > 0 && runs_[first - 1].level == level) --first;
  return n - first < max_runs() ? n : first;
}

// spill_run_writer ------------------------------------------------------------

spill_run_writer::spill_run_writer(spill_file& f) : f_(f), start_(f.written()) { buf_.reserve(1u << 20); }

void spill_run_writer::add(const void* key, std::size_t key_size, std::uint64_t seq, std::string_view payload) {
  const std::size_t at = buf_.size();
  const auto size = static_cast<std::uint32_t>(payload.size());
  buf_.resize(at + key_size + sizeof seq + sizeof size);
  std::memcpy(&buf_[at], key, key_size);
  std::memcpy(&buf_[at + key_size], &seq, sizeof seq);
  std::memcpy(&buf_[at + key_size + sizeof seq], &size, sizeof size);
  buf_.append(payload);
  if (buf_.size() >= (1u << 20)) flush();
}

spill_file::run spill_run_writer::finish(std::size_t level) {
  flush();
  return {start_, f_.written() - start_, level};
}

void spill_run_writer::flush() {
  f_.write(buf_.data(), buf_.size());
  buf_.clear();
}

// spill_run_reader ------------------------------------------------------------

bool spill_run_reader::next(void* key, bool& error) {
  const std::size_t head_size = key_size_ + sizeof(std::uint64_t) + sizeof(std::uint32_t);
  if (pos_ == end_ && at_ == filled_) return false;
  if (!fill(head_size, error)) return false;
  std::uint32_t size = 0;
  std::memcpy(key, &buf_[at_], key_size_);
  std::memcpy(&seq, &buf_[at_ + key_size_], sizeof seq);
  std::memcpy(&size, &buf_[at_ + key_size_ + sizeof seq], sizeof size);
  at_ += head_size;
  if (!fill(size, error)) return false;
  payload = std::string_view(buf_.data() + at_, size);
  at_ += size;
  return true;
}

bool spill_run_reader::fill(std::size_t n, bool& error) {
  if (filled_ - at_ >= n) return true;
  // The unread bytes move to the front; buf_ only grows (no clearing of the room read into).
  std::memmove(&buf_[0], buf_.data() + at_, filled_ - at_);
  filled_ -= at_;
  at_ = 0;
  while (filled_ < n) {
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(end_ - pos_, std::max(n - filled_, chunk_)));
    if (want == 0) break;
    if (buf_.size() < filled_ + want) buf_.resize(filled_ + want);
    const auto got = ::pread(fd_, &buf_[filled_], want, static_cast<off_t>(pos_));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    filled_ += static_cast<std::size_t>(got);
    pos_ += static_cast<std::uint64_t>(got);
  }
  if (filled_ >= n) return true;
  error = true;
  return false;
}

}  // namespace detail
}  // namespace convert
MSPROF_END_NAMESPACE
