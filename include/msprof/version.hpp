// SPDX-License-Identifier: MIT
// msprof version. The top-level VERSION file is the source of truth; a unit test
// checks that these macros agree with it.
#ifndef MSPROF_VERSION_HPP
#define MSPROF_VERSION_HPP

#define MSPROF_VERSION_MAJOR 0
#define MSPROF_VERSION_MINOR 1
#define MSPROF_VERSION_PATCH 0
#define MSPROF_VERSION (MSPROF_VERSION_MAJOR * 10000 + MSPROF_VERSION_MINOR * 100 + MSPROF_VERSION_PATCH)
#define MSPROF_VERSION_STRING "0.1.0"

#if defined(MSPROF_DETAIL_SEEN_VERSION) && MSPROF_DETAIL_SEEN_VERSION != MSPROF_VERSION
#  error "Two different msprof versions are included in one translation unit: use one include/ tree (or one single_include/msprof/mstx.hpp) for the whole program."
#endif
#define MSPROF_DETAIL_SEEN_VERSION MSPROF_VERSION

#endif  // MSPROF_VERSION_HPP
