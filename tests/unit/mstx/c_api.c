/* SPDX-License-Identifier: MIT */
/* Compiled as C11: the C API from C, sharing the dispatch table with C++ TUs. */
#include <msprof/mstx.h>
#include <mstx/ms_tools_ext.h>

mstxRangeId c_range_start(const char* msg) { return mstxRangeStartA(msg, NULL); }
void c_range_end(mstxRangeId id) { mstxRangeEnd(id); }
void c_mark(const char* msg) { mstxMarkA(msg, NULL); }
mstxDomainHandle_t c_domain(const char* name) { return mstxDomainCreateA(name); }
void c_domain_mark(mstxDomainHandle_t d, const char* msg) { mstxDomainMarkA(d, msg, NULL); }
uint64_t c_tool_id(void) {
  uint64_t id = 77;
  mstxGetToolId(&id);
  return id;
}
