// SPDX-License-Identifier: MIT
#include "msprof/convert/device_slices.hpp"

#include "msprof/core/directory.hpp"
#include "msprof/prof/layout.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace detail {

bool any_slice(const std::string& prof_dir, bool device, const std::string& part) {
  std::vector<std::string> dirs;
  if (!device) {
    dirs.push_back(prof_dir + "/" + prof::layout::host_dir + "/" + prof::layout::data_dir);
  } else if (auto entries = posix_dir::list(prof_dir)) {
    for (const auto& e : *entries)
      if (e.rfind(prof::layout::device_dir_prefix, 0) == 0) dirs.push_back(prof_dir + "/" + e + "/" + prof::layout::data_dir);
  }
  for (const auto& d : dirs)
    if (auto names = posix_dir::list(d))
      for (const auto& n : *names)
        if (n.find(part) != std::string::npos) return true;
  return false;
}

std::optional<prof::prof_reader> open_for_slices(const std::string& prof_dir, bool device, const std::string& part,
                                                 bool dictionary) {
  if (!any_slice(prof_dir, device, part)) return std::nullopt;
  prof::reader_options ro;
  if (!dictionary) ro.max_dictionary_bytes = 0;  // its warning is not among the slices' (slice_warnings)
  auto r = prof::prof_reader::open(prof_dir, ro);
  if (!r) return std::nullopt;
  return std::move(*r);
}

void slice_warnings(const prof::prof_reader& r, std::string_view stem, std::vector<std::string>& out) {
  for (const auto& w : r.warnings()) {
    const auto slash = w.file.rfind('/');
    const std::string_view name = std::string_view(w.file).substr(slash == std::string::npos ? 0 : slash + 1);
    if (name.substr(0, stem.size()) == stem || name.find(std::string(".") + std::string(stem) + ".") != std::string_view::npos)
      out.push_back(w.text());
  }
}

}  // namespace detail
}  // namespace convert
MSPROF_END_NAMESPACE
