// SPDX-License-Identifier: MIT
// Reads the control files of a PROF_ directory: host/ and device_<id>/
// info.json, sample.json, start_info and end_info, the *_start.log clock
// anchors, and msprof's counter files (host/msprof_calls, host/msprof_forks).
// A missing or unparsable control file is a warning and defaults apply (ns host
// clock, 50 MHz device), or an error with reader_options::strict; damaged
// counter files are always warnings. Every clock value is checked to fit the
// signed 64-bit nanoseconds of `time_ns` (clock.hpp).
#ifndef MSPROF_PROF_CONTROL_FILES_HPP
#define MSPROF_PROF_CONTROL_FILES_HPP

#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "../core/json.hpp"
#include "../codec/decode.hpp"
#include "clock.hpp"
#include "layout.hpp"

MSPROF_BEGIN_NAMESPACE
namespace prof {

struct reader_options {
  bool strict = false;                          ///< control-file problems are errors
  std::size_t max_control_bytes = 16u << 20;    ///< info.json, sample.json, ...
  std::size_t max_dictionary_bytes = 256u << 20;///< all hash_dic slices together
  std::size_t max_pending_events = 1u << 20;    ///< unmatched MsprofEvent halves / mstx segments kept
  std::size_t max_warnings_per_file = 20;       ///< then one "... and K more problems in FILE" line
  /// Progress: the bytes of data slices read so far are added here (relaxed).
  std::atomic<std::uint64_t>* bytes_read = nullptr;
};

/// A problem that did not stop reading: file, byte offset, bytes affected.
struct warning {
  std::string file;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
  std::string message;
  std::string text() const { return "[msprof.codec] " + message; }
};

/// Host control information and clock.
struct host_info {
  tick_clock clock;  ///< host_start.log: record timestamps -> CLOCK_MONOTONIC_RAW ns (frequency 0: ns already)
  json::value info, sample, start_info, end_info;
  std::uint64_t collection_time_begin_us = 0;  ///< start_info collectionTimeBegin
  std::uint64_t collection_time_end_us = 0;    ///< end_info collectionTimeEnd (0 if absent)
  std::uint64_t start_monotonic_raw_ns = 0;    ///< start_info clockMonotonicRaw
  std::uint64_t end_monotonic_raw_ns = 0;      ///< end_info clockMonotonicRaw
  std::uint32_t pid = 0;
  std::string pid_name;
  std::string platform_version;
  bool simulated = false;                  ///< written by our simulated device
  /// host/msprof_calls: the mstx calls msprof's collector took from all threads
  /// (recorded or dropped). Empty without the file, when it is damaged (a
  /// warning), or when some thread had no slot in it.
  std::optional<std::uint64_t> calls_made;
  /// host/msprof_forks: processes fork()ed from the profiled one (not
  /// collected) that made mstx calls, and those calls. 0 without the file.
  std::uint64_t forked_children = 0;
  std::uint64_t forked_calls = 0;

  /// Offset that maps monotonic ns to Unix-epoch ns (start_info pair). Exact for
  /// an opened reader (it rejects start_info values out of range); clamped for
  /// values set by hand that do not fit.
  std::int64_t wall_offset_ns() const noexcept {
    const auto begin = time_ns::from_us(collection_time_begin_us);
    const auto mono = time_ns::from_u64(start_monotonic_raw_ns);
    if (begin && mono) return *begin - *mono;  // both in [0, INT64_MAX]: fits
    return time_ns::saturate(static_cast<double>(collection_time_begin_us) * 1e3 - static_cast<double>(start_monotonic_raw_ns));
  }
};

/// Device control information and clock.
struct device_info {
  std::uint32_t id = 0;
  tick_clock clock{50, 0, 0};  ///< dev_start.log and hwts_frequency: device cycles -> CLOCK_MONOTONIC_RAW ns
  json::value info, sample, start_info, end_info;
  double aic_frequency_mhz = 1800;
  std::uint32_t ai_core_num = 0;
  std::uint32_t aiv_num = 0;
  std::string aic_metrics;                 ///< sample.json ai_core_metrics
  std::vector<std::uint32_t> events;       ///< sample.json ai_core_profiling_events
  std::string aiv_metrics;                 ///< sample.json aiv_metrics
  std::vector<std::uint32_t> aiv_events;   ///< sample.json aiv_profiling_events
  bool simulated = false;

};

/// Reads a small file whole; a missing one is "" with found = false, one over `limit` bytes an error.
inline result<std::string> read_small_file(const std::string& p, bool& found, std::size_t limit) {
  found = false;
  struct stat st{};
  if (::stat(p.c_str(), &st) != 0 && errno == ENOENT) return std::string();
  found = true;
  std::uint64_t size = 0;
  auto opened = codec::open_regular(p, size);
  if (!opened) return opened.err();
  std::FILE* f = *opened;
  std::string s;
  char buf[8192];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    if (s.size() + n > limit) {
      std::fclose(f);
      return make_error(errc::bad_size, p + ": larger than " + std::to_string(limit) + " bytes, not a control file");
    }
    s.append(buf, n);
  }
  const bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) return make_error(errc::io, p + ": read failed");
  return s;
}

