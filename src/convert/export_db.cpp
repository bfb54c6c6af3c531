// SPDX-License-Identifier: MIT
// The db exporter: <PROF>/msprof_<ts>.db, written under a temporary name and
// renamed when complete.
#include "msprof/convert/export_writers.hpp"

#include <filesystem>
#include <string>
#include <system_error>

#include <unistd.h>

#include "msprof/convert/db.hpp"
#include "msprof/convert/export_files.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

struct db_exporter::impl {
  impl(const export_options& o, const std::string& prof_dir, std::size_t spill_budget)
      : path_(std::filesystem::path(prof_dir) /
              ("msprof_" + (o.timestamp.empty() ? detail::now_stamp() : o.timestamp) + ".db")),
        tmp_(path_.string() + ".tmp" + std::to_string(::getpid())),
        writer_(tmp_, prof_dir, spill_budget) {
    remove_tmp();  // a leftover of a crashed export; the writer creates the file on its first call
  }
  impl(const impl&) = delete;
  impl& operator=(const impl&) = delete;
  ~impl() {
    if (!finished_) remove_tmp();
  }

  result<void> add(const model& window) {
    records_ += detail::record_count(window);
    return writer_.add(window);
  }

  result<export_result> finish(const model& final) {
    finished_ = true;
    auto w = writer_.finish(final);
    std::error_code ec;
    if (!w) {
      remove_tmp();
      return w.err();
    }
    std::filesystem::rename(tmp_, path_, ec);
    if (ec) {
      remove_tmp();
      return make_error(errc::io, path_.string() + ": cannot rename temporary file: " + ec.message());
    }
    export_result r;
    r.warnings = final.warnings;
    r.records = records_;
    r.files.push_back(path_.string());
    return r;
  }

 private:
  void remove_tmp() const {
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }
  std::filesystem::path path_;
  std::string tmp_;
  db_window_writer writer_;
  std::size_t records_ = 0;
  bool finished_ = false;
};

db_exporter::db_exporter(const export_options& o, const std::string& prof_dir, std::size_t spill_budget)
    : p_(std::make_unique<impl>(o, prof_dir, spill_budget)) {}

db_exporter::~db_exporter() = default;

result<void> db_exporter::add(const model& window) { return p_->add(window); }

result<export_result> db_exporter::finish(const model& final) { return p_->finish(final); }

result<export_result> export_db(const model& m, const export_options& o) {
  db_exporter x(o, m.session.prof_dir);
  MSPROF_TRY(x.add(m));
  return x.finish(m);
}

}  // namespace convert
MSPROF_END_NAMESPACE
