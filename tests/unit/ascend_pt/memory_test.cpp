// SPDX-License-Identifier: MIT
// What `msprof analyse` of a `*_ascend_pt` directory costs in memory, each
// analysis in a child process (its own peak RSS) on generated directories
// (tests/support/generated_pt.hpp). The CANN part is streamed: what analyse
// adds to the PROF_ loader does not grow with the CANN records (second test).
// The framework ops, task-queue spans, op tree, kernels and the db's
// framework rows are streamed too, and so are the allocator records with
// operator_memory's naming and the Python tracer's records: neither export's
// peak grows with them (third test). The first test analyses 1 x and 5 x the ops with their
// launches, text and db, and holds the peak RSS they add per op under a small
// bound (docs/performance.md), so that it does not slip back.
#include <doctest/doctest.h>
#include <sqlite3.h>
#include <msprof/convert/ascend_pt/analyse.hpp>
#include <msprof/convert/load.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "../../support/child_peak_rss.hpp"
#include "../../support/generated_pt.hpp"
#include "../../support/temp_dir.hpp"

namespace fs = std::filesystem;
namespace pt = msprof::convert::ascend_pt;

namespace {

/// SELECT count(*) FROM `from` in the SQLite file `db` (-1 when it cannot be read).
long long count_rows(const fs::path& db, const std::string& from) {
  sqlite3* h = nullptr;
  long long n = -1;
  if (sqlite3_open_v2(db.string().c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, ("SELECT count(*) FROM " + from).c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return n;
}

std::size_t lines_of(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::size_t n = 0;
  for (std::string line; std::getline(f, line);) ++n;
  return n;
}

/// Lines of `p` that start with `prefix`.
std::size_t lines_starting(const fs::path& p, const std::string& prefix) {
  std::ifstream f(p, std::ios::binary);
  std::size_t n = 0;
  for (std::string line; std::getline(f, line);) n += line.rfind(prefix, 0) == 0;
  return n;
}

/// Spill budget of the analyses here: small, so that the sorted runs are full at both sizes.
constexpr std::size_t spill_budget = 1u << 20;

/// Analyses `dir` (export `type`) in a child: its peak RSS.
child_run analyse_in_child(const fs::path& dir, const std::string& type) {
  return run_in_child([&] {
    pt::analyse_options o;
    o.export_type = type;
    o.spill_budget = spill_budget;
    auto a = pt::analyse(dir.string(), o);
    if (!a) std::fprintf(stderr, "%s\n", a.err().what().c_str());
    return static_cast<bool>(a);
  });
}

}  // namespace

TEST_CASE("ascend_pt memory: the peak RSS each framework op adds stays under its budget (text, db)") {
  MSPROF_TEST_SKIP_UNDER_SANITIZERS();
  constexpr std::uint64_t small_ops = 40000, large_ops = 5 * small_ops;
  // Bytes of peak RSS per framework op (with its marks and ~1.8 CANN records),
  // with a 1 MiB spill budget so that the sorted runs are full at both sizes:
  // about 75 (text) and 105 (db), what the PROF_ loader and the CANN part add
  // per CANN record (nothing grows with the framework ops: third test). With
  // the 16 MiB default, about 400 and 580 (the budgets and the CANN db's page
  // cache fill between the two sizes); 520 and 930 before the ops, spans and
  // op tree were streamed; about 1,800 and 2,500 before the streamed tables.
  const struct {
    std::string type;
    double budget;
  } exports[] = {{"text", 150}, {"db", 200}};
  temp_dir d("pt_memory");
  for (const auto& e : exports) {
    double peak[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      const fs::path root = d / (e.type + std::to_string(k));
      const generated_pt::written w = generated_pt::generate(root, k ? large_ops : small_ops);
      const child_run r = analyse_in_child(w.dir, e.type);
      REQUIRE(r.ok);
      // Everything was analysed: one operator_details row per op but the steps.
      const fs::path out = w.dir / "ASCEND_PROFILER_OUTPUT";
      if (e.type == "text") {
        const std::uint64_t steps = (w.marks / 4 + 999) / 1000;
        CHECK(fs::file_size(out / "trace_view.json") > w.ops * 100);
        CHECK(lines_of(out / "operator_details.csv") > (w.ops - steps));  // header + rows, stacks over 2 lines
      } else {
        CHECK(fs::file_size(out / "ascend_pytorch_profiler_0.db") > w.ops * 50);
      }
      peak[k] = r.peak_mib;
      MESSAGE(e.type << ": " << w.ops << " framework ops: peak RSS " << r.peak_mib << " MiB");
      fs::remove_all(root);
    }
    const double per_op = (peak[1] - peak[0]) * 1024.0 * 1024.0 / static_cast<double>(large_ops - small_ops);
    MESSAGE(e.type << ": " << per_op << " bytes of peak RSS per framework op (budget " << e.budget << ")");
    CHECK(per_op < e.budget);
  }
}

TEST_CASE("ascend_pt memory: the CANN part adds nothing that grows with the CANN records (text)") {
  MSPROF_TEST_SKIP_UNDER_SANITIZERS();
  // The PROF_ part is loaded in windows (load_windows, whose own bound
  // tests/unit/convert/memory_test.cpp holds) and analyse keeps its rows and
  // events in sorted runs: with NPU activity only (nothing links framework
  // ops to kernels), what analyse needs beyond the loader must not grow with
  // the CANN records. Holding the CANN model would add ~1 KB a launch: over
  // 150 MiB here. A 1 MiB spill budget makes both sizes spill.
  constexpr std::uint64_t small_launches = 40000, large_launches = 5 * small_launches;
  temp_dir d("pt_cann_flat");
  double added[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const fs::path root = d / ("cann" + std::to_string(k));
    const std::uint64_t launches = k ? large_launches : small_launches;
    const generated_pt::written w = generated_pt::generate(root, 4 * launches);
    fs::remove_all(w.dir / "FRAMEWORK");
    generated_pt::write_framework(w.dir / "FRAMEWORK", 100);  // the same few ops at both sizes
    {
      std::ifstream in(w.dir / "profiler_info_0.json");
      std::string info((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const std::string cpu = "\"ProfilerActivity.CPU\", ";
      REQUIRE(info.find(cpu) != std::string::npos);
      info.erase(info.find(cpu), cpu.size());
      std::ofstream(w.dir / "profiler_info_0.json", std::ios::trunc) << info;
    }
    const child_run loaded = run_in_child([&] {
      auto pd = pt::read_pt_dir(w.dir.string());
      if (!pd) return false;
      msprof::convert::load_options lo;
      lo.spill_budget = spill_budget;
      lo.spill_dir = root.string();
      return static_cast<bool>(msprof::convert::load_windows(pd->prof_dir, lo, [](msprof::convert::model&) {}));
    });
    const child_run r = analyse_in_child(w.dir, "text");
    REQUIRE(loaded.ok);
    REQUIRE(r.ok);
    // Every CANN record was analysed: a kernel_details row per launch (and the header).
    const fs::path out = w.dir / "ASCEND_PROFILER_OUTPUT";
    CHECK(lines_of(out / "kernel_details.csv") == launches + 1);
    CHECK(fs::file_size(out / "trace_view.json") > launches * 300);
    added[k] = r.peak_mib - loaded.peak_mib;
    MESSAGE(w.cann_records << " CANN records: peak RSS " << r.peak_mib << " MiB, the loader alone "
                           << loaded.peak_mib << " MiB");
    fs::remove_all(root);
  }
  // What the sorters hold once their budgets are full, in the two writer
  // threads' malloc arenas, shows only at the large size: ~18 MiB added there
  // (at 10 x the small size ~15 MiB: it does not grow).
  CHECK(added[1] < added[0] * 1.1 + 12);
}

TEST_CASE("ascend_pt memory: the framework ops, task-queue spans, op tree, kernels, allocations and Python tracer records add nothing that grows with them (text, db)") {
  MSPROF_TEST_SKIP_UNDER_SANITIZERS();
  // The ops and the task-queue spans are kept in temporary files past the
  // spill budget (spilled_list), the op tree is built in one pass with a stack
  // of the open ops, each launch's kernels meet the enqueues through sorted
  // runs, the operator_details rows and torch_to_npu flows wait in sorted
  // runs, and trace_view names the enqueues through sorted runs; the db's
  // PYTORCH_API rows, their ids and the binding of calls to ops go through
  // sorted runs too; so do operator_memory's blocks and their naming (the op
  // tree answers it in its pass; the db's OP_MEMORY and MEMORY_RECORD too),
  // memory_record's rows and the Python
  // tracer's records: with the same CANN data, 5 x the ops, marks, allocations
  // and tracer records must not raise the peak RSS. Holding them would add
  // ~350 bytes an op (text) and ~1 KB (db): over 50 MiB here; the allocator
  // and tracer records, held, ~800 bytes a launch (text): over 30 MiB. A 1 MiB
  // spill budget makes both sizes spill.
  constexpr std::uint64_t small_launches = 10000, large_launches = 5 * small_launches;
  temp_dir d("pt_ops_flat");
  for (const std::string type : {"text", "db"}) {
    double peak[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      const fs::path root = d / ("ops" + type + std::to_string(k));
      const generated_pt::written w = generated_pt::generate(root, 4 * 2000);  // the same CANN data at both sizes
      fs::remove_all(w.dir / "FRAMEWORK");
      const std::uint64_t launches = k ? large_launches : small_launches;
      const std::uint64_t ops = generated_pt::write_framework(w.dir / "FRAMEWORK", launches);
      const child_run r = analyse_in_child(w.dir, type);
      REQUIRE(r.ok);
      const fs::path out = w.dir / "ASCEND_PROFILER_OUTPUT";
      if (type == "text") {
        // Every op was analysed: an operator_details row per op but the steps
        // (each over 3 lines: shapes and stack hold line breaks) and trace events
        // for the ops and the spans.
        const std::uint64_t steps = (launches + 999) / 1000;
        CHECK(lines_of(out / "operator_details.csv") == 1 + 3 * (ops - steps));
        CHECK(fs::file_size(out / "trace_view.json") > ops * 200 + launches * 2 * 250 + launches * 2 * 150);
        // Each launch's two allocations named after its aten::mm: on the Python
        // thread by the op running, on the launching thread through the
        // dequeue's enqueue. memory_record: a PTA and a PTA+GE row per record.
        CHECK(lines_of(out / "operator_memory.csv") == 1 + 2 * launches);
        CHECK(lines_starting(out / "operator_memory.csv", "aten::mm,") == 2 * launches);
        CHECK(lines_of(out / "memory_record.csv") == 1 + 2 * 5 * launches);
      } else {
        // A PYTORCH_API row per op, enqueue, dequeue and Python function (2 a
        // launch); the 2,000 launches with CANN data each bound to its aten::mm
        // (a connection of its own).
        CHECK(count_rows(out / "ascend_pytorch_profiler_0.db", "PYTORCH_API") == static_cast<long long>(ops + 4 * launches));
        CHECK(count_rows(out / "ascend_pytorch_profiler_0.db",
                         "PYTORCH_API WHERE type = 50001 AND connectionId IS NOT NULL") == 2000);
        // The allocations as in the text: MEMORY_RECORD and OP_MEMORY.
        CHECK(count_rows(out / "ascend_pytorch_profiler_0.db", "MEMORY_RECORD") ==
              static_cast<long long>(2 * 5 * launches));
        CHECK(count_rows(out / "ascend_pytorch_profiler_0.db", "OP_MEMORY") == static_cast<long long>(2 * launches));
      }
      peak[k] = r.peak_mib;
      MESSAGE(type << ": " << ops << " framework ops: peak RSS " << r.peak_mib << " MiB");
      fs::remove_all(root);
    }
    // The margin: a FRAMEWORK file is decoded 4 MiB at a time, and at the
    // larger size the task-queue marks fill a whole piece (~5 MiB of records).
    CHECK(peak[1] < peak[0] * 1.1 + 8);
  }
}
