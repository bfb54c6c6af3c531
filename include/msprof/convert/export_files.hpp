// SPDX-License-Identifier: MIT
// The output files of an export: their names, the output directory and
// README.txt. Every file is written through core/output_file.hpp (temporary
// name, fsync, rename; never through a link).
#ifndef MSPROF_CONVERT_EXPORT_FILES_HPP
#define MSPROF_CONVERT_EXPORT_FILES_HPP

#include <filesystem>
#include <string>
#include <vector>

#include "../core/error.hpp"
#include "../core/output_file.hpp"
#include "export_options.hpp"
#include "model.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace detail {

/// Streams text to `name` in `d` through a temporary file and a rename:
/// `fill(buf, flush)` appends to buf, calls flush() now and then (the buffer
/// stays small) and returns its status; on an error nothing is renamed.
template <class Fill>
result<void> write_stream_atomic(const outfile::dir& d, const std::string& name, Fill fill) {
  auto f = outfile::atomic_file::create(d, name);
  if (!f) return f.err();
  std::string buf;
  buf.reserve(1 << 20);
  result<void> written;
  auto flush = [&] {
    if (written && !buf.empty()) written = f->write(buf);
    buf.clear();
  };
  const result<void> filled = fill(buf, flush);
  flush();
  MSPROF_TRY(filled);
  MSPROF_TRY(written);
  return f->commit();
}

/// Local time now as a file-name stamp, YYYYMMDDhhmmss.
std::string now_stamp();

/// The stamp of this export's file names: the options' (the launcher and
/// multi-kind exports share one), else now.
std::string export_stamp(const export_options& o);

/// A stamp for a new export of `prof_dir`: now, or the first second after it
/// that no file in its output directories carries, so two exports never mix.
std::string free_stamp(const std::string& prof_dir);

/// The sub-folder of mindstudio_profiler_output that an iteration selection's
/// outputs go to ("selection_model<M>_iteration<I>[-<J>]"); empty without one.
std::string selection_dir(const export_options& o);

/// Whether the options ask for the output stem `stem` (-reports).
bool wanted(const export_options& o, const std::string& stem);

/// File stem of summary `name`: a JSON summary that shares its name with a
/// timeline file (msprof_tx, step_trace) is <name>_summary, so that exporting
/// both (same timestamp) keeps both; the timeline keeps the reference's name.
std::string summary_stem(const std::string& name, bool json);

/// <prof_dir>/mindstudio_profiler_output (with an iteration selection, its
/// selection_dir), created when missing; a link or a non-directory there is an
/// error. Temporaries an interrupted export left in it are removed, each with a
/// note in `notes`.
result<outfile::dir> output_dir(const std::string& prof_dir, const export_options& o, std::vector<std::string>& notes);

/// The opening of a text export's finish(): `r` gets the model's warnings and
/// `records`; the output directory (output_dir, its notes into `r`).
result<outfile::dir> start_result(const model& final, std::size_t records, const std::string& prof_dir,
                                  const export_options& o, export_result& r);

/// The same rule before any work, for every export (the db too, which writes
/// beside it): an existing <prof_dir>/mindstudio_profiler_output must be a
/// real directory.
result<void> check_output_dir(const std::string& prof_dir);

/// Where the db goes: the PROF_ directory itself (the user's path: it may be a
/// link; created when missing), or output_dir with an iteration selection;
/// temporaries an interrupted export left in it are removed, noted in `notes`.
result<outfile::dir> db_output_dir(const std::string& prof_dir, const export_options& o, std::vector<std::string>& notes);

/// The name SQLite opens for `f`, a temporary in `d`: below the directory's
/// real path, because SQLite's NOFOLLOW (db.cpp) refuses a link anywhere in
/// the path, the user's own links included.
std::string sqlite_path(const outfile::dir& d, const outfile::atomic_file& f);

/// README.txt of the output directory: what each kind of file holds, then one
/// section per export (`stamp`, options, files): `old` is the current README.txt,
/// whose sections of other stamps are kept.
std::string readme_text(const std::string& old, const export_options& o, const std::string& stamp,
                        const std::vector<std::string>& files);

/// Rewrites README.txt in `d` (readme_text over the current one, read without
/// following a link); the path written.
result<std::string> write_readme(const outfile::dir& d, const export_options& o, const std::string& stamp,
                                 const std::vector<std::string>& files);

}  // namespace detail
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_EXPORT_FILES_HPP
