// SPDX-License-Identifier: MIT
// The raw records of a SoC JOB directory (docs/formats.md, "JOB directories").
// The SS928-class board's own raw format is not public; this one is msprof's,
// shaped like CANN's: little-endian records with a 0x5A5A magic, fixed sizes
// where the content allows it, one slice family per kind (names: prof/job_layout.hpp).
//
//   AclModule.*      soc_acl_record (64 B)       one ACL API call on the host
//   TaskScheduler.*  soc_task_record (48 B)      one layer task's start and end
//   AAcore.*         soc_aacore_record (112 B)   one AA Core task's ArithmeticUtilization counters
//   ModelDesc.*      soc_desc header (8 B) + body: a model, a layer, or an inference
//
// Encoders append to a std::string; decoders take (bytes, size, place) and
// never read past `size` (codec/decode.hpp's rules).
#ifndef MSPROF_CODEC_SOC_HPP
#define MSPROF_CODEC_SOC_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "decode.hpp"
#include "format.hpp"

MSPROF_BEGIN_NAMESPACE
namespace codec {
namespace soc {

/// Record kinds (byte 2 of every record).
namespace kind {
constexpr std::uint8_t acl = 1, task = 2, aacore = 3, model = 4, layer = 5, inference = 6;
}

/// ACL API types (acl_statistic's Type column).
enum class api_type : std::uint8_t { model = 0, runtime = 1, other = 2 };
inline const char* api_type_name(api_type t) noexcept {
  switch (t) {
    case api_type::model: return "model";
    case api_type::runtime: return "runtime";
    default: return "other";
  }
}

/// Execution units of a task (timeline spelling, convert/soc/job.hpp).
enum class unit : std::uint8_t { aa_core = 0, aa_vector_core = 1, aa_cpu = 2 };
inline const char* unit_name(unit u) noexcept {
  switch (u) {
    case unit::aa_core: return "AA CORE";
    case unit::aa_vector_core: return "AA Vector Core";
    default: return "AA CPU";
  }
}

#pragma pack(push, 1)
/// One ACL API call (AclModule.*): host monotonic ns.
struct soc_acl_record {
  std::uint16_t magic = codec::magic;
  std::uint8_t kind = kind::acl;
  std::uint8_t type = 0;            ///< api_type
  std::uint32_t pid = 0;
  std::uint32_t tid = 0;
  std::uint32_t reserved = 0;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  char name[32] = {};               ///< NUL-padded; a name of 32 bytes has no NUL
};
/// One task of a layer as the task scheduler ran it (TaskScheduler.*).
struct soc_task_record {
  std::uint16_t magic = codec::magic;
  std::uint8_t kind = kind::task;
  std::uint8_t unit = 0;            ///< soc::unit
  std::uint32_t model_id = 0;
  std::uint32_t task_id = 0;        ///< execution-order index within the inference, from 0
  std::uint32_t stream_id = 0;
  std::uint32_t layer_id = 0;
  std::uint32_t reserved = 0;
  std::uint64_t iteration = 0;      ///< the model's inference number, from 1
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};
/// ArithmeticUtilization counters of one AA Core task (AAcore.*): cycles of
/// the task and the cycles each unit was busy, DDR bytes.
struct soc_aacore_record {
  std::uint16_t magic = codec::magic;
  std::uint8_t kind = kind::aacore;
  std::uint8_t reserved = 0;
  std::uint32_t model_id = 0;
  std::uint32_t task_id = 0;
  std::uint32_t reserved2 = 0;
  std::uint64_t iteration = 0;
  std::uint64_t total_cycles = 0;
  std::uint64_t mac_busy = 0, mac_ppen = 0, vec_busy = 0, vec_ppen = 0;
  std::uint64_t dstr = 0, dtrans = 0, dld = 0, wld = 0;
  std::uint64_t ddr_read_bytes = 0, ddr_write_bytes = 0;
};
/// The header of a ModelDesc.* record; `length` body bytes follow.
struct soc_desc_header {
  std::uint16_t magic = codec::magic;
  std::uint8_t kind = 0;            ///< kind::model, kind::layer or kind::inference
  std::uint8_t reserved = 0;
  std::uint32_t length = 0;
};
#pragma pack(pop)

static_assert(sizeof(soc_acl_record) == 64 && offsetof(soc_acl_record, start_ns) == 16 &&
                  offsetof(soc_acl_record, name) == 32,
              "soc_acl_record layout");
static_assert(sizeof(soc_task_record) == 48 && offsetof(soc_task_record, iteration) == 24 &&
                  offsetof(soc_task_record, end_ns) == 40,
              "soc_task_record layout");
static_assert(sizeof(soc_aacore_record) == 112 && offsetof(soc_aacore_record, total_cycles) == 24 &&
                  offsetof(soc_aacore_record, ddr_read_bytes) == 96,
              "soc_aacore_record layout");
static_assert(sizeof(soc_desc_header) == 8, "soc_desc_header layout");

constexpr std::size_t max_desc_body = 64 * 1024;  ///< a longer ModelDesc body is damage
constexpr std::size_t max_desc_string = 4096;     ///< per string in a body

/// A model as loaded (kind::model).
struct model_desc {
  std::uint32_t model_id = 0;
  std::string file_name;
};
/// One layer of a model (kind::layer).
struct layer_desc {
  std::uint32_t model_id = 0;
  std::uint32_t layer_id = 0;
  std::string ori_name;  ///< original layer names, fused ones joined by ','
  std::string name;
  std::string type;
};
/// One execute of a model (kind::inference), sampled or not.
struct inference_desc {
  std::uint32_t model_id = 0;
  std::uint32_t sampled = 0;          ///< 1: its tasks were collected
  std::uint64_t iteration = 0;        ///< from 1
  std::uint64_t pictures = 0;         ///< pictures given to this execute
  std::uint64_t icache_access = 0, icache_miss = 0;
};
/// A decoded ModelDesc record: `kind` says which member is set.
struct desc_record {
  std::uint8_t kind = 0;
  model_desc model;
  layer_desc layer;
  inference_desc inference;
  std::size_t size = 0;  ///< bytes the record took (header + body)
};

// ----------------------------------------------------------------- encoders --
template <class T>
inline void append_raw(std::string& out, const T& rec) {
  out.append(reinterpret_cast<const char*>(&rec), sizeof rec);
}

inline soc_acl_record make_acl(std::string_view name, api_type t, std::uint32_t pid, std::uint32_t tid,
                               std::uint64_t start_ns, std::uint64_t end_ns) {
  soc_acl_record r;
  r.type = static_cast<std::uint8_t>(t);
  r.pid = pid;
  r.tid = tid;
  r.start_ns = start_ns;
  r.end_ns = end_ns;
  std::memcpy(r.name, name.data(), name.size() < sizeof r.name ? name.size() : sizeof r.name);
  return r;
}

namespace detail {
inline void put_u32(std::string& b, std::uint32_t v) {
  unsigned char x[4];
  codec::detail::store_le(x, v);
  b.append(reinterpret_cast<const char*>(x), 4);
}
inline void put_u64(std::string& b, std::uint64_t v) {
  unsigned char x[8];
  codec::detail::store_le(x, v);
  b.append(reinterpret_cast<const char*>(x), 8);
}
inline void put_str(std::string& b, std::string_view s) {
  if (s.size() > max_desc_string) s = s.substr(0, max_desc_string);
  unsigned char x[2];
  codec::detail::store_le(x, static_cast<std::uint16_t>(s.size()));
  b.append(reinterpret_cast<const char*>(x), 2);
  b.append(s.data(), s.size());
}
inline void put_desc(std::string& out, std::uint8_t k, const std::string& body) {
  soc_desc_header h;
  h.kind = k;
  h.length = static_cast<std::uint32_t>(body.size());
  append_raw(out, h);
  out += body;
}
}  // namespace detail

inline void encode(std::string& out, const model_desc& m) {
  std::string b;
  detail::put_u32(b, m.model_id);
  detail::put_str(b, m.file_name);
  detail::put_desc(out, kind::model, b);
}
inline void encode(std::string& out, const layer_desc& l) {
  std::string b;
  detail::put_u32(b, l.model_id);
  detail::put_u32(b, l.layer_id);
  detail::put_str(b, l.ori_name);
  detail::put_str(b, l.name);
  detail::put_str(b, l.type);
  detail::put_desc(out, kind::layer, b);
}
inline void encode(std::string& out, const inference_desc& i) {
  std::string b;
  detail::put_u32(b, i.model_id);
  detail::put_u32(b, i.sampled);
  detail::put_u64(b, i.iteration);
  detail::put_u64(b, i.pictures);
  detail::put_u64(b, i.icache_access);
  detail::put_u64(b, i.icache_miss);
  detail::put_desc(out, kind::inference, b);
}

// ----------------------------------------------------------------- decoders --
namespace detail {
template <class T>
inline result<T> fixed(const unsigned char* p, std::size_t size, const place& at, std::uint8_t want, const char* what) {
  if (size < sizeof(T)) return codec::detail::short_input(at, sizeof(T), size);
  T r;
  std::memcpy(&r, p, sizeof r);
  if (r.magic != codec::magic) return make_error(errc::bad_magic, at.str() + ": " + what + " magic is not 0x5A5A");
  if (r.kind != want)
    return make_error(errc::bad_value, at.str() + ": " + what + " kind " + std::to_string(r.kind) + ", expected " +
                                           std::to_string(want));
  return r;
}

// Reads from a body, bounds-checked; `ok` turns false at the first overrun.
struct body_reader {
  const unsigned char* p;
  std::size_t n, i = 0;
  bool ok = true;
  std::uint32_t u32() {
    if (!ok || n - i < 4) return ok = false, 0;
    i += 4;
    return codec::detail::load_le<std::uint32_t>(p + i - 4);
  }
  std::uint64_t u64() {
    if (!ok || n - i < 8) return ok = false, 0;
    i += 8;
    return codec::detail::load_le<std::uint64_t>(p + i - 8);
  }
  std::string str() {
    if (!ok || n - i < 2) return ok = false, std::string();
    const std::size_t len = codec::detail::load_le<std::uint16_t>(p + i);
    i += 2;
    if (len > max_desc_string || n - i < len) return ok = false, std::string();
    i += len;
    return std::string(reinterpret_cast<const char*>(p + i - len), len);
  }
};
}  // namespace detail

namespace detail {
// A start and end in ns: in signed 64-bit range (the converters' type) and in order.
inline result<void> check_span(std::uint64_t start, std::uint64_t end, const place& at, const char* what) {
  constexpr std::uint64_t max_ns = 0x7FFFFFFFFFFFFFFFull;
  if (start > max_ns || end > max_ns)
    return make_error(errc::bad_value, at.str() + ": " + what + " time past 2^63 - 1 ns");
  if (end < start) return make_error(errc::bad_value, at.str() + ": " + what + " record ends before it starts");
  return {};
}
}  // namespace detail

/// An acl record; its name ends at the first NUL (or after 32 bytes).
inline result<soc_acl_record> decode_acl(const unsigned char* p, std::size_t size, const place& at) {
  auto r = detail::fixed<soc_acl_record>(p, size, at, kind::acl, "AclModule");
  if (r && r->type > static_cast<std::uint8_t>(api_type::other))
    return make_error(errc::bad_value, at.str() + ": AclModule api type " + std::to_string(r->type) + " is unknown");
  if (r) MSPROF_TRY(detail::check_span(r->start_ns, r->end_ns, at, "AclModule"));
  return r;
}
inline std::string acl_name(const soc_acl_record& r) {
  return std::string(r.name, strnlen(r.name, sizeof r.name));
}
inline result<soc_task_record> decode_task(const unsigned char* p, std::size_t size, const place& at) {
  auto r = detail::fixed<soc_task_record>(p, size, at, kind::task, "TaskScheduler");
  if (r && r->unit > static_cast<std::uint8_t>(unit::aa_cpu))
    return make_error(errc::bad_value, at.str() + ": TaskScheduler unit " + std::to_string(r->unit) + " is unknown");
  if (r) MSPROF_TRY(detail::check_span(r->start_ns, r->end_ns, at, "TaskScheduler"));
  return r;
}
inline result<soc_aacore_record> decode_aacore(const unsigned char* p, std::size_t size, const place& at) {
  auto r = detail::fixed<soc_aacore_record>(p, size, at, kind::aacore, "AAcore");
  if (!r) return r;
  const std::uint64_t parts[] = {r->mac_busy, r->mac_ppen, r->vec_busy, r->vec_ppen, r->dstr, r->dtrans, r->dld, r->wld};
  for (std::uint64_t c : parts)
    if (c > r->total_cycles)
      return make_error(errc::bad_value, at.str() + ": AAcore busy cycles " + std::to_string(c) + " exceed the task's " +
                                             std::to_string(r->total_cycles));
  return r;
}

/// One ModelDesc record at `p`: header, then the body of its kind.
inline result<desc_record> decode_desc(const unsigned char* p, std::size_t size, const place& at) {
  if (size < sizeof(soc_desc_header)) return codec::detail::short_input(at, sizeof(soc_desc_header), size);
  soc_desc_header h;
  std::memcpy(&h, p, sizeof h);
  if (h.magic != codec::magic) return make_error(errc::bad_magic, at.str() + ": ModelDesc magic is not 0x5A5A");
  if (h.length > max_desc_body)
    return make_error(errc::bad_size, at.str() + ": ModelDesc body of " + std::to_string(h.length) + " bytes (at most " +
                                          std::to_string(max_desc_body) + ")");
  if (size - sizeof h < h.length) return codec::detail::short_input(at, sizeof h + h.length, size);
  detail::body_reader b{p + sizeof h, h.length};
  desc_record d;
  d.kind = h.kind;
  d.size = sizeof h + h.length;
  if (h.kind == kind::model) {
    d.model.model_id = b.u32();
    d.model.file_name = b.str();
  } else if (h.kind == kind::layer) {
    d.layer.model_id = b.u32();
    d.layer.layer_id = b.u32();
    d.layer.ori_name = b.str();
    d.layer.name = b.str();
    d.layer.type = b.str();
  } else if (h.kind == kind::inference) {
    d.inference.model_id = b.u32();
    d.inference.sampled = b.u32();
    d.inference.iteration = b.u64();
    d.inference.pictures = b.u64();
    d.inference.icache_access = b.u64();
    d.inference.icache_miss = b.u64();
    if (b.ok && d.inference.icache_miss > d.inference.icache_access)
      return make_error(errc::bad_value, at.str() + ": ModelDesc inference has more icache misses than accesses");
  } else {
    return make_error(errc::bad_value, at.str() + ": ModelDesc kind " + std::to_string(h.kind) + " is unknown");
  }
  if (!b.ok) return make_error(errc::truncated, at.str() + ": ModelDesc body of kind " + std::to_string(h.kind) + " is cut short");
  return d;
}

}  // namespace soc
}  // namespace codec
MSPROF_END_NAMESPACE

#endif  // MSPROF_CODEC_SOC_HPP
