// SPDX-License-Identifier: MIT
// beside(): two independent pieces of work on the machine's two cores.
#ifndef MSPROF_CONVERT_BESIDE_HPP
#define MSPROF_CONVERT_BESIDE_HPP

#include <exception>
#include <system_error>
#include <thread>

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

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_BESIDE_HPP
