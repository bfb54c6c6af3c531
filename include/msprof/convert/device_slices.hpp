// SPDX-License-Identifier: MIT
// The data that CANN's summaries read straight from their slices, outside the
// joined model (memory samples, AI CPU kernels, ...): whether a collection has
// any, a reader opened only then, and the reader's warnings about those slices.
#ifndef MSPROF_CONVERT_DEVICE_SLICES_HPP
#define MSPROF_CONVERT_DEVICE_SLICES_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../core/abi.hpp"
#include "../prof/reader.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace detail {

/// Whether a data directory of `prof_dir` (host/data, or every device_<id>/data
/// when `device`) holds a file whose name contains `part`.
bool any_slice(const std::string& prof_dir, bool device, const std::string& part);

/// A reader of `prof_dir` when any_slice finds `part` (most collections have no
/// such data, and then no reader is opened), its dictionaries read only when
/// `dictionary`; nothing when the directory does not open (the model loader
/// says what is wrong with it).
std::optional<prof::prof_reader> open_for_slices(const std::string& prof_dir, bool device, const std::string& part,
                                                 bool dictionary);

/// The text of the warnings of `r` about slices whose name starts with `stem`
/// (or holds ".<stem>."), appended to `out`.
void slice_warnings(const prof::prof_reader& r, std::string_view stem, std::vector<std::string>& out);

/// The offset (µs) that turns device `d`'s clock_monotonic_raw µs into local
/// time in the reference's Python parsers (InfoConfReader: _load_local_time_offset,
/// read by trans_into_local_time): its start_info's collectionTimeBegin minus
/// clockMonotonicRaw / 1000, in doubles. When either is missing or false to
/// Python (absent, "", a JSON 0) or no finite number, the reference raises and
/// its whole export stops: nullopt here, with one warning in `warnings` that
/// the device's `what` (e.g. "dp rows") were left out.
std::optional<double> device_local_offset_us(const std::string& prof_dir, const prof::device_info& d,
                                             const std::string& what, std::vector<std::string>& warnings);

/// A device's own clock anchors. Both of the reference's paths read them from
/// the device's directory: its C++ path's Context loads each device_<id>'s
/// host_start.log, dev_start.log and start_info (context.cpp LoadJsonData,
/// LoadLogData; GetClockMonotonicRaw, GetProfTimeRecordInfo by device id), its
/// Python parsers InfoConfReader.load_info(device_<id>). A host_start.log.<id>
/// or a start_info.<id> value that is missing or not usable is the host's.
struct device_clock {
  std::uint64_t host_mono_ns = 0;  ///< device_<id>/host_start.log.<id> clock_monotonic_raw (+ its cntvct_diff)
  std::uint64_t dev_mono_ns = 0;   ///< device_<id>/dev_start.log.<id> clock_monotonic_raw
  std::uint64_t begin_us = 0;      ///< device_<id>/start_info.<id> collectionTimeBegin
  std::uint64_t raw_ns = 0;        ///< device_<id>/start_info.<id> clockMonotonicRaw
  /// Host counter ticks -> ns by host_start.log.<id> (host_mono_ns, its cntvct)
  /// at info.json.<id>'s CPU[0].Frequency (no CPU entry: the host's), as the
  /// reference's GetSyscntConversionParams / time_from_host_syscnt(is_host=False).
  prof::tick_clock host_ticks;

  /// The collection start (ns since the epoch) that both paths filter by.
  std::int64_t start_ns() const noexcept { return prof::time_ns::from_us(begin_us).value_or(0); }
  /// The offset from monotonic to epoch ns: collectionTimeBegin * 1000 - clockMonotonicRaw.
  std::int64_t wall_offset_ns() const noexcept {
    const auto begin = prof::time_ns::from_us(begin_us);
    const auto mono = prof::time_ns::from_u64(raw_ns);
    if (begin && mono) return *begin - *mono;
    return prof::time_ns::saturate(static_cast<double>(begin_us) * 1e3 - static_cast<double>(raw_ns));
  }
};
/// Device `d`'s clock anchors. A host_start.log.<id> that is missing or not
/// usable (the reference's C++ export stops there) is the host's, with a
/// warning in `warnings` naming the file (the same text each time, so an
/// export that merges its warnings shows it once).
device_clock own_clock(const std::string& prof_dir, const prof::host_info& host, const prof::device_info& d,
                       std::vector<std::string>& warnings);