/// Reads host/ and device_<id>/ control files into host_info / device_info,
/// adding its warnings to `warnings`.
class control_reader {
 public:
  control_reader(const reader_options& opt, std::vector<warning>& warnings) : opt_(opt), warnings_(warnings) {}

  /// A directory without any end_info: a run killed while it made the
  /// directory leaves its start files missing, and their errors say so.
  void set_unfinished(bool unfinished) {
    missing_ = unfinished ? ": missing (the collection did not finish: its program was killed or crashed before "
                            "writing its start files)"
                          : ": missing";
  }

  // A control-file problem: warning, or error in strict mode.
  result<void> control_problem(const std::string& file, const std::string& msg) {
    if (opt_.strict) return make_error(errc::parse, msg);
    warnings_.push_back({file, 0, 0, msg + "; defaults used"});
    return {};
  }

  result<void> read_json(const std::string& p, json::value& out, bool required) {
    bool found = false;
    auto t = read_small_file(p, found, opt_.max_control_bytes);
    if (!t) return control_problem(p, t.err().message);
    if (!found) {
      if (required) return control_problem(p, p + missing_);
      return {};
    }
    auto v = json::parse(*t, p);
    if (!v) return control_problem(p, v.err().message);
    if (!v->is_object()) return control_problem(p, p + ": top level is not a JSON object");
    out = std::move(*v);
    return {};
  }

  // "key: value" lines of host_start.log / dev_start.log. With `diff`, a
  // host_start.log's `cntvct_diff:` too (0 without one; not a whole number: a
  // warning and 0, as the reference's C++ Context).
  result<void> read_clock_log(const std::string& p, std::uint64_t& mono, std::uint64_t& cnt, bool required,
                              std::uint64_t* diff = nullptr) {
    bool found = false;
    auto t = read_small_file(p, found, 64 * 1024);
    if (!t) return control_problem(p, t.err().message);
    if (!found) return required ? control_problem(p, p + missing_) : result<void>{};
    bool got_mono = false, got_cnt = false;
    codec::detail::for_each_line(*t, [&](std::string_view line, std::size_t, std::size_t) {
      const std::size_t c = line.find(':');
      if (c == std::string_view::npos) return;
      std::string_view k = line.substr(0, c), v = line.substr(c + 1);
      while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
      while (!k.empty() && k.back() == ' ') k.remove_suffix(1);
      if (k == "clock_monotonic_raw") got_mono = codec::detail::parse_u64(v, mono);
      else if (k == "cntvct") got_cnt = codec::detail::parse_u64(v, cnt);
      else if (k == "cntvct_diff" && diff && !codec::detail::parse_u64(v, *diff)) {
        *diff = 0;
        warnings_.push_back({p, 0, 0, p + ": cntvct_diff \"" + std::string(v) + "\" is not a whole number; 0 used"});
      }
    });
    if (!got_mono || !got_cnt) return control_problem(p, p + ": needs numeric 'clock_monotonic_raw:' and 'cntvct:' lines");
    return check_clock_value(p, "clock_monotonic_raw", mono, false);
  }

  // A host_start.log's clock: clock_monotonic_raw plus cntvct_diff host
  // counter ticks at `frequency_mhz` (0: the reference's default 1000 MHz, so
  // ticks are ns), as the reference's host_mon (TimerBean.host_mon: Python's
  // round() of diff * 1e9 / Hz; its C++ Context adds diff * 1000 / MHz and
  // truncates the sum, at most 1 ns less). Past int64 ns: a control problem
  // and 0, as check_clock_value.
  result<void> read_host_clock_log(const std::string& p, std::uint64_t& mono, std::uint64_t& cnt, bool required,
                                   double frequency_mhz) {
    std::uint64_t diff = 0;
    MSPROF_TRY(read_clock_log(p, mono, cnt, required, &diff));
    if (diff == 0 || mono == 0) return {};
    const double hz = (frequency_mhz > 0 ? frequency_mhz : 1000.0) * 1e6;
    const double ns = std::nearbyint(static_cast<double>(diff) * 1e9 / hz);  // ties to even, as Python's round()
    const std::uint64_t add = ns < 1.8e19 ? static_cast<std::uint64_t>(ns) : ~std::uint64_t{0};
    if (__builtin_add_overflow(mono, add, &mono)) mono = ~std::uint64_t{0};
    return check_clock_value(p, "clock_monotonic_raw + cntvct_diff", mono, false);
  }

