// SPDX-License-Identifier: MIT
// Communication analysis (convert/hccl_analyze.hpp): time split, bandwidth per
// link kind and the rank matrix of each collective, and their JSON files.
#include <msprof/convert/db.hpp>
#include <msprof/convert/export_files.hpp>
#include <msprof/convert/hccl_analyze.hpp>
#include <msprof/convert/load.hpp>
#include <msprof/convert/text.hpp>
#include <msprof/core/output_file.hpp>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <string_view>

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace hccl {

namespace {

constexpr char total_name[] = "Total HCCL Operators";
constexpr std::uint32_t no_rank = 0xffffffffu;
constexpr std::uint32_t rdma_payload = 1;  // RDMA_SEND_PAYLOAD
enum kind_index : std::size_t { k_rdma, k_hccs, k_pcie, k_sdma, k_sio };

/// Python's round(v, 4): the decimal nearest the double's exact value.
double round4(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return std::strtod(buf, nullptr);
}

double ms_of(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }
double mb_of(std::uint64_t bytes) { return static_cast<double>(bytes) / 1e6; }

std::string_view link_name(const comm_task& t) { return t.has_info ? link_type_name(t.info.linkType) : "N/A"; }
std::string_view transport_name(const comm_task& t) {
  return t.has_info ? transport_type_name(t.info.transportType) : "N/A";
}
bool is_payload(const comm_task& t) { return t.has_info && t.info.rdmaType == rdma_payload; }
bool is_copy(const comm_task& t) { return t.name == "Memcpy" || t.name == "Reduce_Inline"; }
/// An SDMA copy that moves data off the chip.
bool is_transit(const comm_task& t) { return is_copy(t) && transport_name(t) == "SDMA" && link_name(t) != "ON_CHIP"; }

/// Bytes over the link; messages above it count as large (MB).
double large_threshold(std::string_view kind) {
  if (kind == "RDMA") return 0.5;
  if (kind == "HCCS" || kind == "PCIE" || kind == "SIO") return 32;
  return 0;
}

std::size_t kind_of(std::string_view name) {
  for (std::size_t k = 0; k < link_kinds.size(); ++k)
    if (name == link_kinds[k]) return k;
  return link_kinds.size();
}

/// The link kind an SDMA copy's bandwidth counts under.
std::size_t copy_kind(const comm_task& t) {
  const auto l = link_name(t);
  if (l == "HCCS_SW" || l == "HCCS") return k_hccs;
  if (l == "PCIE") return k_pcie;
  if (l == "SIO") return k_sio;
  return k_sdma;
}

/// A run of RDMA payload tasks at v[i] and the task that closes it: their
/// bytes and the time from the first payload to the closing task's end. False
/// (with the run's length) when the closing task is missing.
struct payload_run {
  std::size_t count = 0;
  bool closed = false;
  double time_ms = 0, size_mb = 0;
};
payload_run run_at(const std::vector<const comm_task*>& v, std::size_t i, std::size_t jump) {
  payload_run r;
  while (i + r.count < v.size() && is_payload(*v[i + r.count])) ++r.count;
  const std::size_t close = i + r.count + jump - 2;
  if (close >= v.size()) return r;
  std::uint64_t bytes = 0;
  for (std::size_t k = i; k < i + r.count; ++k) bytes += v[k]->info.dataSize;
  r.closed = true;
  r.size_mb = mb_of(bytes);
  r.time_ms = ms_of(v[close]->end_ns - v[i]->start_ns);
  return r;
}

void record(link_bandwidth& b, double size_mb, double time_ms) {
  b.size_mb.add(size_mb);
  b.time_ms.add(time_ms);
  auto it = std::find_if(b.sizes.begin(), b.sizes.end(), [&](const auto& s) { return s.first == size_mb; });
  if (it == b.sizes.end()) it = b.sizes.insert(b.sizes.end(), {size_mb, {0, 0.0}});
  ++it->second.first;
  it->second.second += time_ms;
}

void set_ratios(op_analysis& o) {
  if (o.wait_ms.v + o.transit_ms.v != 0) o.wait_ratio.set(round4(o.wait_ms.v / (o.wait_ms.v + o.transit_ms.v)));
  if (o.sync_ms.v + o.transit_ms.v != 0) o.sync_ratio.set(round4(o.sync_ms.v / (o.sync_ms.v + o.transit_ms.v)));
}

/// Bandwidth (GB/s) and large-packet ratio of a kind other than SDMA.
void finish_kind(link_bandwidth& b, std::string_view kind) {
  if (b.time_ms.v != 0) b.bandwidth.set(round4((b.size_mb.v / 1000) / (b.time_ms.v / 1000)));
  std::uint64_t packets = 0, large = 0;
  for (const auto& s : b.sizes) {
    packets += s.second.first;
    if (s.first > large_threshold(kind)) large += s.second.first;
  }
  if (packets > 0) b.large_packet_ratio.set(round4(static_cast<double>(large) / static_cast<double>(packets)));
}

void finish_sdma(link_bandwidth& b) {
  if (b.time_ms.v != 0) b.bandwidth.set(round4((b.size_mb.v / 1000) / (b.time_ms.v / 1000)));
}

/// Tasks by plane, planes in order of first task.
std::vector<std::vector<const comm_task*>> by_plane(const std::vector<const comm_task*>& v) {
  std::vector<std::vector<const comm_task*>> out;
  std::map<std::uint32_t, std::size_t> at;
  for (const auto* t : v) {
    auto [it, fresh] = at.emplace(t->info.planeID, out.size());
    if (fresh) out.emplace_back();
    out[it->second].push_back(t);
  }
  return out;
}

bool analyze_op(const std::vector<const comm_task*>& all, op_analysis& o) {
  // Only the first iteration's tasks of the name.
  std::vector<const comm_task*> v;
  for (const auto* t : all)
    if (t->iteration == all.front()->iteration) v.push_back(t);
  const comm_task* first_master = nullptr;
  for (const auto* t : v)
    if (t->master && (!first_master || t->start_ns < first_master->start_ns)) first_master = t;
  if (!first_master) return false;
  const std::size_t jump = rdma_jump(v.front()->op_name);

  // Time: the master plane's tasks (the plane of the first master task in order).
  std::uint32_t plane = 0;
  for (const auto* t : v)
    if (t->master) { plane = t->info.planeID; break; }
  std::vector<const comm_task*> m;
  for (const auto* t : v)
    if (t->info.planeID == plane) m.push_back(t);
  bool before_transit = true;
  for (std::size_t i = 0; i < m.size();) {
    const auto& t = *m[i];
    if (is_transit(t)) {
      before_transit = false;
      o.transit_ms.add(ms_of(t.end_ns - t.start_ns));
    }
    if (is_payload(t)) {
      const auto r = run_at(m, i, jump);
      if (!r.closed) {
        i += r.count;
        continue;
      }
      o.transit_ms.add(r.time_ms);
      i += jump + r.count - 1;
      before_transit = false;
      continue;
    }
    if (t.name == "Notify_Wait") {
      const double w = ms_of(t.end_ns - t.start_ns);
      if (before_transit) o.sync_ms.add(w);
      o.wait_ms.add(w);
    }
    ++i;
  }
  std::int64_t b = m.front()->start_ns, e = m.front()->end_ns;
  for (const auto* t : m) {
    b = std::min(b, t->start_ns);
    e = std::max(e, t->end_ns);
  }
  o.elapse_ms.set(ms_of(e - b));
  o.idle_ms.set(o.elapse_ms.v - o.transit_ms.v - o.wait_ms.v);
  set_ratios(o);
  const std::int64_t s = first_master->start_ns;
  o.start_us.set(static_cast<double>(s / 1000) + static_cast<double>(s % 1000) / 1000.0);

  // Bandwidth: every plane.
  for (const auto& p : by_plane(v)) {
    for (std::size_t i = 0; i < p.size();) {
      const auto& t = *p[i];
      if (is_transit(t)) record(o.bandwidth[copy_kind(t)], mb_of(t.info.dataSize), ms_of(t.end_ns - t.start_ns));
      if (is_payload(t)) {
        const auto r = run_at(p, i, jump);
        if (!r.closed) {
          i += r.count;
          continue;
        }
        const std::size_t k = kind_of(transport_name(t));
        if (k < link_kinds.size()) record(o.bandwidth[k], r.size_mb, r.time_ms);
        i += jump + r.count - 1;
        continue;
      }
      ++i;
    }
  }
  auto& sdma = o.bandwidth[k_sdma];
  for (std::size_t k : {k_hccs, k_pcie, k_sio}) {
    sdma.size_mb.add(o.bandwidth[k].size_mb.v);
    sdma.time_ms.add(o.bandwidth[k].time_ms.v);
  }
  for (std::size_t k = 0; k < link_kinds.size(); ++k) {
    if (k == k_sdma)
      finish_sdma(sdma);
    else
      finish_kind(o.bandwidth[k], link_kinds[k]);
  }
  return true;
}

/// The matrix's transport of an SDMA copy, by its link.
int copy_transport(const comm_task& t) {
  const auto l = link_name(t);
  if (l == "ON_CHIP") return 3;
  if (l == "HCCS" || l == "HCCS_SW") return 0;
  if (l == "PCIE") return 1;
  if (l == "SIO") return 4;
  return -1;
}

void add_link(op_matrix& mx, const comm_task& t, int transport, double size_mb, double time_ms,
              std::string_view kind) {
  const std::uint32_t dst = t.info.remoteRank == no_rank ? t.info.localRank : t.info.remoteRank;
  const std::string key = std::to_string(t.info.localRank) + "-" + std::to_string(dst);
  auto it = std::find_if(mx.links.begin(), mx.links.end(), [&](const matrix_link& l) { return l.key == key; });
  if (it == mx.links.end()) {
    it = mx.links.insert(mx.links.end(), matrix_link{});
    it->key = key;
  }
  it->transport = transport;
  it->size_mb += size_mb;
  it->time_ms += time_ms;
  ++it->packets;
  if (size_mb > large_threshold(kind)) ++it->large_packets;
}

void matrix_op(const std::vector<const comm_task*>& v, op_matrix& mx) {
  const std::size_t jump = rdma_jump(v.front()->op_name);
  for (const auto& p : by_plane(v)) {
    for (std::size_t i = 0; i < p.size();) {
      const auto& t = *p[i];
      if (!t.has_info || t.info.localRank == no_rank) {
        ++i;
        continue;
      }
      if (is_copy(t) && transport_name(t) == "SDMA") {
        const int tr = copy_transport(t);
        add_link(mx, t, tr, mb_of(t.info.dataSize), ms_of(t.end_ns - t.start_ns),
                 tr >= 0 ? matrix_transport_name(tr) : "");
      }
      if (is_payload(t)) {
        const auto r = run_at(p, i, jump);
        if (!r.closed) {
          i += r.count;
          continue;
        }
        const auto tn = transport_name(t);
        add_link(mx, t, tn == "RDMA" ? 2 : tn == "LOCAL" ? 3 : -1, r.size_mb, r.time_ms, tn);
        i += jump + r.count - 1;
        continue;
      }
      ++i;
    }
  }
}

void append_num(std::string& out, const py_num& n) { out += n.is_float ? py_float(n.v) : std::string("0"); }

void append_key(std::string& out, std::string_view k) {
  append_json_string(out, k);
  out += ": ";
}

}  // namespace

const char* matrix_transport_name(int transport) noexcept {
  static const char* const names[] = {"HCCS", "PCIE", "RDMA", "LOCAL", "SIO"};
  return transport >= 0 && transport < 5 ? names[transport] : nullptr;
}

analysis analyze(const communication& c, std::uint32_t device_id, std::int64_t collection_start_ns) {
  // Tasks per collective and group, in order of first task.
  std::vector<std::pair<std::string, std::string>> keys;
  std::map<std::pair<std::string, std::string>, std::vector<const comm_task*>> tasks;
  for (const auto& t : c.tasks) {
    if (t.device_id != device_id || t.start_ns < collection_start_ns) continue;
    // The group as its hash number, as the reference's analysis names it.
    const std::pair<std::string, std::string> key{t.op_name, std::to_string(t.group_hash)};
    auto& v = tasks[key];
    if (v.empty()) keys.push_back(key);
    v.push_back(&t);
  }
  analysis a;
  if (keys.empty()) return a;
  op_analysis total;
  total.name = total_name;
  op_matrix total_mx;
  total_mx.name = total_name;
  for (const auto& k : keys) {
    const auto& v = tasks[k];
    op_analysis o;
    o.name = k.first;
    o.group = k.second;
    if (analyze_op(v, o)) {
      // The times add up (start and ratios do not).
      for (py_num op_analysis::*f :
           {&op_analysis::elapse_ms, &op_analysis::transit_ms, &op_analysis::wait_ms, &op_analysis::sync_ms,
            &op_analysis::idle_ms})
        if ((o.*f).is_float) (total.*f).add((o.*f).v);
      for (std::size_t b = 0; b < link_kinds.size(); ++b) {
        auto& tb = total.bandwidth[b];
        const auto& ob = o.bandwidth[b];
        if (ob.size_mb.is_float) tb.size_mb.add(ob.size_mb.v);
        if (ob.time_ms.is_float) tb.time_ms.add(ob.time_ms.v);
        if (b == k_sdma) continue;  // its own sizes are not summed (the reference's rule)
        for (const auto& s : ob.sizes) {
          auto it = std::find_if(tb.sizes.begin(), tb.sizes.end(), [&](const auto& x) { return x.first == s.first; });
          if (it == tb.sizes.end()) it = tb.sizes.insert(tb.sizes.end(), {s.first, {0, 0.0}});
          it->second.first += s.second.first;
          it->second.second += s.second.second;
        }
      }
      a.ops.push_back(std::move(o));
    }
    op_matrix mx;
    mx.name = k.first;
    mx.group = k.second;
    matrix_op(v, mx);
    for (const auto& l : mx.links) {
      auto it = std::find_if(total_mx.links.begin(), total_mx.links.end(),
                             [&](const matrix_link& x) { return x.key == l.key; });
      if (it == total_mx.links.end()) {
        it = total_mx.links.insert(total_mx.links.end(), matrix_link{});
        it->key = l.key;
      }
      it->transport = l.transport;
      it->size_mb += l.size_mb;
      it->time_ms += l.time_ms;
      it->packets += l.packets;
      it->large_packets += l.large_packets;
    }
    a.matrix.push_back(std::move(mx));
  }
  set_ratios(total);
  for (std::size_t k = 0; k < link_kinds.size(); ++k) {
    if (k == k_sdma)
      finish_sdma(total.bandwidth[k]);
    else
      finish_kind(total.bandwidth[k], link_kinds[k]);
  }
  a.ops.push_back(std::move(total));
  a.matrix.push_back(std::move(total_mx));
  return a;
}

namespace {

std::string op_key(const op_analysis& o) { return o.name == total_name ? o.name : o.name + "@" + o.group; }

/// One collective's value in communication.json.
void append_op(std::string& out, const op_analysis& o) {
  out += "{\"Communication Time Info\": {";
  const std::pair<const char*, const py_num*> times[] = {
      {"Start Timestamp(us)", &o.start_us}, {"Elapse Time(ms)", &o.elapse_ms},
      {"Transit Time(ms)", &o.transit_ms},  {"Wait Time(ms)", &o.wait_ms},
      {"Synchronization Time(ms)", &o.sync_ms}, {"Idle Time(ms)", &o.idle_ms},
      {"Wait Time Ratio", &o.wait_ratio},   {"Synchronization Time Ratio", &o.sync_ratio}};
  for (std::size_t k = 0; k < std::size(times); ++k) {
    if (k) out += ", ";
    append_key(out, times[k].first);
    append_num(out, *times[k].second);
  }
  out += "}, \"Communication Bandwidth Info\": {";
  for (std::size_t k = 0; k < link_kinds.size(); ++k) {
    const auto& b = o.bandwidth[k];
    if (k) out += ", ";
    append_key(out, link_kinds[k]);
    out += "{\"Transit Size(MB)\": ";
    append_num(out, b.size_mb);
    out += ", \"Transit Time(ms)\": ";
    append_num(out, b.time_ms);
    out += ", \"Bandwidth(GB/s)\": ";
    append_num(out, b.bandwidth);
    out += ", \"Large Packet Ratio\": ";
    append_num(out, b.large_packet_ratio);
    out += ", \"Size Distribution\": {";
    for (std::size_t s = 0; s < b.sizes.size(); ++s) {
      if (s) out += ", ";
      append_key(out, py_float(b.sizes[s].first));
      out += "[" + std::to_string(b.sizes[s].second.first) + ", " + py_float(b.sizes[s].second.second) + "]";
    }
    out += "}}";
  }
  out += "}}";
}

}  // namespace

std::string communication_json(const analysis& a) {
  if (a.ops.empty()) return {};
  std::string out = "{";
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    if (i) out += ", ";
    append_key(out, op_key(a.ops[i]));
    append_op(out, a.ops[i]);
  }
  out += "}";
  return out;
}