/// The local time of a device sample stamped in µs after its device's
/// clock_monotonic_raw start, as the reference's Python parsers make it
/// (get_absolute_time_by_sampling_timestamp), in its order and in doubles (so
/// rounded as it rounds them): (µs * 1000 + dev_start.log's clock) +
/// (host_start.log's clock in s - dev_start.log's in s) * 1e9 + start_info's
/// offset in µs * 1000, truncated; nullopt outside int64. The device's own
/// files (own_clock).
class sampling_clock {
 public:
  explicit sampling_clock(const device_clock& c);
  std::optional<std::int64_t> operator()(std::uint64_t us) const;

 private:
  std::uint64_t dev_mono_;
  double delta_ns_, offset_ns_;
};

/// The warning for `n` `what` of `prof_dir` left out (none when `n` is 0).
inline void left_out(std::vector<std::string>& warnings, const std::string& prof_dir, std::uint64_t n,
                     const std::string& what) {
  if (n) warnings.push_back(prof_dir + ": " + std::to_string(n) + " " + what + " were left out");
}

/// The local times of a collection's device samples as the reference's C++
/// path makes them (GetTimeBySamplingTimestamp, GetLocalTime): the device ns
/// (a double, as it reads them) plus host_start.log's minus dev_start.log's
/// clock plus start_info's collectionTimeBegin minus its clockMonotonicRaw,
/// truncated, each the device's own (own_clock). Those before the device's
/// collection start (dropped by the reference) and those outside int64 are
/// counted, for one warning each.
class local_times {
 public:
  local_times(const std::string& prof_dir, const prof::host_info& host) : prof_dir_(prof_dir), host_(host) {}

  /// The local time of `ns` of device `d`; nullopt (counted) when it is left out.
  std::optional<std::int64_t> operator()(const prof::device_info& d, double ns) {
    if (!id_ || *id_ != d.id) id_ = d.id, clock_ = own_clock(prof_dir_, host_, d, notes_);
    const auto host_mono = prof::time_ns::from_u64(clock_.host_mono_ns);
    const auto dev_mono = prof::time_ns::from_u64(clock_.dev_mono_ns);
    const auto begin = prof::time_ns::from_us(clock_.begin_us);
    const auto raw = prof::time_ns::from_u64(clock_.raw_ns);
    std::optional<std::int64_t> t;
    if (ns > -9.2e18 && ns < 9.2e18 && host_mono && dev_mono && begin && raw)
      if (const auto moved = prof::time_ns::add(static_cast<std::int64_t>(ns), *host_mono - *dev_mono))  // both >= 0
        t = prof::time_ns::add(*moved, *begin - *raw);
    if (!t) ++bad_;
    else if (*t < clock_.start_ns()) ++early_, t.reset();
    return t;
  }

  /// The warnings about the `what` (e.g. "pcie sample(s)") of `prof_dir` left out.
  void warn(std::vector<std::string>& warnings, const std::string& prof_dir, const std::string& what) const {
    warnings.insert(warnings.end(), notes_.begin(), notes_.end());
    left_out(warnings, prof_dir, bad_, what + " with a time outside the clock's range");
    left_out(warnings, prof_dir, early_, what + " from before the collection start (as the reference)");
  }

 private:
  const std::string& prof_dir_;
  const prof::host_info& host_;
  std::optional<std::uint32_t> id_;
  device_clock clock_;
  std::vector<std::string> notes_;  // own_clock's warnings
  std::uint64_t bad_ = 0, early_ = 0;
};

/// A file's problems under the reader's cap and in its words, for slices
/// read outside the reader.
class file_problems {
 public:
  file_problems(std::vector<std::string>& out, const std::string& path) : out_(out), path_(path) {}
  ~file_problems() {
    if (n_ > shown) out_.push_back("... and " + std::to_string(n_ - shown) + " more problems in " + path_);
  }
  file_problems(const file_problems&) = delete;
  file_problems& operator=(const file_problems&) = delete;
  void add(std::string text) {
    if (++n_ <= shown) out_.push_back(std::move(text));
  }

 private:
  const std::uint64_t shown = prof::reader_options{}.max_warnings_per_file;
  std::vector<std::string>& out_;
  const std::string& path_;
  std::uint64_t n_ = 0;
};

/// MB/s as the reference's db keeps bandwidths (HCCS, HBM, DDR, LLC): B/s
/// (* 2^20) cut to an unsigned integer, 0 when negative or too large (its
/// uint64 cast, undefined there).
inline std::uint64_t db_bytes_per_s(double mb_s) {
  const double v = mb_s * 1024 * 1024;
  return v > 0 && v < 1.8e19 ? static_cast<std::uint64_t>(v) : std::uint64_t{0};
}

}  // namespace detail
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_DEVICE_SLICES_HPP
