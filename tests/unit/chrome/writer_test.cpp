// SPDX-License-Identifier: MIT
// The chrome form writer on hand-built events: form rules, nesting and clamps,
// flows, time origin, parts. Cases named "engine:" also load the output in the
// DevTools trace engine (skipped without node).
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <msprof/convert/chrome/chrome_trace.hpp>
#include <msprof/convert/chrome/render.hpp>

#include "../../support/temp_dir.hpp"
#include "trace_testing.hpp"

namespace {

using namespace chrome_testing;
namespace chrome = msprof::convert::chrome;

constexpr std::int64_t start = 1767268800000000000;  // 2026-01-01 12:00:00 UTC, in ns

trace_event X(std::uint64_t pid, std::uint64_t tid, std::int64_t ts, std::int64_t dur, std::string name,
              std::vector<trace_arg> args = {}) {
  trace_event e;
  e.ph = 'X';
  e.pid = pid;
  e.tid = tid;
  e.ts_ns = start + ts;
  e.dur_ns = dur;
  e.name = std::move(name);
  e.args = std::move(args);
  return e;
}

trace_event M(std::uint64_t pid, std::uint64_t tid, std::string name, trace_arg a) {
  trace_event e;
  e.ph = 'M';
  e.pid = pid;
  e.tid = tid;
  e.name = std::move(name);
  e.args.push_back(std::move(a));
  return e;
}

trace_event flow(char ph, std::uint64_t pid, std::uint64_t tid, std::int64_t ts, std::string cat, std::string id) {
  trace_event e;
  e.ph = ph;
  e.pid = pid;
  e.tid = tid;
  e.ts_ns = start + ts;
  e.cat = cat;
  e.id = id;
  e.name = cat + id;
  e.bp_enclosing = ph == 'f';
  return e;
}

chrome::output render_ok(const std::vector<trace_event>& ev, chrome::options opt = {}) {
  auto r = chrome::render(ev, start, "chrome_trace_test", opt);
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  return std::move(*r);
}

parsed_trace parse_ok(const std::string& text) {
  auto t = parse_trace(text, form::chrome);
  for (const auto& p : t.problems) FAIL_CHECK(p);
  return t;
}

const trace_event* find(const parsed_trace& t, char ph, const std::string& name) {
  for (const auto& e : t.events)
    if (e.ph == ph && e.name == name) return &e;
  return nullptr;
}

/// Loads `text` in the engine and checks every rule (engine cases only: they
/// start with `if (engine_skipped()) return;`).
bool engine_ok(const std::string& file, const std::string& text) {
  const auto path = temp_file(file, text);
  const auto t = parse_trace(text, form::chrome);
  const auto rep = run_engine(path);
  REQUIRE(rep.ran);
  const auto findings = engine_findings(rep, t);
  for (const auto& f : findings) FAIL_CHECK(file << ": " << f);
  return findings.empty();
}

}  // namespace

