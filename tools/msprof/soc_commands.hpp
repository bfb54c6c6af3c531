// SPDX-License-Identifier: MIT
// The SoC flow's commands (docs/soc.md): `msprof collect`, and `export
// timeline|summary` / `show` of JOB directories. main() asks here first.
#ifndef MSPROF_CLI_SOC_COMMANDS_HPP
#define MSPROF_CLI_SOC_COMMANDS_HPP

#include <optional>

#include "args.hpp"

namespace msprof_cli {

/// The exit status when the command line is one of the SoC flow's (collect; an
/// export or show whose -dir is a JOB directory, a directory of them, or looks
/// like a damaged one; an import of a directory of them or of a damaged one),
/// nullopt when it is not (the PROF_ commands, and main's import of a JOB
/// directory, take it).
/// Also the askpass helper `collect` gives ssh (MSPROF_ASKPASS_SOCKET set).
std::optional<int> soc_command(const arg_parser& p);

}  // namespace msprof_cli

#endif  // MSPROF_CLI_SOC_COMMANDS_HPP
