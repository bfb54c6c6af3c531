// SPDX-License-Identifier: MIT
// The timeline exporter: msprof_<ts>.json, msprof_tx_<ts>.json and
// step_trace_<ts>.json, streamed through a temporary file and a rename.
#include "msprof/convert/export_writers.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include <unistd.h>

#include "msprof/convert/export_files.hpp"
#include "msprof/convert/timeline.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace {

/// Streams text to `path` through a temporary file and a rename: `fill(buf,
/// flush)` appends to buf and calls flush() now and then (buffer stays small).
template <class Fill>
result<void> write_stream_atomic(const std::filesystem::path& path, Fill fill) {
  const auto tmp = path.string() + ".tmp" + std::to_string(::getpid());
  std::error_code ec;
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return make_error(errc::io, tmp + ": cannot create file");
    std::string buf;
    buf.reserve(1 << 20);
    bool ok = true;
    auto flush = [&] {
      if (ok && !buf.empty()) {
        f.write(buf.data(), static_cast<std::streamsize>(buf.size()));
        ok = static_cast<bool>(f);
      }
      buf.clear();
    };
    fill(buf, flush);
    flush();
    f.flush();
    if (!ok || !f) {
      f.close();
      std::filesystem::remove(tmp, ec);
      return make_error(errc::io, tmp + ": write failed (disk full?)");
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return make_error(errc::io, path.string() + ": cannot rename temporary file: " + ec.message());
  }
  return {};
}

/// A timeline JSON array streamed from an emitter.
template <class EmitAll>
result<void> write_timeline_file(const std::filesystem::path& path, EmitAll emit_all) {
  return write_stream_atomic(path, [&](std::string& buf, auto& flush) {
    buf += '[';
    detail::json_sink<std::remove_reference_t<decltype(flush)>> sink{buf, flush};
    emit_all(sink);
    buf += ']';
  });
}

}  // namespace

struct timeline_exporter::impl {
  impl(const export_options& o, const std::string& prof_dir, std::size_t spill_budget)
      : o_(o),
        prof_dir_(prof_dir),
        events_(prof_dir.empty() ? "." : prof_dir, spill_budget, detail::wanted(o, "msprof"),
                detail::wanted(o, "msprof_tx")) {}

  /// The window's records are copied (as their JSON text); the window may go afterwards.
  result<void> add(const model& window) {
    events_.add(window);
    return {};
  }

  /// Writes msprof_<ts>.json, msprof_tx_<ts>.json and step_trace_<ts>.json;
  /// `final` gives the session, iterations and warnings (its records are ignored).
  result<export_result> finish(const model& final) {
    export_result r;
    r.warnings = final.warnings;
    r.records = events_.records();
    auto dir = detail::output_dir(prof_dir_);
    if (!dir) return dir.err();
    const std::string ts = o_.timestamp.empty() ? detail::now_stamp() : o_.timestamp;
    if (r.records == 0) return make_error(errc::not_found, prof_dir_ + ": no API, task or mstx records to export");
    if (detail::wanted(o_, "msprof")) {
      const auto p = *dir / ("msprof_" + ts + ".json");
      MSPROF_TRY(write(p, [&](auto& sink) { return events_.write_timeline(final, sink); }));
      r.files.push_back(p.string());
    }
    if (events_.mstx_count() != 0 && detail::wanted(o_, "msprof_tx")) {
      const auto p = *dir / ("msprof_tx_" + ts + ".json");
      MSPROF_TRY(write(p, [&](auto& sink) { return events_.write_mstx(final, sink); }));
      r.files.push_back(p.string());
    }
    if (!final.iterations.empty() && detail::wanted(o_, "step_trace")) {
      const auto p = *dir / ("step_trace_" + ts + ".json");
      MSPROF_TRY(write_timeline_file(p, [&](auto& sink) { emit_step_trace(final, sink); }));
      r.files.push_back(p.string());
    }
    return r;
  }

 private:
  /// write_timeline_file for events read back from disk, which can fail: the
  /// file is removed again then.
  template <class Fill>
  static result<void> write(const std::filesystem::path& p, Fill fill) {
    result<void> status;
    MSPROF_TRY(write_timeline_file(p, [&](auto& sink) { status = fill(sink); }));
    if (!status) {
      std::error_code ec;
      std::filesystem::remove(p, ec);
    }
    return status;
  }

  export_options o_;
  std::string prof_dir_;
  timeline_collector events_;
};

timeline_exporter::timeline_exporter(const export_options& o, const std::string& prof_dir, std::size_t spill_budget)
    : p_(std::make_unique<impl>(o, prof_dir, spill_budget)) {}

timeline_exporter::~timeline_exporter() = default;

result<void> timeline_exporter::add(const model& window) { return p_->add(window); }

result<export_result> timeline_exporter::finish(const model& final) { return p_->finish(final); }

result<export_result> export_timeline(const model& m, const export_options& o) {
  if (!o.chrome) {
    timeline_exporter x(o, m.session.prof_dir);
    MSPROF_TRY(x.add(m));
    return x.finish(m);
  }
  export_result r;
  r.warnings = m.warnings;
  r.records = detail::record_count(m);
  auto dir = detail::output_dir(m.session.prof_dir);
  if (!dir) return dir.err();
  const std::string ts = o.timestamp.empty() ? detail::now_stamp() : o.timestamp;
  if (r.records == 0)
    return make_error(errc::not_found, m.session.prof_dir + ": no API, task or mstx records to export");
  if (!o.chrome_writer)
    return make_error(errc::unsupported, "--timeline-format=chrome: the chrome trace writer is not available");
  auto w = o.chrome_writer(m, build_timeline(m), *dir, ts);
  if (!w) return w.err();
  r.files.insert(r.files.end(), w->begin(), w->end());
  return r;
}

}  // namespace convert
MSPROF_END_NAMESPACE
