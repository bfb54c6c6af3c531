// SPDX-License-Identifier: MIT
// CANN msprof's collection options that the launcher accepts: their names,
// the values CANN allows, and what msprof says when one asks for data it
// cannot collect here (docs/cli.md, "CANN's collection options").
#ifndef MSPROF_CLI_CANN_OPTIONS_HPP
#define MSPROF_CLI_CANN_OPTIONS_HPP

#include <string>

namespace msprof_cli {

/// A CANN msprof collection option that msprof accepts without acting on it:
/// its value is checked as CANN checks it and recorded in host/sample.json.
struct cann_option {
  const char* name;
  /// "a|b" one of the words, "lo..hi" a number, "list:a|b" a comma list of the
  /// words, "devices" all or device ids, "hex" 0x event ids, "pid", "text".
  const char* values;
  /// What msprof says when the value asks for data (anything but "off");
  /// nullptr for a setting of another switch (a frequency, a mode).
  const char* note;
  /// Of a list, the words msprof does collect ("a|b"): nothing is said when
  /// the value holds only these.
  const char* collected = nullptr;
};

/// What msprof says when `o` is given the value `v`, or nullptr: nothing to say.
const char* cann_note(const cann_option& o, const std::string& v);

/// The option called `name`, or nullptr.
const cann_option* find_cann_option(const std::string& name);

/// "" when `v` is a value the spec of cann_option::values allows, else what it allows.
std::string cann_value_error(const std::string& spec, const std::string& v);

/// The options as usage lines ("     --name=values ..."), each at most 110 characters.
std::string cann_usage_lines();

}  // namespace msprof_cli

#endif  // MSPROF_CLI_CANN_OPTIONS_HPP
