// SPDX-License-Identifier: MIT
// The join's matching rules on hand-made raw collections: per (device, stream,
// task) key, the i-th launch takes the i-th device span and the i-th PMU record,
// whatever the order the keys arrive in; the same with every stream spilled to
// disk and tiny windows.
#include <doctest/doctest.h>
#include <msprof/convert/join.hpp>
#include <msprof/convert/timeline.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <random>
#include <tuple>
#include <vector>

namespace cv = msprof::convert;

TEST_CASE("join: a reused task id takes its spans and PMU records in launch order, leftovers are reported") {
  namespace raw = cv::raw;
  raw::collection c;  // host and device clocks in ns, wall offset 0
  c.types[{cv::level::runtime, 0}] = "KERNEL_AICORE";
  c.apis.push_back({cv::level::acl, 1, 1, 100, 5000, 0});
  // Task id 7 on stream 1 launched twice (the id wrapped), task 8 once; the
  // task_track records arrive out of time order.
  c.tracks.push_back({2000, 1, 0, 1, 7, 0, 0});   // second launch of 7
  c.tracks.push_back({1000, 1, 0, 1, 7, 0, 0});   // first launch of 7
  c.tracks.push_back({1500, 1, 0, 1, 8, 0, 0});
  c.tracks.push_back({1600, 1, 0, 1, 11, 0, 0});  // never ran on the device
  // Device spans: key 7 twice in arrival order, key 8 once, key 9 nobody launched.
  for (auto [task, start, end] : {std::tuple{7, 10000, 11000}, std::tuple{8, 10500, 10600},
                                  std::tuple{7, 12000, 12500}, std::tuple{9, 13000, 13100}}) {
    c.acsqs.push_back({0, true, 1, static_cast<std::uint16_t>(task), static_cast<std::uint64_t>(start)});
    c.acsqs.push_back({0, false, 1, static_cast<std::uint16_t>(task), static_cast<std::uint64_t>(end)});
  }
  // PMU records of key 7, in device order: the first belongs to the first launch.
  c.pmus.push_back({0, 1, 7, {111, {}}});
  c.pmus.push_back({0, 1, 7, {222, {}}});

  const cv::model m = cv::join(std::move(c));
  REQUIRE(m.tasks.size() == 4);
  // Launch order: 7 (t=1000), 8 (1500), 7 (2000), then the orphan 9.
  CHECK(m.tasks[0].task_id == 7);
  CHECK(m.tasks[0].start_ns == 10000);
  CHECK(m.tasks[0].track_ns == 1000);
  REQUIRE(m.tasks[0].pmu);
  CHECK(m.tasks[0].pmu->total_cycles == 111);
  CHECK(m.tasks[1].task_id == 8);
  CHECK(m.tasks[1].start_ns == 10500);
  CHECK_FALSE(m.tasks[1].pmu);
  CHECK(m.tasks[2].task_id == 7);
  CHECK(m.tasks[2].start_ns == 12000);
  REQUIRE(m.tasks[2].pmu);
  CHECK(m.tasks[2].pmu->total_cycles == 222);
  CHECK(m.tasks[3].task_id == 9);
  CHECK(m.tasks[3].task_type == "UNKNOWN");
  CHECK(m.tasks[3].connection_id == 0);
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    CHECK(m.tasks[i].connection_id == m.apis[0].connection_id);
    CHECK(m.tasks[i].global_task_id == i);
  }
  CHECK(m.apis[0].has_device_task);
  auto has = [&](const char* part) {
    for (const auto& w : m.warnings)
      if (w.find(part) != std::string::npos) return true;
    return false;
  };
  CHECK(has("1 task_track record(s) have no device task"));
  CHECK(has("1 device task(s) have no task_track record"));
}

