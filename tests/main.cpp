// SPDX-License-Identifier: MIT
// The one doctest main of the suite (Debian's doctest ships no doctest_with_main).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
