// SPDX-License-Identifier: MIT
// load_job: a JOB directory's raw slices (codec/soc.hpp, names prof/job_layout.hpp)
// into the converter's soc::job. Lenient like the PROF_ reader: a damaged
// record or slice is a warning naming its file and byte offset, and the rest
// is read; only a directory that is not a JOB directory is an error.
#include "msprof/convert/soc/job.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "msprof/codec/soc.hpp"
#include "msprof/core/directory.hpp"
#include "msprof/core/json.hpp"
#include "msprof/prof/job_layout.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace soc {

namespace {

namespace layout = prof::job_layout;
namespace raw = codec::soc;

// The writer rolls slices at 2 MiB; anything far larger is not one of ours,
// and is not read whole into memory.
constexpr std::uint64_t max_slice_bytes = 256ull << 20;

// info.json.<N> files: the device ids they name.
std::vector<std::uint32_t> info_devices(const std::string& dir) {
  std::vector<std::uint32_t> ids;
  const std::string head = std::string(layout::info_json) + ".";
  auto names = posix_dir::list(dir);
  if (!names) return ids;
  for (const auto& n : *names) {
    if (n.compare(0, head.size(), head) != 0 || n.size() == head.size() || n.size() > head.size() + 9) continue;
    std::uint32_t v = 0;
    bool ok = true;
    for (char c : n.substr(head.size())) {
      if (c < '0' || c > '9') ok = false;
      else v = v * 10 + static_cast<std::uint32_t>(c - '0');
    }
    if (ok) ids.push_back(v);
  }
  return ids;
}

result<std::string> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return make_error(errc::io, path + ": cannot open the file");
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) return make_error(errc::io, path + ": read failed");
  return ss.str();
}

void read_info(const std::string& path, job& j) {
  auto text = read_file(path);
  if (!text) {
    j.warnings.push_back(text.err().message);
    return;
  }
  auto doc = json::parse(*text, path);
  if (!doc || !doc->is_object()) {
    j.warnings.push_back(doc ? path + ": expected a JSON object; device settings unknown" : doc.err().message);
    return;
  }
  j.pid = static_cast<std::uint32_t>(doc->get("pid").uint_or(0));
  double f = 0;
  if (doc->get("frequency").to_double(f) && f > 0) j.frequency_mhz = f;
  j.aac_metrics = doc->get("aac_metrics").as_string_or("");
  j.interval = static_cast<std::uint32_t>(doc->get("interval").uint_or(0));
  j.finished = doc->get("status").as_string_or("") == "finished";
}

// filesize from "<slice>.done"; nullopt when there is none or it is unreadable.
std::optional<std::uint64_t> done_size(const std::string& slice) {
  auto t = read_file(slice + layout::done_suffix);
  if (!t) return std::nullopt;
  const std::string key = "filesize:";
  const auto at = t->find(key);
  if (at == std::string::npos) return std::nullopt;
  std::uint64_t v = 0;
  std::size_t i = at + key.size(), digits = 0;
  for (; i < t->size() && (*t)[i] >= '0' && (*t)[i] <= '9' && digits < 19; ++i, ++digits) v = v * 10 + static_cast<std::uint64_t>((*t)[i] - '0');
  if (digits == 0) return std::nullopt;
  return v;
}

struct task_key {
  std::uint32_t model;
  std::uint64_t iteration;
  std::uint32_t task;
  bool operator<(const task_key& o) const { return std::tie(model, iteration, task) < std::tie(o.model, o.iteration, o.task); }
};

struct model_acc {
  bool described = false;
  std::string file_name;
  std::map<std::uint32_t, raw::layer_desc> layers;
  std::uint32_t executes = 0;
  std::uint64_t pictures = 0, sampled_pictures = 0, icache_access = 0, icache_miss = 0;
};

struct reader {
  job& j;
  std::map<std::uint32_t, model_acc> models;
  std::map<task_key, raw::soc_task_record> tasks;
  std::map<task_key, raw::soc_aacore_record> counters;

  void warn(const std::string& w) { j.warnings.push_back(w); }

