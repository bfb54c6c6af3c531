// SPDX-License-Identifier: MIT
// Communication analysis of the linked HCCL collectives (hccl.hpp): per
// collective its time split (transit, wait, synchronization, idle), its
// bandwidth per link kind with the size distribution, and its rank-to-rank
// matrix; CANN's analyze/communication.json and communication_matrix.json.
// docs/formats.md, "Communication analysis", has the rules; the hccl_allreduce
// golden case (expected/analyze) their reference output.
#ifndef MSPROF_CONVERT_HCCL_ANALYZE_HPP
#define MSPROF_CONVERT_HCCL_ANALYZE_HPP

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "../core/abi.hpp"
#include "../core/error.hpp"
#include "hccl.hpp"

MSPROF_BEGIN_NAMESPACE
namespace convert {
namespace hccl {

/// A number the reference starts as the integer 0 and turns into a float the
/// first time it adds to or sets it: the JSON prints "0" or "0.0" accordingly.
struct py_num {
  double v = 0;
  bool is_float = false;
  void add(double x) { v += x; is_float = true; }
  void set(double x) { v = x; is_float = true; }
};

/// Bandwidth of one link kind.
struct link_bandwidth {
  py_num size_mb, time_ms, bandwidth, large_packet_ratio;
  /// Per transfer size (MB, in order of first use): count and total ms.
  std::vector<std::pair<double, std::pair<std::uint64_t, double>>> sizes;
};

/// Link kinds in the reference's order: RDMA, HCCS, PCIE, SDMA (the sum of
/// HCCS, PCIE and SIO plus its own), SIO.
constexpr std::array<const char*, 5> link_kinds{"RDMA", "HCCS", "PCIE", "SDMA", "SIO"};

/// One collective's (or the total's) analysis.
struct op_analysis {
  std::string name;   ///< collective name; "Total HCCL Operators" for the total
  std::string group;  ///< group hash as a decimal number; "" for the total
  py_num start_us, elapse_ms, transit_ms, wait_ms, sync_ms, idle_ms, wait_ratio, sync_ratio;
  std::array<link_bandwidth, 5> bandwidth;  ///< by link_kinds
};

/// One src-dst link of a collective's matrix.
struct matrix_link {
  std::string key;        ///< "<src rank>-<dst rank>"
  int transport = -1;     ///< 0 HCCS, 1 PCIE, 2 RDMA, 3 LOCAL, 4 SIO, -1 unknown (null)
  double size_mb = 0, time_ms = 0;
  std::uint64_t packets = 0, large_packets = 0;
};
struct op_matrix {
  std::string name, group;  ///< as in op_analysis
  std::vector<matrix_link> links;
};

struct analysis {
  std::vector<op_analysis> ops;  ///< by first task, the total last
  std::vector<op_matrix> matrix; ///< by first task, the total last
};

/// The analysis of one device's collectives from their tasks starting at or
/// after `collection_start_ns` (the reference's analyze step; "" ops without
/// master tasks are left out). Empty without tasks.
analysis analyze(const communication& c, std::uint32_t device_id, std::int64_t collection_start_ns);
/// analyze() of the lowest-numbered device with tasks (the one torch_npu's
/// files describe); empty without tasks.
analysis analyze_first_device(const communication& c, std::int64_t collection_start_ns);

/// communication.json / communication_matrix.json ("" for an empty analysis).
std::string communication_json(const analysis& a);
std::string communication_matrix_json(const analysis& a);

/// Transport name of matrix_link::transport; nullptr for unknown.
const char* matrix_transport_name(int transport) noexcept;

/// communication_analyzer.db's tables (CommAnalyzerTime, CommAnalyzerBandwidth,
/// CommAnalyzerMatrix): their CREATE statements and rows, the total left out.
struct analyzer_table {
  std::string name, create;
  std::vector<std::vector<std::variant<std::int64_t, double, std::string, std::monostate>>> rows;
};
std::vector<analyzer_table> analyzer_tables(const analysis& a);

/// A step of torch_npu's analysis: its id ("" for the one step of a
/// collection without steps: "step") and its span, local ns, both ends in.
struct pt_step {
  std::string id;
  std::int64_t start_ns = 0, end_ns = INT64_MAX;
};

/// torch_npu's ASCEND_PROFILER_OUTPUT/communication.json and
/// communication_matrix.json, made from the analysis as torch_npu makes them
/// from CANN's files: per step ("step<id>") the collectives starting in it,
/// split into "p2p" (send / receive / batchsendrecv) and "collective", each
/// with a "Total Op Info"; the matrix per op type and group as top1 / middle /
/// bottom1..3 / total by bandwidth. No steps: one step "step" with them all.
/// Both "" for an empty analysis.
struct pt_files {
  std::string communication, matrix;
};
pt_files pt_communication_json(const analysis& a, const std::vector<pt_step>& steps);

/// analysis.db's CommAnalyzerBandwidth / CommAnalyzerMatrix / CommAnalyzerTime
/// as torch_npu makes them from communication_analyzer.db: the rows of the
/// collectives starting in a step with its name and type (p2p / collective)
/// appended; the matrix integrated as in pt_communication_json (op name the
/// integrated name, op_name the collective's).
std::vector<analyzer_table> pt_analyzer_tables(const analysis& a, const std::vector<pt_step>& steps);

/// `msprof analyse`'s one call: torch_npu's communication.json and
/// communication_matrix.json of the linked collectives (the lowest-numbered
/// device's, as write_analysis) into the existing directory `out_dir`
/// (ASCEND_PROFILER_OUTPUT), split by `steps`; nothing without collectives.
/// Returns the paths written.
result<std::vector<std::string>> write_pt_communication(const std::string& out_dir, const communication& c,
                                                        std::int64_t collection_start_ns,
                                                        const std::vector<pt_step>& steps);

/// What write_analysis() did.
struct analyze_written {
  std::vector<std::string> files;     ///< paths written
  std::vector<std::string> warnings;  ///< of the linking; devices left out
};

/// What `msprof --analyze=on` writes: --type (text: the JSON files and the db;
/// db: the db only) and --rule (communication, communication_matrix).
struct analyze_options {
  bool text = true;
  bool communication = true;  ///< communication.json, CommAnalyzerTime / CommAnalyzerBandwidth
  bool matrix = true;         ///< communication_matrix.json, CommAnalyzerMatrix
};

/// `msprof --analyze=on` on one PROF_ directory: streams it through the HCCL
/// collector, analyses the lowest-numbered device holding collectives and
/// writes <prof_dir>/analyze/communication.json, communication_matrix.json
/// and communication_analyzer.db. Nothing (and a warning) without HCCL data.
result<analyze_written> write_analysis(const std::string& prof_dir, const analyze_options& o = {});

}  // namespace hccl
}  // namespace convert
MSPROF_END_NAMESPACE

#endif  // MSPROF_CONVERT_HCCL_ANALYZE_HPP