namespace {
/// A matrix link as `"<key>": {"Transport Type": ..., "Transit Size(MB)": ...,
/// "Transit Time(ms)": ..., "Bandwidth(GB/s)": ` (the caller writes the rest).
template <class Link>
void append_link_head(std::string& out, std::string_view key, const Link& l) {
  append_key(out, key);
  out += "{\"Transport Type\": ";
  if (const char* n = matrix_transport_name(l.transport))
    append_json_string(out, n);
  else
    out += "null";
  out += ", \"Transit Size(MB)\": " + py_float(l.size_mb) + ", \"Transit Time(ms)\": " + py_float(l.time_ms) +
         ", \"Bandwidth(GB/s)\": ";
}
}  // namespace

std::string communication_matrix_json(const analysis& a) {
  if (a.matrix.empty()) return {};
  std::string out = "{";
  for (std::size_t i = 0; i < a.matrix.size(); ++i) {
    const auto& m = a.matrix[i];
    if (i) out += ", ";
    append_key(out, m.name == total_name ? m.name : m.name + "@" + m.group);
    out += "{";
    for (std::size_t k = 0; k < m.links.size(); ++k) {
      const auto& l = m.links[k];
      if (k) out += ", ";
      append_link_head(out, l.key, l);
      out += (l.time_ms != 0 ? py_float(round4(l.size_mb / l.time_ms)) : "0") + "}";
    }
    out += "}";
  }
  out += "}";
  return out;
}

