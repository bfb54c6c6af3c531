// SPDX-License-Identifier: MIT
// A SIMULATED SS928-class SoC (docs/simulated-device.md): the only source of
// SoC data on machines without the board. It runs nothing; for each model it
// derives a deterministic network (layers, their units and costs) from the
// model's bytes and a seed, and for each sampled execute writes what the
// board's profiling writes, into a JOB directory (prof/job_writer.hpp):
// the layer tasks on the AA Core, AA Vector Core and AA CPU, the AA Core's
// ArithmeticUtilization counters, the inference's icache counters, and the
// host's ACL API calls it is given. info.json says "simulated": "yes".
//
//   device::simulated_soc dev(opts);               // opts.job: where and what to collect
//   auto id = dev.load_model(bytes, n, "resnet.om");
//   auto end = dev.execute(*id, t0, 4);            // 4 pictures; returns the end (ns)
//   dev.record_acl("svp_acl_mdl_execute", codec::soc::api_type::model, t0, *end);
//   dev.close();
//
// Sampling: the n-th execute of a model (from 1) is collected when interval is
// 0, or when (n - 1) % interval == 0 (interval 2: the 1st, 3rd, 5th ...).
// aacpu off: no AA CPU tasks; aac_metrics other than ArithmeticUtilization: no
// AAcore records (the tasks' times are still written); acl_api off: no ACL calls.
#ifndef MSPROF_DEVICE_SIMULATED_SOC_HPP
#define MSPROF_DEVICE_SIMULATED_SOC_HPP

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <memory>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "../codec/hash.hpp"
#include "../codec/soc.hpp"
#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "../prof/job_writer.hpp"

MSPROF_BEGIN_NAMESPACE
namespace device {

struct simulated_soc_options {
  prof::job_options job;     ///< JOB directory and switches (job.simulated stays true)
  std::uint64_t seed = 1;    ///< same seed, same model bytes: same layers and durations
  /// Sleep through each execute's simulated time, so host calls after it come
  /// after its tasks on the monotonic clock (off in tests: virtual time).
  bool realtime = true;
};

/// One layer of a simulated model.
struct soc_layer {
  std::uint32_t id = 0;
  std::string ori_name, name, type;
  codec::soc::unit unit = codec::soc::unit::aa_core;
  double base_us = 0;        ///< time per picture
  double mac = 0, vec = 0;   ///< busy ratios of the Mac (cube) and Vec units
  double dld = 0, wld = 0, dstr = 0, dtrans = 0;
};

class simulated_soc {
 public:
  simulated_soc() = default;  ///< an empty handle (result<simulated_soc> needs it); use create()
  simulated_soc(simulated_soc&&) noexcept = default;
  simulated_soc& operator=(simulated_soc&&) noexcept = default;

  /// Creates the JOB directory.
  static result<simulated_soc> create(simulated_soc_options o) {
    o.job.simulated = true;
    if (o.job.soc.find("simulated") == std::string::npos) o.job.soc += " (simulated)";
    auto j = prof::job_dir::create(o.job);
    if (!j) return j.err();
    simulated_soc d;
    d.s_ = std::make_unique<state>();
    d.s_->opt = std::move(o);
    d.s_->job = std::move(*j);
    return d;
  }

  const std::string& job_path() const { return s_->job.path(); }
  const prof::job_options& options() const { return s_->job.options(); }

  /// Loads a model: its layers are derived from the bytes; the model and
  /// layer descriptions are written now. Returns the model id (from 1).
  result<std::uint32_t> load_model(const void* data, std::size_t size, std::string_view file_name) {
    std::lock_guard<std::mutex> lk(s_->mu);
    const std::uint32_t id = ++s_->next_model;
    model& m = s_->models[id];
    m.file_name = std::string(file_name);
    m.layers = make_layers(std::string_view(static_cast<const char*>(data), data ? size : 0));
    std::string out;
    codec::soc::encode(out, codec::soc::model_desc{id, m.file_name});
    MSPROF_TRY(s_->job.append(prof::job_layout::family::desc, out));
    for (const auto& l : m.layers) {  // one record per append: a ModelDesc slice splits between records
      out.clear();
      codec::soc::encode(out, codec::soc::layer_desc{id, l.id, l.ori_name, l.name, l.type});
      MSPROF_TRY(s_->job.append(prof::job_layout::family::desc, out));
    }
    MSPROF_TRY(s_->job.flush());
    return id;
  }

  /// The layers of a loaded model (tests, examples).
  const std::vector<soc_layer>* layers(std::uint32_t model_id) const {
    auto it = s_->models.find(model_id);
    return it == s_->models.end() ? nullptr : &it->second.layers;
  }

