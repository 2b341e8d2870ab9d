#include "base/cli_args.h"

#include <charconv>
#include <iostream>
#include <sstream>

namespace base {

std::string ParsedArgs::get(std::string_view name, std::string fallback) const {
  const auto it = options.find(name);
  return it == options.end() ? std::move(fallback) : it->second;
}

ParsedArgs parse_args(const CommandSpec& spec, std::span<char* const> args) {
  ParsedArgs out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg == "--help" || arg == "-h") {
      out.help = true;
      continue;
    }
    if (!arg.starts_with("--")) {
      out.positional.emplace_back(arg);
      continue;
    }
    const std::string_view body = arg.substr(2);
    const std::size_t eq = body.find('=');
    const std::string_view name = body.substr(0, eq);
    const OptionSpec* option = nullptr;
    for (const OptionSpec& o : spec.options) {
      if (o.name == name) option = &o;
    }
    // The caller prints the program's name before a UsageError: the command's alone here.
    const std::string& cmd = spec.name;
    if (!option) {
      throw UsageError(cmd + ": unknown option --" + std::string(name) + " (see " + spec.program + " " + cmd + " --help)");
    }
    if (option->value_name.empty()) {
      if (eq != std::string_view::npos) throw UsageError(cmd + ": --" + std::string(name) + " takes no value");
      out.options[std::string(name)] = "";
    } else if (eq != std::string_view::npos) {
      out.options[std::string(name)] = std::string(body.substr(eq + 1));
    } else if (i + 1 < args.size()) {
      out.options[std::string(name)] = args[++i];
    } else {
      throw UsageError(cmd + ": --" + std::string(name) + " needs a value (" + std::string(option->value_name) + ")");
    }
  }
  return out;
}

std::string help_text(const CommandSpec& spec) {
  std::string text = "usage: " + spec.program + " " + spec.name + " " + spec.synopsis + "\n\n" + spec.description +
                     "\n\noptions:\n";
  for (const OptionSpec& o : spec.options) {
    std::string left = "  --" + o.name;
    if (!o.value_name.empty()) left.append(1, ' ').append(o.value_name);
    left.resize(std::max<std::size_t>(left.size() + 2, 24), ' ');
    text += left + o.help + "\n";
  }
  return text + "  --help                show this help\n";
}

std::optional<ParsedArgs> parse_command(const CommandSpec& spec, std::span<char* const> args) {
  ParsedArgs parsed = parse_args(spec, args);
  if (!parsed.help) return parsed;
  std::cout << help_text(spec);
  return std::nullopt;
}

long long parse_integer(std::string_view text, long long min, long long max, const std::string& what) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    throw UsageError(what + " is '" + std::string(text) + "'; it must be a whole number from " + std::to_string(min) +
                     " to " + std::to_string(max));
  }
  return value;
}

double parse_number(std::string_view text, double min, double max, const std::string& what) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !(value >= min && value <= max)) {
    std::ostringstream range;
    range << min << " to " << max;
    throw UsageError(what + " is '" + std::string(text) + "'; it must be a number from " + range.str());
  }
  return value;
}

std::vector<long long> parse_integers(std::string_view text, long long min, long long max, const std::string& what) {
  std::vector<long long> out;
  std::istringstream words{std::string(text)};
  for (std::string word; words >> word;) out.push_back(parse_integer(word, min, max, what));
  if (out.empty()) throw UsageError(what + " is empty; give whole numbers separated by spaces");
  return out;
}

}  // namespace base
