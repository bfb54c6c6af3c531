// SPDX-License-Identifier: MIT
// import of a SoC JOB directory: soc::job into JOB/sqlite/*.db through
// core/output_file.hpp (a temporary renamed over the old database, so an
// import is regenerated whole or not at all).
#include "msprof/convert/soc/import.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "msprof/convert/db.hpp"
#include "msprof/convert/export_files.hpp"
#include "msprof/core/output_file.hpp"
#include "msprof/prof/job_layout.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace soc {

namespace {

// One database being written: its tables, rows inserted in batches through
// detail::table_writer (bounded memory), then the temporary renamed over
// `name` by finish().
class db_file {
 public:
  result<void> open(const outfile::dir& d, const std::string& name) {
    auto f = outfile::atomic_file::create(d, name);
    if (!f) return f.err();
    file_ = std::move(*f);
    final_ = d.path_of(name);
    db_ = std::make_unique<detail::sqlite_db>(detail::sqlite_path(d, file_));
    return db_->open();
  }
  /// A new table; its rows go to the writer returned.
  result<detail::table_writer*> table(const char* name, const char* columns, std::size_t ncols) {
    MSPROF_TRY(db_->exec(std::string("CREATE TABLE ") + name + " (" + columns + ")"));
    tables_.push_back(std::make_unique<detail::table_writer>(db_->handle(), name, ncols, &status_));
    return tables_.back().get();
  }
  result<std::string> finish() {
    for (auto& t : tables_) t->flush();
    tables_.clear();  // their statements are finalized before SQLite closes
    if (!status_) return make_error(errc::io, final_ + ": " + status_.err().message);
    MSPROF_TRY(db_->close());
    db_.reset();  // SQLite has closed the file
    MSPROF_TRY(file_.commit());
    return final_;
  }

 private:
  outfile::atomic_file file_;  // declared before db_: SQLite closes first
  std::unique_ptr<detail::sqlite_db> db_;
  result<void> status_;  // the first failed insert of any table
  std::vector<std::unique_ptr<detail::table_writer>> tables_;
  std::string final_;
};

// An old database whose raw data is gone now: removed, so sqlite/ says what this import found.
void remove_old(const outfile::dir& d, const char* name, std::vector<std::string>& warnings) {
  if (::unlinkat(d.fd(), name, 0) != 0 && errno != ENOENT)
    warnings.push_back(d.path_of(name) + ": cannot remove the old database: " + std::strerror(errno));
}

}  // namespace

double memory_bound(const aa_metrics& m) {
  const double num = std::max({m.dstr, m.dld, m.wld});
  const double den = std::max(m.mac_busy, m.vec_ppen);
  return den > 0 ? num / den : -1;
}

