// SPDX-License-Identifier: MIT
// `msprof show`: the summaries as aligned terminal tables (op summary top-N by
// duration, op statistic, API statistic, AI Core frequency).
#ifndef MSPROF_CONVERT_SHOW_HPP
#define MSPROF_CONVERT_SHOW_HPP

#include <algorithm>
#include <string>
#include <vector>

#include "model.hpp"
#include "summary.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

/// Renders `t` with the chosen columns (indices into its header).
inline std::string render_table(const std::string& title, const table& t, const std::vector<std::size_t>& cols,
                                std::size_t max_rows, bool bold) {
  std::vector<std::size_t> w(cols.size(), 0);
  auto cell = [&](const std::vector<std::string>& row, std::size_t c) {
    std::string s = c < row.size() ? row[c] : "";
    if (!s.empty() && s.back() == '\t') s.pop_back();
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return s;
  };
  const std::size_t n = std::min(max_rows, t.rows.size());
  for (std::size_t i = 0; i < cols.size(); ++i) {
    w[i] = cell(t.header, cols[i]).size();
    for (std::size_t r = 0; r < n; ++r) w[i] = std::max(w[i], cell(t.rows[r], cols[i]).size());
  }
  std::string out = (bold ? "\033[1m" : "") + title + (bold ? "\033[0m" : "") + "\n";
  auto line = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < cols.size(); ++i) {
      const std::string s = cell(row, cols[i]);
      out += "  ";
      out += s;
      if (i + 1 < cols.size()) out.append(w[i] - s.size(), ' ');
    }
    out += '\n';
  };
  line(t.header);
  for (std::size_t r = 0; r < n; ++r) line(t.rows[r]);
  if (t.rows.size() > n) out += "  ... " + std::to_string(t.rows.size() - n) + " more rows\n";
  out += '\n';
  return out;
}

/// All tables for one collection.
/// One line of what a collection holds: record counts, the collector's losses
/// ("no losses" only when it counted and lost nothing), simulated device data.
inline std::string collection_summary(const model& m) {
  std::string out = std::to_string(m.apis.size()) + " API calls, " + std::to_string(m.tasks.size()) +
                    " device tasks, " + std::to_string(m.mstx.size()) + " mstx events, " +
                    std::to_string(m.session.devices.size()) + " device(s)";
  if (!m.mstx_mem.empty()) out += ", " + std::to_string(m.mstx_mem.size()) + " mstx memory (un)registrations";
  if (!m.session.losses.empty()) {
    std::string lost;
    for (const auto& [what, n] : m.session.losses)
      if (n > 0) lost += (lost.empty() ? "" : ", ") + what + " " + std::to_string(n);
    out += lost.empty() ? "; no losses" : "; LOSSES: " + lost;
  }
  if (m.session.simulated_device) out += "; device data from the SIMULATED device";
  return out;
}

inline std::string show_text(const model& m, std::size_t top = 10, bool color = false) {
  std::string out = m.session.prof_dir + "\n" + collection_summary(m) + "\n\n";
  auto ops = op_summary(m);
  if (!ops.rows.empty()) {
    std::stable_sort(ops.rows.begin(), ops.rows.end(), [](const auto& a, const auto& b) {
      return std::stod(a[9]) > std::stod(b[9]);
    });
    out += render_table("Op summary (top " + std::to_string(top) + " by duration)", ops, {0, 4, 5, 7, 3, 2, 9, 11},
                        top, color);
  }
  auto st = op_statistic(m);
  if (!st.rows.empty()) out += render_table("Op statistic", st, {0, 1, 2, 3, 4, 5, 6, 7, 8}, SIZE_MAX, color);
  auto api = api_statistic(m);
  if (!api.rows.empty()) {
    std::stable_sort(api.rows.begin(), api.rows.end(), [](const auto& a, const auto& b) {
      return std::stod(a[3]) > std::stod(b[3]);
    });
    out += render_table("API statistic (top " + std::to_string(top) + " by total time)", api, {1, 2, 3, 4, 5, 6, 7, 8},
                        top, color);
  }
  if (m.has_device()) {
    table f;
    f.header = {"Device", "AI Core Freq(MHz)", "AI Cores", "AIV Cores"};
    for (const auto& d : m.session.devices)
      f.rows.push_back({std::to_string(d.id), fewest3(d.aic_frequency_mhz), std::to_string(d.ai_core_num),
                        std::to_string(d.aiv_num)});
    out += render_table("Frequency", f, {0, 1, 2, 3}, SIZE_MAX, color);
  }
  if (ops.rows.empty() && api.rows.empty() && m.mstx.empty()) out += "(no API, task or mstx records)\n";
  return out;
}

}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_SHOW_HPP
