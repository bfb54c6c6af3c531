// SPDX-License-Identifier: MIT
// trace_view.json beyond the golden cases (torch_to_npu flows without a task
// queue, the Python tracer's modules, C calls and open frames, garbage
// collections), and the multiset comparison the golden test relies on.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <msprof/convert/ascend_pt/trace_view.hpp>
#include <msprof/core/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "../../support/trace_multiset.hpp"
#include "pt_case.hpp"

namespace fs = std::filesystem;
namespace pt = msprof::convert::ascend_pt;
namespace json = msprof::json;

namespace {

/// The events of ASCEND_PROFILER_OUTPUT/trace_view.json after analysing `dir`.
json::value analysed_trace(const fs::path& dir) {
  auto r = pt::analyse(dir.string(), {"text"});
  REQUIRE_MESSAGE(r.has_value(), r.err().what());
  auto doc = json::parse(read_text(dir / "ASCEND_PROFILER_OUTPUT" / "trace_view.json"));
  REQUIRE_MESSAGE(doc.has_value(), doc.err().what());
  REQUIRE(doc->is_array());
  return std::move(*doc);
}

/// Canonical lines (trace_multiset) of the events with this `cat`.
std::vector<std::string> of_cat(const json::value& events, const std::string& cat) {
  std::vector<std::string> out;
  for (const auto& e : events.items())
    if (e.get("cat").as_string_or("") == cat) out.push_back(trace_multiset::canonical(e));
  std::sort(out.begin(), out.end());
  return out;
}

/// Little-endian bytes of a FRAMEWORK record.
struct le_bytes {
  std::string s;
  template <class T>
  le_bytes& put(T v) {
    for (std::size_t i = 0; i < sizeof(T); ++i)
      s += static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * i)) & 0xff);
    return *this;
  }
};

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

constexpr std::uint64_t raw_us = 1000;                 // raw framework time: monotonic ns
constexpr std::uint64_t raw_start = 1000000000000ull;  // the collection start (local 1767268800000000 µs)

/// The trace's ts string of `us` after the collection start.
std::string ts_at(long long us) { return std::to_string(1767268800000000LL + us) + ".000"; }

}  // namespace

TEST_CASE("trace_multiset: event order and renumbered ids do not matter, a missing, changed or relinked event does") {
  const std::set<std::string> renumbered = {"HostToDevice"};
  const std::string a =
      R"([{"name": "Node@launch", "pid": 1, "tid": 7, "ts": "10.000", "dur": 5.0, "ph": "X", "args": {"connection_id": 1}},)"
      R"({"name": "K", "pid": 2, "tid": 3, "ts": "20.000", "dur": 4.0, "ph": "X", "args": {"connection_id": 1}},)"
      R"({"name": "HostToDevice4294967296", "pid": 1, "tid": 7, "ph": "s", "cat": "HostToDevice", "id": "4294967296", "ts": "10.000"},)"
      R"({"name": "HostToDevice4294967296", "pid": 2, "tid": 3, "ph": "f", "cat": "HostToDevice", "id": "4294967296", "ts": "20.000", "bp": "e"},)"
      R"({"ph": "s", "bp": "e", "name": "torch_to_npu", "id": 20000, "pid": 9, "tid": 9, "ts": "8.000", "cat": "async_npu"}])";
  std::string e1;
  const auto base = trace_multiset::lines(a, renumbered, e1);
  REQUIRE(e1.empty());
  REQUIRE(base.size() == 5);
  const auto same = [&](const std::string& b) {
    std::string e2;
    const auto other = trace_multiset::lines(b, renumbered, e2);
    REQUIRE_MESSAGE(e2.empty(), e2);
    return other == base;
  };
  // Reordered, keys reordered, connection 1 renumbered to 9 with its flow id.
  CHECK(same(
      R"([{"ph": "s", "bp": "e", "name": "torch_to_npu", "id": 20000, "pid": 9, "tid": 9, "ts": "8.000", "cat": "async_npu"},)"
      R"({"name": "HostToDevice38654705664", "pid": 2, "tid": 3, "ph": "f", "cat": "HostToDevice", "id": "38654705664", "ts": "20.000", "bp": "e"},)"
      R"({"name": "K", "pid": 2, "tid": 3, "ts": "20.000", "dur": 4.0, "ph": "X", "args": {"connection_id": 9}},)"
      R"({"pid": 1, "name": "Node@launch", "tid": 7, "ts": "10.000", "dur": 5.0, "ph": "X", "args": {"connection_id": 9}},)"
      R"({"name": "HostToDevice38654705664", "pid": 1, "tid": 7, "ph": "s", "cat": "HostToDevice", "id": "38654705664", "ts": "10.000"}])"));
  std::string dropped = a;
  dropped.erase(dropped.rfind(",{"), std::string::npos);
  CHECK_FALSE(same(dropped + "]"));
  // A number written differently (4 instead of 4.0) is a difference.
  std::string changed = a;
  changed.replace(changed.find("4.0"), 3, "4");
  CHECK_FALSE(same(changed));
  // The flow's end on another event.
  std::string relinked = a;
  relinked.replace(relinked.rfind("\"20.000\""), 8, "\"21.000\"");
  CHECK_FALSE(same(relinked));
  // torch_to_npu ids are not renumbered by torch_npu: compared as they are.
  std::string other_id = a;
  other_id.replace(other_id.find("20000,"), 5, "20001");
  CHECK_FALSE(same(other_id));
  // The connection id of the kernel pointing at another launch.
  std::string other_conn = a;
  other_conn.replace(other_conn.find("\"connection_id\": 1}},") + 17, 1, "2");
  CHECK_FALSE(same(other_conn));
}