  // A clock value that cannot become int64 ns (us: collectionTimeBegin/End,
  // else ns) is a control-file problem; lenient mode goes on with 0 ("missing").
  result<void> check_clock_value(const std::string& file, const char* key, std::uint64_t& v, bool us) {
    if (us ? time_ns::from_us(v).has_value() : time_ns::from_u64(v).has_value()) return {};
    const std::string msg = file + ": " + key + " out of range (" + std::to_string(v) + (us ? " us" : " ns") +
                            "; at most " + std::to_string(us ? time_ns::max_us : static_cast<std::uint64_t>(time_ns::max)) +
                            " fits in signed 64-bit nanoseconds)";
    v = 0;
    return control_problem(file, msg);
  }

  result<void> read_host(const std::string& root, host_info& host) {
    const std::string h = root + "/" + layout::host_dir + "/";
    MSPROF_TRY(read_json(h + layout::info_json, host.info, true));
    MSPROF_TRY(read_json(h + layout::sample_json, host.sample, false));
    MSPROF_TRY(read_json(h + layout::start_info, host.start_info, true));
    MSPROF_TRY(read_json(h + layout::end_info, host.end_info, false));
    const auto& cpu0 = host.info.get("CPU").at(0).get("Frequency");
    double f = 0;
    if (cpu0.to_double(f) && f > 0) host.clock.frequency_mhz = f;
    host.pid = static_cast<std::uint32_t>(host.info.get("pid").uint_or(0));
    host.pid_name = host.info.get("pid_name").as_string_or("");
    host.platform_version = host.info.get("platform_version").as_string_or("");
    host.simulated = host.info.get("simulated_device").as_string_or("") == "yes";
    host.collection_time_begin_us = host.start_info.get("collectionTimeBegin").uint_or(0);
    host.start_monotonic_raw_ns = host.start_info.get("clockMonotonicRaw").uint_or(0);
    host.collection_time_end_us = host.end_info.get("collectionTimeEnd").uint_or(0);
    host.end_monotonic_raw_ns = host.end_info.get("clockMonotonicRaw").uint_or(0);
    MSPROF_TRY(check_clock_value(h + layout::start_info, "collectionTimeBegin", host.collection_time_begin_us, true));
    MSPROF_TRY(check_clock_value(h + layout::start_info, "clockMonotonicRaw", host.start_monotonic_raw_ns, false));
    MSPROF_TRY(check_clock_value(h + layout::end_info, "collectionTimeEnd", host.collection_time_end_us, true));
    MSPROF_TRY(check_clock_value(h + layout::end_info, "clockMonotonicRaw", host.end_monotonic_raw_ns, false));
    // host_start.log is needed only to convert cycle counts.
    MSPROF_TRY(read_host_clock_log(h + layout::host_start_log, host.clock.anchor_ns, host.clock.anchor_ticks,
                                   host.clock.frequency_mhz > 0, host.clock.frequency_mhz));
    read_call_counts(h + layout::call_counts, host);
    read_fork_counts(h + layout::fork_counts, host);
    return {};
  }

  // host/msprof_calls and host/msprof_forks (layout.hpp): damage is a warning, never an error.
  // The counters of a counter file with `magic`; empty when it is absent or damaged.
  std::optional<std::vector<std::uint64_t>> read_counters(const std::string& p, const char (&magic)[8],
                                                          std::size_t max_slots, const char* kind,
                                                          const char* unknown) {
    bool found = false;
    auto t = read_small_file(p, found, layout::call_counts_header + max_slots * sizeof(std::uint64_t));
    if (!found) return std::nullopt;
    auto problem = [&](const std::string& what) {
      warnings_.push_back({p, 0, 0, p + ": " + what + "; " + unknown});
      return std::nullopt;
    };
    if (!t) return problem(t.err().message);
    const std::string& b = *t;
    std::uint64_t n = 0;
    if (b.size() < layout::call_counts_header || b.compare(0, 8, magic, 8) != 0)
      return problem(std::string("not a ") + kind + " (no " + std::string(magic, 8) + " header)");
    std::memcpy(&n, b.data() + 8, sizeof n);
    if (n == 0 || (b.size() - layout::call_counts_header) / sizeof(std::uint64_t) != n ||
        (b.size() - layout::call_counts_header) % sizeof(std::uint64_t) != 0)
      return problem("holds " + std::to_string(b.size()) + " bytes, not the header and the " + std::to_string(n) +
                     " counters it announces");
    std::vector<std::uint64_t> v(n);
    std::memcpy(v.data(), b.data() + layout::call_counts_header, n * sizeof(std::uint64_t));
    return v;
  }

