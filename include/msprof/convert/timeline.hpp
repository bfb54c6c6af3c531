// SPDX-License-Identifier: MIT
// Timeline: the model as a list of normalized trace events (reused by the
// chrome/ writer), and msprof's own JSON form of them (msprof_<ts>.json,
// msprof_tx_<ts>.json): top-level array, key order name,pid,tid,ts,dur,ph,args,
// ts as a string with 3 decimals, pid = (pid << 10) | (sort_index << 5) | device.
//
// The header to include; its parts: timeline_event.hpp (events, pid encoding),
// overlap.hpp (Overlap Analysis), step_trace.hpp (step trace events) and
// timeline_json.hpp (the JSON writer). Definitions: src/convert/timeline*.cpp,
// overlap.cpp, step_trace.cpp.
#ifndef MSPROF_CONVERT_TIMELINE_HPP
#define MSPROF_CONVERT_TIMELINE_HPP

#include <vector>

#include "model.hpp"
#include "overlap.hpp"
#include "step_trace.hpp"
#include "timeline_event.hpp"
#include "timeline_json.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

namespace detail {
/// The emitters below, into an event_output.
void mstx_events(const model& m, event_output& out);
void loss_note(const model& m, event_output& out);
void timeline_events(const model& m, event_output& out, const timeline_parts& parts);
/// NPU MEM: per device with any npu_mem sample in `s.prof_dir`, the counters
/// APP/ and Device/ DDR, HBM and Memory (KB), after every device's metadata;
/// the slices' problems go to `warnings`.
result<void> npu_mem_events(const session_info& s, event_output& out, std::vector<std::string>& warnings);
/// HCCS: when any hccs throughput is kept (sys_io.hpp), every device's
/// metadata, then per throughput the counters Rx ("Rx(MB/s)") and Tx
/// ("Tx(MB/s)"), as the reference's C++ path (hccs_assembler.cpp).
result<void> hccs_events(const session_info& s, event_output& out, std::vector<std::string>& warnings);
/// NIC (`roce` false) or RoCE: when any point is kept (sys_io.hpp), every
/// device's metadata, then per point the counters "Port <funcId>/Rx" and
/// "Port <funcId>/Tx" (dropped and error rates, packets, bandwidth
/// efficiency), as the reference's C++ path (sys_io_assembler.cpp).
result<void> network_events(const session_info& s, event_output& out, std::vector<std::string>& warnings, bool roce);
/// PCIe: per device with any pcie sample kept (sys_io.hpp), the counters
/// PCIe_cpl, PCIe_nonpost, PCIe_nonpost_latency and PCIe_post of the sample's
/// averages (Tx and Rx, MB/s; the latency's Tx in µs, its Rx 0), then the
/// devices' metadata, as the reference's C++ path (pcie_assembler.cpp).
result<void> pcie_events(const session_info& s, event_output& out, std::vector<std::string>& warnings);
/// CPU Usage (Memory Usage when `memory`): the host's usage points
/// (host_usage.hpp), the counters "CPU <n>" / "CPU Avg" ("Memory Usage") of
/// series "Usage(%)", then the process's metadata, as the reference's C++ path
/// (host_usage_assembler.cpp).
result<void> host_usage_events(const session_info& s, bool memory, event_output& out, std::vector<std::string>& warnings);
}  // namespace detail

/// mstx events only (msprof_tx_<ts>.json, and the mstx part of msprof_<ts>.json),
/// handed one by one to `out(trace_event&&)`.
template <class Emit>
void emit_mstx_events(const model& m, Emit& out) {
  detail::output_ref<Emit> dest(out);
  detail::mstx_events(m, dest);
}

/// When the collector lost anything (info.json msprof_losses), one slice over
/// the whole collection in a process of its own, "msprof collection", named
/// with the total and carrying each counter as an argument, so nobody reads a
/// timeline with holes without seeing it.
template <class Emit>
void emit_loss_note(const model& m, Emit& out) {
  detail::output_ref<Emit> dest(out);
  detail::loss_note(m, dest);
}

/// Every event of msprof_<ts>.json, handed one by one to `out(trace_event&&)`
/// (streaming: nothing is kept).
template <class Emit>
void emit_timeline(const model& m, Emit& out, const timeline_parts& parts = {}) {
  detail::output_ref<Emit> dest(out);
  detail::timeline_events(m, dest, parts);
}

/// mstx events as a vector.
void build_mstx_events(const model& m, std::vector<trace_event>& v);

/// Every event of msprof_<ts>.json as a vector (the chrome writer's input).
std::vector<trace_event> build_timeline(const model& m, const timeline_parts& parts = {});

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_TIMELINE_HPP