TEST_CASE("trace_view: without a task queue torch_to_npu starts at the innermost op running at each launch") {
  temp_dir tmp("pt_trace_noqueue");
  const fs::path dir = copy_case(tmp, "pt_level0");
  fs::remove(dir / "FRAMEWORK" / "torch.op_mark");
  const auto events = analysed_trace(dir);
  // Launches at 100 and 140 µs: ProfilerStep#1 [60, 168] (aten::add ends at 100);
  // 170: aten::relu [175, 185], the first child, running by torch_npu's search;
  // 200: aten::copy_ [190, 212] inside aten::to > aten::_to_copy; 220: ProfilerStep#2.
  std::vector<std::string> want;
  const std::pair<int, int> op_kernel[] = {{60, 200}, {60, 250}, {175, 270}, {190, 340}, {170, 360}};
  for (const auto& [op, kernel] : op_kernel) {
    const std::string id = std::to_string(1767268800000000000LL + kernel * 1000LL);
    want.push_back(R"({"bp":"e","cat":"async_npu","id":)" + id +
                   R"(,"name":"torch_to_npu","ph":"s","pid":6060,"tid":6000,"ts":")" + ts_at(op) + R"("})");
    want.push_back(R"({"bp":"e","cat":"async_npu","id":)" + id +
                   R"(,"name":"torch_to_npu","ph":"f","pid":6205888,"tid":2,"ts":")" + ts_at(kernel) + R"("})");
  }
  std::sort(want.begin(), want.end());
  CHECK(of_cat(events, "async_npu") == want);
  CHECK(of_cat(events, "async_task_queue").empty());
}

TEST_CASE("trace_view: the Python tracer's calls, nn.Modules, C calls and open frames, and garbage collections") {
  temp_dir tmp("pt_trace_python");
  const fs::path dir = copy_case(tmp, "pt_text_steps");
  // Hashes: a function, two modules of one class (uids 1, 2), a C function; key 9 has none.
  le_bytes hash;
  const auto name = [&](std::uint64_t key, const std::string& v) {
    hash.put<std::uint16_t>(4).put<std::uint32_t>(static_cast<std::uint32_t>(8 + 6 + v.size())).put<std::uint64_t>(key);
    hash.put<std::uint16_t>(1).put<std::uint32_t>(static_cast<std::uint32_t>(v.size()));
    hash.s += v;
  };
  name(1, "train.py(1): main");
  name(2, "Linear######1");
  name(3, "Linear######2");
  name(4, "<built-in method add>");
  le_bytes calls;
  const auto call = [&](std::uint64_t us, std::uint64_t tid, std::uint64_t key, std::uint8_t tag) {
    calls.put<std::uint64_t>(raw_start + us * raw_us).put<std::uint64_t>(tid).put<std::uint64_t>(6060);
    calls.put<std::uint64_t>(key).put<std::uint8_t>(tag);
  };
  call(10, 6000, 1, 0);  // 0 main
  call(20, 6000, 2, 0);  // 1 Linear_0
  call(30, 6000, 4, 2);  // 2 C call inside it
  call(35, 6000, 4, 3);
  call(40, 6000, 2, 1);
  call(50, 6000, 3, 0);  // 5 Linear_1 (another instance)
  call(60, 6000, 3, 1);
  call(70, 6000, 2, 0);  // 7 Linear_0 again, never returns; main neither
  call(25, 6002, 9, 1);
  call(15, 6002, 9, 0);  // 1 on thread 6002 (records sorted by time): key 9 has no name
  call(5, 6002, 9, 1);   // 0: a return with nothing open, ignored
  write_file(dir / "FRAMEWORK" / "torch.python_tracer_hash", hash.s);
  write_file(dir / "FRAMEWORK" / "torch.python_tracer_func", calls.s);
  le_bytes gc;
  gc.put<std::uint64_t>(6060).put<std::uint64_t>(raw_start + 300 * raw_us).put<std::uint64_t>(raw_start + 310 * raw_us);
  write_file(dir / "FRAMEWORK" / "torch.gc_record", gc.s);

  const auto events = analysed_trace(dir);
  const auto fn = [](const std::string& n, std::uint64_t tid, int ts, const std::string& dur, int id, int parent,
                     int module = -1) {
    // Canonical lines sort the keys: "Python module id" before "Python parent id".
    return R"({"args":{"Python id":)" + std::to_string(id) +
           (module >= 0 ? R"(,"Python module id":)" + std::to_string(module) : std::string()) +
           R"(,"Python parent id":)" + std::to_string(parent) + R"(},"cat":"python_function","dur":)" + dur +
           R"(,"name":")" + n + R"(","ph":"X","pid":6060,"tid":)" + std::to_string(tid) + R"(,"ts":")" + ts_at(ts) +
           R"("})";
  };
  std::vector<std::string> want = {
      fn("train.py(1): main", 6000, 10, "60.0", 0, 0),     fn("nn.Module: Linear_0", 6000, 20, "20.0", 1, 0, 0),
      fn("<built-in method add>", 6000, 30, "5.0", 2, 1),  fn("nn.Module: Linear_1", 6000, 50, "10.0", 5, 0, 1),
      fn("nn.Module: Linear_0", 6000, 70, "0.0", 7, 0, 0), fn("9", 6002, 15, "10.0", 1, 0),
  };
  std::sort(want.begin(), want.end());
  CHECK(of_cat(events, "python_function") == want);
  // The tracer's new thread gets its metadata; GC: pid (6060 << 10) | (1 << 5) | device 0, tid the raw pid.
  const std::string gc_pid = std::to_string((6060 << 10) | (1 << 5));
  std::vector<std::string> meta;
  for (const auto& e : events.items()) {
    const auto pid = trace_multiset::canonical(e.get("pid"));
    if (e.get("ph").as_string_or("") == "M" && (pid == gc_pid || e.get("tid").int_or(0) == 6002))
      meta.push_back(trace_multiset::canonical(e));
  }
  std::sort(meta.begin(), meta.end());
  std::vector<std::string> want_meta = {
      R"({"args":{"name":"Thread 6002"},"name":"thread_name","ph":"M","pid":6060,"tid":6002})",
      R"({"args":{"sort_index":6002},"name":"thread_sort_index","ph":"M","pid":6060,"tid":6002})",
      R"({"args":{"name":"Python GC"},"name":"process_name","ph":"M","pid":)" + gc_pid + R"(,"tid":0})",
      R"({"args":{"labels":"CPU"},"name":"process_labels","ph":"M","pid":)" + gc_pid + R"(,"tid":0})",
      R"({"args":{"sort_index":1},"name":"process_sort_index","ph":"M","pid":)" + gc_pid + R"(,"tid":0})",
      R"({"args":{"name":"Python GC"},"name":"thread_name","ph":"M","pid":)" + gc_pid + R"(,"tid":6060})",
      R"({"args":{"sort_index":6060},"name":"thread_sort_index","ph":"M","pid":)" + gc_pid + R"(,"tid":6060})",
  };
  std::sort(want_meta.begin(), want_meta.end());
  CHECK(meta == want_meta);
  CHECK(of_cat(events, "GC") ==
        std::vector<std::string>{R"({"args":{},"cat":"GC","dur":10.0,"name":"GC","ph":"X","pid":)" + gc_pid +
                                 R"(,"tid":6060,"ts":")" + ts_at(300) + R"("})"});
}

