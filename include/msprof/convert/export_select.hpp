// SPDX-License-Identifier: MIT
// What an export reads: the option checks, --strict, --clear, the whole model
// for the chrome form, and the iteration selection (--model-id/--iteration-id).
#ifndef MSPROF_CONVERT_EXPORT_SELECT_HPP
#define MSPROF_CONVERT_EXPORT_SELECT_HPP

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "../core/error.hpp"
#include "export_options.hpp"
#include "iterations.hpp"
#include "model.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace detail {

/// "model 4294967295: iterations 1-3, 5" for every model of the collection.
std::string available_iterations(const model& m);

/// --model-id/--iteration-id/--iteration-count: keeps the iterations
/// [id, id + count) of a model and the API calls, device tasks and mstx events
/// of their time range (iteration_range), window by window (load_windows), so
/// selecting iterations streams like a whole export.
class iteration_filter {
 public:
  /// Picks the iterations from `m`'s (any window has them all); one that does
  /// not exist is an error naming the ones that do.
  static result<iteration_filter> choose(const model& m, const export_options& o);

  /// Keeps the window's records of the range and the chosen iterations. A
  /// HostToDevice flow starts only at a call whose task was kept; a call's
  /// tasks come in its own window or an earlier one (model.hpp, "Windows"), so
  /// only the kept tasks of calls still to come are remembered.
  void apply(model& w);

  /// The chosen iterations' time range (local ns).
  const iteration_range& range() const noexcept { return range_; }

 private:
  std::vector<iteration> chosen_;
  iteration_range range_;
  std::unordered_set<std::uint64_t> launched_;  // connection ids of kept tasks whose call has not come yet
};

/// The iteration selection on a whole model.
result<void> select_iterations(model& m, const export_options& o);

/// The option checks every export makes before it reads anything.
result<void> check_options(const export_options& o);

/// --strict: the first warning of the load is an error.
result<void> check_strict(const std::string& prof_dir, const model& m, const export_options& o);

/// --clear: the intermediate sqlite/ directories go.
void clear_intermediates(const std::string& prof_dir, const export_options& o);

/// The whole model, for the chrome form.
result<model> load_checked(const std::string& prof_dir, const export_options& o);

}  // namespace detail
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_EXPORT_SELECT_HPP
