// SPDX-License-Identifier: MIT
// `msprof show`'s tables: render_table, the collection summary line and
// show_collector.
#include "msprof/convert/show.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "msprof/convert/host_usage.hpp"
#include "msprof/convert/summary.hpp"
#include "msprof/convert/text.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

std::string render_table(const std::string& title, const table& t, const std::vector<std::size_t>& cols,
                         std::size_t max_rows, bool bold, std::size_t left_out) {
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
  if (t.rows.size() - n + left_out > 0) out += "  ... " + std::to_string(t.rows.size() - n + left_out) + " more rows\n";
  out += '\n';
  return out;
}

void collection_counts::add(const model& w) noexcept {
  apis += w.apis.size();
  tasks += w.tasks.size();
  mstx += w.mstx.size();
  mstx_mem += w.mstx_mem.size();
}

std::string collection_summary(const model& m, const collection_counts& n) {
  std::string out = std::to_string(n.apis) + " API calls, " + std::to_string(n.tasks) + " device tasks, " +
                    std::to_string(n.mstx) + " mstx events, " + std::to_string(m.session.devices.size()) + " device(s)";
  if (n.mstx_mem) out += ", " + std::to_string(n.mstx_mem) + " mstx memory (un)registrations";
  if (!m.session.losses.empty()) {
    std::string lost;
    for (const auto& [what, count] : m.session.losses)
      if (count > 0) lost += (lost.empty() ? "" : ", ") + what + " " + std::to_string(count);
    out += lost.empty() ? "; no losses" : "; LOSSES: " + lost;
  }
  if (m.session.unfinished && !m.session.losses.empty())
    out += m.session.lost_at_kill() ? "; UNFINISHED collection (program killed or crashed): lost_at_kill counts the calls lost at the end"
                       : "; UNFINISHED collection (program killed or crashed): losses are the last saved counters";
  if (m.session.simulated_device) out += "; device data from the SIMULATED device";
  return out;
}

std::string collection_summary(const model& m) {
  collection_counts n;
  n.add(m);
  return collection_summary(m, n);
}

namespace detail {

/// What `nsys stats` gives NVTX users, for mstx: ranges grouped by domain and
/// message (count, total, average, median, min, max, share of the range time),
/// marks counted by domain and message, and both per thread. The names stay in
/// memory (one entry per distinct domain and message); the durations go through
/// a sorter on disk for the medians, so memory does not grow with the events.
class mstx_statistics {
 public:
  mstx_statistics(const std::string& spill_dir, std::size_t spill_budget) : durations_(spill_dir, spill_budget) {}

  void add(const mstx_event& e) {
    const bool mark = e.event_type == 0 || e.event_type == 3;
    const std::uint32_t g = group_of(e.domain, e.message);
    thread_counts& th = threads_[{e.pid, e.tid}];
    if (mark) {
      ++groups_[g].marks;
      ++th.marks;
      return;
    }
    const std::int64_t ns = std::max<std::int64_t>(0, e.end_ns - e.start_ns);
    group& gr = groups_[g];
    ++gr.ranges;
    gr.total_ns += ns;
    gr.min_ns = std::min(gr.min_ns, ns);
    gr.max_ns = std::max(gr.max_ns, ns);
    ++th.ranges;
    th.total_ns += ns;
    durations_.push({g, ns}, {});
  }

  bool empty() const noexcept { return groups_.empty(); }

