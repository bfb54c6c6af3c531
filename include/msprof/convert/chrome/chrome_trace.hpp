// SPDX-License-Identifier: MIT
// The viewer-safe Chrome trace form of a timeline (docs/chrome-trace.md).
//
// msprof's exact timeline (convert/timeline.hpp) writes `ts` as strings, which
// Chrome DevTools accepts and then draws wrong. This writer takes the same
// normalized events (convert::trace_event) and writes what DevTools' trace
// engine and Perfetto load as intended:
//   {"traceEvents":[...],"displayTimeUnit":"ns","otherData":{...}}
// - ts/dur are numbers in µs with 3 decimals, relative to a time origin given in
//   otherData (the session start, unless an event starts at or before it);
// - slices are `X` only, strictly nested per thread *as the engine computes it*
//   (in doubles: end = ts + dur); a child that overlaps its parent is clamped,
//   and 1-ns trims fix the cases where ns -> µs rounding would break nesting;
//   every adjustment is counted in otherData;
// - flows are written only when DevTools can bind both ends: `s` at the start
//   of the host slice, `f` ("bp":"e") at the start of the device slice, both
//   with the category the two slices carry, `s` before `f` in the file;
// - above a configurable size the output is split into complete parts (at
//   step boundaries when steps are given), each with all metadata events.
//
// \code
//   auto events = msprof::convert::build_timeline(model);
//   msprof::convert::chrome::options opt;          // 256 MiB parts by default
//   auto r = msprof::convert::chrome::write(events, model.session.start_ns,
//                                           out_dir, "chrome_trace_20260101120000", opt);
//   if (!r) fail(r.err().what());
// \endcode
#ifndef MSPROF_CONVERT_CHROME_CHROME_TRACE_HPP
#define MSPROF_CONVERT_CHROME_CHROME_TRACE_HPP

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "../../core/error.hpp"
#include "../../version.hpp"
#include "../timeline.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {

/// How the chrome form is written.
struct options {
  /// Size guard: above this many bytes the trace is split into parts
  /// `<stem>_part<k>.json`, each at most this big (unless one event plus the
  /// metadata is bigger). DevTools cannot open JSON text over ~512 MiB at all.
  std::uint64_t max_part_bytes = std::uint64_t{256} << 20;
  /// Step start times (local ns, as trace_event::ts_ns). When given, parts are
  /// cut only at these times, unless a single step is bigger than a part.
  std::vector<std::int64_t> step_starts_ns;
  /// Category of slices that are not flow ends.
  std::string default_cat = "msprof";
};

/// What the writer did; also written into every part's otherData.
struct stats {
  std::size_t slices = 0;            ///< X events written
  std::size_t instants = 0;          ///< I events written
  std::size_t counters = 0;          ///< C events written
  std::size_t metadata = 0;          ///< M events (per part)
  std::size_t flows_written = 0;     ///< s/f pairs written
  std::size_t flows_unpaired = 0;    ///< an s without f or f without s in the input (dropped)
  std::size_t flows_unresolved = 0;  ///< no slice at a flow end (dropped)
  std::size_t flows_unbindable = 0;  ///< DevTools would bind it to another slice (dropped)
  std::size_t flows_cut = 0;         ///< ends in different parts (dropped)
  std::size_t clamped_overlap = 0;   ///< slices that ended after their parent: clamped to it
  std::size_t clamped_rounding = 0;  ///< slices trimmed by whole ns so double ts+dur keeps nesting
  std::size_t negative_dur = 0;      ///< negative durations written as 0
  std::size_t invalid_utf8 = 0;      ///< strings with invalid UTF-8 (bytes replaced by U+FFFD)
  std::size_t non_finite = 0;        ///< NaN/Inf argument values written as null
  std::size_t unsupported = 0;       ///< events of a phase this form does not carry (skipped)
  std::size_t renamed = 0;           ///< events named like a Chrome event DevTools parses (name + U+200B)
  std::size_t steps_split = 0;       ///< parts cut inside a step because one step was too big
  std::size_t max_depth = 0;         ///< deepest slice nesting on any thread (1 = roots only)
};

/// One written file.
struct part {
  std::string file_name;      ///< e.g. chrome_trace_20260101120000_part2.json
  std::string text;           ///< the JSON (render() only; empty after write())
  std::uint64_t bytes = 0;
  std::size_t events = 0;     ///< trace events in this part, metadata included
  std::int64_t first_ns = 0;  ///< first ts in the part (local ns), 0 if none
  std::int64_t last_ns = 0;   ///< last ts + dur in the part (local ns)
};

/// The result of render()/write().
struct output {
  std::vector<part> parts;     ///< one, or the numbered parts in time order
  std::string note_file;       ///< the parts list, written next to them (only with parts)
  std::string note;            ///< its text
  std::int64_t origin_ns = 0;  ///< local ns of ts 0.000
  stats totals;
};

