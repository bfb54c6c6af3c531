// SPDX-License-Identifier: MIT
// Bounds-checked decoders. Every decoder takes the bytes, their size and the
// place (file, byte offset) for messages, and returns result<T>; nothing reads
// past `size`. scan_file() streams a slice file in fixed-size records with a
// bounded buffer and reports a truncated tail instead of failing the file.
#ifndef MSPROF_CODEC_DECODE_HPP
#define MSPROF_CODEC_DECODE_HPP

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "format.hpp"

MSPROF_BEGIN_NAMESPACE
namespace codec {

/// Where a record came from, for messages.
struct place {
  std::string_view file;
  std::uint64_t offset = 0;
  std::string str() const { return std::string(file) + ": record at byte offset " + std::to_string(offset); }
};

namespace detail {
inline error short_input(const place& at, std::size_t need, std::size_t have) {
  return make_error(errc::truncated, at.str() + " needs " + std::to_string(need) + " bytes, " + std::to_string(have) + " remain");
}
inline result<void> check_header(const record_header& h, const place& at, std::size_t max_data) {
  if (h.magicNumber != magic) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%04X", static_cast<unsigned>(h.magicNumber));
    return make_error(errc::bad_magic, at.str() + ": magic " + buf + ", expected 0x5A5A");
  }
  if (h.dataLen > max_data)
    return make_error(errc::bad_size, at.str() + ": dataLen " + std::to_string(h.dataLen) + " exceeds the " +
                                          std::to_string(max_data) + "-byte payload");
  return {};
}
}  // namespace detail

/// A 40-byte api_event record: either an MsprofApi or an MsprofEvent (offset-24
/// word == event_flag).
struct api_or_event {
  bool is_event = false;
  MsprofApi api;      ///< valid when !is_event
  MsprofEvent event;  ///< valid when is_event
};

inline result<api_or_event> decode_api(const unsigned char* p, std::size_t size, const place& at) {
  if (size < api_size) return detail::short_input(at, api_size, size);
  api_or_event r;
  const auto word24 = detail::load_le<std::uint64_t>(p + 24);
  if (word24 == event_flag) {
    r.is_event = true;
    r.event = load<MsprofEvent>(p);
    if (r.event.magicNumber != magic) return make_error(errc::bad_magic, at.str() + ": api_event magic is not 0x5A5A");
  } else {
    r.api = load<MsprofApi>(p);
    if (r.api.magicNumber != magic) return make_error(errc::bad_magic, at.str() + ": api_event magic is not 0x5A5A");
  }
  return r;
}

/// A compact record: header + payload bytes (40).
struct compact_record {
  record_header head;
  const unsigned char* data = nullptr;  ///< 40 bytes, valid during the callback
};

inline result<compact_record> decode_compact(const unsigned char* p, std::size_t size, const place& at) {
  if (size < compact_size) return detail::short_input(at, compact_size, size);
  compact_record r;
  r.head = load<record_header>(p);
  MSPROF_TRY(detail::check_header(r.head, at, compact_data_size));
  r.data = p + header_size;
  return r;
}

struct additional_record {
  record_header head;
  const unsigned char* data = nullptr;  ///< 232 bytes
};

inline result<additional_record> decode_additional(const unsigned char* p, std::size_t size, const place& at) {
  if (size < additional_size) return detail::short_input(at, additional_size, size);
  additional_record r;
  r.head = load<record_header>(p);
  MSPROF_TRY(detail::check_header(r.head, at, additional_data_size));
  r.data = p + header_size;
  return r;
}

/// Payload of a compact/additional record as T (requires dataLen large enough
/// for the fields the parser reads; shorter RUNTIME variants, e.g. a 28-byte
/// node_basic_info without opState, read the missing tail as 0).
template <class T, class Rec>
inline result<T> decode_payload(const Rec& r, const place& at, std::size_t min_len = sizeof(T)) {
  if (r.head.dataLen < min_len)
    return make_error(errc::bad_size, at.str() + ": dataLen " + std::to_string(r.head.dataLen) + " is smaller than the " +
                                          std::to_string(min_len) + " bytes this record kind needs");
  return load<T>(r.data);
}

/// A record of a kind in which any bytes are a valid record (samples and
/// counters: ContextPmu, NpuMem, HbmSample...): only its size is checked.
template <class T>
inline result<T> decode_fixed(const unsigned char* p, std::size_t size, const place& at) {
  if (size < sizeof(T)) return detail::short_input(at, sizeof(T), size);
  return load<T>(p);
}

