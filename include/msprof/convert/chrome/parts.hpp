// SPDX-License-Identifier: MIT
// Splitting the chrome form into parts of a bounded size, at step boundaries
// when steps are given.
#ifndef MSPROF_CONVERT_CHROME_PARTS_HPP
#define MSPROF_CONVERT_CHROME_PARTS_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../../core/abi.hpp"
#include "plan.hpp"
#include "types.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {
namespace detail {

/// A part's event range in plan::order.
struct cut {
  std::size_t begin = 0, end = 0;
};

/// Splits plan::order into parts of at most `budget` bytes of events
/// (cost[k] = bytes of order[k] and the flows that close there).
std::vector<cut> cut_parts(const plan& p, const std::vector<std::uint64_t>& cost, std::uint64_t budget,
                           const options& opt, std::size_t& steps_split);

}  // namespace detail
}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_CHROME_PARTS_HPP