  void read_call_counts(const std::string& p, host_info& host) {
    const char* unknown = "the number of calls made is unknown";
    auto v = read_counters(p, layout::call_counts_magic, std::size_t{1} << 24, "call count file", unknown);
    if (!v) return;
    auto problem = [&](const std::string& what) { warnings_.push_back({p, 0, 0, p + ": " + what + "; " + unknown}); };
    if ((*v)[0] != 0) return problem(std::to_string((*v)[0]) + " thread(s) had no slot in it");
    std::uint64_t sum = 0;
    for (std::size_t i = 1; i < v->size(); ++i)
      if (__builtin_add_overflow(sum, (*v)[i], &sum)) return problem("its counters overflow 64 bits");
    host.calls_made = sum;
  }

  void read_fork_counts(const std::string& p, host_info& host) {
    auto v = read_counters(p, layout::fork_counts_magic, 64, "fork count file",
                           "the calls of fork()ed children are unknown");
    if (!v) return;
    if (v->size() != layout::fork_count_slots) {
      warnings_.push_back({p, 0, 0, p + ": holds " + std::to_string(v->size()) + " counters, not " +
                                        std::to_string(layout::fork_count_slots) +
                                        "; the calls of fork()ed children are unknown"});
      return;
    }
    host.forked_children = (*v)[0];
    host.forked_calls = (*v)[1];
  }

  result<void> read_device(const std::string& root, std::uint32_t id, device_info& d) {
    d = device_info{};
    d.id = id;
    const std::string base = root + "/" + layout::device_dir(id) + "/";
    MSPROF_TRY(read_json(base + layout::for_device(layout::info_json, id), d.info, true));
    MSPROF_TRY(read_json(base + layout::sample_json, d.sample, false));
    MSPROF_TRY(read_json(base + layout::for_device(layout::start_info, id), d.start_info, false));
    MSPROF_TRY(read_json(base + layout::for_device(layout::end_info, id), d.end_info, false));
    const json::value& di = d.info.get("DeviceInfo").at(0);
    double v = 0;
    if (di.get("hwts_frequency").to_double(v) && v > 0) d.clock.frequency_mhz = v;
    else if (!d.info.is_null()) {
      const std::string info = base + layout::for_device(layout::info_json, id);
      warnings_.push_back({info, 0, 0, info + ": DeviceInfo[0].hwts_frequency missing or not a positive number; 50 MHz assumed"});
    }
    if (di.get("aic_frequency").to_double(v) && v > 0) d.aic_frequency_mhz = v;
    d.ai_core_num = static_cast<std::uint32_t>(di.get("ai_core_num").uint_or(0));
    d.aiv_num = static_cast<std::uint32_t>(di.get("aiv_num").uint_or(0));
    d.simulated = di.get("simulated").as_string_or("") == "yes";
    d.aic_metrics = d.sample.get("ai_core_metrics").as_string_or("");
    d.aiv_metrics = d.sample.get("aiv_metrics").as_string_or("");
    auto events = [&](const char* key, std::vector<std::uint32_t>& out) {
      const std::string ev = d.sample.get(key).as_string_or("");
      std::size_t pos = 0;
      while (pos < ev.size() && out.size() < 64) {
        std::size_t c = ev.find(',', pos);
        if (c == std::string::npos) c = ev.size();
        const std::string one = ev.substr(pos, c - pos);
        char* end = nullptr;
        const unsigned long x = std::strtoul(one.c_str(), &end, 16);
        if (!one.empty() && end && *end == '\0' && x <= 0xFFFFFFFFul) out.push_back(static_cast<std::uint32_t>(x));
        pos = c + 1;
      }
    };
    events("ai_core_profiling_events", d.events);
    events("aiv_profiling_events", d.aiv_events);
    MSPROF_TRY(read_clock_log(base + layout::for_device(layout::dev_start_log, id), d.clock.anchor_ns, d.clock.anchor_ticks, true));
    return {};
  }

  const reader_options& opt_;
  std::vector<warning>& warnings_;
  const char* missing_ = ": missing";
};

}  // namespace prof
MSPROF_END_NAMESPACE

#endif  // MSPROF_PROF_CONTROL_FILES_HPP
