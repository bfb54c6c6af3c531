// SPDX-License-Identifier: MIT
// A profiler session, modelled on torch_npu.profiler.profile:
//
//   session::session_config cfg;  cfg.output = "./prof";
//   session::profiler prof(cfg, session::schedule{1, 2, 1, 2, 1},
//                          session::export_handler());       // or any callable(dir)
//   prof.start();
//   auto s = prof.device().create_stream();                   // simulated NPU
//   for (int i = 0; i < 9; ++i) { train_one_step(prof.device(), *s); prof.step(); }
//   prof.stop();                                              // also done by ~profiler
//
// Each finished active window of the schedule is its own PROF_ directory,
// handed to on_trace_ready once. Without a schedule every step is recorded
// and the one directory is handed over at stop(). While a window records,
// each step is a "ProfilerStep#<n>" range; mstx calls of every thread are
// collected (domain include/exclude from the config); device work goes to a
// simulated device whose output says it is simulated. Warm-up steps run the
// collector into a discarding sink, so its start-up cost stays out of the
// recorded steps. Each recording window is a collection of its own: its
// host/msprof_calls counts exactly the mstx calls made while it collected
// (each thread's calls, recorded or dropped, as they happen, so a killed
// process leaves them too) and its losses are its own, so its export checks
// calls = trace + losses per window. A range begun before the window and ended
// in it counts as an unknown end there. profiler_metadata.json in each directory holds
// add_metadata() entries and the environment variables torch_npu records.
// With cfg.layout ascend_pt / ascend_ms each window is torch_npu's
// `{worker}_{pid}_{ts}_ascend_pt/` around its PROF_ directory, with the
// program's msprof::record_function ops in FRAMEWORK/ (framework_dir.hpp);
// on_trace_ready then gets that directory. With cfg.host_sys cpu / mem / disk /
// network, the process's CPU, memory and disk usage and the machine's network
// counters are sampled while each window collects and land in its PROF_
// directory before on_trace_ready (prof/host_sampler.hpp).
//
// One session at a time per process (the collector is process-wide).
// Methods may be called from any thread; they serialise on one mutex.
#ifndef MSPROF_SESSION_SESSION_HPP
#define MSPROF_SESSION_SESSION_HPP

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "../core/json.hpp"
#include "../device/simulated_device.hpp"
#include "../prof/host_sampler.hpp"
#include "../prof/writer.hpp"
#include "../collect/collector.hpp"
#include "session_config.hpp"
#include "framework_dir.hpp"
#include "prof_record_sink.hpp"
#include "schedule.hpp"

MSPROF_BEGIN_NAMESPACE
namespace session {

namespace detail {

// The collector's sink during warm-up: takes everything and keeps nothing. A
// recording window is a collection of its own, into the window's sink, so its
// call counters and losses are the window's alone.
class discard_sink final : public collect::record_sink {
 public:
  void write_tx(const collect::tx_record&) override {}
};

// The device the program talks to for the whole session: stream ids stay
// valid across windows; work is recorded on the recording window's simulated
// device and otherwise accepted and dropped (as a real NPU would run it
// unprofiled).
class session_device final : public device::backend, public instrument::stream_marker {
 public:
  result<device::stream_id> create_stream() override {
    std::lock_guard<std::mutex> lk(mu_);
    const device::stream_id s = streams_++;
    if (target_) MSPROF_TRY(target_->create_stream());
    return s;
  }
  result<void> launch(device::stream_id s, const device::op_desc& op) override {
    return forward(s, [&](device::simulated_device& d) { return d.launch(s, op); });
  }
  result<void> memcpy_async(device::stream_id s, std::uint64_t bytes, device::memcpy_kind kind) override {
    return forward(s, [&](device::simulated_device& d) { return d.memcpy_async(s, bytes, kind); });
  }
  result<void> record_event(device::stream_id s, device::event_id e) override {
    return forward(s, [&](device::simulated_device& d) { return d.record_event(s, e); });
  }
  result<void> wait_event(device::stream_id s, device::event_id e) override {
    return forward(s, [&](device::simulated_device& d) { return d.wait_event(s, e); });
  }
  result<void> synchronize() override {
    std::lock_guard<std::mutex> lk(mu_);
    return target_ ? target_->synchronize() : result<void>{};
  }
  result<void> mark(device::stream_id s, std::uint64_t id, bool end) override {
    return forward(s, [&](device::simulated_device& d) { return d.mark(s, id, end); });
  }
  void marker(void* stream, std::uint64_t id, bool end) noexcept override {
    std::lock_guard<std::mutex> lk(mu_);
    if (target_) target_->marker(stream, id, end);
  }

