// SPDX-License-Identifier: MIT
// Bounds-checked decoders (and the encoders) of torch_npu's FRAMEWORK raw files (the `FRAMEWORK/`
// folder of a `*_ascend_pt` directory), as torch_npu's data_reporter writes
// them (docs/torch_npu.md; facts in shared/reference/torch-npu-formats.md).
//
// All little-endian. TLV files hold records <u16 type><u32 len><value>; a
// value is a fixed struct followed by inner TLV fields (strings). Raw files are
// back-to-back fixed structs.
//
//   file                       record   fixed struct (bytes)  inner fields
//   torch.op_range             TLV 1    <3q4QB?   (58)         2 name, 3 dtypes, 4 shapes, 8 stack, ...
//   torch.op_mark              TLV 2    <q4Q      (40)         1 name
//   torch.memory_usage         TLV 3    <7q2b3B2Q (77)         -
//   torch.python_tracer_hash   TLV 4    <Q        (8)          1 value
//   torch.python_tracer_func   raw      <4QB      (33)
//   torch.gc_record            raw      <3Q       (24)
//
// Damage never stops a file: an unknown record type or a short fixed struct
// skips that record; a length past the end or a cut header ends the file;
// each gives one warning naming the file and the byte offset. Inner strings
// that are not UTF-8 are repaired (U+FFFD, json::utf8_repair) and counted.
#ifndef MSPROF_CODEC_FRAMEWORK_HPP
#define MSPROF_CODEC_FRAMEWORK_HPP

#include <array>
#include <cstddef>
#include <utility>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../core/abi.hpp"
#include "../core/json.hpp"
#include "decode.hpp"
#include "format.hpp"

MSPROF_BEGIN_NAMESPACE
namespace codec {
namespace framework {

/// The FRAMEWORK files this decoder knows.
enum class file_kind { op_range, op_mark, memory_usage, python_tracer_func, python_tracer_hash, gc_record, unknown };

/// The kind of a FRAMEWORK file by its name (torch_npu matches name prefixes:
/// "torch.op_range" also covers "torch.op_range.1").
inline file_kind kind_of(std::string_view file_name) noexcept {
  const auto starts = [&](std::string_view p) { return file_name.substr(0, p.size()) == p; };
  if (starts("torch.op_range")) return file_kind::op_range;
  if (starts("torch.op_mark")) return file_kind::op_mark;
  if (starts("torch.memory_usage")) return file_kind::memory_usage;
  if (starts("torch.python_tracer_func")) return file_kind::python_tracer_func;
  if (starts("torch.python_tracer_hash")) return file_kind::python_tracer_hash;
  if (starts("torch.gc_record")) return file_kind::gc_record;
  return file_kind::unknown;
}

/// A framework op (torch.op_range). Times are raw (syscnt or monotonic ns).
/// Its texts are strings (op_range) or, as decode_op_ranges() hands them
/// over, views valid during the call (op_range_view).
template <class Text>
struct basic_op_range {
  std::int64_t start = 0, end = 0, seq = 0;
  std::uint64_t pid = 0, start_tid = 0, end_tid = 0, fwd_tid = 0;
  std::uint8_t scope = 0;
  bool is_async = false;
  Text name;
  Text input_dtypes;  ///< ';'-separated
  Text input_shapes;  ///< ';'-separated
  Text call_stack;    ///< ';'-separated frames
  Text module_hierarchy;
  Text flops;
  bool has_dtypes = false, has_shapes = false, has_stack = false, has_module = false, has_flops = false;
  std::uint64_t offset = 0;  ///< its record's byte offset in the file (decoding only)

  basic_op_range() = default;
  /// A copy with the other text type (a view's texts copied).
  template <class Other>
  explicit basic_op_range(const basic_op_range<Other>& o)
      : start(o.start), end(o.end), seq(o.seq), pid(o.pid), start_tid(o.start_tid), end_tid(o.end_tid),
        fwd_tid(o.fwd_tid), scope(o.scope), is_async(o.is_async), name(o.name), input_dtypes(o.input_dtypes),
        input_shapes(o.input_shapes), call_stack(o.call_stack), module_hierarchy(o.module_hierarchy), flops(o.flops),
        has_dtypes(o.has_dtypes), has_shapes(o.has_shapes), has_stack(o.has_stack), has_module(o.has_module),
        has_flops(o.has_flops), offset(o.offset) {}
};
using op_range = basic_op_range<std::string>;
using op_range_view = basic_op_range<std::string_view>;

/// Task-queue mark categories (torch.op_mark).
namespace mark {
inline constexpr std::uint64_t enqueue_start = 0, enqueue_end = 1, dequeue_start = 2, dequeue_end = 3;
}

/// A task-queue mark (torch.op_mark).
struct op_mark {
  std::int64_t time = 0;
  std::uint64_t category = 0, corr_id = 0, tid = 0, pid = 0;
  std::string name;
  std::uint64_t offset = 0;  ///< its record's byte offset in the file (decoding only)
};

/// An allocator event (torch.memory_usage).
struct memory_usage {
  std::int64_t ptr = 0, time = 0, alloc_size = 0, total_allocated = 0, total_reserved = 0, total_active = 0,
               stream_ptr = 0;
  std::int8_t device_type = 0, device_index = 0;
  std::uint8_t component_type = 0, data_type = 0, allocator_type = 0;
  std::uint64_t tid = 0, pid = 0;
  std::uint64_t offset = 0;  ///< its record's byte offset in the file (decoding only)

