// SPDX-License-Identifier: MIT
// The CANN summary l2_cache, from the L2 cache slices as the reference
// (9ba1ac7be) exports it (L2CacheParser, L2CacheCalculator, L2CacheConfig,
// get_l2_cache_data): per platform, the request, hit and victim events summed
// (an event's counter found at its place in sample.json's list); each rate
// Python's round(x / request, 6), 0 without requests; the Hit Rate "N/A" on
// STARS chips; rows in file order, the SoC PMU slices' HA records (which
// SocPmuParser adds to the L2 cache table) after the L2 cache slices'; the op
// of (task id, stream id) from GE's tasks, the last one with those ids. The CANN summary soc_pmu likewise, from
// the SoC PMU slices (SocPmuParser, SocPmuCalculator, SocPmuConfig,
// SocPmuViewer): only records of data type 2, sample.json's npuEvents
// "SMMU:..." events, the rates printed from a NUMERIC column.
#include "msprof/convert/l2_cache.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>
#include <tuple>

#include "msprof/convert/device_slices.hpp"
#include "msprof/convert/npu_memory.hpp"
#include "msprof/convert/text.hpp"
#include "msprof/prof/reader.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

// Named apart from the other sources' helpers (a unity build joins them).
namespace l2_cache_detail {

/// L2CacheConfig: the events of each platform; a leading '-' subtracts.
struct platform_events {
  const char* platforms[4];  ///< platform_version values
  const char* request;
  const char* hit;
  const char* victim;
  bool stars;  ///< the summary shows no Hit Rate (ChipManager.is_stars_chip)
};
constexpr platform_events kPlatforms[] = {
    {{"1"}, "0x59", "0x5b", "0x5c", false},
    {{"2", "3", "4"}, "0x78,0x79", "0x6a", "0x71", false},
    {{"5", "7", "8", "11"}, "0xfb,0xfc", "0x90,0x91", "0x9c", true},
    {{"15", "16"}, "0x00", "0x00,-0x81,-0x82,-0x83,-0x74,-0x75", "0x74,0x75", true},
};

/// The events sample.json may name (Constant.L2_CACHE_EVENTS), at most 8 of them.
constexpr std::string_view kKnown[] = {"0x59", "0x5b", "0x5c", "0x62", "0x6a", "0x6c", "0x71", "0x74", "0x77",
                                       "0x78", "0x79", "0x7c", "0x7d", "0x7e", "0xf6", "0xfb", "0xfc", "0x90",
                                       "0x91", "0x9c", "0x9d", "0xbf", "0x00", "0x88", "0x89", "0x8a", "0x75",
                                       "0x97", "0x81", "0x82", "0x83"};
constexpr std::size_t kMaxEvents = 8;

/// Python's str.strip().lower() of an ASCII event name.
std::string normalized(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  for (std::size_t pos = 0;;) {
    const std::size_t c = s.find(',', pos);
    out.push_back(normalized(s.substr(pos, c == std::string_view::npos ? std::string_view::npos : c - pos)));
    if (c == std::string_view::npos) return out;
    pos = c + 1;
  }
}

/// A sum of counters: where each one is in a record, and its sign.
struct term {
  std::size_t index;
  double sign;
};

/// How one device's records become rates; built from its control files.
struct calculator {
  std::vector<term> request, hit, victim;
  bool stars = false;

  /// nullopt, with the reason in `why`, when the reference writes no rows:
  /// `events` (named `what` in sample.json) must be known and at most 8, and
  /// hold every event that the platform's sums need.
  template <std::size_t P, std::size_t K>
  static std::optional<calculator> of(const std::string& platform, const std::vector<std::string>& events,
                                      const platform_events (&table)[P], const std::string_view (&known)[K],
                                      const std::string& what, std::string& why) {
    const platform_events* p = nullptr;
    for (const auto& e : table)
      for (const char* id : e.platforms)
        if (id && platform == id) p = &e;
    if (!p) {
      why = "info.json's platform_version '" + platform + "' has no " + what + " events";
      return std::nullopt;
    }
    if (events.empty()) {
      why = what + " lists no events";
      return std::nullopt;
    }
    if (events.size() > kMaxEvents) {
      why = what + " lists " + std::to_string(events.size()) + " events, more than " + std::to_string(kMaxEvents);
      return std::nullopt;
    }
    for (const auto& e : events)
      if (std::find(std::begin(known), std::end(known), e) == std::end(known)) {
        why = what + " names an unknown event ('" + e + "')";
        return std::nullopt;
      }
    calculator c;
    c.stars = p->stars;
    const auto terms = [&](const char* wanted, std::vector<term>& out) {
      for (const auto& w : split(wanted)) {
        const bool minus = w[0] == '-';
        const auto it = std::find(events.begin(), events.end(), minus ? w.substr(1) : w);
        if (it == events.end()) {
          why = what + " lacks event " + (minus ? w.substr(1) : w) + " of platform " + platform;
          return false;
        }
        out.push_back({static_cast<std::size_t>(it - events.begin()), minus ? -1.0 : 1.0});
      }
      return true;
    };
    if (!terms(p->request, c.request) || !terms(p->hit, c.hit) || !terms(p->victim, c.victim)) return std::nullopt;
    return c;
  }