TEST_CASE("chrome: object form, numeric µs ts with 3 decimals relative to the session start") {
  std::vector<trace_event> ev = {M(7, 0, "process_name", trace_arg::str("name", "CANN")),
                                 M(7, 42, "thread_name", trace_arg::str("name", "Thread 42")),
                                 X(7, 42, 200'000, 40'500, "MatMul_1", {trace_arg::num("Task Id", 10)}),
                                 X(7, 42, 1'000, 1, "tiny")};
  const auto out = render_ok(ev);
  REQUIRE(out.parts.size() == 1);
  CHECK(out.parts[0].file_name == "chrome_trace_test.json");
  CHECK(out.origin_ns == start);
  const std::string& text = out.parts[0].text;
  CHECK(text.find("\"ts\":200.000,\"dur\":40.500") != std::string::npos);
  CHECK(text.find("\"ts\":1.000,\"dur\":0.001") != std::string::npos);
  CHECK(text.find("\"displayTimeUnit\":\"ns\"") != std::string::npos);
  CHECK(text.find("\"session_start_ns\":\"1767268800000000000\"") != std::string::npos);
  const auto t = parse_ok(text);
  CHECK(t.object_form);
  CHECK(t.origin_ns == start);
  REQUIRE(t.events.size() == 4);
  // Metadata first, then slices in time order, absolute times survive the trip.
  CHECK(t.events[0].ph == 'M');
  CHECK(t.events[1].ph == 'M');
  const auto* mm = find(t, 'X', "MatMul_1");
  REQUIRE(mm);
  CHECK(mm->ts_ns == start + 200'000);
  CHECK(mm->dur_ns == 40'500);
  CHECK(canonical_args(mm->args) == canonical_args({trace_arg::num("Task Id", 10)}));
  CHECK(t.other.at("slices") == 2);
  CHECK(t.other.at("max_depth") == 1);
}

TEST_CASE("chrome: a child that overlaps its parent is clamped to it and counted") {
  std::vector<trace_event> ev = {X(1, 1, 1'000, 10'000, "parent"), X(1, 1, 5'000, 9'000, "overlapping"),
                                 X(1, 1, 6'000, 1'000, "grandchild"), X(1, 1, 20'000, 1'000, "later")};
  const auto out = render_ok(ev);
  const auto t = parse_ok(out.parts[0].text);
  const auto* o = find(t, 'X', "overlapping");
  REQUIRE(o);
  CHECK(o->ts_ns == start + 5'000);
  CHECK(o->dur_ns == 6'000);  // ends with its parent
  CHECK(find(t, 'X', "grandchild")->dur_ns == 1'000);
  CHECK(find(t, 'X', "later")->dur_ns == 1'000);
  CHECK(out.totals.clamped_overlap == 1);
  CHECK(out.totals.max_depth == 3);
  CHECK(t.other.at("clamped_overlap") == 1);
  const auto depth = nesting_depths(t);
  CHECK(depth.at({1, 1}) == 3);
}

TEST_CASE("chrome: negative durations are written as 0 and counted") {
  std::vector<trace_event> ev = {X(1, 1, 1'000, -500, "backwards"), X(1, 1, 3'000, 10, "ok")};
  const auto out = render_ok(ev);
  const auto t = parse_ok(out.parts[0].text);
  CHECK(find(t, 'X', "backwards")->dur_ns == 0);
  CHECK(out.totals.negative_dur == 1);
}

TEST_CASE("chrome: the time origin moves before a slice at or before the session start") {
  std::vector<trace_event> ev = {X(1, 1, 0, 1'000, "at start"), X(1, 1, -2'500, 100, "before start")};
  const auto out = render_ok(ev);
  CHECK(out.origin_ns == start - 4'000);  // 1 µs before the first slice, on a whole µs
  const auto t = parse_ok(out.parts[0].text);
  CHECK(find(t, 'X', "before start")->ts_ns == start - 2'500);
  CHECK(out.parts[0].text.find("\"ts\":1.500,") != std::string::npos);
}

TEST_CASE("chrome: strings are valid UTF-8 and JSON, non-finite numbers become null") {
  std::vector<trace_event> ev = {X(1, 1, 1'000, 10, "quote\" back\\ nl\n tab\t ctl\x01 ✓ 梯度",
                                   {trace_arg::str("bad", "a\xff\xfe" "b"), trace_arg::real("nan", std::nan("")),
                                    trace_arg::real("half", 0.5)})};
  const auto out = render_ok(ev);
  const auto t = parse_ok(out.parts[0].text);
  const auto& e = t.events.at(0);
  CHECK(e.name == "quote\" back\\ nl\n tab\t ctl\x01 ✓ 梯度");
  REQUIRE(e.args.size() == 3);
  CHECK(e.args[0].s == "a\xEF\xBF\xBD\xEF\xBF\xBD" "b");
  CHECK(e.args[1].s == "null");
  CHECK(e.args[2].d == 0.5);
  CHECK(out.totals.invalid_utf8 == 1);
  CHECK(out.totals.non_finite == 1);
}

std::vector<trace_event> flow_events() {
  return {
      flow('f', 2, 3, 5'000, "HostToDevice", "4294967296"),  // msprof writes f before s
      X(2, 3, 5'000, 1'000, "dev", {trace_arg::num("connection_id", 1)}),
      X(1, 7, 100, 2'000, "Node@launch", {trace_arg::num("connection_id", 1)}),
      X(1, 7, 100, 500, "inner at same ts", {trace_arg::num("connection_id", 9)}),
      flow('s', 1, 7, 100, "HostToDevice", "4294967296"),
      X(1, 7, 3'000, 10, "mark"),
      flow('s', 1, 7, 3'000, "MsTx", "4000000002"),  // no device side: not a link
  };
}

TEST_CASE("chrome: flows are written s then f, at the start of both slices, with their category") {
  const auto out = render_ok(flow_events());
  CHECK(out.totals.flows_written == 1);
  CHECK(out.totals.flows_unpaired == 1);
  const auto t = parse_ok(out.parts[0].text);
  std::size_t s_at = 0, f_at = 0;
  for (std::size_t k = 0; k < t.events.size(); ++k) {
    if (t.events[k].ph == 's') s_at = k;
    if (t.events[k].ph == 'f') f_at = k;
  }
  REQUIRE(s_at != 0);
  REQUIRE(f_at != 0);
  CHECK(s_at < f_at);
  const auto& s = t.events[s_at];
  const auto& f = t.events[f_at];
  CHECK(s.cat == "HostToDevice");
  CHECK(f.cat == "HostToDevice");
  CHECK(f.bp_enclosing);
  CHECK(s.ts_ns == start + 100);
  CHECK(f.ts_ns == start + 5'000);
  CHECK(find(t, 'X', "Node@launch")->cat == "HostToDevice");
  CHECK(find(t, 'X', "dev")->cat == "HostToDevice");
  CHECK(find(t, 'X', "inner at same ts")->cat == "msprof");
  CHECK(find(t, 'X', "mark")->cat == "msprof");
  // DevTools' binding rule gives the same link as the input meant.
  const auto n = normalize(t, form::chrome);
  REQUIRE(n.links.size() == 1);
  CHECK(std::get<3>(std::get<1>(*n.links.begin())) == "Node@launch");
  CHECK(std::get<3>(std::get<2>(*n.links.begin())) == "dev");
}

std::vector<trace_event> dropped_flow_events() {
  return {
      // two flow starts of one category on one thread at one ts: the engine
      // binds both to the first slice, so the nested one's flow is dropped
      X(1, 1, 100, 1'000, "outer launch", {trace_arg::num("connection_id", 1)}),
      X(1, 1, 100, 500, "inner launch", {trace_arg::num("connection_id", 2)}),
      X(2, 1, 5'000, 10, "dev1", {trace_arg::num("connection_id", 1)}),
      X(2, 1, 6'000, 10, "dev2", {trace_arg::num("connection_id", 2)}),
      flow('s', 1, 1, 100, "HostToDevice", "4294967296"), flow('f', 2, 1, 5'000, "HostToDevice", "4294967296"),
      flow('s', 1, 1, 100, "HostToDevice", "8589934592"), flow('f', 2, 1, 6'000, "HostToDevice", "8589934592"),
      // an end with no slice anywhere near it
      flow('s', 1, 9, 100, "HostToDevice", "12884901888"), flow('f', 2, 1, 7'000, "HostToDevice", "12884901888"),
  };
}

TEST_CASE("chrome: flows in flight past the spill budget are bound as with all of them held") {
  // 4000 flows whose first ends (in time) all come before any second end: the
  // nesting pass holds them all, past a 64 KiB budget's share (a few hundred).
  // Half run host to device, half device to host (the f end first in time).
  const int n = 4'000;
  std::vector<trace_event> ev;
  for (int i = 0; i < n; ++i) {
    const std::int64_t early = 1'000 + i * 10, late = 10'000'000 + i * 10;
    const std::string id = std::to_string(static_cast<std::uint64_t>(i + 1) << 32);
    ev.push_back(X(1, 1, early, 5, "launch " + std::to_string(i), {trace_arg::num("connection_id", i + 1)}));
    ev.push_back(X(2, 3, late, 5, "op " + std::to_string(i), {trace_arg::num("connection_id", i + 1)}));
    const bool to_device = i % 2 == 0;
    ev.push_back(flow('s', to_device ? 1 : 2, to_device ? 1 : 3, to_device ? early : late, "HostToDevice", id));
    ev.push_back(flow('f', to_device ? 2 : 1, to_device ? 3 : 1, to_device ? late : early, "HostToDevice", id));
  }
  const auto held = render_ok(ev);  // the default budget holds them all
  CHECK(held.totals.flows_written == static_cast<std::size_t>(n));
  temp_dir d("msprof_chrome_in_flight");
  chrome::detail::trace_builder b({}, d.path, 64u << 10);
  for (std::size_t k = 0; k < ev.size(); ++k) b.add(ev[k], {0, k});
  std::string text;
  auto r = b.finish(start, "chrome_trace_test", [&](std::size_t, std::string_view chunk) {
    text.append(chunk);
    return true;
  });
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  CHECK(r->totals.flows_written == static_cast<std::size_t>(n));
  CHECK(r->totals.flows_unresolved == 0);
  CHECK(text == held.parts[0].text);
  const auto t = parse_ok(text);
  CHECK(normalize(t, form::chrome).links.size() == static_cast<std::size_t>(n));
}

TEST_CASE("chrome: flows DevTools would bind elsewhere, or that have no slice, are dropped and counted") {
  const auto out = render_ok(dropped_flow_events());
  CHECK(out.totals.flows_written == 1);
  CHECK(out.totals.flows_unbindable == 1);
  CHECK(out.totals.flows_unresolved == 1);
  const auto t = parse_ok(out.parts[0].text);
  const auto n = normalize(t, form::chrome);
  REQUIRE(n.links.size() == 1);
  CHECK(std::get<3>(std::get<1>(*n.links.begin())) == "outer launch");
  CHECK(std::get<3>(std::get<2>(*n.links.begin())) == "dev1");
}

TEST_CASE("chrome: a flow end inside a slice (not at its start) is moved to the slice start") {
  std::vector<trace_event> ev = {X(1, 1, 100, 1'000, "host"), X(2, 1, 5'000, 2'000, "dev"),
                                 flow('s', 1, 1, 600, "MsTx", "7"), flow('f', 2, 1, 6'500, "MsTx", "7")};
  const auto out = render_ok(ev);
  CHECK(out.totals.flows_written == 1);
  const auto t = parse_ok(out.parts[0].text);
  for (const auto& e : t.events) {
    if (e.ph == 's') CHECK(e.ts_ns == start + 100);
    if (e.ph == 'f') CHECK(e.ts_ns == start + 5'000);
  }
  const auto n = normalize(t, form::chrome);
  REQUIRE(n.links.size() == 1);
  CHECK(std::get<3>(std::get<1>(*n.links.begin())) == "host");
  CHECK(std::get<3>(std::get<2>(*n.links.begin())) == "dev");
}

std::vector<trace_event> reserved_name_events() {
  // Every name DevTools reserves, as nested slices, instants and counters.
  std::vector<trace_event> ev = {M(3, 0, "process_name", trace_arg::str("name", "app")),
                                 X(3, 1, 500, 10'000'000, "outer"),
                                 X(3, 2, 100, 20'000'000, "first and last::UMA")};  // would leave the bounds
  std::int64_t ts = 1'000;
  for (auto n : chrome::detail::reserved_names) {
    ev.push_back(X(3, 1, ts, 500, std::string(n), {trace_arg::str("domain", "default")}));
    ev.push_back(X(3, 1, ts + 100, 100, std::string(n)));
    trace_event c;
    c.ph = 'C';
    c.pid = 3;
    c.tid = 0;
    c.ts_ns = start + ts;
    c.name = std::string(n);
    c.args.push_back(trace_arg::num("v", 1));
    ev.push_back(std::move(c));
    ts += 1'000;
  }
  return ev;
}

TEST_CASE("chrome: slices named like Chrome events DevTools parses get U+200B appended, and are counted") {
  const auto ev = reserved_name_events();
  const auto out = render_ok(ev);
  const std::size_t reserved = std::size(chrome::detail::reserved_names);
  CHECK(out.totals.renamed == 3 * reserved + 1);
  const auto t = parse_ok(out.parts[0].text);
  CHECK(find(t, 'X', "Paint") == nullptr);
  CHECK(find(t, 'X', "Paint\xE2\x80\x8B") != nullptr);
  CHECK(find(t, 'X', "outer") != nullptr);  // other names stay as they are
  parsed_trace in;
  in.events = ev;
  const auto diff = compare(normalize(in, form::exact), normalize(t, form::chrome), 0, 0);
  for (const auto& d : diff) FAIL_CHECK(d);
}

TEST_CASE("chrome: back-to-back slices stay siblings although ts + dur rounds past the next start") {
  // 0.1 + 0.2 > 0.3 in doubles: without a 1-ns trim DevTools drops "b".
  std::vector<trace_event> ev = {X(1, 1, 100, 200, "a"), X(1, 1, 300, 1'000, "b")};
  const auto out = render_ok(ev);
  CHECK(out.totals.clamped_rounding == 1);
  const auto t = parse_ok(out.parts[0].text);
  CHECK(find(t, 'X', "a")->dur_ns == 199);
  CHECK(find(t, 'X', "b")->dur_ns == 1'000);
}

std::vector<trace_event> random_nesting_events() {
  std::mt19937_64 rng(12345);
  std::vector<trace_event> ev;
  for (std::uint64_t tid = 1; tid <= 4; ++tid) {
    ev.push_back(M(5, tid, "thread_name", trace_arg::str("name", "T" + std::to_string(tid))));
    std::int64_t ts = static_cast<std::int64_t>(rng() % 1'000'000'000);
    for (int k = 0; k < 400; ++k) {
      // a root, then children that tile it exactly (equal ends, back-to-back)
      const std::int64_t len = 1 + static_cast<std::int64_t>(rng() % 100'000);
      ev.push_back(X(5, tid, ts, len, "root"));
      std::int64_t c = ts;
      while (c < ts + len) {
        const std::int64_t cl = std::min<std::int64_t>(ts + len - c, 1 + static_cast<std::int64_t>(rng() % 30'000));
        ev.push_back(X(5, tid, c, cl, "child"));
        if (cl > 2) ev.push_back(X(5, tid, c + cl / 2, cl - cl / 2, "grandchild at the end"));
        if (rng() % 3 == 0) ev.push_back(X(5, tid, c, 0, "mark"));
        c += cl;
      }
      ts += len + static_cast<std::int64_t>(rng() % 3);  // sometimes exactly back-to-back
    }
  }
  return ev;
}

TEST_CASE("chrome: random nested and back-to-back slices keep their content, trims counted") {
  const auto ev = random_nesting_events();
  const auto out = render_ok(ev);
  MESSAGE("rounding trims: " << out.totals.clamped_rounding << ", overlap clamps: " << out.totals.clamped_overlap);
  CHECK(out.totals.clamped_overlap == 0);
  const auto t = parse_ok(out.parts[0].text);
  // Same content as the input, except for the counted trims.
  parsed_trace in;
  in.events = ev;
  const auto diff = compare(normalize(in, form::exact), normalize(t, form::chrome),
                            out.totals.clamped_rounding + out.totals.clamped_overlap, out.totals.flows_unpaired);
  for (const auto& d : diff) FAIL_CHECK(d);
  CHECK(nesting_depths(t).at({5, 1}) == 3);  // root > child > grandchild or mark
}

constexpr int steps = 12, per_step = 40;

std::vector<trace_event> stepped_events(chrome::options& opt) {
  std::vector<trace_event> ev = {M(1, 0, "process_name", trace_arg::str("name", "CANN")),
                                 M(1, 1, "thread_name", trace_arg::str("name", "Thread 1")),
                                 M(2, 0, "process_name", trace_arg::str("name", "Ascend Hardware")),
                                 M(2, 3, "thread_name", trace_arg::str("name", "Stream 3"))};
  for (int s = 0; s < steps; ++s) {
    const std::int64_t base = 1'000 + s * 1'000'000;
    opt.step_starts_ns.push_back(start + base);
    ev.push_back(X(1, 1, base, 900'000, "step " + std::to_string(s)));
    for (int k = 0; k < per_step; ++k) {
      const std::int64_t ts = base + 1'000 + k * 20'000;
      const std::string id = std::to_string(static_cast<std::uint64_t>(s * per_step + k + 1) << 32);
      ev.push_back(X(1, 1, ts, 10'000, "Node@launch", {trace_arg::num("connection_id", s * per_step + k + 1)}));
      ev.push_back(X(2, 3, ts + 15'000, 4'000, "op", {trace_arg::num("connection_id", s * per_step + k + 1)}));
      ev.push_back(flow('s', 1, 1, ts, "HostToDevice", id));
      ev.push_back(flow('f', 2, 3, ts + 15'000, "HostToDevice", id));
    }
  }
  return ev;
}

TEST_CASE("chrome: parts: each under the limit, complete with all metadata, cut at step boundaries") {
  chrome::options opt;
  const auto ev = stepped_events(opt);
  const auto whole = render_ok(ev);
  REQUIRE(whole.parts.size() == 1);
  const std::uint64_t total = whole.parts[0].bytes;
  opt.max_part_bytes = total / 4;
  const auto out = render_ok(ev, opt);
  REQUIRE(out.parts.size() >= 4);
  CHECK(out.totals.steps_split == 0);
  CHECK(out.totals.flows_cut == 0);  // flows never cross a step here
  CHECK(out.totals.flows_written == steps * per_step);
  CHECK(out.note_file == "chrome_trace_test_parts.txt");
  std::vector<trace_event> all;
  std::size_t k = 0;
  for (const auto& p : out.parts) {
    ++k;
    CHECK(p.file_name == "chrome_trace_test_part" + std::to_string(k) + ".json");
    CHECK(p.bytes == p.text.size());
    CHECK(p.bytes <= opt.max_part_bytes);
    CHECK(out.note.find(p.file_name) != std::string::npos);
    const auto t = parse_ok(p.text);
    CHECK(t.other.at("part") == static_cast<std::int64_t>(k));
    CHECK(t.other_parts.size() == out.parts.size());
    std::size_t meta = 0, step_slices = 0;
    std::int64_t first = INT64_MAX;
    for (const auto& e : t.events) {
      meta += e.ph == 'M';
      if (e.ph == 'X') first = std::min(first, e.ts_ns);
      step_slices += e.ph == 'X' && e.name.rfind("step ", 0) == 0;
    }
    CHECK(meta == 4);
    CHECK(step_slices >= 1);
    // each part starts exactly at a step
    CHECK(std::find(opt.step_starts_ns.begin(), opt.step_starts_ns.end(), first) != opt.step_starts_ns.end());
    for (const auto& e : t.events)
      if (e.ph != 'M') all.push_back(e);
  }
  // The parts together hold exactly what the single file holds.
  auto one = parse_ok(whole.parts[0].text);
  parsed_trace joined;
  joined.events = all;
  joined.origin_ns = one.origin_ns;
  for (const auto& e : one.events)
    if (e.ph == 'M') joined.events.push_back(e);
  const auto diff = compare(normalize(one, form::chrome), normalize(joined, form::chrome), 0, 0);
  for (const auto& d : diff) FAIL_CHECK(d);
}

TEST_CASE("chrome: near the part limit: every part fits, one part is the whole trace as written without a limit") {
  // A trace that provably fits is written straight into its file (a bound on
  // its size summed as the events come); around the limit both ways must agree.
  chrome::options opt;
  auto ev = stepped_events(opt);
  opt.step_starts_ns.clear();
  for (auto& e : reserved_name_events()) ev.push_back(std::move(e));  // counters, renamed names
  for (auto& e : random_nesting_events()) ev.push_back(std::move(e));  // trimmed durations
  auto odd = flow('s', 1, 1, 1'000, "Host\xff\"To\"Device", "7");  // an escaped, longer category
  ev.push_back(odd);
  odd.ph = 'f';
  odd.pid = 2;
  odd.tid = 3;
  odd.ts_ns = start + 16'000;
  ev.push_back(odd);
  const auto whole = render_ok(ev);
  REQUIRE(whole.parts.size() == 1);
  const std::uint64_t bytes = whole.parts[0].bytes;
  std::size_t one = 0, split = 0;
  for (std::uint64_t limit = bytes - 500; limit <= bytes + 6000; limit += 250) {
    opt.max_part_bytes = limit;
    const auto out = render_ok(ev, opt);
    for (const auto& p : out.parts) CHECK(p.bytes <= limit);
    if (out.parts.size() == 1) {
      ++one;
      CHECK(out.parts[0].text == whole.parts[0].text);
    } else {
      ++split;
    }
  }
  CHECK(one > 10);
  CHECK(split > 0);
}

TEST_CASE("chrome: parts without steps / a limit below the metadata size is an error") {
  std::vector<trace_event> ev = {M(1, 0, "process_name", trace_arg::str("name", std::string(3000, 'p')))};
  for (int k = 0; k < 500; ++k) ev.push_back(X(1, 1, 1'000 + k * 100, 50, "s"));
  chrome::options opt;
  opt.max_part_bytes = 12'000;
  const auto out = render_ok(ev, opt);
  CHECK(out.parts.size() > 2);
  std::size_t slices = 0;
  for (const auto& p : out.parts) {
    CHECK(p.bytes <= opt.max_part_bytes);
    for (const auto& e : parse_ok(p.text).events) slices += e.ph == 'X';
  }
  CHECK(slices == 500);
  opt.max_part_bytes = 2'000;
  auto bad = chrome::render(ev, start, "x", opt);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.err().code == msprof::errc::limit);
  CHECK(bad.err().message.find("metadata") != std::string::npos);
}

TEST_CASE("chrome: write() renames complete files into place and reports I/O errors") {
  const fs::path dir = fs::path(MSPROF_TEST_BINARY_DIR) / "chrome_write_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<trace_event> ev = {M(1, 0, "process_name", trace_arg::str("name", "P"))};
  for (int k = 0; k < 300; ++k) ev.push_back(X(1, 1, 1'000 + k * 100, 50, "s"));
  chrome::options opt;
  opt.max_part_bytes = 8'000;
  auto r = chrome::write(ev, start, dir, "chrome_trace_20260101120000", opt);
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  REQUIRE(r->parts.size() > 1);
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++files;
    CHECK(e.path().extension() != ".tmp");
  }
  CHECK(files == r->parts.size() + 1);  // parts + note
  for (const auto& p : r->parts) {
    const std::string text = read_file(dir / p.file_name);
    CHECK(text.size() == p.bytes);
    parse_ok(text);
  }
  CHECK(read_file(dir / r->note_file) == r->note);
  auto bad = chrome::write(ev, start, dir / "missing" / "dir", "x", opt);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.err().code == msprof::errc::io);
  CHECK(bad.err().message.find("missing") != std::string::npos);
}

TEST_CASE("chrome: engine: hand-built traces load with every slice, the real depth, bounds and bound flows") {
  if (engine_skipped()) return;
  engine_ok("flows.json", render_ok(flow_events()).parts.at(0).text);
  engine_ok("flows_dropped.json", render_ok(dropped_flow_events()).parts.at(0).text);
  engine_ok("rounding.json", render_ok({X(1, 1, 100, 200, "a"), X(1, 1, 300, 1'000, "b")}).parts.at(0).text);
  engine_ok("random_nesting.json", render_ok(random_nesting_events()).parts.at(0).text);
  engine_ok("reserved_names.json", render_ok(reserved_name_events()).parts.at(0).text);
  chrome::options opt;
  const auto ev = stepped_events(opt);
  opt.max_part_bytes = render_ok(ev).parts.at(0).bytes / 4;
  const auto out = render_ok(ev, opt);
  CHECK(out.parts.size() >= 4);
  for (const auto& p : out.parts) engine_ok(p.file_name, p.text);
}

TEST_CASE("chrome: engine: the check fails on the exact form's string ts (the test can fail)") {
  if (engine_skipped()) return;
  // The same slices as the rounding case, nested, with msprof's string ts.
  const std::string exact = R"([{"name":"outer","pid":1,"tid":1,"ts":"1767268800000000.100","dur":1.0,"ph":"X","args":{}},)"
                            R"({"name":"inner","pid":1,"tid":1,"ts":"1767268800000000.200","dur":0.5,"ph":"X","args":{}}])";
  const auto rep = run_engine(temp_file("exact_form.json", exact));
  REQUIRE(rep.ran);
  CHECK(rep.fatal.empty());
  CHECK(rep.depth.at({1, 1}) == 1);  // nesting lost
  auto t = parse_trace(exact, form::exact);
  CHECK(nesting_depths(t).at({1, 1}) == 2);
  CHECK_FALSE(engine_findings(rep, t).empty());
}

TEST_CASE("chrome: engine: the reserved-name list covers every event name the engine handles") {
  if (engine_skipped()) return;
  const std::string cmd = fmt::format(
      "cd '{}' && '{}' --input-type=module -e \"const T = await import('@paulirish/trace_engine'); "
      "console.log(JSON.stringify(Object.values(T.Types.Events.Name)))\" 2>/dev/null",
      js_dir().string(), find_node());
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  REQUIRE(pipe);
  std::string text;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) text.append(buf, n);
  ::pclose(pipe);
  simdjson::dom::parser parser;
  simdjson::dom::array names;
  REQUIRE_MESSAGE(!parser.parse(text).get(names), text);
  std::size_t count = 0;
  for (auto v : names) {
    const std::string_view name = v.get_string().value();
    ++count;
    CHECK_MESSAGE(chrome::detail::is_reserved_name(name), "engine name not reserved: " << name);
  }
  CHECK(count > 100);
}

TEST_CASE("chrome: engine: unrenamed reserved names break the trace (the rename is needed)") {
  if (engine_skipped()) return;
  std::vector<trace_event> ev = {X(3, 1, 500, 10'000, "outer"), X(3, 1, 1'000, 100, "Paint")};
  auto out = render_ok(ev);
  std::string text = out.parts.at(0).text;
  const std::string renamed = "Paint\xE2\x80\x8B";
  const auto at = text.find(renamed);
  REQUIRE(at != std::string::npos);
  text.replace(at, renamed.size(), "Paint");
  const auto rep = run_engine(temp_file("reserved_unrenamed.json", text));
  REQUIRE(rep.ran);
  CHECK_FALSE(rep.fatal.empty());
}
