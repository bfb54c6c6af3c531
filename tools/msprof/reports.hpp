// SPDX-License-Identifier: MIT
// -reports files: CANN's reports_sample_config.json ({"json_process": {...}},
// which processes msprof_<ts>.json has) and msprof's own list of output stems.
#ifndef MSPROF_CLI_REPORTS_HPP
#define MSPROF_CLI_REPORTS_HPP

#include <msprof/convert/export_options.hpp>

#include <string>

namespace msprof_cli {

/// Reads `path` into o.json_process (CANN's "json_process" switches: a process
/// is written when its key is true; absent keys are false) and/or o.reports
/// ({"reports": [stems]} or a bare array of stems). Errors name the file.
msprof::result<void> read_reports(const std::string& path, msprof::convert::export_options& o);

}  // namespace msprof_cli

#endif  // MSPROF_CLI_REPORTS_HPP