  // Fixed-size records: a bad record is skipped, a partial tail reported.
  template <class Rec, class Decode, class Take>
  void fixed(const std::string& path, const std::string& bytes, Decode decode, Take take) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    const std::size_t n = bytes.size(), rs = sizeof(Rec);
    std::size_t off = 0;
    for (; off + rs <= n; off += rs) {
      auto r = decode(p + off, n - off, codec::place{path, off});
      if (!r) warn(r.err().message + "; record skipped");
      else take(*r);
    }
    if (off < n)
      warn(path + ": " + std::to_string(n - off) + " bytes at byte offset " + std::to_string(off) +
           " are not a whole record (the run was cut); ignored");
  }

  void desc(const std::string& path, const std::string& bytes) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    std::size_t off = 0;
    while (off < bytes.size()) {
      auto r = raw::decode_desc(p + off, bytes.size() - off, codec::place{path, off});
      if (!r) {
        warn(r.err().message + "; the rest of the slice (" + std::to_string(bytes.size() - off) + " bytes) is ignored");
        return;
      }
      take_desc(*r);
      off += r->size;
    }
  }

  void take_desc(const raw::desc_record& d) {
    if (d.kind == raw::kind::model) {
      auto& m = models[d.model.model_id];
      m.described = true;
      m.file_name = d.model.file_name;
    } else if (d.kind == raw::kind::layer) {
      models[d.layer.model_id].layers[d.layer.layer_id] = d.layer;
    } else if (d.kind == raw::kind::inference) {
      auto& m = models[d.inference.model_id];
      ++m.executes;
      m.pictures += d.inference.pictures;
      if (d.inference.sampled) {
        m.sampled_pictures += d.inference.pictures;
        m.icache_access += d.inference.icache_access;
        m.icache_miss += d.inference.icache_miss;
      }
    }
  }

  void slice(const std::string& path, layout::family f) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && static_cast<std::uint64_t>(st.st_size) > max_slice_bytes) {
      warn(path + ": " + std::to_string(st.st_size) + " bytes, more than a slice can be (" +
           std::to_string(max_slice_bytes) + "); skipped");
      return;
    }
    auto bytes = read_file(path);
    if (!bytes) {
      warn(bytes.err().message);
      return;
    }
    if (auto want = done_size(path)) {
      if (*want != bytes->size())
        warn(path + ": " + std::to_string(bytes->size()) + " bytes, its .done file says " + std::to_string(*want));
    } else if (j.finished) {
      warn(path + ": no " + std::string(layout::done_suffix) + " file although the run finished; read as it is");
    }
    switch (f) {
      case layout::family::acl:
        fixed<raw::soc_acl_record>(path, *bytes, raw::decode_acl, [&](const raw::soc_acl_record& r) {
          acl_call c;
          c.pid = r.pid;
          c.tid = r.tid;
          c.name = raw::acl_name(r);
          c.type = raw::api_type_name(static_cast<raw::api_type>(r.type));
          c.start_ns = static_cast<std::int64_t>(r.start_ns);
          c.end_ns = static_cast<std::int64_t>(r.end_ns);
          j.acl.push_back(std::move(c));
        });
        break;
      case layout::family::task:
        fixed<raw::soc_task_record>(path, *bytes, raw::decode_task, [&](const raw::soc_task_record& r) {
          tasks[{r.model_id, r.iteration, r.task_id}] = r;
        });
        break;
      case layout::family::aacore:
        fixed<raw::soc_aacore_record>(path, *bytes, raw::decode_aacore, [&](const raw::soc_aacore_record& r) {
          counters[{r.model_id, r.iteration, r.task_id}] = r;
        });
        break;
      case layout::family::desc:
        desc(path, *bytes);
        break;
    }
  }

  void build() {
    std::stable_sort(j.acl.begin(), j.acl.end(), [](const acl_call& a, const acl_call& b) { return a.start_ns < b.start_ns; });
    std::map<std::uint32_t, job_model_run> runs;
    for (const auto& kv : tasks) {
      const raw::soc_task_record& r = kv.second;
      model_acc& m = models[r.model_id];
      layer_task t;
      t.task_id = r.task_id;
      t.stream_id = r.stream_id;
      t.task_type = raw::unit_name(static_cast<raw::unit>(r.unit));
      t.layer_id = r.layer_id;
      auto l = m.layers.find(r.layer_id);
      if (l != m.layers.end()) {
        t.ori_layer_name = l->second.ori_name;
        t.layer_name = l->second.name;
        t.layer_type = l->second.type;
      }
      t.iteration = r.iteration;
      t.start_ns = static_cast<std::int64_t>(r.start_ns);
      t.end_ns = static_cast<std::int64_t>(r.end_ns);
      auto c = counters.find(kv.first);
      if (c != counters.end() && c->second.total_cycles > 0) {
        const auto& k = c->second;
        const double tot = static_cast<double>(k.total_cycles);
        aa_metrics pm;
        pm.mac_busy = static_cast<double>(k.mac_busy) / tot;
        pm.mac_ppen = static_cast<double>(k.mac_ppen) / tot;
        pm.vec_busy = static_cast<double>(k.vec_busy) / tot;
        pm.vec_ppen = static_cast<double>(k.vec_ppen) / tot;
        pm.dstr = static_cast<double>(k.dstr) / tot;
        pm.dtrans = static_cast<double>(k.dtrans) / tot;
        pm.dld = static_cast<double>(k.dld) / tot;
        pm.wld = static_cast<double>(k.wld) / tot;
        pm.ddr_read_bytes = k.ddr_read_bytes;
        pm.ddr_write_bytes = k.ddr_write_bytes;
        t.pmu = pm;
      }
      runs[r.model_id].tasks.push_back(std::move(t));
    }
    std::size_t missing_layers = 0, orphan_counters = 0;
    for (const auto& kv : counters)
      if (tasks.find(kv.first) == tasks.end()) ++orphan_counters;
    for (auto& kv : models) {
      model_acc& m = kv.second;
      auto it = runs.find(kv.first);
      if (m.executes == 0 && it == runs.end()) continue;  // loaded, never executed: no data (docs/soc.md)
      job_model_run& run = runs[kv.first];
      run.model_id = kv.first;
      run.model_file_name = m.file_name;
      if (!m.described) {
        warn(j.dir + ": model " + std::to_string(kv.first) + " has tasks but no model description (ModelDesc slice lost)");
        run.model_file_name = "model_" + std::to_string(kv.first);
      }
      run.batch_num = m.executes;
      run.input_pic_num = m.pictures;
      run.current_pic_count = m.sampled_pictures;
      run.icache_miss_rate = m.icache_access ? static_cast<double>(m.icache_miss) / static_cast<double>(m.icache_access) : 0;
      for (const auto& t : run.tasks)
        if (m.layers.find(t.layer_id) == m.layers.end()) ++missing_layers;
    }
    if (missing_layers)
      warn(j.dir + ": " + std::to_string(missing_layers) + " tasks name a layer with no description; their names are empty");
    if (orphan_counters)
      warn(j.dir + ": " + std::to_string(orphan_counters) + " AAcore records match no task (TaskScheduler data lost)");
    for (auto& kv : runs) j.models.push_back(std::move(kv.second));
  }
};

}  // namespace

