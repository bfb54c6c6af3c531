// SPDX-License-Identifier: MIT
// The msprof command: export / import / show on PROF_ directories, and the
// collection launcher (--application). Flags follow CANN's msprof; unlike
// Huawei's tool, every failure exits non-zero with one message naming the file.
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <msprof/convert/export.hpp>
#include <msprof/convert/hccl_analyze.hpp>
#include <msprof/convert/show.hpp>
#include <msprof/convert/soc/import.hpp>
#include <msprof/core/output_file.hpp>
#include <msprof/prof/host_sampler.hpp>
#include <msprof/prof/staging.hpp>
#include <msprof/session/buffer_options.hpp>
#include <msprof/session/output_path.hpp>
#include <msprof/session/session_config.hpp>
#include <msprof/version.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "args.hpp"
#include "cann_options.hpp"
#include "console.hpp"
#include "dynamic.hpp"
#include "process_tree.hpp"
#include "progress_bar.hpp"
#include "reports.hpp"
#include "soc_commands.hpp"

namespace fs = std::filesystem;
namespace cv = msprof::convert;

using namespace msprof_cli;

namespace {

constexpr const char* usage_text =
    "usage:\n"
    "  msprof export timeline|summary|db[,...] -dir <PROF_ dir or parent> [options]\n"
    "      --model-id=N --iteration-id=N   select one iteration (model-id 4294967295 = step mode)\n"
    "      --iteration-count=N             1..5 iterations from --iteration-id\n"
    "      --format=csv|json               summary file format (default csv); JSON msprof_tx and step_trace\n"
    "                                      summaries are written as <name>_summary_<ts>.json\n"
    "      --clear                         delete intermediate data (host/, device_N/ sqlite)\n"
    "      -reports=cfg.json               export only the listed reports ({\"reports\":[\"op_summary\",...]})\n"
    "      --timeline-format=msprof|chrome chrome: a viewer-safe Chrome trace instead of msprof_<ts>.json\n"
    "      --timeline-max-size=MiB         split the chrome trace into parts above this size\n"
    "      --strict                        treat data warnings (truncated slices...) as errors\n"
    "      --db=on|off                     timeline and summary also write msprof_<ts>.db, as CANN's\n"
    "                                      exports do (default on)\n"
    "  export, import, show and analyse also take:\n"
    "      --collection-dir=<dir>          the long form of -dir (CANN's spelling)\n"
    "      -h, --help                      this text\n"
    "      -q, --quiet                     no progress display\n"
    "      --progress                      progress even when stderr is not a terminal or CI is set\n"
    "                                      (then a plain line every 2 s instead of a redrawn bar)\n"
    "  msprof analyse -dir <*_ascend_pt dir or parent> [--export-type text|db] [--data-simplification on|off]\n"
    "      torch_npu profiler directories: write ASCEND_PROFILER_OUTPUT/ as torch_npu's analysis does\n"
    "      (several at a time); --data-simplification: delete the CANN intermediate data afterwards\n"
    "      (default: profiler_info's _data_simplification)\n"
    "  msprof import -dir <dir>            check and load a collection, print what it holds\n"
    "  msprof show -dir <dir> [--top=N]    op summary top-N, op statistic, API statistic, frequency\n"
    "                                      (*_ascend_pt dirs: framework operators and steps first)\n"
    "  msprof [options] --application=\"cmd args\"   or   msprof [options] <program> [args]\n"
    "      run the program with mstx collection attached, then export timeline, summaries and db\n"
    "      --output=DIR                    parent of the PROF_ directory (default: the current directory)\n"
    "      --mstx=on|off, --msproftx=on|off  record the program's mstx calls (default on)\n"
    "      --mstx-domain-include=a,b | --mstx-domain-exclude=a,b\n"
    "      --aic-metrics=PipeUtilization   recorded in sample.json\n"
    "      --storage-limit=<n>MB  --buffer-size=1MB  --buffer-limit=64MB  --buffer-full=grow|block|drop\n"
    "      --staging=on|off                on (default): mstx events staged compactly while collecting, msproftx\n"
    "                                      slices made after the program's exit; off: msproftx records as it runs\n"
    "      --environment=\"K=V;K2=V2\"      environment variables for the program\n"
    "      --dynamic=on                    start without collecting; start / stop / quit on stdin, one PROF_ dir\n"
    "                                      per start..stop (CANN's dynamic profiling, launch mode)\n"
    "      --layout=cann|ascend_pt|ascend_ms  ascend_pt: torch_npu's {worker}_{pid}_{ts}_ascend_pt directory around\n"
    "                                      the PROF_ one (FRAMEWORK/ from msprof::record_function), analysed into\n"
    "                                      ASCEND_PROFILER_OUTPUT/ after the run; ascend_ms: MindSpore's name\n"
    "      --record-shapes=on|off  --with-stack=on|off  --profile-memory=on|off\n"
    "                                      torch_npu's switches for those layouts: off drops record_function's\n"
    "                                      input shapes and dtypes, its call stacks, the memory events (default on)\n"
    "      --export=on|off                 off: only print the PROF_ directory, for a later `msprof export`\n"
    "      --chrome-trace=on|off           also chrome_trace_<ts>.json, the form Chrome DevTools and Perfetto draw\n"
    "                                      (default on, for collections up to 1 GiB of data)\n"
    "      --type=text|db                  what the export writes: text = timeline, summaries and db; db = the db\n"
    "      --summary-format=csv|json  --reports=FILE  --clear=on|off  --model-id=N --iteration-id=N  (as export)\n"
    "  msprof --dynamic=on --pid=<pid> --output=DIR\n"
    "      attach to a program started with MSTX_INJECTION_PATH and PROFILING_MODE=dynamic: start / stop / quit\n"
    "      on stdin, then export what it collected (docs/cli.md, Dynamic profiling)\n"
    "  msprof --export=on | --parse=on | --query=on | --analyze=on --output=<PROF_ dir or parent> [--type=...]\n"
    "      CANN's work on collected data: export it (options as above); parse and query check it and print\n"
    "      what it holds (as import); analyze: communication.json, communication_matrix.json and\n"
    "      communication_analyzer.db of the HCCL collectives into <PROF_>/analyze/ (--rule=communication,\n"
    "      communication_matrix)\n"
    "  msprof collect -m <main> [--config <ssh.ini>] [--interval N] [--acl_api on|off] [--aacpu on|off]\n"
    "                 [--switch on|off] [--aac_metrics M] [--output DIR] [--all]\n"
    "      the SoC flow (docs/soc.md): run <main> with an acl.json profiler section, here or on the board\n"
    "      the ini file names (ssh), bring its JOB directories into --output; --all exports them.\n"
    "      export timeline|summary, import and show also take a JOB directory as -dir (msprof show -dir JOB... -h)\n"
    "  msprof -h | --help | --version\n";


/// False, said once, when `dir` does not exist or is not a directory (the one
/// wording of every command that takes -dir).
bool existing_dir_or_fail(const std::string& dir) {
  std::error_code ec;
  const char* wrong = !fs::exists(dir, ec) ? "no such directory" : !fs::is_directory(dir, ec) ? "not a directory" : nullptr;
  if (wrong) fail(dir + ": " + wrong);
  return wrong == nullptr;
}

/// The PROF_ directories `dir` names (a warning for each link skipped); on none,
/// the one message every command gives (printed here), with the directory to use
/// when `dir` is inside one.
std::optional<std::vector<std::string>> prof_dirs_or_fail(const std::string& dir) {
  if (!existing_dir_or_fail(dir)) return std::nullopt;
  std::error_code ec;
  std::vector<std::string> skipped;  // PROF_* links in a parent: not followed
  auto dirs = cv::find_prof_dirs(dir, &skipped);
  for (const auto& w : skipped) say_warning(w);
  if (!dirs.empty()) return dirs;
  std::string msg = dir + ": no PROF_ directory found (expected PROF_* with host/ or device_N/)";
  const fs::path start = fs::absolute(dir, ec).lexically_normal();
  for (fs::path q = start; !q.empty() && q != q.root_path(); q = q.parent_path()) {
    if (q.filename().string().rfind("PROF_", 0) == 0) {
      msg += "; it is inside the collection " + q.string() + ": give -dir " + q.string();
      break;
    }
  }
  fail(msg);
  return std::nullopt;
}


/// What `export` writes: the kinds named (several in one pass over the data), or
/// all (the launcher's export after a run; export_options::text and ::db choose).
struct what {
  cv::export_parts parts;
  bool all = false;
};


/// The staging a collection left turned into msproftx slices before reading
/// (prof/staging.hpp): the launcher's program closes it at exit for the
/// launcher to convert (said nothing of), a killed run leaves it (said); false
/// (said) when one cannot be read.
bool recover_staged(const std::vector<std::string>& dirs) {
  bool ok = true;
  for (const auto& d : dirs) {
    auto r = msprof::prof::recover_staging(d);
    if (!r) {
      say_error(r.err().what() + " (the staging of a stopped collection; its mstx events are not exported)");
      ok = false;
      continue;
    }
    if (!r->found) continue;
    for (const auto& w : r->staged.warnings) say_warning(w);
    if (r->complete) continue;
    say_warning(d + ": " + std::to_string(r->staged.events) + " mstx event(s) (" + std::to_string(r->staged.calls) +
                " calls) recovered from the staging a stopped collection left");
  }
  return ok;
}

/// Exports PROF_ directories, two at a time on two cores; reports in their order.
int export_dirs(const std::vector<std::string>& dirs, what w, const cv::export_options& opt, const progress_flags& pf) {
  if (!recover_staged(dirs)) return 1;
  std::vector<std::optional<msprof::result<cv::export_result>>> results(dirs.size());
  int rc = 0;
  progress bar(pf, dirs);
  for_each_dir(
      bar,
      [&](std::size_t k) {
        cv::export_options o = opt;
        o.bytes_read = bar.bytes(k);
        results[k] = w.all ? cv::export_all(dirs[k], o) : cv::export_parts_of(dirs[k], o, w.parts);
      },
      [&](std::size_t k) {
        const auto& r = *results[k];
        if (!r) {
          say_error(r.err().what());
          rc = 1;
          return;
        }
        for (const auto& wmsg : r->warnings) say_warning(wmsg);
        for (const auto& f : r->files) say_out(f);
        for (const auto& f : r->files) {
          if (fs::path(f).filename().string().rfind("chrome_trace_", 0) != 0) continue;
          console::get().say(std::cerr, "msprof: to look at it, open " + f +
                                            " in Chrome DevTools (Performance panel, \"Load profile\") or at "
                                            "https://ui.perfetto.dev; MindStudio Insight reads msprof_*.json and the .db");
          break;
        }
      });
  return rc;
}

int run_export(const std::string& dir, what w, const cv::export_options& opt, const progress_flags& pf) {
  const auto found = prof_dirs_or_fail(dir);
  return found ? export_dirs(*found, w, opt, pf) : 1;
}

int cmd_export(arg_parser& p) {
  if (p.done()) return usage_error("export needs timeline, summary or db");
  // timeline, summary, db, or several joined by commas: one pass writes them all.
  const std::string kinds = p.args[p.i++];
  what w;
  for (std::size_t from = 0; from <= kinds.size();) {
    const std::size_t comma = std::min(kinds.find(',', from), kinds.size());
    const std::string kind = kinds.substr(from, comma - from);
    if (kind == "timeline")
      w.parts.timeline = true;
    else if (kind == "summary")
      w.parts.summary = true;
    else if (kind == "db")
      w.parts.db = true;
    else
      return usage_error("unknown export type '" + kind + "' (timeline, summary or db, or several joined by commas)");
    from = comma + 1;
  }
  cv::export_options opt;
  std::string dir;
  std::optional<std::uint32_t> max_mib;
  progress_flags pf;
  bool db_beside = true;  // timeline and summary also write the db, as CANN's exports do
  while (!p.done()) {
    bool err = false;
    if (pf.take(p, err)) {
    } else if (auto v = p.take_dir(err)) {
      dir = *v;
    } else if (auto vdb = p.take("db", true, err)) {
      if (*vdb != "on" && *vdb != "off") return usage_error("--db must be on or off, got '" + *vdb + "'");
      db_beside = *vdb == "on";
    } else if (auto v2 = p.take("model-id", true, err)) {
      opt.model_id = parse_u32(*v2);
      if (!opt.model_id) return usage_error("--model-id needs a number, got '" + *v2 + "'");
    } else if (auto v3 = p.take("iteration-id", true, err)) {
      opt.iteration_id = parse_u32(*v3);
      if (!opt.iteration_id) return usage_error("--iteration-id needs a number, got '" + *v3 + "'");
    } else if (auto v4 = p.take("iteration-count", true, err)) {
      auto n = parse_u32(*v4);
      if (!n || *n < 1 || *n > 5) return usage_error("--iteration-count must be 1..5, got '" + *v4 + "'");
      opt.iteration_count = *n;
    } else if (auto v5 = p.take("format", true, err)) {
      if (*v5 != "csv" && *v5 != "json") return usage_error("--format must be csv or json, got '" + *v5 + "'");
      opt.format = *v5;
    } else if (auto v6 = p.take("clear", false, err)) {
      opt.clear = *v6 != "off";
    } else if (auto v7 = p.take("reports", true, err)) {
      if (auto r = read_reports(*v7, opt); !r) return fail(r.err().what());
    } else if (auto v8 = p.take("timeline-format", true, err)) {
      if (*v8 == "chrome")
        opt.chrome = true;
      else if (*v8 != "msprof")
        return usage_error("--timeline-format must be msprof or chrome, got '" + *v8 + "'");
    } else if (auto mx = p.take("timeline-max-size", true, err)) {
      max_mib = parse_u32(*mx);
      if (!max_mib || *max_mib == 0) return usage_error("--timeline-max-size needs a size in MiB, got '" + *mx + "'");
    } else if (auto v9 = p.take("strict", false, err)) {
      opt.strict = *v9 != "off";
    } else {
      return usage_error("unknown option '" + p.args[p.i] + "'");
    }
    if (err) return usage_error("option '" + p.args[p.i - 1] + "' needs a value");
  }
  if (dir.empty()) return usage_error("export needs -dir <PROF_ dir>");
  if (opt.model_id.has_value() != opt.iteration_id.has_value())
    return usage_error("--model-id and --iteration-id go together");
  if (max_mib && !opt.chrome) return usage_error("--timeline-max-size needs --timeline-format=chrome");
  if (max_mib) opt.chrome_options.max_part_bytes = static_cast<std::uint64_t>(*max_mib) << 20;
  if (db_beside && (w.parts.timeline || w.parts.summary)) w.parts.db = true;
  return run_export(dir, w, opt, pf);
}

/// import and show only read: their sorted runs go to the temporary directory.
cv::load_options read_only() {
  cv::load_options lo;
  std::error_code ec;
  lo.spill_dir = fs::temp_directory_path(ec).string();
  if (ec) lo.spill_dir = "/tmp";
  return lo;
}

int import_dirs(const std::string& dir, const progress_flags& pf);

int cmd_import(arg_parser& p) {
  std::string dir;
  progress_flags pf;
  while (!p.done()) {
    bool err = false;
    if (pf.take(p, err)) {
    } else if (auto v = p.take_dir(err)) {
      dir = *v;
    } else {
      return usage_error("unknown option '" + p.args[p.i] + "'");
    }
    if (err) return usage_error("option '" + p.args[p.i - 1] + "' needs a value");
  }
  if (dir.empty()) return usage_error("import needs -dir <PROF_ dir>");
  if (cv::soc::is_job_dir(dir)) {  // a SoC JOB directory (docs/soc.md): JOB/sqlite/*.db
    auto r = cv::soc::import_job(dir);
    if (!r) return say_error(r.err().what()), 1;
    for (const auto& w : r->warnings) say_warning(w);
    for (const auto& f : r->files) say_out(f);
    return 0;
  }
  return import_dirs(dir, pf);
}

/// Loads and checks each collection `dir` names; one line each saying what it holds.
int import_dirs(const std::string& dir, const progress_flags& pf) {
  const auto found = prof_dirs_or_fail(dir);
  if (!found || !recover_staged(*found)) return 1;
  const auto& dirs = *found;
  int rc = 0;
  progress bar(pf, dirs);
  for (std::size_t k = 0; k < dirs.size(); ++k) {
    cv::collection_counts n;
    cv::load_options lo = read_only();
    lo.bytes_read = bar.bytes(k);
    auto m = cv::load_windows(dirs[k], lo, [&](cv::model& w) { n.add(w); });
    bar.finish(k);
    if (!m) {
      say_error(m.err().what());
      rc = 1;
      continue;
    }
    for (const auto& w : m->warnings) say_warning(w);
    say_out(dirs[k] + ": " + cv::collection_summary(*m, n));
  }
  return rc;
}

int cmd_show(arg_parser& p) {
  std::string dir;
  std::size_t top = 10;
  progress_flags pf;
  while (!p.done()) {
    bool err = false;
    if (pf.take(p, err)) {
    } else if (auto v = p.take_dir(err)) {
      dir = *v;
    } else if (auto t = p.take("top", true, err)) {
      auto n = parse_u32(*t);
      if (!n) return usage_error("--top needs a number");
      top = *n;
    } else {
      return usage_error("unknown option '" + p.args[p.i] + "'");
    }
    if (err) return usage_error("option needs a value");
  }
  if (dir.empty()) return usage_error("show needs -dir <PROF_ dir>");
  // torch_npu / MindSpore directories: each one's framework view, then its PROF_ part.
  const auto framework_dirs = cv::ascend_pt::find_pt_dirs(dir);
  std::vector<std::string> dirs;
  if (framework_dirs.empty()) {
    const auto found = prof_dirs_or_fail(dir);
    if (!found) return 1;
    dirs = *found;
  }
  for (const auto& f : framework_dirs)
    for (auto& d : cv::find_prof_dirs(f)) dirs.push_back(std::move(d));
  if (!recover_staged(dirs)) return 1;
  const bool bold = isatty(STDOUT_FILENO) != 0;
  int rc = 0;
  const auto show_framework = [&](const std::string& prof) {
    const auto parent = fs::path(prof).parent_path().string();
    if (std::find(framework_dirs.begin(), framework_dirs.end(), parent) == framework_dirs.end()) return;
    std::vector<std::string> warnings;
    auto text = cv::ascend_pt::show_text(parent, top, bold, warnings);
    for (const auto& w : warnings) say_warning(w);
    if (!text) {
      say_error(text.err().what());
      rc = 1;
      return;
    }
    say_out(*text);
  };
  progress bar(pf, dirs);
  for (std::size_t k = 0; k < dirs.size(); ++k) {
    show_framework(dirs[k]);
    cv::load_options lo = read_only();
    lo.bytes_read = bar.bytes(k);
    cv::show_collector c(top, lo.spill_dir);
    auto m = cv::load_windows(dirs[k], lo, [&](cv::model& w) { c.add(w); });
    std::vector<std::string> host_warnings;
    auto text = m ? c.text(*m, isatty(STDOUT_FILENO) != 0, host_warnings) : msprof::result<std::string>(m.err());
    bar.finish(k);
    if (!text) {
      say_error(text.err().what());
      rc = 1;
      continue;
    }
    for (const auto& w : m->warnings) say_warning(w);
    for (const auto& w : host_warnings) say_warning(w);
    if (!text->empty()) say_out(*text);
  }
  for (const auto& f : framework_dirs)
    if (cv::find_prof_dirs(f).empty()) rc = fail(f + ": no PROF_* directory (the CANN part of the collection)");
  return rc;
}

std::string self_dir() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return ".";
  return p.parent_path().string();
}

