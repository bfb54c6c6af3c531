// SPDX-License-Identifier: MIT
// CANN's own memory data of a PROF_ directory, read straight from its slices
// (it is not part of the joined model): the device's npu_module_mem samples,
// the memory each software module holds reserved. The summary writer, the db
// writer and `msprof analyse` all take the samples from here (docs/formats.md,
// "npu_module_mem").
#ifndef MSPROF_CONVERT_NPU_MEMORY_HPP
#define MSPROF_CONVERT_NPU_MEMORY_HPP

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "spill.hpp"

MSPROF_BEGIN_NAMESPACE
namespace prof {
class prof_reader;
}
namespace convert {

/// Helpers of the readers that take device or host slices straight from disk
/// (npu_memory.cpp).
namespace npu_slices {
/// Names of the warnings of `r` about slices whose name starts with `stem`.
void slice_warnings(const prof::prof_reader& r, std::string_view stem, std::vector<std::string>& out);
/// Whether a data directory of the PROF_ directory (host/data, or a
/// device_<id>/data when `device`) holds a file whose name contains `part`.
bool any_slice(const std::string& prof_dir, bool device, const std::string& part);
}  // namespace npu_slices

/// CANN's software modules (the db's ENUM_MODULE), in id order.
const std::vector<std::pair<std::uint32_t, const char*>>& module_names();
/// The module's name; "Unknown" (the summary's word) for an id without one.
const char* module_name(std::uint32_t id);

/// One npu_module_mem sample, on the wall clock.
struct module_mem_sample {
  std::uint32_t device_id = 0;
  std::uint32_t module_id = 0;
  std::int64_t time_ns = 0;   ///< local Unix ns (host counter + start_info's offset)
  std::uint64_t reserved = 0; ///< bytes
};

/// Every device's samples in file order (devices by id), those before the
/// collection start left out as the reference leaves them out. Problems of
/// the slices (a cut record, a time that does not fit) are added to
/// `warnings`, naming the file; the other samples are kept. A directory that
/// cannot be opened has no samples (its problem is the model loader's to say).
result<void> for_each_module_mem(const std::string& prof_dir, std::vector<std::string>& warnings,
                                 const std::function<result<void>(const module_mem_sample&)>& fn);

/// The samples in the summary's order, by module id, then time, then file
/// order, through a spill_sorter (runs in `prof_dir` past `spill_budget`).
class module_mem_rows {
 public:
  module_mem_rows(const std::string& prof_dir, std::size_t spill_budget) : rows_(prof_dir, spill_budget) {}
  result<void> read(const std::string& prof_dir, std::vector<std::string>& warnings);
  std::size_t size() const noexcept { return rows_.size(); }
  /// fn(const module_mem_sample&) for each sample in order; then the rows are gone.
  result<void> drain(const std::function<void(const module_mem_sample&)>& fn);