namespace {

/// The ns of a µs float as torch_npu reads it from its text: digits before
/// the point, then the first three after it (Python's repr of the float).
std::int64_t us_text_to_ns(const py_num& us) {
  const std::string t = us.is_float ? py_float(us.v) : std::string("0");
  const auto dot = t.find('.');
  std::string digits = t.substr(0, dot);
  std::string frac = dot == std::string::npos ? std::string() : t.substr(dot + 1, 3);
  frac.resize(3, '0');
  return std::strtoll((digits + frac).c_str(), nullptr, 10);
}

bool starts_with_lower(const std::string& s, std::string_view p) {
  if (s.size() < p.size()) return false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = s[i];
    if (static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) != p[i]) return false;
  }
  return true;
}

/// p2p (true), collective (false), or left out (the total).
std::optional<bool> p2p_of(const std::string& key) {
  if (starts_with_lower(key, "hcom_send") || starts_with_lower(key, "hcom_receive") ||
      starts_with_lower(key, "hcom_batchsendrecv"))
    return true;
  if (starts_with_lower(key, "total")) return std::nullopt;
  return false;
}

/// The op type torch_npu names a matrix entry by: the first of its type words
/// found in the lowercased key (leftmost; at one place the first in its list),
/// else the name up to "__".
std::string comm_type(const std::string& key) {
  static const char* const words[] = {"send",      "reduce",        "invalid", "broadcast", "allreduce",
                                      "receive",   "allgather",     "reducescatter", "scatter", "alltoall",
                                      "alltoallv", "alltoallvc",    "batchsendrecv"};
  std::string lower = key;
  for (auto& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  for (std::size_t at = 0; at < lower.size(); ++at)
    for (const char* w : words)
      if (lower.compare(at, std::strlen(w), w) == 0) return w;
  return key.substr(0, key.find("__"));
}

/// torch_npu's ratio: 0 (an integer) for a divisor within 1e-15 of 0.
py_num ratio(double a, double b) {
  py_num r;
  if (std::abs(b) >= 1e-15) r.set(round4(a / b));
  return r;
}

void append_total_op(std::string& out, const std::vector<const op_analysis*>& ops) {
  double times[5] = {0, 0, 0, 0, 0};  // elapse, transit, wait, sync, idle: floats from the start
  struct kind_total {
    py_num time_ms, size_mb;
    std::vector<std::pair<double, std::pair<std::uint64_t, double>>> sizes;
  };
  std::array<kind_total, 5> kinds;
  for (const auto* o : ops) {
    const py_num* t[] = {&o->elapse_ms, &o->transit_ms, &o->wait_ms, &o->sync_ms, &o->idle_ms};
    for (int k = 0; k < 5; ++k) times[k] += t[k]->v;
    for (std::size_t k = 0; k < link_kinds.size(); ++k) {
      const auto& b = o->bandwidth[k];
      if (b.time_ms.is_float) kinds[k].time_ms.add(b.time_ms.v);
      if (b.size_mb.is_float) kinds[k].size_mb.add(b.size_mb.v);
      for (const auto& sz : b.sizes) {
        auto& v = kinds[k].sizes;
        auto it = std::find_if(v.begin(), v.end(), [&](const auto& x) { return x.first == sz.first; });
        if (it == v.end()) it = v.insert(v.end(), {sz.first, {0, 0.0}});
        it->second.first += sz.second.first;
        it->second.second += sz.second.second;
      }
    }
  }
  out += "{\"Communication Time Info\": {";
  const char* names[] = {"Elapse Time(ms)", "Transit Time(ms)", "Wait Time(ms)", "Synchronization Time(ms)",
                         "Idle Time(ms)"};
  for (int k = 0; k < 5; ++k) {
    append_key(out, names[k]);
    out += py_float(times[k]) + ", ";
  }
  append_key(out, "Wait Time Ratio");
  append_num(out, ratio(times[2], times[2] + times[1]));
  out += ", ";
  append_key(out, "Synchronization Time Ratio");
  append_num(out, ratio(times[3], times[1] + times[3]));
  out += "}, \"Communication Bandwidth Info\": {";
  for (std::size_t k = 0; k < link_kinds.size(); ++k) {
    if (k) out += ", ";
    append_key(out, link_kinds[k]);
    out += "{\"Transit Time(ms)\": ";
    append_num(out, kinds[k].time_ms);
    out += ", \"Transit Size(MB)\": ";
    append_num(out, kinds[k].size_mb);
    out += ", \"Size Distribution\": {";
    for (std::size_t s = 0; s < kinds[k].sizes.size(); ++s) {
      if (s) out += ", ";
      append_key(out, py_float(kinds[k].sizes[s].first));
      out += "[" + std::to_string(kinds[k].sizes[s].second.first) + ", " + py_float(kinds[k].sizes[s].second.second) +
             "]";
    }
    out += "}}";
  }
  out += "}}";
}

/// {"p2p": {...}, "collective": {...}} of a step's collectives.
void append_step_ops(std::string& out, const std::vector<const op_analysis*>& ops) {
  out += "{";
  for (bool p2p : {true, false}) {
    std::vector<const op_analysis*> part;
    for (const auto* o : ops)
      if (p2p_of(op_key(*o)) == std::optional<bool>(p2p)) part.push_back(o);
    out += p2p ? "\"p2p\": {" : ", \"collective\": {";
    for (const auto* o : part) {
      append_key(out, op_key(*o));
      append_op(out, *o);
      out += ", ";
    }
    if (!part.empty()) {
      append_key(out, "Total Op Info");
      append_total_op(out, part);
    }
    out += "}";
  }
  out += "}";
}

struct link_entry {
  const matrix_link* link;
  const std::string* op_name;  ///< its collective's (in the analysis)
};

double link_bw(const matrix_link& l) { return l.time_ms != 0 ? round4(l.size_mb / l.time_ms) : 0.0; }

/// One entry of torch_npu's integrated matrix: a collective's link, or the
/// total of a link over the collectives (no op name).
struct pt_link {
  int transport = -1;
  double size_mb = 0, time_ms = 0;
  py_num bandwidth;
  const std::string* op_name = nullptr;  ///< into the analysis
};
using pt_matrix = std::vector<std::pair<std::string, std::vector<std::pair<std::string, pt_link>>>>;

/// A step's matrix part (p2p or collective): per op type, group and link the
/// entries by bandwidth, shown as top1 / middle / bottom1 / total / bottom2 /
/// bottom3 ("<type>-top1@<group>"), names in order of first use.
pt_matrix integrate(const std::vector<const op_matrix*>& ops) {
  std::vector<std::tuple<std::string, std::string, std::string>> keys;
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<link_entry>> entries;
  for (const auto* m : ops) {
    const std::string type = comm_type(m->name + "@" + m->group);
    for (const auto& l : m->links) {
      auto k = std::make_tuple(type, m->group, l.key);
      auto& v = entries[k];
      if (v.empty()) keys.push_back(k);
      v.push_back({&l, &m->name});
    }
  }
  pt_matrix out;
  std::map<std::string, std::size_t> at;
  auto put = [&](const std::string& name, const std::string& link, const pt_link& value) {
    auto [it, fresh] = at.emplace(name, out.size());
    if (fresh) out.emplace_back(name, std::vector<std::pair<std::string, pt_link>>{});
    out[it->second].second.emplace_back(link, value);
  };
  for (const auto& k : keys) {
    auto& v = entries[k];
    std::stable_sort(v.begin(), v.end(),
                     [](const link_entry& x, const link_entry& y) { return link_bw(*x.link) > link_bw(*y.link); });
    const std::string& type = std::get<0>(k);
    const std::string& group = std::get<1>(k);
    const std::string& link = std::get<2>(k);
    auto entry = [](const link_entry& e) {
      pt_link p;
      p.transport = e.link->transport;
      p.size_mb = e.link->size_mb;
      p.time_ms = e.link->time_ms;
      if (e.link->time_ms != 0) p.bandwidth.set(round4(e.link->size_mb / e.link->time_ms));
      p.op_name = e.op_name;
      return p;
    };
    pt_link total;
    total.transport = v.front().link->transport;
    for (const auto& e : v) {
      total.size_mb += e.link->size_mb;
      total.time_ms += e.link->time_ms;
    }
    total.bandwidth = ratio(total.size_mb, total.time_ms);
    put(type + "-top1@" + group, link, entry(v.front()));
    put(type + "-middle@" + group, link, entry(v[v.size() / 2]));
    put(type + "-bottom1@" + group, link, entry(v.back()));
    put(type + "-total@" + group, link, total);
    if (v.size() >= 2) put(type + "-bottom2@" + group, link, entry(v[v.size() - 2]));
    if (v.size() >= 3) put(type + "-bottom3@" + group, link, entry(v[v.size() - 3]));
  }
  return out;
}

void append_matrix_part(std::string& out, const std::vector<const op_matrix*>& ops) {
  const auto m = integrate(ops);
  out += "{";
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (i) out += ", ";
    append_key(out, m[i].first);
    out += "{";
    for (std::size_t k = 0; k < m[i].second.size(); ++k) {
      const auto& l = m[i].second[k].second;
      if (k) out += ", ";
      append_link_head(out, m[i].second[k].first, l);
      append_num(out, l.bandwidth);
      if (l.op_name) {
        out += ", \"Op Name\": ";
        append_json_string(out, *l.op_name);
      }
      out += "}";
    }
    out += "}";
  }
  out += "}";
}

}  // namespace