  // Points the session's streams at a new window's device (or none).
  result<void> attach(device::simulated_device* d) {
    std::lock_guard<std::mutex> lk(mu_);
    target_ = d;
    if (d == nullptr) return {};
    for (device::stream_id i = 0; i < streams_; ++i) {
      auto s = d->create_stream();
      if (!s) return s.err();
      if (*s != i) return make_error(errc::unsupported, "session device: the simulated device numbered its streams differently");
    }
    return {};
  }

 private:
  template <class F>
  result<void> forward(device::stream_id s, F&& f) {
    std::lock_guard<std::mutex> lk(mu_);
    if (s >= streams_) return make_error(errc::invalid_argument, "device: unknown stream " + std::to_string(s));
    return target_ ? f(*target_) : result<void>{};
  }

  std::mutex mu_;
  device::simulated_device* target_ = nullptr;
  device::stream_id streams_ = 0;
};

}  // namespace detail

class profiler {
 public:
  /// Called once per saved PROF_ directory (torch_npu's on_trace_ready).
  using trace_ready_fn = std::function<void(const std::string& prof_dir)>;

  explicit profiler(session_config cfg = {}, std::optional<session::schedule> sched = std::nullopt,
                    trace_ready_fn on_trace_ready = {})
      : cfg_(std::move(cfg)), schedule_(sched), on_trace_ready_(std::move(on_trace_ready)) {}
  profiler(const profiler&) = delete;
  profiler& operator=(const profiler&) = delete;
  ~profiler() { (void)stop(); }

  /// Where warnings go (default: stderr, prefixed "[msprof] ").
  void on_warning(std::function<void(const std::string&)> f) { warn_ = std::move(f); }

  /// Step 0 begins: the schedule's action for it takes effect.
  result<void> start() {
    std::lock_guard<std::mutex> lk(mu_);
    if (started_) return make_error(errc::invalid_argument, "profiler: already started");
    MSPROF_TRY(validate(cfg_));
    if (auto note = host_sys_not_collected(cfg_); !note.empty()) warning(note);
    started_ = true;
    step_ = 0;
    action_ = action_for(0);
    return enter(profiler_action::none, action_, false);
  }

  /// Ends the current step and begins the next (torch_npu's prof.step()).
  result<void> step() {
    std::lock_guard<std::mutex> lk(mu_);
    if (!started_) return make_error(errc::invalid_argument, "profiler: step() before start()");
    const profiler_action prev = action_;
    ++step_;
    action_ = action_for(step_);
    return enter(prev, action_, false);
  }

  /// Ends the session: a recording window is saved and handed over.
  result<void> stop() {
    std::lock_guard<std::mutex> lk(mu_);
    if (!started_) return {};
    started_ = false;
    return enter(action_, profiler_action::none, true);
  }

  std::uint64_t step_num() const {
    std::lock_guard<std::mutex> lk(mu_);
    return step_;
  }
  profiler_action current_action() const {
    std::lock_guard<std::mutex> lk(mu_);
    return action_;
  }
  /// Every PROF_ directory saved so far, oldest first.
  std::vector<std::string> saved_dirs() const {
    std::lock_guard<std::mutex> lk(mu_);
    return saved_;
  }
  /// The collector's loss counters of the last saved window.
  collect::loss_counters last_losses() const {
    std::lock_guard<std::mutex> lk(mu_);
    return last_losses_;
  }

  /// The (simulated) NPU for the whole session; stream ids stay valid across windows.
  device::backend& device() noexcept { return device_; }
  /// The aclrtStream-like handle of stream `s` for mstx calls with a stream.
  static void* stream_handle(device::stream_id s) noexcept { return device::simulated_device::stream_handle(s); }

  /// A string entry of profiler_metadata.json (later windows keep it).
  void add_metadata(std::string key, std::string value) {
    std::lock_guard<std::mutex> lk(mu_);
    metadata_[std::move(key)] = json::value::make_string(std::move(value));
  }
  /// A JSON entry of profiler_metadata.json; `json_text` must be valid JSON.
  result<void> add_metadata_json(std::string key, std::string_view json_text) {
    auto v = json::parse(json_text, "add_metadata_json(" + key + ")");
    if (!v) return v.err();
    std::lock_guard<std::mutex> lk(mu_);
    metadata_[std::move(key)] = std::move(*v);
    return {};
  }

 private:
  struct window {
    std::unique_ptr<framework_dir> fw;  // ascend_pt / ascend_ms layouts: the directory holding dir
    prof::prof_dir dir;
    std::shared_ptr<prof_record_sink> sink;
    std::shared_ptr<framework_sink> fw_sink;  // forwards to sink; writes FRAMEWORK/ in fw
    /// What on_trace_ready and saved_dirs() name: the framework directory, else the PROF_ one.
    const std::string& path() const { return fw ? fw->root() : dir.path(); }
    std::unique_ptr<prof::host_sampler> host;  // host_sys cpu / mem / disk / network: usage while the window collects
    std::unique_ptr<device::simulated_device> npu;  // declared last: destroyed before dir
  };

