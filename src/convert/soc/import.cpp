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

using detail::db_value;
using rows = std::vector<std::vector<db_value>>;

db_value i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

struct table {
  const char* name;
  const char* columns;  ///< the CREATE TABLE column list
  std::size_t ncols;
  rows data;
};

// One database: every table created (empty ones too), rows inserted, then
// the temporary renamed over `name`.
result<std::string> write_db(const outfile::dir& d, const std::string& name, const std::vector<table>& tables) {
  auto f = outfile::atomic_file::create(d, name);
  if (!f) return f.err();
  {
    detail::sqlite_db db(detail::sqlite_path(d, *f));
    MSPROF_TRY(db.open());
    for (const auto& t : tables) {
      MSPROF_TRY(db.exec(std::string("CREATE TABLE ") + t.name + " (" + t.columns + ")"));
      MSPROF_TRY(db.insert(t.name, t.ncols, t.data));
    }
    MSPROF_TRY(db.close());
  }
  MSPROF_TRY(f->commit());
  return d.path_of(name);
}

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

  // acl_module.db
  table acl{"AclApi",
            "pid INTEGER, tid INTEGER, api_name TEXT, api_type TEXT, start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER",
            7, {}};
  for (const auto& c : j.acl)
    acl.data.push_back({std::int64_t{c.pid}, std::int64_t{c.tid}, c.name, c.type, c.start_ns, c.end_ns, c.end_ns - c.start_ns});
  out.acl_calls = j.acl.size();

  // task_scheduler.db
  table info{"JobInfo", "name TEXT, value TEXT", 2, {}};
  auto put = [&info](const char* k, std::string v) { info.data.push_back({std::string(k), std::move(v)}); };
  put("device_id", std::to_string(j.device_id));
  put("pid", std::to_string(j.pid));
  put("frequency_mhz", std::to_string(j.frequency_mhz));
  put("aac_metrics", j.aac_metrics);
  put("interval", std::to_string(j.interval));
  put("finished", j.finished ? "yes" : "no");
  table runs{"ModelRun",
             "model_id INTEGER, model_file_name TEXT, batch_num INTEGER, input_pic_num INTEGER, current_pic_count INTEGER, "
             "icache_miss_rate REAL",
             6, {}};
  table tasks{"Task",
              "model_id INTEGER, iteration INTEGER, task_id INTEGER, stream_id INTEGER, task_type TEXT, layer_id INTEGER, "
              "ori_layer_name TEXT, layer_name TEXT, layer_type TEXT, start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER",
              12, {}};
  table pmu{"ArithmeticUtilization",
            "model_id INTEGER, iteration INTEGER, task_id INTEGER, mac_busy_ratio REAL, mac_ppen_ratio REAL, "
            "vec_busy_ratio REAL, vec_ppen_ratio REAL, dstr_ratio REAL, dtrans_ratio REAL, dld_ratio REAL, wld_ratio REAL, "
            "memory_bound REAL, ddr_read_bytes INTEGER, ddr_write_bytes INTEGER, ddr_total_bytes INTEGER",
            15, {}};
  for (const auto& m : j.models) {
    runs.data.push_back({std::int64_t{m.model_id}, m.model_file_name, std::int64_t{m.batch_num}, i64(m.input_pic_num),
                         i64(m.current_pic_count), m.icache_miss_rate});
    for (const auto& t : m.tasks) {
      tasks.data.push_back({std::int64_t{m.model_id}, i64(t.iteration), std::int64_t{t.task_id}, std::int64_t{t.stream_id},
                            t.task_type, std::int64_t{t.layer_id}, t.ori_layer_name, t.layer_name, t.layer_type,
                            t.start_ns, t.end_ns, t.end_ns - t.start_ns});
      if (!t.pmu) continue;
      const aa_metrics& p = *t.pmu;
      const double mb = memory_bound(p);
      pmu.data.push_back({std::int64_t{m.model_id}, i64(t.iteration), std::int64_t{t.task_id}, p.mac_busy, p.mac_ppen,
                          p.vec_busy, p.vec_ppen, p.dstr, p.dtrans, p.dld, p.wld,
                          mb < 0 ? db_value{std::monostate{}} : db_value{mb}, i64(p.ddr_read_bytes),
                          i64(p.ddr_write_bytes), i64(p.ddr_read_bytes + p.ddr_write_bytes)});
    }
  }
  out.models = j.models.size();
  out.tasks = tasks.data.size();
  out.metrics = pmu.data.size();

  // A database is written only when its raw data exists (docs/soc.md).
  struct db_plan {
    const char* name;
    bool has_data;
    std::vector<table> tables;
  };
  db_plan plans[] = {{acl_db, !acl.data.empty(), {std::move(acl)}},
                     {task_db, !runs.data.empty(), {std::move(info), std::move(runs), std::move(tasks)}},
                     {aacore_db, !pmu.data.empty(), {std::move(pmu)}}};
  for (auto& p : plans) {
    if (!p.has_data) {
      remove_old(*sq, p.name, out.warnings);
      continue;
    }
    auto f = write_db(*sq, p.name, p.tables);
    if (!f) return f.err();
    out.files.push_back(*f);
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