  /// The range, mark and thread tables; `top` rows of the first two.
  result<std::string> tables(std::size_t top, bool color) {
    MSPROF_TRY(find_medians());
    std::int64_t all_ns = 0;
    for (const group& g : groups_) all_ns += g.total_ns;
    std::vector<std::uint32_t> order(groups_.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::string out;

    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return groups_[a].total_ns != groups_[b].total_ns ? groups_[a].total_ns > groups_[b].total_ns : a < b;
    });
    table ranges;
    ranges.header = {"Time(%)", "Total(us)", "Count", "Avg(us)", "Med(us)", "Min(us)", "Max(us)", "Domain", "Range"};
    std::size_t range_groups = 0;
    for (std::uint32_t i : order) {
      const group& g = groups_[i];
      if (g.ranges == 0) continue;
      if (range_groups++ >= top) continue;
      ranges.rows.push_back({percent(g.total_ns, all_ns), dur_us_fixed3(g.total_ns), std::to_string(g.ranges),
                             dur_us_fixed3(g.total_ns / static_cast<std::int64_t>(g.ranges)),
                             dur_us_fixed3(g.median_ns), dur_us_fixed3(g.min_ns), dur_us_fixed3(g.max_ns), g.domain,
                             g.message});
    }
    if (range_groups != 0)
      out += render_table("mstx ranges (top " + std::to_string(top) + " by total time)", ranges,
                          {0, 1, 2, 3, 4, 5, 6, 7, 8}, SIZE_MAX, color, range_groups - ranges.rows.size());

    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return groups_[a].marks != groups_[b].marks ? groups_[a].marks > groups_[b].marks : a < b;
    });
    table marks;
    marks.header = {"Count", "Domain", "Mark"};
    std::size_t mark_groups = 0;
    for (std::uint32_t i : order) {
      const group& g = groups_[i];
      if (g.marks == 0) continue;
      if (mark_groups++ >= top) continue;
      marks.rows.push_back({std::to_string(g.marks), g.domain, g.message});
    }
    if (mark_groups != 0)
      out += render_table("mstx marks (top " + std::to_string(top) + " by count)", marks, {0, 1, 2}, SIZE_MAX, color,
                          mark_groups - marks.rows.size());

    table threads;
    threads.header = {"PID", "TID", "Ranges", "Marks", "Range time(us)"};
    for (const auto& [id, c] : threads_)
      threads.rows.push_back({std::to_string(id.first), std::to_string(id.second), std::to_string(c.ranges),
                              std::to_string(c.marks), dur_us_fixed3(c.total_ns)});
    out += render_table("mstx by thread (nested ranges count in full)", threads, {0, 1, 2, 3, 4}, SIZE_MAX, color);
    return out;
  }

 private:
  struct group {
    std::string domain, message;
    std::uint64_t ranges = 0, marks = 0;
    std::int64_t total_ns = 0, min_ns = std::numeric_limits<std::int64_t>::max(), max_ns = 0, median_ns = 0;
  };
  struct thread_counts {
    std::uint64_t ranges = 0, marks = 0;
    std::int64_t total_ns = 0;
  };
  struct duration_key {
    std::uint32_t group;
    std::int64_t ns;
    bool operator<(const duration_key& o) const noexcept { return group != o.group ? group < o.group : ns < o.ns; }
  };

  std::uint32_t group_of(const std::string& domain, const std::string& message) {
    std::string key = domain;
    key += '\0';
    key += message;
    auto [it, added] = index_.try_emplace(std::move(key), static_cast<std::uint32_t>(groups_.size()));
    if (added) groups_.push_back({domain, message});
    return it->second;
  }

  /// The middle duration of each group (the mean of the two middle ones, to
  /// the ns below, for an even count), from the durations in sorted order.
  result<void> find_medians() {
    std::uint32_t current = std::numeric_limits<std::uint32_t>::max();
    std::uint64_t seen = 0;
    return durations_.drain([&](const duration_key& k, std::string_view) {
      if (k.group != current) current = k.group, seen = 0;
      group& g = groups_[k.group];
      const std::uint64_t lower = (g.ranges - 1) / 2, upper = g.ranges / 2;
      if (seen == lower) g.median_ns = k.ns;
      if (seen == upper && upper != lower) g.median_ns += (k.ns - g.median_ns) / 2;
      ++seen;
    });
  }

  static std::string percent(std::int64_t part, std::int64_t whole) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
    return b;
  }

  std::unordered_map<std::string, std::uint32_t> index_;  // domain NUL message -> groups_ index
  std::vector<group> groups_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, thread_counts> threads_;  // (pid, tid)
  spill_sorter<duration_key> durations_;
};

/// The host usage table: per usage the intervals sampled, their mean and peak
/// percentage, over the timeline's counters (CPU: the Avg of the CPUs).
result<std::string> host_usage_text(const std::string& prof_dir, bool color, std::vector<std::string>& warnings) {
  table t;
  t.header = {"Usage", "Intervals", "Mean(%)", "Peak(%)"};
  using k = host_usage_kind;
  for (const auto& usage : {std::pair{k::cpu, "CPU"}, {k::memory, "Memory"}, {k::disk, "Disk"}, {k::network, "Network"}}) {
    const host_usage_kind kind = usage.first;  // a plain local: C++17 lambdas take no structured binding
    std::size_t n = 0;
    double sum = 0, peak = 0;
    MSPROF_TRY(for_each_host_usage(prof_dir, kind, warnings, [&](const host_usage_point& p) -> result<void> {
      if (kind == k::cpu && p.cpu != "Avg") return {};
      peak = n++ == 0 ? p.usage : std::max(peak, p.usage);
      sum += p.usage;
      return {};
    }));
    if (n == 0) continue;
    std::string mean, top;
    append_fixed(mean, sum / static_cast<double>(n), 2);
    append_fixed(top, peak, 2);
    t.rows.push_back({usage.second, std::to_string(n), mean, top});
  }
  if (t.rows.empty()) return std::string();
  return render_table("Host usage", t, {0, 1, 2, 3}, SIZE_MAX, color);
}

}  // namespace detail

/// show_collector's state.
struct show_collector::impl {
  impl(std::size_t top, const std::string& spill_dir, std::size_t spill_budget)
      : top_(top), ops_(spill_dir, spill_budget / 3), api_(spill_dir, spill_budget / 3),
        mstx_(spill_dir, spill_budget / 3) {}

  void add(const model& w) {
    counts_.add(w);
    for (const auto& e : w.mstx) mstx_.add(e);
    for (const auto& a : w.apis) api_.add(a);
    for (const auto& t : w.tasks) {
      if (!in_op_summary(t)) continue;
      const auto k = task_row_key::of(t);
      const op_entry e{op_groups_.group_of(t), detail::dur_us(t.start_ns, t.end_ns)};
      ops_.push(k, bytes_of(e));
      keep_if_top(k, t, w);
    }
  }

