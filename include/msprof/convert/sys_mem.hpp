// SPDX-License-Identifier: MIT
// The device's memory bandwidth data, read straight from its slices (it is
// not part of the joined model): HBM and DDR samples (device slices
// hbm.data.<id>, ddr.data.<id>), the CANN summaries `hbm` and `ddr` made of
// them, and the bandwidths the timeline's HBM and DDR counter processes and
// the unified db's HBM and DDR tables show (docs/formats.md, "Device memory
// bandwidth").
#ifndef MSPROF_CONVERT_SYS_MEM_HPP
#define MSPROF_CONVERT_SYS_MEM_HPP

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

/// One HBM bandwidth as the reference's HbmModel stores it (its HBMbwData
/// table): the directory's device id, the sample's local time (ns), the
/// channel, the direction and the bandwidth in MB/s: the sample's count over
/// the time since the sample `check_len` rows before it in the table's order
/// (by time, then read before write, then channel; the first rows wrap to the
/// last, as Python's negative index, and so are 0), the raw count when both
/// times are equal.
struct hbm_bandwidth {
  std::uint32_t device_id = 0;
  std::int64_t time_ns = 0;
  std::uint32_t hbm_id = 0;
  bool write = false;
  double mb_s = 0;
};

/// Every device's HBM bandwidths (devices by id; in the table's order within
/// one). With `from_start` those before the collection start are left out, as
/// the reference's C++ path (HBMProcessor) leaves them out of the timeline and
/// the db (a warning with their count). A device whose sample.json names
/// other than one or two hbm_profiling_events has none (a warning naming the
/// file), as have those with fewer samples than `check_len` and those of
/// collection version "2.0" (info.json's `version`: another layout); cut records are
/// warnings naming the file and offset.
result<void> for_each_hbm_bandwidth(const std::string& prof_dir, bool from_start, std::vector<std::string>& warnings,
                                    const std::function<result<void>(const hbm_bandwidth&)>& fn);

/// The CANN summary hbm as the reference's Python path writes it
/// (get_hbm_summary_data): per device with bandwidths (by id), the row
/// "Average" of the channels' read and write averages, then one row per
/// channel (by id), its quirks in docs/formats.md. nullopt without
/// bandwidths.
result<std::optional<table>> hbm_summary(const std::string& prof_dir, std::vector<std::string>& warnings);

/// One DDR bandwidth as the reference's DdrModel stores it (DDRMetricData): the
/// directory's device id, the time (ns on the device's clock_monotonic_raw;
/// `local_ns` after the reference's C++ path made it local, 0 when it left it
/// out) and the read and write flux of all controllers (master id
/// 0xFFFFFFFF) over the time since the previous one (the first: since the
/// device's start), in MB/s.
struct ddr_bandwidth {
  std::uint32_t device_id = 0;
  std::int64_t device_ns = 0;
  std::int64_t local_ns = 0;
  double read_mb_s = 0, write_mb_s = 0;
};

/// Every device's DDR bandwidths (devices by id; by time within one), one per
/// sample time. With `from_start` those the reference's C++ path leaves out
/// (DDRProcessor: before the collection start, outside the clock) are left out
/// with a warning. The reference parses DDR on chips 0-4, 7, 8 and 11 only: a
/// device of another (info.json's platform_version) has none, with a warning;
/// cut records are warnings naming the file and offset.
result<void> for_each_ddr_bandwidth(const std::string& prof_dir, bool from_start, std::vector<std::string>& warnings,
                                    const std::function<result<void>(const ddr_bandwidth&)>& fn);

/// The CANN summary ddr as the reference's Python path writes it
/// (get_ddr_data): per device with bandwidths (by id) one row "Average", the
/// mean read and write bandwidth as Python's round(x, 3). nullopt without any.
result<std::optional<table>> ddr_summary(const std::string& prof_dir, std::vector<std::string>& warnings);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_SYS_MEM_HPP