namespace detail {

inline constexpr std::uint32_t npos32 = std::numeric_limits<std::uint32_t>::max();

/// Event names DevTools' trace engine handles specially (its Types.Events.Name
/// values of @paulirish/trace_engine 0.0.65 plus the metadata names), sorted.
/// A slice, counter or flow with one of these names makes DevTools read
/// Chrome-specific args or treat the trace as a browser recording: the whole
/// trace then fails to load or shows nothing (tests/js/selftest.mjs). Such
/// events are written with U+200B (zero-width space) appended, which looks
/// the same. test_chrome checks that this list covers the engine's.
inline constexpr std::string_view reserved_names[] = {
    "AbortPostTaskCallback", "ActivateLayerTree", "Animation", "AnimationFrame",
    "AnimationFrame::Presentation", "AsyncTask", "BeginCommitCompositorFrame", "BeginFrame",
    "BeginMainThreadFrame", "BeginRemoteFontLoad", "BlinkGC.AtomicPhase", "CancelAnimationFrame",
    "CancelIdleCallback", "Commit", "CommitLoad", "CompositeLayers", "ComputeIntersections", "ConsoleTime",
    "CppGC.IncrementalSweep", "CpuProfile", "CpuProfiler::StartProfiling", "Decode Image",
    "Decode LazyPixelRef", "DoDecrypt", "DoDecryptReply", "DoDigest", "DoDigestReply", "DoEncrypt",
    "DoEncryptReply", "DoSign", "DoSignReply", "DoVerify", "DoVerifyReply", "Draw LazyPixelRef", "DrawFrame",
    "DroppedFrame", "EmbedderCallback", "EvaluateScript", "EventDispatch", "EventTiming", "FireAnimationFrame",
    "FireIdleCallback", "FrameStartedLoading", "FunctionCall", "GCEvent", "GPUTask", "HandlePostMessage",
    "HitTest", "ImageDecodeTask", "ImageUploadTask", "InputHandlerProxy::HandleGestureFling::started",
    "InputLatency::MouseMove", "InputLatency::MouseWheel", "InteractiveTime", "InvalidateLayout", "JSSample",
    "JitCodeAdded", "JitCodeMoved", "Layerize", "Layout", "LayoutImageUnsized", "LayoutInvalidationTracking",
    "LayoutShift", "LazyPixelRef", "LinkPreconnect", "MajorGC", "MarkDOMContent", "MarkLoad",
    "MetaCharsetCheck", "MinorGC", "NeedsBeginFrameChanged", "Paint", "PaintImage", "PaintSetup",
    "ParseAuthorStyleSheet", "ParseHTML", "ParseMetaViewport", "PipelineReporter", "PrePaint",
    "PreloadRenderBlockingStatusChange", "Profile", "ProfileCall", "ProfileChunk", "Program", "RasterTask",
    "Rasterize", "RemoteFontLoaded", "RenderFrameImpl::createChildFrame", "RequestAnimationFrame",
    "RequestIdleCallback", "RequestMainThreadFrame", "ResourceFinish", "ResourceMarkAsCached",
    "ResourceReceiveResponse", "ResourceReceivedData", "ResourceSendRequest", "ResourceWillSendRequest",
    "RunMicrotasks", "RunPostTaskCallback", "RunTask", "SchedulePostMessage", "SchedulePostTaskCallback",
    "ScheduleStyleInvalidationTracking", "ScheduleStyleRecalculation", "Screenshot", "ScrollLayer",
    "SelectorStats", "SetLayerTreeId", "SoftNavigationStart", "StyleInvalidatorInvalidationTracking",
    "StyleRecalcInvalidationTracking", "SyntheticLayoutShift", "SyntheticLayoutShiftCluster",
    "SyntheticNetworkRequest", "TimeStamp", "TimerFire", "TimerInstall", "TimerRemove",
    "TracingSessionIdForWorker", "TracingStartedInBrowser", "TracingStartedInPage", "UpdateCounters",
    "UpdateLayer", "UpdateLayerTree", "UpdateLayoutTree", "UserTiming", "UserTiming::Measure",
    "V8.CompileCode", "V8.CompileModule", "V8.CompileScript", "V8.Execute", "V8.FinalizeDeserialization",
    "V8.OptimizeCode", "V8Console::runTask", "V8Sample", "WebSocketCreate", "WebSocketDestroy",
    "WebSocketReceive", "WebSocketReceiveHandshakeResponse", "WebSocketSend", "WebSocketSendHandshakeRequest",
    "XHRLoad", "XHRReadyStateChange", "cc::DisplayItemList", "cc::LayerTreeHostImpl", "cc::Picture",
    "domLoading", "firstContentfulPaint", "firstPaint", "largestContentfulPaint::Candidate",
    "largestContentfulPaint::CandidateForSoftNavigation", "largestContentfulPaint::Invalidate",
    "navigationStart", "process_labels", "process_name", "process_sort_index", "thread_name",
    "thread_sort_index", "v8.compile", "v8.deserializeOnBackground", "v8.evaluateModule",
    "v8.parseOnBackground", "v8.parseOnBackgroundParsing", "v8.parseOnBackgroundWaiting", "v8.produceCache",
    "v8.produceModuleCache", "v8.wasm.cachedModule", "v8.wasm.compiledModule", "v8.wasm.moduleCacheHit",
    "v8.wasm.moduleCacheInvalid", "v8.wasm.streamFromResponseCallback", "v8::Debugger::AsyncTaskRun",
    "v8::Debugger::AsyncTaskScheduled"
};

inline bool is_reserved_name(std::string_view n) noexcept {
  return std::binary_search(std::begin(reserved_names), std::end(reserved_names), n);
}

/// Reserved, or ending in "::UMA" (the engine leaves those out of the trace bounds).
inline bool needs_name_suffix(std::string_view n) noexcept {
  constexpr std::string_view uma = "::UMA";
  return is_reserved_name(n) || (n.size() >= uma.size() && n.substr(n.size() - uma.size()) == uma);
}

inline constexpr std::string_view zero_width_space = "\xE2\x80\x8B";

template <class Int>
inline void append_int(std::string& out, Int v) {
  const fmt::format_int f(v);
  out.append(f.data(), f.size());
}

/// µs with 3 decimals from non-negative ns, exactly (no floating point).
inline void append_us3(std::string& out, std::int64_t ns) {
  const auto u = static_cast<std::uint64_t>(ns);
  append_int(out, u / 1000u);
  const auto frac = static_cast<unsigned>(u % 1000u);
  const char digits[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                          static_cast<char>('0' + frac % 10)};
  out.append(digits, 4);
}

/// What a JavaScript JSON.parse makes of append_us3(ns): the nearest double.
/// ns < 2^53 is exact as a double and IEEE division rounds correctly.
inline double js_us(std::int64_t ns) noexcept { return static_cast<double>(ns) / 1000.0; }

/// A JSON string literal; invalid UTF-8 is replaced by U+FFFD (and counted),
/// so every viewer decodes the file the same way.
inline void append_string(std::string& out, std::string_view v, std::size_t& invalid) {
  out += '"';
  bool bad = false;
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n;) {
    // Fast path: a run of printable ASCII that needs no escape.
    std::size_t j = i;
    while (j < n && p[j] >= 0x20 && p[j] < 0x80 && p[j] != '"' && p[j] != '\\') ++j;
    if (j != i) {
      out.append(v.data() + i, j - i);
      i = j;
      if (i == n) break;
    }
    const unsigned c = p[i];
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          if (c < 0x20) {
            fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // Multi-byte sequence: check length, continuation bytes, overlongs, surrogates.
    std::size_t len = 0;
    std::uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    }
    bool ok = len != 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) {
      ok = (p[i + k] & 0xC0) == 0x80;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if (ok) {
      ok = !(len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) && !(len == 4 && (cp < 0x10000 || cp > 0x10FFFF));
    }
    if (ok) {
      out.append(v.data() + i, len);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      bad = true;
      ++i;
    }
  }
  out += '"';
  if (bad) ++invalid;
}