  // The reference sums Python ints, exactly, and divides them correctly
  // rounded; sums in long double, divided as doubles, give the same while
  // each sum stays below 2^53 (counters of one task).
  static double sum(const std::uint64_t (&events)[8], const std::vector<term>& terms) {
    long double s = 0;
    for (const auto& x : terms) s += static_cast<long double>(x.sign) * static_cast<long double>(events[x.index]);
    return static_cast<double>(s);
  }
  static std::string rate(double part, double request) {
    std::string s = py_round(request == 0 ? 0.0 : part / request, 6);
    return s == "-0.0" ? "0.0" : s;  // the reference's REAL column keeps no -0.0
  }

  /// The hit and victim (or miss) rates of one record's counters.
  std::pair<std::string, std::string> rates(const std::uint64_t (&events)[8]) const {
    const double req = sum(events, request);
    return {stars ? "N/A" : rate(sum(events, hit), req), rate(sum(events, victim), req)};
  }
};

}  // namespace l2_cache_detail

namespace l2_cache_detail {

/// How device `d`'s records become rates: the calculator `make` builds at
/// its first record (only a device with records is checked), and a warning
/// naming its sample.json when the config allows none.
template <class Make>
struct device_calc {
  const std::string& prof_dir;
  const prof::prof_reader& r;
  const prof::device_info& d;
  const char* summary;
  std::vector<std::string>& warnings;
  Make make;
  bool checked = false;
  std::optional<calculator> calc;

  const calculator* get() {
    if (!checked) {
      checked = true;
      std::string why;
      calc = make(d, why);
      if (!calc) {
        const std::string sample = prof_dir + "/" + prof::layout::device_dir(d.id) + "/" + prof::layout::sample_json;
        for (const auto& w : r.warnings())  // why the file could not be read, if it could not
          if (w.file == sample) warnings.push_back(w.text());
        warnings.push_back(sample + ": " + why + "; no " + summary + " rows for device " + std::to_string(d.id));
      }
    }
    return calc ? &*calc : nullptr;
  }
};

/// Calls `read(reader, device, calc)` for each device of a collection with
/// `stem` (or `also`) slices, then adds the reader's warnings about the
/// `stem` slices (those about `also` are another summary's).
template <class Make, class Read>
result<void> each_device(const std::string& prof_dir, const char* stem, const char* also, const char* summary,
                         std::vector<std::string>& warnings, const Make& make, const Read& read) {
  auto r = detail::open_for_slices(prof_dir, true, std::string(stem) + ".data.", false);
  if (!r && also) r = detail::open_for_slices(prof_dir, true, std::string(also) + ".data.", false);
  if (!r) return {};
  for (const auto& d : r->devices()) {
    device_calc<const Make&> calc{prof_dir, *r, d, summary, warnings, make, false, std::nullopt};
    MSPROF_TRY(read(*r, d, calc));
  }
  detail::slice_warnings(*r, stem, warnings);
  return {};
}

std::string platform_of(const prof::device_info& d) { return d.info.get("platform_version").as_string_or(""); }
bool soc_pmu_v6(const std::string& platform) { return platform == "15" || platform == "16"; }

/// npuEvents' SMMU events: "TYPE:e,e;SMMU:e,e" (the first SMMU part; a part
/// without ':' is passed over, text after a second ':' ignored).
std::vector<std::string> smmu_events(std::string_view cfg) {
  for (std::size_t pos = 0; pos <= cfg.size();) {
    const std::size_t end = std::min(cfg.find(';', pos), cfg.size());
    const std::string_view part = cfg.substr(pos, end - pos);
    pos = end + 1;
    const std::size_t colon = part.find(':');
    if (colon == std::string_view::npos) continue;
    std::string key = normalized(part.substr(0, colon));
    for (auto& c : key) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (key != "SMMU") continue;
    const std::string_view values = part.substr(colon + 1);
    return split(values.substr(0, values.find(':')));
  }
  return {};
}

/// SocPmuConfig and Constant.SOC_PMU_EVENTS: one set of events on chips 5,
/// 15 and 16; the "miss" events take the victim's place.
constexpr platform_events kSocPmuPlatforms[] = {{{"5", "15", "16"}, "0x8a", "0x8c,0x8d", "0x2", false}};
constexpr std::string_view kSocPmuKnown[] = {"0x2", "0x8a", "0x8b", "0x8c", "0x8d"};
constexpr std::uint16_t kSocPmuTlb = 2;  ///< the data type of a task's TLB counters
constexpr std::uint16_t kSocPmuHa = 1;  ///< a task's HA counters: L2 cache events, in the l2_cache summary
constexpr std::uint16_t kSocPmuPageFault = 4;  ///< page faults: the page_fault summary's

/// The reference parses SoC PMU slices only on these chips; 15 and 16 have their own layout.
bool soc_pmu_chip(const std::string& platform) { return platform == "5" || soc_pmu_v6(platform); }

/// The summary's column is NUMERIC: a rate that is a whole number is stored,
/// and printed, as an integer (0.0 -> 0, 1.0 -> 1).
std::string numeric(std::string rate) {
  if (rate.size() > 2 && rate.compare(rate.size() - 2, 2, ".0") == 0) rate.resize(rate.size() - 2);
  return rate;
}

}  // namespace l2_cache_detail

