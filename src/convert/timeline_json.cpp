// SPDX-License-Identifier: MIT
// msprof's JSON form of the timeline's events: the formatters, timeline_json
// and the windowed timeline_collector (timeline_json.hpp).
#include "msprof/convert/timeline_json.hpp"
#include "msprof/convert/hccl.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "msprof/core/output_file.hpp"
#include "msprof/convert/beside.hpp"
#include "msprof/convert/text.hpp"
#include "msprof/convert/timeline.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// Appends one event in msprof's JSON form.
void append_event_json(std::string& out, const trace_event& e) {
  out += "{\"name\":";
  append_json_string(out, e.name);
  fmt::format_to(std::back_inserter(out), ",\"pid\":{},\"tid\":{}", e.pid, e.tid);
  auto ts = [&] {
    out += ",\"ts\":\"";
    append_ts_us(out, e.ts_ns);
    out += '"';
  };
  switch (e.ph) {
    case 'X':
      ts();
      out += ",\"dur\":";
      out += dur_us_json(e.dur_ns);
      out += ",\"ph\":\"X\"";
      if (!e.cat.empty()) {  // step trace slices carry a category
        out += ",\"cat\":";
        append_json_string(out, e.cat);
      }
      break;
    case 'C':
      ts();
      out += ",\"ph\":\"C\"";
      break;
    case 'M':
      out += ",\"ph\":\"M\"";
      break;
    default:  // flows
      out += ",\"ph\":\"";
      out += e.ph;
      out += "\",\"cat\":";
      append_json_string(out, e.cat);
      out += ",\"id\":";
      append_json_string(out, e.id);
      ts();
      if (e.bp_enclosing) out += ",\"bp\":\"e\"";
      if (e.args.empty()) {
        out += '}';
        return;
      }
      break;  // step trace Data_aug flows have args
  }
  out += ",\"args\":{";
  bool first = true;
  for (const auto& a : e.args) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, a.key);
    out += ':';
    switch (a.k) {
      case trace_arg::kind::integer: fmt::format_to(std::back_inserter(out), "{}", a.i); break;
      case trace_arg::kind::real:  // a counter read from damaged data can be NaN or infinite: JSON has null for it
        out += std::isfinite(a.d) ? py_float(a.d) : std::string("null");
        break;
      case trace_arg::kind::string: append_json_string(out, a.s); break;
    }
  }
  out += "}}";
}

