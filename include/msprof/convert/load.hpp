// SPDX-License-Identifier: MIT
// load_model(prof_dir): reads a PROF_ directory into the converter model.
//
// Control files (info.json, start_info, end_info, host_start.log,
// dev_start.log, sample.json) and the text dictionaries are read here; the
// binary record streams are read by `detail::interim_reader` until the codec's
// reader (codec/reader.hpp) is available, then through it. Either way the
// result is a raw::collection handed to join().
//
// Damage is reported, never hidden: a slice whose size is not a multiple of the
// record size keeps its whole records and adds a warning naming the file, the
// offset of the cut record and the bytes missing.
#ifndef MSPROF_CONVERT_LOAD_HPP
#define MSPROF_CONVERT_LOAD_HPP

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../core/error.hpp"
#include "join.hpp"
#include "model.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace detail {

namespace fs = std::filesystem;

inline result<std::string> read_text(const fs::path& p) {
  std::error_code ec;
  if (!fs::exists(p, ec)) return make_error(errc::not_found, p.string() + ": cannot open for reading: no such file");
  if (!fs::is_regular_file(p, ec)) return make_error(errc::io, p.string() + ": not a regular file");
  std::FILE* f = std::fopen(p.c_str(), "rb");
  if (!f) return make_error(errc::io, p.string() + ": cannot open for reading: " + std::strerror(errno));
  std::string s;
  const auto size = fs::file_size(p, ec);
  s.resize(ec ? 0 : static_cast<std::size_t>(size));
  std::size_t got = s.empty() ? 0 : std::fread(&s[0], 1, s.size(), f);
  // The file may grow or shrink while we read it (a live collection): read to EOF.
  char chunk[65536];
  if (got == s.size()) {
    for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;) s.append(chunk, n);
  } else {
    s.resize(got);
  }
  const bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) return make_error(errc::io, p.string() + ": read error");
  return s;
}

/// A JSON field as text whether it is stored as a string or a number.
inline std::string json_field(simdjson::dom::element obj, const char* key) {
  simdjson::dom::element v;
  if (obj[key].get(v)) return {};
  std::string_view s;
  if (!v.get_string().get(s)) return std::string(s);
  std::int64_t i;
  if (!v.get_int64().get(i)) return std::to_string(i);
  std::uint64_t u;
  if (!v.get_uint64().get(u)) return std::to_string(u);
  double d;
  if (!v.get_double().get(d)) return fmt::format("{}", d);
  return {};
}

inline result<simdjson::dom::element> parse_json(simdjson::dom::parser& parser, const fs::path& p,
                                                 std::string& storage) {
  auto t = read_text(p);
  if (!t) return t.err();
  storage = std::move(*t);
  simdjson::dom::element doc;
  auto err = parser.parse(storage).get(doc);
  if (err) return make_error(errc::parse, p.string() + ": invalid JSON: " + simdjson::error_message(err));
  if (!doc.is_object()) return make_error(errc::parse, p.string() + ": expected a JSON object");
  return doc;
}

inline bool parse_u64(const std::string& s, std::uint64_t& out) {
  if (s.empty()) return false;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

inline bool parse_double(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}

/// "key: value" lines (host_start.log, dev_start.log).
inline result<std::map<std::string, std::string>> read_kv_log(const fs::path& p) {
  auto t = read_text(p);
  if (!t) return t.err();
  std::map<std::string, std::string> kv;
  std::istringstream in(*t);
  std::string line;
  while (std::getline(in, line)) {
    const auto c = line.find(':');
    if (c == std::string::npos) continue;
    auto trim = [](std::string s) {
      const auto b = s.find_first_not_of(" \t\r");
      const auto e = s.find_last_not_of(" \t\r");
      return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    };
    kv[trim(line.substr(0, c))] = trim(line.substr(c + 1));
  }
  return kv;
}

/// Data files of one kind, in slice order.
inline std::vector<fs::path> slices(const fs::path& dir, const std::string& infix) {
  std::vector<std::pair<std::uint64_t, fs::path>> v;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const auto name = e.path().filename().string();
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".done") == 0) continue;
    if (name.find(infix) == std::string::npos) continue;
    const auto s = name.rfind(".slice_");
    std::uint64_t n = 0;
    if (s == std::string::npos || !parse_u64(name.substr(s + 7), n)) continue;
    v.emplace_back(n, e.path());
  }
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second.filename() < b.second.filename();
  });
  std::vector<fs::path> out;
  for (auto& x : v) out.push_back(std::move(x.second));
  return out;
}