result<void> for_each_l2_cache(const std::string& prof_dir, std::vector<std::string>& warnings,
                               const task_rates_fn& fn) {
  using namespace l2_cache_detail;
  const auto make = [](const prof::device_info& d, std::string& why) {
    const auto& v = d.sample.get("l2CacheTaskProfilingEvents");
    return calculator::of(platform_of(d), split(v.is_string() ? v.as_string_or("") : ""), kPlatforms, kKnown,
                          "l2CacheTaskProfilingEvents", why);
  };
  return each_device(prof_dir, prof::layout::l2_cache, prof::layout::soc_pmu, "l2_cache", warnings, make,
                     [&](prof::prof_reader& r, const prof::device_info& d, auto& calc) -> result<void> {
                       result<void> status;
                       task_rates row;
                       row.device_id = d.id;
                       const auto add = [&](std::uint32_t stream_id, std::uint32_t task_id,
                                            const std::uint64_t(&events)[8]) {
                         const calculator* c = status ? calc.get() : nullptr;
                         if (!c) return;
                         row.stream_id = stream_id;
                         row.task_id = task_id;
                         std::tie(row.hit_rate, row.second_rate) = c->rates(events);
                         status = fn(row);
                       };
                       MSPROF_TRY(r.for_each_l2_cache(d.id, [&](const codec::L2CacheTask& t, const codec::place&) {
                         add(t.streamId, t.taskId, t.events);
                       }));
                       // The reference's SoC PMU parser adds the HA records to the same table; both
                       // parsers run at once, so which block comes first is a race there: here the
                       // L2 cache slices' rows come first. The SoC PMU slices' own problems are the
                       // soc_pmu summary's warnings.
                       const std::string platform = platform_of(d);
                       if (!soc_pmu_chip(platform)) return status;
                       MSPROF_TRY(r.for_each_soc_pmu(d.id, soc_pmu_v6(platform),
                                                     [&](const codec::SocPmuTaskV6& t, const codec::place&) {
                                                       if (t.dataType == kSocPmuHa) add(t.streamId, t.taskId, t.events);
                                                     }));
                       return status;
                     });
}