  /// The tables, after the last window; `final` is load_windows()' model. Once only.
  result<std::string> text(const model& final, bool color, std::vector<std::string>& warnings) {
    std::string out = final.session.prof_dir + "\n" + collection_summary(final, counts_) + "\n\n";
    if (ops_.size() != 0) {
      table ops;
      const pmu_columns pmu = pmu_columns::of(final.session);
      ops.header = op_summary_header(&pmu);
      std::sort_heap(top_ops_.begin(), top_ops_.end(), ranks_before);
      for (auto& o : top_ops_) ops.rows.push_back(std::move(o.row));
      out += render_table("Op summary (top " + std::to_string(top_) + " by duration)", ops, {0, 4, 5, 7, 3, 2, 9, 11},
                          SIZE_MAX, color, ops_.size() - ops.rows.size());
    }
    table st;
    st.header = op_statistic_header();
    MSPROF_TRY(ops_.drain([&](const task_row_key&, std::string_view p) {
      auto e = from_bytes<op_entry>(p);
      op_groups_.add(e.group, e.dur_us);
    }));
    op_groups_.rows([&](const auto& format) { add_row(st, format); });
    if (!st.rows.empty()) out += render_table("Op statistic", st, {0, 1, 2, 3, 4, 5, 6, 7, 8}, SIZE_MAX, color);
    MSPROF_TRY(api_.finish());
    table api;
    api.header = api_statistic_header();
    api_.groups().rows([&](const auto& format) { add_row(api, format); });
    if (!api.rows.empty()) {
      std::stable_sort(api.rows.begin(), api.rows.end(), [](const auto& a, const auto& b) {
        return std::stod(a[3]) > std::stod(b[3]);
      });
      out += render_table("API statistic (top " + std::to_string(top_) + " by total time)", api,
                          {1, 2, 3, 4, 5, 6, 7, 8}, top_, color);
    }
    if (!mstx_.empty()) {
      auto mstx = mstx_.tables(top_, color);
      if (!mstx) return mstx.err();
      out += *mstx;
    }
    if (final.has_device()) {
      table f;
      f.header = {"Device", "AI Core Freq(MHz)", "AI Cores", "AIV Cores"};
      for (const auto& d : final.session.devices)
        f.rows.push_back({std::to_string(d.id), fewest3(d.aic_frequency_mhz), std::to_string(d.ai_core_num),
                          std::to_string(d.aiv_num)});
      out += render_table("Frequency", f, {0, 1, 2, 3}, SIZE_MAX, color);
    }
    auto host = detail::host_usage_text(final.session.prof_dir, color, warnings);
    if (!host) return host.err();
    out += *host;
    if (st.rows.empty() && api.rows.empty() && counts_.mstx == 0 && host->empty())
      out += "(no API, task or mstx records)\n";
    return out;
  }

  struct op_entry {
    std::uint32_t group;  ///< op_statistic group
    double dur_us;
  };
  struct top_op {
    std::int64_t dur_ns;
    task_row_key key;
    table::row row;  ///< op_summary cells
  };
  /// Longer first; equal durations in op_summary order.
  static bool ranks_before(const top_op& a, const top_op& b) {
    return a.dur_ns != b.dur_ns ? a.dur_ns > b.dur_ns : a.key < b.key;
  }
  /// top_ops_ is a heap whose front ranks last: it goes when a better op comes.
  void keep_if_top(const task_row_key& k, const device_task& t, const model& w) {
    if (top_ == 0) return;
    top_op o{t.end_ns - t.start_ns, k, {}};
    if (top_ops_.size() == top_) {
      if (!ranks_before(o, top_ops_.front())) return;
      std::pop_heap(top_ops_.begin(), top_ops_.end(), ranks_before);
      top_ops_.pop_back();
    }
    cell_list s(o.row);
    op_summary_head(s, t);
    op_summary_wait(s, std::nullopt, t.start_ns);  // not shown
    if (!pmu_) pmu_ = pmu_columns::of(w.session);
    op_summary_tail(s, t, w.device(t.device_id), &*pmu_);
    top_ops_.push_back(std::move(o));
    std::push_heap(top_ops_.begin(), top_ops_.end(), ranks_before);
  }

  std::size_t top_;
  collection_counts counts_;
  std::vector<top_op> top_ops_;
  std::optional<pmu_columns> pmu_;  ///< op_summary PMU columns, from the first window
  spill_sorter<task_row_key> ops_;
  op_statistic_groups op_groups_;
  api_statistic_stream api_;
  detail::mstx_statistics mstx_;
};

show_collector::show_collector(std::size_t top, const std::string& spill_dir, std::size_t spill_budget)
    : p_(std::make_unique<impl>(top, spill_dir, spill_budget)) {}

show_collector::~show_collector() = default;

void show_collector::add(const model& w) { p_->add(w); }

result<std::string> show_collector::text(const model& final, bool color, std::vector<std::string>& warnings) {
  return p_->text(final, color, warnings);
}

}  // namespace convert
MSPROF_END_NAMESPACE
