// SPDX-License-Identifier: MIT
// The one doctest main of the suite (Debian's doctest ships no doctest_with_main).
// A run that was given a test-case filter but ran no test case fails: CTest runs
// each case by name, and a name the filter cannot express must not pass silently.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>

namespace {

int cases_started = 0;

struct count_cases : doctest::IReporter {
  explicit count_cases(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override { ++cases_started; }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("count_cases", 1, count_cases);

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int rc = context.run();
  if (context.shouldExit()) return rc;  // --list-test-cases, --help, ...
  bool filtered = false;
  for (int i = 1; i < argc; ++i)
    filtered = filtered || std::strncmp(argv[i], "-tc=", 4) == 0 || std::strncmp(argv[i], "--test-case=", 12) == 0;
  if (filtered && cases_started == 0) {
    std::fprintf(stderr, "no test case matched the -tc filter (a ';' in a test name breaks CTest's per-case run)\n");
    return 1;
  }
  return rc;
}
