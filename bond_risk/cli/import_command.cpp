#include <fstream>
#include <iostream>

#include "base/cli_args.h"
#include "base/progress.h"
#include "base/sqlite.h"
#include "base/timing.h"
#include "bond_risk/cli/commands.h"
#include "bond_risk/cli/settings.h"
#include "bond_risk/db/bond_import.h"

namespace bond_risk {

namespace {

const base::CommandSpec kSpec = {
    "import",
    "bonds [--db PATH] [--conf PATH] --csv FILE",
    "Imports a desk's bond list into the database's bond table (and bond_quote for the quoted ones), all of\n"
    "it in one transaction or nothing. FILE is comma-separated values whose first line names the columns,\n"
    "in any order:\n"
    "  isin,name,coupon,maturity,dated_date,coupons_per_year,convention,calendar,curve[,clean_quote]\n"
    "isin: ISO 6166, its check digit verified; coupon: an annual rate (0.0425 is 4.25%); maturity and\n"
    "dated_date: YYYY-MM-DD (the first coupon period runs from the dated date); coupons_per_year: 1, 2 or 4;\n"
    "convention: a row of bond_convention; calendar, curve: a name or id; clean_quote: a clean price per 100,\n"
    "or empty for none. Every line is checked before any is written; each bad one is reported with its\n"
    "line number and why (a bad ISIN check digit, an unknown convention, a maturity not after the dated\n"
    "date, an ISIN or name already used, ...), and then nothing is imported (exit 1). The new bonds get the\n"
    "ids after the largest node id. A running engine on the database picks them up as another program's\n"
    "change. Example: data/example_bonds.csv (README.md, \"Real bonds\").",
    {
        {"db", "PATH", "database to import into (APP_DB; default from the conf file)"},
        kConfOption,
        {"csv", "FILE", "the bond list (required)"},
    },
};

}  // namespace

int import_command(std::span<char* const> args) {
  const std::optional<Invocation> invoked = invocation(kSpec, args);
  if (!invoked) return 0;
  const base::ParsedArgs& a = invoked->args;
  if (a.positional.size() != 1 || a.positional[0] != "bonds") {
    throw base::UsageError("import: say what to import: import bonds --csv FILE (see --help)");
  }
  if (!a.has("csv")) throw base::UsageError("import bonds: --csv FILE is required (see --help)");
  const std::string path = a.get("csv", "");
  std::ifstream csv(path);
  if (!csv) throw std::runtime_error("cannot read " + path);
  const base::Stopwatch watch;
  base::Database db(invoked->settings.db, base::Database::Mode::read_write);
  BondImport result;
  {
    base::ProgressBar progress("Importing " + path, 2 * count_lines(csv));
    result = import_bonds(db, csv, &progress);
  }
  for (const std::string& why : result.rejected) std::cerr << path << ": " << why << "\n";
  if (!result.rejected.empty()) {
    std::cerr << "Imported nothing: " << result.rejected.size() << " of " << result.lines
              << " lines are bad (each above); mend them and import the file again.\n";
    return 1;
  }
  if (result.lines == 0) {
    std::cerr << path << " has a header and no bonds: nothing imported.\n";
    return 1;
  }
  std::cout << "Imported " << result.lines << " bonds (ids " << result.first_id << " to " << result.last_id << ", "
            << result.quotes << " with a quote) into " << invoked->settings.db << " in " << watch.seconds()
            << " seconds.\n";
  return 0;
}

}  // namespace bond_risk
