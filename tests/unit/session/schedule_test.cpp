// SPDX-License-Identifier: MIT
// The schedule state machine against torch_npu's documented example and the
// action map between states.
#include <msprof/session/schedule.hpp>

#include <doctest/doctest.h>

#include <vector>

namespace session = msprof::session;
using A = session::profiler_action;
using T = session::transition_step;

TEST_CASE("schedule: torch_npu example wait=1 warmup=1 active=2 repeat=2 skip_first=1") {
  const session::schedule s{/*wait*/ 1, /*active*/ 2, /*warmup*/ 1, /*repeat*/ 2, /*skip_first*/ 1};
  const std::vector<A> expected{A::none,   A::none,   A::warmup, A::record,          A::record_and_save,
                                A::none,   A::warmup, A::record, A::record_and_save, A::none,
                                A::none};
  for (std::uint64_t step = 0; step < expected.size(); ++step) {
    CAPTURE(step);
    CHECK(s(step) == expected[step]);
  }
}

TEST_CASE("schedule: repeat 0 cycles forever / active 0 counts as 1 / no warmup") {
  const session::schedule forever{/*wait*/ 2, /*active*/ 1};
  CHECK(forever(0) == A::none);
  CHECK(forever(1) == A::none);
  CHECK(forever(2) == A::record_and_save);
  CHECK(forever(3 * 1000 + 2) == A::record_and_save);
  CHECK(forever(3 * 1000 + 1) == A::none);
  const session::schedule zero{/*wait*/ 0, /*active*/ 0};
  CHECK(zero(0) == A::record_and_save);
  CHECK(zero(7) == A::record_and_save);
  const session::schedule three{/*wait*/ 0, /*active*/ 3, /*warmup*/ 0, /*repeat*/ 1};
  CHECK(three(0) == A::record);
  CHECK(three(1) == A::record);
  CHECK(three(2) == A::record_and_save);
  CHECK(three(3) == A::none);
}

TEST_CASE("schedule: transitions follow the action map") {
  using V = std::vector<T>;
  CHECK(session::transition(A::none, A::none) == V{});
  CHECK(session::transition(A::none, A::warmup) == V{T::prepare});
  CHECK(session::transition(A::none, A::record) == V{T::prepare, T::start_trace});
  CHECK(session::transition(A::none, A::record_and_save) == V{T::prepare, T::start_trace});
  CHECK(session::transition(A::warmup, A::warmup) == V{});
  CHECK(session::transition(A::warmup, A::record) == V{T::start_trace});
  CHECK(session::transition(A::warmup, A::record_and_save) == V{T::start_trace});
  CHECK(session::transition(A::warmup, A::none) == V{T::warn, T::discard});
  CHECK(session::transition(A::record, A::record) == V{});
  CHECK(session::transition(A::record, A::record_and_save) == V{});
  CHECK(session::transition(A::record, A::none) == V{T::warn, T::stop_trace});
  CHECK(session::transition(A::record, A::warmup) == V{T::warn, T::stop_trace});
  CHECK(session::transition(A::record_and_save, A::none) == V{T::stop_trace, T::trace_ready});
  CHECK(session::transition(A::record_and_save, A::warmup) == V{T::stop_trace, T::trace_ready, T::prepare});
  CHECK(session::transition(A::record_and_save, A::record) ==
        V{T::stop_trace, T::trace_ready, T::prepare, T::start_trace});
  CHECK(session::transition(A::record_and_save, A::record_and_save) ==
        V{T::stop_trace, T::trace_ready, T::prepare, T::start_trace});
  // stop() from each state
  CHECK(session::transition(A::none, A::none, true) == V{});
  CHECK(session::transition(A::warmup, A::none, true) == V{T::warn, T::discard});
  CHECK(session::transition(A::record, A::none, true) == V{T::warn, T::stop_trace, T::trace_ready});
  CHECK(session::transition(A::record_and_save, A::none, true) == V{T::warn, T::stop_trace, T::trace_ready});
}
