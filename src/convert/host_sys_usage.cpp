// SPDX-License-Identifier: MIT
// The whole host's usage (--host-sys-usage=cpu,mem) as the reference
// (9ba1ac7be) reads it: ParsingCpuUsageData (msparser/hardware/sys_usage_parser.py)
// and ParsingMemoryData (sys_mem_parser.py) match the slices line by line into
// SQLite tables, whose columns' affinity makes numbers of the texts; the
// summaries are its SQL (viewer/cpu_usage_report.py, get_msvp_summary_mem.py):
// sums in row order, SQLite's integer division for the memory's whole numbers,
// Python's round(x, 3) for the CPU's percentages.
#include "msprof/convert/host_sys_usage.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <utility>

#include "msprof/convert/device_slices.hpp"
#include "msprof/convert/text.hpp"
#include "msprof/prof/control_files.hpp"
#include "msprof/prof/reader.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {

namespace {
namespace sysu {  // (a name of its own: the converters are built as unity sources)

__extension__ typedef __int128 i128;  // sums of 64-bit whole numbers: no overflow

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool digit(char c) { return c >= '0' && c <= '9'; }

std::string_view strip(std::string_view s) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

/// Python's str.split(sep): every piece, empty ones too.
std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t from = 0;
  for (;;) {
    const std::size_t at = s.find(sep, from);
    out.push_back(s.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from));
    if (at == std::string_view::npos) return out;
    from = at + 1;
  }
}

/// A text as a column of numeric affinity keeps it: a number (blanks around
/// it allowed, as SQLite's and Python's float() allow them), else nullopt.
std::optional<double> number(std::string_view s) {
  s = strip(s);
  if (s.empty() || s.size() > 64) return std::nullopt;
  const std::string t(s);
  for (char c : t)
    if (!(digit(c) || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size()) return std::nullopt;
  return v;
}

/// v as a whole number that fits in 64 bits, or nothing.
std::optional<std::int64_t> whole(std::optional<double> v) {
  if (!v || !(std::fabs(*v) < 9.2e18) || *v != std::trunc(*v)) return std::nullopt;
  return static_cast<std::int64_t>(*v);
}

/// The lines of `text`, each without its '\n', with its offset and whether a '\n' ended it.
template <class F>
void for_each_line(std::string_view text, F&& f) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    const bool nl = end != std::string_view::npos;
    const std::size_t stop = nl ? end : text.size();
    if (!f(text.substr(pos, stop - pos), pos, nl)) return;
    pos = stop + 1;
  }
}

std::string at(const std::string& file, std::size_t off) { return file + ": byte offset " + std::to_string(off) + ": "; }

bool timestamp_line(std::string_view l) { return starts(l, "TimeStamp:") && l.size() > 10 && digit(l[10]); }

/// "".join(line.split(':')[1:]).strip(): the name after "ProcessName", its colons dropped.
std::string process_name(std::string_view l) {
  std::string out;
  const auto parts = split(l, ':');
  for (std::size_t i = 1; i < parts.size(); ++i) out += parts[i];
  return std::string(strip(out));
}

void sys_cpu_rows(std::string_view text, const std::string& file, detail::file_problems& problems,
                  std::vector<host_sys_row>& rows) {
  bool in_record = false;
  for_each_line(text, [&](std::string_view l, std::size_t off, bool nl) {
    if (timestamp_line(l)) in_record = true;
    if (!in_record) return true;
    if (starts(l, "cpu")) {
      std::vector<std::string_view> f;
      for (auto p : split(l, ' '))
        if (!p.empty()) f.push_back(p);
      if (f.size() < 11) {
        problems.add(at(file, off) + std::to_string(f.size()) + " fields in a cpu line, not at least 11; line skipped");
        return true;
      }
      host_sys_row r;
      r.name = std::string(f[0]);
      for (std::size_t i = 1; i <= 10; ++i) {
        auto v = number(f[i]);
        if (!v) problems.add(at(file, off) + "cpu field " + std::to_string(i) + " is not a number; counted as 0");
        r.v.push_back(v.value_or(0.0));
      }
      rows.push_back(std::move(r));
    } else if (l.empty() && nl) {
      in_record = false;
    }
    return true;
  });
}