template <class T>
T rd(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;  // files are little-endian, as is every supported host
}

/// Interim stand-in for codec/reader.hpp: whole fixed-size records of a file,
/// with a warning for a cut tail.
/// Bytes of a record file (a std::string used as a byte buffer).
struct byte_buffer {
  std::string bytes;
  const unsigned char* data() const noexcept { return reinterpret_cast<const unsigned char*>(bytes.data()); }
  std::size_t size() const noexcept { return bytes.size(); }
  void resize(std::size_t n) { bytes.resize(n); }
};

inline result<byte_buffer> read_records(const fs::path& p, std::size_t rec, std::vector<std::string>& warnings) {
  auto t = read_text(p);
  if (!t) return t.err();
  byte_buffer b{std::move(*t)};
  const std::size_t whole = b.size() / rec * rec;
  if (whole != b.size()) {
    warnings.push_back(p.string() + ": truncated tail: record at offset " + std::to_string(whole) + " has " +
                       std::to_string(b.size() - whole) + " of " + std::to_string(rec) + " bytes (" +
                       std::to_string(rec - (b.size() - whole)) + " missing); " + std::to_string(whole / rec) +
                       " whole records kept");
    b.resize(whole);
  }
  return b;
}

inline constexpr std::uint16_t report_magic = 0x5A5A;

