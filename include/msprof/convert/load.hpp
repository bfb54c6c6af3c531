// SPDX-License-Identifier: MIT
// load_windows(prof_dir, options, on_window): reads a PROF_ directory through
// the PROF_ reader (prof/reader.hpp: control files, clocks,
// dictionaries, every record stream, bounds-checked) and joins the records
// (join.hpp's stream_join) into the converter model, handed out in windows so
// memory does not grow with the number of records. load_model() collects the
// windows into one model.
//
// Damage is reported, never hidden: the reader keeps every whole record and
// turns truncated tails, bad magic numbers and unreadable slices into warnings
// naming the file, the byte offset and the bytes affected; they end up in
// model::warnings. Control files are required (a collection without a clock
// cannot be placed in time): a missing or unparsable one is an error, and so is
// a start_info/end_info time that does not fit in signed 64-bit nanoseconds.
// Records whose own timestamp cannot be placed on the wall clock are counted
// and skipped (a warning, see join.hpp); step-trace tags are placed here while
// reading (the same device clock, prof::device_info) and skipped and reported
// the same way.
#ifndef MSPROF_CONVERT_LOAD_HPP
#define MSPROF_CONVERT_LOAD_HPP

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "../core/error.hpp"
#include "model.hpp"
#include "spill.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// How load_windows() bounds its memory.
struct load_options {
  std::size_t window_records = 1u << 16;  ///< API calls + tasks (or mstx events) per window: ~20 MB
  std::size_t spill_budget = spill_budget_default;  ///< per sorted stream of the join
  std::string spill_dir;  ///< where sorted runs go; "" = the PROF_ directory
  /// Progress: bytes of data slices read so far are added here (data_bytes() is the total).
  std::atomic<std::uint64_t>* bytes_read = nullptr;
  /// Both cores: the devices' records are read beside the host's, then
  /// on_window (each writer) runs on a thread of its own while the next window
  /// loads, with windows of half the size: the two that exist at once hold one
  /// window's memory, whatever the threads' timing. Output is the same: the
  /// windows come in the same order, one at a time.
  bool threaded = false;
  /// Called once, on the loading thread, when the session (its clock and
  /// devices; not its end) is known, before the records are read: work that
  /// needs only the clock can start beside the load.
  std::function<void(const session_info&)> on_session;
};

/// The size of prof_dir's data slices, what load_windows() reads: a progress
/// total, found before the work starts (0 when prof_dir cannot be opened).
std::uint64_t data_bytes(const std::string& prof_dir);

/// Reads and joins one PROF_ directory, streaming: on_window(model&) gets the
/// records window by window (model.hpp, "Windows"; API calls and tasks first,
/// then mstx, then mstx_mem). Returns the final model: session (with its end),
/// iterations and warnings, no records.
result<model> load_windows(const std::string& prof_dir, const load_options& lo,
                           const std::function<void(model&)>& on_window);

/// load_windows() with several writers: `prepare` (if any) gets each window
/// first, on the loading thread (false: the writers do not get it), then every
/// writer gets it, in their order, or with lo.threaded each on a thread of its
/// own (then no writer may change the window: they read it at the same time);
/// the next window waits until every writer is done with this one.
result<model> load_windows(const std::string& prof_dir, const load_options& lo,
                           const std::function<bool(model&)>& prepare,
                           std::vector<std::function<void(model&)>> writers);

/// Reads and joins one PROF_ directory into one model (every record in memory:
/// show, the chrome writer, iteration selection).
result<model> load_model(const std::string& prof_dir, const load_options& lo = {});

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_LOAD_HPP
