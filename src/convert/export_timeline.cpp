// SPDX-License-Identifier: MIT
// The timeline exporter: msprof_<ts>.json, msprof_tx_<ts>.json and
// step_trace_<ts>.json, streamed through a temporary file and a rename.
#include "msprof/convert/export_writers.hpp"

#include <string>
#include <type_traits>
#include <vector>

#include "msprof/convert/export_files.hpp"
#include "msprof/convert/timeline.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace {

/// A timeline JSON array streamed from an emitter that returns its status.
template <class EmitAll>
result<void> write_timeline_file(const outfile::dir& d, const std::string& name, EmitAll emit_all) {
  return detail::write_stream_atomic(d, name, [&](std::string& buf, auto& flush) -> result<void> {
    buf += '[';
    detail::json_output<std::remove_reference_t<decltype(flush)>> dest{buf, flush};
    MSPROF_TRY(emit_all(dest));
    buf += ']';
    return {};
  });
}

}  // namespace

struct timeline_exporter::impl {
  impl(const export_options& o, const std::string& prof_dir, std::size_t spill_budget)
      : o_(o),
        prof_dir_(prof_dir),
        events_(prof_dir.empty() ? "." : prof_dir, spill_budget, detail::wanted(o, "msprof"),
                detail::wanted(o, "msprof_tx"), o.json_process) {}

  /// The window's records are copied (as their JSON text); the window may go afterwards.
  result<void> add(const model& window) {
    events_.add(window);
    return {};
  }

  /// Writes msprof_<ts>.json, msprof_tx_<ts>.json and step_trace_<ts>.json;
  /// `final` gives the session, iterations and warnings (its records are ignored).
  result<export_result> finish(const model& final) {
    export_result r;
    auto dir = detail::start_result(final, events_.records(), prof_dir_, o_, r);
    if (!dir) return dir.err();
    const std::string ts = detail::export_stamp(o_);
    if (r.records == 0) return make_error(errc::not_found, prof_dir_ + ": no API, task or mstx records to export");
    if (detail::wanted(o_, "msprof")) {
      const std::string name = "msprof_" + ts + ".json";
      MSPROF_TRY(write_timeline_file(*dir, name, [&](auto& dest) { return events_.write_timeline(final, dest); }));
      r.files.push_back(dir->path_of(name));
      r.warnings.insert(r.warnings.end(), events_.warnings().begin(), events_.warnings().end());
    }
    if (events_.mstx_count() != 0 && detail::wanted(o_, "msprof_tx")) {
      const std::string name = "msprof_tx_" + ts + ".json";
      MSPROF_TRY(write_timeline_file(*dir, name, [&](auto& dest) { return events_.write_mstx(final, dest); }));
      r.files.push_back(dir->path_of(name));
    }
    if (!final.iterations.empty() && detail::wanted(o_, "step_trace")) {
      const std::string name = "step_trace_" + ts + ".json";
      MSPROF_TRY(write_timeline_file(*dir, name, [&](auto& dest) {
        emit_step_trace(final, dest);
        return result<void>();
      }));
      r.files.push_back(dir->path_of(name));
    }
    auto readme = detail::write_readme(*dir, o_, ts, r.files);
    if (!readme) return readme.err();
    r.files.push_back(std::move(*readme));
    return r;
  }

  export_options o_;
  std::string prof_dir_;
  timeline_collector events_;
};

timeline_exporter::timeline_exporter(const export_options& o, const std::string& prof_dir, std::size_t spill_budget)
    : p_(std::make_unique<impl>(o, prof_dir, spill_budget)) {}

timeline_exporter::~timeline_exporter() = default;

result<void> timeline_exporter::add(const model& window) { return p_->add(window); }

void timeline_exporter::set_communication(const hccl::communication& c) { p_->events_.set_communication(c); }

void timeline_exporter::set_selection(const iteration_range& r) { p_->events_.set_selection(r); }

void timeline_exporter::set_threaded(bool on) { p_->events_.set_threaded(on); }

result<export_result> timeline_exporter::finish(const model& final) { return p_->finish(final); }

result<export_result> export_timeline(const model& m, const export_options& o) {
  if (o.chrome) {
    chrome_exporter x(o, m.session.prof_dir);
    MSPROF_TRY(x.add(m));
    return x.finish(m);
  }
  timeline_exporter x(o, m.session.prof_dir);
  MSPROF_TRY(x.add(m));
  return x.finish(m);
}

}  // namespace convert
MSPROF_END_NAMESPACE