 private:
  struct key {
    std::uint32_t module_id;
    std::int64_t time_ns;
    bool operator<(const key& o) const noexcept {
      return module_id != o.module_id ? module_id < o.module_id : time_ns < o.time_ns;
    }
  };
  spill_sorter<key> rows_;
};

/// The CANN summary npu_module_mem: header and one row (reserved memory in
/// whole KB, rounded down; the time cell ends in a TAB).
std::vector<std::string> npu_module_mem_header();
template <class Cells>
void npu_module_mem_row(Cells& s, const module_mem_sample& m) {
  s.num(m.device_id);
  s.str(module_name(m.module_id));
  s.ts(m.time_ns);
  s.num(m.reserved / 1024);
  s.str("NPU:" + std::to_string(m.device_id));
}

/// One npu_mem sample: the memory of the application (event 0) or of the
/// whole device (event 1), on the wall clock.
struct npu_mem_sample {
  std::uint32_t device_id = 0;
  std::uint32_t event = 0;
  std::int64_t time_ns = 0;  ///< local Unix ns, as the reference computes it (docs/formats.md)
  std::uint64_t ddr = 0, hbm = 0;  ///< bytes
};

/// Every device's npu_mem samples in file order (devices by id), those before
/// the collection start left out. Warnings as for_each_module_mem.
result<void> for_each_npu_mem(const std::string& prof_dir, std::vector<std::string>& warnings,
                              const std::function<result<void>(const npu_mem_sample&)>& fn);
/// The summary's name of an event: "APP", "Device", else "Unknown".
const char* npu_mem_event_name(std::uint32_t event);

/// The CANN summary npu_mem: sizes in whole KB (rounded down), memory = DDR + HBM.
std::vector<std::string> npu_mem_header();
template <class Cells>
void npu_mem_row(Cells& s, const npu_mem_sample& m) {
  s.num(m.device_id);
  s.str(npu_mem_event_name(m.event));
  s.num(m.ddr / 1024);
  s.num(m.hbm / 1024);
  s.num((m.ddr + m.hbm) / 1024);
  s.ts(m.time_ns);
}

/// torch_npu's APP rows of memory_record.csv (NpuMemoryBean on CANN's npu_mem
/// summary): each APP sample in file order as {"APP", time µs + TAB, "",
/// memory(KB) / 1024 in MB as Python prints it, "", "", "NPU:<id>"}.
result<void> npu_mem_app_rows(const std::string& prof_dir, std::vector<std::string>& warnings,
                              const std::function<result<void>(std::vector<std::string>&&)>& fn);

/// One row of GE's static graph memory (host additional record static_op_mem).
struct static_op_mem_row {
  std::string op;     ///< hash_dic's name of opName, else it in decimal; "TOTAL" for 0
  std::string model;  ///< hash_dic's name of dynOpName, else it in decimal
  std::uint32_t graph_id = 0;
  std::uint64_t start = 0, end = 0;  ///< node indexes (an end of 4294967294 is 4294967295)
  std::int64_t size = 0;             ///< bytes
};
/// Every static_op_mem record in file order (aging slices, then unaging).
/// Warnings as for_each_module_mem.
result<void> for_each_static_op_mem(const std::string& prof_dir, std::vector<std::string>& warnings,
                                    const std::function<result<void>(const static_op_mem_row&)>& fn);
/// The CANN summary static_op_mem; Size(KB) bytes / 1024 as the reference
/// prints it (a whole number without ".0", Python's float text otherwise).
/// Its rows once, `Device_id` "host" (the reference exports them from the host
/// directory only), in file order.
std::vector<std::string> static_op_mem_header();
std::string static_op_mem_kb(std::int64_t bytes);
template <class Cells>
void static_op_mem_cells(Cells& s, const static_op_mem_row& m) {
  s.raw("host");
  s.str(m.op);
  s.str(m.model);
  s.num(m.graph_id);
  s.num(m.start);
  s.num(m.end);
  s.raw(static_op_mem_kb(m.size));
}

/// One GE memory event (host additional record task_memory_info).
struct ge_memory_event {
  std::string name;       ///< the op: hash_dic's name of its nodeId, else the nodeId in decimal
  bool named = false;     ///< hash_dic has the name (operator_memory leaves the cell empty otherwise)
  std::uint64_t node = 0; ///< nodeId (the op name's hash)
  std::uint64_t addr = 0;
  std::int64_t size = 0;  ///< > 0 an allocation, < 0 a release, bytes
  std::uint64_t allocated = 0, reserved = 0;  ///< GE's totals after the event, bytes
  std::uint32_t device_id = 0;
  std::uint32_t thread_id = 0;
  std::int64_t mono_ns = 0;  ///< host CLOCK_MONOTONIC_RAW ns
  std::int64_t time_ns = 0;  ///< local Unix ns
};

/// Every task_memory_info event in file order, those before the collection
/// start included (the CANN summaries keep them; the db leaves them out).
/// Warnings as for_each_module_mem. `devices` gets the PROF_ directory's
/// device ids (the summaries are written once per device, as the reference's).
result<void> for_each_ge_memory(const std::string& prof_dir, std::vector<std::string>& warnings,
                                std::vector<std::uint32_t>& devices,
                                const std::function<result<void>(const ge_memory_event&)>& fn);

/// GE's operator memory as the reference pairs it (NpuOpMemCalculator): an
/// allocation and the next release of the same op, address and device.
/// fn(allocation, &release) for each pair at its release, then fn(allocation,
/// nullptr) for each allocation never released, in the order its key was first
/// allocated. Holds the allocations not yet released.
/// `from_ns`: events before this local time are left out first (the db's NPU_OP_MEM has none of them).
result<void> for_each_ge_op_memory(const std::string& prof_dir, std::vector<std::string>& warnings,
                                   std::vector<std::uint32_t>& devices,
                                   const std::function<result<void>(const ge_memory_event&, const ge_memory_event*)>& fn,
                                   std::int64_t from_ns = std::numeric_limits<std::int64_t>::min());

/// The CANN summaries memory_record and operator_memory (Python viewers of the
/// reference): sizes in KB rounded to 3 decimals in Python's float text, the
/// time in µs with a TAB on CLOCK_MONOTONIC_RAW (the reference does not shift
/// it to local time, with or without a device); `device` is the device
/// directory the row was exported for ("host" without one: `device` < 0).
std::vector<std::string> ge_memory_record_header();
std::vector<std::string> ge_operator_memory_header();
/// Python's round(v, 3) as str() prints it; py_round3_kb(b) is py_round3(b / 1024).
std::string py_round3(double v);
inline std::string py_round3_kb(double bytes) { return py_round3(bytes / 1024); }
template <class Cells>
void ge_memory_record_row(Cells& s, std::int64_t device, const ge_memory_event& e) {
  if (device < 0) s.raw("host");
  else s.num(static_cast<std::uint64_t>(device));
  s.raw("GE");
  s.ts(e.mono_ns);
  s.raw(py_round3_kb(static_cast<double>(e.allocated)));
  s.raw(py_round3_kb(static_cast<double>(e.reserved)));
  s.str("NPU:" + std::to_string(e.device_id));
}
template <class Cells>
void ge_operator_memory_row(Cells& s, std::int64_t device, const ge_memory_event& a, const ge_memory_event* r) {
  if (device < 0) s.raw("host");
  else s.num(static_cast<std::uint64_t>(device));
  s.str(a.named ? a.name : std::string());
  s.raw(py_round3_kb(static_cast<double>(a.size)));
  s.ts(a.mono_ns);
  s.raw(py_round3(r ? static_cast<double>(r->mono_ns - a.mono_ns) / 1000 : 0.0));  // µs
  s.raw(py_round3_kb(static_cast<double>(a.allocated)));
  s.raw(py_round3_kb(static_cast<double>(a.reserved)));
  s.raw(py_round3_kb(r ? static_cast<double>(r->allocated) : 0.0));
  s.raw(py_round3_kb(r ? static_cast<double>(r->reserved) : 0.0));
  s.str("NPU:" + std::to_string(a.device_id));
}

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_NPU_MEMORY_HPP