bool is_job_dir(const std::string& dir) {
  return posix_dir::is_dir(dir + "/" + layout::data_dir) && !info_devices(dir).empty();
}

result<job> load_job(const std::string& dir) {
  if (!posix_dir::is_dir(dir)) return make_error(errc::not_found, dir + ": no such directory");
  const std::string data = dir + "/" + layout::data_dir;
  const auto devices = info_devices(dir);
  if (!posix_dir::is_dir(data) || devices.empty())
    return make_error(errc::not_found, dir + ": not a JOB directory (it needs data/ and info.json.<device>, docs/soc.md)");
  job j;
  j.dir = dir;
  j.device_id = devices.front();
  if (devices.size() > 1)
    j.warnings.push_back(dir + ": several info.json files; a JOB directory holds one device, device " +
                         std::to_string(j.device_id) + " is read");
  read_info(dir + "/" + layout::info_file(j.device_id), j);
  // Slices in (family, index) order, so records come in the order written.
  std::vector<std::pair<layout::slice_name, std::string>> slices;
  auto names = posix_dir::list(data);
  if (!names) return names.err();
  for (const auto& n : *names) {
    auto s = layout::parse_slice(n);
    if (!s) continue;
    if (s->device != j.device_id) {
      j.warnings.push_back(data + "/" + n + ": a slice of device " + std::to_string(s->device) + " in the JOB of device " +
                           std::to_string(j.device_id) + "; ignored");
      continue;
    }
    slices.emplace_back(*s, data + "/" + n);
  }
  std::sort(slices.begin(), slices.end(), [](const auto& a, const auto& b) {
    return std::make_pair(static_cast<int>(a.first.f), a.first.index) < std::make_pair(static_cast<int>(b.first.f), b.first.index);
  });
  reader r{j, {}, {}, {}};
  for (const auto& s : slices) r.slice(s.second, s.first.f);
  r.build();
  if (!j.finished)
    j.warnings.push_back(dir + ": the run did not finish (no svp_acl_finalize, or killed); the data written so far is read");
  return j;
}

}  // namespace soc
}  // namespace convert
MSPROF_END_NAMESPACE
