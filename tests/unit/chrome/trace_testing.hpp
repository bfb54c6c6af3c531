// SPDX-License-Identifier: MIT
// Test helpers for the chrome form: read a trace file in either form (msprof's
// exact one with string ts, or the chrome one) into one normalized event list,
// compare two such lists, and run the DevTools trace engine on a file
// (tests/js/check_trace.mjs) when node and tests/js/node_modules exist.
#ifndef MSPROF_TESTS_UNIT_CHROME_TRACE_TESTING_HPP
#define MSPROF_TESTS_UNIT_CHROME_TRACE_TESTING_HPP

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <simdjson.h>

#include <msprof/convert/timeline.hpp>

namespace chrome_testing {

using msprof::convert::trace_arg;
using msprof::convert::trace_event;
namespace fs = std::filesystem;

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Exact decimal "123.456" (µs) -> ns; nullopt if it is not such a number.
inline std::optional<std::int64_t> decimal_us_to_ns(std::string_view s) {
  bool neg = false;
  if (!s.empty() && s[0] == '-') {
    neg = true;
    s.remove_prefix(1);
  }
  std::int64_t whole = 0, frac = 0;
  std::size_t i = 0, digits = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) whole = whole * 10 + (s[i] - '0');
  if (i == 0) return std::nullopt;
  if (i < s.size() && s[i] == '.') {
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
      if (digits >= 3) {
        if (s[i] != '0') return std::nullopt;  // sub-ns
        continue;
      }
      frac = frac * 10 + (s[i] - '0');
    }
  }
  if (i != s.size()) return std::nullopt;
  for (; digits < 3; ++digits) frac *= 10;
  const std::int64_t v = whole * 1000 + frac;
  return neg ? -v : v;
}

/// A JSON number read by simdjson as µs -> ns (rounded; exact for 3 decimals).
inline std::int64_t number_us_to_ns(simdjson::dom::element e) {
  double d = 0;
  if (e.is_int64()) return static_cast<std::int64_t>(e.get_int64().value()) * 1000;
  if (e.is_uint64()) return static_cast<std::int64_t>(e.get_uint64().value()) * 1000;
  d = e.get_double().value();
  return static_cast<std::int64_t>(std::llround(d * 1000.0));
}

/// One canonical text per args object, so "40.0" and "40" compare equal.
inline std::string canonical_args(const std::vector<trace_arg>& args) {
  std::string s;
  for (const auto& a : args) {
    s += a.key;
    s += '=';
    switch (a.k) {
      case trace_arg::kind::integer: s += std::to_string(a.i); break;
      case trace_arg::kind::real:
        if (a.d == std::floor(a.d) && std::fabs(a.d) < 9e15)
          s += std::to_string(static_cast<std::int64_t>(a.d));
        else
          s += fmt::format("{}", a.d);
        break;
      case trace_arg::kind::string: s += '"' + a.s + '"'; break;
    }
    s += '\x1f';
  }
  return s;
}

/// A trace file of either form, read back.
struct parsed_trace {
  std::vector<trace_event> events;      ///< all events, file order, absolute ns
  std::vector<std::string> problems;    ///< violations of the chrome form's rules
  std::int64_t origin_ns = 0;           ///< chrome: otherData.ts_origin_ns
  bool object_form = false;
  std::map<std::string, std::int64_t> other;  ///< chrome: integer otherData fields
  std::vector<std::string> other_parts;       ///< chrome: otherData.parts
};

enum class form { exact, chrome };

