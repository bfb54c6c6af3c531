// SPDX-License-Identifier: MIT
// What an export reads: option checks, --strict, --clear, the whole model for
// the chrome form, and the iteration selection.
#include "msprof/convert/export_select.hpp"

#include <algorithm>
#include <climits>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>
#include <tuple>

#include "msprof/convert/load.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace detail {

std::string available_iterations(const model& m) {
  std::map<std::uint32_t, std::set<std::uint32_t>> ids;
  for (const auto& it : m.iterations) ids[it.model_id].insert(it.iteration_id);
  std::string out;
  for (const auto& [model_id, set] : ids) {
    if (!out.empty()) out += "; ";
    out += "model " + std::to_string(model_id) + ": iteration" + (set.size() == 1 ? " " : "s ");
    std::vector<std::uint32_t> v(set.begin(), set.end());
    for (std::size_t i = 0; i < v.size();) {
      std::size_t j = i;
      while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
      if (i) out += ", ";
      out += std::to_string(v[i]);
      if (j > i) out += "-" + std::to_string(v[j]);
      i = j + 1;
    }
  }
  return out;
}

result<iteration_filter> iteration_filter::choose(const model& m, const export_options& o) {
  if (!o.model_id || !o.iteration_id)
    return make_error(errc::invalid_argument, "--model-id and --iteration-id go together");
  const std::uint32_t model_id = *o.model_id, first = *o.iteration_id;
  const std::string what = "--model-id=" + std::to_string(model_id) + " --iteration-id=" + std::to_string(first) +
                           (o.iteration_count > 1 ? " --iteration-count=" + std::to_string(o.iteration_count) : "");
  if (m.iterations.empty())
    return make_error(errc::not_found, m.session.prof_dir + ": " + what +
                                           ": the collection has no step data (the program marked no steps or iterations, so there is nothing to select)");
  iteration_filter f;
  bool any = false;
  for (std::uint32_t k = 0; k < o.iteration_count; ++k) {
    const std::uint64_t id = static_cast<std::uint64_t>(first) + k;
    const iteration* found = nullptr;
    for (const auto& it : m.iterations)
      if (it.model_id == model_id && it.iteration_id == id) found = &it;
    if (!found)
      return make_error(errc::not_found, m.session.prof_dir + ": " + what + ": model " + std::to_string(model_id) +
                                             " has no iteration " + std::to_string(id) + " (available: " +
                                             available_iterations(m) + ")");
    // Lower bound: end of the latest iteration (any model, same device) that
    // ended before this one started; none: from the beginning.
    std::int64_t lo = INT64_MIN;
    for (const auto& it : m.iterations)
      if (it.device_id == found->device_id && it.end_ns < found->start_ns) lo = std::max(lo, it.end_ns);
    f.range_.lo = any ? std::min(f.range_.lo, lo) : lo;
    f.range_.hi = any ? std::max(f.range_.hi, found->end_ns) : found->end_ns;
    any = true;
    f.chosen_.push_back(*found);
  }
  std::stable_sort(f.chosen_.begin(), f.chosen_.end(), [](const iteration& a, const iteration& b) {
    return std::tie(a.device_id, a.end_ns) < std::tie(b.device_id, b.end_ns);
  });
  return f;
}

void iteration_filter::apply(model& w) {
  auto out = [&](std::int64_t b, std::int64_t e) { return !range_.contains(b, e); };
  w.tasks.erase(std::remove_if(w.tasks.begin(), w.tasks.end(),
                               [&](const device_task& t) { return out(t.start_ns, t.end_ns); }),
                w.tasks.end());
  for (const auto& t : w.tasks)
    if (t.host_flow) launched_.insert(t.connection_id);
  for (auto& a : w.apis) a.has_device_task = launched_.erase(a.connection_id) != 0 && a.has_device_task;
  w.apis.erase(std::remove_if(w.apis.begin(), w.apis.end(),
                              [&](const api_call& a) { return out(a.start_ns, a.end_ns); }),
               w.apis.end());
  w.mstx.erase(std::remove_if(w.mstx.begin(), w.mstx.end(),
                              [&](const mstx_event& e) { return out(e.start_ns, e.end_ns); }),
               w.mstx.end());
  w.iterations = chosen_;
}

result<void> select_iterations(model& m, const export_options& o) {
  auto f = iteration_filter::choose(m, o);
  if (!f) return f.err();
  f->apply(m);
  return {};
}

result<void> check_options(const export_options& o) {
  if (o.iteration_count < 1 || o.iteration_count > 5)
    return make_error(errc::invalid_argument, "--iteration-count must be 1..5, got " + std::to_string(o.iteration_count));
  if (o.format != "csv" && o.format != "json")
    return make_error(errc::invalid_argument, "--format must be csv or json, got '" + o.format + "'");
  return {};
}

result<void> check_strict(const std::string& prof_dir, const model& m, const export_options& o) {
  if (o.strict && !m.warnings.empty())
    return make_error(errc::truncated, prof_dir + ": " + m.warnings.front() + " (strict mode)");
  return {};
}

void clear_intermediates(const std::string& prof_dir, const export_options& o) {
  if (!o.clear) return;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(prof_dir, ec)) {
    // Only real directories: a link's target is outside the PROF_ directory
    // (remove_all itself removes a link named sqlite, not what it points to).
    std::error_code ec2;
    if (e.is_directory(ec2) && !e.is_symlink(ec2)) std::filesystem::remove_all(e.path() / "sqlite", ec2);
  }
}

result<model> load_checked(const std::string& prof_dir, const export_options& o) {
  load_options lo;
  lo.bytes_read = o.bytes_read;
  auto m = load_model(prof_dir, lo);
  if (!m) return m.err();
  MSPROF_TRY(check_strict(prof_dir, *m, o));
  MSPROF_TRY(check_options(o));
  if (o.model_id || o.iteration_id) MSPROF_TRY(select_iterations(*m, o));
  clear_intermediates(prof_dir, o);
  return m;
}

}  // namespace detail
}  // namespace convert
MSPROF_END_NAMESPACE
