// SPDX-License-Identifier: MIT
// cann_style: a program written against CANN's mstx header exactly as CANN
// documents it, with no msprof-specific code. It builds against msprof's
// include/mstx/ms_tools_ext.h (or CANN's own); the msprof launcher profiles it
// through MSTX_INJECTION_PATH and exports timeline, summaries and db:
//   cmake --build build --target examples_cann_style msprof_cli msprof_mstx
//   build/bin/msprof --output=out --mstx=on --application=build/bin/examples/cann_style
#include "mstx/ms_tools_ext.h"

#include <chrono>
#include <cstdio>
#include <thread>

namespace {

void train_step(mstxDomainHandle_t domain, int step) {
  char message[64];
  std::snprintf(message, sizeof message, "step %d", step);
  mstxRangeId step_range = mstxRangeStartA(message, nullptr);

  mstxRangeId forward = mstxDomainRangeStartA(domain, "forward", nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  mstxDomainRangeEnd(domain, forward);

  mstxRangeId backward = mstxDomainRangeStartA(domain, "backward", nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  mstxDomainRangeEnd(domain, backward);

  mstxDomainMarkA(domain, "optimizer", nullptr);
  mstxRangeEnd(step_range);
}

}  // namespace

int main() {
  mstxDomainHandle_t domain = mstxDomainCreateA("model");
  for (int step = 0; step < 5; ++step) train_step(domain, step);
  mstxMarkA("training done", nullptr);
  mstxDomainDestroy(domain);

  uint64_t tool = 0;
  mstxGetToolId(&tool);
  std::printf("cann_style: 5 steps, profiler tool id 0x%llx\n", static_cast<unsigned long long>(tool));
  return 0;
}
