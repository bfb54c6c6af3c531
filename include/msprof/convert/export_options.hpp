// SPDX-License-Identifier: MIT
// What an export is asked to write (export_options, export_parts) and what it
// reports back (export_result).
#ifndef MSPROF_CONVERT_EXPORT_OPTIONS_HPP
#define MSPROF_CONVERT_EXPORT_OPTIONS_HPP

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "../core/error.hpp"
#include "chrome/types.hpp"
#include "model.hpp"
#include "spill.hpp"
#include "timeline_event.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

struct trace_event;  // timeline.hpp

/// Options shared by the three exports (CANN msprof flag names in comments).
struct export_options {
  std::string format = "csv";                ///< --format csv|json (summaries)
  std::optional<std::uint32_t> model_id;     ///< --model-id
  std::optional<std::uint32_t> iteration_id; ///< --iteration-id
  std::uint32_t iteration_count = 1;         ///< --iteration-count 1..5
  bool clear = false;                        ///< --clear: delete intermediates
  std::set<std::string> reports;             ///< -reports: output stems to write (empty = all)
  /// -reports with CANN's reports_sample_config.json: the processes of
  /// msprof_<ts>.json to write (its "json_process" switches).
  timeline_parts json_process;
  std::string timestamp;                     ///< file-name stamp; default: now, YYYYMMDDhhmmss
  std::size_t slice_rows = 1000000;          ///< CSV rows per file before _slice_<k> splitting
  bool strict = false;                       ///< warnings (truncated tails...) become errors
  /// Unused since the chrome form streams (chrome_exporter, configured by
  /// chrome_options); kept so that callers setting it still compile.
  std::function<result<std::vector<std::string>>(const model&, const std::vector<trace_event>&,
                                                 const std::filesystem::path& out_dir, const std::string& ts)>
      chrome_writer;
  bool chrome = false;  ///< --timeline-format=chrome: the chrome form instead of msprof_<ts>.json
  chrome::options chrome_options;  ///< the chrome form's part size (--timeline-max-size)
  /// The chrome form as well, beside msprof_<ts>.json (the launcher's and the
  /// session's default: something a viewer draws after every run), written in
  /// the same pass over the data. Written for collections of at most
  /// chrome_too_max_bytes of data slices, a guard on the time and disk it adds
  /// (memory stays bounded at any size); above it the export says how to write it.
  bool chrome_too = false;
  std::uint64_t chrome_too_max_bytes = std::uint64_t{1} << 30;
  bool text = true;     ///< export_all: timeline and summaries (torch_npu export_type "text")
  bool db = true;       ///< export_all: msprof_<ts>.db (export_type "db")
  /// Bytes each sorted stream of the join and of each writer holds in memory
  /// before it spills a run to disk (spill.hpp): with the window size, what
  /// bounds an export's memory.
  std::size_t spill_budget = spill_budget_default;
  /// Progress: bytes of data slices read so far are added here (load_options::bytes_read).
  std::atomic<std::uint64_t>* bytes_read = nullptr;
};

/// What an export wrote.
struct export_result {
  std::vector<std::string> files;     ///< paths written (final names)
  std::vector<std::string> warnings;  ///< data problems that did not stop the export
  std::size_t records = 0;            ///< API + task + mstx records exported
};

/// Which files an export writes.
struct export_parts {
  bool timeline = false;
  bool summary = false;
  bool db = false;
};

namespace detail {

/// The records an export counts (export_result::records): API calls, tasks, mstx events.
inline std::size_t record_count(const model& m) { return m.apis.size() + m.tasks.size() + m.mstx.size(); }

}  // namespace detail

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_EXPORT_OPTIONS_HPP