result<void> for_each_soc_pmu(const std::string& prof_dir, std::vector<std::string>& warnings,
                              const task_rates_fn& fn) {
  using namespace l2_cache_detail;
  const auto make = [](const prof::device_info& d, std::string& why) {
    const auto& v = d.sample.get("npuEvents");
    return calculator::of(platform_of(d), smmu_events(v.is_string() ? v.as_string_or("") : ""), kSocPmuPlatforms,
                          kSocPmuKnown, "npuEvents' SMMU part", why);
  };
  return each_device(prof_dir, prof::layout::soc_pmu, nullptr, "soc_pmu", warnings, make,
                     [&](prof::prof_reader& r, const prof::device_info& d, auto& calc) -> result<void> {
                       const bool v6 = soc_pmu_v6(platform_of(d));
                       result<void> status;
                       task_rates row;
                       row.device_id = d.id;
                       MSPROF_TRY(r.for_each_soc_pmu(d.id, v6, [&](const codec::SocPmuTaskV6& t, const codec::place& at) {
                         if (!status) return;
                         if (t.dataType != kSocPmuTlb) {
                           if (t.dataType != kSocPmuHa && t.dataType != kSocPmuPageFault)
                             warnings.push_back(at.str() + ": SoC PMU data type " + std::to_string(t.dataType) +
                                                " is not known; record skipped");
                           return;
                         }
                         const calculator* c = calc.get();
                         if (!c) return;
                         row.stream_id = t.streamId;
                         row.task_id = t.taskId;
                         auto [hit, miss] = c->rates(t.events);
                         row.hit_rate = numeric(std::move(hit));
                         row.second_rate = numeric(std::move(miss));
                         status = fn(row);
                       }));
                       return status;
                     });
}

result<void> for_each_page_fault(const std::string& prof_dir, std::vector<std::string>&,
                                 const std::function<result<void>(const page_faults&)>& fn) {
  using namespace l2_cache_detail;
  auto r = detail::open_for_slices(prof_dir, true, std::string(prof::layout::soc_pmu) + ".data.", false);
  if (!r) return {};
  for (const auto& d : r->devices()) {
    if (!soc_pmu_chip(platform_of(d))) continue;
    result<void> status;
    page_faults row;
    row.device_id = d.id;
    MSPROF_TRY(r->for_each_soc_pmu(d.id, soc_pmu_v6(platform_of(d)), [&](const codec::SocPmuTaskV6& t, const codec::place&) {
      if (!status || t.dataType != kSocPmuPageFault) return;
      row.stream_id = t.streamId;
      row.task_id = t.taskId;
      row.count = static_cast<std::uint32_t>(t.events[0]);
      status = fn(row);
    }));
    MSPROF_TRY(status);
  }
  return {};
}

l2_cache_names::l2_cache_names(const std::string& prof_dir)
    : wanted_(detail::any_slice(prof_dir, true, std::string(prof::layout::l2_cache) + ".data.") ||
              detail::any_slice(prof_dir, true, std::string(prof::layout::soc_pmu) + ".data.")) {}

void l2_cache_names::add(const model& w) {
  if (!wanted_) return;
  for (const auto& t : w.tasks) {
    // Records hold 16-bit stream ids: a task with a larger one is never asked for.
    if (!t.op || t.stream_id > 0xFFFF) continue;
    auto& l = ops_[(std::uint64_t{t.stream_id} << 32) | t.task_id];
    if (t.global_task_id >= l.last) {
      l.last = t.global_task_id;
      l.last_name = t.op->name;
    }
    if (t.global_task_id < l.first) {
      l.first = t.global_task_id;
      l.first_name = t.op->name;
    }
  }
}

const std::string& l2_cache_names::name_of(std::uint32_t stream_id, std::uint32_t task_id, bool first) const {
  static const std::string na = "N/A";
  const auto it = ops_.find((std::uint64_t{stream_id} << 32) | task_id);
  if (it == ops_.end()) return na;
  return first ? it->second.first_name : it->second.last_name;
}

std::vector<std::string> soc_pmu_header(bool named) {
  std::vector<std::string> h = {"Device_id", "Stream Id", "Task Id", "TLB Hit Rate", "TLB Miss Rate"};
  if (named) h.push_back("Op Name");
  return h;
}

std::vector<std::string> page_fault_header() { return {"Device Id", "Stream Id", "Task Id", "Page Fault Num", "Op Name"}; }

std::vector<std::string> l2_cache_header(bool named) {
  std::vector<std::string> h = {"Device_id", "Stream Id", "Task Id", "Hit Rate", "Victim Rate"};
  if (named) h.push_back("Op Name");
  return h;
}

}  // namespace convert
MSPROF_END_NAMESPACE
