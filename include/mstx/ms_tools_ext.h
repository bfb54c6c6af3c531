/* SPDX-License-Identifier: MIT */
/* CANN source compatibility: code written for `#include "mstx/ms_tools_ext.h"`
 * compiles unchanged against msprof. MSTX_DISABLE (CANN's switch) maps to
 * MSPROF_DISABLE. */
#ifndef MSPROF_MSTX_MS_TOOLS_EXT_H
#define MSPROF_MSTX_MS_TOOLS_EXT_H
#if defined(MSTX_DISABLE) && !defined(MSPROF_DISABLE)
#  define MSPROF_DISABLE
#endif
#include "../msprof/mstx.h"
#endif /* MSPROF_MSTX_MS_TOOLS_EXT_H */