namespace detail {
namespace {

// msprof JSON of the hot events straight from the model, one event each,
// without separators: the one formatter of json_output and of the timeline
// exporter. Same bytes as append_event_json on build_timeline's events (checked
// by a test).

/// A literal, its length known at compile time.
template <std::size_t N>
void append_lit(std::string& out, const char (&s)[N]) {
  out.append(s, N - 1);
}

// The fields of bounded length go into a buffer on the stack and then into
// `out` in one append: one string append per field cost more than the bytes.
template <std::size_t N>
char* put_lit(char* p, const char (&s)[N]) {
  std::memcpy(p, s, N - 1);
  return p + N - 1;
}
void append_buf(std::string& out, const char* buf, const char* end) {
  out.append(buf, static_cast<std::size_t>(end - buf));
}

/// name, pid, tid, ts; a layer (API calls) prefixes the name: "AscendCL@aclrtMalloc".
void append_head_json(std::string& out, std::string_view layer, std::string_view name, std::uint64_t pid,
                             std::uint64_t tid, std::int64_t ts) {
  append_lit(out, "{\"name\":\"");
  if (!layer.empty()) {
    out.append(layer);  // layer names need no escaping
    out += '@';
  }
  append_json_escaped(out, name);
  char buf[96];  // 85 bytes at most
  char* p = put_lit(buf, "\",\"pid\":");
  p = put_u64(p, pid);
  p = put_lit(p, ",\"tid\":");
  p = put_u64(p, tid);
  p = put_lit(p, ",\"ts\":\"");
  p = put_ts_us(p, ts);
  *p++ = '"';
  append_buf(out, buf, p);
}

/// A flow event; its id is a number written as a string ("HostToDevice<id>").
/// `cat` and `prefix`: short literals (16 bytes at most, checked when compiled).
template <std::size_t C, std::size_t P>
void append_flow_json(std::string& out, char ph, std::uint64_t pid, std::uint64_t tid, std::int64_t ts,
                      const char (&cat)[C], std::uint64_t id, const char (&prefix)[P], bool bp) {
  static_assert(C <= 17 && P <= 17, "the buffer holds 16 bytes of each");
  char buf[256];  // 202 bytes at most
  char* p = put_lit(buf, "{\"name\":\"");
  p = put_lit(p, prefix);
  p = put_u64(p, id);
  p = put_lit(p, "\",\"pid\":");
  p = put_u64(p, pid);
  p = put_lit(p, ",\"tid\":");
  p = put_u64(p, tid);
  p = put_lit(p, ",\"ph\":\"");
  *p++ = ph;
  p = put_lit(p, "\",\"cat\":\"");
  p = put_lit(p, cat);
  p = put_lit(p, "\",\"id\":\"");
  p = put_u64(p, id);
  p = put_lit(p, "\",\"ts\":\"");
  p = put_ts_us(p, ts);
  if (bp)
    p = put_lit(p, "\",\"bp\":\"e\"}");
  else
    p = put_lit(p, "\"}");
  append_buf(out, buf, p);
}

/// A HostToDevice flow: its start ('s', at the API call) or end ('f', at the task).
void append_host_to_device_json(std::string& out, char ph, std::uint64_t pid, std::uint64_t tid, std::int64_t ts,
                                std::uint64_t connection_id) {
  append_flow_json(out, ph, pid, tid, ts, "HostToDevice", host_to_device_id(connection_id), "HostToDevice", ph == 'f');
}

}  // namespace

void append_dur_json(std::string& out, std::int64_t ns) {
  char buf[64];
  if (char* p = put_dur_us(put_lit(buf, ",\"dur\":"), ns)) {
    p = put_lit(p, ",\"ph\":\"X\",\"args\":{");
    append_buf(out, buf, p);
    return;
  }
  append_lit(out, ",\"dur\":");
  out += dur_us_json(ns);
  append_lit(out, ",\"ph\":\"X\",\"args\":{");
}

void append_task_json(std::string& out, const device_task& t, std::uint64_t pid) {
  append_head_json(out, {}, task_slice_name(t), pid, t.stream_id, t.start_ns);
  append_dur_json(out, t.end_ns - t.start_ns);
  append_lit(out, "\"Model Id\":");
  append_u64(out, t.model_id);
  append_lit(out, ",\"Task Type\":");
  append_json_string(out, task_slice_type(t));
  char buf[192];  // 164 bytes at most
  char* p = put_lit(buf, ",\"Physic Stream Id\":");
  p = put_u64(p, t.stream_id);
  p = put_lit(p, ",\"Task Id\":");
  p = put_u64(p, t.task_id);
  p = put_lit(p, ",\"Batch Id\":");
  p = put_u64(p, t.batch_id);
  p = put_lit(p, ",\"Subtask Id\":4294967295,\"connection_id\":");
  p = put_u64(p, t.connection_id);
  append_buf(out, buf, p);
  if (t.memcpy) {
    append_lit(out, ",\"size(B)\":");
    append_u64(out, t.memcpy->size);
    append_lit(out, ",\"bandwidth(GB/s)\":");
    out += py_float(memcpy_bandwidth(t, *t.memcpy));
    append_lit(out, ",\"operation\":");
    append_json_string(out, memcpy_operation_name(t.memcpy->operation));
  }
  append_lit(out, "}}");
}

void append_task_flow_json(std::string& out, const device_task& t, std::uint64_t pid) {
  append_host_to_device_json(out, 'f', pid, t.stream_id, t.start_ns, t.connection_id);
}

void append_api_json(std::string& out, const api_call& a, std::uint64_t pid) {
  const bool acl = a.level == level::acl;
  append_head_json(out, layer_name(a.level), display_name(a), pid, a.thread_id, a.start_ns);
  append_dur_json(out, a.end_ns - a.start_ns);
  append_lit(out, "\"Thread Id\":");
  append_u64(out, a.thread_id);
  append_lit(out, ",\"Mode\":");
  append_json_string(out, acl ? std::string_view(acl_group_name(a.type)) : std::string_view(a.name));
  append_lit(out, ",\"level\":\"");
  out.append(level_name(a.level));
  append_lit(out, "\",\"id\":");
  append_json_string(out, acl ? std::string_view(a.name) : std::string_view("0"));
  append_lit(out, ",\"item_id\":");
  append_json_string(out, a.item.empty() ? std::string_view("0") : std::string_view(a.item));
  append_lit(out, ",\"connection_id\":");
  append_u64(out, a.connection_id);
  append_lit(out, "}}");
}

void append_api_flow_json(std::string& out, const api_call& a, std::uint64_t pid) {
  append_host_to_device_json(out, 's', pid, a.thread_id, a.start_ns, a.connection_id);
}

void append_overlap_json(std::string& out, const overlap_interval& o, std::uint64_t pid) {
  append_head_json(out, {}, o.compute ? "Computing" : "Free", pid, o.compute ? 0 : 3, o.start_ns);
  append_dur_json(out, o.end_ns - o.start_ns);
  append_lit(out, "}}");
}

void append_mstx_json(std::string& out, const mstx_event& e, std::uint64_t pid) {
  append_head_json(out, {}, e.message, pid, e.tid, e.start_ns);
  append_dur_json(out, e.end_ns - e.start_ns);
  append_lit(out, "\"event_type\":\"");
  out.append(mstx_event_type_name(e.event_type));
  append_lit(out, "\",\"domain\":");
  append_json_string(out, e.domain);
  append_lit(out, "}}");
}

void append_mstx_flow_json(std::string& out, const mstx_event& e, std::uint64_t pid) {
  append_flow_json(out, 's', pid, e.tid, e.start_ns, "MsTx", mstx_connection_id(e), "MsTx_", false);
}

}  // namespace detail

