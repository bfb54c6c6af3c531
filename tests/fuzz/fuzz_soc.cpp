// SPDX-License-Identifier: MIT
// Fuzz entries of the SoC JOB directory (docs/formats.md, "JOB directories"):
// soc_decode feeds the same bytes to every record decoder of codec/soc.hpp;
// soc_job writes a scratch JOB directory from chunks (as the PROF_ targets do,
// with kJobFiles) and reads it with load_job, then imports it. Linked into
// fuzz_soc_decode, fuzz_soc_job and fuzz_replay (corpus/soc_decode, corpus/soc_job).
#include <msprof/codec/soc.hpp>
#ifdef MSPROF_FUZZ_WITH_CONVERT
#include <msprof/convert/soc/import.hpp>
#include <msprof/convert/soc/job.hpp>
#endif

#include "targets.hpp"

namespace msprof_fuzz {

int soc_decode(const std::uint8_t* data, std::size_t size) {
  namespace s = msprof::codec::soc;
  const codec::place at{"fuzz", 0};
  if (auto r = s::decode_acl(data, size, at)) sink = sink + touch(*r) + s::acl_name(*r).size();
  if (auto r = s::decode_task(data, size, at)) sink = sink + touch(*r);
  if (auto r = s::decode_aacore(data, size, at)) {
    require(r->mac_busy <= r->total_cycles && r->wld <= r->total_cycles, "counters within the task's cycles");
    sink = sink + touch(*r);
  }
  // ModelDesc records one after another, as load_job walks a slice.
  std::size_t off = 0;
  while (off < size) {
    auto r = s::decode_desc(data + off, size - off, at);
    if (!r) {
      require(!r.err().message.empty(), "an error has a message");
      break;
    }
    require(r->size >= sizeof(s::soc_desc_header) && r->size <= size - off, "a record within the input");
    sink = sink + r->model.file_name.size() + r->layer.ori_name.size() + r->layer.name.size() + r->layer.type.size() +
           r->inference.iteration;
    off += r->size;
  }
  return 0;
}

#ifdef MSPROF_FUZZ_WITH_CONVERT
// The files of a scratch JOB directory, chunk index % count.
inline constexpr const char* kJobFiles[] = {
    "info.json.0",
    "data/AclModule.data.0.slice_0",
    "data/AclModule.data.0.slice_0.done",
    "data/TaskScheduler.data.0.slice_0",
    "data/TaskScheduler.data.0.slice_0.done",
    "data/AAcore.data.0.slice_0",
    "data/AAcore.data.0.slice_0.done",
    "data/ModelDesc.data.0.slice_0",
    "data/ModelDesc.data.0.slice_0.done",
    "data/ModelDesc.data.0.slice_1",
    "data/TaskScheduler.data.0.slice_1",
    "data/AAcore.data.1.slice_0",
    "info.json.1",
};

int soc_job(const std::uint8_t* data, std::size_t size) {
  // Beside the PROF_ targets' scratch directory, in the per-process folder fuzz_replay removes at its end.
  const fs::path root = scratch_dir().parent_path() / "JOBFUZZ00000";
  std::error_code ec;
  fs::remove_all(root, ec);
  fs::create_directories(root / "data", ec);
  constexpr std::size_t count = sizeof kJobFiles / sizeof kJobFiles[0];
  std::vector<std::string> contents(count);
  std::vector<bool> present(count, false);
  std::size_t pos = 0;
  while (pos < size) {
    const std::size_t index = data[pos] % count;
    std::size_t len = 0;
    if (pos + 3 <= size) len = data[pos + 1] | static_cast<std::size_t>(data[pos + 2]) << 8;
    pos = std::min(pos + 3, size);
    len = std::min(len, size - pos);
    contents[index].append(reinterpret_cast<const char*>(data) + pos, len);
    present[index] = true;
    pos += len;
  }
  for (std::size_t i = 0; i < count; ++i)
    if (present[i]) std::ofstream(root / kJobFiles[i], std::ios::binary | std::ios::trunc) << contents[i];
  namespace cs = msprof::convert::soc;
  auto j = cs::load_job(root.string());
  if (!j) {
    require(!j.err().message.empty(), "an error has a message");
    return 0;
  }
  for (const auto& w : j->warnings) require(w.find(root.string()) != std::string::npos, "a warning names the JOB directory or file");
  std::size_t tasks = 0;
  for (const auto& m : j->models) {
    tasks += m.tasks.size();
    require(m.icache_miss_rate >= 0 && m.icache_miss_rate <= 1, "icache miss rate is a ratio");
    for (const auto& t : m.tasks)
      if (t.pmu) require(t.pmu->mac_busy >= 0 && t.pmu->mac_busy <= 1 && t.pmu->dld <= 1, "PMU ratios within [0, 1]");
  }
  require(tasks <= size / sizeof(msprof::codec::soc::soc_task_record), "no more tasks than the bytes hold");
  if (auto r = cs::write_job_db(*j)) sink = sink + r->files.size();
  else require(!r.err().message.empty(), "an error has a message");
  return 0;
}
#endif

}  // namespace msprof_fuzz
