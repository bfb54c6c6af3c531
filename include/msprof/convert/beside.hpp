// SPDX-License-Identifier: MIT
// beside(): two independent pieces of work on the machine's two cores;
// side_work: one of them started once its input is known.
#ifndef MSPROF_CONVERT_BESIDE_HPP
#define MSPROF_CONVERT_BESIDE_HPP

#include <exception>
#include <functional>
#include <system_error>
#include <thread>
#include <utility>

#include "../core/abi.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// Runs `side` on a second thread while `main` runs on this one; both on this
/// one, `side` first, when not `threaded` or when no thread can be started.
/// Returns once both are done; an exception of `side` (std::bad_alloc) is
/// thrown again here, as without the thread.
template <class Side, class Main>
void beside(bool threaded, Side&& side, Main&& main) {
  std::exception_ptr side_failed;
  std::thread t;
  if (threaded) {
    try {
      t = std::thread([&] {
        try {
          side();
        } catch (...) {
          side_failed = std::current_exception();
        }
      });
    } catch (const std::system_error&) {
      threaded = false;
    }
  }
  if (!threaded) {
    side();
    main();
    return;
  }
  try {
    main();
  } catch (...) {
    t.join();
    throw;
  }
  t.join();
  if (side_failed) std::rethrow_exception(side_failed);
}

/// Work started on a second thread once its input is known (start), beside
/// what this thread does meanwhile. finish() waits for it and throws its
/// exception again, or does it here when it was not started (not `threaded`,
/// no thread to be had, or start() never called). Unwinding waits for it too.
template <class Arg>
class side_work {
 public:
  side_work(bool threaded, std::function<void(const Arg&)> work) : threaded_(threaded), work_(std::move(work)) {}
  side_work(const side_work&) = delete;
  side_work& operator=(const side_work&) = delete;
  ~side_work() {
    if (thread_.joinable()) thread_.join();
  }

  /// Starts the work on `arg`; once (later calls do nothing).
  void start(const Arg& arg) {
    if (!threaded_ || thread_.joinable()) return;
    try {
      thread_ = std::thread([this, arg] {
        try {
          work_(arg);
        } catch (...) {
          failed_ = std::current_exception();
        }
      });
    } catch (const std::system_error&) {
      threaded_ = false;
    }
  }

  /// The work done: waited for, or done here on `arg` if it was not started.
  void finish(const Arg& arg) {
    if (!thread_.joinable()) {
      work_(arg);
      return;
    }
    thread_.join();
    if (failed_) std::rethrow_exception(std::exchange(failed_, nullptr));
  }

 private:
  bool threaded_;
  std::function<void(const Arg&)> work_;
  std::thread thread_;
  std::exception_ptr failed_;
};

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_BESIDE_HPP