/// Reads a trace. Exact form: top-level array, ts strings of absolute µs.
/// Chrome form: object, numeric ts relative to otherData.ts_origin_ns.
inline parsed_trace parse_trace(const std::string& text, form f) {
  parsed_trace out;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto err = parser.parse(text).get(root)) {
    out.problems.push_back(std::string("not JSON: ") + simdjson::error_message(err));
    return out;
  }
  simdjson::dom::array events;
  if (root.is_object()) {
    out.object_form = true;
    if (root["traceEvents"].get(events)) {
      out.problems.push_back("object without traceEvents");
      return out;
    }
    simdjson::dom::object other;
    if (!root["otherData"].get(other)) {
      for (auto kv : other) {
        if (kv.value.is_int64()) out.other[std::string(kv.key)] = kv.value.get_int64().value();
        if (kv.key == "ts_origin_ns") {
          std::string_view s;
          if (kv.value.get(s) || s.empty() || s.find_first_not_of("-0123456789") != std::string_view::npos)
            out.problems.push_back("otherData.ts_origin_ns is not an integer string");
          else
            out.origin_ns = std::strtoll(std::string(s).c_str(), nullptr, 10);
        }
        if (kv.key == "parts") {
          simdjson::dom::array a;
          if (!kv.value.get(a))
            for (auto n : a) out.other_parts.emplace_back(std::string_view(n.get_string().value()));
        }
      }
    } else if (f == form::chrome) {
      out.problems.push_back("no otherData");
    }
    std::string_view unit;
    if (f == form::chrome && (root["displayTimeUnit"].get(unit) || unit != "ns"))
      out.problems.push_back("displayTimeUnit is not \"ns\"");
  } else if (root.get(events)) {
    out.problems.push_back("neither an array nor an object");
    return out;
  } else if (f == form::chrome) {
    out.problems.push_back("chrome form must be an object");
  }
  std::size_t index = 0;
  for (simdjson::dom::element ev : events) {
    ++index;
    trace_event e;
    std::string_view sv;
    auto where = [&](const std::string& what) { out.problems.push_back(fmt::format("event {}: {}", index, what)); };
    if (ev["name"].get(sv)) where("no name");
    e.name = std::string(sv);
    std::string_view ph;
    if (ev["ph"].get(ph) || ph.size() != 1) {
      where("no ph");
      continue;
    }
    e.ph = ph[0];
    std::uint64_t u = 0;
    if (!ev["pid"].get(u)) e.pid = u;
    if (!ev["tid"].get(u)) e.tid = u;
    simdjson::dom::element ts;
    if (!ev["ts"].get(ts)) {
      if (ts.is_string()) {
        if (f == form::chrome) where("ts is a string");
        auto ns = decimal_us_to_ns(ts.get_string().value());
        if (!ns) where("ts string is not µs with 3 decimals");
        e.ts_ns = ns.value_or(0);
      } else if (ts.is_number()) {
        e.ts_ns = number_us_to_ns(ts);
        if (f == form::chrome && e.ts_ns < 0) where("negative ts");
        if (f == form::chrome && e.ts_ns == 0 && e.ph != 'M' && e.ph != 'C') where("ts 0 (left out of DevTools' bounds)");
      } else {
        where("ts is neither string nor number");
      }
    } else if (e.ph != 'M') {
      where("no ts");
    }
    simdjson::dom::element dur;
    if (!ev["dur"].get(dur)) {
      if (!dur.is_number()) where("dur is not a number");
      else e.dur_ns = number_us_to_ns(dur);
      if (e.dur_ns < 0) where("negative dur");
    }
    if (!ev["cat"].get(sv)) e.cat = std::string(sv);
    if (!ev["id"].get(sv)) e.id = std::string(sv);
    if (!ev["bp"].get(sv)) e.bp_enclosing = sv == "e";
    simdjson::dom::object args;
    if (!ev["args"].get(args)) {
      for (auto kv : args) {
        trace_arg a;
        a.key = std::string(kv.key);
        if (kv.value.is_int64()) {
          a.k = trace_arg::kind::integer;
          a.i = kv.value.get_int64().value();
        } else if (kv.value.is_uint64()) {
          a.k = trace_arg::kind::integer;
          a.i = static_cast<std::int64_t>(kv.value.get_uint64().value());
        } else if (kv.value.is_double()) {
          a.k = trace_arg::kind::real;
          a.d = kv.value.get_double().value();
        } else if (kv.value.is_string()) {
          a.k = trace_arg::kind::string;
          a.s = std::string(kv.value.get_string().value());
        } else {
          a.k = trace_arg::kind::string;
          a.s = simdjson::minify(kv.value);
        }
        e.args.push_back(std::move(a));
      }
    } else if (e.ph == 'M') {
      where("M without args");
    }
    if (f == form::chrome) {
      if (e.ph == 'B' || e.ph == 'E') where("B/E event");
      if (e.ph == 'i') where("lowercase i instant");
      if (e.ph == 'I' && ev["s"].get(sv)) where("instant without scope");
      if (e.ph == 'f' && !e.bp_enclosing) where("f without bp:e");
      if (e.ph != 'M') e.ts_ns += out.origin_ns;
    }
    out.events.push_back(std::move(e));
  }
  if (f == form::chrome) {
    // Every ts and dur: a plain number with exactly 3 decimals.
    for (const char* key : {"\"ts\":", "\"dur\":"}) {
      for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
        std::size_t b = at + std::char_traits<char>::length(key), e = b;
        while (e < text.size() && text[e] != ',' && text[e] != '}') ++e;
        const std::string num = text.substr(b, e - b);
        const auto dot = num.find('.');
        if (dot == std::string::npos || num.size() - dot != 4 || num.find_first_not_of("0123456789.") != std::string::npos)
          out.problems.push_back(fmt::format("{} {} is not a plain number with 3 decimals", key, num));
      }
    }
  }
  return out;
}