inline result<void> read_host(const fs::path& host, raw::collection& c) {
  const fs::path data = host / "data";
  auto& w = c.warnings;
  // Dictionaries.
  for (const auto& p : slices(data, "hash_dic")) {
    auto t = read_text(p);
    if (!t) return t.err();
    std::istringstream in(*t);
    std::string line;
    while (std::getline(in, line)) {
      const auto k = line.find(':');
      std::uint64_t h = 0;
      if (k == std::string::npos || !parse_u64(line.substr(0, k), h)) continue;
      c.hashes[h] = line.substr(k + 1);
    }
  }
  for (const auto& p : slices(data, "type_info_dic")) {
    auto t = read_text(p);
    if (!t) return t.err();
    std::istringstream in(*t);
    std::string line;
    while (std::getline(in, line)) {
      const auto u = line.find('_'), k = line.find(':');
      std::uint64_t lv = 0, ty = 0;
      if (u == std::string::npos || k == std::string::npos || u > k || !parse_u64(line.substr(0, u), lv) ||
          !parse_u64(line.substr(u + 1, k - u - 1), ty))
        continue;
      c.types[{static_cast<std::uint16_t>(lv), static_cast<std::uint32_t>(ty)}] = line.substr(k + 1);
    }
  }
  // API records and begin/end event pairs.
  for (const auto& p : slices(data, "api_event.data")) {
    auto b = read_records(p, 40, w);
    if (!b) return b.err();
    std::map<std::tuple<std::uint16_t, std::uint32_t, std::uint32_t, std::uint32_t, std::uint64_t>, std::uint64_t> open;
    for (std::size_t o = 0; o < b->size(); o += 40) {
      const unsigned char* r = b->data() + o;
      if (rd<std::uint16_t>(r) != report_magic) {
        w.push_back(p.string() + ": record at offset " + std::to_string(o) + " has a bad magic number; skipped");
        continue;
      }
      raw::api a{rd<std::uint16_t>(r + 2), rd<std::uint32_t>(r + 4), rd<std::uint32_t>(r + 8),
                 rd<std::uint64_t>(r + 16), rd<std::uint64_t>(r + 24), rd<std::uint64_t>(r + 32)};
      if (a.end == UINT64_MAX) {  // MsprofEvent: pair by (level, type, thread, requestId, itemId)
        const auto key = std::make_tuple(a.level, a.type, a.thread_id, rd<std::uint32_t>(r + 12), a.item_id);
        auto it = open.find(key);
        if (it == open.end()) {
          open[key] = a.begin;
        } else {
          a.end = a.begin;
          a.begin = it->second;
          open.erase(it);
          if (a.begin != 0) c.apis.push_back(a);
        }
        continue;
      }
      if (a.begin == 0) continue;
      c.apis.push_back(a);
    }
  }
  for (const auto& p : slices(data, "compact.node_basic_info")) {
    auto b = read_records(p, 64, w);
    if (!b) return b.err();
    const bool dyn = p.filename().string().rfind("aging.", 0) == 0;
    for (std::size_t o = 0; o < b->size(); o += 64) {
      const unsigned char* r = b->data() + o;
      if (rd<std::uint16_t>(r) != report_magic) continue;
      c.nodes.push_back({rd<std::uint64_t>(r + 16), rd<std::uint32_t>(r + 8), rd<std::uint64_t>(r + 24),
                         rd<std::uint32_t>(r + 32), rd<std::uint64_t>(r + 36), rd<std::uint32_t>(r + 44), dyn});
    }
  }
  for (const auto& p : slices(data, "additional.tensor_info")) {
    auto b = read_records(p, 256, w);
    if (!b) return b.err();
    for (std::size_t o = 0; o < b->size(); o += 256) {
      const unsigned char* r = b->data() + o;
      if (rd<std::uint16_t>(r) != report_magic) continue;
      raw::tensor_info t{rd<std::uint64_t>(r + 16), rd<std::uint32_t>(r + 8), rd<std::uint64_t>(r + 24), {}};
      const std::uint32_t n = std::min<std::uint32_t>(rd<std::uint32_t>(r + 32), 5);
      for (std::uint32_t i = 0; i < n; ++i) {
        const unsigned char* q = r + 36 + 44 * i;
        tensor_desc d;
        d.kind = rd<std::uint32_t>(q);
        d.format = rd<std::uint32_t>(q + 4);
        d.data_type = rd<std::uint32_t>(q + 8);
        for (int k = 0; k < 8; ++k) {
          const auto dim = rd<std::uint32_t>(q + 12 + 4 * k);
          if (dim == 0) break;
          d.shape.push_back(dim);
        }
        t.tensors.push_back(std::move(d));
      }
      c.tensors.push_back(std::move(t));
    }
  }
  for (const auto& p : slices(data, "compact.task_track")) {
    auto b = read_records(p, 64, w);
    if (!b) return b.err();
    for (std::size_t o = 0; o < b->size(); o += 64) {
      const unsigned char* r = b->data() + o;
      if (rd<std::uint16_t>(r) != report_magic) continue;
      c.tracks.push_back({rd<std::uint64_t>(r + 16), rd<std::uint32_t>(r + 8), rd<std::uint16_t>(r + 24),
                          rd<std::uint16_t>(r + 26), rd<std::uint32_t>(r + 28), rd<std::uint64_t>(r + 32),
                          rd<std::uint64_t>(r + 40)});
    }
  }
  // mstx: 256-byte MsprofTxInfo records; segments (res0 = 1, 2, ...) continue the
  // message of the record before them with the same markId.
  for (const auto& p : slices(data, "additional.msproftx")) {
    auto b = read_records(p, 256, w);
    if (!b) return b.err();
    for (std::size_t o = 0; o < b->size(); o += 256) {
      const unsigned char* r = b->data() + o;
      if (rd<std::uint16_t>(r) != report_magic) continue;
      const auto seg = rd<std::uint16_t>(r + 26);
      const char* msg = reinterpret_cast<const char*>(r + 100);
      const std::string text(msg, strnlen(msg, 156));
      const auto mark = rd<std::uint64_t>(r + 80);
      if (seg > 0 && !c.mstxs.empty() && c.mstxs.back().mark_id == mark) {
        c.mstxs.back().message += text;
        continue;
      }
      c.mstxs.push_back({rd<std::uint32_t>(r + 36), rd<std::uint32_t>(r + 40), rd<std::uint32_t>(r + 48),
                         rd<std::uint64_t>(r + 64), rd<std::uint64_t>(r + 72), mark, rd<std::uint64_t>(r + 88), text});
    }
  }
  return {};
}