inline void append_args(std::string& out, const std::vector<trace_arg>& args, stats& st) {
  out += '{';
  bool first = true;
  for (const auto& a : args) {
    if (!first) out += ',';
    first = false;
    append_string(out, a.key, st.invalid_utf8);
    out += ':';
    switch (a.k) {
      case trace_arg::kind::integer: append_int(out, a.i); break;
      case trace_arg::kind::real:
        if (std::isfinite(a.d)) {
          fmt::format_to(std::back_inserter(out), "{}", a.d);
        } else {
          out += "null";
          ++st.non_finite;
        }
        break;
      case trace_arg::kind::string: append_string(out, a.s, st.invalid_utf8); break;
    }
  }
  out += '}';
}

/// A flow that will be written: event indices of its two slices and its category.
struct flow_ref {
  std::uint32_t host = 0;    ///< slice the `s` binds to
  std::uint32_t device = 0;  ///< slice the `f` binds to
  std::uint32_t s_event = 0; ///< the input `s` event (name, id)
  std::uint32_t cat = 0;     ///< index into plan::cats
};

/// Everything decided before writing a byte.
struct plan {
  const std::vector<trace_event>* ev = nullptr;
  std::int64_t origin_ns = 0;
  std::vector<std::int64_t> dur;      ///< written duration per event (X)
  std::vector<std::uint32_t> cat;     ///< category per event (X/I), index into cats
  std::vector<std::string> cats;      ///< [0] = options::default_cat
  std::vector<std::uint32_t> order;   ///< X, I and C events in write order (time order)
  std::vector<std::uint32_t> meta;    ///< M events, input order
  std::vector<flow_ref> flows;
  stats st;
};

inline bool is_slice_phase(char ph) noexcept { return ph == 'X' || ph == 'I' || ph == 'i'; }

inline std::int64_t end_ns(const plan& p, std::uint32_t i) { return (*p.ev)[i].ts_ns + p.dur[i]; }

/// Per thread: clamp overlaps (integer ns), then simulate DevTools' tree
/// builder in doubles and trim by whole ns until it agrees, so the engine keeps
/// every slice at the depth the ns data gives it. Returns false if it did not
/// converge (it always has in tests; the bound is a guard against a bug).
inline bool nest_thread(plan& p, const std::uint32_t* idx, std::size_t n, std::vector<std::uint8_t>& flags) {
  const auto& ev = *p.ev;
  std::vector<std::uint32_t> stack;
  enum : std::uint8_t { overlap = 1, rounding = 2 };
  for (int round = 0; round < 64; ++round) {
    // 1. Integer pass: a child ends no later than its parent.
    stack.clear();
    std::size_t depth = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint32_t i = idx[k];
      const std::int64_t s = ev[i].ts_ns;
      while (!stack.empty() && end_ns(p, stack.back()) <= s) stack.pop_back();
      if (!stack.empty() && end_ns(p, i) > end_ns(p, stack.back())) {
        p.dur[i] = end_ns(p, stack.back()) - s;
        flags[i] |= round == 0 ? overlap : rounding;
      }
      stack.push_back(i);
      depth = std::max(depth, stack.size());
    }
    // 2. Double pass: what the engine computes (TreeHelpers.treify) on the
    //    numbers JSON.parse will produce. Trim where it disagrees.
    bool changed = false;
    stack.clear();
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint32_t i = idx[k];
      const double b = js_us(ev[i].ts_ns - p.origin_ns);
      const double e = b + js_us(p.dur[i]);
      bool push = true;
      while (!stack.empty()) {
        const std::uint32_t t = stack.back();
        const double tb = js_us(ev[t].ts_ns - p.origin_ns);
        const double te = tb + js_us(p.dur[t]);
        if (end_ns(p, t) <= ev[i].ts_ns) {
          // ns: t ended before i starts. The engine must see that too.
          if (b < te) {
            --p.dur[t];  // t's rounded end reaches past i's start
            flags[t] |= rounding;
            changed = true;
          }
          stack.pop_back();
          continue;
        }
        // ns: i starts inside t. Below 2^50 ns the rounding error of ts + dur
        // is under 0.4 ns, so the engine agrees; anything else is a bug.
        if (b >= te) return false;
        if (e > te) {  // ns: i inside t, but its rounded end is past t's
          --p.dur[i];
          flags[i] |= rounding;
          changed = true;
          push = false;
        }
        break;
      }
      if (push) stack.push_back(i);
    }
    if (!changed) {
      p.st.max_depth = std::max(p.st.max_depth, depth);
      return true;
    }
  }
  return false;
}

/// Finds the slice a flow end binds to on (pid, tid) at ts: a slice starting
/// there (the one whose connection_id matches, else the innermost), else the
/// innermost slice enclosing ts. `thread` holds that thread's X events in
/// nesting order.
inline std::uint32_t find_flow_slice(const plan& p, const std::uint32_t* thread, std::size_t n, std::int64_t ts,
                                     std::uint64_t conn) {
  const auto& ev = *p.ev;
  const std::uint32_t* first =
      std::lower_bound(thread, thread + n, ts, [&](std::uint32_t i, std::int64_t v) { return ev[i].ts_ns < v; });
  std::uint32_t best = npos32;
  for (const std::uint32_t* it = first; it != thread + n && ev[*it].ts_ns == ts; ++it) {
    if (ev[*it].ph != 'X') continue;
    for (const auto& a : ev[*it].args) {
      if (a.key == "connection_id" && a.k == trace_arg::kind::integer && conn != 0 &&
          static_cast<std::uint64_t>(a.i) == conn)
        return *it;
    }
    best = *it;  // later = nested deeper
  }
  if (best != npos32) return best;
  // Innermost enclosing slice among the last starts before ts. The scan is
  // bounded so that flows pointing at nothing cannot make this quadratic.
  std::size_t budget = 256;
  for (const std::uint32_t* it = first; it != thread && budget-- > 0;) {
    --it;
    if (ev[*it].ph == 'X' && end_ns(p, *it) > ts) return *it;
  }
  return npos32;
}

