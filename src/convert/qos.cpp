// SPDX-License-Identifier: MIT
// QoS as the reference (9ba1ac7be) exports it: ParsingQosData
// (msparser/hardware/qos_parser.py, chip 5 only in data_parsers_config.py)
// decodes the samples ("2I2Q10I"), stamps them with time_from_syscnt and keeps
// them in qos.db's QosBwData; QosProcessor (qos_processor.cpp) makes the times
// local and drops those before the collection start; qos_assembler.cpp draws
// one counter "QoS <event>" per name of sample.json's qosEvents ({"value":
// MB/s}) and SaveQosData (db_assembler.cpp) writes the QOS rows.
#include "msprof/convert/qos.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "msprof/codec/qos.hpp"
#include "msprof/convert/db.hpp"
#include "msprof/convert/device_slices.hpp"
#include "msprof/prof/reader.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace {

/// sample.json's qosEvents split at every ',' (Utils::Split: empty names kept).
std::vector<std::string> event_names(const prof::device_info& d) {
  std::vector<std::string> names;
  const std::string events = d.sample.get("qosEvents").as_string_or("");
  if (events.empty()) return names;
  std::size_t start = 0;
  for (std::size_t comma; (comma = events.find(',', start)) != std::string::npos; start = comma + 1)
    names.push_back(events.substr(start, comma - start));
  names.push_back(events.substr(start));
  return names;
}

/// The time of a sample as the reference makes it: InfoConfReader.time_from_syscnt
/// in Python's floats ((ticks - cntvct) / hwts Hz * 1e9 + host_start.log's
/// clock), then GetLocalTime's exact sum with start_info's collectionTimeBegin
/// minus its clockMonotonicRaw, truncated; nullopt outside int64. The clock
/// files are the device's own (own_clock).
class syscnt_clock {
 public:
  syscnt_clock(const detail::device_clock& c, const prof::device_info& d)
      : cnt_(static_cast<double>(d.clock.anchor_ticks) / 1e9 * 1e9),
        hz_(d.clock.frequency_mhz * 1000000.0),
        mono_(static_cast<double>(c.host_mono_ns) / 1e9 * 1e9),
        wall_(c.start_ns() - static_cast<std::int64_t>(c.raw_ns)) {}
  bool usable() const { return hz_ > 0; }
  std::optional<std::int64_t> operator()(std::uint64_t ticks) const {
    const double t = std::floor((static_cast<double>(ticks) - cnt_) / hz_ * 1e9 + mono_);
    if (!(t > -9.2e18 && t < 9.2e18)) return std::nullopt;
    return prof::time_ns::add(static_cast<std::int64_t>(t), wall_);
  }

 private:
  double cnt_, hz_, mono_;
  std::int64_t wall_;
};

}  // namespace