std::string timeline_json(const std::vector<trace_event>& events) {
  std::string out;
  out.reserve(events.size() * 160 + 2);
  out += '[';
  bool first = true;
  for (const auto& e : events) {
    if (!first) out += ',';
    first = false;
    append_event_json(out, e);
  }
  out += ']';
  return out;
}

// ---------------------------------------------------------- timeline_collector

namespace {

/// A HostToDevice flow as kept until written: its text (~140 bytes) is made
/// from these when the sorted events are, so the sorter holds and spills less.
struct flow_fields {
  std::uint64_t pid, tid;
  std::int64_t ts;
  std::uint64_t connection_id;
};

}  // namespace

timeline_collector::timeline_collector(const std::string& spill_dir, std::size_t budget, bool timeline, bool tx,
                                       const timeline_parts& parts)
    : timeline_(timeline),
      tx_(tx),
      parts_(parts),
      events_(spill_dir, budget / 3),
      tx_events_(spill_dir, budget / 3),
      overlap_(spill_dir, budget / 3),
      gaps_(spill_dir, budget / 3),
      spill_dir_(spill_dir) {}

timeline_collector::~timeline_collector() = default;

void timeline_collector::add(const model& w) {
  const auto& s = w.session;
  records_ += w.apis.size() + w.tasks.size() + w.mstx.size();
  mstx_ += w.mstx.size();
  std::string text;
  if (timeline_) {
    for (const auto& t : w.tasks) {
      if (parts_.hardware) {
        const std::uint64_t pid = format_pid(s.pid, sort_index::ascend_hardware, t.device_id);
        events_.push_with({sections::tasks, t.global_task_id}, [&](std::string& out) {
          out += t.host_flow ? '\1' : '\0';
          detail::append_task_json(out, t, pid);
          if (t.host_flow) put(out, flow_fields{pid, t.stream_id, t.start_ns, t.connection_id});
        });
        streams_[t.device_id].insert(t.stream_id);
      }
      if (parts_.overlap) overlap_.add(t);
    }
    const std::uint64_t pid = format_pid(s.pid, sort_index::cann, host_device_bits);
    // The calls, then their flows: each section comes as one ascending run, so
    // a spill merges the window's few runs instead of sorting every row.
    for (const auto& a : w.apis) {
      if (!parts_.cann) break;  // the whole CANN process is left out
      events_.push_with({sections::apis, a.connection_id},
                        [&](std::string& out) { detail::append_api_json(out, a, pid); });
      api_tids_.insert(a.thread_id);
    }
    for (const auto& a : w.apis) {
      if (!parts_.cann) break;
      if (!a.has_device_task) continue;
      events_.push_with({sections::api_flows, a.connection_id},
                        [&](std::string& out) { put(out, flow_fields{pid, a.thread_id, a.start_ns, a.connection_id}); });
    }
  }
  const std::uint64_t pid = format_pid(s.pid, sort_index::mstx, host_device_bits);
  for (const auto& e : w.mstx) {
    text.clear();
    detail::append_mstx_json(text, e, pid);
    text += ',';
    detail::append_mstx_flow_json(text, e, pid);
    if (timeline_ && parts_.mstx) events_.push({sections::mstx, mstx_seq_}, text);
    if (tx_) tx_events_.push({sections::mstx, mstx_seq_}, text);
    ++mstx_seq_;
    mstx_tids_.insert(e.tid);
  }
}