/// A slice's identity across forms.
using slice_key = std::tuple<std::uint64_t, std::uint64_t, std::int64_t, std::string>;

/// The two slices a flow connects, by identity, plus its category.
using link = std::tuple<std::string, slice_key, slice_key>;

/// Everything that is content: slices, counters, metadata, links.
struct normalized {
  std::multiset<std::tuple<std::uint64_t, std::uint64_t, std::int64_t, std::string, std::string, std::int64_t>> slices;
  std::multiset<std::tuple<std::uint64_t, std::uint64_t, std::int64_t, std::string, std::string>> counters;
  std::multiset<std::tuple<std::uint64_t, std::uint64_t, std::string, std::string>> metadata;
  std::multiset<link> links;
  std::size_t unpaired_flow_ends = 0;
  std::size_t unresolved_links = 0;
};

/// Normalizes a parsed trace. Flow ends are resolved to slices the way each
/// form means them: `exact` by (pid, tid, ts) with connection_id breaking ties
/// (as msprof writes them), `chrome` the way DevTools binds them: the first
/// event in the file with the same (ts, pid, tid, cat).
/// The chrome form appends U+200B to names DevTools reserves; undo it.
inline std::string unreserved(const std::string& name, form f) {
  constexpr std::string_view zwsp = "\xE2\x80\x8B";
  if (f == form::chrome && name.size() >= zwsp.size() && name.compare(name.size() - zwsp.size(), zwsp.size(), zwsp) == 0)
    return name.substr(0, name.size() - zwsp.size());
  return name;
}

