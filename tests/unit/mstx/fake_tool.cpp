// SPDX-License-Identifier: MIT
// A fake mstx tool: InitInjectionMstx fills the table through the Ascend/mstx
// protocol with functions that only log their calls (read back through
// fake_tool_log()).
#include <msprof/mstx.h>

#include <cstdio>
#include <mutex>
#include <string>

namespace {
std::mutex m;
std::string log_text;
unsigned int sizes[4] = {};
void add(const std::string& s) {
  std::lock_guard<std::mutex> l(m);
  log_text += s + ";";
}
struct domain_st {
  char name[64];
};
domain_st domains[8];
int ndomains = 0;

void mark(const char* msg, aclrtStream) { add(std::string("mark:") + (msg ? msg : "(null)")); }
mstxRangeId range_start(const char* msg, aclrtStream) {
  add(std::string("start:") + (msg ? msg : "(null)"));
  return 41;
}
void range_end(mstxRangeId id) { add("end:" + std::to_string(id)); }
void tool_id(uint64_t* id) {
  if (id) *id = MSTX_TOOL_MSSANITIZER_ID;
}
mstxDomainHandle_t domain_create(const char* name) {
  add(std::string("domain:") + name);
  if (ndomains == 8) return nullptr;
  std::snprintf(domains[ndomains].name, sizeof domains[0].name, "%s", name);
  return reinterpret_cast<mstxDomainHandle_t>(&domains[ndomains++]);
}
void domain_mark(mstxDomainHandle_t d, const char* msg, aclrtStream) {
  add(std::string("dmark:") + reinterpret_cast<domain_st*>(d)->name + ":" + msg);
}
mstxMemHeapHandle_t heap_register(mstxDomainHandle_t, const mstxMemHeapDesc_t* desc) {
  auto* r = static_cast<const mstxMemVirtualRangeDesc_t*>(desc->typeSpecificDesc);
  add("heap:" + std::to_string(r->size));
  return reinterpret_cast<mstxMemHeapHandle_t>(0x10);
}
template <class F>
mstxFuncPointer fp(F f) {
  return reinterpret_cast<mstxFuncPointer>(f);
}
}  // namespace

extern "C" __attribute__((visibility("default"))) const char* fake_tool_log() { return log_text.c_str(); }
extern "C" __attribute__((visibility("default"))) unsigned int fake_tool_size(int module) { return sizes[module]; }

extern "C" __attribute__((visibility("default"))) int InitInjectionMstx(mstxGetModuleFuncTableFunc get) {
  mstxFuncTable t = nullptr;
  unsigned int n = 0;
  if (get(MSTX_API_MODULE_CORE, &t, &n) != MSTX_SUCCESS) return MSTX_FAIL;
  sizes[1] = n;
  mstxFuncPointer core[] = {nullptr, fp(&mark), fp(&range_start), fp(&range_end), fp(&tool_id)};
  for (unsigned i = 1; i < 5 && i < n; ++i) *t[i] = core[i];
  if (get(MSTX_API_MODULE_CORE_DOMAIN, &t, &n) == MSTX_SUCCESS) {
    sizes[2] = n;
    if (n > 1) *t[1] = fp(&domain_create);
    if (n > 3) *t[3] = fp(&domain_mark);
  }
  if (get(MSTX_API_MODULE_CORE_MEM, &t, &n) == MSTX_SUCCESS) {
    sizes[3] = n;
    if (n > 1) *t[1] = fp(&heap_register);
  }
  if (get(MSTX_API_MODULE_INVALID, &t, &n) == MSTX_SUCCESS) add("invalid module accepted");
  add("init");
  return MSTX_SUCCESS;
}
