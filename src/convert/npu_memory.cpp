// SPDX-License-Identifier: MIT
// CANN's memory data, read from the slices as the reference (9ba1ac7be)
// exports it. npu_module_mem (NpuModuleMemProcessor): the host counter
// through each device's own host_start.log.<id> clock, plus its start_info.<id>'s
// offset (own_clock); samples before its collection start dropped; a size past INT64_MAX is what the reference makes
// of its -1 (2^64 - 1). task_memory_info (NpuOpMemParser, NpuOpMemCalculator,
// NpuOpMemProcessor): the same clock; names through hash_dic.
#include "msprof/convert/npu_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <string_view>
#include <tuple>

#include "msprof/convert/db.hpp"
#include "msprof/convert/device_slices.hpp"
#include "msprof/convert/text.hpp"
#include "msprof/prof/reader.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {


const std::vector<std::pair<std::uint32_t, const char*>>& module_names() {
  static const std::vector<std::pair<std::uint32_t, const char*>> names = {
      {0, "SLOG"},        {1, "IDEDD"},     {2, "SCC"},       {3, "HCCL"},          {4, "FMK"},     {5, "CCU"},
      {6, "DVPP"},        {7, "RUNTIME"},   {8, "CCE"},       {9, "HDC"},           {10, "DRV"},    {11, "NET"},
      {22, "DEVMM"},      {23, "KERNEL"},   {24, "LIBMEDIA"}, {25, "CCECPU"},       {27, "ROS"},    {28, "HCCP"},
      {29, "ROCE"},       {30, "TEFUSION"}, {31, "PROFILING"}, {32, "DP"},          {33, "APP"},    {34, "TS"},
      {35, "TSDUMP"},     {36, "AICPU"},    {37, "LP"},       {38, "TDT"},          {39, "FE"},     {40, "MD"},
      {41, "MB"},         {42, "ME"},       {43, "IMU"},      {44, "IMP"},          {45, "GE"},     {47, "CAMERA"},
      {48, "ASCENDCL"},   {49, "TEEOS"},    {50, "ISP"},      {51, "SIS"},          {52, "HSM"},    {53, "DSS"},
      {54, "PROCMGR"},    {55, "BBOX"},     {56, "AIVECTOR"}, {57, "TBE"},          {58, "FV"},     {60, "TUNE"},
      {61, "HSS"},        {62, "FFTS"},     {63, "OP"},       {64, "UDF"},          {65, "HICAID"}, {66, "TSYNC"},
      {67, "AUDIO"},      {68, "TPRT"},     {69, "ASCENDCKERNEL"}, {70, "ASYS"},    {71, "ATRACE"}, {72, "RTC"},
      {73, "SYSMONITOR"}, {74, "AMP"},      {75, "ADETECT"},  {76, "MBUFF"},        {77, "CUSTOM"}};
  return names;
}

const char* module_name(std::uint32_t id) {
  for (const auto& [k, v] : module_names())
    if (k == id) return v;
  return "Unknown";
}

std::vector<std::string> npu_module_mem_header() {
  return {"Device_id", "Component", "Timestamp(us)", "Total Reserved(KB)", "Device"};
}

result<void> for_each_module_mem(const std::string& prof_dir, std::vector<std::string>& warnings,
                                 const std::function<result<void>(const module_mem_sample&)>& fn) {
  auto r = detail::open_for_slices(prof_dir, true, std::string(prof::layout::npu_module_mem) + ".data.", false);
  if (!r) return {};
  const auto& host = r->host();
  result<void> status;
  std::uint64_t bad_time = 0;
  for (const auto& d : r->devices()) {
    const auto clock = detail::own_clock(prof_dir, host, d, warnings);
    const std::int64_t offset = clock.wall_offset_ns();
    const auto start = clock.start_ns();
    module_mem_sample s;
    s.device_id = d.id;
    auto read = r->for_each_npu_module_mem(d.id, [&](const codec::NpuModuleMem& m, const codec::place&) {
      if (!status) return;
      const auto t = prof::time_ns::to_wall(clock.host_ticks.monotonic_ns(m.cpuCycleCount), offset);
      if (!t) {
        ++bad_time;
        return;
      }
      if (*t < start) return;
      s.module_id = m.moduleId;
      s.time_ns = *t;
      s.reserved = m.totalSize > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                       ? std::numeric_limits<std::uint64_t>::max()
                       : m.totalSize;
      status = fn(s);
    });
    MSPROF_TRY(read);
    MSPROF_TRY(status);
  }
  detail::slice_warnings(*r, prof::layout::npu_module_mem, warnings);
  if (bad_time)
    warnings.push_back(prof_dir + ": " + std::to_string(bad_time) +
                       " npu_module_mem sample(s) with a time outside the clock's range were skipped");
  return {};
}


