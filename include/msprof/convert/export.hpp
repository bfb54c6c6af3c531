// SPDX-License-Identifier: MIT
// The export entry points, callable in-process (session export handler) and
// from `msprof export`:
//
//   auto r = msprof::convert::export_timeline("PROF_000001_...", {});
//   if (!r) std::cerr << r.err().what() << '\n';
//   for (auto& w : r->warnings) std::cerr << "warning: " << w << '\n';
//
// Outputs go to <PROF>/mindstudio_profiler_output/ (and <PROF>/msprof_<ts>.db),
// each written under a temporary name and renamed when complete.
//
// The parts: export_options.hpp (options, results), export_files.hpp (output
// files), export_select.hpp (option checks, iteration selection),
// export_writers.hpp (the three exporters), export_dirs.hpp (directory search).
#ifndef MSPROF_CONVERT_EXPORT_HPP
#define MSPROF_CONVERT_EXPORT_HPP

#include <string>

#include "../core/error.hpp"
#include "export_dirs.hpp"
#include "export_files.hpp"
#include "export_options.hpp"
#include "export_select.hpp"
#include "export_writers.hpp"
#include "iterations.hpp"
#include "load.hpp"
#include "model.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// Loads `prof_dir` and writes the chosen parts, all with one timestamp.
/// Memory does not grow with the number of records: the model comes in windows
/// (load_windows) and each writer keeps sorted runs on disk (spill.hpp) and a
/// few small sets; iteration selection filters each window. The writers take
/// each window as it is loaded, in load order; the db is finished on a second
/// thread beside the text files.
/// The chrome form needs the whole model, and loads it.
result<export_result> export_parts_of(const std::string& prof_dir, const export_options& o, export_parts p);

/// Loads `prof_dir` and writes the timeline files.
result<export_result> export_timeline(const std::string& prof_dir, const export_options& o = {});

/// Loads `prof_dir` and writes the summary files.
result<export_result> export_summary(const std::string& prof_dir, const export_options& o = {});

/// Loads `prof_dir` and writes msprof_<ts>.db.
result<export_result> export_db(const std::string& prof_dir, const export_options& o = {});

/// Loads once and writes timeline, summaries and db (the launcher's default;
/// export_options::text and ::db choose).
result<export_result> export_all(const std::string& prof_dir, const export_options& o = {});

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_EXPORT_HPP
