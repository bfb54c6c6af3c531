// SPDX-License-Identifier: MIT
// The device's QoS bandwidths, read straight from its slices (it is not part
// of the joined model): QoS samples (device slices qos.data.<id>) and the
// counters the timeline's QoS process and the unified db's QOS table show
// (docs/formats.md, "Device QoS"). The reference writes no summary of them.
#ifndef MSPROF_CONVERT_QOS_HPP
#define MSPROF_CONVERT_QOS_HPP

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// One QoS sample as the reference's C++ path keeps it (QosProcessor): the
/// directory's device id, the local time (ns) and the bandwidths (MB/s) of
/// the device's events, in sample.json's qosEvents order (at most ten).
struct qos_sample {
  std::uint32_t device_id = 0;
  std::int64_t time_ns = 0;
  std::vector<std::uint32_t> mb_s;
  const std::vector<std::string>* counters = nullptr;  ///< "QoS <event>" of each bandwidth
};

/// Every device's QoS samples (devices by id; in slice and file order within
/// one), those from the collection start, as the reference's C++ path keeps
/// them (the others: one warning with their count). The reference reads QoS
/// samples on chip 5 only (info.json's platform_version): a device of another
/// chip, or whose sample.json names no qosEvents, has none (one warning naming
/// the file); names past the ten bandwidths of a sample are left out with a
/// warning. A cut record is a warning naming the file and offset, and the
/// whole records before it are kept (the reference loses the device's QoS).
result<void> for_each_qos_sample(const std::string& prof_dir, std::vector<std::string>& warnings,
                                 const std::function<result<void>(const qos_sample&)>& fn);

/// The devices' QoS event names (sample.json's qosEvents split at ','), each
/// "QoS <name>", every device's in device order, when any device has QoS
/// samples: the strings the reference's QoS saver registers in STRING_IDS
/// before the other tables' (one run; its savers run in parallel).
std::vector<std::string> qos_event_names(const std::string& prof_dir);

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_QOS_HPP
