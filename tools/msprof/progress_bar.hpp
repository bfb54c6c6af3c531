// SPDX-License-Identifier: MIT
// The progress display of export, import, show and analyse, and the pool that
// runs one job per collection beside it.
#ifndef MSPROF_CLI_PROGRESS_BAR_HPP
#define MSPROF_CLI_PROGRESS_BAR_HPP

#include <msprof/convert/load.hpp>
#include <msprof/convert/progress.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "args.hpp"
#include "console.hpp"

namespace msprof_cli {

namespace cv = msprof::convert;

/// Progress of a run over several collections: bytes read of the total,
/// drawn as a bar on a terminal (stderr, when CI is not set), or as a plain
/// line every few seconds with --progress when stderr is not one.
/// `bytes_of(dir)` is what the command reads of a collection (cv::data_bytes:
/// a PROF_ directory's data slices).
class progress {
 public:
  progress(const progress_flags& f, const std::vector<std::string>& dirs,
           const std::function<std::uint64_t(const std::string&)>& bytes_of = cv::data_bytes)
      : totals_(dirs.size()), done_(new std::atomic<std::uint64_t>[dirs.size()]()) {
    const bool tty = isatty(STDERR_FILENO) != 0;
    if (f.quiet || (!f.force && (!tty || std::getenv("CI")))) return;
    lines_ = !tty;
    for (std::size_t k = 0; k < dirs.size(); ++k) totals_[k] = bytes_of(dirs[k]);
    t0_ = std::chrono::steady_clock::now();
    thread_ = std::thread([this] { run(); });
  }
  ~progress() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  std::size_t size() const { return totals_.size(); }
  /// Where collection k's reader adds the bytes it reads.
  std::atomic<std::uint64_t>* bytes(std::size_t k) { return &done_[k]; }
  /// Collection k is done: all of its bytes count (also files it had no need to read).
  void finish(std::size_t k) {
    done_[k].store(totals_[k], std::memory_order_relaxed);
    ++dirs_done_;
  }

 private:
  std::string text() const {
    cv::progress_state st;
    for (std::size_t k = 0; k < totals_.size(); ++k) {
      st.done += std::min(done_[k].load(std::memory_order_relaxed), totals_[k]);
      st.total += totals_[k];
    }
    st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    st.dirs_done = dirs_done_.load();
    st.dirs = totals_.size();
    return cv::progress_text(st);
  }
  void run() {
    // A terminal: redrawn 5 times a second after the first second (short runs
    // draw nothing). A log: one line every 2 s and the final one.
    const auto first = std::chrono::seconds(lines_ ? 2 : 1);
    const auto every = lines_ ? std::chrono::milliseconds(2000) : std::chrono::milliseconds(200);
    auto next = t0_ + first;
    std::unique_lock<std::mutex> lock(m_);
    while (!wake_.wait_until(lock, next, [this] { return stop_; })) {
      if (lines_)
        console::get().say(std::cerr, "msprof: progress " + text());
      else
        console::get().bar(text());
      next += every;
    }
    if (lines_)
      console::get().say(std::cerr, "msprof: progress " + text());
    else
      console::get().bar("");
  }

  std::vector<std::uint64_t> totals_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> done_;
  std::atomic<std::size_t> dirs_done_{0};
  bool lines_ = false;
  std::chrono::steady_clock::time_point t0_;
  std::mutex m_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

/// Runs job(k) for every collection k of the progress bar on up to one thread
/// per core (several collections, PROF_ or *_ascend_pt, at once), and report(k)
/// in order of k as soon as k and every collection before it are done, so that
/// warnings and file names appear while the bar still runs.
inline void for_each_dir(progress& bar, const std::function<void(std::size_t)>& job,
                  const std::function<void(std::size_t)>& report) {
  const std::size_t n = bar.size();
  std::atomic<std::size_t> next{0};
  std::mutex report_m;
  std::vector<char> finished(n, 0);
  std::size_t reported = 0;
  const unsigned workers = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(n)));
  auto work = [&] {
    for (std::size_t k; (k = next++) < n;) {
      job(k);
      bar.finish(k);
      std::lock_guard<std::mutex> lock(report_m);
      finished[k] = 1;
      while (reported < n && finished[reported]) report(reported++);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

}  // namespace msprof_cli

#endif  // MSPROF_CLI_PROGRESS_BAR_HPP