inline result<StarsAcsqLog> decode_acsq(const unsigned char* p, std::size_t size, const place& at) {
  if (size < acsq_size) return detail::short_input(at, acsq_size, size);
  StarsAcsqLog r = load<StarsAcsqLog>(p);
  const auto f = r.func_type();
  if (f != acsq_func_start && f != acsq_func_end)
    return make_error(errc::bad_value, at.str() + ": ACSQ funcType " + std::to_string(f) + " is neither start (0) nor end (1)");
  return r;
}

namespace detail {
/// The blank-separated fields of a text sample line; false past `max` fields.
inline bool split_fields(std::string_view line, std::size_t max, std::vector<std::string>& field) {
  field.clear();
  std::size_t i = 0;
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; };
  while (i < line.size()) {
    while (i < line.size() && blank(line[i])) ++i;
    if (i == line.size()) break;
    if (field.size() == max) return false;
    const std::size_t from = i;
    while (i < line.size() && !blank(line[i])) ++i;
    field.emplace_back(line.substr(from, i - from));
  }
  return true;
}

/// A sample's timestamp field with its ':' removed, a decimal number (as Python's float() of it).
inline result<double> sample_time(std::string f, const place& at, const char* what) {
  f.erase(std::remove(f.begin(), f.end(), ':'), f.end());
  const bool ok = !f.empty() && f.find_first_not_of("0123456789.") == std::string::npos &&
                  std::count(f.begin(), f.end(), '.') <= 1 && f != ".";
  const double t = ok ? std::strtod(f.c_str(), nullptr) : 0;
  if (!ok || !(t < 1e300)) return make_error(errc::bad_value, at.str() + ": " + what + " timestamp '" + f + "' is not a decimal number");
  return t;
}

inline bool whole(const std::string& f, std::int64_t& v) {
  const char* b = f.data();
  const char* e = b + f.size();
  const auto r = std::from_chars(b, e, v);
  return r.ec == std::errc() && r.ptr == e;
}
}  // namespace detail

/// A sample line of an HCCS slice: three fields split at blanks, the
/// timestamp with its ':' removed a decimal number, the counters integers.
inline result<HccsSample> decode_hccs_line(std::string_view line, const place& at) {
  std::vector<std::string> field;
  if (!detail::split_fields(line, 3, field)) return make_error(errc::bad_value, at.str() + ": more than 3 fields in an HCCS sample line");
  if (field.size() != 3)
    return make_error(errc::bad_value, at.str() + ": " + std::to_string(field.size()) + " fields in an HCCS sample line, not 3");
  HccsSample s;
  auto t = detail::sample_time(field[0], at, "HCCS");
  if (!t) return t.err();
  s.timestamp = *t;
  for (int k = 1; k < 3; ++k)
    if (!detail::whole(field[k], k == 1 ? s.tx : s.rx))
      return make_error(errc::bad_value, at.str() + ": HCCS byte count '" + field[k] + "' is not a 64-bit integer");
  return s;
}

namespace detail {
/// A decimal with at most 6 fractional digits (no sign, no exponent), in millionths.
inline bool micro_units(const std::string& f, std::int64_t& v) {
  const std::size_t dot = f.find('.');
  const std::string whole_part = f.substr(0, dot), frac = dot == std::string::npos ? "" : f.substr(dot + 1);
  std::int64_t w = 0, x = 0;
  if (whole_part.empty() || frac.size() > 6 || whole_part.size() > 12 || whole_part[0] == '-' || !whole(whole_part, w)) return false;
  if (!frac.empty() && (frac[0] == '-' || frac[0] == '+' || !whole(frac, x))) return false;
  for (std::size_t k = frac.size(); k < 6; ++k) x *= 10;
  v = w * 1000000 + x;
  return true;
}
}  // namespace detail