  // The values the analysis tells apart (msprof/framework.hpp says what they mean).
  static constexpr std::int8_t npu = 20;                                          // device_type
  static constexpr std::uint8_t caching = 0, workspace = 1;                       // component_type
  static constexpr std::uint8_t malloc_record = 0, free_record = 1, block_free = 2;  // data_type
  static constexpr std::uint8_t inner_allocator = 0;                              // allocator_type
};

/// A Python function entry/exit (torch.python_tracer_func).
struct python_tracer_func {
  std::uint64_t start = 0, tid = 0, pid = 0, hash_key = 0;
  std::uint8_t trace_tag = 0;
};

/// A Python function name by hash (torch.python_tracer_hash).
struct python_tracer_hash {
  std::uint64_t key = 0;
  std::string value;
};

/// A garbage collection (torch.gc_record).
struct gc_record {
  std::uint64_t pid = 0, start = 0, end = 0;
};

/// Everything decoded from one FRAMEWORK folder.
struct records {
  std::vector<op_range> ops;
  std::vector<op_mark> marks;
  std::vector<memory_usage> memory;
  std::vector<python_tracer_func> python_funcs;
  std::vector<python_tracer_hash> python_hashes;
  std::vector<gc_record> gcs;
};

inline constexpr std::size_t op_range_size = 58, op_mark_size = 40, memory_usage_size = 77, python_tracer_hash_size = 8,
                             python_tracer_func_size = 33, gc_record_size = 24;

namespace detail {

using codec::detail::load_le;

inline constexpr std::size_t tlv_head = 6;  // u16 type + u32 length

/// A value's inner fields by type (1..10); later duplicates win, as in torch_npu.
struct fields {
  std::array<std::string_view, 11> v{};
  std::array<bool, 11> has{};
};

/// Splits a value's inner TLV fields. False (and a warning) when they run past
/// the value; the fields read so far are kept.
inline bool split_fields(const unsigned char* p, std::size_t n, std::string_view file, std::uint64_t base, fields& f,
                         std::vector<std::string>& warnings) {
  std::size_t i = 0;
  while (i < n) {
    if (n - i < tlv_head) {
      warnings.push_back(place{file, base + i}.str() + ": inner field header cut after " + std::to_string(n - i) +
                         " byte(s); the record's remaining fields are lost");
      return false;
    }
    const auto type = load_le<std::uint16_t>(p + i);
    const auto len = load_le<std::uint32_t>(p + i + 2);
    if (len > n - i - tlv_head) {
      warnings.push_back(place{file, base + i}.str() + ": inner field " + std::to_string(type) + " length " +
                         std::to_string(len) + " runs past its record (" + std::to_string(n - i - tlv_head) +
                         " byte(s) left); the record's remaining fields are lost");
      return false;
    }
    if (type < f.v.size()) {
      f.v[type] = std::string_view(reinterpret_cast<const char*>(p + i + tlv_head), len);
      f.has[type] = true;
    }
    i += tlv_head + len;
  }
  return true;
}

/// Walks the outer TLV records of a file's bytes that start at file offset
/// `base`: on_value(value, len, offset of the record in the file) for each
/// record of `type` whose value holds at least `fixed` bytes.
template <class F>
void walk_tlv(const unsigned char* p, std::size_t n, std::string_view file, std::uint64_t base, std::uint16_t type,
              std::size_t fixed, std::vector<std::string>& warnings, F on_value) {
  std::size_t i = 0;
  std::size_t wrong_type = 0, short_value = 0;
  std::uint64_t first_wrong = 0, first_short = 0;
  while (i < n) {
    if (n - i < tlv_head) {
      warnings.push_back(place{file, base + i}.str() + ": truncated record header (" + std::to_string(n - i) +
                         " byte(s) at the end of the file); ignored");
      break;
    }
    const auto t = load_le<std::uint16_t>(p + i);
    const auto len = load_le<std::uint32_t>(p + i + 2);
    if (len > n - i - tlv_head) {
      warnings.push_back(place{file, base + i}.str() + ": length " + std::to_string(len) +
                         " runs past the end of the file (" +
                         std::to_string(n - i - tlv_head) + " byte(s) left); the rest of the file is ignored");
      break;
    }
    if (t != type) {
      if (wrong_type++ == 0) first_wrong = i;
    } else if (len < fixed) {
      if (short_value++ == 0) first_short = i;
    } else {
      on_value(p + i + tlv_head, static_cast<std::size_t>(len), base + i);
    }
    i += tlv_head + len;
  }
  if (wrong_type)
    warnings.push_back(place{file, base + first_wrong}.str() + ": unknown record type (expected " +
                       std::to_string(type) + "); " + std::to_string(wrong_type) + " such record(s) skipped");
  if (short_value)
    warnings.push_back(place{file, base + first_short}.str() + ": record shorter than its " + std::to_string(fixed) +
                       "-byte struct; " + std::to_string(short_value) + " such record(s) skipped");
}

/// Walks a raw file's fixed structs (bytes from file offset `base`); a cut tail gives a warning.
template <class F>
void walk_raw(const unsigned char* p, std::size_t n, std::string_view file, std::uint64_t base, std::size_t size,
              std::vector<std::string>& warnings, F on_struct) {
  std::size_t i = 0;
  for (; n - i >= size; i += size) on_struct(p + i);
  if (i < n)
    warnings.push_back(place{file, base + i}.str() + ": truncated record (" + std::to_string(n - i) + " of " +
                       std::to_string(size) + " bytes); ignored");
}

/// Copies an inner field as text, repairing invalid UTF-8.
inline std::string text(std::string_view v, std::size_t& invalid) {
  std::string s(v);
  if (json::utf8_repair(s)) ++invalid;
  return s;
}

/// An inner field as text: `v` itself when it is valid UTF-8, else its
/// repaired copy in `repaired`.
inline std::string_view text_view(std::string_view v, std::string& repaired, std::size_t& invalid) {
  if (json::utf8_valid(v)) return v;
  repaired.assign(v);
  json::utf8_repair(repaired);
  ++invalid;
  return repaired;
}

}  // namespace detail

/// The one warning for a file piece's `n` repaired texts (none when 0).
inline void warn_invalid_text(std::string_view file, std::size_t n, std::vector<std::string>& warnings) {
  if (n)
    warnings.push_back(std::string(file) + ": " + std::to_string(n) +
                       " text field(s) are not valid UTF-8; each invalid byte is shown as U+FFFD");
}

/// Decodes a torch.op_range file's bytes (from file offset `base`), handing
/// each record to on_op(const op_range_view&) with no copy of its texts;
/// problems go to `warnings`, each naming `file` and a byte offset. Returns
/// how many texts were not valid UTF-8 (repaired, U+FFFD; warn_invalid_text says it).
template <class OnOp>
std::size_t decode_op_ranges(const unsigned char* p, std::size_t n, std::string_view file,
                             std::vector<std::string>& warnings, std::uint64_t base, OnOp&& on_op) {
  using detail::load_le;
  std::size_t invalid = 0;
  std::string repaired[6];  // a record's repaired texts, when any
  detail::walk_tlv(p, n, file, base, 1, op_range_size, warnings,
                   [&](const unsigned char* v, std::size_t len, std::uint64_t off) {
                     op_range_view r;
                     r.start = load_le<std::int64_t>(v);
                     r.end = load_le<std::int64_t>(v + 8);
                     r.seq = load_le<std::int64_t>(v + 16);
                     r.pid = load_le<std::uint64_t>(v + 24);
                     r.start_tid = load_le<std::uint64_t>(v + 32);
                     r.end_tid = load_le<std::uint64_t>(v + 40);
                     r.fwd_tid = load_le<std::uint64_t>(v + 48);
                     r.scope = v[56];
                     r.is_async = v[57] != 0;
                     detail::fields f;
                     detail::split_fields(v + op_range_size, len - op_range_size, file,
                                          off + detail::tlv_head + op_range_size, f, warnings);
                     r.name = detail::text_view(f.v[2], repaired[0], invalid);
                     r.input_dtypes = detail::text_view(f.v[3], repaired[1], invalid);
                     r.input_shapes = detail::text_view(f.v[4], repaired[2], invalid);
                     r.call_stack = detail::text_view(f.v[8], repaired[3], invalid);
                     r.module_hierarchy = detail::text_view(f.v[9], repaired[4], invalid);
                     r.flops = detail::text_view(f.v[10], repaired[5], invalid);
                     r.has_dtypes = f.has[3];
                     r.has_shapes = f.has[4];
                     r.has_stack = f.has[8];
                     r.has_module = f.has[9];
                     r.has_flops = f.has[10];
                     r.offset = off;
                     on_op(static_cast<const op_range_view&>(r));
                   });
  return invalid;
}

/// How many leading bytes of p[0..n) are whole records of a `kind` file: a
/// piece that can be decoded now, the rest waiting for the file's next bytes.
inline std::size_t whole_records(file_kind kind, const unsigned char* p, std::size_t n) noexcept {
  switch (kind) {
    case file_kind::python_tracer_func:
      return n - n % python_tracer_func_size;
    case file_kind::gc_record:
      return n - n % gc_record_size;
    case file_kind::unknown:
      return n;
    default: {
      std::size_t i = 0;
      while (n - i >= detail::tlv_head) {
        const auto len = detail::load_le<std::uint32_t>(p + i + 2);
        if (len > n - i - detail::tlv_head) break;
        i += detail::tlv_head + len;
      }
      return i;
    }
  }
}

/// Decodes one FRAMEWORK file's bytes into `out`; problems go to `warnings`,
/// each naming `file` and a byte offset. Unknown file kinds are not read.
/// `base`: the file offset of p[0], when a file is decoded piece by piece
/// (whole_records says where a piece may end).
inline void decode(file_kind kind, const unsigned char* p, std::size_t n, std::string_view file, records& out,
                   std::vector<std::string>& warnings, std::uint64_t base = 0) {
  using detail::load_le;
  std::size_t invalid = 0;
  switch (kind) {
    case file_kind::op_range:
      invalid = decode_op_ranges(p, n, file, warnings, base,
                                 [&](const op_range_view& r) { out.ops.emplace_back(r); });
      break;
    case file_kind::op_mark:
      detail::walk_tlv(p, n, file, base, 2, op_mark_size, warnings,
                       [&](const unsigned char* v, std::size_t len, std::uint64_t off) {
                         op_mark r;
                         r.time = load_le<std::int64_t>(v);
                         r.category = load_le<std::uint64_t>(v + 8);
                         r.corr_id = load_le<std::uint64_t>(v + 16);
                         r.tid = load_le<std::uint64_t>(v + 24);
                         r.pid = load_le<std::uint64_t>(v + 32);
                         detail::fields f;
                         detail::split_fields(v + op_mark_size, len - op_mark_size, file,
                                              off + detail::tlv_head + op_mark_size, f, warnings);
                         r.name = detail::text(f.v[1], invalid);
                         r.offset = off;
                         out.marks.push_back(std::move(r));
                       });
      break;
    case file_kind::memory_usage:
      detail::walk_tlv(p, n, file, base, 3, memory_usage_size, warnings,
                       [&](const unsigned char* v, std::size_t, std::uint64_t off) {
                         memory_usage r;
                         r.ptr = load_le<std::int64_t>(v);
                         r.time = load_le<std::int64_t>(v + 8);
                         r.alloc_size = load_le<std::int64_t>(v + 16);
                         r.total_allocated = load_le<std::int64_t>(v + 24);
                         r.total_reserved = load_le<std::int64_t>(v + 32);
                         r.total_active = load_le<std::int64_t>(v + 40);
                         r.stream_ptr = load_le<std::int64_t>(v + 48);
                         r.device_type = static_cast<std::int8_t>(v[56]);
                         r.device_index = static_cast<std::int8_t>(v[57]);
                         r.component_type = v[58];
                         r.data_type = v[59];
                         r.allocator_type = v[60];
                         r.tid = load_le<std::uint64_t>(v + 61);
                         r.pid = load_le<std::uint64_t>(v + 69);
                         r.offset = off;
                         out.memory.push_back(r);
                       });
      break;
    case file_kind::python_tracer_hash:
      detail::walk_tlv(p, n, file, base, 4, python_tracer_hash_size, warnings,
                       [&](const unsigned char* v, std::size_t len, std::uint64_t off) {
                         python_tracer_hash r;
                         r.key = load_le<std::uint64_t>(v);
                         detail::fields f;
                         detail::split_fields(v + python_tracer_hash_size, len - python_tracer_hash_size, file,
                                              off + detail::tlv_head + python_tracer_hash_size, f, warnings);
                         r.value = detail::text(f.v[1], invalid);
                         out.python_hashes.push_back(std::move(r));
                       });
      break;
    case file_kind::python_tracer_func:
      detail::walk_raw(p, n, file, base, python_tracer_func_size, warnings, [&](const unsigned char* v) {
        python_tracer_func r;
        r.start = load_le<std::uint64_t>(v);
        r.tid = load_le<std::uint64_t>(v + 8);
        r.pid = load_le<std::uint64_t>(v + 16);
        r.hash_key = load_le<std::uint64_t>(v + 24);
        r.trace_tag = v[32];
        out.python_funcs.push_back(r);
      });
      break;
    case file_kind::gc_record:
      detail::walk_raw(p, n, file, base, gc_record_size, warnings, [&](const unsigned char* v) {
        out.gcs.push_back({load_le<std::uint64_t>(v), load_le<std::uint64_t>(v + 8), load_le<std::uint64_t>(v + 16)});
      });
      break;
    case file_kind::unknown:
      break;
  }
  warn_invalid_text(file, invalid, warnings);
}

// ------------------------------------------------------------- encoding
// The bytes torch_npu's data_reporter writes (csrc/toolkit/profiler/src/
// data_reporter.cpp): the fixed struct, then the inner fields it has (the name
// always, the others only when not empty), in type order, all in one TLV.

namespace detail {

using codec::detail::store_le;

template <class T>
void put(std::string& out, T v) {
  unsigned char b[sizeof(T)];
  store_le(b, v);
  out.append(reinterpret_cast<const char*>(b), sizeof b);
}
inline void put_field(std::string& out, std::uint16_t type, std::string_view v) {
  put(out, type);
  put(out, static_cast<std::uint32_t>(v.size()));
  out.append(v.data(), v.size());
}
/// Opens a TLV record of `type`; close_tlv() fills its length in.
inline std::size_t open_tlv(std::string& out, std::uint16_t type) {
  put(out, type);
  put(out, std::uint32_t{0});
  return out.size();
}
inline void close_tlv(std::string& out, std::size_t value_at) {
  store_le(reinterpret_cast<unsigned char*>(&out[value_at - 4]), static_cast<std::uint32_t>(out.size() - value_at));
}

}  // namespace detail

/// Appends one torch.op_range record (name, dtypes, shapes, stack, module
/// hierarchy, flops fields; has_* flags are not consulted: empty is absent).
inline void encode(const op_range& r, std::string& out) {
  const std::size_t at = detail::open_tlv(out, 1);
  detail::put(out, r.start);
  detail::put(out, r.end);
  detail::put(out, r.seq);
  detail::put(out, r.pid);
  detail::put(out, r.start_tid);
  detail::put(out, r.end_tid);
  detail::put(out, r.fwd_tid);
  detail::put(out, r.scope);
  detail::put(out, static_cast<std::uint8_t>(r.is_async ? 1 : 0));
  detail::put_field(out, 2, r.name);
  const std::pair<std::uint16_t, const std::string*> extra[] = {
      {3, &r.input_dtypes}, {4, &r.input_shapes}, {8, &r.call_stack}, {9, &r.module_hierarchy}, {10, &r.flops}};
  for (const auto& [type, v] : extra)
    if (!v->empty()) detail::put_field(out, type, *v);
  detail::close_tlv(out, at);
}

/// Appends one torch.op_mark record.
inline void encode(const op_mark& r, std::string& out) {
  const std::size_t at = detail::open_tlv(out, 2);
  detail::put(out, r.time);
  detail::put(out, r.category);
  detail::put(out, r.corr_id);
  detail::put(out, r.tid);
  detail::put(out, r.pid);
  detail::put_field(out, 1, r.name);
  detail::close_tlv(out, at);
}

/// Appends one torch.memory_usage record.
inline void encode(const memory_usage& r, std::string& out) {
  const std::size_t at = detail::open_tlv(out, 3);
  for (std::int64_t v : {r.ptr, r.time, r.alloc_size, r.total_allocated, r.total_reserved, r.total_active, r.stream_ptr})
    detail::put(out, v);
  detail::put(out, r.device_type);
  detail::put(out, r.device_index);
  detail::put(out, r.component_type);
  detail::put(out, r.data_type);
  detail::put(out, r.allocator_type);
  detail::put(out, r.tid);
  detail::put(out, r.pid);
  detail::close_tlv(out, at);
}

}  // namespace framework
}  // namespace codec
MSPROF_END_NAMESPACE

#endif  // MSPROF_CODEC_FRAMEWORK_HPP