#ifndef MSPROF_BIN_TO_LIBDIR
#define MSPROF_BIN_TO_LIBDIR "../lib"
#endif

/// libmsprof_mstx.so beside the launcher: <bindir>/MSPROF_BIN_TO_LIBDIR (the
/// relative path from the install bindir to the install libdir, set by the build),
/// then <bindir>/../lib (the build tree). {true, path} or {false, the dirs tried}.
std::pair<bool, std::string> injection_library() {
  std::vector<std::string> dirs;
  for (const char* rel : {MSPROF_BIN_TO_LIBDIR, "../lib"}) {
    const std::string dir = (fs::path(self_dir()) / rel).lexically_normal().string();
    if (std::find(dirs.begin(), dirs.end(), dir) != dirs.end()) continue;
    dirs.push_back(dir);
    const std::string lib = (fs::path(dir) / "libmsprof_mstx.so").string();
    std::error_code ec;
    if (fs::exists(lib, ec)) return {true, lib};
  }
  std::string tried;
  for (const auto& d : dirs) tried += (tried.empty() ? "" : ", ") + d;
  return {false, tried};
}


/// The usage text, with CANN's collection options msprof accepts.
std::string usage() {
  return std::string(usage_text) +
         "  the launcher also accepts CANN's collection options (docs/cli.md: what each does here):\n" +
         cann_usage_lines();
}

