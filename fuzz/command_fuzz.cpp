// libFuzzer target: the command parser and the error reply. Any line either
// parses or is refused with a CommandError whose reply is valid JSON; a
// parsed command formats to a line that parses back to the same line.
// Built and run by `make fuzz`.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "base/json.h"
#include "bond_risk/protocol/command.h"
#include "bond_risk/protocol/messages.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string line(reinterpret_cast<const char*>(data), size);
  try {
    const bond_risk::Command command = bond_risk::parse_command(line);
    const std::string text = bond_risk::format_command(command);
    if (bond_risk::format_command(bond_risk::parse_command(text)) != text) std::abort();
  } catch (const bond_risk::CommandError& e) {
    if (!base::Json::accept(bond_risk::protocol::error_line(e.what()))) std::abort();
  }
  return 0;
}
