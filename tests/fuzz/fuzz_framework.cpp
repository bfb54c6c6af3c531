// SPDX-License-Identifier: MIT
// Fuzz entry of the FRAMEWORK decoder (codec/framework.hpp): the same bytes
// decoded as every FRAMEWORK file kind, so each TLV walker, inner-field
// splitter and raw-struct walker sees them. Linked into fuzz_framework and
// fuzz_replay (the corpus is corpus/framework/: the golden-pt FRAMEWORK files).
#include <msprof/codec/framework.hpp>

#include "targets.hpp"

namespace msprof_fuzz {

int framework_decode(const std::uint8_t* data, std::size_t size) {
  namespace fw = msprof::codec::framework;
  const fw::file_kind kinds[] = {fw::file_kind::op_range,           fw::file_kind::op_mark,
                                 fw::file_kind::memory_usage,       fw::file_kind::python_tracer_func,
                                 fw::file_kind::python_tracer_hash, fw::file_kind::gc_record};
  for (auto k : kinds) {
    fw::records out;
    std::vector<std::string> warnings;
    fw::decode(k, data, size, "fuzz", out, warnings);
    // Every warning names the file and every record came from the input.
    for (const auto& w : warnings) require(w.rfind("fuzz", 0) == 0, "warning names the file");
    const std::size_t n = out.ops.size() + out.marks.size() + out.memory.size() + out.python_funcs.size() +
                          out.python_hashes.size() + out.gcs.size();
    require(n <= size / 6 + 1, "no more records than the bytes can hold");
    for (const auto& o : out.ops) sink = sink + o.name.size() + o.call_stack.size() + touch(o.start);
    for (const auto& m : out.marks) sink = sink + m.name.size() + touch(m.corr_id);
    for (const auto& h : out.python_hashes) sink = sink + h.value.size();
  }
  return 0;
}

}  // namespace msprof_fuzz
