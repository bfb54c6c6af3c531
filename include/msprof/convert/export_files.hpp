// SPDX-License-Identifier: MIT
// The output files of an export: their names, the output directory, files
// written under a temporary name and renamed when complete, and README.txt.
#ifndef MSPROF_CONVERT_EXPORT_FILES_HPP
#define MSPROF_CONVERT_EXPORT_FILES_HPP

#include <filesystem>
#include <string>
#include <vector>

#include "../core/error.hpp"
#include "export_options.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace detail {

/// Local time now as a file-name stamp, YYYYMMDDhhmmss.
std::string now_stamp();

/// Writes `text` to `path` through a temporary file and a rename.
result<void> write_file_atomic(const std::filesystem::path& path, const std::string& text);

/// Whether the options ask for the output stem `stem` (-reports).
bool wanted(const export_options& o, const std::string& stem);

/// File stem of summary `name`: a JSON summary that shares its name with a
/// timeline file (msprof_tx, step_trace) is <name>_summary, so that exporting
/// both (same timestamp) keeps both; the timeline keeps the reference's name.
std::string summary_stem(const std::string& name, bool json);

/// <prof_dir>/mindstudio_profiler_output, created when missing.
result<std::filesystem::path> output_dir(const std::string& prof_dir);

/// README.txt of the output directory: what each file holds, then `files`.
std::string readme_text(const std::vector<std::string>& files);

}  // namespace detail
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_EXPORT_FILES_HPP
