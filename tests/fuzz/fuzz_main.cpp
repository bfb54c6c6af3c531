// SPDX-License-Identifier: MIT
// libFuzzer main shared by every fuzz_<name> target: MSPROF_FUZZ_ENTRY (set by
// tests/fuzz/CMakeLists.txt) names the entry function of targets.hpp.
#include "targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return msprof_fuzz::MSPROF_FUZZ_ENTRY(data, size);
}
