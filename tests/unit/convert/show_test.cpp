// SPDX-License-Identifier: MIT
// show_collector gathers `msprof show`'s tables window by window: whatever the
// window size and spill budget, its text is the one computed from the whole
// model with the table API (op_summary sorted by duration, op_statistic,
// api_statistic sorted by total time).
#include <doctest/doctest.h>
#include <msprof/convert/load.hpp>
#include <msprof/convert/show.hpp>
#include <msprof/convert/summary.hpp>
#include <msprof/convert/text.hpp>
#include <msprof/core/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../../support/generated_prof.hpp"
#include "../../support/temp_dir.hpp"
#include "golden_util.hpp"

namespace cv = msprof::convert;
namespace fs = std::filesystem;

namespace {

/// The mstx tables from the whole model, with every duration in memory.
std::string whole_model_mstx(const cv::model& m, std::size_t top) {
  struct group {
    std::size_t first;  // position of its first event
    std::string domain, message;
    std::vector<std::int64_t> ns;
    std::uint64_t marks = 0;
  };
  std::map<std::pair<std::string, std::string>, group> groups;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::int64_t>> thread_ranges, thread_marks;
  for (std::size_t i = 0; i < m.mstx.size(); ++i) {
    const auto& e = m.mstx[i];
    auto& g = groups.try_emplace({e.domain, e.message}, group{i, e.domain, e.message, {}, 0}).first->second;
    if (e.event_type == 0 || e.event_type == 3) {
      ++g.marks;
      thread_marks[{e.pid, e.tid}].push_back(0);
    } else {
      g.ns.push_back(std::max<std::int64_t>(0, e.end_ns - e.start_ns));
      thread_ranges[{e.pid, e.tid}].push_back(g.ns.back());
      thread_marks[{e.pid, e.tid}];
    }
  }
  if (groups.empty()) return "";
  std::vector<group*> order;
  std::int64_t all = 0;
  for (auto& [k, g] : groups) {
    order.push_back(&g);
    std::sort(g.ns.begin(), g.ns.end());
    for (auto v : g.ns) all += v;
  }
  auto total = [](const group* g) {
    std::int64_t s = 0;
    for (auto v : g->ns) s += v;
    return s;
  };
  std::string out;
  std::sort(order.begin(), order.end(), [&](const group* a, const group* b) {
    return total(a) != total(b) ? total(a) > total(b) : a->first < b->first;
  });
  cv::table ranges;
  ranges.header = {"Time(%)", "Total(us)", "Count", "Avg(us)", "Med(us)", "Min(us)", "Max(us)", "Domain", "Range"};
  std::size_t n = 0;
  for (const group* g : order) {
    if (g->ns.empty()) continue;
    if (n++ >= top) continue;
    const std::size_t c = g->ns.size();
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f", all > 0 ? 100.0 * double(total(g)) / double(all) : 0.0);
    const std::int64_t med = g->ns[(c - 1) / 2] + (g->ns[c / 2] - g->ns[(c - 1) / 2]) / 2;
    ranges.rows.push_back({pct, cv::dur_us_fixed3(total(g)), std::to_string(c),
                           cv::dur_us_fixed3(total(g) / std::int64_t(c)), cv::dur_us_fixed3(med),
                           cv::dur_us_fixed3(g->ns.front()), cv::dur_us_fixed3(g->ns.back()), g->domain, g->message});
  }
  if (n) out += cv::render_table("mstx ranges (top " + std::to_string(top) + " by total time)", ranges,
                                 {0, 1, 2, 3, 4, 5, 6, 7, 8}, SIZE_MAX, false, n - ranges.rows.size());
  std::sort(order.begin(), order.end(), [](const group* a, const group* b) {
    return a->marks != b->marks ? a->marks > b->marks : a->first < b->first;
  });
  cv::table marks;
  marks.header = {"Count", "Domain", "Mark"};
  n = 0;
  for (const group* g : order) {
    if (g->marks == 0) continue;
    if (n++ >= top) continue;
    marks.rows.push_back({std::to_string(g->marks), g->domain, g->message});
  }
  if (n) out += cv::render_table("mstx marks (top " + std::to_string(top) + " by count)", marks, {0, 1, 2}, SIZE_MAX,
                                 false, n - marks.rows.size());
  cv::table threads;
  threads.header = {"PID", "TID", "Ranges", "Marks", "Range time(us)"};
  for (const auto& [id, mk] : thread_marks) {
    const auto& r = thread_ranges[id];
    std::int64_t s = 0;
    for (auto v : r) s += v;
    threads.rows.push_back({std::to_string(id.first), std::to_string(id.second), std::to_string(r.size()),
                            std::to_string(mk.size()), cv::dur_us_fixed3(s)});
  }
  return out + cv::render_table("mstx by thread (nested ranges count in full)", threads, {0, 1, 2, 3, 4}, SIZE_MAX, false);
}

/// The tables from the whole model, as the command printed them before it streamed.
std::string whole_model_show(const cv::model& m, std::size_t top) {
  std::string out = m.session.prof_dir + "\n" + cv::collection_summary(m) + "\n\n";
  auto ops = cv::op_summary(m);
  if (!ops.rows.empty()) {
    std::stable_sort(ops.rows.begin(), ops.rows.end(),
                     [](const auto& a, const auto& b) { return std::stod(a[9]) > std::stod(b[9]); });
    out += cv::render_table("Op summary (top " + std::to_string(top) + " by duration)", ops, {0, 4, 5, 7, 3, 2, 9, 11},
                            top, false);
  }
  auto st = cv::op_statistic(m);
  if (!st.rows.empty()) out += cv::render_table("Op statistic", st, {0, 1, 2, 3, 4, 5, 6, 7, 8}, SIZE_MAX, false);
  auto api = cv::api_statistic(m);
  if (!api.rows.empty()) {
    std::stable_sort(api.rows.begin(), api.rows.end(),
                     [](const auto& a, const auto& b) { return std::stod(a[3]) > std::stod(b[3]); });
    out += cv::render_table("API statistic (top " + std::to_string(top) + " by total time)", api,
                            {1, 2, 3, 4, 5, 6, 7, 8}, top, false);
  }
  out += whole_model_mstx(m, top);
  if (m.has_device()) {
    cv::table f;
    f.header = {"Device", "AI Core Freq(MHz)", "AI Cores", "AIV Cores"};
    for (const auto& d : m.session.devices)
      f.rows.push_back({std::to_string(d.id), cv::fewest3(d.aic_frequency_mhz), std::to_string(d.ai_core_num),
                        std::to_string(d.aiv_num)});
    out += cv::render_table("Frequency", f, {0, 1, 2, 3}, SIZE_MAX, false);
  }
  if (ops.rows.empty() && api.rows.empty() && m.mstx.empty()) out += "(no API, task or mstx records)\n";
  return out;
}

std::string streamed_show(const std::string& prof, std::size_t top, std::size_t window, std::size_t budget) {
  cv::load_options lo;
  lo.window_records = window;
  lo.spill_budget = budget;
  lo.spill_dir = fs::temp_directory_path().string();
  cv::show_collector c(top, lo.spill_dir, budget);
  auto final_model = cv::load_windows(prof, lo, [&](cv::model& w) { c.add(w); });
  REQUIRE(final_model);
  std::vector<std::string> warnings;
  auto text = c.text(*final_model, false, warnings);
  REQUIRE(text);
  return *text;
}

}  // namespace