inline normalized normalize(const parsed_trace& t, form f) {
  normalized n;
  std::map<std::tuple<std::uint64_t, std::uint64_t, std::int64_t>, std::vector<std::size_t>> starts;
  for (std::size_t k = 0; k < t.events.size(); ++k) {
    const auto& e = t.events[k];
    switch (e.ph) {
      case 'X':
      case 'I':
        n.slices.emplace(e.pid, e.tid, e.ts_ns, unreserved(e.name, f), canonical_args(e.args), e.ph == 'X' ? e.dur_ns : -1);
        starts[{e.pid, e.tid, e.ts_ns}].push_back(k);
        break;
      case 'C': n.counters.emplace(e.pid, e.tid, e.ts_ns, unreserved(e.name, f), canonical_args(e.args)); break;
      case 'M': n.metadata.emplace(e.pid, e.tid, e.name, canonical_args(e.args)); break;
      default: break;
    }
  }
  auto resolve = [&](const trace_event& fe) -> std::optional<slice_key> {
    auto it = starts.find({fe.pid, fe.tid, fe.ts_ns});
    if (it == starts.end()) return std::nullopt;
    if (f == form::chrome) {
      for (auto k : it->second)
        if (t.events[k].cat == fe.cat) return slice_key{fe.pid, fe.tid, fe.ts_ns, unreserved(t.events[k].name, f)};
      return std::nullopt;
    }
    std::uint64_t id = std::strtoull(fe.id.c_str(), nullptr, 10);
    if (fe.cat == "HostToDevice") id >>= 32;
    const trace_event* pick = nullptr;
    for (auto k : it->second) {
      for (const auto& a : t.events[k].args)
        if (a.key == "connection_id" && a.k == trace_arg::kind::integer && static_cast<std::uint64_t>(a.i) == id)
          pick = &t.events[k];
    }
    if (!pick && it->second.size() == 1) pick = &t.events[it->second.front()];
    if (!pick) return std::nullopt;
    return slice_key{fe.pid, fe.tid, fe.ts_ns, pick->name};
  };
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const trace_event*>> s_ends, f_ends;
  for (const auto& e : t.events) {
    if (e.ph == 's') s_ends[{e.cat, e.name, e.id}].push_back(&e);
    if (e.ph == 'f') f_ends[{e.cat, e.name, e.id}].push_back(&e);
  }
  for (auto& [key, ss] : s_ends) {
    auto& fs = f_ends[key];
    const std::size_t pairs = std::min(ss.size(), fs.size());
    // Ends beyond the pairs, of either kind: the reference ends one HCCL
    // launch's flow on several tasks (tests/golden/hccl_allreduce).
    n.unpaired_flow_ends += ss.size() + fs.size() - 2 * pairs;
    for (std::size_t k = 0; k < pairs; ++k) {
      auto a = resolve(*ss[k]);
      auto b = resolve(*fs[k]);
      if (!a || !b) {
        ++n.unresolved_links;
        continue;
      }
      n.links.emplace(std::get<0>(key), *a, *b);  // (category, host slice, device slice)
    }
  }
  for (auto& [key, fs] : f_ends)
    if (!s_ends.count(key)) n.unpaired_flow_ends += fs.size();
  return n;
}

/// Differences between the exact form and the chrome form of one timeline.
/// Durations may be shorter in the chrome form only for slices it reports as
/// clamped (`allowed_dur_changes`), and never longer.
inline std::vector<std::string> compare(const normalized& exact, const normalized& chrome,
                                        std::size_t allowed_dur_changes, std::size_t chrome_unpaired) {
  std::vector<std::string> diff;
  // Slices: same identity and args; durations compared per identity.
  using id_t = std::tuple<std::uint64_t, std::uint64_t, std::int64_t, std::string, std::string>;
  std::map<id_t, std::vector<std::int64_t>> a, b;
  for (const auto& s : exact.slices)
    a[{std::get<0>(s), std::get<1>(s), std::get<2>(s), std::get<3>(s), std::get<4>(s)}].push_back(std::get<5>(s));
  for (const auto& s : chrome.slices)
    b[{std::get<0>(s), std::get<1>(s), std::get<2>(s), std::get<3>(s), std::get<4>(s)}].push_back(std::get<5>(s));
  std::size_t changed = 0;
  for (auto& [k, da] : a) {
    auto it = b.find(k);
    if (it == b.end() || it->second.size() != da.size()) {
      diff.push_back(fmt::format("slice '{}' pid {} tid {} ts {}: {} in exact form, {} in chrome form", std::get<3>(k),
                                 std::get<0>(k), std::get<1>(k), std::get<2>(k), da.size(),
                                 it == b.end() ? 0 : it->second.size()));
      continue;
    }
    auto db = it->second;
    std::sort(da.begin(), da.end());
    std::sort(db.begin(), db.end());
    for (std::size_t i = 0; i < da.size(); ++i) {
      if (db[i] == da[i]) continue;
      ++changed;
      if (db[i] > da[i] || db[i] < 0)
        diff.push_back(fmt::format("slice '{}' ts {}: dur {} ns became {} ns", std::get<3>(k), std::get<2>(k), da[i], db[i]));
    }
  }
  for (auto& [k, db] : b)
    if (!a.count(k)) diff.push_back(fmt::format("slice '{}' ts {} only in chrome form", std::get<3>(k), std::get<2>(k)));
  if (changed > allowed_dur_changes)
    diff.push_back(fmt::format("{} durations differ, chrome form reports {} clamps", changed, allowed_dur_changes));
  if (exact.counters != chrome.counters) diff.push_back("counters differ");
  if (exact.metadata != chrome.metadata) diff.push_back("metadata differ");
  if (exact.links != chrome.links)
    diff.push_back(fmt::format("links differ: {} in exact form, {} in chrome form", exact.links.size(), chrome.links.size()));
  if (exact.unresolved_links != 0) diff.push_back(fmt::format("{} links of the exact form resolve to no slice", exact.unresolved_links));
  if (chrome.unresolved_links != 0) diff.push_back(fmt::format("{} chrome flows bind to no slice", chrome.unresolved_links));
  if (chrome.unpaired_flow_ends != 0) diff.push_back("chrome form has unpaired flow events");
  if (exact.unpaired_flow_ends != chrome_unpaired)
    diff.push_back(fmt::format("exact form has {} unpaired flow ends, chrome form reports {}", exact.unpaired_flow_ends,
                               chrome_unpaired));
  return diff;
}