  profiler_action action_for(std::uint64_t step) const {
    return schedule_ ? (*schedule_)(step) : profiler_action::record;
  }

  void warning(const std::string& w) const {
    if (warn_) warn_(w);
    else std::fprintf(stderr, "[msprof] %s\n", w.c_str());
  }

  // Runs the transition's steps; the first error wins but later cleanup still runs.
  result<void> enter(profiler_action from, profiler_action to, bool to_end) {
    result<void> first;
    auto keep = [&](result<void> r) {
      if (first && !r) first = std::move(r);
    };
    if (is_recording(from) && window_) {
      const std::uint64_t ended = step_ - (to_end ? 0 : 1);
      collect::step_end(ended);
      if (window_->npu) keep(window_->npu->step_marker(ended, true));  // ts_track step end on the device
    }
    for (transition_step t : transition(from, to, to_end)) {
      switch (t) {
        case transition_step::warn:
          if (!to_end)
            warning(std::string("incorrect schedule: ") + std::string(to_string(from)) + " followed by " +
                    std::string(to_string(to)));
          else if (schedule_)  // without a schedule every step records: stopping is the normal end
            warning(std::string("stop() while the schedule's action is ") + std::string(to_string(from)) +
                    (from == profiler_action::warmup            ? ": nothing was recorded in this cycle"
                     : from == profiler_action::record          ? ": the window is saved incomplete"
                                                                : ": perhaps the scheduling cycle has not completed"));
          break;
        case transition_step::prepare: keep(prepare()); break;
        case transition_step::discard: collect::stop(); break;
        case transition_step::start_trace: keep(start_trace()); break;
        case transition_step::stop_trace: keep(stop_trace()); break;
        case transition_step::trace_ready: trace_ready(); break;
      }
    }
    if (!to_end && is_recording(to) && window_) {
      collect::step_begin(step_);
      if (window_->npu) keep(window_->npu->step_marker(step_, false));  // ts_track step start on the device
    }
    return first;
  }

  // Warm-up: the collector runs (threads get their rings) into a discarding sink.
  result<void> prepare() {
    if (!calibration_) calibration_ = collect::calibrate(true);
    collect::options o;
    o.sink = std::make_shared<detail::discard_sink>();
    o.calibration = calibration_;
    o.domain_include = cfg_.mstx_domain_include;
    o.domain_exclude = cfg_.mstx_domain_exclude;
    o.drain_interval = cfg_.drain_interval;
    apply(cfg_.buffers, o);
    o.warn = [this](const std::string& w) { warning(w); };
    // mstx off: its calls stay unattached (steps still recorded); the framework
    // layouts still record their ops, as torch_npu does with its mstx switch off.
    const bool framework = cfg_.layout != output_layout::cann;
    o.attach_in_process = cfg_.cpu && (cfg_.mstx || framework);
    o.mstx_calls = cfg_.mstx;
    collect_options_ = o;
    return collect::start(o);
  }

  bool device_enabled() const { return cfg_.npu && cfg_.level != profiler_level::level_none; }

