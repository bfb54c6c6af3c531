// SPDX-License-Identifier: MIT
// The tool core behind the mstx C function table: implementations of every
// mstx API (plus msprof's static-message extension) and `init`, which fills a
// table through the Ascend/mstx getModuleFuncTable protocol. The same `init`
// serves InitInjectionMstx (libmsprof_mstx.so) and the in-process attach
// (msprof_mstx_attach_v0_1) under MSPROF_IMPLEMENT.
#ifndef MSPROF_INSTRUMENT_C_API_HPP
#define MSPROF_INSTRUMENT_C_API_HPP

#include "tool_core.hpp"

MSPROF_BEGIN_NAMESPACE
namespace instrument {

template <class Sink>
struct c_api {
  using core = tool_core<Sink>;

  static void mark_a(const char* m, aclrtStream s) noexcept { core::mark(0, m, false, 0, s); }
  static mstxRangeId range_start_a(const char* m, aclrtStream s) noexcept {
    return core::range_start(0, m, false, 0, s);
  }
  static void range_end(mstxRangeId id) noexcept { core::range_end(0, id); }
  static void get_tool_id(std::uint64_t* id) noexcept {
    if (id != nullptr) *id = MSTX_TOOL_MSPROF_ID;
  }
  static mstxDomainHandle_t domain_create_a(const char* n) noexcept { return core::domain_create(n); }
  static void domain_destroy(mstxDomainHandle_t d) noexcept { core::domain_destroy(d); }
  static void domain_mark_a(mstxDomainHandle_t d, const char* m, aclrtStream s) noexcept {
    std::uint32_t i = 0;
    if (core::resolve(d, i)) core::mark(i, m, false, 0, s);
  }
  static mstxRangeId domain_range_start_a(mstxDomainHandle_t d, const char* m, aclrtStream s) noexcept {
    std::uint32_t i = 0;
    return core::resolve(d, i) ? core::range_start(i, m, false, 0, s) : 0;
  }
  static void domain_range_end(mstxDomainHandle_t d, mstxRangeId id) noexcept {
    std::uint32_t i = 0;
    if (id != 0 && core::resolve(d, i)) core::range_end(i, id);
  }
  static mstxMemHeapHandle_t mem_heap_register(mstxDomainHandle_t d, const mstxMemHeapDesc_t* x) noexcept {
    std::uint32_t i = 0;
    return core::resolve(d, i) ? core::heap_register(i, x) : nullptr;
  }
  static void mem_heap_unregister(mstxDomainHandle_t d, mstxMemHeapHandle_t h) noexcept {
    std::uint32_t i = 0;
    if (core::resolve(d, i)) core::heap_unregister(i, h);
  }
  static void mem_regions_register(mstxDomainHandle_t d, const mstxMemRegionsRegisterBatch_t* x) noexcept {
    std::uint32_t i = 0;
    if (core::resolve(d, i)) core::regions_register(i, x);
  }
  static void mem_regions_unregister(mstxDomainHandle_t d, const mstxMemRegionsUnregisterBatch_t* x) noexcept {
    std::uint32_t i = 0;
    if (core::resolve(d, i)) core::regions_unregister(i, x);
  }
  static void mem_permissions_assign(mstxDomainHandle_t d, const mstxMemPermissionsAssignBatch_t* x) noexcept {
    std::uint32_t i = 0;
    if (core::resolve(d, i)) core::permissions_assign(i, x);
  }
  static void ext_mark_static(mstxDomainHandle_t d, const char* m, std::size_t n) noexcept {
    std::uint32_t i = 0;
    if (core::resolve(d, i)) core::mark(i, m, true, n, nullptr);
  }
  static mstxRangeId ext_range_start_static(mstxDomainHandle_t d, const char* m, std::size_t n) noexcept {
    std::uint32_t i = 0;
    return core::resolve(d, i) ? core::range_start(i, m, true, n, nullptr) : 0;
  }

  // Fills the caller's table; checks outSize before every slot (older msprof
  // numbering had fewer core slots).
  static int init(mstxGetModuleFuncTableFunc get) noexcept { return init_mode(get, true); }
  // As init, but the default-domain mark/range slots (and the static-message
  // extension) stay NULL: while nothing collects, or while "default" is
  // filtered out, those calls cost one load and one branch in the program.
  static int init_without_default(mstxGetModuleFuncTableFunc get) noexcept { return init_mode(get, false); }

  static int init_mode(mstxGetModuleFuncTableFunc get, bool default_events) noexcept {
    if (get == nullptr) return MSTX_FAIL;
    auto fill = [get](int module, std::initializer_list<mstxFuncPointer> fns) {
      mstxFuncTable table = nullptr;
      unsigned int size = 0;
      if (get(static_cast<mstxFuncModule>(module), &table, &size) != MSTX_SUCCESS || table == nullptr)
        return false;
      unsigned int slot = 1;
      for (auto f : fns) {
        if (slot < size && table[slot] != nullptr) *table[slot] = f;
        ++slot;
      }
      return true;
    };
    auto fp = [](auto f) { return reinterpret_cast<mstxFuncPointer>(f); };
    const mstxFuncPointer none = nullptr;
    if (!fill(MSTX_API_MODULE_CORE, {default_events ? fp(&mark_a) : none, default_events ? fp(&range_start_a) : none,
                                     default_events ? fp(&range_end) : none, fp(&get_tool_id)}))
      return MSTX_FAIL;
    fill(MSTX_API_MODULE_CORE_DOMAIN, {fp(&domain_create_a), fp(&domain_destroy), fp(&domain_mark_a),
                                       fp(&domain_range_start_a), fp(&domain_range_end)});
    fill(MSTX_API_MODULE_CORE_MEM, {fp(&mem_heap_register), fp(&mem_heap_unregister), fp(&mem_regions_register),
                                    fp(&mem_regions_unregister), fp(&mem_permissions_assign)});
    fill(MSPROF_MSTX_MODULE_EXT, {default_events ? fp(&ext_mark_static) : none,
                                  default_events ? fp(&ext_range_start_static) : none, fp(&core::quiet_flags)});
    return MSTX_SUCCESS;
  }
};

}  // namespace instrument
MSPROF_END_NAMESPACE

#endif  // MSPROF_INSTRUMENT_C_API_HPP