namespace {

/// A json_output's flush into a scratch file: chunks of whole events, each
/// chunk but the last ending in the comma that separates it from the next.
struct scratch_events {
  int fd;
  std::string label;  // names the file in errors
  std::string buf;
  std::vector<std::size_t> chunks;  // their sizes: a few per MiB written
  result<void> status;
  void operator()() {
    if (status && !buf.empty()) status = outfile::write_all(fd, buf.data(), buf.size(), label);
    chunks.push_back(buf.size());
    buf.clear();
  }
};

}  // namespace

result<void> timeline_collector::write_timeline_to(const model& final, detail::event_output& dest) {
  if (!threaded_) {
    MSPROF_TRY(write_sorted(final.session, dest));
    return write_rest(final, dest);
  }
  // The rest goes to a scratch file on a second thread, then after the sorted events.
  const outfile::unique_fd fd = outfile::unnamed_temp(spill_dir_, ".msprof_timeline_rest_");
  if (!fd) return make_error(errc::io, spill_dir_ + ": cannot create a scratch file: " + outfile::detail::sys_err());
  scratch_events rest{fd.get(), spill_dir_ + " (timeline scratch file)", {}, {}, {}};
  result<void> sorted, rest_written;
  beside(
      true,
      [&] {
        detail::json_output<scratch_events> out{rest.buf, rest};
        detail::output_ref<detail::json_output<scratch_events>> ref(out);
        rest_written = write_rest(final, ref);
        rest();
      },
      [&] { sorted = write_sorted(final.session, dest); });
  MSPROF_TRY(sorted);
  MSPROF_TRY(rest_written);
  MSPROF_TRY(rest.status);
  result<void> copied;
  beside(
      true, [&] { events_.release_file(); },  // its pages freed beside the copy, which takes as long
      [&] {
        std::string chunk;
        std::uint64_t at = 0;
        for (const std::size_t n : rest.chunks) {
          chunk.resize(n);
          if (n != 0 && ::pread(fd.get(), chunk.data(), n, static_cast<off_t>(at)) != static_cast<ssize_t>(n)) {
            copied = make_error(errc::io, rest.label + ": cannot read back what was written");
            return;
          }
          at += n;
          if (!chunk.empty() && chunk.back() == ',') chunk.pop_back();
          if (!chunk.empty()) dest.raw(chunk);
        }
      });
  return copied;
}

