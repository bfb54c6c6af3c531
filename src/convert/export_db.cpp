// SPDX-License-Identifier: MIT
// The db exporter: <PROF>/msprof_<ts>.db, written under a temporary name
// (core/output_file.hpp) and renamed when complete.
#include "msprof/convert/export_writers.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "msprof/convert/db.hpp"
#include "msprof/convert/export_files.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

struct db_exporter::impl {
  impl(const export_options& o, const std::string& prof_dir, std::size_t spill_budget) {
    auto dir = detail::db_output_dir(prof_dir, o, notes_);
    if (dir) {
      auto f = outfile::atomic_file::create(
          *dir, "msprof_" + detail::export_stamp(o) + ".db");
      if (f) {
        tmp_ = std::move(*f);
        writer_.emplace(detail::sqlite_path(*dir, tmp_), prof_dir, spill_budget);
        return;
      }
      status_ = f.err();
    } else {
      status_ = dir.err();
    }
  }

  result<void> add(const model& window) {
    MSPROF_TRY(status_);
    records_ += detail::record_count(window);
    return writer_->add(window);
  }

  result<export_result> finish(const model& final) {
    MSPROF_TRY(status_);
    auto w = writer_->finish(final);
    const auto read_warnings = writer_->warnings();
    writer_.reset();  // SQLite has closed the file
    if (!w) return w.err();  // tmp_ removes the temporary
    MSPROF_TRY(tmp_.commit());
    export_result r;
    r.warnings = final.warnings;
    r.warnings.insert(r.warnings.end(), read_warnings.begin(), read_warnings.end());
    r.warnings.insert(r.warnings.end(), notes_.begin(), notes_.end());
    r.records = records_;
    r.files.push_back(tmp_.path());
    return r;
  }

  std::vector<std::string> notes_;   // temporaries of an interrupted export, removed
  result<void> status_;
  outfile::atomic_file tmp_;         // declared before writer_: SQLite closes first
  std::optional<db_window_writer> writer_;
  std::size_t records_ = 0;
};

db_exporter::db_exporter(const export_options& o, const std::string& prof_dir, std::size_t spill_budget)
    : p_(std::make_unique<impl>(o, prof_dir, spill_budget)) {}

db_exporter::~db_exporter() = default;

result<void> db_exporter::add(const model& window) { return p_->add(window); }

void db_exporter::set_communication(const hccl::communication& c) {
  if (p_->writer_) p_->writer_->set_communication(c);
}

result<export_result> db_exporter::finish(const model& final) { return p_->finish(final); }

result<export_result> export_db(const model& m, const export_options& o) {
  db_exporter x(o, m.session.prof_dir);
  MSPROF_TRY(x.add(m));
  return x.finish(m);
}

}  // namespace convert
MSPROF_END_NAMESPACE
