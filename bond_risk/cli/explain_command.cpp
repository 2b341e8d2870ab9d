// bond_risk explain: the P&L explain a database holds, printed without an
// engine (the running engine's own command gives it live).
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "base/cli_args.h"
#include "bond_risk/cli/commands.h"
#include "bond_risk/cli/settings.h"
#include "bond_risk/cli/stored_explain.h"
#include "bond_risk/protocol/command.h"

namespace bond_risk {

namespace {

const base::CommandSpec kSpec = {
    std::string(command_info(CommandId::explain).name),
    "[--db PATH] [--conf PATH] [BOOK]",
    "Prints the P&L day's explain the database holds, as of its last acknowledged event: the day's\n"
    "start, a book's (id or name) or the total's baseline, and per cause (curve NAME, roll, new,\n"
    "amended, removed, external, quote) the actual move, with the key-rate prediction and the unexplained\n"
    "part for curves. day_pnl here is the sum of the causes; a running engine's 'explain' also gives\n"
    "the books' measures now. Exits 1 when the database holds no day or no such book.",
    {
        {"db", "PATH", "database to read (APP_DB; default from the conf file)"},
        kConfOption,
    },
};

std::string number(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%18.2f", v);
  return text;
}

}  // namespace

int explain_command(std::span<char* const> args) {
  const std::optional<Invocation> invoked = invocation(kSpec, args);
  if (!invoked) return 0;
  const base::ParsedArgs& a = invoked->args;
  const Settings& settings = invoked->settings;
  if (a.positional.size() > 1) throw base::UsageError(kSpec.name + ": give at most one book id or name (see --help)");
  base::Database db(settings.db, base::Database::Mode::read_only);
  const StoredExplain e = stored_explain(db, a.positional.empty() ? std::nullopt : std::optional(a.positional[0]));
  std::cout << "P&L explain of " << e.whose << ", day begun after event " << e.after_event << " at " << e.started_at
            << "\n\n";
  std::printf("%-24s %18s %18s %18s\n", "cause", "actual", "predicted", "unexplained");
  for (const auto& [name, total] : e.causes) {
    std::printf("%-24s %s %s %s\n", name.c_str(), number(total.actual).c_str(),
                total.has_prediction ? number(total.predicted).c_str() : "                 -",
                total.has_prediction ? number(total.actual - total.predicted).c_str() : "                 -");
  }
  std::printf("%-24s %s\n%-24s %s\n", "day_pnl", number(e.day_pnl).c_str(), "baseline", number(e.baseline).c_str());
  return 0;
}

}  // namespace bond_risk
