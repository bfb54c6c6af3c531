// SPDX-License-Identifier: MIT
// The viewer-safe Chrome trace form of a timeline (docs/chrome-trace.md).
//
// msprof's exact timeline (convert/timeline.hpp) writes `ts` as strings, which
// Chrome DevTools accepts and then draws wrong. This writer takes the same
// normalized events (convert::trace_event) and writes what DevTools' trace
// engine and Perfetto load as intended:
//   {"traceEvents":[...],"displayTimeUnit":"ns","otherData":{...}}
// - ts/dur are numbers in µs with 3 decimals, relative to a time origin given in
//   otherData (the session start, unless an event starts at or before it);
// - slices are `X` only, strictly nested per thread *as the engine computes it*
//   (in doubles: end = ts + dur); a child that overlaps its parent is clamped,
//   and 1-ns trims fix the cases where ns -> µs rounding would break nesting;
//   every adjustment is counted in otherData;
// - flows are written only when DevTools can bind both ends: `s` at the start
//   of the host slice, `f` ("bp":"e") at the start of the device slice, both
//   with the category the two slices carry, `s` before `f` in the file;
// - above a configurable size the output is split into complete parts (at
//   step boundaries when steps are given), each with all metadata events.
//
// \code
//   auto events = msprof::convert::build_timeline(model);
//   msprof::convert::chrome::options opt;          // 256 MiB parts by default
//   auto r = msprof::convert::chrome::write(events, model.session.start_ns,
//                                           out_dir, "chrome_trace_20260101120000", opt);
//   if (!r) fail(r.err().what());
// \endcode
//
// The parts: types.hpp (options, stats, output), reserved_names.hpp, json.hpp
// (escaping), encode.hpp (names, otherData), render.hpp (the builder that plans
// and writes the form with bounded memory); the definitions are in
// src/convert/chrome/.
#ifndef MSPROF_CONVERT_CHROME_CHROME_TRACE_HPP
#define MSPROF_CONVERT_CHROME_CHROME_TRACE_HPP

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "../../core/error.hpp"
#include "../timeline.hpp"
#include "encode.hpp"
#include "json.hpp"
#include "render.hpp"
#include "reserved_names.hpp"
#include "types.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {

/// The chrome form in memory: one string per part (tests, small traces).
result<output> render(const std::vector<trace_event>& events, std::int64_t session_start_ns,
                      std::string_view stem = "chrome_trace", const options& opt = {});

/// Writes `<dir>/<stem>.json`, or `<stem>_part<k>.json` and `<stem>_parts.txt`
/// when the trace is larger than options::max_part_bytes. Files are written
/// under a `.tmp` name and renamed once every part is complete.
result<output> write(const std::vector<trace_event>& events, std::int64_t session_start_ns,
                     const std::filesystem::path& dir, std::string_view stem, const options& opt = {});

namespace detail {
/// write() of the events added to `b` (which spills into `dir` or elsewhere).
result<output> write_built(trace_builder& b, std::int64_t session_start_ns, const std::filesystem::path& dir,
                           std::string_view stem);
}  // namespace detail

}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_CHROME_CHROME_TRACE_HPP
