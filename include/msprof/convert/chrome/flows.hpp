// SPDX-License-Identifier: MIT
// Flows of the chrome form: which s/f pairs are written, and the slices their
// ends bind to as DevTools binds them.
#ifndef MSPROF_CONVERT_CHROME_FLOWS_HPP
#define MSPROF_CONVERT_CHROME_FLOWS_HPP

#include <cstdint>
#include <vector>

#include "../../core/abi.hpp"
#include "plan.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {

/// Pairs the s and f events of p.ev, binds their ends to slices and fills
/// p.flows (and the slices' categories and the flow counters of p.st).
/// `slices` holds the X and I events per thread in nesting order, `threads`
/// each thread's range of it (sorted by pid, tid); part of make_plan.
void plan_flows(plan& p, const std::vector<std::uint32_t>& slices, const std::vector<thread_run>& threads);

}  // namespace detail
}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_CHROME_FLOWS_HPP
