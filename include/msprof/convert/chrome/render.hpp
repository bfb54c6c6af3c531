// SPDX-License-Identifier: MIT
// Rendering the chrome form: a builder that takes the timeline's events one at
// a time, in any order, and writes the parts at the end with memory bounded by
// a spill budget (spill.hpp) instead of by the number of events. Its parts'
// bytes go to a chunk_output (render() keeps them in memory, write() and the
// chrome exporter in files).
//
// finish() makes every global decision of the form in a few passes over
// sorted streams (external sorts keyed by the write order):
//  1. flows: s and f events sorted by (id as a number, hash of cat, name, id)
//     are paired in input order; each pair becomes a query per end;
//  2. nesting: the slices of all threads in time order (per thread longer
//     first, then input order) go through one stack per thread; overlaps are
//     clamped and 1-ns trims keep the engine's double arithmetic nested. A
//     slice is final when it leaves the stack, except one that ends within a
//     few ns of its parent's end: it stays with the parent, whose own trims may
//     still shorten it. The flow ends are bound to slices in the same pass, in
//     the same time order: a pair's first end is held until its second one is
//     bound, then the pair is one row (past the budget the held ends go out
//     alone). Only the durations a clamp changed are kept for the write pass
//     (the rest are in the write key);
//  3. categories: each bound slice takes the category of its first flow; each
//     flow's ends and escaped strings are kept here, in the order flows are
//     written (a scratch file, no sort; the text is made as it is written); two flow ends of one category starting together on a
//     thread: the later one's flows are dropped (found by the write pass, and
//     dropped as the flows are written; only parts, whose cuts need each
//     flow's size at its later end, sort the flows by that end);
//  4. sizing: the events in write order (names and args encoded in add()),
//     straight into the one part when a bound on the sizes (summed in add(),
//     the nesting and the claims) proves the trace fits it, else into a
//     scratch file with their sizes in a size index; parts are cut from that
//     index (at step boundaries when steps are given);
//  5. writing: each part is its metadata, its range of the scratch file and its flows.
#ifndef MSPROF_CONVERT_CHROME_RENDER_HPP
#define MSPROF_CONVERT_CHROME_RENDER_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "../../core/error.hpp"
#include "../spill.hpp"
#include "../timeline.hpp"
#include "json.hpp"
#include "types.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {

/// Receives a chunk of part `part_index`'s bytes; returns false to stop (I/O error).
using chunk_output = std::function<bool(std::size_t part_index, std::string_view chunk)>;

/// An event's place in the input: ties in the write order, flow pairing and the
/// metadata order follow it, so events may be added in any order.
struct seq {
  std::uint64_t hi = 0, lo = 0;
};

/// A slice (X or I) or counter (C) given field by field: what add() takes
/// from a trace_event, so a caller with the records at hand (the chrome
/// exporter) needs none.
struct slice_fields {
  char ph = 'X';
  std::uint64_t pid = 0, tid = 0;
  std::int64_t ts_ns = 0, dur_ns = 0;
  std::string_view name;
  /// Its `connection_id` arg, the key flow ends bind by (X only; 0: none).
  std::uint64_t connection_id = 0;
};

/// An s or f event given field by field.
struct flow_fields {
  char ph = 's';
  std::uint64_t pid = 0, tid = 0;
  std::int64_t ts_ns = 0;
  std::string_view cat, name, id;
};

/// The chrome form of events added one at a time (see the top of this file).
class trace_builder {
 public:
  /// Sorted runs and the scratch file go to `spill_dir`; each sorter holds at
  /// most a quarter of `spill_budget` in memory.
  trace_builder(const options& opt, const std::string& spill_dir, std::size_t spill_budget = spill_budget_default);
  trace_builder(const trace_builder&) = delete;
  trace_builder& operator=(const trace_builder&) = delete;
  ~trace_builder();

  /// Takes event `e` at input place `at` (each place once).
  void add(const trace_event& e, seq at);

  /// add() of a slice or counter without a trace_event: its args go into the
  /// returned writer (valid until end_slice(), in the order add() would
  /// write them), then end_slice(). Same bytes as add() of the same event.
  arg_writer& begin_slice(const slice_fields& s, seq at);
  void end_slice();
  /// add() of an s or f event without a trace_event.
  void add_flow(const flow_fields& f, seq at);

  /// Plans and writes the parts: `emit_chunk(part_index, chunk)` receives
  /// their bytes in order and returns false to stop (I/O error). Once only.
  result<output> finish(std::int64_t session_start_ns, std::string_view stem, const chunk_output& emit_chunk);

 private:
  struct impl;  // render.cpp
  std::unique_ptr<impl> p_;
};

/// Renders `ev` (input place = index) through a trace_builder spilling into `spill_dir`.
result<output> render_to(const std::vector<trace_event>& ev, std::int64_t session_start_ns, std::string_view stem,
                         const options& opt, const std::string& spill_dir, const chunk_output& emit_chunk);

}  // namespace detail
}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_CHROME_RENDER_HPP