pt_files pt_communication_json(const analysis& a, const std::vector<pt_step>& given) {
  pt_files f;
  if (a.ops.empty()) return f;
  std::vector<pt_step> steps = given.empty() ? std::vector<pt_step>{pt_step{}} : given;
  // Each collective (the total too, by its start 0) goes to the first step holding its start; one step takes all.
  std::vector<std::vector<const op_analysis*>> step_ops(steps.size());
  std::map<std::string, std::size_t> step_of;  // op key -> step
  for (const auto& o : a.ops) {
    const std::int64_t ns = us_text_to_ns(o.start_us);
    for (std::size_t s = 0; s < steps.size(); ++s) {
      if (steps.size() == 1 || (steps[s].start_ns <= ns && ns <= steps[s].end_ns)) {
        step_ops[s].push_back(&o);
        step_of.emplace(op_key(o), s);
        break;
      }
    }
  }
  auto step_name = [&](std::size_t s) { return "step" + steps[s].id; };
  f.communication = "{";
  for (std::size_t s = 0; s < steps.size(); ++s) {
    if (s) f.communication += ", ";
    append_key(f.communication, step_name(s));
    append_step_ops(f.communication, step_ops[s]);
  }
  f.communication += "}";

  // The matrix: each collective in its step (all in "step" when no step holds any).
  std::vector<std::string> order;
  std::map<std::string, std::vector<const op_matrix*>> by_step;
  for (const auto& m : a.matrix) {
    std::string name;
    if (step_of.empty()) {
      name = "step";
    } else {
      const std::string key = m.name == total_name ? m.name : m.name + "@" + m.group;
      auto it = step_of.find(key);
      if (it == step_of.end()) continue;
      name = step_name(it->second);
    }
    auto& v = by_step[name];
    if (v.empty()) order.push_back(name);
    v.push_back(&m);
  }
  if (order.empty()) return f;
  f.matrix = "{";
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i) f.matrix += ", ";
    append_key(f.matrix, order[i]);
    f.matrix += "{";
    for (bool p2p : {true, false}) {
      std::vector<const op_matrix*> part;
      for (const auto* m : by_step[order[i]]) {
        const std::string key = m->name == total_name ? m->name : m->name + "@" + m->group;
        if (p2p_of(key) == std::optional<bool>(p2p)) part.push_back(m);
      }
      f.matrix += p2p ? "\"p2p\": " : ", \"collective\": ";
      append_matrix_part(f.matrix, part);
    }
    f.matrix += "}";
  }
  f.matrix += "}";
  return f;
}