inline std::uint64_t parse_u64(std::string_view s) noexcept {
  std::uint64_t v = 0;
  if (s.empty()) return 0;
  for (char c : s) {
    if (c < '0' || c > '9' || v > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) return 0;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

inline std::uint32_t intern_cat(plan& p, const std::string& c) {
  for (std::size_t k = 0; k < p.cats.size(); ++k)
    if (p.cats[k] == c) return static_cast<std::uint32_t>(k);
  p.cats.push_back(c);
  return static_cast<std::uint32_t>(p.cats.size() - 1);
}

inline result<plan> make_plan(const std::vector<trace_event>& ev, std::int64_t session_start_ns, const options& opt) {
  plan p;
  p.ev = &ev;
  if (ev.size() >= npos32) return make_error(errc::limit, "chrome trace: more than 4 Gi events");
  p.dur.assign(ev.size(), 0);
  p.cat.assign(ev.size(), 0);
  p.cats.push_back(opt.default_cat);

  // Time origin: the session start, unless a slice starts at or before it
  // (DevTools leaves ts == 0 out of the trace bounds, so no slice sits at 0) or
  // a counter before it (nothing is negative).
  constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
  std::int64_t min_slice = none, min_counter = none;
  std::int64_t max_ts = std::numeric_limits<std::int64_t>::min();
  std::vector<std::uint32_t> slices;  // X and I events
  for (std::size_t k = 0; k < ev.size(); ++k) {
    const auto& e = ev[k];
    const auto i = static_cast<std::uint32_t>(k);
    if (is_slice_phase(e.ph) || e.ph == 'C') {
      std::int64_t d = e.ph == 'X' ? e.dur_ns : 0;
      if (d < 0) {
        ++p.st.negative_dur;
        d = 0;
      }
      p.dur[i] = d;
      if (is_slice_phase(e.ph)) {
        slices.push_back(i);
        min_slice = std::min(min_slice, e.ts_ns);
      } else {
        min_counter = std::min(min_counter, e.ts_ns);
      }
      max_ts = std::max(max_ts, e.ts_ns + d);
    } else if (e.ph == 'M') {
      p.meta.push_back(i);
    } else if (e.ph != 's' && e.ph != 'f') {
      ++p.st.unsupported;
    }
  }
  p.origin_ns = session_start_ns;
  if ((min_slice != none && min_slice <= session_start_ns) || (min_counter != none && min_counter < session_start_ns)) {
    p.origin_ns = std::min(min_slice == none ? none : min_slice - 1000, min_counter);
    p.origin_ns -= ((p.origin_ns % 1000) + 1000) % 1000;  // a whole µs, for readable numbers
  }
  // Relative times must stay far below the precision of a double: under
  // 2^50 ns (13 days) ts + dur is off by less than 0.4 ns, which keeps the
  // engine's comparisons exact for anything 1 ns apart.
  if (max_ts != std::numeric_limits<std::int64_t>::min() && max_ts - p.origin_ns >= (std::int64_t{1} << 50))
    return make_error(errc::limit, fmt::format("chrome trace: events span {} ns after the time origin; the chrome form "
                                               "holds at most 2^50 ns (13 days)",
                                               max_ts - p.origin_ns));

  // Per-thread nesting order: start, longer first, input order. Sorted on a
  // compact copy of the keys: the events themselves are large and scattered.
  {
    struct key {
      std::uint64_t pid, tid;
      std::int64_t ts, neg_dur;
      std::uint32_t index;
    };
    std::vector<key> keys;
    keys.reserve(slices.size());
    for (auto i : slices) keys.push_back({ev[i].pid, ev[i].tid, ev[i].ts_ns, -p.dur[i], i});
    std::sort(keys.begin(), keys.end(), [](const key& a, const key& b) {
      return std::tie(a.pid, a.tid, a.ts, a.neg_dur, a.index) < std::tie(b.pid, b.tid, b.ts, b.neg_dur, b.index);
    });
    for (std::size_t k = 0; k < keys.size(); ++k) slices[k] = keys[k].index;
  }
  struct thread_run {
    std::uint64_t pid, tid;
    std::size_t begin, end;
  };
  std::vector<thread_run> threads;
  std::vector<std::uint8_t> flags(ev.size(), 0);
  for (std::size_t b = 0; b < slices.size();) {
    std::size_t e = b;
    while (e < slices.size() && ev[slices[e]].pid == ev[slices[b]].pid && ev[slices[e]].tid == ev[slices[b]].tid) ++e;
    threads.push_back({ev[slices[b]].pid, ev[slices[b]].tid, b, e});
    if (!nest_thread(p, slices.data() + b, e - b, flags))
      return make_error(errc::unsupported, fmt::format("chrome trace: nesting on pid {} tid {} did not settle",
                                                       ev[slices[b]].pid, ev[slices[b]].tid));
    b = e;
  }
  for (auto f : flags) {
    if (f & 1) ++p.st.clamped_overlap;
    if (f & 2) ++p.st.clamped_rounding;
  }

  // Flows: pair s with f by (cat, name, id) in input order, as DevTools does.
  // Each key holds a chain of its s events (next_s) not yet paired.
  struct flow_key {
    std::string_view cat, name, id;
    bool operator==(const flow_key& o) const noexcept { return cat == o.cat && name == o.name && id == o.id; }
  };
  struct flow_key_hash {
    std::size_t operator()(const flow_key& k) const noexcept {
      const std::hash<std::string_view> h;
      std::size_t seed = h(k.id);
      for (std::size_t v : {h(k.name), h(k.cat)}) seed ^= v + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2);
      return seed;
    }
  };
  std::unordered_map<flow_key, std::pair<std::uint32_t, std::uint32_t>, flow_key_hash> open;  // head, tail
  open.reserve(ev.size() / 8 + 16);
  std::vector<std::uint32_t> next_s(ev.size(), npos32);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (std::size_t k = 0; k < ev.size(); ++k) {
    const auto& e = ev[k];
    if (e.ph != 's') continue;
    const auto i = static_cast<std::uint32_t>(k);
    auto [it, fresh] = open.try_emplace(flow_key{e.cat, e.name, e.id}, i, i);
    if (!fresh) {
      if (it->second.first == npos32) {
        it->second.first = i;
      } else {
        next_s[it->second.second] = i;
      }
      it->second.second = i;
    }
  }
  for (std::size_t k = 0; k < ev.size(); ++k) {
    const auto& e = ev[k];
    if (e.ph != 'f') continue;
    auto it = open.find(flow_key{e.cat, e.name, e.id});
    if (it == open.end() || it->second.first == npos32) {
      ++p.st.flows_unpaired;
      continue;
    }
    pairs.emplace_back(it->second.first, static_cast<std::uint32_t>(k));
    it->second.first = next_s[it->second.first];
  }
  for (const auto& kv : open)
    for (std::uint32_t i = kv.second.first; i != npos32; i = next_s[i]) ++p.st.flows_unpaired;

  auto thread_of = [&](std::uint64_t pid, std::uint64_t tid) -> const thread_run* {
    auto it = std::lower_bound(threads.begin(), threads.end(), std::make_pair(pid, tid),
                               [](const thread_run& r, const std::pair<std::uint64_t, std::uint64_t>& v) {
                                 return std::make_pair(r.pid, r.tid) < v;
                               });
    return it != threads.end() && it->pid == pid && it->tid == tid ? &*it : nullptr;
  };
  std::vector<std::uint8_t> is_end(ev.size(), 0);
  std::vector<flow_ref> candidates;
  for (const auto& [si, fi] : pairs) {
    const auto& s = ev[si];
    const auto& f = ev[fi];
    const std::uint64_t id = parse_u64(s.id);
    const std::uint64_t conn = s.cat == "HostToDevice" ? id >> 32 : id;
    const thread_run* hs = thread_of(s.pid, s.tid);
    const thread_run* ds = thread_of(f.pid, f.tid);
    const std::uint32_t host = hs ? find_flow_slice(p, slices.data() + hs->begin, hs->end - hs->begin, s.ts_ns, conn) : npos32;
    const std::uint32_t dev = ds ? find_flow_slice(p, slices.data() + ds->begin, ds->end - ds->begin, f.ts_ns, conn) : npos32;
    if (host == npos32 || dev == npos32 || host == dev) {
      ++p.st.flows_unresolved;
      continue;
    }
    const std::uint32_t c = intern_cat(p, s.cat);
    // A slice carries one category; a flow needs its category on both ends.
    bool ok = true;
    for (std::uint32_t sl : {host, dev})
      if (is_end[sl] && p.cat[sl] != c) ok = false;
    if (!ok || c == 0) {
      ++p.st.flows_unbindable;
      continue;
    }
    for (std::uint32_t sl : {host, dev}) {
      is_end[sl] = 1;
      p.cat[sl] = c;
    }
    candidates.push_back({host, dev, si, c});
  }
  // DevTools binds a flow end to the first event in the file with the same
  // (ts, pid, tid, cat). Slices that are not flow ends keep the default
  // category, so only two flow ends of one category starting together on one
  // thread can collide; the later one's flows are dropped.
  std::vector<std::uint8_t> shadowed(ev.size(), 0);
  for (const auto& r : threads) {
    for (std::size_t k = r.begin; k < r.end; ++k) {
      const std::uint32_t i = slices[k];
      if (!is_end[i]) continue;
      for (std::size_t j = k; j-- > r.begin && ev[slices[j]].ts_ns == ev[i].ts_ns;) {
        if (p.cat[slices[j]] == p.cat[i] && (ev[slices[j]].ph == 'X' || ev[slices[j]].ph == 'I' || ev[slices[j]].ph == 'i')) {
          shadowed[i] = 1;
          break;
        }
      }
    }
  }
  for (const auto& fr : candidates) {
    if (shadowed[fr.host] || shadowed[fr.device]) {
      ++p.st.flows_unbindable;
    } else {
      p.flows.push_back(fr);
    }
  }

  // Write order: time, then the per-thread nesting order (parents first),
  // counters after slices of the same time, in input order.
  {
    struct key {
      std::int64_t ts;
      std::uint64_t rank;  // slices: position in nesting order; counters: 2^32 + input index
      std::uint32_t index;
    };
    std::vector<key> keys;
    keys.reserve(slices.size() + 16);
    for (std::size_t k = 0; k < slices.size(); ++k) keys.push_back({ev[slices[k]].ts_ns, k, slices[k]});
    for (std::size_t k = 0; k < ev.size(); ++k)
      if (ev[k].ph == 'C') keys.push_back({ev[k].ts_ns, (std::uint64_t{1} << 32) + k, static_cast<std::uint32_t>(k)});
    std::sort(keys.begin(), keys.end(),
              [](const key& a, const key& b) { return a.ts < b.ts || (a.ts == b.ts && a.rank < b.rank); });
    p.order.resize(keys.size());
    for (std::size_t k = 0; k < keys.size(); ++k) p.order[k] = keys[k].index;
  }
  return p;
}

/// A slice/counter/flow name; reserved Chrome names get U+200B appended.
inline void append_name(std::string& out, const std::string& name, stats& st) {
  if (!needs_name_suffix(name)) {
    append_string(out, name, st.invalid_utf8);
    return;
  }
  ++st.renamed;
  std::string n = name;
  n += zero_width_space;
  append_string(out, n, st.invalid_utf8);
}

/// Encodes one X/I/C event (no separator).
inline void encode_event(std::string& out, const plan& p, std::uint32_t i, stats& st) {
  const auto& e = (*p.ev)[i];
  out += "{\"name\":";
  append_name(out, e.name, st);
  if (e.ph != 'C') {
    out += ",\"cat\":";
    append_string(out, p.cats[p.cat[i]], st.invalid_utf8);
  }
  out += e.ph == 'X' ? ",\"ph\":\"X\"" : e.ph == 'C' ? ",\"ph\":\"C\"" : ",\"ph\":\"I\",\"s\":\"t\"";
  out += ",\"pid\":";
  append_int(out, e.pid);
  out += ",\"tid\":";
  append_int(out, e.tid);
  out += ",\"ts\":";
  append_us3(out, e.ts_ns - p.origin_ns);
  if (e.ph == 'X') {
    out += ",\"dur\":";
    append_us3(out, p.dur[i]);
  }
  if (!e.args.empty() || e.ph == 'C') {
    out += ",\"args\":";
    append_args(out, e.args, st);
  }
  out += '}';
}

/// Encodes an M event; every M has args (DevTools fails the trace without).
inline void encode_meta(std::string& out, const plan& p, std::uint32_t i, stats& st) {
  const auto& e = (*p.ev)[i];
  out += "{\"name\":";
  append_string(out, e.name, st.invalid_utf8);
  out += ",\"ph\":\"M\",\"pid\":";
  append_int(out, e.pid);
  out += ",\"tid\":";
  append_int(out, e.tid);
  out += ",\"args\":";
  append_args(out, e.args, st);
  out += '}';
}

/// Encodes the s and f events of a flow, joined by ",\n".
inline void encode_flow(std::string& out, const plan& p, const flow_ref& f, stats& st) {
  const auto& ev = *p.ev;
  const auto& s = ev[f.s_event];
  for (int end = 0; end < 2; ++end) {
    const auto& sl = ev[end == 0 ? f.host : f.device];
    if (end == 1) out += ",\n";
    out += "{\"name\":";
    append_name(out, s.name, st);
    out += ",\"cat\":";
    append_string(out, p.cats[f.cat], st.invalid_utf8);
    out += end == 0 ? ",\"ph\":\"s\"" : ",\"ph\":\"f\",\"bp\":\"e\"";
    out += ",\"id\":";
    append_string(out, s.id, st.invalid_utf8);
    out += ",\"pid\":";
    append_int(out, sl.pid);
    out += ",\"tid\":";
    append_int(out, sl.tid);
    out += ",\"ts\":";
    append_us3(out, sl.ts_ns - p.origin_ns);
    out += '}';
  }
}

inline std::string other_data(const plan& p, const stats& st, std::int64_t session_start_ns, std::size_t part_no,
                              const std::vector<std::string>& names) {
  std::string o;
  std::size_t ignore = 0;
  fmt::format_to(std::back_inserter(o),
                 "{{\"generator\":\"msprof {}\",\"form\":\"chrome\",\"session_start_ns\":\"{}\","
                 "\"ts_origin_ns\":\"{}\",\"ts_unit\":\"us after ts_origin_ns\"",
                 MSPROF_VERSION_STRING, session_start_ns, p.origin_ns);
  const std::pair<const char*, std::size_t> counts[] = {
      {"slices", st.slices},
      {"instants", st.instants},
      {"counters", st.counters},
      {"flows_written", st.flows_written},
      {"flows_unpaired", st.flows_unpaired},
      {"flows_unresolved", st.flows_unresolved},
      {"flows_unbindable", st.flows_unbindable},
      {"flows_cut", st.flows_cut},
      {"clamped_overlap", st.clamped_overlap},
      {"clamped_rounding", st.clamped_rounding},
      {"negative_dur", st.negative_dur},
      {"invalid_utf8", st.invalid_utf8},
      {"non_finite", st.non_finite},
      {"unsupported", st.unsupported},
      {"renamed", st.renamed},
      {"steps_split", st.steps_split},
      {"max_depth", st.max_depth}};
  for (const auto& [k, v] : counts) fmt::format_to(std::back_inserter(o), ",\"{}\":{}", k, v);
  if (names.size() > 1) {
    fmt::format_to(std::back_inserter(o), ",\"part\":{},\"parts\":[", part_no + 1);
    for (std::size_t k = 0; k < names.size(); ++k) {
      if (k) o += ',';
      append_string(o, names[k], ignore);
    }
    o += ']';
  }
  o += '}';
  return o;
}

inline constexpr std::string_view head = "{\"traceEvents\":[\n";
inline constexpr std::string_view tail_open = "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":";
inline constexpr std::string_view tail_close = "}\n";

/// A part's event range in plan::order.
struct cut {
  std::size_t begin = 0, end = 0;
};

/// Splits plan::order into parts of at most `budget` bytes of events
/// (cost[k] = bytes of order[k] and the flows that close there).
inline std::vector<cut> cut_parts(const plan& p, const std::vector<std::uint64_t>& cost, std::uint64_t budget,
                                  const options& opt, std::size_t& steps_split) {
  const auto& ev = *p.ev;
  std::vector<cut> parts;
  std::vector<std::int64_t> steps = opt.step_starts_ns;
  std::sort(steps.begin(), steps.end());
  // is_boundary[k]: order[k] is the first event of a step.
  std::vector<std::uint8_t> is_boundary(p.order.size(), 0);
  {
    std::size_t s = 0;
    for (std::size_t k = 0; k < p.order.size(); ++k) {
      const std::int64_t ts = ev[p.order[k]].ts_ns;
      bool crossed = false;
      while (s < steps.size() && steps[s] <= ts) {
        ++s;
        crossed = true;
      }
      if (crossed) is_boundary[k] = 1;
    }
  }
  std::size_t begin = 0, last_boundary = 0;
  std::uint64_t acc = 0;
  for (std::size_t k = 0; k < p.order.size(); ++k) {
    if (is_boundary[k]) last_boundary = k;
    if (acc + cost[k] > budget && k > begin) {
      std::size_t at = k;
      if (!steps.empty()) {
        if (last_boundary > begin) {
          at = last_boundary;
        } else {
          ++steps_split;
        }
      }
      parts.push_back({begin, at});
      begin = at;
      acc = 0;
      for (std::size_t j = at; j < k; ++j) acc += cost[j];
    }
    acc += cost[k];
  }
  parts.push_back({begin, p.order.size()});
  return parts;
}

/// Renders everything, handing each part's bytes to `sink(part_index, chunk)`.
/// `names` receives the file names. The sink returns false to stop (I/O error).
template <class Sink>
result<output> render_to(const std::vector<trace_event>& ev, std::int64_t session_start_ns, std::string_view stem,
                         const options& opt, Sink&& sink) {
  auto planned = make_plan(ev, session_start_ns, opt);
  if (!planned) return planned.err();
  plan& p = *planned;
  stats& st = p.st;

  // Sizes of everything, so parts can be planned before writing.
  std::string buf;
  std::uint64_t meta_bytes = 0;
  for (auto i : p.meta) {
    buf.clear();
    encode_meta(buf, p, i, st);
    meta_bytes += buf.size() + 2;
  }
  // While everything may still fit in one file, the encoded events are kept
  // (",\n"-separated) so a single-file trace is encoded only once.
  std::string body;
  bool keep_body = true;
  auto measure = [&](auto&& encode) -> std::uint64_t {
    if (keep_body) {
      const std::size_t before = body.size();
      body += ",\n";
      encode(body);
      const std::uint64_t n = body.size() - before;
      if (meta_bytes + body.size() > opt.max_part_bytes) {
        keep_body = false;
        std::string().swap(body);
      }
      return n;
    }
    buf.clear();
    encode(buf);
    return buf.size() + 2;
  };
  std::vector<std::uint32_t> pos(ev.size(), 0);
  std::vector<std::uint64_t> cost(p.order.size(), 0);
  std::uint64_t total = 0;
  for (std::size_t k = 0; k < p.order.size(); ++k) {
    pos[p.order[k]] = static_cast<std::uint32_t>(k);
    cost[k] = measure([&](std::string& o) { encode_event(o, p, p.order[k], st); });
    total += cost[k];
  }
  for (std::size_t k = 0; k < p.flows.size(); ++k) {
    const std::uint64_t n = measure([&](std::string& o) { encode_flow(o, p, p.flows[k], st); });
    cost[std::max(pos[p.flows[k].host], pos[p.flows[k].device])] += n;
    total += n;
  }
  const stats counted = st;  // the sizing pass counted strings once; the write pass must not add again

  // Plan parts; grow the reserve for otherData until every part fits.
  const std::uint64_t fixed = head.size() + tail_open.size() + tail_close.size() + meta_bytes;
  std::vector<cut> cuts;
  std::vector<std::string> names;
  std::uint64_t reserve = 1024;
  std::size_t steps_split = 0;
  for (int attempt = 0;; ++attempt) {
    std::uint64_t whole = fixed + total + reserve;
    if (whole <= opt.max_part_bytes) {
      cuts = {{0, p.order.size()}};
    } else {
      if (opt.max_part_bytes <= fixed + reserve)
        return make_error(errc::limit, fmt::format("chrome trace: a part of at most {} bytes cannot hold the {} bytes "
                                                   "of metadata every part needs",
                                                   opt.max_part_bytes, fixed + reserve));
      steps_split = 0;
      cuts = cut_parts(p, cost, opt.max_part_bytes - fixed - reserve, opt, steps_split);
    }
    names.clear();
    if (cuts.size() == 1) {
      names.push_back(std::string(stem) + ".json");
    } else {
      for (std::size_t k = 0; k < cuts.size(); ++k) names.push_back(fmt::format("{}_part{}.json", stem, k + 1));
    }
    std::uint64_t need = 0;
    stats probe = counted;
    probe.steps_split = steps_split;
    for (std::size_t k = 0; k < cuts.size(); ++k)
      need = std::max<std::uint64_t>(need, other_data(p, probe, session_start_ns, k, names).size() + 64);
    if (need <= reserve || attempt == 8) break;
    reserve = need;
  }

  // Which part each event lands in; flows need both ends in one part.
  std::vector<std::uint32_t> part_of_pos(p.order.size(), 0);
  for (std::size_t k = 0; k < cuts.size(); ++k)
    for (std::size_t j = cuts[k].begin; j < cuts[k].end; ++j) part_of_pos[j] = static_cast<std::uint32_t>(k);
  std::vector<std::vector<std::uint32_t>> flows_in(cuts.size());
  stats final_st = counted;
  final_st.steps_split = steps_split;
  for (std::size_t k = 0; k < p.flows.size(); ++k) {
    const auto a = part_of_pos[pos[p.flows[k].host]], b = part_of_pos[pos[p.flows[k].device]];
    if (a != b) {
      ++final_st.flows_cut;
    } else {
      flows_in[a].push_back(static_cast<std::uint32_t>(k));
      ++final_st.flows_written;
    }
  }
  for (auto i : p.order) {
    const char ph = ev[i].ph;
    if (ph == 'X') ++final_st.slices;
    else if (ph == 'C') ++final_st.counters;
    else ++final_st.instants;
  }
  final_st.metadata = p.meta.size();

  output out;
  out.origin_ns = p.origin_ns;
  out.totals = final_st;
  stats scratch;  // string counters were taken in the sizing pass
  scratch.max_depth = 0;
  for (std::size_t k = 0; k < cuts.size(); ++k) {
    part pt;
    pt.file_name = names[k];
    std::uint64_t bytes = 0;
    std::size_t events = 0;
    auto emit = [&](std::string& chunk) -> bool {
      bytes += chunk.size();
      const bool ok = sink(k, std::string_view(chunk));
      chunk.clear();
      return ok;
    };
    buf.assign(head);
    bool first = true;
    auto sep = [&] {
      if (!first) buf += ",\n";
      first = false;
      ++events;
    };
    for (auto i : p.meta) {
      sep();
      encode_meta(buf, p, i, scratch);
    }
    const bool from_body = keep_body && cuts.size() == 1;
    if (from_body && !body.empty()) {
      // everything was encoded in the sizing pass: hand it over as it is
      if (!emit(buf)) return make_error(errc::io, fmt::format("{}: write failed", names[k]));
      std::string_view b(body);
      if (first) b.remove_prefix(2);  // no metadata before it: drop the leading ",\n"
      first = false;
      bytes += b.size();
      if (!sink(k, b)) return make_error(errc::io, fmt::format("{}: write failed", names[k]));
      events += p.order.size() + 2 * p.flows.size();
    }
    bool have_range = false;
    for (std::size_t j = cuts[k].begin; j < cuts[k].end; ++j) {
      const std::uint32_t i = p.order[j];
      if (!from_body) {
        sep();
        encode_event(buf, p, i, scratch);
      }
      const std::int64_t end = ev[i].ts_ns + p.dur[i];
      if (!have_range) {
        pt.first_ns = ev[i].ts_ns;
        pt.last_ns = end;
        have_range = true;
      }
      pt.first_ns = std::min(pt.first_ns, ev[i].ts_ns);
      pt.last_ns = std::max(pt.last_ns, end);
      if (buf.size() >= (std::size_t{1} << 20) && !emit(buf))
        return make_error(errc::io, fmt::format("{}: write failed", names[k]));
    }
    for (auto f : flows_in[k]) {
      if (from_body) break;
      sep();
      ++events;  // a flow is two events
      encode_flow(buf, p, p.flows[f], scratch);
    }
    buf += tail_open;
    buf += other_data(p, final_st, session_start_ns, k, names);
    buf += tail_close;
    if (!emit(buf)) return make_error(errc::io, fmt::format("{}: write failed", names[k]));
    pt.bytes = bytes;
    pt.events = events;
    out.parts.push_back(std::move(pt));
  }
  if (out.parts.size() > 1) {
    out.note_file = std::string(stem) + "_parts.txt";
    out.note = fmt::format(
        "The chrome trace is larger than {} bytes, so it was written as {} parts.\n"
        "Each part is a complete trace with all process and thread names; open them one at a time.\n"
        "Times are µs after ts_origin_ns = {} (otherData). Flows cut by a part boundary: {}.\n\n",
        opt.max_part_bytes, out.parts.size(), p.origin_ns, final_st.flows_cut);
    for (const auto& pt : out.parts)
      out.note += fmt::format("{}\t{} bytes\t{} events\tts {:.3f} .. {:.3f} us\n", pt.file_name, pt.bytes, pt.events,
                              js_us(pt.first_ns - p.origin_ns), js_us(pt.last_ns - p.origin_ns));
  }
  return out;
}

}  // namespace detail

