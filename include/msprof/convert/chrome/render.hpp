// SPDX-License-Identifier: MIT
// Rendering the chrome form: sizes every event, plans the parts and hands
// their bytes to a chunk_output (render() keeps them in memory, write() in files).
#ifndef MSPROF_CONVERT_CHROME_RENDER_HPP
#define MSPROF_CONVERT_CHROME_RENDER_HPP

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "../../core/error.hpp"
#include "../timeline.hpp"
#include "types.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {

/// Receives a chunk of part `part_index`'s bytes; returns false to stop (I/O error).
using chunk_output = std::function<bool(std::size_t part_index, std::string_view chunk)>;

/// Renders everything, handing each part's bytes to `emit_chunk(part_index, chunk)`.
/// `names` receives the file names. emit_chunk returns false to stop (I/O error).
result<output> render_to(const std::vector<trace_event>& ev, std::int64_t session_start_ns, std::string_view stem,
                         const options& opt, const chunk_output& emit_chunk);

}  // namespace detail
}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_CHROME_RENDER_HPP
