// SPDX-License-Identifier: MIT
// The device's last-level cache data, read straight from its slices (it is
// not part of the joined model): LLC samples (device slices llc.data.<id>),
// the CANN summary llc_read_write made of them, and the hit rates and
// throughputs the timeline's LLC counter process and the unified db's LLC
// table show (docs/formats.md, "Device LLC").
#ifndef MSPROF_CONVERT_LLC_HPP
#define MSPROF_CONVERT_LLC_HPP

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "summary.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// One LLC metric as the reference's LlcModel stores it (its LLCMetrics
/// table): the directory's device id, the L3 tag (`llc_id`), the time (ns; as
/// the table's REAL holds it), the hit rate as a fraction and the throughput
/// in MB/s, both Python Decimals quantized to 3 decimals (the first time of a
/// tag has throughput 0), and the mode: sample.json's llc_profiling ("read" or
/// "write").
struct llc_metric {
  std::uint32_t device_id = 0;
  std::uint32_t llc_id = 0;
  std::int64_t time_ns = 0;
  double hit_rate = 0;
  double throughput = 0;
  std::string mode;
};

/// Every device's LLC metrics (devices by id; by tag, then time within one).
/// With `from_start` those before the collection start are left out, as the
/// reference's C++ path (LLcProcessor) leaves them out of the timeline and the
/// db (a warning with their count). The reference reads these samples on
/// chips 1-5, 7, 8, 11, 15 and 16 (info.json's platform_version; chip 0 has
/// another format): a device of another chip or whose sample.json's
/// llc_profiling is neither "read" nor "write" has none, with one warning
/// naming the file. info.json's `version` "2.0" chooses the second record
/// layout, any other the first (with a warning unless "1.0", as the
/// reference); cut records are warnings naming the file and offset.
result<void> for_each_llc_metric(const std::string& prof_dir, bool from_start, std::vector<std::string>& warnings,
                                 const std::function<result<void>(const llc_metric&)>& fn);

/// The modes ("read", "write") of the devices whose LLC samples give metrics,
/// in device order, each once. The db registers them in STRING_IDS before the
/// other tables' strings, as the reference's LLC saver mostly does: its savers
/// run on parallel threads, and in 5 of 6 runs it came first.
std::vector<std::string> llc_modes(const std::string& prof_dir);

/// The CANN summary llc_read_write as the reference's Python path writes it
/// (get_llc_train_summary): per device with metrics (by id) the row "Average"
/// (the tags' averages summed over the tag count), then one row per tag: mode,
/// hit rate in % and throughput in MB/s, rounded to 3 decimals. nullopt without
/// metrics.
result<std::optional<table>> llc_summary(const std::string& prof_dir, std::vector<std::string>& warnings);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_LLC_HPP
