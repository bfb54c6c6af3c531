// SPDX-License-Identifier: MIT
// The CANN summary l2_cache, from the L2 cache slices as the reference
// (9ba1ac7be) exports it (L2CacheParser, L2CacheCalculator, L2CacheConfig,
// get_l2_cache_data): per platform, the request, hit and victim events summed
// (an event's counter found at its place in sample.json's list); each rate
// Python's round(x / request, 6), 0 without requests; the Hit Rate "N/A" on
// STARS chips; rows in file order; the op of (task id, stream id) from GE's
// tasks, the last one with those ids.
#include "msprof/convert/l2_cache.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>

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

/// The part of the l2_cache slices' names (device_slices.hpp).
std::string slices() { return std::string(prof::layout::l2_cache) + ".data."; }

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

  /// nullopt, with the reason in `why`, when the reference writes no rows.
  static std::optional<calculator> of(const prof::device_info& d, std::string& why) {
    const std::string platform = d.info.get("platform_version").as_string_or("");
    const platform_events* p = nullptr;
    for (const auto& e : kPlatforms)
      for (const char* id : e.platforms)
        if (id && platform == id) p = &e;
    if (!p) {
      why = "info.json's platform_version '" + platform + "' has no L2 cache events";
      return std::nullopt;
    }
    const auto& v = d.sample.get("l2CacheTaskProfilingEvents");
    const std::vector<std::string> events = split(v.is_string() ? v.as_string_or("") : "");
    if (events.size() > kMaxEvents) {
      why = "l2CacheTaskProfilingEvents lists " + std::to_string(events.size()) + " events, more than " +
            std::to_string(kMaxEvents);
      return std::nullopt;
    }
    for (const auto& e : events)
      if (std::find(std::begin(kKnown), std::end(kKnown), e) == std::end(kKnown)) {
        why = "l2CacheTaskProfilingEvents '" + v.as_string_or("") + "' is missing or names an unknown event ('" + e + "')";
        return std::nullopt;
      }
    calculator c;
    c.stars = p->stars;
    const auto terms = [&](const char* wanted, std::vector<term>& out) {
      for (const auto& w : split(wanted)) {
        const bool minus = w[0] == '-';
        const auto it = std::find(events.begin(), events.end(), minus ? w.substr(1) : w);
        if (it == events.end()) {
          why = "l2CacheTaskProfilingEvents lacks event " + (minus ? w.substr(1) : w) + " of platform " + platform;
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
  static double sum(const codec::L2CacheTask& t, const std::vector<term>& terms) {
    long double s = 0;
    for (const auto& x : terms) s += static_cast<long double>(x.sign) * static_cast<long double>(t.events[x.index]);
    return static_cast<double>(s);
  }
  static std::string rate(double part, double request) {
    std::string s = py_round(request == 0 ? 0.0 : part / request, 6);
    return s == "-0.0" ? "0.0" : s;  // the reference's REAL column keeps no -0.0
  }

  void fill(const codec::L2CacheTask& t, l2_cache_rates& out) const {
    const double req = sum(t, request);
    out.hit_rate = stars ? "N/A" : rate(sum(t, hit), req);
    out.victim_rate = rate(sum(t, victim), req);
  }
};

}  // namespace l2_cache_detail

result<void> for_each_l2_cache(const std::string& prof_dir, std::vector<std::string>& warnings,
                               const std::function<result<void>(const l2_cache_rates&)>& fn) {
  auto r = detail::open_for_slices(prof_dir, true, l2_cache_detail::slices(), false);
  if (!r) return {};
  result<void> status;
  for (const auto& d : r->devices()) {
    bool checked = false;
    std::optional<l2_cache_detail::calculator> calc;
    l2_cache_rates row;
    row.device_id = d.id;
    auto read = r->for_each_l2_cache(d.id, [&](const codec::L2CacheTask& t, const codec::place&) {
      if (!status) return;
      if (!checked) {  // only a device with records is checked
        checked = true;
        std::string why;
        calc = l2_cache_detail::calculator::of(d, why);
        if (!calc) {
          const std::string sample = prof_dir + "/" + prof::layout::device_dir(d.id) + "/" + prof::layout::sample_json;
          for (const auto& w : r->warnings())  // why the file could not be read, if it could not
            if (w.file == sample) warnings.push_back(w.text());
          warnings.push_back(sample + ": " + why + "; no l2_cache rows for device " + std::to_string(d.id));
        }
      }
      if (!calc) return;
      row.stream_id = t.streamId;
      row.task_id = t.taskId;
      calc->fill(t, row);
      status = fn(row);
    });
    MSPROF_TRY(read);
    MSPROF_TRY(status);
  }
  detail::slice_warnings(*r, prof::layout::l2_cache, warnings);
  return {};
}

l2_cache_names::l2_cache_names(const std::string& prof_dir)
    : wanted_(detail::any_slice(prof_dir, true, l2_cache_detail::slices())) {}

void l2_cache_names::add(const model& w) {
  if (!wanted_) return;
  for (const auto& t : w.tasks) {
    // A record holds 16-bit ids: a task with larger ones is never asked for.
    if (!t.op || t.stream_id > 0xFFFF || t.task_id > 0xFFFF) continue;
    auto& [launch, name] = ops_[(std::uint64_t{t.stream_id} << 32) | t.task_id];
    if (t.global_task_id >= launch) {
      launch = t.global_task_id;
      name = t.op->name;
    }
  }
}

const std::string& l2_cache_names::name_of(std::uint32_t stream_id, std::uint32_t task_id) const {
  static const std::string na = "N/A";
  const auto it = ops_.find((std::uint64_t{stream_id} << 32) | task_id);
  return it == ops_.end() ? na : it->second.second;
}

std::vector<std::string> l2_cache_header(bool named) {
  std::vector<std::string> h = {"Device_id", "Stream Id", "Task Id", "Hit Rate", "Victim Rate"};
  if (named) h.push_back("Op Name");
  return h;
}

}  // namespace convert
MSPROF_END_NAMESPACE
