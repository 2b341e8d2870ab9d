// The running engine's commands: one line of words each, parsed once into a
// typed Command. command_table() is the one list of them (name, arguments,
// help, whether it changes state): the server, `send --help`, `stats`,
// main's usage and the README's command table all come from it. Values
// and plain functions: any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bond_risk/model/inputs/changes.h"
#include "bond_risk/model/pnl/pnl_day.h"

namespace bond_risk {

struct Get {
  std::string key;  // id or name of any node
};
struct ShowBook {
  std::string key;  // a book's name or id
};
// An outright book's `count` largest trades by |pv01|, each with its bond's values.
inline constexpr std::int64_t kMaxTopPositions = 1000;
struct TopPositions {
  std::string key;          // a book's name or id
  std::int64_t count = 20;  // 1 to kMaxTopPositions
};
struct ListBooks {};
struct RecentEvents {
  std::int64_t since = 0;  // events after this sequence number
};
struct Watch {
  std::vector<std::string> keys;  // nodes to follow on this connection
};
struct Unwatch {
  std::vector<std::string> keys;  // none: every node followed
};
struct RunScenario {
  std::string name;  // a scenario's name (table scenario)
};
struct ValueAtRisk {
  std::string set = "historical";  // a scenario set
};
// The P&L day's explain: of one book, or of every book and the total.
struct Explain {
  std::optional<std::string> book;
};
// The day's `count` events that moved a book most (the day keeps that many: model/pnl/pnl_day.h).
inline constexpr std::int64_t kMaxExplainEvents = kKeptMoves;
struct ExplainEvents {
  std::string book;
  std::int64_t count = 10;  // 1 to kMaxExplainEvents
};
// Each limit's value, bound, utilization and state, worst first: of one
// book ("total": the total's), or every limit ("all", or none); the first
// `count` of them (0: every one), with the count in each state.
inline constexpr std::int64_t kMaxLimitsListed = 1'000'000;
struct Limits {
  std::optional<std::string> book;
  std::int64_t count = 0;
};
struct Stats {};
struct Reload {};
struct Shutdown {};

// A state-changing command is a Change (model/inputs/changes.h); the rest read or
// steer the engine.
using Command = std::variant<Change, Get, ShowBook, TopPositions, ListBooks, Watch, Unwatch, RunScenario, ValueAtRisk,
                             Explain, ExplainEvents, Limits, Stats, RecentEvents, Reload, Shutdown>;

enum class CommandId : std::size_t {
  bump_curve, set_rate, set_curve, roll_date, amend_trade, add_outright, add_repo, remove_trade, set_price, clear_price,
  start_day, set_limit, remove_limit, get, book, top_positions, list_books, watch, unwatch, scenario, var, explain, explain_events, limits, stats,
  last_events, reload, shutdown
};
inline constexpr std::size_t kCommandCount = 28;

struct CommandInfo {
  CommandId id;
  std::string_view name;  // as typed: bump-curve
  std::string_view args;  // for usage: CURVE BP
  std::string_view help;  // one line
  bool changes_state;
  // Long to answer (scenario, var): computed away from the master thread,
  // and a connection's later lines wait for its reply.
  bool runs_apart = false;
};

// Every command, in CommandId order.
std::span<const CommandInfo> command_table();
const CommandInfo& command_info(CommandId id);
CommandId command_id(const Command& command);
// Whether `line`'s first word names a command that runs apart.
bool runs_apart(std::string_view line);

// Parses one line of words; throws CommandError
// naming what is wrong (an unknown command or field, a bad value, a
// missing argument).
Command parse_command(std::string_view line);

// The line that parses back to `command`.
std::string format_command(const Command& command);

// One line per command for --help (name, arguments, help), with the trade
// fields each trade command takes.
std::string commands_help();
// The same as a Markdown table (| command | effect |), as in README.md.
std::string commands_markdown();
// Every command's name, comma-separated.
std::string command_names();

}  // namespace bond_risk
