// SPDX-License-Identifier: MIT
// npu_module_mem samples, read from the device slices as the reference's C++
// path exports them (9ba1ac7be, NpuModuleMemProcessor): the host counter
// through host_start.log's clock, plus start_info's offset; samples before the
// collection start dropped; a size past INT64_MAX is what the reference makes
// of its -1 (2^64 - 1).
#include "msprof/convert/npu_memory.hpp"

#include <cstring>
#include <limits>
#include <string_view>

#include "msprof/convert/db.hpp"
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
  prof::reader_options ro;
  ro.max_dictionary_bytes = 0;  // the samples need no dictionary; its warning is filtered out below
  auto r = prof::prof_reader::open(prof_dir, ro);
  if (!r) return {};
  const auto& host = r->host();
  const std::int64_t offset = host.wall_offset_ns();
  const auto start = prof::time_ns::from_us(host.collection_time_begin_us).value_or(0);
  result<void> status;
  std::uint64_t bad_time = 0;
  for (const auto& d : r->devices()) {
    module_mem_sample s;
    s.device_id = d.id;
    auto read = r->for_each_npu_module_mem(d.id, [&](const codec::NpuModuleMem& m, const codec::place&) {
      if (!status) return;
      const auto t = prof::time_ns::to_wall(host.clock.monotonic_ns(m.cpuCycleCount), offset);
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
  const std::string_view stem = std::string_view(prof::layout::npu_module_mem) ;
  for (const auto& w : r->warnings()) {
    const auto slash = w.file.rfind('/');
    if (std::string_view(w.file).substr(slash == std::string::npos ? 0 : slash + 1).substr(0, stem.size()) == stem)
      warnings.push_back(w.text());
  }
  if (bad_time)
    warnings.push_back(prof_dir + ": " + std::to_string(bad_time) +
                       " npu_module_mem sample(s) with a time outside the clock's range were skipped");
  return {};
}

result<void> module_mem_rows::read(const std::string& prof_dir, std::vector<std::string>& warnings) {
  MSPROF_TRY(for_each_module_mem(prof_dir, warnings, [this](const module_mem_sample& s) -> result<void> {
    rows_.push_with({s.module_id, s.time_ns}, [&](std::string& b) {
      b.append(reinterpret_cast<const char*>(&s.device_id), sizeof s.device_id);
      b.append(reinterpret_cast<const char*>(&s.reserved), sizeof s.reserved);
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
    std::memcpy(&s.device_id, p.data(), sizeof s.device_id);
    std::memcpy(&s.reserved, p.data() + sizeof s.device_id, sizeof s.reserved);
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

}  // namespace convert
MSPROF_END_NAMESPACE