std::vector<analyzer_table> analyzer_tables(const analysis& a) {
  using cell = std::variant<std::int64_t, double, std::string, std::monostate>;
  auto num = [](const py_num& n) { return n.is_float ? cell(n.v) : cell(std::int64_t{0}); };
  std::vector<analyzer_table> out(3);
  auto& bw = out[0];
  bw.name = "CommAnalyzerBandwidth";
  bw.create =
      "CREATE TABLE CommAnalyzerBandwidth(hccl_op_name TEXT, group_name TEXT, transport_type TEXT, transit_size "
      "NUMERIC, transit_time NUMERIC, bandwidth NUMERIC, large_packet_ratio NUMERIC, package_size NUMERIC, count "
      "NUMERIC, total_duration NUMERIC)";
  auto& mx = out[1];
  mx.name = "CommAnalyzerMatrix";
  mx.create =
      "CREATE TABLE CommAnalyzerMatrix(hccl_op_name TEXT, group_name TEXT, src_rank TEXT, dst_rank TEXT, "
      "transport_type TEXT, transit_size NUMERIC, transit_time NUMERIC, bandwidth NUMERIC)";
  auto& tm = out[2];
  tm.name = "CommAnalyzerTime";
  tm.create =
      "CREATE TABLE CommAnalyzerTime(hccl_op_name TEXT, group_name TEXT, start_timestamp NUMERIC, elapse_time "
      "NUMERIC, transit_time NUMERIC, wait_time NUMERIC, synchronization_time NUMERIC, idle_time NUMERIC)";
  for (const auto& o : a.ops) {
    if (o.name == total_name) continue;
    tm.rows.push_back({o.name, o.group, num(o.start_us), num(o.elapse_ms), num(o.transit_ms), num(o.wait_ms),
                       num(o.sync_ms), num(o.idle_ms)});
    // A kind with something moved: one row per transfer size, or one with zeros.
    for (std::size_t k = 0; k < link_kinds.size(); ++k) {
      const auto& b = o.bandwidth[k];
      if (b.size_mb.v + b.time_ms.v + b.bandwidth.v + b.large_packet_ratio.v == 0) continue;
      std::vector<cell> head{o.name, o.group, std::string(link_kinds[k]), num(b.size_mb), num(b.time_ms),
                             num(b.bandwidth), num(b.large_packet_ratio)};
      if (b.sizes.empty()) {
        auto r = head;
        r.insert(r.end(), {std::int64_t{0}, std::int64_t{0}, std::int64_t{0}});
        bw.rows.push_back(std::move(r));
      }
      for (const auto& sz : b.sizes) {
        auto r = head;
        r.insert(r.end(), {sz.first, static_cast<std::int64_t>(sz.second.first), sz.second.second});
        bw.rows.push_back(std::move(r));
      }
    }
  }
  for (const auto& m : a.matrix) {
    if (m.name == total_name) continue;
    for (const auto& l : m.links) {
      const auto dash = l.key.find('-');
      const char* tr = matrix_transport_name(l.transport);
      mx.rows.push_back({m.name, m.group, l.key.substr(0, dash), l.key.substr(dash + 1),
                         tr ? cell(std::string(tr)) : cell(std::monostate{}), l.size_mb, l.time_ms,
                         l.time_ms != 0 ? cell(round4(l.size_mb / l.time_ms)) : cell(std::int64_t{0})});
    }
  }
  return out;
}