result<void> timeline_collector::write_sorted(const session_info& s, detail::event_output& dest) {
  // The metadata between the sorted sections, written as the rows reach them.
  std::uint8_t at = sections::tasks;
  auto reach = [&](std::uint8_t next) {
    for (; at < next; ++at) {
      if (at == sections::tasks) {
        detail::add_hardware_meta(dest, s, streams_);
        if (!api_tids_.empty()) detail::add_cann_meta(dest, s, api_tids_);
      }
      if (at == sections::mstx && parts_.mstx && !mstx_tids_.empty()) detail::add_mstx_meta(dest, s, mstx_tids_);
    }
  };
  std::string flow;
  const auto host_to_device = [&](char ph, std::string_view fields) {
    auto f = from_bytes<flow_fields>(fields);
    flow.clear();
    detail::append_host_to_device_json(flow, ph, f.pid, f.tid, f.ts, f.connection_id);
    dest.raw(flow);
  };
  MSPROF_TRY(events_.drain([&](const event_key& k, std::string_view row) {
    reach(k.section);
    if (k.section == sections::tasks) {  // the task, then its flow's end when it has one
      const bool has_flow = row.front() == '\1';
      row.remove_prefix(1);
      const std::size_t json = row.size() - (has_flow ? sizeof(flow_fields) : 0);
      dest.raw(row.substr(0, json));
      if (has_flow) host_to_device('f', row.substr(json));
    } else if (k.section == sections::api_flows) {
      host_to_device('s', row);
    } else {
      dest.raw(row);
    }
  }));
  reach(sections::end);
  return {};
}

result<void> timeline_collector::write_rest(const model& final, detail::event_output& dest) {
  const auto& s = final.session;
  timeline_parts rest = parts_;  // what only the final model knows: step trace, loss note, AI Core Freq
  rest.cann = rest.hardware = rest.mstx = rest.overlap = false;
  detail::timeline_events(final, dest, rest, within_ ? &*within_ : nullptr);
  if (comm_ && parts_.hardware)
    for (const auto& [d, streams] : streams_) hccl::emit_timeline(*comm_, s.pid, d, dest);
  MSPROF_TRY(detail::device_counter_events(s, parts_, dest, warnings_, within_ ? &*within_ : nullptr));
  return parts_.overlap ? write_overlap(s, dest) : result<void>{};
}

result<void> timeline_collector::write_mstx_to(const model& final, detail::event_output& dest) {
  MSPROF_TRY(tx_events_.drain([&](const event_key&, std::string_view json) { dest.raw(json); }));
  if (!mstx_tids_.empty()) detail::add_mstx_meta(dest, final.session, mstx_tids_);
  return {};
}

/// Overlap Analysis: per device its metadata, merged compute intervals, then
/// its free gaps (their times held in gaps_ until the device is complete).
result<void> timeline_collector::write_overlap(const session_info& s, detail::event_output& dest) {
  result<void> status;
  std::uint64_t pid = 0, gaps = 0;
  std::uint32_t dev = 0;
  std::optional<hccl::overlap_lanes> comm;  // the device's collectives, when any
  auto open = [&](std::uint32_t d) {
    dev = d;
    pid = format_pid(s.pid, sort_index::overlap_analysis, d);
    detail::add_overlap_meta(dest, s, d);
    if (comm_) comm.emplace(*comm_, d);
    if (comm)
      for (const auto& sp : comm->communication_spans()) hccl::overlap_lanes::emit(dest, false, pid, sp);
  };
  auto on_compute = [&](std::int64_t b, std::int64_t e) { dest.overlap({dev, b, e, true}, pid); };
  auto on_free = [&](std::int64_t b, std::int64_t e) {
    hccl::overlap_lanes::split parts;
    if (comm)
      parts = comm->free_gap(b, e);
    else
      parts.free.emplace_back(b, e);
    for (const auto& sp : parts.not_overlapped) hccl::overlap_lanes::emit(dest, true, pid, sp);
    // Held as their times (16 bytes, not ~110 of text), formatted when written.
    for (const auto& sp : parts.free) {
      const std::int64_t t[2] = {sp.first, sp.second};
      gaps_.push(gaps++, std::string_view(reinterpret_cast<const char*>(t), sizeof t));
    }
  };
  auto close = [&](std::uint32_t) {
    auto r = gaps_.drain([&](std::uint64_t, std::string_view b) {
      std::int64_t t[2];
      std::memcpy(t, b.data(), sizeof t);
      dest.overlap({dev, t[0], t[1], false}, pid);
    });
    if (status && !r) status = std::move(r);
  };
  MSPROF_TRY(overlap_.drain(open, on_compute, on_free, close));
  return status;
}

}  // namespace convert
MSPROF_END_NAMESPACE