TEST_CASE("show: the golden cases' tables, window by window, equal the whole model's") {
  for (const char* name : golden::cases) {
    CAPTURE(name);
    golden::temp_copy t(name);
    const auto whole = cv::load_model(t.prof.string());
    REQUIRE(whole);
    for (std::size_t top : {0, 1, 3, 10})
      for (std::size_t window : {1, 2, 1 << 16}) {
        CAPTURE(top);
        CAPTURE(window);
        CHECK(streamed_show(t.prof.string(), top, window, window == 1 ? 64 : cv::spill_budget_default) ==
              whole_model_show(*whole, top));
      }
  }
}

TEST_CASE("show: a generated collection of 20 k records, spilled, equals the whole model's") {
  temp_dir t;
  const fs::path prof = fs::path(t.path) / "PROF_000001_20260101000000000_SHOWTESTAAAAAAAA";
  generated_prof::generate(prof, 20000);
  const auto whole = cv::load_model(prof.string());
  REQUIRE(whole);
  REQUIRE(whole->warnings.empty());
  REQUIRE(whole->tasks.size() > 1000);
  for (std::size_t top : {1, 25})
    CHECK(streamed_show(prof.string(), top, 500, 4096) == whole_model_show(*whole, top));
}

TEST_CASE("show: mstx ranges by domain and message with count, total, average, median, min, max and share") {
  cv::model m;
  m.session.prof_dir = "PROF_X";
  auto range = [&](std::uint32_t tid, const char* domain, const char* msg, std::int64_t us) {
    cv::mstx_event e;
    e.pid = 10;
    e.tid = tid;
    e.event_type = 2;
    e.start_ns = 1000000;
    e.end_ns = e.start_ns + us * 1000;
    e.domain = domain;
    e.message = msg;
    m.mstx.push_back(e);
  };
  for (std::int64_t us : {10, 1, 3, 2}) range(11, "train", "step", us);  // median of 4: (2 + 3) / 2
  range(12, "io", "load", 4);
  cv::mstx_event mark;
  mark.pid = 10;
  mark.tid = 12;
  mark.event_type = 0;
  mark.domain = "io";
  mark.message = "ready";
  m.mstx.push_back(mark);
  m.mstx.push_back(mark);

  cv::show_collector c(10, fs::temp_directory_path().string());
  c.add(m);
  std::vector<std::string> warnings;
  auto text = c.text(m, false, warnings);
  REQUIRE(text);
  CAPTURE(*text);
  CHECK(text->find("0 API calls, 0 device tasks, 7 mstx events") != std::string::npos);
  CHECK(text->find("  Time(%)  Total(us)  Count  Avg(us)  Med(us)  Min(us)  Max(us)  Domain  Range\n"
                   "  80.0     16.000     4      4.000    2.500    1.000    10.000   train   step\n"
                   "  20.0     4.000      1      4.000    4.000    4.000    4.000    io      load\n") != std::string::npos);
  CHECK(text->find("mstx marks (top 10 by count)\n  Count  Domain  Mark\n  2      io      ready\n") != std::string::npos);
  CHECK(text->find("  PID  TID  Ranges  Marks  Range time(us)\n"
                   "  10   11   4       0      16.000\n"
                   "  10   12   1       2      4.000\n") != std::string::npos);
  CHECK(text->find("(no API, task or mstx records)") == std::string::npos);
}