std::vector<analyzer_table> pt_analyzer_tables(const analysis& a, const std::vector<pt_step>& given) {
  using cell = std::variant<std::int64_t, double, std::string, std::monostate>;
  const std::vector<pt_step> steps = given.empty() ? std::vector<pt_step>{pt_step{}} : given;
  auto cann = analyzer_tables(a);  // Bandwidth, Matrix, Time
  std::vector<analyzer_table> out(3);
  const char* cols[] = {
      "hccl_op_name TEXT, group_name TEXT, transport_type TEXT, transit_size NUMERIC, transit_time NUMERIC, "
      "bandwidth NUMERIC, large_packet_ratio NUMERIC, package_size NUMERIC, count NUMERIC, total_duration NUMERIC, "
      "step TEXT, type TEXT",
      "hccl_op_name TEXT, group_name TEXT, src_rank TEXT, dst_rank TEXT, transport_type TEXT, transit_size NUMERIC, "
      "transit_time NUMERIC, bandwidth NUMERIC, step TEXT, type TEXT, op_name TEXT",
      "hccl_op_name TEXT, group_name TEXT, start_timestamp NUMERIC, elapse_time NUMERIC, transit_time NUMERIC, "
      "wait_time NUMERIC, synchronization_time NUMERIC, idle_time NUMERIC, step TEXT, type TEXT"};
  for (std::size_t t = 0; t < 3; ++t) {
    out[t].name = cann[t].name;
    out[t].create = "CREATE TABLE " + cann[t].name + " (" + cols[t] + ")";
  }
  // Each collective's time row, in the step holding its start, with its
  // bandwidth rows; its matrix goes to integration per step and type.
  std::vector<std::string> step_order;
  std::map<std::string, std::pair<std::vector<const op_matrix*>, std::vector<const op_matrix*>>> step_matrix;
  for (const auto& o : a.ops) {
    if (o.name == total_name) continue;
    const auto p2p = p2p_of(op_key(o));
    const std::string type = p2p ? (*p2p ? "p2p" : "collective") : "";
    const std::int64_t ns = us_text_to_ns(o.start_us);
    for (const auto& st : steps) {
      if (!(st.start_ns <= ns && ns <= st.end_ns)) continue;
      const std::string step = "step" + st.id;
      for (const auto& r : cann[2].rows)
        if (std::get<std::string>(r[0]) == o.name && std::get<std::string>(r[1]) == o.group) {
          auto row = r;
          row.insert(row.end(), {cell(step), cell(type)});
          out[2].rows.push_back(std::move(row));
        }
      for (const auto& r : cann[0].rows)
        if (std::get<std::string>(r[0]) == o.name && std::get<std::string>(r[1]) == o.group) {
          auto row = r;
          row.insert(row.end(), {cell(step), cell(type)});
          out[0].rows.push_back(std::move(row));
        }
      for (const auto& m : a.matrix)
        if (m.name == o.name && m.group == o.group && p2p) {
          auto [it, fresh] = step_matrix.try_emplace(step);
          if (fresh) step_order.push_back(step);
          (*p2p ? it->second.first : it->second.second).push_back(&m);
        }
      break;
    }
  }
  for (const auto& step : step_order) {
    for (bool p2p : {true, false}) {
      const auto& part = p2p ? step_matrix[step].first : step_matrix[step].second;
      for (const auto& [name, links] : integrate(part)) {
        const auto at = name.rfind('@');
        for (const auto& [key, l] : links) {
          const auto dash = key.find('-');
          const char* tr = matrix_transport_name(l.transport);
          out[1].rows.push_back({name.substr(0, at), name.substr(at + 1), key.substr(0, dash), key.substr(dash + 1),
                                 tr ? cell(std::string(tr)) : cell(std::monostate{}), l.size_mb, l.time_ms,
                                 l.bandwidth.is_float ? cell(l.bandwidth.v) : cell(std::int64_t{0}), step,
                                 std::string(p2p ? "p2p" : "collective"), l.op_name ? *l.op_name : std::string()});
        }
      }
    }
  }
  return out;
}

