#include <iostream>

#include "base/cli_args.h"
#include "bond_risk/cli/commands.h"
#include "bond_risk/synth/generator.h"
#include "bond_risk/synth/limit_generator.h"
#include "bond_risk/synth/scenario_generator.h"
#include "base/timing.h"

namespace bond_risk {

namespace {

const base::CommandSpec kSpec = {
    "generate",
    "--preset NAME --out PATH [--conventions none|market] [--seed N] [--book-size N] [--desks N] [--limits-per-book N]  |  --scenarios PATH "
    "[--seed N]  |  --limit-set PATH [--limits-per-book N] [--seed N]",
    "Writes a synthetic data set to a new SQLite database. Presets: tiny (a handful of each type), 100, 50k,\n"
    "220k, 440k (40,000 bonds, 200,000 outright and 200,000 repo trades), 1M (80,000 bonds, 460,000 of\n"
    "each trade) and 10M (1,000,000 bonds, 4,500,000 of each trade); each has one calendar and two curves.\n"
    "With --conventions market the bonds are real markets' instead: UK gilts, US Treasuries and Bunds in thirds,\n"
    "each on its own calendar (England and Wales, the US government bond market, TARGET, with their holidays),\n"
    "convention (settlement, ex-dividend, yield) and 60-year curve, maturities to 50 years, an ISIN each.\n"
    "The same preset, seed, book size and desks always give the same database. Every data set also gets two scenario sets (see bond_risk scenarios --help):\n"
    "'ladder' (parallel shifts, twists and butterflies) and 'historical' (500 synthetic correlated days);\n"
    "--scenarios PATH adds them to an existing database instead, replacing sets of those names.\n"
    "Every data set also gets risk limits set from its values now (so each starts OK): per outright book its\n"
    "pv01, two largest key-rate buckets and cs01 within 1.3-1.7x their size either way and a day's loss of\n"
    "30-70bp of its pv01; per repo book its margin and a day's loss of 3-7% of it; the total's pv01, margin\n"
    "and loss. --limit-set PATH replaces the limits of an existing database instead.",
    {
        {"preset", "NAME", "tiny, 100, 50k, 220k, 440k, 1M or 10M (required)"},
        {"out", "PATH", "database to create; must not exist (required)"},
        {"conventions", "none|market",
         "none (default): every bond the trad4 model's; market: the market mix above (docs/model.md \"Market conventions\")"},
        {"seed", "N", "random seed (default 1)"},
        {"book-size", "N", "trades per book; books are grouped by curve (default 1000; 10,000 for the 10M preset)"},
        {"desks", "N",
         "each curve's bonds and trades cut into N desks, in order: a trade holds a bond of its desk, so\n"
         "consecutive books hold a slice of the bonds (default 1: any bond of the curve; 20 for the 10M preset);\n"
         "at most the preset's bonds a curve (tiny: 3)"},
        {"scenarios", "PATH", "add the ladder and historical scenario sets to this existing database and exit"},
        {"limits-per-book", "N",
         "risk limits per book (default 5; more: further key-rate buckets, then the same measures at wider\n"
         "multiples; 0: none)"},
        {"limit-set", "PATH", "replace the risk limits of this existing database with a generated set and exit"},
    },
};

}  // namespace

int generate_command(std::span<char* const> args) {
  const std::optional<base::ParsedArgs> parsed = base::parse_command(kSpec, args);
  if (!parsed) return 0;
  const base::ParsedArgs& a = *parsed;
  if (!a.positional.empty()) throw base::UsageError("generate: unexpected argument '" + a.positional[0] + "'");
  const auto seed = static_cast<std::uint64_t>(base::parse_integer(a.get("seed", "1"), 0, INT64_MAX, "--seed"));
  const auto per_book = static_cast<std::size_t>(base::parse_integer(
      a.get("limits-per-book", std::to_string(kDefaultLimitsPerBook)), 0, 1000, "--limits-per-book"));
  if (a.has("limit-set")) {
    if (a.has("preset") || a.has("out") || a.has("scenarios")) {
      throw base::UsageError("generate: --limit-set PATH takes no --preset, --out or --scenarios");
    }
    const std::string path = a.get("limit-set", "");
    std::cout << "Wrote " << add_limit_set(path, seed, per_book) << " risk limits to " << path << ".\n";
    return 0;
  }
  if (a.has("scenarios")) {
    if (a.has("preset") || a.has("out")) throw base::UsageError("generate: --scenarios PATH takes no --preset or --out");
    const std::string path = a.get("scenarios", "");
    add_scenario_sets(path, seed);
    std::cout << "Added the scenario sets ladder and historical to " << path << ".\n";
    return 0;
  }
  if (!a.has("preset") || !a.has("out")) throw base::UsageError("generate: --preset and --out are required (see --help)");
  const Preset& preset = base::usage_checked([&]() -> const Preset& { return find_preset(a.get("preset", "")); });
  GenerateOptions options;
  options.seed = seed;
  options.limits_per_book = per_book;
  options.book_size = static_cast<std::size_t>(
      base::parse_integer(a.get("book-size", std::to_string(preset.book_size)), 1, 100'000'000, "--book-size"));
  const std::string conventions = a.get("conventions", "none");
  if (conventions != "none" && conventions != "market") {
    throw base::UsageError("generate: --conventions is none or market, not '" + conventions.substr(0, 40) + "'");
  }
  options.conventions = conventions == "market" ? Conventions::market : Conventions::none;
  const auto desks = static_cast<long long>(max_desks(preset, options.conventions));
  options.desks = static_cast<std::size_t>(base::parse_integer(
      a.get("desks", std::to_string(preset.desks)), 1, desks,
      "--desks (preset " + preset.name + " has " + std::to_string(desks) + " bonds a curve, and a desk needs one of its own)"));
  const std::string out = a.get("out", "");
  const base::Stopwatch watch;
  base::usage_checked([&] { generate(preset, options, out); });
  std::cout << "Generated preset " << preset.name << " (" << preset.bonds << " bonds, " << preset.outright_trades
            << " outright trades, " << preset.repo_trades << " repo trades) into " << out << " in " << watch.seconds()
            << " seconds.\n";
  return 0;
}

}  // namespace bond_risk