/// Max nesting depth per thread of the X/I events, computed on integer ns with
/// DevTools' rules (sorted by start then longer first; a slice starting at or
/// after the open one's end closes it).
inline std::map<std::pair<std::uint64_t, std::uint64_t>, std::size_t> nesting_depths(const parsed_trace& t) {
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<std::pair<std::int64_t, std::int64_t>>> per;
  for (const auto& e : t.events)
    if (e.ph == 'X' || e.ph == 'I') per[{e.pid, e.tid}].emplace_back(e.ts_ns, e.ph == 'X' ? e.dur_ns : 0);
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::size_t> out;
  for (auto& [k, v] : per) {
    std::stable_sort(v.begin(), v.end(), [](auto& x, auto& y) { return x.first < y.first || (x.first == y.first && x.second > y.second); });
    std::vector<std::int64_t> ends;
    std::size_t depth = 0;
    for (auto [s, d] : v) {
      while (!ends.empty() && ends.back() <= s) ends.pop_back();
      ends.push_back(s + d);
      depth = std::max(depth, ends.size());
    }
    out[k] = depth;
  }
  return out;
}

/// What tests/js/check_trace.mjs reported.
struct engine_report {
  bool ran = false;
  std::string skipped;  ///< why the engine was not run
  std::string raw;      ///< the JSON report
  std::string fatal;
  std::size_t x_written = 0, slices_in_tracks = 0, instants_in_tracks = 0, dropped = 0;
  double bounds_min = 0, bounds_max = 0;
  std::size_t flows_written = 0, flows_bound = 0;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::size_t> depth;
  /// bound flows: (pid, tid, ts µs) of each end, in engine order
  std::vector<std::vector<std::tuple<std::uint64_t, std::uint64_t, double, std::string>>> pairs;
};

inline fs::path js_dir() { return fs::path(MSPROF_TEST_DATA_DIR) / "js"; }

/// The node binary, or "" (MSPROF_NODE overrides the PATH lookup).
inline std::string find_node() {
  if (const char* n = std::getenv("MSPROF_NODE")) return n;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "";
  std::size_t b = 0;
  while (b <= p.size()) {
    std::size_t e = p.find(':', b);
    if (e == std::string::npos) e = p.size();
    const fs::path cand = fs::path(p.substr(b, e - b)) / "node";
    std::error_code ec;
    if (!cand.parent_path().empty() && fs::is_regular_file(cand, ec)) return cand.string();
    b = e + 1;
  }
  return {};
}