/// `w` as one word for /bin/sh (quoted only when it needs to be, so messages show it as typed).
std::string shell_word(const std::string& w) {
  const char* plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+-@%";
  if (!w.empty() && w.find_first_not_of(plain) == std::string::npos) return w;
  std::string q = "'";
  for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

int bad_value(const std::string& flag, const std::string& expected, const std::string& got) {
  return usage_error(flag + " must be " + expected + ", got '" + got + "'");
}

/// Options that only a collection uses (not --export=on and the like on collected data).
bool collection_only(const std::string& name) {
  static const std::set<std::string> names = {
      "mstx",          "msproftx",    "mstx-domain-include", "mstx-domain-exclude", "aic-metrics",
      "storage-limit", "buffer-size", "buffer-limit",        "buffer-full",         "environment",
      "layout",        "staging",     "record-shapes",       "with-stack",          "profile-memory"};
  return names.count(name) != 0 || find_cann_option(name) != nullptr;
}

/// Options that set up the program's collection through its environment: with
/// --pid the program is already running with its own.
bool program_setting(const std::string& name) {
  static const std::set<std::string> names = {"mstx-domain-include", "mstx-domain-exclude", "aic-metrics",
                                              "storage-limit",       "buffer-size",         "buffer-limit",
                                              "buffer-full",         "environment",         "layout",
                                              "staging",             "record-shapes",       "with-stack",
                                              "profile-memory"};
  return names.count(name) != 0;
}

/// What one `msprof analyse` did, said: its error, or its warnings and files. 1 on an error.
int say_analysis(const msprof::result<cv::ascend_pt::analyse_result>& r) {
  if (!r) {
    say_error(r.err().what());
    return 1;
  }
  for (const auto& w : r->warnings) say_warning(w);
  for (const auto& f : r->files) say_out(f);
  return 0;
}

/// CANN's `msprof --export=on | --parse=on | --query=on | --analyze=on --output=DIR`
/// with no program: works on the collections in DIR (a PROF_ directory or its parent).
int use_collected(const std::string& dir, bool export_on, bool parse, bool query, bool analyze,
                  const cv::export_options& eo, const std::string& collect_flag,
                  cv::hccl::analyze_options ao = {}) {
  if (int(export_on) + int(parse) + int(query) + int(analyze) > 1)
    return usage_error("--export=on, --parse, --query and --analyze go one at a time");
  if (!collect_flag.empty())
    return usage_error(collect_flag + " is an option of a collection: give the program to run");
  if (dir.empty()) return usage_error("give the collection as --output=<PROF_ dir or its parent>");
  if (export_on) return run_export(dir, what{{}, true}, eo, progress_flags{});
  // msprof reads the raw data directly: parse and query check it and say what it holds.
  if (parse || query) return import_dirs(dir, progress_flags{});
  // analyze: the communication analysis of each collection into its analyze/.
  const auto dirs = prof_dirs_or_fail(dir);
  if (!dirs) return 1;
  ao.text = eo.text;
  int rc = 0;
  for (const auto& d : *dirs) {
    auto r = cv::hccl::write_analysis(d, ao);
    if (!r) {
      say_error(r.err().what());
      rc = 1;
      continue;
    }
    for (const auto& w : r->warnings) say_warning(w);
    for (const auto& f : r->files) say_out(f);
  }
  return rc;
}

int cmd_launch(arg_parser& p) {
  std::string output, application, include, exclude, metrics, storage, layout, staging;
  std::map<std::string, std::string> buffer_flags;  // "size" / "limit" / "full" -> text
  msprof::session::buffer_options buffers;
  bool mstx = true, export_data = true, export_on = false, parse = false, query = false, analyze = false,
       chrome_trace = true;
  // torch_npu's record_shapes, with_stack, profile_memory: what the framework layouts keep
  bool record_shapes = true, with_stack = true, profile_memory = true;
  cv::export_options eo;    // --type, --summary-format, --reports, --clear, --model-id, --iteration-id
  cv::hccl::analyze_options ao;  // --rule
  std::string collect_flag;  // the first option that only a collection uses
  std::string setting_flag;  // the first one that sets the program's collection up (not with --pid)
  std::optional<pid_t> attach_pid;  // --pid: CANN's attach mode of --dynamic
  // on|off switches; msproftx is CANN's name of mstx
  const std::map<std::string, bool*> switches = {
      {"mstx", &mstx},     {"msproftx", &mstx}, {"export", &export_data}, {"clear", &eo.clear},
      {"parse", &parse},   {"query", &query},   {"analyze", &analyze}, {"chrome-trace", &chrome_trace},
      {"record-shapes", &record_shapes}, {"with-stack", &with_stack}, {"profile-memory", &profile_memory}};
  std::vector<std::pair<std::string, std::string>> cann;  // accepted cann_options, in command-line order
  std::vector<std::pair<std::string, std::string>> app_env;  // --environment
  std::vector<std::string> program;                          // msprof [options] <program> [args]
  while (!p.done()) {
    const std::string arg = p.args[p.i];
    if (arg == "-h" || arg == "--help") {
      std::cout << usage();
      return 0;
    }
    if (arg.empty() || arg[0] != '-') {  // the program and its arguments: the rest is theirs
      program.assign(p.args.begin() + static_cast<std::ptrdiff_t>(p.i), p.args.end());
      break;
    }
    bool err = false;
    const auto taken = p.take_any(err);
    const std::string &name = taken.first, &v = taken.second;
    const std::string flag = "--" + name;
    if (err) return usage_error("option '" + arg + "' needs a value");
    if (collect_flag.empty() && collection_only(name)) collect_flag = flag;
    if (setting_flag.empty() && program_setting(name)) setting_flag = flag;
    if (name == "output") {
      output = v;
    } else if (name == "application") {
      application = v;
    } else if (const auto sw = switches.find(name); sw != switches.end()) {
      if (v != "on" && v != "off") return bad_value(flag, "on or off", v);
      *sw->second = v == "on";
      if (name == "export") export_on = v == "on";
    } else if (name == "type") {  // CANN: text writes the db as well
      if (v != "text" && v != "db") return bad_value(flag, "text or db", v);
      eo.text = v == "text";
    } else if (name == "summary-format") {
      if (v != "csv" && v != "json") return bad_value(flag, "csv or json", v);
      eo.format = v;
    } else if (name == "reports") {
      if (auto r = read_reports(v, eo); !r) return fail(r.err().what());
    } else if (name == "model-id" || name == "iteration-id") {
      const auto n = parse_u32(v);
      if (!n) return bad_value(flag, "a number", v);
      (name == "model-id" ? eo.model_id : eo.iteration_id) = n;
    } else if (name == "rule") {  // of --analyze
      if (const auto expected = cann_value_error("list:communication|communication_matrix", v); !expected.empty())
        return bad_value(flag, expected, v);
      ao.communication = ao.matrix = false;
      for (const auto& r : split(v, ',')) (r == "communication" ? ao.communication : ao.matrix) = true;
    } else if (name == "python-path") {
      // CANN's analysis runs in Python; msprof's needs none.
    } else if (name == "environment") {  // CANN's KEY=VALUE;KEY=VALUE for the program
      for (const auto& kv : split(v, ';')) {
        const auto eq = kv.find('=');
        if (eq == 0 || (eq == std::string::npos && !kv.empty())) return bad_value(flag, "KEY=VALUE[;KEY=VALUE...]", v);
        if (!kv.empty()) app_env.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
      }
    } else if (name == "pid") {  // CANN's attach mode of --dynamic
      const auto n = parse_u32(v);
      if (!n || *n == 0 || *n > 0x7fffffffu)
        return bad_value(flag, "one process id (msprof attaches to one program at a time)", v);
      attach_pid = static_cast<pid_t>(*n);
    } else if (name == "mstx-domain-include") {
      include = v;
    } else if (name == "mstx-domain-exclude") {
      exclude = v;
    } else if (name == "aic-metrics") {
      metrics = v;
    } else if (name == "layout") {  // msprof's own: torch_npu's / MindSpore's directory around the PROF_ one
      if (!msprof::session::parse_output_layout(v)) return bad_value(flag, "cann, ascend_pt or ascend_ms", v);
      layout = v;
    } else if (name == "storage-limit") {
      storage = v;
    } else if (name == "staging") {
      if (v != "on" && v != "off") return bad_value(flag, "on or off", v);
      staging = v;
    } else if (name == "buffer-size" || name == "buffer-limit" || name == "buffer-full") {
      buffer_flags[name.substr(7)] = v;
    } else if (const cann_option* o = find_cann_option(name)) {
      if (const auto expected = cann_value_error(o->values, v); !expected.empty()) return bad_value(flag, expected, v);
      // Given twice: the last value counts.
      auto same = std::find_if(cann.begin(), cann.end(), [&](const auto& kv) { return kv.first == name; });
      if (same != cann.end())
        same->second = v;
      else
        cann.emplace_back(name, v);
    } else {
      return usage_error("unknown option '" + arg + "'");
    }
  }
  if (!program.empty()) {
    if (!application.empty()) return usage_error("the program is given twice: by --application and after the options");
    for (const auto& w : program) application += (application.empty() ? "" : " ") + shell_word(w);
  }
  if (eo.model_id.has_value() != eo.iteration_id.has_value())
    return usage_error("--model-id and --iteration-id go together");
  eo.chrome_too = chrome_trace;  // something a viewer draws, after every run
  bool dynamic = false, window = false;  // --dynamic=on; --delay / --duration
  for (const auto& [name, v] : cann) {
    dynamic |= name == "dynamic" && v == "on";
    window |= name == "delay" || name == "duration";
  }
  if (dynamic && window) return usage_error("--dynamic=on cannot be used with --delay or --duration (as in CANN)");
  // --host-sys=cpu,mem,disk,network: the program's usage; --host-sys-usage=cpu,mem: the system's and the
  // program's processes' (CANN's files); every 1/--host-sys-usage-freq s (CANN's default 50 Hz).
  msprof::prof::host_sampler::parts host_sys;
  unsigned host_hz = 50;
  for (const auto& [name, v] : cann) {
    if (name == "host-sys")
      for (const auto& w : split(v, ',')) host_sys.set(w);
    if (name == "host-sys-usage")
      for (const auto& w : split(v, ',')) host_sys.set_usage(w);
    if (name == "host-sys-usage-freq") host_hz = *parse_u32(v);
  }
  if (attach_pid) {
    if (!dynamic) return usage_error("--pid attaches dynamic profiling to a running program: it needs --dynamic=on");
    if (!application.empty()) return usage_error("--pid attaches to a running program: give no program to run");
    if (!setting_flag.empty())
      return usage_error(setting_flag + ": with --pid the program's own environment sets up its collection "
                                        "(MSPROF_* variables, docs/configuration.md)");
    if (parse || query || analyze) return usage_error("--parse, --query and --analyze do not go with --pid");
    if (!mstx) return usage_error("--mstx=off / --msproftx=off: with --pid the program records its mstx calls, nothing else");
  }
  if (application.empty() && !attach_pid && (export_on || parse || query || analyze))
    return use_collected(output, export_on, parse, query, analyze, eo, collect_flag, ao);
  if (parse || query || analyze)
    return usage_error("--parse, --query and --analyze work on collected data: give --output=<dir> and no program");
  if (application.empty() && !attach_pid)
    return usage_error("--application=\"cmd args\" (or the program after the options) is required");
  if (output.empty()) output = fs::current_path().string();
  if (!include.empty() && !exclude.empty())
    return usage_error("--mstx-domain-include and --mstx-domain-exclude cannot be used together");
  if (!metrics.empty() && metrics != "PipeUtilization" && metrics != "ArithmeticUtilization" &&
      metrics != "Memory" && metrics != "MemoryL0" && metrics != "MemoryUB" && metrics != "ResourceConflictRatio" &&
      metrics != "L2Cache" && metrics != "MemoryAccess")
    return usage_error("unknown --aic-metrics '" + metrics + "'");
  if (!storage.empty()) {
    std::string n = storage;
    if (n.size() > 2 && (n.compare(n.size() - 2, 2, "MB") == 0 || n.compare(n.size() - 2, 2, "mb") == 0))
      n.resize(n.size() - 2);
    if (!parse_u32(n) || *parse_u32(n) < 200)
      return usage_error("--storage-limit must be <n>MB with n >= 200, got '" + storage + "'");
  }
  for (const auto& [which, text] : buffer_flags)
    if (auto bad = msprof::session::parse_buffer_setting(buffers, which, text, "--buffer-" + which); !bad.empty())
      return usage_error(bad);
  if (auto bad = msprof::session::check_buffer_options(buffers); !bad.empty()) return usage_error(bad);
  std::error_code ec;
  // The collector's rule for MSPROF_OUTPUT, checked here too so that both agree
  // (docs/configuration.md, "Output safety").
  const std::string abs_output = fs::absolute(output, ec).string();
  if (auto bad = msprof::session::check_output_path(abs_output); !bad.empty()) return fail(bad);
  auto out_dir = msprof::outfile::dir::make(abs_output);
  if (!out_dir) return fail(out_dir.err().message);
  std::string lib;
  if (mstx && !attach_pid) {
    const auto found = injection_library();
    if (!found.first) return fail("injection library libmsprof_mstx.so not found in " + found.second +
                                  " (install msprof completely)");
    lib = found.second;
  }

  // Said once, before the program runs: what a CANN user asked for and does not get here.
  std::string cann_record;  // MSPROF_CANN_OPTIONS: name=value;...
  for (const auto& [name, v] : cann) {
    if (const char* note = cann_note(*find_cann_option(name), v)) console::get().say(std::cerr, "msprof: --" + name + "=" + v + ": " + note);
    cann_record += (cann_record.empty() ? "" : ";") + name + "=" + v;
  }
  if (attach_pid && host_sys.any())
    say_warning("--host-sys / --host-sys-usage: not sampled with --pid (msprof samples a program it runs)");

  std::map<std::string, fs::file_time_type> before;
  for (const auto& e : fs::directory_iterator(output, ec)) before[e.path().filename().string()] = e.last_write_time(ec);

  std::optional<dynamic_control> control;  // --dynamic=on: how start / stop reach every process of the run
  if (dynamic) {
    auto made = attach_pid ? dynamic_control::attach(*attach_pid, abs_output) : dynamic_control::create(*out_dir);
    if (!made) return fail(made.err().message);
    control.emplace(std::move(*made));
  }
  int status = 0, windows = 0;
  if (attach_pid) {
    application = "process " + std::to_string(*attach_pid);  // for the messages below
    const pid_t pid = *attach_pid;
    interactive([pid]() -> std::optional<int> {
      if (process_alive(pid)) return std::nullopt;
      return 0;
    }, *control, windows, "the program runs on; msprof exports what it collected");
    // Its last collection is closed (and on disk) once it has acted on the last command.
    if (!control->wait_acted(pid, std::chrono::seconds(30)))
      say_warning(application + " did not close its last collection within 30 s; exporting what is on disk");
  }
  const auto launch_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::steady_clock::now().time_since_epoch())
                             .count();
  pid_t child = -1;  // --pid: none of ours
  if (!attach_pid && (child = fork()) < 0) return fail(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    for (const auto& kv : app_env) setenv(kv.first.c_str(), kv.second.c_str(), 1);  // msprof's own come after
    if (mstx) setenv("MSTX_INJECTION_PATH", lib.c_str(), 1);
    setenv("MSPROF_OUTPUT", abs_output.c_str(), 1);
    unsetenv("PROFILING_MODE");  // attach mode's (--pid): a launched program collects as the launcher says
    if (!include.empty()) setenv("MSPROF_MSTX_DOMAIN_INCLUDE", include.c_str(), 1);
    if (!exclude.empty()) setenv("MSPROF_MSTX_DOMAIN_EXCLUDE", exclude.c_str(), 1);
    if (!metrics.empty()) setenv("MSPROF_AIC_METRICS", metrics.c_str(), 1);
    if (!layout.empty()) setenv("MSPROF_LAYOUT", layout.c_str(), 1);
    if (!storage.empty()) setenv("MSPROF_STORAGE_LIMIT", storage.c_str(), 1);
    if (!staging.empty()) setenv("MSPROF_STAGING", staging.c_str(), 1);
    for (const auto& [env, on] : {std::pair{"MSPROF_RECORD_SHAPES", record_shapes}, std::pair{"MSPROF_WITH_STACK", with_stack},
                                  std::pair{"MSPROF_PROFILE_MEMORY", profile_memory}})
      setenv(env, on ? "on" : "off", 1);
    // The program's exit only closes its staging; the slices are made below, after it.
    setenv("MSPROF_STAGING_CONVERT", "launcher", 1);
    if (buffer_flags.count("size")) setenv("MSPROF_BUFFER_SIZE", buffer_flags["size"].c_str(), 1);
    if (buffer_flags.count("limit")) setenv("MSPROF_BUFFER_LIMIT", buffer_flags["limit"].c_str(), 1);
    if (buffer_flags.count("full")) setenv("MSPROF_BUFFER_FULL", buffer_flags["full"].c_str(), 1);
    if (!cann_record.empty()) setenv("MSPROF_CANN_OPTIONS", cann_record.c_str(), 1);
    // --delay / --duration: the window every process of the run collects in, from now.
    for (const auto& [name, v] : cann)
      if (name == "delay" || name == "duration") setenv(name == "delay" ? "MSPROF_DELAY" : "MSPROF_DURATION", v.c_str(), 1);
    setenv("MSPROF_LAUNCH_NS", std::to_string(launch_ns).c_str(), 1);
    if (control) control->in_child();
    execl("/bin/sh", "sh", "-c", application.c_str(), static_cast<char*>(nullptr));
    std::fprintf(stderr, "msprof: error: cannot run /bin/sh: %s\n", std::strerror(errno));
    _exit(127);
  }
  std::unique_ptr<msprof::prof::host_sampler> sampler;
  if (child > 0 && host_sys.any()) {  // the shell the program runs under, and its descendants
    auto started = msprof::prof::host_sampler::start([child] { return process_tree(child); }, host_sys,
                                                     msprof::prof::host_sampler::period_of(host_hz));
    if (started) sampler = std::move(*started);
    else say_warning(started.err().what() + " (--host-sys: the program runs unsampled)");
  }
  std::optional<int> ended;  // --dynamic: the program ended in the interactive mode
  if (control && !attach_pid)
    ended = interactive([child]() -> std::optional<int> {
      int st = 0;
      if (waitpid(child, &st, WNOHANG) == child) return st;
      return std::nullopt;
    }, *control, windows, "the application runs on, msprof waits for it to end");
  if (ended) status = *ended;
  while (!ended && !attach_pid && waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return fail(std::string("waitpid: ") + std::strerror(errno));
  }
  control.reset();  // the control file goes
  if (sampler) sampler->stop();
  int app_rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);

  // Every PROF_ directory the run created, one per process that collected (with
  // --layout, the *_ascend_pt / *_ascend_ms directories, which hold them), by name.
  const bool framework = !layout.empty() && layout != "cann" && layout != "prof";
  const std::string suffix = "_" + layout;
  const auto made_by_run = [&](const std::string& name) {
    if (!framework) return name.rfind("PROF_", 0) == 0;
    return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  std::vector<std::string> made;
  for (const auto& e : fs::directory_iterator(output, ec)) {
    const auto name = e.path().filename().string();
    if (e.is_symlink(ec) || !e.is_directory(ec) || !made_by_run(name) || before.count(name)) continue;
    made.push_back(e.path().string());
  }
  std::sort(made.begin(), made.end());
  if (made.empty() && dynamic && windows == 0)
    return fail(output + ": no collection was started (--dynamic=on: type start, later stop), nothing collected");
  if (made.empty()) {
    if (app_rc != 0) return fail("application '" + application + "' exited with status " + std::to_string(app_rc) +
                                 " and left no PROF_ directory in " + output);
    return fail(output + ": the application left no PROF_ directory (did it make any mstx call?)");
  }
  if (made.size() > 1)
    console::get().say(std::cerr, "msprof: " + std::to_string(made.size()) +
                                      (dynamic ? " collections (start..stop, in each process that collected): "
                                               : " processes of the application collected: ") +
                                      std::to_string(made.size()) + " directories in " + output +
                                      (export_data ? ", each exported" : ""));
  // Each collection's staging becomes its msproftx slices now, exported or
  // not: the PROF_ directory is then what Huawei's parser reads.
  for (const auto& d : made) {
    const auto profs = framework ? cv::find_prof_dirs(d) : std::vector<std::string>{d};
    if (!recover_staged(profs)) return 1;
    for (const auto& prof : profs)  // each collection of the run shows the program's usage
      if (auto w = sampler ? sampler->write_into(prof) : msprof::result<void>{}; !w)
        say_warning(w.err().what() + " (--host-sys: the host usage of " + prof + " is missing)");
  }
  int rc = 0;
  if (export_data && framework) {
    for (const auto& d : made)  // ASCEND_PROFILER_OUTPUT/, as `msprof analyse` writes it
      if (say_analysis(cv::ascend_pt::analyse(d)) != 0) rc = 1;
  } else if (export_data) {
    rc = export_dirs(made, what{{}, true}, eo, progress_flags{});
  } else {
    for (const auto& d : made) std::cout << d << "\n";  // --export=off: collected only; `msprof export ... -dir` later
  }
  if (app_rc != 0) return fail("application '" + application + "' exited with status " + std::to_string(app_rc) +
                               " (data in " + (made.size() == 1 ? made[0] : output) +
                               (export_data ? " was exported)" : ")"));
  return rc;
}

}  // namespace

