// SPDX-License-Identifier: MIT
// The ABI-tagged inline namespace. Any macro that changes the layout or behaviour
// of shared types adds a tag here, so translation units built with different
// settings can be linked into one program without an ODR violation.
#ifndef MSPROF_CORE_ABI_HPP
#define MSPROF_CORE_ABI_HPP

#include "../config.hpp"
#include "../version.hpp"

#ifdef MSPROF_DISABLE
#  define MSPROF_DETAIL_ABI_TAG_DISABLE _off
#else
#  define MSPROF_DETAIL_ABI_TAG_DISABLE
#endif

#define MSPROF_DETAIL_CONCAT_EX(a, b) a##b
#define MSPROF_DETAIL_CONCAT(a, b) MSPROF_DETAIL_CONCAT_EX(a, b)

#ifndef MSPROF_ABI_NAMESPACE
#  define MSPROF_ABI_NAMESPACE MSPROF_DETAIL_CONCAT(v0_1, MSPROF_DETAIL_ABI_TAG_DISABLE)
#endif

#ifndef MSPROF_BEGIN_NAMESPACE
#  define MSPROF_BEGIN_NAMESPACE \
    namespace msprof {           \
    inline namespace MSPROF_ABI_NAMESPACE {
#  define MSPROF_END_NAMESPACE \
    }                          \
    }
#endif

#endif  // MSPROF_CORE_ABI_HPP
