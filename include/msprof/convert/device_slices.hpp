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

/// The local time of a device sample stamped in µs after its device's
/// clock_monotonic_raw start, as the reference's Python parsers make it
/// (get_absolute_time_by_sampling_timestamp), in its order and in doubles (so
/// rounded as it rounds them): (µs * 1000 + dev_start.log's clock) +
/// (host_start.log's clock in s - dev_start.log's in s) * 1e9 + start_info's
/// offset in µs * 1000, truncated; nullopt outside int64.
class sampling_clock {
 public:
  sampling_clock(const prof::host_info& host, const prof::device_info& device);
  std::optional<std::int64_t> operator()(std::uint64_t us) const;

 private:
  std::uint64_t dev_mono_;
  double delta_ns_, offset_ns_;
};

}  // namespace detail
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_DEVICE_SLICES_HPP