/// Why the engine cannot run here, or "" if it can.
inline std::string engine_unavailable() {
  if (find_node().empty()) return "node is not on PATH";
  std::error_code ec;
  if (!fs::exists(js_dir() / "node_modules" / "@paulirish" / "trace_engine" / "package.json", ec))
    return "tests/js/node_modules is missing (run npm ci in tests/js)";
  return {};
}

inline engine_report run_engine(const fs::path& trace) {
  engine_report r;
  r.skipped = engine_unavailable();
  if (!r.skipped.empty()) return r;
  const std::string cmd = fmt::format("'{}' --max-old-space-size=8192 '{}' '{}' --detail 2>/dev/null", find_node(),
                                      (js_dir() / "check_trace.mjs").string(), trace.string());
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) {
    r.fatal = "cannot start node";
    return r;
  }
  std::array<char, 65536> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.raw.append(buf.data(), n);
  ::pclose(pipe);
  r.ran = true;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(r.raw).get(root)) {
    r.fatal = "check_trace.mjs printed no JSON report: " + r.raw.substr(0, 300);
    return r;
  }
  std::string_view fatal;
  if (!root["fatal"].get(fatal)) {
    r.fatal = std::string(fatal);
    if (r.fatal.empty()) r.fatal = "(empty fatal message)";
    return r;
  }
  auto totals = root["totals"];
  r.x_written = totals["x_written"].get_uint64().value();
  r.slices_in_tracks = totals["slices_in_tracks"].get_uint64().value();
  r.instants_in_tracks = totals["instants_in_tracks"].get_uint64().value();
  r.dropped = totals["dropped"].get_uint64().value();
  // NaN (null in the report) and strings come out as NaN: never equal to anything.
  auto num = [](simdjson::dom::element e) {
    if (e.is_double()) return e.get_double().value();
    if (e.is_int64()) return static_cast<double>(e.get_int64().value());
    if (e.is_uint64()) return static_cast<double>(e.get_uint64().value());
    return std::nan("");
  };
  r.bounds_min = num(root["bounds"]["min"]);
  r.bounds_max = num(root["bounds"]["max"]);
  r.flows_written = root["flows"]["written"].get_uint64().value();
  r.flows_bound = root["flows"]["bound"].get_uint64().value();
  for (auto t : root["threads"].get_array())
    r.depth[{t["pid"].get_uint64().value(), t["tid"].get_uint64().value()}] = t["max_depth"].get_uint64().value();
  for (auto f : root["flows"]["pairs"].get_array()) {
    std::vector<std::tuple<std::uint64_t, std::uint64_t, double, std::string>> ends;
    for (auto e : f.get_array())
      ends.emplace_back(e["pid"].get_uint64().value(), e["tid"].get_uint64().value(), num(e["ts"]),
                        std::string(e["name"].get_string().value()));
    r.pairs.push_back(std::move(ends));
  }
  return r;
}

