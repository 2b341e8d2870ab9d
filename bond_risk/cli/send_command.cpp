#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <atomic>
#include <thread>

#include "base/cli_args.h"
#include "base/json.h"
#include "bond_risk/cli/commands.h"
#include "bond_risk/cli/settings.h"
#include "bond_risk/protocol/command.h"
#include "bond_risk/protocol/messages.h"
#include "base/unix_socket.h"

namespace bond_risk {

namespace {

base::CommandSpec spec() {
  return {
      "send",
      "[--socket PATH] [--db PATH] [--conf PATH] [COMMAND ARGS...]",
      "Sends one command to the running engine and prints its JSON reply; with no command, sends the lines\n"
      "of standard input (one command each, pipelined) and prints their replies, and the updates of\n"
      "watched nodes and the alerts of watched limits as they come. On a terminal each reply is indented\n"
      "JSON; into a pipe or a file, one line each, as the engine sent it (--raw and --pretty choose).\n"
      "Exits 1 if any reply is not ok, or if the engine closed the connection before replying to every\n"
      "command (which may or may not have been applied: see its event_log).\n\n"
      "commands:\n" +
          commands_help(),
      {
          kSocketOption,
          kServedDbOption,
          kConfOption,
          {"raw", "", "one JSON line per reply, as the engine sent it (the default into a pipe or a file)"},
          {"pretty", "", "each reply as indented JSON (the default on a terminal)"},
      },
  };
}

}  // namespace

int send_command(std::span<char* const> args) {
  const std::optional<Invocation> invoked = invocation(spec(), args);
  if (!invoked) return 0;
  const base::ParsedArgs& a = invoked->args;
  const Settings& settings = invoked->settings;
  if (a.has("raw") && a.has("pretty")) throw base::UsageError("send: --raw and --pretty exclude each other");
  const bool pretty = a.has("pretty") || (!a.has("raw") && ::isatty(STDOUT_FILENO) == 1);
  const base::UniqueFd fd = base::connect_unix(control_socket(settings));

  std::atomic<std::size_t> sent{0};
  std::jthread writer;
  if (a.positional.empty()) {
    // Pipelined: lines go out while replies come back, so the engine can commit them together.
    writer = std::jthread([&fd, &sent] {
      for (std::string line; std::getline(std::cin, line);) {
        if (!base::write_all(fd.get(), line + "\n")) break;
        ++sent;
      }
      ::shutdown(fd.get(), SHUT_WR);
    });
  } else {
    std::string line;
    for (const std::string& word : a.positional) line += (line.empty() ? "" : " ") + word;
    if (!base::write_all(fd.get(), line + "\n")) throw std::runtime_error("the engine closed the connection");
    sent = 1;
    ::shutdown(fd.get(), SHUT_WR);
  }
  bool all_ok = true;
  std::size_t replies = 0;
  base::LineReader lines(fd.get());
  while (const std::optional<std::string> line = lines.read_line()) {
    std::cout << (pretty ? base::Json::parse(*line).dump(2) : *line) << "\n" << std::flush;
    if (protocol::is_pushed_line(*line)) continue;  // an update of a watched node or an alert, not a reply
    ++replies;
    all_ok &= protocol::is_ok_line(*line);
  }
  if (writer.joinable()) writer.join();
  if (replies < sent) {
    std::cerr << "bond_risk: the engine closed the connection before replying to " << sent - replies << " of " << sent
              << " commands: they may or may not have been applied (the event_log table of the database lists those "
                 "that were)\n";
    return 1;
  }
  return all_ok ? 0 : 1;
}

}  // namespace bond_risk
