// SPDX-License-Identifier: MIT
// dynamic_profile: torch_npu-style dynamic profiling. A training-like loop calls
// dynamic_profiler::step(); after 5 steps the program edits its own
// profiler_config.json (as a user would from another shell), and the poll thread
// arms a collection: 1 warm-up + 3 active steps, one PROF_ directory, exported.
//   cmake --build build --target examples_dynamic_profile
//   build/bin/examples/dynamic_profile [config dir]   (default ./dynamic_profile_demo; ends in under 1 s)
#include <msprof/session/dynamic_profiler.hpp>
#include <msprof/session/export_handler.hpp>
#include <msprof/mstx.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

namespace session = msprof::session;

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "./dynamic_profile_demo";
  msprof::session::export_handler exporter;  // "analyse": true exports in the loop's thread
  session::dynamic_options opt;
  opt.poll_interval = std::chrono::milliseconds(100);  // torch_npu polls every 2 s; a demo cannot wait that long
  opt.analyse = [&](const std::string& prof_dir, bool) { exporter(prof_dir); };
  opt.on_log = [](const std::string& line) { std::printf("%s\n", line.c_str()); };

  session::dynamic_profiler dp;  // or dp.init_from_env(opt) with PROF_CONFIG_PATH=<dir>
  if (auto r = dp.init(dir, opt); !r) {
    std::fprintf(stderr, "%s\n", r.err().what().c_str());
    return 1;
  }

  session::profiler* seen = nullptr;
  msprof::device::stream_id stream = 0;
  for (int step = 0; step < 40; ++step) {
    if (step == 5) {  // what a user does by hand while the job runs
      std::ofstream(dp.config_path() + ".edit") << R"({
    "activities": ["CPU", "NPU"],
    "prof_dir": ")" << dir << R"(/prof",
    "start_step": -1,
    "warmup": 1,
    "active": 3,
    "analyse": true,
    "experimental_config": {"profiler_level": "Level1", "aic_metrics": "PipeUtilization", "mstx": true},
    "metadata": {"model": "toy_mlp"}
})";
      std::rename((dp.config_path() + ".edit").c_str(), dp.config_path().c_str());
    }
    {
      msprof::scoped_range r{"forward + backward"};
      // Device work goes to the running collection's simulated NPU (none between collections).
      session::profiler* p = dp.active_profiler();
      if (p != seen) {
        seen = p;
        if (p != nullptr) stream = p->device().create_stream().value();
      }
      if (p != nullptr) {
        msprof::device::op_desc op;
        op.name = "MatMul_" + std::to_string(step);
        op.type = "MatMul";
        op.flops = 2.0 * 256 * 1024 * 1024;
        (void)p->device().launch(stream, op);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    dp.step();
    if (step > 5 && !dp.saved_dirs().empty() && !dp.collecting()) break;  // collected and exported
  }
  dp.shutdown();
  for (const auto& d : dp.saved_dirs()) std::printf("saved and exported: %s\n", d.c_str());
  std::printf("config: %s\nlog:    %s\n", dp.config_path().c_str(), dp.log_path().c_str());
  return dp.saved_dirs().empty() ? 1 : 0;
}
