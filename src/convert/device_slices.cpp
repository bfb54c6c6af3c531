// SPDX-License-Identifier: MIT
#include "msprof/convert/device_slices.hpp"

#include "msprof/core/directory.hpp"
#include "msprof/prof/layout.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace detail {

bool any_slice(const std::string& prof_dir, bool device, const std::string& part) {
  std::vector<std::string> dirs;
  if (!device) {
    dirs.push_back(prof_dir + "/" + prof::layout::host_dir + "/" + prof::layout::data_dir);
  } else if (auto entries = posix_dir::list(prof_dir)) {
    for (const auto& e : *entries)
      if (e.rfind(prof::layout::device_dir_prefix, 0) == 0) dirs.push_back(prof_dir + "/" + e + "/" + prof::layout::data_dir);
  }
  for (const auto& d : dirs)
    if (auto names = posix_dir::list(d))
      for (const auto& n : *names)
        if (n.find(part) != std::string::npos) return true;
  return false;
}

std::optional<prof::prof_reader> open_for_slices(const std::string& prof_dir, bool device, const std::string& part,
                                                 bool dictionary) {
  if (!any_slice(prof_dir, device, part)) return std::nullopt;
  prof::reader_options ro;
  if (!dictionary) ro.max_dictionary_bytes = 0;  // its warning is not among the slices' (slice_warnings)
  auto r = prof::prof_reader::open(prof_dir, ro);
  if (!r) return std::nullopt;
  return std::move(*r);
}

void slice_warnings(const prof::prof_reader& r, std::string_view stem, std::vector<std::string>& out) {
  for (const auto& w : r.warnings()) {
    const auto slash = w.file.rfind('/');
    const std::string_view name = std::string_view(w.file).substr(slash == std::string::npos ? 0 : slash + 1);
    if (name.substr(0, stem.size()) == stem || name.find(std::string(".") + std::string(stem) + ".") != std::string_view::npos)
      out.push_back(w.text());
  }
}

device_clock own_clock(const std::string& prof_dir, const prof::host_info& host, const prof::device_info& d,
                       std::vector<std::string>& warnings) {
  device_clock c;
  c.dev_mono_ns = d.clock.anchor_ns;
  // host_start.log.<id> through the control-file reader's parser (strict: any problem is its error); the
  // counter's frequency from info.json.<id>'s CPU entry as the reference reads it there ("" or none: its
  // default, ticks are ns), the host's when the device's info.json has no CPU entry.
  double mhz = host.clock.frequency_mhz;
  if (const auto* cpu = d.info.find("CPU")) {
    double f = 0;
    mhz = cpu->at(0).get("Frequency").to_double(f) && f > 0 ? f : 0;
  }
  prof::reader_options opt;
  opt.strict = true;
  std::vector<prof::warning> notes;
  prof::control_reader reader(opt, notes);
  prof::tick_clock own{mhz, 0, 0};
  const std::string log = prof_dir + "/" + prof::layout::device_dir(d.id) + "/" +
                          prof::layout::for_device(prof::layout::host_start_log, d.id);
  const auto read = reader.read_host_clock_log(log, own.anchor_ns, own.anchor_ticks, true, mhz);
  for (const auto& n : notes) warnings.push_back(n.text());
  if (read) {
    c.host_mono_ns = own.anchor_ns;
    c.host_ticks = own;
  } else {
    c.host_mono_ns = host.clock.anchor_ns;
    c.host_ticks = host.clock;
    warnings.push_back(read.err().message + "; device " + std::to_string(d.id) +
                       "'s samples are placed by the host's host_start.log (the reference's C++ export stops here)");
  }
  // start_info.<id>: each value that is absent, 0 or outside int64 ns is the host's.
  c.begin_us = d.start_info.get("collectionTimeBegin").uint_or(0);
  if (c.begin_us == 0 || !prof::time_ns::from_us(c.begin_us)) c.begin_us = host.collection_time_begin_us;
  c.raw_ns = d.start_info.get("clockMonotonicRaw").uint_or(0);
  if (c.raw_ns == 0 || !prof::time_ns::from_u64(c.raw_ns)) c.raw_ns = host.start_monotonic_raw_ns;
  return c;
}

sampling_clock::sampling_clock(const device_clock& c)
    : dev_mono_(c.dev_mono_ns),
      delta_ns_((static_cast<double>(c.host_mono_ns) / 1e9 - static_cast<double>(dev_mono_) / 1e9) * 1e9),
      offset_ns_((static_cast<double>(c.begin_us) - static_cast<double>(c.raw_ns) / 1000.0) * 1000.0) {}

std::optional<std::int64_t> sampling_clock::operator()(std::uint64_t us) const {
  constexpr std::uint64_t max = ~std::uint64_t{0};
  // Python's integers do not wrap: past 64 bits the sum is far outside int64 anyway.
  const double ns = us <= (max - dev_mono_) / 1000 ? static_cast<double>(us * 1000 + dev_mono_)
                                                   : static_cast<double>(us) * 1000.0;
  const double t = ns + delta_ns_ + offset_ns_;
  if (!(t > -9.2e18 && t < 9.2e18)) return std::nullopt;
  return static_cast<std::int64_t>(t);  // truncated, as the reference's int()
}

std::optional<double> device_local_offset_us(const std::string& prof_dir, const prof::device_info& d,
                                             const std::string& what, std::vector<std::string>& warnings) {
  // Python's float() of a value that is true: a non-empty string or a non-zero number (no hex, no inf).
  const auto value = [](const json::value& v) -> std::optional<double> {
    double x = 0;
    if (!(v.is_string() || v.is_number()) || v.text().find_first_of("xX") != std::string::npos || !v.to_double(x))
      return std::nullopt;
    if (v.is_number() && x == 0) return std::nullopt;
    return x;
  };
  const auto begin = value(d.start_info.get("collectionTimeBegin"));
  const auto raw = value(d.start_info.get("clockMonotonicRaw"));
  if (begin && raw) return *begin - *raw / 1000;
  warnings.push_back(prof_dir + "/" + prof::layout::device_dir(d.id) + "/" +
                     prof::layout::for_device(prof::layout::start_info, d.id) +
                     ": collectionTimeBegin or clockMonotonicRaw missing, empty or not a number: device " +
                     std::to_string(d.id) + "'s " + what + " were left out (no local time; the reference's export stops)");
  return std::nullopt;
}

}  // namespace detail
}  // namespace convert
MSPROF_END_NAMESPACE