TEST_CASE("join: a launch no call above the runtime level contains takes its thread's id, which names no call") {
  // The reference links a task_track in its per-thread tree of calls, which
  // leaves out the runtime level: to the innermost call containing it, else to
  // the root of the thread's tree, an id of no call (an mstx marker with a
  // stream, called outside every API).
  namespace raw = cv::raw;
  raw::collection c;  // host and device clocks in ns, wall offset 0
  c.types[{cv::level::runtime, 0}] = "KERNEL_AICORE";
  c.types[{cv::level::runtime, 100}] = "MSTX_MARKER";
  c.apis.push_back({cv::level::acl, 1, 1, 100, 1000, 0});       // id 1: thread 1
  c.apis.push_back({cv::level::acl, 1, 2, 150, 1000, 0});       // id 2: thread 2
  c.apis.push_back({cv::level::runtime, 2, 1, 2000, 3000, 0});  // id 3: thread 1, runtime only
  c.tracks.push_back({500, 1, 0, 1, 0, 0, 0});     // a kernel in call 1
  c.tracks.push_back({1500, 1, 0, 1, 1, 100, 0});  // a marker between the calls: thread 1's id
  c.tracks.push_back({2500, 1, 0, 1, 2, 100, 0});  // a marker only in runtime call 3: thread 1's id
  c.tracks.push_back({150, 2, 0, 2, 0, 100, 0});   // a marker at call 2's start, so not in it: thread 2's id
  c.tracks.push_back({1000, 2, 0, 2, 1, 100, 0});  // a marker at call 2's end: in it
  for (std::uint16_t stream : {1, 2})
    for (std::uint16_t task = 0; task < 3; ++task) {
      c.acsqs.push_back({0, true, stream, task, 10000u + task * 100u});
      c.acsqs.push_back({0, false, stream, task, 10020u + task * 100u});
    }
  c.session.devices.push_back({0, 1800, 24, 48});
  const cv::model m = cv::join(std::move(c));
  REQUIRE(m.apis.size() == 3);
  REQUIRE(m.tasks.size() == 6);  // 5 launches and device task (2, 2) that nobody launched
  auto task = [&](std::uint32_t stream, std::uint32_t id) -> const cv::device_task& {
    return *std::find_if(m.tasks.begin(), m.tasks.end(),
                         [&](const cv::device_task& t) { return t.stream_id == stream && t.task_id == id; });
  };
  CHECK(task(1, 0).connection_id == 1);
  CHECK(task(2, 1).connection_id == 2);
  // Thread ids follow the calls' (1..3), in the order the sweep first needs
  // them: thread 2 at 150, thread 1 at 1500.
  CHECK(task(2, 0).connection_id == 4);
  CHECK(task(1, 1).connection_id == 5);
  CHECK(task(1, 2).connection_id == 5);
  CHECK(task(2, 2).connection_id == 0);  // no task_track
  // HostToDevice flows as the reference draws them: to the kernel, never to a marker.
  for (const auto& t : m.tasks) {
    CAPTURE(t.task_id);
    CHECK(t.host_flow == (t.task_type == "KERNEL_AICORE"));
  }
  CHECK(m.apis[0].has_device_task);
  CHECK_FALSE(m.apis[1].has_device_task);
  CHECK_FALSE(m.apis[2].has_device_task);

  // The timeline keeps the ids in the slices' args and draws the one flow.
  std::map<std::string, int> flows;
  std::set<std::int64_t> marker_ids;
  for (const auto& e : cv::build_timeline(m)) {
    if (e.ph == 's' || e.ph == 'f') ++flows[std::string(1, e.ph) + e.id];
    if (e.ph == 'X' && e.name == "MSTX_MARKER")
      for (const auto& a : e.args)
        if (a.key == "connection_id") marker_ids.insert(a.i);
  }
  CHECK(flows == std::map<std::string, int>{{"s4294967296", 1}, {"f4294967296", 1}});
  CHECK(marker_ids == std::set<std::int64_t>{2, 4, 5});
}

