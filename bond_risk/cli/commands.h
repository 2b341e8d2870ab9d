// The subcommands of bin/bond_risk. Each takes the arguments after its name,
// returns the process exit code, and throws UsageError for bad usage and
// std::runtime_error for anything else that stops it.
#pragma once

#include <span>

namespace bond_risk {

int generate_command(std::span<char* const> args);
int run_command(std::span<char* const> args);
int show_command(std::span<char* const> args);
int plot_command(std::span<char* const> args);
int scenarios_command(std::span<char* const> args);
int send_command(std::span<char* const> args);
int bench_events_command(std::span<char* const> args);
int bench_load_command(std::span<char* const> args);
int web_command(std::span<char* const> args);
int explain_command(std::span<char* const> args);
int import_command(std::span<char* const> args);

}  // namespace bond_risk