result<import_result> write_job_db(const job& j) {
  import_result out;
  out.warnings = j.warnings;
  auto jd = outfile::dir::open(j.dir, true);
  if (!jd) return jd.err();
  auto sq = jd->mkdir(prof::job_layout::sqlite_dir);
  if (!sq) return sq.err();
  for (auto& n : sq->remove_stale_temps()) out.warnings.push_back(std::move(n));

  bool any_pmu = false;
  for (const auto& m : j.models)
    for (const auto& t : m.tasks) any_pmu = any_pmu || t.pmu.has_value();

  // A database is written only when its raw data exists (docs/soc.md).
  if (j.acl.empty()) {
    remove_old(*sq, acl_db, out.warnings);
  } else {
    db_file db;
    MSPROF_TRY(db.open(*sq, acl_db));
    auto acl = db.table("AclApi",
                        "pid INTEGER, tid INTEGER, api_name TEXT, api_type TEXT, start_ns INTEGER, end_ns INTEGER, "
                        "duration_ns INTEGER",
                        7);
    if (!acl) return acl.err();
    for (const auto& c : j.acl)
      (*acl)->row(c.pid, c.tid, c.name, c.type, c.start_ns, c.end_ns, c.end_ns - c.start_ns);
    auto f = db.finish();
    if (!f) return f.err();
    out.files.push_back(std::move(*f));
  }
  out.acl_calls = j.acl.size();

  if (j.models.empty()) {
    remove_old(*sq, task_db, out.warnings);
  } else {
    db_file db;
    MSPROF_TRY(db.open(*sq, task_db));
    auto job_info = db.table("JobInfo", "name TEXT, value TEXT", 2);
    if (!job_info) return job_info.err();
    auto model_run = db.table("ModelRun",
                        "model_id INTEGER, model_file_name TEXT, batch_num INTEGER, input_pic_num INTEGER, "
                        "current_pic_count INTEGER, icache_miss_rate REAL",
                        6);
    if (!model_run) return model_run.err();
    auto task = db.table("Task",
                        "model_id INTEGER, iteration INTEGER, task_id INTEGER, stream_id INTEGER, task_type TEXT, "
                        "layer_id INTEGER, ori_layer_name TEXT, layer_name TEXT, layer_type TEXT, start_ns INTEGER, "
                        "end_ns INTEGER, duration_ns INTEGER",
                        12);
    if (!task) return task.err();
    const std::pair<const char*, std::string> info[] = {
        {"device_id", std::to_string(j.device_id)},         {"pid", std::to_string(j.pid)},
        {"frequency_mhz", std::to_string(j.frequency_mhz)}, {"aac_metrics", j.aac_metrics},
        {"interval", std::to_string(j.interval)},           {"finished", j.finished ? "yes" : "no"}};
    for (const auto& kv : info) (*job_info)->row(kv.first, kv.second);
    for (const auto& m : j.models) {
      (*model_run)->row(m.model_id, m.model_file_name, m.batch_num, m.input_pic_num, m.current_pic_count,
                        m.icache_miss_rate);
      for (const auto& t : m.tasks)
        (*task)->row(m.model_id, t.iteration, t.task_id, t.stream_id, t.task_type, t.layer_id, t.ori_layer_name,
                     t.layer_name, t.layer_type, t.start_ns, t.end_ns, t.end_ns - t.start_ns);
      out.tasks += m.tasks.size();
    }
    auto f = db.finish();
    if (!f) return f.err();
    out.files.push_back(std::move(*f));
  }
  out.models = j.models.size();

  if (!any_pmu) {
    remove_old(*sq, aacore_db, out.warnings);
  } else {
    db_file db;
    MSPROF_TRY(db.open(*sq, aacore_db));
    auto metrics = db.table("ArithmeticUtilization",
                        "model_id INTEGER, iteration INTEGER, task_id INTEGER, mac_busy_ratio REAL, mac_ppen_ratio REAL, "
                        "vec_busy_ratio REAL, vec_ppen_ratio REAL, dstr_ratio REAL, dtrans_ratio REAL, dld_ratio REAL, "
                        "wld_ratio REAL, memory_bound REAL, ddr_read_bytes INTEGER, ddr_write_bytes INTEGER, "
                        "ddr_total_bytes INTEGER",
                        15);
    if (!metrics) return metrics.err();
    for (const auto& m : j.models)
      for (const auto& t : m.tasks) {
        if (!t.pmu) continue;
        const aa_metrics& p = *t.pmu;
        const double mb = memory_bound(p);
        (*metrics)->row(m.model_id, t.iteration, t.task_id, p.mac_busy, p.mac_ppen, p.vec_busy, p.vec_ppen, p.dstr,
                        p.dtrans, p.dld, p.wld, mb < 0 ? std::nullopt : std::optional<double>(mb), p.ddr_read_bytes,
                        p.ddr_write_bytes, p.ddr_read_bytes + p.ddr_write_bytes);
        ++out.metrics;
      }
    auto f = db.finish();
    if (!f) return f.err();
    out.files.push_back(std::move(*f));
  }
  if (out.files.empty())
    out.warnings.push_back(j.dir + ": no ACL API calls and no executed model in the raw data; no database written");
  return out;
}

result<import_result> import_job(const std::string& dir) {
  auto j = load_job(dir);
  if (!j) return j.err();
  return write_job_db(*j);
}

}  // namespace soc
}  // namespace convert
MSPROF_END_NAMESPACE