/// The chrome form in memory: one string per part (tests, small traces).
inline result<output> render(const std::vector<trace_event>& events, std::int64_t session_start_ns,
                             std::string_view stem = "chrome_trace", const options& opt = {}) {
  std::vector<std::string> texts;
  auto r = detail::render_to(events, session_start_ns, stem, opt, [&](std::size_t k, std::string_view chunk) {
    if (texts.size() <= k) texts.resize(k + 1);
    texts[k].append(chunk.data(), chunk.size());
    return true;
  });
  if (!r) return r;
  for (std::size_t k = 0; k < r->parts.size() && k < texts.size(); ++k) r->parts[k].text = std::move(texts[k]);
  return r;
}

/// Writes `<dir>/<stem>.json`, or `<stem>_part<k>.json` and `<stem>_parts.txt`
/// when the trace is larger than options::max_part_bytes. Files are written
/// under a `.tmp` name and renamed once every part is complete.
inline result<output> write(const std::vector<trace_event>& events, std::int64_t session_start_ns,
                            const std::filesystem::path& dir, std::string_view stem, const options& opt = {}) {
  std::vector<std::filesystem::path> tmp;
  std::FILE* file = nullptr;
  std::size_t open_part = static_cast<std::size_t>(-1);
  std::string failure;
  auto close_file = [&]() -> bool {
    if (!file) return true;
    const bool ok = std::fflush(file) == 0 && std::ferror(file) == 0;
    const bool closed = std::fclose(file) == 0;
    file = nullptr;
    return ok && closed;
  };
  auto cleanup = [&] {
    close_file();
    std::error_code ec;
    for (const auto& t : tmp) std::filesystem::remove(t, ec);
  };
  // Part file names are only known inside render_to; it names them
  // <stem>.json or <stem>_part<k>.json, so the temporary name is derived from k
  // and renamed after the output says which it was.
  auto r = detail::render_to(events, session_start_ns, stem, opt, [&](std::size_t k, std::string_view chunk) {
    if (k != open_part) {
      if (!close_file()) {
        failure = fmt::format("{}: {}", tmp.back().string(), std::strerror(errno));
        return false;
      }
      tmp.push_back(dir / fmt::format("{}.part{}.tmp", stem, k + 1));
      file = std::fopen(tmp.back().string().c_str(), "wb");
      if (!file) {
        failure = fmt::format("{}: cannot create: {}", tmp.back().string(), std::strerror(errno));
        tmp.pop_back();
        return false;
      }
      open_part = k;
    }
    if (std::fwrite(chunk.data(), 1, chunk.size(), file) != chunk.size()) {
      failure = fmt::format("{}: {}", tmp.back().string(), std::strerror(errno));
      return false;
    }
    return true;
  });
  if (!r) {
    cleanup();
    if (!failure.empty()) return make_error(errc::io, failure);
    return r;
  }
  if (!close_file()) {
    const std::string name = tmp.empty() ? std::string(stem) : tmp.back().string();
    cleanup();
    return make_error(errc::io, fmt::format("{}: write failed: {}", name, std::strerror(errno)));
  }
  if (tmp.size() != r->parts.size()) {
    cleanup();
    return make_error(errc::io, fmt::format("{}: {} parts planned, {} written", stem, r->parts.size(), tmp.size()));
  }
  if (!r->note_file.empty()) {
    const auto note_tmp = dir / (r->note_file + ".tmp");
    std::FILE* nf = std::fopen(note_tmp.string().c_str(), "wb");
    bool ok = nf && std::fwrite(r->note.data(), 1, r->note.size(), nf) == r->note.size();
    if (nf) ok = (std::fclose(nf) == 0) && ok;
    if (!ok) {
      cleanup();
      std::error_code ec;
      std::filesystem::remove(note_tmp, ec);
      return make_error(errc::io, fmt::format("{}: cannot write: {}", note_tmp.string(), std::strerror(errno)));
    }
    tmp.push_back(note_tmp);
  }
  for (std::size_t k = 0; k < tmp.size(); ++k) {
    const auto final_name = dir / (k < r->parts.size() ? r->parts[k].file_name : r->note_file);
    std::error_code ec;
    std::filesystem::rename(tmp[k], final_name, ec);
    if (ec) {
      cleanup();
      return make_error(errc::io, fmt::format("{}: cannot rename to {}: {}", tmp[k].string(), final_name.string(),
                                              ec.message()));
    }
  }
  return r;
}

}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_CHROME_CHROME_TRACE_HPP