const char* npu_mem_event_name(std::uint32_t event) {
  return event == 0 ? "APP" : event == 1 ? "Device" : "Unknown";
}

std::vector<std::string> npu_mem_header() {
  return {"Device_id", "event", "ddr(KB)", "hbm(KB)", "memory(KB)", "timestamp(us)"};
}

result<void> for_each_npu_mem(const std::string& prof_dir, std::vector<std::string>& warnings,
                              const std::function<result<void>(const npu_mem_sample&)>& fn) {
  auto r = detail::open_for_slices(prof_dir, true, std::string(prof::layout::npu_mem) + ".data.", false);
  if (!r) return {};
  const auto& host = r->host();
  result<void> status;
  std::uint64_t bad_time = 0;
  for (const auto& d : r->devices()) {
    const auto clock = detail::own_clock(prof_dir, host, d, warnings);
    const detail::sampling_clock local(clock);
    const auto start = clock.start_ns();
    npu_mem_sample s;
    s.device_id = d.id;
    auto read = r->for_each_npu_mem(d.id, [&](const codec::NpuMem& m, const codec::place&) {
      if (!status) return;
      const auto t = local(m.sampleTimeUs);
      if (!t) {
        ++bad_time;
        return;
      }
      s.time_ns = *t;
      if (s.time_ns < start) return;
      s.event = m.event;
      s.ddr = m.ddr;
      s.hbm = m.hbm;
      status = fn(s);
    });
    MSPROF_TRY(read);
    MSPROF_TRY(status);
  }
  detail::slice_warnings(*r, prof::layout::npu_mem, warnings);
  if (bad_time)
    warnings.push_back(prof_dir + ": " + std::to_string(bad_time) +
                       " npu_mem sample(s) with a time outside the clock's range were skipped");
  return {};
}

result<void> npu_mem_app_rows(const std::string& prof_dir, std::vector<std::string>& warnings,
                              const std::function<result<void>(std::vector<std::string>&&)>& fn) {
  return for_each_npu_mem(prof_dir, warnings, [&](const npu_mem_sample& m) -> result<void> {
    if (m.event != 0) return {};
    const double mb = static_cast<double>((m.ddr + m.hbm) / 1024) / 1024.0;  // the summary's whole KB
    return fn({"APP", ts_us(m.time_ns) + '\t', "", py_float(mb), "", "", "NPU:" + std::to_string(m.device_id)});
  });
}

std::vector<std::string> static_op_mem_header() {
  return {"Device_id", "Op Name", "Model Name", "Graph ID", "Node Index Start", "Node Index End", "Size(KB)"};
}

std::string static_op_mem_kb(std::int64_t bytes) {
  // The reference stores bytes / 1024.0 in a NUMERIC column, which keeps a whole value as an integer.
  const double kb = static_cast<double>(bytes) / 1024.0;
  if (kb == std::floor(kb) && std::fabs(kb) < 9.2e18) return std::to_string(static_cast<std::int64_t>(kb));
  return py_float(kb);
}