TEST_CASE("show: host usage's intervals, mean and peak are those of the reference's timeline counters") {
  // The reference's msprof.json of each case (tests/golden/*/expected) has a
  // counter event per interval: CPU Avg, Memory, Disk and Network Usage.
  const std::map<std::string, std::string> row_of = {
      {"CPU Avg", "CPU"}, {"Memory Usage", "Memory"}, {"Disk Usage", "Disk"}, {"Network Usage", "Network"}};
  for (const char* name : {"host_usage", "host_io"}) {
    CAPTURE(name);
    auto trace = msprof::json::parse(golden::slurp(golden::case_dir(name) / "expected" / "msprof.json"));
    REQUIRE(trace);
    struct stats {
      std::size_t n = 0;
      double sum = 0, peak = 0;
    };
    std::map<std::string, stats> want;
    for (const auto& e : trace->items()) {
      const auto it = row_of.find(e.get("name").as_string_or(""));
      if (e.get("ph").as_string_or("") != "C" || it == row_of.end()) continue;
      double v = 0;
      REQUIRE(e.get("args").get("Usage(%)").to_double(v));
      auto& st = want[it->second];
      st.peak = st.n++ == 0 ? v : std::max(st.peak, v);
      st.sum += v;
    }
    REQUIRE(want.size() >= 2);
    golden::temp_copy t(name);
    const std::string text = streamed_show(t.prof.string(), 10, 1 << 16, cv::spill_budget_default);
    CAPTURE(text);
    const auto table = text.find("Host usage\n");
    REQUIRE(table != std::string::npos);
    std::istringstream lines(text.substr(table));
    std::string line;
    std::getline(lines, line);
    std::getline(lines, line);
    std::istringstream header(line);
    std::vector<std::string> columns{std::istream_iterator<std::string>(header), {}};
    CHECK(columns == std::vector<std::string>{"Usage", "Intervals", "Mean(%)", "Peak(%)"});
    std::map<std::string, std::vector<std::string>> got;
    while (std::getline(lines, line) && line.rfind("  ", 0) == 0) {
      std::istringstream cells(line);
      std::string usage, n, mean, peak;
      cells >> usage >> n >> mean >> peak;
      got[usage] = {n, mean, peak};
    }
    CHECK(got.size() == want.size());
    for (const auto& [usage, st] : want) {
      CAPTURE(usage);
      std::string mean, peak;
      cv::append_fixed(mean, st.sum / static_cast<double>(st.n), 2);
      cv::append_fixed(peak, st.peak, 2);
      CHECK(got[usage] == std::vector<std::string>{std::to_string(st.n), mean, peak});
    }
  }
}