  /// Runs one inference of `pictures` pictures starting at `start_ns` (host
  /// monotonic); writes its records when sampled and flushes them. Returns
  /// the end of its last task.
  result<std::uint64_t> execute(std::uint32_t model_id, std::uint64_t start_ns, std::uint64_t pictures = 1) {
    std::unique_lock<std::mutex> lk(s_->mu);
    auto it = s_->models.find(model_id);
    if (it == s_->models.end())
      return make_error(errc::invalid_argument, "simulated SoC: model " + std::to_string(model_id) + " is not loaded");
    if (pictures == 0) pictures = 1;
    model& m = it->second;
    const std::uint64_t iter = ++m.executes;
    const auto& jo = s_->job.options();
    const bool sampled = jo.interval == 0 || (iter - 1) % jo.interval == 0;
    const bool pmu = jo.aac_metrics == "ArithmeticUtilization";
    const double mhz = jo.frequency_mhz > 0 ? jo.frequency_mhz : 1000;
    std::mt19937_64 rng(s_->opt.seed * 0x9E3779B97F4A7C15ull ^ (std::uint64_t{model_id} << 40) ^ iter);
    std::uniform_real_distribution<double> jitter(0.95, 1.05);
    std::string tasks, counters, desc;
    std::uint64_t t = std::max(start_ns, s_->device_free) + 30000;  // launch latency
    std::uint64_t cycles_all = 0;
    std::uint32_t task_id = 0;
    for (const auto& l : m.layers) {
      const auto dur = static_cast<std::uint64_t>(l.base_us * 1000.0 * static_cast<double>(pictures) * jitter(rng));
      const std::uint64_t end = t + (dur ? dur : 1);
      const auto cycles = static_cast<std::uint64_t>(static_cast<double>(end - t) * mhz / 1000.0);
      cycles_all += cycles;
      const bool keep = sampled && (l.unit != codec::soc::unit::aa_cpu || jo.aacpu);
      if (keep) {
        codec::soc::soc_task_record r;
        r.unit = static_cast<std::uint8_t>(l.unit);
        r.model_id = model_id;
        r.task_id = task_id;
        r.layer_id = l.id;
        r.iteration = iter;
        r.start_ns = t;
        r.end_ns = end;
        codec::soc::append_raw(tasks, r);
        if (pmu && l.unit != codec::soc::unit::aa_cpu) codec::soc::append_raw(counters, counters_of(l, model_id, task_id, iter, cycles, end - t, rng));
        ++task_id;
      }
      t = end + 2000 + rng() % 3000;  // the scheduler's gap between tasks
    }
    s_->device_free = t;
    codec::soc::inference_desc inf;
    inf.model_id = model_id;
    inf.sampled = sampled ? 1 : 0;
    inf.iteration = iter;
    inf.pictures = pictures;
    inf.icache_access = cycles_all / 4 + 1;
    inf.icache_miss = inf.icache_access / 1000 * (10 + rng() % 40);  // 1 % to 5 %
    codec::soc::encode(desc, inf);
    using prof::job_layout::family;
    MSPROF_TRY(s_->job.append(family::desc, desc));
    if (!tasks.empty()) MSPROF_TRY(s_->job.append(family::task, tasks));
    if (!counters.empty()) MSPROF_TRY(s_->job.append(family::aacore, counters));
    MSPROF_TRY(s_->job.flush());
    lk.unlock();
    if (s_->opt.realtime) {
      timespec ts{};
      ts.tv_sec = static_cast<time_t>(t / 1000000000ull);
      ts.tv_nsec = static_cast<long>(t % 1000000000ull);
      while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
      }
    }
    return t;
  }

  /// Writes one host ACL API call (when acl_api is on) and flushes it.
  result<void> record_acl(std::string_view name, codec::soc::api_type type, std::uint64_t start_ns, std::uint64_t end_ns,
                          std::uint32_t tid) {
    std::lock_guard<std::mutex> lk(s_->mu);
    if (!s_->job.options().acl_api) return {};
    std::string b;
    codec::soc::append_raw(b, codec::soc::make_acl(name, type, s_->job.options().pid, tid, start_ns,
                                                  end_ns < start_ns ? start_ns : end_ns));
    MSPROF_TRY(s_->job.append(prof::job_layout::family::acl, b));
    return s_->job.flush();
  }

  /// Finishes the JOB directory (.done files, status "finished").
  result<void> close() { return s_ ? s_->job.close() : result<void>{}; }

  /// The monotonic clock the device and the host share (CLOCK_MONOTONIC).
  static std::uint64_t now_ns() { return prof::job_clock_ns(); }

 private:
  struct model {
    std::string file_name;
    std::vector<soc_layer> layers;
    std::uint64_t executes = 0;
  };
  struct state {
    simulated_soc_options opt;
    prof::job_dir job;
    std::mutex mu;
    std::map<std::uint32_t, model> models;
    std::uint32_t next_model = 0;
    std::uint64_t device_free = 0;  ///< the end of the last task (one task at a time)
  };