result<void> for_each_static_op_mem(const std::string& prof_dir, std::vector<std::string>& warnings,
                                    const std::function<result<void>(const static_op_mem_row&)>& fn) {
  auto r = detail::open_for_slices(
      prof_dir, false, std::string(".") + prof::layout::tag::static_op_mem + prof::layout::slice_infix, true);
  if (!r) return {};
  const auto name = [&](std::uint64_t h) {
    const auto n = r->hashes().find(h);
    return n != r->hashes().end() ? n->second : std::to_string(h);
  };
  result<void> status;
  static_op_mem_row row;
  MSPROF_TRY(r->for_each_static_op_mem([&](const prof::host_record<codec::MsprofStaticOpMem>& rec) {
    if (!status) return;
    const auto& m = rec.payload;
    row.op = name(m.opName);
    if (row.op == "0") row.op = "TOTAL";
    row.model = name(m.dynOpName);
    row.graph_id = m.graphId;
    row.start = m.lifeStart;
    row.end = m.lifeEnd == 4294967294u ? 4294967295u : m.lifeEnd;
    row.size = m.opMemSize;
    status = fn(row);
  }));
  MSPROF_TRY(status);
  detail::slice_warnings(*r, prof::layout::tag::static_op_mem, warnings);
  return {};
}

/// NPU_MEM: the samples in file order, bytes and ns; the type "app" or
/// "device" as a string id (registered at the first sample, after GE's
/// strings and before the tasks', as the reference registers them), another event as its number.
result<void> db_window_writer::write_npu_mem(const std::string& prof_dir) {
  detail::table_writer* t = nullptr;
  std::int64_t app = 0, device = 0;
  MSPROF_TRY(for_each_npu_mem(prof_dir, warnings_, [&](const npu_mem_sample& s) -> result<void> {
    if (!t) {
      t = &rows_of("NPU_MEM");
      app = ids_.id("app");
      device = ids_.id("device");
    }
    const std::int64_t type = s.event == 0 ? app : s.event == 1 ? device : static_cast<std::int64_t>(s.event);
    t->row(type, s.ddr, s.hbm, s.time_ns, s.device_id);
    return status_;
  }));
  if (t) lap(*t);
  return status_;
}

std::string py_round3(double v) { return py_round(v, 3); }

std::vector<std::string> ge_memory_record_header() {
  return {"Device_id", "Component", "Timestamp(us)", "Total Allocated(KB)", "Total Reserved(KB)", "Device"};
}
std::vector<std::string> ge_operator_memory_header() {
  return {"Device_id",
          "Name",
          "Size(KB)",
          "Allocation Time(us)",
          "Duration(us)",
          "Allocation Total Allocated(KB)",
          "Allocation Total Reserved(KB)",
          "Release Total Allocated(KB)",
          "Release Total Reserved(KB)",
          "Device"};
}

result<void> for_each_ge_memory(const std::string& prof_dir, std::vector<std::string>& warnings,
                                std::vector<std::uint32_t>& devices,
                                const std::function<result<void>(const ge_memory_event&)>& fn) {
  auto r = detail::open_for_slices(
      prof_dir, false, std::string(".") + prof::layout::tag::task_memory_info + prof::layout::slice_infix, true);
  if (!r) return {};
  for (const auto& d : r->devices()) devices.push_back(d.id);
  const auto& host = r->host();
  const std::int64_t offset = host.wall_offset_ns();
  result<void> status;
  std::uint64_t bad_time = 0;
  ge_memory_event e;
  MSPROF_TRY(r->for_each_task_memory_info([&](const prof::host_record<codec::MsprofMemoryInfo>& rec) {
    if (!status) return;
    const auto mono = host.clock.monotonic_ns(rec.head.timeStamp);
    const auto t = prof::time_ns::to_wall(mono, offset);
    if (!t) {
      ++bad_time;
      return;
    }
    const auto& m = rec.payload;
    const auto name = r->hashes().find(m.nodeId);
    e.named = name != r->hashes().end();
    e.name = e.named ? name->second : std::to_string(m.nodeId);
    e.node = m.nodeId;
    e.addr = m.addr;
    e.size = m.size;
    e.allocated = m.totalAllocateMemory;
    e.reserved = m.totalReserveMemory;
    e.device_id = m.deviceId;
    e.thread_id = rec.head.threadId;
    e.mono_ns = *mono;
    e.time_ns = *t;
    status = fn(e);
  }));
  MSPROF_TRY(status);
  detail::slice_warnings(*r, prof::layout::tag::task_memory_info, warnings);
  if (bad_time)
    warnings.push_back(prof_dir + ": " + std::to_string(bad_time) +
                       " task_memory_info record(s) with a time outside the clock's range were skipped");
  return {};
}

