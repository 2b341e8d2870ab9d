// Command-line options of the subcommands: parsing, and --help text made
// from the same table so that help never drifts from what is accepted.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace base {

// A mistake in what the user typed or configured; main prints it and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs `f`, turning a std::invalid_argument thrown by the layers below the
// command line (a bad CPU list, an unknown preset) into a UsageError.
template <class F>
decltype(auto) usage_checked(F f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

struct OptionSpec {
  std::string name;  // without the leading "--"
  std::string value_name;  // "" for a flag that takes no value
  std::string help;
};

struct CommandSpec {
  std::string name;  // "run"
  std::string synopsis;  // "[--db PATH] ..."
  std::string description;
  std::vector<OptionSpec> options;
  std::string program = "bond_risk";  // the binary, for usage and errors
};

struct ParsedArgs {
  std::map<std::string, std::string, std::less<>> options;  // flags map to ""
  std::vector<std::string> positional;
  bool help = false;

  bool has(std::string_view name) const { return options.count(name) != 0; }
  std::string get(std::string_view name, std::string fallback) const;
};

// Parses `--name VALUE`, `--name=VALUE`, flags and positional arguments.
// Throws UsageError for an unknown option or a missing value.
ParsedArgs parse_args(const CommandSpec& spec, std::span<char* const> args);

std::string help_text(const CommandSpec& spec);

// parse_args, except that with --help it prints help_text to standard output
// and returns nullopt: the command then exits 0.
std::optional<ParsedArgs> parse_command(const CommandSpec& spec, std::span<char* const> args);

// Strict whole-number parsing: all of `text`, within [min, max]; throws
// UsageError naming `what` otherwise.
long long parse_integer(std::string_view text, long long min, long long max, const std::string& what);
// The same for a decimal number, and for a list of whole numbers separated
// by spaces ("1000 5000 10000").
double parse_number(std::string_view text, double min, double max, const std::string& what);
std::vector<long long> parse_integers(std::string_view text, long long min, long long max, const std::string& what);

}  // namespace base
