// SPDX-License-Identifier: MIT
// The encoder of the chrome form (include/msprof/convert/chrome/encode.hpp):
// names and the otherData object.
#include "msprof/convert/chrome/encode.hpp"

#include <iterator>
#include <utility>

#include <fmt/format.h>

#include "msprof/convert/chrome/json.hpp"
#include "msprof/convert/chrome/reserved_names.hpp"
#include "msprof/version.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {

void append_name(std::string& out, std::string_view name, stats& st) {
  if (!needs_name_suffix(name)) {
    append_string(out, name, st.invalid_utf8);
    return;
  }
  ++st.renamed;
  std::string n(name);
  n += zero_width_space;
  append_string(out, n, st.invalid_utf8);
}

std::string other_data(std::int64_t origin_ns, const stats& st, std::int64_t session_start_ns, std::size_t part_no,
                       const std::vector<std::string>& names) {
  std::string o;
  std::size_t ignore = 0;
  fmt::format_to(std::back_inserter(o),
                 "{{\"generator\":\"msprof {}\",\"form\":\"chrome\",\"session_start_ns\":\"{}\","
                 "\"ts_origin_ns\":\"{}\",\"ts_unit\":\"us after ts_origin_ns\"",
                 MSPROF_VERSION_STRING, session_start_ns, origin_ns);
  const std::pair<const char*, std::size_t> counts[] = {
      {"slices", st.slices},
      {"instants", st.instants},
      {"counters", st.counters},
      {"flows_written", st.flows_written},
      {"flows_unpaired", st.flows_unpaired},
      {"flows_unresolved", st.flows_unresolved},
      {"flows_unbindable", st.flows_unbindable},
      {"flows_cut", st.flows_cut},
      {"clamped_overlap", st.clamped_overlap},
      {"clamped_rounding", st.clamped_rounding},
      {"negative_dur", st.negative_dur},
      {"invalid_utf8", st.invalid_utf8},
      {"non_finite", st.non_finite},
      {"unsupported", st.unsupported},
      {"renamed", st.renamed},
      {"steps_split", st.steps_split},
      {"max_depth", st.max_depth}};
  for (const auto& [k, v] : counts) fmt::format_to(std::back_inserter(o), ",\"{}\":{}", k, v);
  if (names.size() > 1) {
    fmt::format_to(std::back_inserter(o), ",\"part\":{},\"parts\":[", part_no + 1);
    for (std::size_t k = 0; k < names.size(); ++k) {
      if (k) o += ',';
      append_string(o, names[k], ignore);
    }
    o += ']';
  }
  o += '}';
  return o;
}

}  // namespace detail
}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE
