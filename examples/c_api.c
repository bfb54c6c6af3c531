/* SPDX-License-Identifier: MIT */
/* c_api: a plain C11 program using <msprof/mstx.h>, CANN's mstx C API.
 * Shows default-domain marks and ranges, a named domain, and registering a
 * memory heap and a region so the profiler can attribute device memory.
 * The functions are static inline: nothing to link, no clash with CANN's library.
 *   cmake --build build --target examples_c_api msprof_cli msprof_mstx
 *   build/bin/msprof --output=out --application=build/bin/examples/c_api */
#include <msprof/mstx.h>

#include <stdio.h>
#include <stdlib.h>

static double sum_squares(const double* v, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += v[i] * v[i];
  return s;
}

int main(void) {
  enum { n = 1 << 16 };
  double* buffer = malloc(n * sizeof *buffer);
  if (buffer == NULL) return 1;
  for (size_t i = 0; i < n; ++i) buffer[i] = (double)i / n;

  mstxDomainHandle_t domain = mstxDomainCreateA("c_example");

  /* The heap and one region inside it, as a memory pool would announce them. */
  mstxMemVirtualRangeDesc_t heap_range = {0, buffer, n * sizeof *buffer};
  mstxMemHeapDesc_t heap_desc = {MSTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR, MSTX_MEM_TYPE_VIRTUAL_ADDRESS, &heap_range};
  mstxMemHeapHandle_t heap = mstxMemHeapRegister(domain, &heap_desc);
  mstxMemVirtualRangeDesc_t region_range = {0, buffer, (n / 2) * sizeof *buffer};
  mstxMemRegionHandle_t region = NULL;
  mstxMemRegionsRegisterBatch_t regions = {heap, MSTX_MEM_TYPE_VIRTUAL_ADDRESS, 1, &region_range, &region};
  mstxMemRegionsRegister(domain, &regions);

  mstxMarkA("start", NULL);
  double total = 0;
  for (int round = 0; round < 4; ++round) {
    mstxRangeId id = mstxDomainRangeStartA(domain, "sum_squares", NULL);
    total += sum_squares(buffer, n);
    mstxDomainRangeEnd(domain, id);
  }
  mstxRangeId tail = mstxRangeStartA("cleanup", NULL);

  mstxMemRegionRef_t ref = {.refType = MSTX_MEM_REGION_REF_TYPE_HANDLE, .handle = region};
  mstxMemRegionsUnregisterBatch_t unregister = {1, &ref};
  mstxMemRegionsUnregister(domain, &unregister);
  mstxMemHeapUnregister(domain, heap);
  mstxDomainDestroy(domain);
  free(buffer);
  mstxRangeEnd(tail);

  printf("c_api: total %.3f\n", total);
  return 0;
}