/// msprof analyse: torch_npu *_ascend_pt directories (docs/torch_npu.md).
int cmd_analyse(arg_parser& p) {
  std::string dir;
  cv::ascend_pt::analyse_options opt;
  progress_flags pf;
  while (!p.done()) {
    bool err = false;
    if (pf.take(p, err)) {
    } else if (auto v = p.take_dir(err)) {
      dir = *v;
    } else if (auto t = p.take("export-type", true, err)) {
      opt.export_type = *t;
    } else if (auto ds = p.take("data-simplification", true, err)) {
      if (*ds != "on" && *ds != "off")
        return usage_error("--data-simplification must be on or off, got '" + *ds + "'");
      opt.data_simplification = *ds == "on";
    } else {
      return usage_error("unknown option '" + p.args[p.i] + "'");
    }
    if (err) return usage_error("option '" + p.args[p.i - 1] + "' needs a value");
  }
  if (dir.empty()) return usage_error("analyse needs -dir <*_ascend_pt dir>");
  if (!opt.export_type.empty() && opt.export_type != "text" && opt.export_type != "db")
    return usage_error("--export-type must be text or db, got '" + opt.export_type + "'");
  if (!existing_dir_or_fail(dir)) return 1;
  const auto dirs = cv::ascend_pt::find_pt_dirs(dir);
  if (dirs.empty()) return fail(dir + ": no *_ascend_pt directory found");
  for (const auto& d : dirs)
    if (!recover_staged(cv::find_prof_dirs(d))) return 1;
  std::vector<std::optional<msprof::result<cv::ascend_pt::analyse_result>>> results(dirs.size());
  int rc = 0;
  progress bar(pf, dirs, cv::ascend_pt::input_bytes);
  for_each_dir(
      bar,
      [&](std::size_t k) {
        cv::ascend_pt::analyse_options o = opt;
        o.bytes_read = bar.bytes(k);
        results[k] = cv::ascend_pt::analyse(dirs[k], o);
      },
      [&](std::size_t k) {
        if (say_analysis(*results[k]) != 0) rc = 1;
      });
  return rc;
}