/// A line of a host CPU usage slice (HostCpuLine): "time <ns>", an uptime
/// line of two fields, or a thread's stat line of at least 39 fields.
inline result<HostCpuLine> decode_host_cpu_line(std::string_view line, const place& at) {
  std::vector<std::string> field;
  detail::split_fields(line, 64, field);
  HostCpuLine l;
  std::int64_t v = 0;
  if (!field.empty() && field[0] == "time") {
    if (field.size() != 2 || !detail::whole(field[1], v) || v < 0)
      return make_error(errc::bad_value, at.str() + ": a host CPU 'time' line is not 'time <ns>'");
    l.timestamp = static_cast<std::uint64_t>(v);
    return l;
  }
  if (field.size() == 2) {
    l.kind = HostCpuLine::uptime;
    if (!detail::micro_units(field[0], l.uptime_us))
      return make_error(errc::bad_value, at.str() + ": host CPU uptime '" + field[0] + "' is not a decimal number of seconds");
    return l;
  }
  if (field.size() < 39)
    return make_error(errc::bad_value, at.str() + ": " + std::to_string(field.size()) + " fields in a host CPU thread line, not at least 39");
  l.kind = HostCpuLine::thread;
  std::int64_t* const to[] = {&l.pid, &l.tid, &l.utime, &l.stime, &l.cpu};
  const std::size_t from[] = {0, 3, 13, 14, 38};
  for (std::size_t k = 0; k < 5; ++k)
    if (!detail::whole(field[from[k]], *to[k]) || *to[k] < 0)
      return make_error(errc::bad_value, at.str() + ": host CPU thread field " + std::to_string(from[k]) + " '" + field[from[k]] +
                                             "' is not a non-negative integer");
  return l;
}

/// A line of a host memory usage slice (HostMemLine): at least 3 fields, the
/// time and the resident pages non-negative integers.
inline result<HostMemLine> decode_host_mem_line(std::string_view line, const place& at) {
  std::vector<std::string> field;
  detail::split_fields(line, 16, field);
  if (field.size() < 3)
    return make_error(errc::bad_value, at.str() + ": " + std::to_string(field.size()) + " fields in a host memory line, not at least 3");
  std::int64_t t = 0, r = 0;
  if (!detail::whole(field[0], t) || t < 0 || !detail::whole(field[2], r) || r < 0)
    return make_error(errc::bad_value, at.str() + ": a host memory line's time or resident pages is not a non-negative integer");
  return HostMemLine{static_cast<std::uint64_t>(t), r};
}

namespace detail {
/// Python's float() of a decimal number ("12.50", "-1e3"); inf, nan and
/// underscores are not read.
inline bool parse_py_float(const std::string& f, double& v) {
  if (f.empty()) return false;
  std::size_t i = f[0] == '+' || f[0] == '-' ? 1 : 0;
  const std::size_t int_from = i;
  while (i < f.size() && f[i] >= '0' && f[i] <= '9') ++i;
  std::size_t digits = i - int_from;
  if (i < f.size() && f[i] == '.') {
    const std::size_t frac_from = ++i;
    while (i < f.size() && f[i] >= '0' && f[i] <= '9') ++i;
    digits += i - frac_from;
  }
  if (digits == 0) return false;
  if (i < f.size() && (f[i] == 'e' || f[i] == 'E')) {
    if (++i < f.size() && (f[i] == '+' || f[i] == '-')) ++i;
    const std::size_t exp_from = i;
    while (i < f.size() && f[i] >= '0' && f[i] <= '9') ++i;
    if (i == exp_from) return false;
  }
  if (i != f.size()) return false;
  v = std::strtod(f.c_str(), nullptr);
  return std::isfinite(v);
}

/// Python's int() of a field that fits 64 bits: an optional sign, then digits.
inline bool py_int(const std::string& f, std::int64_t& v) {
  return f.size() > 1 && f[0] == '+' ? f[1] != '-' && whole(f.substr(1), v) : whole(f, v);
}

inline bool all_digits(const std::string& f) {
  return !f.empty() && f.find_first_not_of("0123456789") == std::string::npos;
}
}  // namespace detail