result<void> for_each_ge_op_memory(const std::string& prof_dir, std::vector<std::string>& warnings,
                                   std::vector<std::uint32_t>& devices,
                                   const std::function<result<void>(const ge_memory_event&, const ge_memory_event*)>& fn,
                                   std::int64_t from_ns) {
  // The allocations not yet released, by (op, address, device), with the order
  // their key first came (a Python dict keeps a key's place when its value is replaced).
  using key = std::tuple<std::uint64_t, std::uint64_t, std::uint32_t>;
  std::map<key, std::pair<std::uint64_t, ge_memory_event>> open;
  std::uint64_t arrivals = 0;
  MSPROF_TRY(for_each_ge_memory(prof_dir, warnings, devices, [&](const ge_memory_event& e) -> result<void> {
    if (e.time_ns < from_ns) return {};
    const key k{e.node, e.addr, e.device_id};
    if (e.size > 0) {
      auto it = open.find(k);
      if (it == open.end())
        open.emplace(k, std::make_pair(arrivals++, e));
      else
        it->second.second = e;
      return {};
    }
    if (e.size == 0) return {};
    auto it = open.find(k);
    if (it == open.end()) return {};
    MSPROF_TRY(fn(it->second.second, &e));
    open.erase(it);
    return {};
  }));
  std::vector<const std::pair<std::uint64_t, ge_memory_event>*> left;
  for (const auto& kv : open) left.push_back(&kv.second);
  std::sort(left.begin(), left.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  for (const auto* p : left) MSPROF_TRY(fn(p->second, nullptr));
  return {};
}

result<void> module_mem_rows::read(const std::string& prof_dir, std::vector<std::string>& warnings) {
  MSPROF_TRY(for_each_module_mem(prof_dir, warnings, [this](const module_mem_sample& s) -> result<void> {
    rows_.push_with({s.module_id, s.time_ns}, [&](std::string& b) {
      put(b, s.device_id);
      put(b, s.reserved);
    });
    return {};
  }));
  return rows_.take_status();
}

result<void> module_mem_rows::drain(const std::function<void(const module_mem_sample&)>& fn) {
  return rows_.drain([&](const key& k, std::string_view p) {
    module_mem_sample s;
    s.module_id = k.module_id;
    s.time_ns = k.time_ns;
    payload_reader r{p};
    s.device_id = r.get<decltype(s.device_id)>();
    s.reserved = r.get<decltype(s.reserved)>();
    fn(s);
  });
}

/// NPU_MODULE_MEM: the samples in file order (the reference's), bytes and ns.
result<void> db_window_writer::write_module_mem(const std::string& prof_dir) {
  detail::table_writer* t = nullptr;
  MSPROF_TRY(for_each_module_mem(prof_dir, warnings_, [&](const module_mem_sample& s) -> result<void> {
    if (!t) t = &rows_of("NPU_MODULE_MEM");
    t->row(s.module_id, s.time_ns, s.reserved, s.device_id);
    return status_;
  }));
  if (t) lap(*t);
  return status_;
}

/// NPU_OP_MEM: the events from the collection start on, in file order; "GE"
/// and the op names registered in that order, between the CANN_API names and
/// the tasks' strings (the reference's order).
result<void> db_window_writer::write_ge_memory(const model& final) {
  detail::table_writer* t = nullptr;
  std::int64_t ge = 0;
  std::vector<std::uint32_t> devices;
  MSPROF_TRY(for_each_ge_memory(final.session.prof_dir, warnings_, devices, [&](const ge_memory_event& e) -> result<void> {
    if (e.time_ns < final.session.start_ns) return {};
    if (!t) {
      t = &rows_of("NPU_OP_MEM");
      ge = ids_.id("GE");
    }
    const std::int64_t name = ids_.id(e.name);
    const std::int64_t type = ids_.id(e.size < 0 ? "release" : "allocate");
    const std::uint64_t size = e.size < 0 ? 0 - static_cast<std::uint64_t>(e.size) : static_cast<std::uint64_t>(e.size);
    t->row(name, e.addr, type, size, e.time_ns, gtid(final, e.thread_id), e.allocated, e.reserved, ge, e.device_id);
    return status_;
  }));
  if (t) lap(*t);
  return status_;
}

}  // namespace convert
MSPROF_END_NAMESPACE