analysis analyze_first_device(const communication& c, std::int64_t collection_start_ns) {
  if (c.tasks.empty()) return {};
  std::uint32_t device = c.tasks.front().device_id;
  for (const auto& t : c.tasks) device = std::min(device, t.device_id);
  return analyze(c, device, collection_start_ns);
}

result<std::vector<std::string>> write_pt_communication(const std::string& out_dir, const communication& c,
                                                        std::int64_t collection_start_ns,
                                                        const std::vector<pt_step>& steps) {
  std::vector<std::string> files;
  const auto f = pt_communication_json(analyze_first_device(c, collection_start_ns), steps);
  if (f.communication.empty()) return files;
  auto dir = outfile::dir::open(out_dir);
  if (!dir) return dir.err();
  MSPROF_TRY(outfile::write_atomic(*dir, "communication.json", f.communication));
  files.push_back(dir->path() + "/communication.json");
  if (!f.matrix.empty()) {
    MSPROF_TRY(outfile::write_atomic(*dir, "communication_matrix.json", f.matrix));
    files.push_back(dir->path() + "/communication_matrix.json");
  }
  return files;
}

result<analyze_written> write_analysis(const std::string& prof_dir, const analyze_options& o) {
  analyze_written w;
  auto prof = outfile::dir::open(prof_dir, true);  // the user's path: it may be a link
  if (!prof) return prof.err();
  auto col = collector::open(prof_dir);
  if (!col) return col.err();
  if (!col->active()) {
    w.warnings.push_back(prof_dir + ": no HCCL data (hccl_info) to analyse");
    return w;
  }
  auto final = load_windows(prof_dir, load_options{}, [&](model& window) { col->add(window); });
  if (!final) return final.err();
  auto comm = col->finish(*final);
  if (!comm) return comm.err();
  w.warnings = comm->warnings;
  std::set<std::uint32_t> devices;
  for (const auto& t : comm->tasks) devices.insert(t.device_id);
  if (devices.empty()) {
    w.warnings.push_back(prof_dir + ": no HCCL task linked to analyse");
    return w;
  }
  for (auto d = std::next(devices.begin()); d != devices.end(); ++d)
    w.warnings.push_back(prof_dir + ": device " + std::to_string(*d) + " left out: the analysis is of device " +
                         std::to_string(*devices.begin()));
  const auto a = analyze(*comm, *devices.begin(), final->session.start_ns);
  if (a.ops.empty()) {
    w.warnings.push_back(prof_dir + ": no HCCL collective with a master task after the collection start");
    return w;
  }
  auto dir = prof->mkdir("analyze");
  if (!dir) return dir.err();
  for (auto& n : dir->remove_stale_temps()) w.warnings.push_back(std::move(n));
  const std::string out = dir->path();
  if (o.text && o.communication) {
    MSPROF_TRY(outfile::write_atomic(*dir, "communication.json", communication_json(a)));
    w.files.push_back(out + "/communication.json");
  }
  if (o.text && o.matrix) {
    MSPROF_TRY(outfile::write_atomic(*dir, "communication_matrix.json", communication_matrix_json(a)));
    w.files.push_back(out + "/communication_matrix.json");
  }
  auto f = outfile::atomic_file::create(*dir, "communication_analyzer.db");
  if (!f) return f.err();
  {
    detail::sqlite_db db(detail::sqlite_path(*dir, *f));
    MSPROF_TRY(db.open());
    for (const auto& t : analyzer_tables(a)) {
      if (!(t.name == "CommAnalyzerMatrix" ? o.matrix : o.communication)) continue;
      MSPROF_TRY(db.exec(t.create));
      if (!t.rows.empty()) MSPROF_TRY(db.insert(t.name, t.rows.front().size(), t.rows));
    }
    MSPROF_TRY(db.close());
  }
  MSPROF_TRY(f->commit());
  w.files.push_back(out + "/communication_analyzer.db");
  return w;
}

}  // namespace hccl
}  // namespace convert
MSPROF_END_NAMESPACE