inline result<void> read_device(const fs::path& dev_dir, std::uint32_t id, raw::collection& c) {
  const fs::path data = dev_dir / "data";
  auto& w = c.warnings;
  const std::string suffix = ".data." + std::to_string(id) + ".slice_";
  for (const auto& p : slices(data, "stars_soc" + suffix.substr(0, suffix.size() - 7))) {
    auto b = read_records(p, 64, w);
    if (!b) return b.err();
    for (std::size_t o = 0; o < b->size(); o += 64) {
      const unsigned char* r = b->data() + o;
      const auto func = rd<std::uint16_t>(r) & 0x3Fu;
      if (func > 1) continue;  // only ACSQ task start/end
      c.acsqs.push_back({id, func == 0, rd<std::uint16_t>(r + 4), rd<std::uint16_t>(r + 6), rd<std::uint64_t>(r + 8)});
    }
  }
  for (const auto& p : slices(data, "ffts_profile" + suffix.substr(0, suffix.size() - 7))) {
    auto b = read_records(p, 128, w);
    if (!b) return b.err();
    for (std::size_t o = 0; o < b->size(); o += 128) {
      const unsigned char* r = b->data() + o;
      if ((rd<std::uint16_t>(r) & 0x3Fu) != 0x28) continue;  // ContextPmu
      raw::pmu pm{id, rd<std::uint16_t>(r + 4), rd<std::uint16_t>(r + 6), {}};
      pm.counters.total_cycles = rd<std::uint64_t>(r + 32);
      for (std::size_t k = 0; k < 8; ++k) pm.counters.events[k] = rd<std::uint64_t>(r + 48 + 8 * k);
      c.pmus.push_back(pm);
    }
  }
  return {};
}

}  // namespace detail