result<void> for_each_qos_sample(const std::string& prof_dir, std::vector<std::string>& warnings,
                                 const std::function<result<void>(const qos_sample&)>& fn) {
  auto r = detail::open_for_slices(prof_dir, true, "qos.data.", false);
  if (!r) return {};
  const auto& host = r->host();
  std::uint64_t bad_time = 0, early = 0;
  for (const auto& d : r->devices()) {
    const std::string dir = prof_dir + "/" + prof::layout::device_dir(d.id) + "/";
    std::vector<const prof::data_file*> files;
    for (const auto& f : r->files())
      if (f.device && f.device_id == d.id && f.module == "qos") files.push_back(&f);
    if (files.empty()) continue;
    const std::string none = "; no QoS samples for device " + std::to_string(d.id);
    const std::string chip = d.info.get("platform_version").as_string_or("");
    if (chip != "5") {
      warnings.push_back(dir + prof::layout::for_device(prof::layout::info_json, d.id) + ": chip \"" + chip +
                         "\" (platform_version) is not one whose QoS data the reference reads (5)" + none);
      continue;
    }
    const std::vector<std::string> names = event_names(d);
    if (names.empty()) {
      warnings.push_back(dir + prof::layout::sample_json + ": no qosEvents to name the QoS bandwidths" + none);
      continue;
    }
    if (names.size() > codec::qos_bandwidths)
      warnings.push_back(dir + prof::layout::sample_json + ": qosEvents names " + std::to_string(names.size()) +
                         " events, a QoS sample holds " + std::to_string(codec::qos_bandwidths) +
                         " bandwidths; the names past them are left out");
    const auto own = detail::own_clock(prof_dir, host, d, warnings);
    const std::int64_t start = own.start_ns();
    const syscnt_clock local(own, d);
    if (!local.usable()) {
      warnings.push_back(dir + prof::layout::for_device(prof::layout::info_json, d.id) +
                         ": no positive hwts_frequency to time the QoS samples" + none);
      continue;
    }
    qos_sample q;
    q.device_id = d.id;
    const std::size_t n = std::min(names.size(), codec::qos_bandwidths);
    std::vector<std::string> counters;
    for (std::size_t i = 0; i < n; ++i) counters.push_back("QoS " + names[i]);
    q.counters = &counters;
    for (const auto* f : files) {
      detail::file_problems problems(warnings, f->path);
      result<void> status;
      const std::string_view path = f->path;
      auto rep = codec::scan_file(f->path, codec::qos_size, [&](const unsigned char* p, std::uint64_t off) {
        if (!status) return;
        const codec::place at{path, off};
        auto s = codec::decode_qos(p, codec::qos_size, at);
        if (!s) return problems.add(s.err().message + "; record skipped");
        const auto t = local(s->syscnt);
        if (!t) return void(++bad_time);
        if (*t < start) return void(++early);
        q.time_ns = *t;
        q.mb_s.assign(s->bandwidth, s->bandwidth + n);
        status = fn(q);
      });
      MSPROF_TRY(status);
      if (!rep) {
        if (rep.err().code == errc::io) return rep.err();
        problems.add(rep.err().message + "; file skipped");
        continue;
      }
      if (rep->tail_bytes) {
        const std::uint64_t off = rep->records * codec::qos_size;
        problems.add(f->path + ": truncated record at byte offset " + std::to_string(off) + ": " +
                     std::to_string(rep->tail_bytes) + " of " + std::to_string(codec::qos_size) +
                     " bytes present; the " + std::to_string(rep->records) +
                     " whole record(s) before it are kept, the tail is skipped");
      }
    }
  }
  detail::slice_warnings(*r, "qos", warnings);
  detail::left_out(warnings, prof_dir, bad_time, "QoS sample(s) with a time outside the clock's range");
  detail::left_out(warnings, prof_dir, early, "QoS sample(s) from before the collection start (as the reference)");
  return {};
}

std::vector<std::string> qos_event_names(const std::string& prof_dir) {
  std::vector<std::string> out;
  std::vector<std::string> ignored;
  bool any = false;
  (void)for_each_qos_sample(prof_dir, ignored, [&](const qos_sample&) -> result<void> {
    any = true;
    return make_error(errc::limit, "enough");  // one sample says it: stop reading
  });
  if (!any) return out;
  auto r = detail::open_for_slices(prof_dir, true, "qos.data.", false);
  if (!r) return out;
  for (const auto& d : r->devices())
    for (const auto& name : event_names(d)) out.push_back("QoS " + name);
  return out;
}

result<void> db_window_writer::write_qos(const std::string& prof_dir) {
  detail::table_writer* t = nullptr;
  std::map<std::uint32_t, std::vector<std::int64_t>> ids;  // per device, its names' string ids
  MSPROF_TRY(for_each_qos_sample(prof_dir, warnings_, [&](const qos_sample& q) -> result<void> {
    if (!t) t = &rows_of("QOS");
    auto& names = ids[q.device_id];
    if (names.empty())
      for (const auto& n : *q.counters) names.push_back(ids_.id(n));
    for (std::size_t i = 0; i < q.mb_s.size(); ++i)
      // SaveQosData: MB/s times 1024 * 1024 in uint32 arithmetic (it wraps), die -1 on chip 5.
      t->row(q.device_id, names[i], static_cast<std::uint32_t>(q.mb_s[i] * 1048576u), q.time_ns, -1);
    return status_;
  }));
  if (t) lap(*t);
  return status_;
}

}  // namespace convert
MSPROF_END_NAMESPACE