TEST_CASE("join: a MEMCPY_ASYNC launch takes the memcpy_info of its thread and timestamp, maxSize bytes per task") {
  namespace raw = cv::raw;
  raw::collection c;
  c.types[{cv::level::runtime, 9}] = "MEMCPY_ASYNC";
  c.types[{cv::level::runtime, 0}] = "KERNEL_AICORE";
  c.apis.push_back({cv::level::acl, 1, 1, 100, 9000, 0});
  c.apis.push_back({cv::level::acl, 1, 2, 100, 9000, 0});
  // Thread 1: a copy at 1000; a 10000-byte copy at 2000 split over two tasks
  // (maxSize 6000); a copy at 3000 with no memcpy_info; a kernel at 4000.
  // Thread 2: a memcpy_info at 1000 (another thread: not task 0's).
  c.memcpys.push_back({1000, 2, 777, 777, 3});
  c.memcpys.push_back({1000, 1, 4096, 4096, 1});
  c.memcpys.push_back({2000, 1, 10000, 6000, 2});
  c.tracks.push_back({1000, 1, 0, 1, 0, 9, 0});
  c.tracks.push_back({2000, 1, 0, 1, 1, 9, 0});
  c.tracks.push_back({2000, 1, 0, 1, 2, 9, 0});
  c.tracks.push_back({3000, 1, 0, 1, 3, 9, 0});
  c.tracks.push_back({4000, 1, 0, 1, 4, 0, 0});
  for (std::uint16_t task = 0; task < 5; ++task) {
    const std::uint16_t sqe = task < 4 ? 11 : 0;
    c.acsqs.push_back({0, true, 1, task, 10000u + task * 100u, sqe});
    c.acsqs.push_back({0, false, 1, task, 10050u + task * 100u, sqe});
  }
  const cv::model m = cv::join(std::move(c));
  REQUIRE(m.tasks.size() == 5);
  const std::uint64_t size[] = {4096, 6000, 4000, 0};
  const std::uint16_t op[] = {1, 2, 2, 65535};
  for (std::size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(m.tasks[i].task_type == "MEMCPY_ASYNC");
    CHECK(m.tasks[i].sqe_type == 11);
    REQUIRE(m.tasks[i].memcpy);
    CHECK(m.tasks[i].memcpy->size == size[i]);
    CHECK(m.tasks[i].memcpy->operation == op[i]);
  }
  CHECK(m.tasks[4].sqe_type == 0);
  CHECK_FALSE(m.tasks[4].memcpy);
  bool warned = false;
  for (const auto& w : m.warnings) warned = warned || w.find("1 MEMCPY_ASYNC task(s) have no memcpy_info") != std::string::npos;
  CHECK(warned);

  // The timeline slice, as the reference's MemcpyAsyncEvent: named by the
  // runtime type, typed by the SQE type, the copy's args after connection_id;
  // the event path and the direct JSON path write the same bytes.
  std::size_t slices = 0;
  for (const auto& e : cv::build_timeline(m)) {
    if (e.ph != 'X' || e.name != "MEMCPY_ASYNC") continue;
    std::string slow;
    cv::append_event_json(slow, e);
    const auto& t = m.tasks[slices++];
    std::string fast;
    cv::detail::append_task_json(fast, t, e.pid);
    CHECK(fast == slow);
    CAPTURE(slow);
    CHECK(slow.find("\"Task Type\":\"SDMA_SQE\"") != std::string::npos);
    CHECK(slow.find("\"connection_id\":1,\"size(B)\":" + std::to_string(t.memcpy->size) + ",\"bandwidth(GB/s)\":") !=
          std::string::npos);
    CHECK(slow.find(std::string(",\"operation\":\"") + cv::memcpy_operation_name(t.memcpy->operation) + "\"}}") !=
          std::string::npos);
  }
  CHECK(slices == 4);
  CHECK(cv::memcpy_operation_name(1) == std::string("host to device"));
  // 4096 bytes in 50 ns: 81.92 GB/s, the reference's B/ns.
  CHECK(cv::detail::memcpy_bandwidth(m.tasks[0], *m.tasks[0].memcpy) == 4096.0 / 50.0);
}