/// Everything the issue asks of a chrome file in the engine. Empty = all good.
inline std::vector<std::string> engine_findings(const engine_report& r, const parsed_trace& t) {
  std::vector<std::string> out;
  if (!r.fatal.empty()) {
    out.push_back("fatal: " + r.fatal);
    return out;
  }
  std::size_t x = 0, inst = 0, s = 0;
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& e : t.events) {
    if (e.ph == 'X' || e.ph == 'I') {
      // what JSON.parse and the engine compute: ts and dur as doubles, end = ts + dur
      const double ts = static_cast<double>(e.ts_ns - t.origin_ns) / 1000.0;
      const double end = ts + (e.ph == 'X' ? static_cast<double>(e.dur_ns) / 1000.0 : 0.0);
      lo = std::min(lo, ts);
      hi = std::max(hi, end);
    }
    x += e.ph == 'X';
    inst += e.ph == 'I';
    s += e.ph == 's';
  }
  if (r.x_written != x) out.push_back(fmt::format("engine saw {} X events, file has {}", r.x_written, x));
  if (r.slices_in_tracks != x) out.push_back(fmt::format("{} slices in thread tracks, {} X written", r.slices_in_tracks, x));
  if (r.instants_in_tracks != inst) out.push_back(fmt::format("{} instants in tracks, {} written", r.instants_in_tracks, inst));
  if (r.dropped != 0) out.push_back(fmt::format("{} slices dropped from the tree", r.dropped));
  const auto want = nesting_depths(t);
  if (want.size() != r.depth.size()) out.push_back(fmt::format("{} thread tracks, {} threads with slices", r.depth.size(), want.size()));
  for (const auto& [k, d] : want) {
    auto it = r.depth.find(k);
    const std::size_t got = it == r.depth.end() ? 0 : it->second;
    if (got != d) out.push_back(fmt::format("pid {} tid {}: engine depth {}, real depth {}", k.first, k.second, got, d));
  }
  if (x + inst > 0 && (r.bounds_min != lo || r.bounds_max != hi))
    out.push_back(fmt::format("bounds {} .. {}, expected {} .. {}", r.bounds_min, r.bounds_max, lo, hi));
  if (r.flows_written != s) out.push_back(fmt::format("engine counted {} flows, file has {} s events", r.flows_written, s));
  if (r.flows_bound != s) out.push_back(fmt::format("{} of {} flows bound", r.flows_bound, s));
  // Each bound flow joins the two slices where its s and f were written.
  // (pairs are compared unordered: the engine lists a flow's events in file order)
  using end_t = std::tuple<std::uint64_t, std::uint64_t, double>;
  std::set<std::pair<end_t, end_t>> written, bound;
  auto add = [](std::set<std::pair<end_t, end_t>>& to, end_t a, end_t b) {
    if (b < a) std::swap(a, b);
    to.emplace(a, b);
  };
  std::map<std::string, const trace_event*> starts;
  for (const auto& e : t.events)
    if (e.ph == 's') starts[e.cat + '\x1f' + e.name + '\x1f' + e.id] = &e;
  for (const auto& e : t.events) {
    if (e.ph != 'f') continue;
    auto it = starts.find(e.cat + '\x1f' + e.name + '\x1f' + e.id);
    if (it == starts.end()) continue;
    auto at = [&](const trace_event& fe) {
      return std::make_tuple(fe.pid, fe.tid, static_cast<double>(fe.ts_ns - t.origin_ns) / 1000.0);
    };
    add(written, at(*it->second), at(e));
  }
  for (const auto& p : r.pairs) {
    if (p.size() != 2) {
      out.push_back(fmt::format("a bound flow joins {} events", p.size()));
      continue;
    }
    add(bound, end_t{std::get<0>(p[0]), std::get<1>(p[0]), std::get<2>(p[0])},
        end_t{std::get<0>(p[1]), std::get<1>(p[1]), std::get<2>(p[1])});
  }
  if (written != bound) out.push_back("bound flows join other slices than the written s/f events");
  return out;
}

/// True when the DevTools engine cannot run here: the case is then reported
/// skipped (exit 77 under CTest) or fails when MSPROF_REQUIRE_ENGINE is set.
inline bool engine_skipped() {
  const std::string why = engine_unavailable();
  if (why.empty()) return false;
  if (std::getenv("MSPROF_REQUIRE_ENGINE")) {
    FAIL_CHECK("the DevTools trace engine is required (MSPROF_REQUIRE_ENGINE) but " << why);
    return true;
  }
  if (const char* code = std::getenv("MSPROF_SKIP_EXIT_CODE")) {
    std::fprintf(stderr, "skipped: %s\n", why.c_str());
    std::fflush(nullptr);
    std::_Exit(std::atoi(code));
  }
  MESSAGE("skipped (" << why << ")");
  return true;
}

/// Writes `text` to a file under the test binary dir and returns its path.
inline fs::path temp_file(const std::string& name, const std::string& text) {
  const fs::path dir = fs::path(MSPROF_TEST_BINARY_DIR) / "chrome_tmp";
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

}  // namespace chrome_testing

#endif  // MSPROF_TESTS_UNIT_CHROME_TRACE_TESTING_HPP
