// SPDX-License-Identifier: MIT
// `msprof export timeline --timeline-format=chrome`: the viewer-safe Chrome
// trace of a PROF_ directory, next to (or instead of) the exact msprof files.
//
// \code
//   // in-process (the session's export handler):
//   auto r = msprof::convert::chrome::export_chrome_trace("PROF_000001_...");
//   // r->files: .../mindstudio_profiler_output/chrome_trace_<ts>.json
//   // (or chrome_trace_<ts>_part<k>.json + chrome_trace_<ts>_parts.txt)
//
//   // through convert::export_timeline (streaming, convert::chrome_exporter):
//   msprof::convert::export_options o;
//   o.chrome = true;
//   o.chrome_options.max_part_bytes = 128u << 20;
// \endcode
#ifndef MSPROF_CONVERT_CHROME_CHROME_HPP
#define MSPROF_CONVERT_CHROME_CHROME_HPP

#include <filesystem>
#include <string>
#include <vector>

#include "../../core/error.hpp"
#include "../export.hpp"
#include "../timeline.hpp"
#include "chrome_trace.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {

/// The file stem of the chrome form for an export stamp: "chrome_trace_<ts>".
std::string file_stem(const std::string& ts);

/// Writes a model's timeline events as the chrome form.
struct timeline_writer {
  options opt;

  /// Writes `<out_dir>/chrome_trace_<ts>.json` (or its parts and note) and
  /// returns the paths written.
  result<std::vector<std::string>> operator()(const model& m, const std::vector<trace_event>& events,
                                              const std::filesystem::path& out_dir, const std::string& ts) const;
};

/// A timeline_writer (what export_options::chrome_writer used to take).
timeline_writer writer(options opt = {});

/// Writes only the chrome form of `prof_dir`'s timeline into
/// `<prof_dir>/mindstudio_profiler_output/` (export_timeline with o.chrome, streaming).
result<export_result> export_chrome_trace(const std::string& prof_dir, const export_options& eo = {},
                                          const options& co = {});

}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_CHROME_CHROME_HPP