TEST_CASE("join: without memcpy_info records a MEMCPY_ASYNC task has no copy (the reference shows no copy args)") {
  namespace raw = cv::raw;
  raw::collection c;
  c.types[{cv::level::runtime, 9}] = "MEMCPY_ASYNC";
  c.apis.push_back({cv::level::runtime, 1, 1, 100, 9000, 0});
  c.tracks.push_back({1000, 1, 0, 1, 0, 9, 0});
  c.acsqs.push_back({0, true, 1, 0, 10000, 11});
  c.acsqs.push_back({0, false, 1, 0, 10050, 11});
  const cv::model m = cv::join(std::move(c));
  REQUIRE(m.tasks.size() == 1);
  CHECK(m.tasks[0].sqe_type == 11);
  CHECK_FALSE(m.tasks[0].memcpy);
  CHECK(m.warnings.empty());
}

TEST_CASE("join: tensor shapes hold up to 8 dimensions inline") {
  cv::tensor_shape s{2, 3};
  CHECK(s.size() == 2);
  CHECK(s[1] == 3);
  for (std::uint32_t d = 0; d < 10; ++d) s.push_back(d);
  CHECK(s.size() == 8);  // the record's array has 8: more cannot come from the data
  CHECK(std::vector<std::uint32_t>(s.begin(), s.end()) == std::vector<std::uint32_t>{2, 3, 0, 1, 2, 3, 4, 5});
}

namespace {

namespace raw = cv::raw;

// A collection with everything the join matches: three threads of nested calls,
// ops with tensors, task ids reused on two devices and four streams, launches
// without a device span, spans nobody launched, PMU records for some tasks.
raw::collection random_collection(std::uint32_t seed) {
  std::mt19937 rng(seed);
  raw::collection c;
  c.hashes = {{11, "op_a"}, {12, "Add"}, {21, "kernel_a"}};
  std::vector<raw::task_track> tracks;
  for (std::uint64_t i = 0; i < 600; ++i) {
    const std::uint32_t tid = 1 + static_cast<std::uint32_t>(i % 3);
    const std::uint64_t t0 = 1000000 + i * 1000 + rng() % 300;
    c.apis.push_back({cv::level::node, 5, tid, t0, t0 + 900, 0});  // node-level call
    c.apis.push_back({cv::level::runtime, 6, tid, t0 + 100, t0 + 800, 0});  // runtime call inside
    if (rng() % 4) {
      c.nodes.push_back({t0 + 50, tid, 11, 0, 12, 8, false});
      raw::tensor_info ti{t0 + 60, tid, 11, {}};
      ti.tensors.push_back({0, 2, 1, {4, 4}});
      c.tensors.push_back(ti);
    }
    const auto dev = static_cast<std::uint16_t>(rng() % 2), stream = static_cast<std::uint16_t>(rng() % 4);
    const auto task = static_cast<std::uint32_t>(rng() % 16);  // ids reused many times
    tracks.push_back({t0 + 200 + rng() % 500, tid, dev, stream, task, 0, 21});
  }
  // Device spans in launch order per key, interleaved across keys; every tenth
  // launch gets none; a few spans have no launch.
  std::stable_sort(tracks.begin(), tracks.end(), [](const auto& a, const auto& b) { return a.timestamp < b.timestamp; });
  std::uint64_t cyc = 5000000;
  for (std::size_t i = 0; i < tracks.size(); ++i) {
    const auto& t = tracks[i];
    if (i % 10 == 9) continue;
    c.acsqs.push_back({t.device_id, true, t.stream_id, static_cast<std::uint16_t>(t.task_id), cyc});
    c.acsqs.push_back({t.device_id, false, t.stream_id, static_cast<std::uint16_t>(t.task_id), cyc + 300});
    if (i % 3) c.pmus.push_back({t.device_id, t.stream_id, static_cast<std::uint16_t>(t.task_id), {cyc, {}}});
    cyc += 700;
  }
  for (std::uint16_t k = 0; k < 5; ++k) {
    c.acsqs.push_back({1, true, 7, k, cyc + k});
    c.acsqs.push_back({1, false, 7, k, cyc + 100 + k});
  }
  // task_track records arrive out of time order, as threads write them.
  std::shuffle(tracks.begin(), tracks.end(), rng);
  c.tracks = tracks;
  return c;
}

void check_same(const cv::model& a, const cv::model& b) {
  REQUIRE(a.apis.size() == b.apis.size());
  for (std::size_t i = 0; i < a.apis.size(); ++i) {
    CAPTURE(i);
    CHECK(std::tie(a.apis[i].connection_id, a.apis[i].start_ns, a.apis[i].end_ns, a.apis[i].thread_id,
                   a.apis[i].has_device_task) == std::tie(b.apis[i].connection_id, b.apis[i].start_ns,
                                                          b.apis[i].end_ns, b.apis[i].thread_id,
                                                          b.apis[i].has_device_task));
  }
  REQUIRE(a.tasks.size() == b.tasks.size());
  for (std::size_t i = 0; i < a.tasks.size(); ++i) {
    CAPTURE(i);
    const auto &x = a.tasks[i], &y = b.tasks[i];
    CHECK(std::tie(x.global_task_id, x.device_id, x.stream_id, x.task_id, x.start_ns, x.end_ns, x.track_ns,
                   x.connection_id, x.task_type, x.kernel_name) ==
          std::tie(y.global_task_id, y.device_id, y.stream_id, y.task_id, y.start_ns, y.end_ns, y.track_ns,
                   y.connection_id, y.task_type, y.kernel_name));
    CHECK((x.op == nullptr) == (y.op == nullptr));
    if (x.op && y.op) CHECK(x.op->tensors.size() == y.op->tensors.size());
    CHECK(x.pmu.has_value() == y.pmu.has_value());
    if (x.pmu && y.pmu) CHECK(x.pmu->total_cycles == y.pmu->total_cycles);
  }
  CHECK(a.warnings == b.warnings);
}

}  // namespace