/// Reads and joins one PROF_ directory.
inline result<model> load_model(const std::string& prof_dir) {
  namespace fs = std::filesystem;
  using detail::json_field;
  const fs::path root(prof_dir);
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return make_error(errc::not_found, prof_dir + ": not a directory");
  const fs::path host = root / "host";
  std::vector<std::pair<std::uint32_t, fs::path>> devs;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const auto n = e.path().filename().string();
    std::uint64_t id = 0;
    if (e.is_directory(ec) && n.rfind("device_", 0) == 0 && detail::parse_u64(n.substr(7), id))
      devs.emplace_back(static_cast<std::uint32_t>(id), e.path());
  }
  std::sort(devs.begin(), devs.end());
  const bool has_host = fs::is_directory(host, ec);
  if (!has_host && devs.empty())
    return make_error(errc::not_found, prof_dir + ": neither host/ nor device_<id>/ found; not a PROF_ directory");

  raw::collection c;
  auto& s = c.session;
  s.prof_dir = prof_dir;
  simdjson::dom::parser parser;
  std::string buf;

  // The control files come from host/ when present, else from the first device.
  const fs::path ctl = has_host ? host : devs.front().second;
  const std::string sfx = has_host ? "" : "." + std::to_string(devs.front().first);
  {
    auto doc = detail::parse_json(parser, ctl / ("info.json" + sfx), buf);
    if (!doc) return doc.err();
    std::uint64_t u = 0;
    if (detail::parse_u64(json_field(*doc, "pid"), u)) s.pid = static_cast<std::uint32_t>(u);
    s.pid_name = json_field(*doc, "pid_name");
    s.hostname = json_field(*doc, "hostname");
    s.host_uid = json_field(*doc, "hostUid");
    if (s.host_uid.empty()) s.host_uid = "0";
    s.platform_version = json_field(*doc, "platform_version");
    double rank = -1;
    if (detail::parse_double(json_field(*doc, "rank_id"), rank)) s.rank_id = static_cast<std::int64_t>(rank);
    // Loss counters written by msprof's collector: never let a lossy trace look complete.
    simdjson::dom::object losses;
    if (!(*doc)["msprof_losses"].get_object().get(losses)) {
      for (auto kv : losses) {
        std::uint64_t n = 0;
        if (!kv.value.get_uint64().get(n) && n > 0)
          c.warnings.push_back((ctl / ("info.json" + sfx)).string() + ": the collector reports " + std::to_string(n) +
                               " " + std::string(kv.key) + " event(s); the trace is incomplete");
      }
    }
    simdjson::dom::array cpus;
    if (!(*doc)["CPU"].get_array().get(cpus) && cpus.size() > 0) {
      double f = 0;
      if (detail::parse_double(json_field(cpus.at(0).value(), "Frequency"), f) && f > 0)
        c.host_cpu_frequency_mhz = f;
    }
  }
  std::uint64_t begin_us = 0, mono_ns = 0, end_us = 0;
  {
    const auto p = ctl / ("start_info" + sfx);
    auto doc = detail::parse_json(parser, p, buf);
    if (!doc) return doc.err();
    if (!detail::parse_u64(json_field(*doc, "collectionTimeBegin"), begin_us) ||
        !detail::parse_u64(json_field(*doc, "clockMonotonicRaw"), mono_ns))
      return make_error(errc::parse, p.string() + ": collectionTimeBegin/clockMonotonicRaw missing or not a number");
  }
  {
    const auto p = ctl / ("end_info" + sfx);
    auto doc = detail::parse_json(parser, p, buf);
    if (!doc) {
      c.warnings.push_back(doc.err().message + " (session end unknown; using the last record)");
    } else if (!detail::parse_u64(json_field(*doc, "collectionTimeEnd"), end_us)) {
      c.warnings.push_back(p.string() + ": collectionTimeEnd missing (session end unknown)");
    }
  }
  c.start_monotonic_raw_ns = mono_ns;
  s.wall_offset_ns = static_cast<std::int64_t>(begin_us) * 1000 - static_cast<std::int64_t>(mono_ns);
  s.start_ns = static_cast<std::int64_t>(begin_us) * 1000;
  s.end_ns = end_us ? static_cast<std::int64_t>(end_us) * 1000 : s.start_ns;
  if (has_host && c.host_cpu_frequency_mhz > 0) {
    auto kv = detail::read_kv_log(host / "host_start.log");
    if (!kv) return kv.err();
    if (!detail::parse_u64((*kv)["clock_monotonic_raw"], c.host_monotonic_raw_ns) ||
        !detail::parse_u64((*kv)["cntvct"], c.host_cntvct))
      return make_error(errc::parse, (host / "host_start.log").string() + ": clock_monotonic_raw/cntvct missing");
  }

  for (const auto& [id, dir] : devs) {
    const std::string n = std::to_string(id);
    device_info d;
    d.id = id;
    raw::device_clock k;
    k.device_id = id;
    auto doc = detail::parse_json(parser, dir / ("info.json." + n), buf);
    if (!doc) return doc.err();
    simdjson::dom::array infos;
    if ((*doc)["DeviceInfo"].get_array().get(infos) || infos.size() == 0)
      return make_error(errc::parse, (dir / ("info.json." + n)).string() + ": DeviceInfo missing");
    const auto di = infos.at(0).value();
    double v = 0;
    if (detail::parse_double(json_field(di, "aic_frequency"), v) && v > 0) d.aic_frequency_mhz = v;
    if (detail::parse_double(json_field(di, "ai_core_num"), v) && v > 0) d.ai_core_num = static_cast<std::uint32_t>(v);
    if (detail::parse_double(json_field(di, "aiv_num"), v) && v > 0) d.aiv_num = static_cast<std::uint32_t>(v);
    if (!detail::parse_double(json_field(di, "hwts_frequency"), k.hwts_frequency_mhz) || k.hwts_frequency_mhz <= 0)
      return make_error(errc::parse, (dir / ("info.json." + n)).string() + ": hwts_frequency missing or invalid");
    if (s.platform_version.empty()) s.platform_version = json_field(*doc, "platform_version");
    auto kv = detail::read_kv_log(dir / ("dev_start.log." + n));
    if (!kv) return kv.err();
    if (!detail::parse_u64((*kv)["cntvct"], k.cntvct) ||
        !detail::parse_u64((*kv)["clock_monotonic_raw"], k.monotonic_raw_ns))
      return make_error(errc::parse, (dir / ("dev_start.log." + n)).string() + ": cntvct/clock_monotonic_raw missing");
    auto sample = detail::parse_json(parser, dir / "sample.json", buf);
    if (sample) {
      if (s.ai_core_metrics.empty()) s.ai_core_metrics = json_field(*sample, "ai_core_metrics");
    } else {
      c.warnings.push_back(sample.err().message + " (PMU metrics unknown)");
    }
    s.devices.push_back(d);
    c.clocks.push_back(k);
    MSPROF_TRY(detail::read_device(dir, id, c));
  }
  if (has_host) MSPROF_TRY(detail::read_host(host, c));
  if (!has_host) c.warnings.push_back(prof_dir + ": no host/ directory: device tasks have no launching API");
  if (has_host && devs.empty() && !c.tracks.empty())
    c.warnings.push_back(prof_dir + ": task_track records but no device_<id>/ directory: no device tasks exported");
  if (end_us == 0) {
    std::int64_t last = s.start_ns;
    for (const auto& a : c.apis) last = std::max(last, static_cast<std::int64_t>(a.end) + s.wall_offset_ns);
    s.end_ns = last;
  }
  return join(std::move(c));
}

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_LOAD_HPP