TEST_CASE("trace_view: CANN events respaced as json.dumps writes them, strings and escapes left as they are") {
  // The rule, a byte at a time: a space after each ',' and ':' outside strings.
  const auto spaced = [](const std::string& json) {
    std::string out;
    bool in_string = false, escaped = false;
    for (const char c : json) {
      out += c;
      if (escaped)
        escaped = false;
      else if (in_string && c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = !in_string;
      else if (!in_string && (c == ',' || c == ':'))
        out += ' ';
    }
    return out;
  };
  const std::string event =
      R"({"name":"MatMul","pid":1024448,"tid":0,"ts":"1767268800000020.000","dur":8.0,"ph":"X",)"
      R"("args":{"Task Type":"AI_CORE","connection_id":1}})";
  std::string out = "kept:";
  pt::append_spaced(out, event);
  CHECK(out == R"(kept:{"name": "MatMul", "pid": 1024448, "tid": 0, "ts": "1767268800000020.000", "dur": 8.0, )"
               R"("ph": "X", "args": {"Task Type": "AI_CORE", "connection_id": 1}})");
  // Strings holding separators, quotes and backslashes (an escaped backslash
  // before a closing quote too), at every place relative to 16-byte blocks,
  // and random texts of the characters that matter.
  const std::string tricky = R"({"a,b:c":"x\"y,z","k\\":"v:\\","e":"\\\"",":":[1,2]},)";
  for (std::size_t shift = 0; shift < 40; ++shift) {
    const std::string json = std::string(shift, '1') + tricky + tricky;
    std::string got;
    pt::append_spaced(got, json);
    CHECK_MESSAGE(got == spaced(json), "shift ", shift);
  }
  std::uint32_t seed = 12345;
  const auto next = [&seed] { return (seed = seed * 1103515245u + 12345u) >> 16; };
  const std::string alphabet = "\"\\,:ab{} 1";
  for (int round = 0; round < 20000; ++round) {
    std::string json(next() % 80, ' ');
    for (auto& c : json) c = alphabet[next() % alphabet.size()];
    std::string got = "x";
    pt::append_spaced(got, json);
    if (got != "x" + spaced(json)) FAIL_CHECK("input: ", json, " got: ", got);
  }
}