TEST_CASE("join: every stream spilled to disk and one-record windows give the same model") {
  const auto whole = cv::join(random_collection(3));
  // The data has what the test is about.
  CHECK(whole.tasks.size() > 500);
  CHECK(std::count_if(whole.tasks.begin(), whole.tasks.end(), [](const auto& t) { return t.op != nullptr; }) > 100);
  CHECK(std::count_if(whole.tasks.begin(), whole.tasks.end(), [](const auto& t) { return t.pmu.has_value(); }) > 100);
  CHECK(std::count_if(whole.tasks.begin(), whole.tasks.end(), [](const auto& t) { return t.task_type == "UNKNOWN"; }) == 5);
  for (std::size_t i = 0; i < whole.tasks.size(); ++i) CHECK(whole.tasks[i].global_task_id == i);
  for (std::size_t i = 0; i < whole.apis.size(); ++i) CHECK(whole.apis[i].connection_id == i + 1);
  for (const auto& t : whole.tasks) {
    if (!t.host_flow) continue;
    const auto& api = whole.apis[t.connection_id - 1];
    // The reference's launcher: the innermost call above the runtime level
    // (Node@launch), not the rtKernelLaunch inside it.
    CHECK(api.level == cv::level::node);
    CHECK(api.start_ns <= t.track_ns);
    CHECK(t.track_ns <= api.end_ns);
  }
  for (std::size_t budget : {std::size_t{64}, std::size_t{4096}}) {
    for (std::size_t window : {std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
      CAPTURE(budget);
      CAPTURE(window);
      cv::stream_join::options o;
      o.spill_dir = std::filesystem::temp_directory_path().string();
      o.spill_budget = budget;
      o.window_records = window;
      check_same(whole, cv::join(random_collection(3), o));
    }
  }
}

TEST_CASE("join: an op reported after its kernel's launch does not reach that launch") {
  raw::collection c;
  c.hashes = {{11, "op_a"}};
  c.apis.push_back({cv::level::node, 5, 1, 1000, 9000, 0});
  c.tracks.push_back({2000, 1, 0, 1, 7, 0, 0});
  c.nodes.push_back({3000, 1, 11, 0, 11, 1, false});  // after the launch
  c.tracks.push_back({4000, 1, 0, 1, 8, 0, 0});
  for (std::uint16_t task : {7, 8}) {
    c.acsqs.push_back({0, true, 1, task, 10000u + task});
    c.acsqs.push_back({0, false, 1, task, 10100u + task});
  }
  const auto m = cv::join(std::move(c));
  REQUIRE(m.tasks.size() == 2);
  CHECK(m.tasks[0].op == nullptr);
  REQUIRE(m.tasks[1].op != nullptr);
  CHECK(m.tasks[1].op->name == "op_a");
}

TEST_CASE("join: ops outside every API call give the first N warnings, then one line with the count") {
  namespace raw = cv::raw;
  raw::collection c;
  c.apis.push_back({cv::level::runtime, 1, 1, 100, 200, 0});
  for (std::uint64_t i = 0; i < 1000; ++i) c.nodes.push_back({1000 + i, 1, i, 0, 0, 0, false});  // after the call
  cv::stream_join::options o = cv::in_memory();
  o.max_warnings_per_kind = 5;
  const cv::model m = cv::join(std::move(c), o);
  std::size_t lines = 0;
  bool count = false;
  for (const auto& w : m.warnings) {
    lines += w.find("lies outside every API call") != std::string::npos;
    count = count || w == "... and 995 more node_basic_info record(s) outside every API call; ops ignored";
  }
  CHECK(lines == 5);
  CHECK(count);
  CHECK(m.warnings.size() < 10);
}

TEST_CASE("join: tensors reported after a kernel's launch do not reach that launch, whatever the window") {
  // A launched task's op is not changed afterwards, whether its window is handed out yet or not.
  for (std::size_t window : {std::size_t{1}, std::size_t{1000}}) {
    CAPTURE(window);
    raw::collection c;
    c.hashes = {{11, "op_a"}};
    c.apis.push_back({cv::level::node, 5, 1, 1000, 9000, 0});
    c.nodes.push_back({1500, 1, 11, 0, 11, 1, false});
    c.tracks.push_back({2000, 1, 0, 1, 7, 0, 0});
    raw::tensor_info ti{3000, 1, 11, {}};  // after the first launch
    ti.tensors.push_back({0, 2, 1, {4, 4}});
    c.tensors.push_back(ti);
    c.tracks.push_back({4000, 1, 0, 1, 8, 0, 0});
    for (std::uint16_t task : {7, 8}) {
      c.acsqs.push_back({0, true, 1, task, 10000u + task});
      c.acsqs.push_back({0, false, 1, task, 10100u + task});
    }
    cv::stream_join::options o;
    o.spill_dir = std::filesystem::temp_directory_path().string();
    o.window_records = window;
    const auto m = cv::join(std::move(c), o);
    REQUIRE(m.tasks.size() == 2);
    REQUIRE(m.tasks[0].op != nullptr);
    REQUIRE(m.tasks[1].op != nullptr);
    CHECK(m.tasks[0].op->name == "op_a");
    CHECK(m.tasks[0].op->tensors.empty());
    CHECK(m.tasks[1].op->tensors.size() == 1);
  }
}

TEST_CASE("join: a record spool hands its records back in push order, from its file and from memory") {
  struct rec {
    std::uint64_t n;
    std::uint32_t tag;
  };
  const std::string dir = std::filesystem::temp_directory_path().string();
  for (std::size_t budget : {sizeof(rec), 3 * sizeof(rec), std::size_t{1} << 20}) {
    CAPTURE(budget);
    cv::detail::record_spool<rec> s(dir, budget);
    for (std::uint64_t i = 0; i < 20000; ++i) s.push({i, static_cast<std::uint32_t>(i * 7)});
    rec r{};
    std::uint64_t expect = 0;
    while (s.next(r)) {
      REQUIRE(r.n == expect);
      CHECK(r.tag == static_cast<std::uint32_t>(expect * 7));
      ++expect;
    }
    CHECK(expect == 20000);
    CHECK(s.take_status());
  }
}

TEST_CASE("join: a task table keeps a value per device, stream and task id, and lists the keys it was asked for") {
  // Keys: device << 32 | stream << 16 | task id (16 bits each).
  auto key = [](std::uint64_t dev, std::uint64_t stream, std::uint64_t task) { return dev << 32 | stream << 16 | task; };
  cv::detail::task_table<std::uint32_t> t;
  std::map<std::uint64_t, std::uint32_t> expect;  // the same counts in a plain map
  std::uint64_t x = 12345;
  for (int i = 0; i < 20000; ++i) {
    x = x * 6364136223846793005u + 1442695040888963407u;  // keys spread over 3 devices, 4 streams, all task ids
    const std::uint64_t k = key((x >> 60) % 3, (x >> 50) % 4 + 0xFFFC, (x >> 20) & 0xFFFF);
    ++t[k];
    ++expect[k];
  }
  ++t[key(0xFFFF, 0xFFFF, 0xFFFF)];  // the largest key
  ++expect[key(0xFFFF, 0xFFFF, 0xFFFF)];
  std::map<std::uint64_t, std::uint32_t> listed;
  t.each([&](std::uint64_t k, std::uint32_t n) {
    CHECK(listed.count(k) == 0);
    if (n != 0) listed[k] = n;  // unused keys of a used page are listed as 0
  });
  CHECK(listed == expect);
}

TEST_CASE("join: device records that cannot be spooled make the join fail, naming the file") {
  namespace raw = cv::raw;
  raw::collection c;  // device records only: their spools are the only streams that spill
  for (std::uint16_t task = 0; task < 50; ++task) {
    c.acsqs.push_back({0, true, 1, task, 1000u + task * 10u});
    c.acsqs.push_back({0, false, 1, task, 1005u + task * 10u});
    c.pmus.push_back({0, 1, task, {task, {}}});
  }
  cv::stream_join::options o;
  o.spill_dir = (std::filesystem::temp_directory_path() / "msprof_no_such_dir" / "x").string();
  o.spill_budget = 64;
  const cv::model m = cv::join(std::move(c), o);
  CHECK(std::any_of(m.warnings.begin(), m.warnings.end(), [](const std::string& w) {
    return w.find(".msprof_sort_") != std::string::npos && w.find("cannot create") != std::string::npos;
  }));
}

TEST_CASE("join: calls that end in the reverse order of their starts come out in connection-id order") {
  namespace raw = cv::raw;
  // Nested calls on one thread end innermost first: every window hands them
  // out by connection id, a few places out of order (insertion) or all of
  // them (sorted).
  for (std::uint64_t depth : {std::uint64_t{3}, std::uint64_t{300}}) {
    CAPTURE(depth);
    raw::collection c;
    for (std::uint64_t i = 0; i < depth; ++i) c.apis.push_back({cv::level::acl, 1, 1, 1000 + i, 100000 - i, 0});
    for (std::uint64_t i = 0; i < 50; ++i) c.apis.push_back({cv::level::acl, 1, 2, 200000 + 10 * i, 200005 + 10 * i, 0});
    cv::stream_join j(c.session, c.host_clock, {}, {}, {}, cv::in_memory());
    for (const auto& a : c.apis) j.add(a);
    std::vector<std::uint64_t> ids;
    auto m = j.run([&](cv::model& w) {
      for (std::size_t i = 1; i < w.apis.size(); ++i) CHECK(w.apis[i - 1].connection_id < w.apis[i].connection_id);
      for (const auto& a : w.apis) ids.push_back(a.connection_id);
    });
    REQUIRE(m);
    std::sort(ids.begin(), ids.end());
    CHECK(ids.size() == depth + 50);
    for (std::size_t i = 0; i < ids.size(); ++i) CHECK(ids[i] == i + 1);
  }
}
