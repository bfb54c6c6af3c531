// SPDX-License-Identifier: MIT
// `msprof export timeline --timeline-format=chrome`: the chrome form as the
// hook of convert::export_timeline (include/msprof/convert/chrome/chrome.hpp).
#include "msprof/convert/chrome/chrome.hpp"

#include <utility>

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace chrome {

std::string file_stem(const std::string& ts) { return "chrome_trace_" + ts; }

result<std::vector<std::string>> timeline_writer::operator()(const model& m, const std::vector<trace_event>& events,
                                                             const std::filesystem::path& out_dir,
                                                             const std::string& ts) const {
  auto w = write(events, m.session.start_ns, out_dir, file_stem(ts), opt);
  if (!w) return w.err();
  std::vector<std::string> files;
  for (const auto& p : w->parts) files.push_back((out_dir / p.file_name).string());
  if (!w->note_file.empty()) files.push_back((out_dir / w->note_file).string());
  return files;
}

timeline_writer writer(options opt) { return timeline_writer{std::move(opt)}; }

result<export_result> export_chrome_trace(const std::string& prof_dir, const export_options& eo, const options& co) {
  export_options o = eo;
  o.chrome = true;
  o.chrome_options = co;
  return export_timeline(prof_dir, o);
}

}  // namespace chrome
}  // namespace convert
MSPROF_END_NAMESPACE
