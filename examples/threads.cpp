// SPDX-License-Identifier: MIT
// threads: ranges that cross threads, and push/pop nesting.
// A producer starts a unique_range per job and hands it over with the job; the
// worker thread that finishes the job ends it (the range keeps its start thread).
// range_push/range_pop nest per thread and return the depth like torch_npu.
//   cmake --build build --target examples_threads msprof_cli msprof_mstx
//   build/bin/msprof --output=out --application=build/bin/examples/threads
#include <msprof/mstx.hpp>

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

struct job {
  int number = 0;
  msprof::unique_range in_flight;  // movable: started here, ended by the worker
};

class queue {
 public:
  void push(job j) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_.push_back(std::move(j));
    }
    ready_.notify_one();
  }
  bool pop(job& out) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !jobs_.empty() || closed_; });
    if (jobs_.empty()) return false;
    out = std::move(jobs_.front());
    jobs_.pop_front();
    return true;
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<job> jobs_;
  bool closed_ = false;
};

double process(int number) {
  msprof::range_push("process");  // depth before the push is returned (0 here)
  double acc = 0;
  for (int i = 1; i < 200000; ++i) acc += 1.0 / (i + number);
  msprof::range_push("finish");
  acc *= 2;
  msprof::range_pop();  // "finish"
  msprof::range_pop();  // "process"
  return acc;
}

}  // namespace

int main() {
  queue q;
  std::vector<double> results(2, 0.0);
  std::vector<std::thread> workers;
  for (int w = 0; w < 2; ++w) {
    workers.emplace_back([&, w] {
      job j;
      while (q.pop(j)) {
        results[static_cast<std::size_t>(w)] += process(j.number);
        j.in_flight.end();  // ends on this worker thread
      }
    });
  }
  for (int n = 0; n < 16; ++n) {
    const std::string name = "job " + std::to_string(n);
    q.push(job{n, msprof::unique_range{name.c_str()}});
  }
  q.close();
  for (auto& t : workers) t.join();
  std::printf("threads: %.3f %.3f\n", results[0], results[1]);
  return 0;
}