/// A line of a host disk usage slice (HostDiskLine), as the reference's
/// HostDiskUsagePresenter reads it: under 2 fields or a second field that is
/// not digits, `other`; "start_time <digits>"; else a sample of at least 8
/// fields (an error otherwise) whose read and write are a number times its
/// unit's KB/s (an unknown unit counts 1, a bad number 0: `flags` says which),
/// the IO column a number unless the line says "unavailable" or has under 11 fields.
inline result<HostDiskLine> decode_host_disk_line(std::string_view line, const place& at) {
  std::vector<std::string> field;
  detail::split_fields(line, 12, field);  // 12 tell "at least 11"
  HostDiskLine l;
  if (field.size() < 2 || !detail::all_digits(field[1])) return l;
  if (field[0] == "start_time") {
    l.kind = HostDiskLine::start_time;
    l.start_ns = std::strtod(field[1].c_str(), nullptr);
    return l;
  }
  if (field.size() < 8)
    return make_error(errc::bad_value, at.str() + ": " + std::to_string(field.size()) + " fields in a host disk line, not at least 8");
  l.kind = HostDiskLine::sample;
  const auto kbs = [&](std::size_t k, std::uint8_t bad, double& out) {
    const std::string& unit = field[k + 1];
    double factor = 1.0;  // KB/s, and an unknown unit
    if (unit == "B/s") factor = 1.0 / 1024.0;
    else if (unit == "M/s") factor = 1024.0;
    else if (unit == "G/s") factor = 1024.0 * 1024.0;
    else if (unit != "K/s") l.flags |= HostDiskLine::unknown_unit;
    if (detail::parse_py_float(field[k], out)) out *= factor;
    else out = 0, l.flags |= bad;
  };
  kbs(4, HostDiskLine::bad_read, l.read_kbs);
  kbs(6, HostDiskLine::bad_write, l.write_kbs);
  const std::size_t unavailable = line.find("unavailable");
  if ((unavailable != std::string_view::npos && unavailable > 0) || field.size() < 11) return l;
  if (!detail::parse_py_float(field[10], l.io_percent))
    return make_error(errc::bad_value, at.str() + ": host disk IO '" + field[10] + "' is not a number");
  return l;
}

/// A line of a host network usage slice (HostNetLine), as the reference's
/// HostNetworkUsagePresenter reads it: a line starting "time" is "time <ns>"
/// (an error otherwise); a line of 12 or more fields is an interface, its
/// fields 1-3 and 9-11 integers (else `bad_interface`); any other line `other`.
inline result<HostNetLine> decode_host_net_line(std::string_view line, const place& at) {
  std::vector<std::string> field;
  detail::split_fields(line, 12, field);
  HostNetLine l;
  std::int64_t v = 0;
  if (line.substr(0, 4) == "time") {
    if (field.size() < 2 || !detail::all_digits(field[1]) || !detail::whole(field[1], v))
      return make_error(errc::bad_value, at.str() + ": a host network 'time' line is not 'time <ns>'");
    l.kind = HostNetLine::time;
    l.timestamp = static_cast<std::uint64_t>(v);
    return l;
  }
  if (field.size() < 12) return l;
  l.name = field[0].substr(0, field[0].size() - 1);
  l.kind = HostNetLine::bad_interface;
  for (std::size_t k : {1, 2, 3, 9, 10, 11}) {
    if (!detail::py_int(field[k], v)) return l;
    if (k == 1) l.rx_bytes = v;
    if (k == 9) l.tx_bytes = v;
  }
  l.kind = HostNetLine::interface;
  return l;
}

/// A sample line of a NIC slice: 14, 15 or 16 fields split at blanks (see
/// NicSample), the timestamp with its ':' removed a decimal number, the
/// bandwidth and funcId integers, the counters decimal numbers.
inline result<NicSample> decode_nic_line(std::string_view line, const place& at) {
  std::vector<std::string> field;
  if (!detail::split_fields(line, 16, field)) return make_error(errc::bad_value, at.str() + ": more than 16 fields in a NIC sample line");
  if (field.size() < 14)
    return make_error(errc::bad_value, at.str() + ": " + std::to_string(field.size()) + " fields in a NIC sample line, not 14 to 16");
  NicSample s;
  auto t = detail::sample_time(field[0], at, "NIC");
  if (!t) return t.err();
  s.timestamp = *t;
  if (!detail::whole(field[1], s.bandwidth))
    return make_error(errc::bad_value, at.str() + ": NIC bandwidth '" + field[1] + "' is not a 64-bit integer");
  for (int k = 0; k < NicSample::fields; ++k) {
    const std::string& f = field[static_cast<std::size_t>(k) + 2];
    char* end = nullptr;
    s.v[k] = std::strtod(f.c_str(), &end);
    if (f.find_first_not_of("0123456789.") != std::string::npos || end != f.c_str() + f.size() || !std::isfinite(s.v[k]))
      return make_error(errc::bad_value, at.str() + ": NIC counter '" + f + "' is not a decimal number");
  }
  if (field.size() > 14 && !detail::whole(field[14], s.func_id))
    return make_error(errc::bad_value, at.str() + ": NIC funcId '" + field[14] + "' is not a 64-bit integer");
  return s;
}