void pid_cpu_rows(std::string_view text, const std::string& file, detail::file_problems& problems,
                  std::vector<host_sys_row>& rows) {
  bool in_record = false;
  host_sys_row r;
  r.v.assign(5, std::nullopt);
  for_each_line(text, [&](std::string_view l, std::size_t off, bool nl) {
    if (starts(l, "TimeStamp:")) in_record = true;
    if (!in_record) return true;
    if (!l.empty() && digit(l[0])) {  // the process's /proc/<pid>/stat, split at single blanks
      const std::string full = std::string(l) + (nl ? "\n" : "");
      const auto f = split(full, ' ');
      if (f.size() < 17) {
        problems.add(at(file, off) + std::to_string(f.size()) +
                           " fields in a process stat line, not at least 17; the rest of the file is skipped (as the reference does)");
        return false;
      }
      if (const auto pid = whole(number(f[0])))
        r.pid = *pid;
      else problems.add(at(file, off) + "the process id is not a whole number");
      for (std::size_t i = 0; i < 4; ++i) {
        r.v[i] = number(f[13 + i]);
        if (!r.v[i]) problems.add(at(file, off) + "stat field " + std::to_string(13 + i) + " is not a number; counted as 0");
        if (!r.v[i]) r.v[i] = 0.0;
      }
    }
    if (l.find("ProcessName") != std::string_view::npos) r.name = process_name(l);
    if (starts(l, "cpu")) {
      double sum = 0;
      const std::string full = std::string(l) + (nl ? "\n" : "");
      const auto f = split(full, ' ');
      for (std::size_t i = 1; i < f.size(); ++i) {
        if (f[i].empty()) continue;
        const auto v = number(f[i]);
        if (!v) {
          problems.add(at(file, off) + "a cpu line field is not a number; the rest of the file is skipped (as the reference does)");
          return false;
        }
        sum += *v;
      }
      r.v[4] = sum;
      if (r.pid) rows.push_back(std::move(r));
      else problems.add(at(file, off) + "a cpu line without a process stat line before it; sample skipped");
      r = host_sys_row{};
      r.v.assign(5, std::nullopt);
    }
    if (l.empty() && nl) in_record = false;
    return true;
  });
}

void sys_mem_rows(std::string_view text, const std::string& file, detail::file_problems& problems,
                  std::vector<host_sys_row>& rows, std::string* unit) {
  static constexpr std::string_view keys[] = {"MemTotal:",    "MemFree:",     "Buffers:",        "Cached:",        "Shmem:",
                                               "CommitLimit:", "Committed_AS:", "HugePages_Total:", "HugePages_Free:"};
  bool in_record = false;
  host_sys_row r;
  r.v.assign(9, std::nullopt);
  for_each_line(text, [&](std::string_view l, std::size_t off, bool nl) {
    if (timestamp_line(l)) in_record = true;
    if (!in_record) return true;
    for (std::size_t k = 0; k < 9; ++k) {
      if (!starts(l, keys[k])) continue;
      std::string_view value;
      if (k < 7) {  // line.split(' ')[-2], the unit [-1]
        const auto f = split(l, ' ');
        value = f.size() >= 2 ? f[f.size() - 2] : std::string_view();
        if (k == 0 && unit && unit->empty() && rows.empty()) *unit = std::string(strip(f.back()));
      } else {
        value = split(l, ':')[1];
      }
      const auto v = number(value);
      if (whole(v)) r.v[k] = v;
      else problems.add(at(file, off) + std::string(keys[k]) + " is not a whole number; left out");
      return true;
    }
    if (l.empty() && nl) {
      rows.push_back(std::move(r));
      r = host_sys_row{};
      r.v.assign(9, std::nullopt);
      in_record = false;
    }
    return true;
  });
}

void pid_mem_rows(std::string_view text, const std::string& file, std::int64_t pid, detail::file_problems& problems,
                  std::vector<host_sys_row>& rows) {
  bool in_record = false;
  host_sys_row r;
  r.v.assign(3, std::nullopt);
  for_each_line(text, [&](std::string_view l, std::size_t off, bool nl) {
    if (timestamp_line(l)) in_record = true;
    if (in_record) {
      if (l.find("ProcessName") != std::string_view::npos) r.name = process_name(l);
      // ^(\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+): seven whole numbers, single blanks
      const auto f = split(l, ' ');
      bool statm = f.size() >= 7;
      for (std::size_t i = 0; statm && i < 7; ++i) {
        const auto piece = i == 6 ? f[i].substr(0, std::find_if(f[i].begin(), f[i].end(), [](char c) { return !digit(c); }) - f[i].begin()) : f[i];
        statm = !piece.empty() && std::all_of(piece.begin(), piece.end(), digit);
      }
      if (statm) {
        for (std::size_t i = 0; i < 3; ++i) {
          const auto pages = whole(number(f[i]));
          if (pages) r.v[i] = static_cast<double>(*pages);
          else problems.add(at(file, off) + "statm field " + std::to_string(i + 1) + " does not fit in 64 bits; left out");
        }
      } else if (!l.empty() && digit(l[0])) {
        problems.add(at(file, off) + "a statm line that is not seven whole numbers; left out");
      }
    }
    if (l.empty() && nl) {  // the reference ends a row at every blank line
      r.pid = pid;
      rows.push_back(std::move(r));
      r = host_sys_row{};
      r.v.assign(3, std::nullopt);
      in_record = false;
    }
    return true;
  });
}

