// SPDX-License-Identifier: MIT
// The chrome form's public types: how it is written (options), what the
// writer did (stats) and what it produced (part, output).
#ifndef MSPROF_CONVERT_CHROME_TYPES_HPP
#define MSPROF_CONVERT_CHROME_TYPES_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {

/// How the chrome form is written.
struct options {
  /// Size guard: above this many bytes the trace is split into parts
  /// `<stem>_part<k>.json`, each at most this big (unless one event plus the
  /// metadata is bigger). DevTools cannot open JSON text over ~512 MiB at all.
  std::uint64_t max_part_bytes = std::uint64_t{256} << 20;
  /// Step start times (local ns, as trace_event::ts_ns). When given, parts are
  /// cut only at these times, unless a single step is bigger than a part.
  std::vector<std::int64_t> step_starts_ns;
  /// Category of slices that are not flow ends.
  std::string default_cat = "msprof";
};

/// What the writer did; also written into every part's otherData.
struct stats {
  std::size_t slices = 0;            ///< X events written
  std::size_t instants = 0;          ///< I events written
  std::size_t counters = 0;          ///< C events written
  std::size_t metadata = 0;          ///< M events (per part)
  std::size_t flows_written = 0;     ///< s/f pairs written
  std::size_t flows_unpaired = 0;    ///< an s without f or f without s in the input (dropped)
  std::size_t flows_unresolved = 0;  ///< no slice at a flow end (dropped)
  std::size_t flows_unbindable = 0;  ///< DevTools would bind it to another slice (dropped)
  std::size_t flows_cut = 0;         ///< ends in different parts (dropped)
  std::size_t clamped_overlap = 0;   ///< slices that ended after their parent: clamped to it
  std::size_t clamped_rounding = 0;  ///< slices trimmed by whole ns so double ts+dur keeps nesting
  std::size_t negative_dur = 0;      ///< negative durations written as 0
  std::size_t invalid_utf8 = 0;      ///< strings with invalid UTF-8 (bytes replaced by U+FFFD)
  std::size_t non_finite = 0;        ///< NaN/Inf argument values written as null
  std::size_t unsupported = 0;       ///< events of a phase this form does not carry (skipped)
  std::size_t renamed = 0;           ///< events named like a Chrome event DevTools parses (name + U+200B)
  std::size_t steps_split = 0;       ///< parts cut inside a step because one step was too big
  std::size_t max_depth = 0;         ///< deepest slice nesting on any thread (1 = roots only)
};

/// One written file.
struct part {
  std::string file_name;      ///< e.g. chrome_trace_20260101120000_part2.json
  std::string text;           ///< the JSON (render() only; empty after write())
  std::uint64_t bytes = 0;
  std::size_t events = 0;     ///< trace events in this part, metadata included
  std::int64_t first_ns = 0;  ///< first ts in the part (local ns), 0 if none
  std::int64_t last_ns = 0;   ///< last ts + dur in the part (local ns)
};

/// The result of render()/write().
struct output {
  std::vector<part> parts;     ///< one, or the numbered parts in time order
  std::string note_file;       ///< the parts list, written next to them (only with parts)
  std::string note;            ///< its text
  std::int64_t origin_ns = 0;  ///< local ns of ts 0.000
  stats totals;
};

}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_CHROME_TYPES_HPP