/// A socpmu record in either layout (any bytes are a valid record), given in
/// that of chips 15 and 16 (`v6`), whose fields hold the other's.
inline result<SocPmuTaskV6> decode_soc_pmu(const unsigned char* p, std::size_t size, const place& at, bool v6) {
  if (size < soc_pmu_size) return detail::short_input(at, soc_pmu_size, size);
  if (v6) return load<SocPmuTaskV6>(p);
  const SocPmuTask t = load<SocPmuTask>(p);
  SocPmuTaskV6 c;
  c.dataType = t.dataType;
  c.taskType = t.taskType;
  c.streamId = t.streamId;
  c.taskId = t.taskId;
  for (std::size_t i = 0; i < 8; ++i) c.events[i] = t.events[i];
  return c;
}

/// The text of an MsprofTxInfo segment (up to the first NUL of the 156 bytes).
inline std::string_view tx_segment_text(const MsprofTxInfo& t) {
  const char* m = t.stampInfo.message;
  std::size_t n = 0;
  while (n < tx_message_bytes && m[n] != '\0') ++n;
  return std::string_view(m, n);
}

/// Opens `path` for reading only if it is a regular file (after symlinks) and
/// gives its size. O_NONBLOCK: a FIFO or device named like a data file must
/// not block the export forever; fstat refuses it before any read. Both a file
/// that cannot be opened and one that is not regular are errc::io: it cannot
/// be read as data, and going on without it would lose its records.
inline result<std::FILE*> open_regular(const std::string& path, std::uint64_t& size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return make_error(errc::io, path + ": cannot open: " + std::strerror(errno));
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const char* what = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory"
                     : S_ISSOCK(st.st_mode) ? "a socket" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "not regular";
    ::close(fd);
    return make_error(errc::io, path + ": not a regular file (" + what + "); cannot be read as data");
  }
  // Reads of a regular file never block; clear O_NONBLOCK anyway for stdio.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::FILE* f = ::fdopen(fd, "rb");
  if (!f) {
    ::close(fd);
    return make_error(errc::io, path + ": cannot open: " + std::strerror(errno));
  }
  size = static_cast<std::uint64_t>(st.st_size);
  return f;
}

/// What scan_file found besides whole records.
struct scan_report {
  std::uint64_t records = 0;
  std::uint64_t file_size = 0;
  std::uint64_t tail_bytes = 0;  ///< bytes after the last whole record (0 = none)
};

/// Streams `path` in records of `record_size` bytes, calling
/// on_record(const unsigned char*, std::uint64_t offset) for each whole one.
/// Memory is one bounded buffer. A trailing partial record is not an error:
/// it is reported in scan_report::tail_bytes. Files that grow while read
/// (a live collection) are read up to the size seen at open. `bytes_read`, when
/// given, gets each chunk's size added as it is read (a progress display).
template <class F>
inline result<scan_report> scan_file(const std::string& path, std::size_t record_size, F&& on_record,
                                     std::size_t buffer_records = 1024,
                                     std::atomic<std::uint64_t>* bytes_read = nullptr) {
  if (record_size == 0) return make_error(errc::invalid_argument, path + ": record size 0");
  std::uint64_t size = 0;
  auto opened = open_regular(path, size);
  if (!opened) return opened.err();
  std::FILE* f = *opened;
  scan_report rep;
  rep.file_size = size;
  std::vector<unsigned char> buf(record_size * (buffer_records ? buffer_records : 1));
  std::uint64_t offset = 0;
  std::size_t have = 0;
  std::uint64_t left = rep.file_size;
  for (;;) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size() - have, left));
    const std::size_t got = want ? std::fread(buf.data() + have, 1, want, f) : 0;
    if (got < want && std::ferror(f)) {
      std::fclose(f);
      return make_error(errc::io, path + ": read failed at byte offset " + std::to_string(offset + have));
    }
    left -= got;
    have += got;
    if (bytes_read) bytes_read->fetch_add(got, std::memory_order_relaxed);
    std::size_t pos = 0;
    while (have - pos >= record_size) {
      on_record(buf.data() + pos, offset);
      ++rep.records;
      pos += record_size;
      offset += record_size;
    }
    if (pos) {
      std::memmove(buf.data(), buf.data() + pos, have - pos);
      have -= pos;
    }
    if (left == 0 || got == 0) break;  // got == 0: the file shrank while read
  }
  std::fclose(f);
  rep.tail_bytes = have;
  return rep;
}

}  // namespace codec
MSPROF_END_NAMESPACE

#endif  // MSPROF_CODEC_DECODE_HPP
