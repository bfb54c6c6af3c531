// SPDX-License-Identifier: MIT
// Fuzz entry of the FRAMEWORK decoder (codec/framework.hpp): the same bytes
// decoded as every FRAMEWORK file kind, so each TLV walker, inner-field
// splitter and raw-struct walker sees them; and again in pieces split where
// whole_records says (as analyse reads a big file), which must give the same
// records. Linked into fuzz_framework and
// fuzz_replay (the corpus is corpus/framework/: the golden-pt FRAMEWORK files).
#include <msprof/codec/framework.hpp>

#include <algorithm>

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

    // In pieces, as analyse reads a file: `window` more bytes at a time, the
    // whole records among them decoded, the rest carried on; at the end, all.
    fw::records pieces;
    std::vector<std::string> piece_warnings;
    const std::size_t window = size / 3 + 7;
    std::size_t at = 0, have = 0;
    while (at < size) {
      have = std::min(have + window, size - at);
      const bool end = at + have == size;
      const std::size_t whole = end ? have : fw::whole_records(k, data + at, have);
      require(whole <= have, "whole records lie within the bytes");
      if (whole == 0) continue;
      fw::decode(k, data + at, whole, "fuzz", pieces, piece_warnings, at);
      at += whole;
      have -= whole;
    }
    require(pieces.ops.size() == out.ops.size() && pieces.marks.size() == out.marks.size() &&
                pieces.memory.size() == out.memory.size() && pieces.python_funcs.size() == out.python_funcs.size() &&
                pieces.python_hashes.size() == out.python_hashes.size() && pieces.gcs.size() == out.gcs.size(),
            "pieces give the records of the whole");
    for (std::size_t i = 0; i < out.ops.size(); ++i)
      require(pieces.ops[i].name == out.ops[i].name && pieces.ops[i].offset == out.ops[i].offset,
              "pieces give the same ops at the same offsets");
  }
  return 0;
}

}  // namespace msprof_fuzz