int main(int argc, char** argv) {
  arg_parser p;
  for (int i = 1; i < argc; ++i) p.args.emplace_back(argv[i]);
  if (p.args.empty()) {
    std::cerr << "msprof: no command given\n" << usage();
    return 2;
  }
  try {
    if (auto soc = soc_command(p)) return *soc;  // collect; export / show of JOB directories (docs/soc.md)
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what());
  }
  const std::string& first = p.args[0];
  const bool subcommand =
      first == "export" || first == "import" || first == "show" || first == "analyse" || first == "analyze";
  for (std::size_t k = 0; k < (subcommand ? p.args.size() : 1); ++k) {  // `msprof export timeline -h` too
    const std::string& a = p.args[k];
    if (a == "-h" || a == "--help" || a == "help") {
      std::cout << usage();
      return 0;
    }
  }
  if (first == "--version" || first == "-v" || first == "version") {
    std::cout << "msprof " << MSPROF_VERSION_STRING << "\n";
    return 0;
  }
  try {
    if (first == "export") {
      p.i = 1;
      return cmd_export(p);
    }
    if (first == "analyse" || first == "analyze") {
      p.i = 1;
      return cmd_analyse(p);
    }
    if (first == "import") {
      p.i = 1;
      return cmd_import(p);
    }
    if (first == "show") {
      p.i = 1;
      return cmd_show(p);
    }
    if (first.rfind("-", 0) == 0) return cmd_launch(p);
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what());
  }
  std::cerr << "msprof: unknown command '" << first << "'\n" << usage();
  return 2;
}
