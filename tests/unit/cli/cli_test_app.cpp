// SPDX-License-Identifier: MIT
// A program with mstx calls and nothing msprof-specific, for the launcher test.
#include <msprof/mstx.h>

#include <chrono>
#include <thread>

int main() {
  mstxMarkA("hello launcher", nullptr);
  const mstxRangeId r = mstxRangeStartA("work", nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  mstxRangeEnd(r);
  mstxDomainHandle_t net = mstxDomainCreateA("net");
  mstxDomainMarkA(net, "net mark", nullptr);
  return 0;
}