/// Python's round(v, 3) as str() prints it.
std::string round3(double v) { return py_round(v, 3); }

/// SQLite's sum(x)/count over whole numbers: integer division, NULL ("") when every x is NULL.
std::string int_average(const std::vector<const host_sys_row*>& rows, std::size_t col, std::size_t count) {
  bool any = false;
  i128 sum = 0;
  for (const auto* r : rows)
    if (r->v[col]) {
      any = true;
      sum += static_cast<std::int64_t>(*r->v[col]);  // whole and in range (whole())
    }
  if (!any || count == 0) return {};
  return std::to_string(static_cast<std::int64_t>(sum / static_cast<i128>(count)));
}

struct slice_file {
  std::uint32_t slice = 0;
  std::string path;
  std::int64_t pid = 0;
};

}  // namespace sysu
}  // namespace

std::vector<host_sys_row> parse_host_sys_usage(host_sys_file kind, std::string_view text, const std::string& file,
                                               std::int64_t file_pid, std::vector<std::string>& warnings,
                                               std::string* unit) {
  std::vector<host_sys_row> rows;
  detail::file_problems problems(warnings, file);
  switch (kind) {
    case host_sys_file::sys_cpu: sysu::sys_cpu_rows(text, file, problems, rows); break;
    case host_sys_file::pid_cpu: sysu::pid_cpu_rows(text, file, problems, rows); break;
    case host_sys_file::sys_mem: sysu::sys_mem_rows(text, file, problems, rows, unit); break;
    case host_sys_file::pid_mem: sysu::pid_mem_rows(text, file, file_pid, problems, rows); break;
  }
  return rows;
}