  // A plausible detection-style network: convolution blocks (conv + batch norm
  // + activation fused into one AA Core task), pooling and eltwise on the
  // AA Vector Core, a fully connected layer, and a post-processing layer the
  // AA Core cannot run (AA CPU).
  std::vector<soc_layer> make_layers(std::string_view bytes) const {
    std::mt19937_64 rng(s_->opt.seed ^ codec::double_hash(bytes));
    std::uniform_real_distribution<double> u(0.0, 1.0);
    auto in = [&](double lo, double hi) { return lo + (hi - lo) * u(rng); };
    std::vector<soc_layer> out;
    const unsigned blocks = 4 + static_cast<unsigned>(rng() % 5);
    auto add = [&](soc_layer l) {
      l.id = static_cast<std::uint32_t>(out.size());
      out.push_back(std::move(l));
    };
    for (unsigned b = 1; b <= blocks; ++b) {
      const unsigned convs = 1 + static_cast<unsigned>(rng() % 3);
      for (unsigned c = 1; c <= convs; ++c) {
        const std::string n = std::to_string(b) + "_" + std::to_string(c);
        soc_layer l;
        l.ori_name = "conv" + n + ",bn" + n + ",relu" + n;
        l.name = "conv" + n + "_bn" + n + "_relu" + n;
        l.type = "Convolution";
        l.unit = codec::soc::unit::aa_core;
        l.base_us = in(60, 420);
        const bool memory_bound = u(rng) < 0.2;  // a few layers wait on DDR
        l.mac = memory_bound ? in(0.15, 0.35) : in(0.55, 0.9);
        l.vec = in(0.05, 0.2);
        l.dld = memory_bound ? in(0.45, 0.8) : in(0.1, 0.4);
        l.wld = in(0.05, 0.35);
        l.dstr = in(0.05, 0.3);
        l.dtrans = in(0.02, 0.15);
        add(l);
      }
      soc_layer p;
      p.ori_name = p.name = (b % 2 ? "pool" : "res") + std::to_string(b);
      p.type = b % 2 ? "Pooling" : "Eltwise";
      p.unit = codec::soc::unit::aa_vector_core;
      p.base_us = in(15, 80);
      p.vec = in(0.5, 0.9);
      p.dld = in(0.2, 0.5);
      p.dstr = in(0.1, 0.4);
      p.dtrans = in(0.05, 0.2);
      add(p);
    }
    soc_layer fc;
    fc.ori_name = fc.name = "fc1";
    fc.type = "InnerProduct";
    fc.base_us = in(40, 160);
    fc.mac = in(0.4, 0.7);
    fc.vec = in(0.05, 0.15);
    fc.dld = in(0.05, 0.2);
    fc.wld = in(0.3, 0.6);
    fc.dstr = in(0.02, 0.1);
    fc.dtrans = in(0.02, 0.1);
    add(fc);
    soc_layer sm;
    sm.ori_name = sm.name = "prob";
    sm.type = "Softmax";
    sm.unit = codec::soc::unit::aa_vector_core;
    sm.base_us = in(8, 30);
    sm.vec = in(0.4, 0.8);
    sm.dld = in(0.1, 0.3);
    sm.dstr = in(0.05, 0.2);
    add(sm);
    soc_layer dt;
    dt.ori_name = dt.name = "detection_out";
    dt.type = "DetectionOutput";
    dt.unit = codec::soc::unit::aa_cpu;
    dt.base_us = in(150, 600);
    add(dt);
    return out;
  }

  static codec::soc::soc_aacore_record counters_of(const soc_layer& l, std::uint32_t model_id, std::uint32_t task_id,
                                                   std::uint64_t iter, std::uint64_t cycles, std::uint64_t dur_ns,
                                                   std::mt19937_64& rng) {
    std::uniform_real_distribution<double> j(0.97, 1.03);
    auto part = [&](double ratio) {
      const double r = ratio * j(rng);
      return static_cast<std::uint64_t>(static_cast<double>(cycles) * (r > 1 ? 1 : r));
    };
    codec::soc::soc_aacore_record r;
    r.model_id = model_id;
    r.task_id = task_id;
    r.iteration = iter;
    r.total_cycles = cycles;
    r.mac_busy = part(l.mac);
    r.mac_ppen = part(l.mac * 0.8);  // effective: about 80 % of busy
    if (r.mac_ppen > r.mac_busy) r.mac_ppen = r.mac_busy;
    r.vec_busy = part(l.vec);
    r.vec_ppen = part(l.vec * 0.75);
    if (r.vec_ppen > r.vec_busy) r.vec_ppen = r.vec_busy;
    r.dstr = part(l.dstr);
    r.dtrans = part(l.dtrans);
    r.dld = part(l.dld);
    r.wld = part(l.wld);
    // DDR at about 8 bytes/ns while loading or storing.
    const double ns = static_cast<double>(dur_ns);
    r.ddr_read_bytes = static_cast<std::uint64_t>(ns * (l.dld + l.wld) * 8.0);
    r.ddr_write_bytes = static_cast<std::uint64_t>(ns * l.dstr * 8.0);
    return r;
  }

  std::unique_ptr<state> s_;
};

}  // namespace device
MSPROF_END_NAMESPACE

#endif  // MSPROF_DEVICE_SIMULATED_SOC_HPP