  result<void> start_trace() {
    prof::prof_dir_options po = prof_dir_options_for(*calibration_);
    po.parent = cfg_.output;
    po.storage_limit_bytes = cfg_.storage_limit_mb << 20;
    po.host_sample["profiler_level"] = std::string(to_string(cfg_.level));
    po.host_sample["aic_metrics"] = cfg_.aic_metrics;
    po.host_sample["msproftx"] = cfg_.mstx ? "on" : "off";
    if (device_enabled()) {
      prof::device_options d;
      d.aic_metrics = cfg_.aic_metrics;
      po.devices.push_back(d);
    }
    auto w = std::make_unique<window>();
    if (cfg_.layout != output_layout::cann) {
      auto fw = framework_dir::create(cfg_.output, cfg_.layout, cfg_.worker_name,
                                      static_cast<std::uint32_t>(::getpid()), prof::detail::wall_us());
      if (!fw) return abandon(fw.err());
      w->fw = std::make_unique<framework_dir>(std::move(*fw));
      po.parent = w->fw->root();
    }
    auto dir = prof::prof_dir::create(po);
    if (!dir) return abandon(dir.err());
    w->dir = std::move(*dir);
    w->sink = std::make_shared<prof_record_sink>(w->dir, collector_clock(*calibration_), cfg_.staging);
    std::shared_ptr<collect::record_sink> target = w->sink;
    if (w->fw) {
      w->fw_sink = std::make_shared<framework_sink>(
          w->sink, *w->fw, collector_clock(*calibration_),
          framework_filter{cfg_.record_shapes, cfg_.with_stack, cfg_.profile_memory});
      target = w->fw_sink;
    }
    if (device_enabled()) {
      device::simulated_options so;
      so.seed = 1 + saved_.size();
      so.record_shapes = cfg_.record_shapes;
      so.training_trace = cfg_.training_trace;
      so.fp_point = cfg_.fp_point;
      so.bp_point = cfg_.bp_point;
      w->npu = std::make_unique<device::simulated_device>(w->dir, so);
      if (auto r = device_.attach(w->npu.get()); !r) return abandon(r.err());
      collect::default_collector::core::set_stream_marker(&device_);
    }
    // The window is a collection of its own: the warm-up's ends (its events still
    // in the rings are discarded), and the window's starts with the window's sink,
    // which counts every call made while it collects in host/msprof_calls.
    collect::stop();
    collect::options o = collect_options_;
    o.sink = std::move(target);
    if (auto r = collect::start(o); !r) {
      if (w->npu) collect::default_collector::core::set_stream_marker(nullptr);
      return abandon(r.err());
    }
    prof::host_sampler::parts host;
    for (const auto& n : cfg_.host_sys) host.set(n);
    if (host.any()) {
      auto h = prof::host_sampler::start([] { return std::vector<pid_t>{::getpid()}; }, host,
                                         prof::host_sampler::period_of(cfg_.host_sys_usage_freq));
      if (h) w->host = std::move(*h);
      else warning(h.err().what() + " (host_sys: " + w->dir.path() + " gets no host usage)");
    }
    window_ = std::move(w);
    return {};
  }

  // A window that could not start: no collection until the next prepare.
  error abandon(error e) {
    (void)device_.attach(nullptr);
    collect::stop();
    return e;
  }

  result<void> stop_trace() {
    if (!window_) return {};
    collect::stop();  // drains every ring into the window
    result<void> first;
    if (window_->npu) {
      collect::default_collector::core::set_stream_marker(nullptr);
      first = window_->npu->synchronize();
      (void)device_.attach(nullptr);
      window_->npu.reset();
    }
    if (window_->host) {  // the slices are in the directory before on_trace_ready exports it
      window_->host->stop();
      if (auto h = window_->host->write_into(window_->dir.path()); !h)
        warning(h.err().what() + " (host_sys: " + window_->dir.path() + " has no host usage)");
    }
    last_losses_ = collect::losses();
    auto meta = write_metadata(window_->path());
    if (first && !meta) first = meta;
    if (window_->fw) {
      auto info = window_->fw->write_profiler_info(cfg_, schedule_, window_->dir, rank_from_env());
      if (first && !info) first = info;
    }
    auto fin = window_->fw_sink ? window_->fw_sink->finish(last_losses_) : window_->sink->finish(last_losses_);
    if (first && !fin) first = fin;
    if (!last_losses_.complete() || window_->dir.stats().lost_events != 0)
      warning(window_->dir.path() + ": some calls are not (completely) in the trace (see host/info.json msprof_losses)");
    if (window_->fw && window_->fw->lost() != 0)
      warning(window_->fw->root() + ": " + std::to_string(window_->fw->lost()) +
              " framework record(s) are not in FRAMEWORK/: " + window_->fw->stop_reason());
    saved_.push_back(window_->path());
    window_.reset();
    return first;
  }

  void trace_ready() {
    if (!on_trace_ready_ || saved_.empty()) return;
    try {
      on_trace_ready_(saved_.back());
    } catch (const std::exception& e) {
      warning(saved_.back() + ": on_trace_ready failed: " + e.what());
    }
  }

  result<void> write_metadata(const std::string& dir) const { return write_profiler_metadata(dir, metadata_); }

  session_config cfg_;
  std::optional<session::schedule> schedule_;
  trace_ready_fn on_trace_ready_;
  std::function<void(const std::string&)> warn_;
  mutable std::mutex mu_;
  bool started_ = false;
  std::uint64_t step_ = 0;
  profiler_action action_ = profiler_action::none;
  std::optional<collect::clock_calibration> calibration_;
  collect::options collect_options_;  // the collection's options (prepare); each window's sink is its own
  detail::session_device device_;
  std::unique_ptr<window> window_;
  std::vector<std::string> saved_;
  collect::loss_counters last_losses_;
  std::map<std::string, json::value> metadata_;
};

}  // namespace session
MSPROF_END_NAMESPACE

#endif  // MSPROF_SESSION_SESSION_HPP