std::vector<table> host_sys_usage_summaries(const std::string& prof_dir, std::vector<std::string>& warnings) {
  std::vector<table> out;
  auto r = detail::open_for_slices(prof_dir, false, "-CpuUsage.data", false);
  if (!r) r = detail::open_for_slices(prof_dir, false, "-Memory.data", false);
  if (!r) r = detail::open_for_slices(prof_dir, false, "host_sys_cpu.data", false);
  if (!r) r = detail::open_for_slices(prof_dir, false, "host_sys_mem.data", false);
  if (!r) return out;
  // Each kind's slices in slice order, as the reference sorts them (then by name).
  std::vector<sysu::slice_file> files[4];
  for (const auto& f : r->files()) {
    if (f.device) continue;
    if (f.module == prof::layout::host_sys_cpu) files[0].push_back({f.slice, f.path, 0});
    else if (f.module == prof::layout::host_sys_mem) files[2].push_back({f.slice, f.path, 0});
    else if (auto p = prof::layout::pid_module(f.module, prof::layout::pid_cpu_usage); !p.empty())
      files[1].push_back({f.slice, f.path, 0});
    else if (auto q = prof::layout::pid_module(f.module, prof::layout::pid_memory); !q.empty())
      files[3].push_back({f.slice, f.path, static_cast<std::int64_t>(std::strtoll(std::string(q).c_str(), nullptr, 10))});
  }
  constexpr std::size_t max_slice = 64u << 20;
  std::string unit;
  std::vector<host_sys_row> rows[4];
  for (std::size_t k = 0; k < 4; ++k) {
    std::sort(files[k].begin(), files[k].end(),
              [](const sysu::slice_file& a, const sysu::slice_file& b) { return a.slice != b.slice ? a.slice < b.slice : a.path < b.path; });
    for (const auto& f : files[k]) {
      bool found = false;
      auto text = prof::read_small_file(f.path, found, max_slice);
      if (!text) {
        warnings.push_back(f.path + ": " + text.err().message + "; slice skipped");
        continue;
      }
      auto got = parse_host_sys_usage(static_cast<host_sys_file>(k), *text, f.path, f.pid, warnings, &unit);
      rows[k].insert(rows[k].end(), std::make_move_iterator(got.begin()), std::make_move_iterator(got.end()));
    }
  }
  detail::slice_warnings(*r, "host_sys_", warnings);

  // cpu_usage: per CPU type (a host's: "host", when info.json has no DeviceInfo) the sums' shares.
  const json::value& device_info = r->host().info.get("DeviceInfo");
  const bool host_type = device_info.is_null() || device_info.size() == 0;
  if (!rows[0].empty() && host_type) {
    double s[6] = {0, 0, 0, 0, 0, 0}, total = 0;
    for (const auto& row : rows[0]) {
      const auto& v = row.v;  // user nice sys idle iowait irq soft steal guest gnice
      const double in[6] = {*v[0], *v[2], *v[4], *v[5], *v[6], *v[3]};
      for (std::size_t i = 0; i < 6; ++i) s[i] += in[i];
      total += *v[0] + *v[1] + *v[2] + *v[3] + *v[4] + *v[5] + *v[6] + *v[7] + *v[8] + *v[9];
    }
    const double t = py_round_value(total, 3);
    table tb{"cpu_usage", {"Device_id", "Cpu Type", "User(%)", "Sys(%)", "IoWait(%)", "Irq(%)", "Soft(%)", "Idle(%)"}, {}};
    table::row row{"host", "host"};
    for (double x : s) row.push_back(sysu::round3(t == 0 ? 0.0 : x / t * 100));
    tb.rows.push_back(std::move(row));
    out.push_back(std::move(tb));
  }

  // process_cpu_usage: per pid 100 * sum(ticks / the system's) / samples, busiest first.
  if (!rows[1].empty()) {
    struct proc {
      std::string name;
      double sum = 0;
      bool any = false;
      std::size_t count = 0;
    };
    std::map<std::int64_t, proc> by_pid;
    for (const auto& row : rows[1]) {
      auto& p = by_pid[*row.pid];
      p.name = row.name;  // the group's last row's, as SQLite's bare column
      ++p.count;
      const double sys = *row.v[4];
      if (sys == 0) continue;  // x / 0 is NULL in SQLite
      p.sum += (*row.v[0] + *row.v[1] + *row.v[2] + *row.v[3]) / sys;
      p.any = true;
    }
    std::vector<std::pair<std::int64_t, const proc*>> order;
    for (const auto& [pid, p] : by_pid) order.emplace_back(pid, &p);
    const auto usage = [](const proc& p) { return 100 * p.sum / static_cast<double>(p.count); };
    std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
      if (a.second->any != b.second->any) return a.second->any;  // NULL sorts last in DESC
      return a.second->any && usage(*a.second) > usage(*b.second);
    });
    table tb{"process_cpu_usage", {"Device_id", "PID", "Name", "CPU(%)"}, {}};
    for (const auto& [pid, p] : order)
      tb.rows.push_back({"host", std::to_string(pid), p->name, p->any ? sysu::round3(usage(*p)) : std::string()});
    out.push_back(std::move(tb));
  }

  // sys_mem: each field's sum over the samples / their count, SQLite's integer division.
  if (!rows[2].empty()) {
    std::vector<const host_sys_row*> all;
    for (const auto& row : rows[2]) all.push_back(&row);
    table tb{"sys_mem", {"Device_id"}, {}};
    for (const char* h : {"Memory Total", "Memory Free", "Buffers", "Cached", "Share Memory", "Commit Limit", "Committed AS"})
      tb.header.push_back(std::string(h) + "(" + unit + ")");
    tb.header.push_back("Huge Pages Total(pages)");
    tb.header.push_back("Huge Pages Free(pages)");
    table::row row{"host"};
    for (std::size_t c = 0; c < 9; ++c) row.push_back(sysu::int_average(all, c, all.size()));
    tb.rows.push_back(std::move(row));
    if (unit.empty()) warnings.push_back(prof_dir + "/host/data: host_sys_mem's first sample has no MemTotal unit; sys_mem is not written");
    else out.push_back(std::move(tb));
  }

  // process_mem: per pid the averaged pages, largest first.
  if (!rows[3].empty()) {
    std::map<std::int64_t, std::vector<const host_sys_row*>> by_pid;
    for (const auto& row : rows[3]) by_pid[*row.pid].push_back(&row);
    struct line {
      std::int64_t pid;
      std::string name, cells[3];
      std::optional<sysu::i128> key;  // the three averages' sum (three 64-bit numbers)
    };
    std::vector<line> lines;
    for (const auto& [pid, group] : by_pid) {
      line l{pid, group.back()->name, {}, std::nullopt};
      sysu::i128 key = 0;
      bool all_whole = true;
      for (std::size_t c = 0; c < 3; ++c) {
        l.cells[c] = sysu::int_average(group, c, group.size());
        if (l.cells[c].empty()) all_whole = false;
        else key += std::strtoll(l.cells[c].c_str(), nullptr, 10);
      }
      if (all_whole) l.key = key;
      lines.push_back(std::move(l));
    }
    std::stable_sort(lines.begin(), lines.end(), [](const line& a, const line& b) {
      if (a.key.has_value() != b.key.has_value()) return a.key.has_value();
      return a.key && *a.key > *b.key;
    });
    table tb{"process_mem", {"Device_id", "PID", "Name", "Size(pages)", "Resident(pages)", "Shared(pages)"}, {}};
    for (const auto& l : lines) tb.rows.push_back({"host", std::to_string(l.pid), l.name, l.cells[0], l.cells[1], l.cells[2]});
    out.push_back(std::move(tb));
  }
  return out;
}

}  // namespace convert
MSPROF_END_NAMESPACE
