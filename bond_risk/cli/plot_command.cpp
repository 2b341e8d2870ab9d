#include <algorithm>
#include <cmath>
#include <iomanip>
#include <optional>
#include <sstream>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <vector>

#include "base/cli_args.h"
#include "base/gnuplot.h"
#include "base/sqlite.h"
#include "bond_risk/cli/commands.h"
#include "bond_risk/cli/settings.h"
#include "bond_risk/cli/stored_explain.h"
#include "bond_risk/protocol/command.h"
#include "bond_risk/db/change_writer.h"
#include "bond_risk/db/result_writer.h"
#include "bond_risk/db/scenario_sets.h"
#include "bond_risk/model/inputs/kind.h"

namespace bond_risk {

namespace {

const base::CommandSpec kSpec = {
    "plot",
    "ladder BOOK | pnl --set NAME [BOOK] | explain [BOOK] [--db PATH] [--out FILE.png] [--conf PATH]",
    "Draws stored results with gnuplot into a PNG (and writes the numbers drawn beside it, FILE.dat).\n"
    "  ladder BOOK   a book's key-rate ladder (id or name) as bars by tenor of its curves' input points:\n"
    "                kr01 for an outright book, margin_kr01 and mtm_pnl_kr01 side by side for a repo book,\n"
    "                as the running engine or the last 'bond_risk run --batch' stored them.\n"
    "  pnl --set NAME [BOOK]\n"
    "                the distribution of the total's P&L (or a book's) over the scenarios of a set, as the\n"
    "                last 'bond_risk scenarios' stored it, with the 99% VaR and 97.5% expected shortfall marked\n"
    "                for a historical set.\n"
    "  explain [BOOK]\n"
    "                the P&L day's explain the database holds, of a book or the total, as a waterfall: each\n"
    "                cause's move from the day's start (green up, red down), then day_pnl.",
    {
        {"db", "PATH", "database whose results to draw (APP_DB; default from the conf file)"},
        {"set", "NAME", "pnl: the scenario set"},
        {"out", "FILE.png",
         "picture to write (default: BOOK-ladder.png, SET-pnl.png / SET-BOOK-pnl.png, explain.png / BOOK-explain.png)"},
        kConfOption,
    },
};

// A tenor as a desk says it: 0D, 1M, 3M, 1Y, 20Y.
std::string tenor(int days) {
  const double years = days / 365.25, months = days / (365.25 / 12);
  if (days == 0) return "0D";
  if (days >= 365 && std::abs(years - std::round(years)) < 0.01) return std::to_string(std::lround(years)) + "Y";
  if (std::abs(months - std::round(months)) < 0.05) return std::to_string(std::lround(months)) + "M";
  return std::to_string(days) + "D";
}

// The book called `key` (id or name) in either book table: its kind and id.
std::pair<Kind, std::int64_t> find_book(base::Database& db, const std::string& key) {
  const std::optional<StoredBook> found = find_stored_book(db, key);
  if (!found) throw base::UsageError("plot: no outright_book or repo_book with id or name '" + key + "' in " + db.path());
  return {found->kind, found->id};
}

// Writes the numbers drawn to OUT.dat and draws them with `script` into OUT
// (gnuplot reads and writes only its private copies: base/gnuplot.h).
void draw(const std::string& out, const std::string& data, const std::string& script, const std::vector<std::string>& args) {
  const std::string numbers = out + ".dat";
  std::ofstream file(numbers);
  file << data;
  if (!file.flush()) throw std::runtime_error("cannot write " + numbers + " (does its directory exist, and may it be written?)");
  base::draw_png(1100, 600, script, data, args, out);
}

int plot_ladder(base::Database& db, const std::string& book, const std::string& out) {
  const auto [kind, id] = find_book(db, book);
  const std::string table = std::string(kind_name(kind)) + "_key_rate";
  if (!attach_results(db)) {
    throw std::runtime_error("no results stored for " + db.path() + " (run: bond_risk run --batch --db " + db.path() + ")");
  }
  const bool repo = kind == Kind::repo_book;
  base::Statement ladder = db.prepare(
      "SELECT c.name, p.days_forward, " + std::string(repo ? "k.margin_kr01, k.mtm_pnl_kr01" : "k.kr01") +
      " FROM results." + table + " k JOIN ir_curve c ON c.id = k.ir_curve_id"
      " JOIN ir_curve_input_rate p ON p.ir_curve_id = k.ir_curve_id AND p.idx = k.idx"
      " WHERE k.id = ? ORDER BY k.ir_curve_id, k.idx");
  ladder.bind(1, id);
  struct Point {
    std::string curve, tenor, values;
  };
  std::vector<Point> points;
  std::string curves;
  while (ladder.step()) {
    Point p{std::string(ladder.text(0)), tenor(static_cast<int>(ladder.integer(1))), ladder.value_text(2)};
    if (repo) p.values += "\t" + ladder.value_text(3);
    if (points.empty() || p.curve != points.back().curve) curves += (curves.empty() ? "" : ", ") + p.curve;
    points.push_back(std::move(p));
  }
  if (points.empty()) {
    throw std::runtime_error(std::string(kind_name(kind)) + " " + book + " has no stored key-rate ladder (it is FAILED, "
                             "or the results were written with KEY_RATES=0; run: bond_risk run --batch --db " +
                             db.path() + ")");
  }
  const bool several_curves = points.front().curve != points.back().curve;
  std::ostringstream data;
  data << "# tenor\t" << (repo ? "margin_kr01\tmtm_pnl_kr01" : "kr01") << "\n";
  for (const Point& p : points) {
    data << '"' << base::data_label((several_curves ? p.curve + " " : "") + p.tenor) << "\"\t" << p.values << "\n";
  }
  // Names go as the script's arguments (ARG1), never into its text.
  std::string script = "set termoption noenhanced\nset title ARG1\n"
                       "set style data histograms\nset style histogram clustered gap 1\n"
                       "set style fill solid 0.8 border -1\nset boxwidth 0.9\nset grid ytics\nset key top left\n"
                       "set xtics rotate by -45\nset xlabel 'input point of the curve (tenor)'\n"
                       "set ylabel 'kr01: value change for +1bp at the point'\nset xzeroaxis\n";
  script += repo ? "plot 'plot.dat' using 2:xtic(1) title 'margin_kr01', '' using 3 title 'mtm_pnl_kr01'\n"
                 : "plot 'plot.dat' using 2:xtic(1) title 'kr01'\n";
  draw(out, data.str(), script, {"Key-rate ladder of " + std::string(kind_name(kind)) + " " + book + " (" + curves + ")"});
  std::cout << "Wrote " << out << " (" << points.size() << " points; numbers in " << out << ".dat)\n";
  return 0;
}

int plot_pnl(base::Database& db, const std::string& set, const std::optional<std::string>& book, const std::string& out) {
  if (db.has_table("scenario_set")) {  // and its scenarios: the tables come together
    if (const std::string why = unknown_set(db, set); !why.empty()) throw base::UsageError("plot pnl: " + why);
  }
  std::optional<std::int64_t> book_id;
  if (book) book_id = find_book(db, *book).second;
  if (!attach_scenario_results(db)) {
    throw std::runtime_error("no scenario results stored for " + db.path() + " (run: bond_risk scenarios --db " +
                             db.path() + "; an older version kept them in " + results_path(db.path()) +
                             ": run --batch or an engine start moves them to " + scenario_results_path(db.path()) + ")");
  }
  const std::vector<double> pnl = stored_scenario_pnl(db, "scenarios", set, book_id);
  const std::string whose = book ? "book " + *book : std::string("the total");
  if (pnl.empty()) {
    throw std::runtime_error("no P&L of " + whose + " stored for scenario set '" + set +
                             "' (run: bond_risk scenarios --set " + set + " --db " + db.path() + ")");
  }
  // VaR and ES are marked for a historical set only (a stress set's P&Ls are not a distribution of days).
  bool historical = false;
  if (db.has_table("scenario_set")) {
    base::Statement kind = db.prepare("SELECT kind FROM main.scenario_set WHERE name = ?");
    kind.bind(1, set);
    historical = kind.step() && kind.text(0) == "historical";
  }
  const TailRisk risk = tail_risk(pnl);
  std::ostringstream data;
  data << "# pnl\n" << std::setprecision(17);
  for (double v : pnl) data << v << "\n";
  const auto [lo, hi] = std::minmax_element(pnl.begin(), pnl.end());
  const double width = *hi > *lo ? (*hi - *lo) / 40 : 1.0;
  std::ostringstream script;
  // Names go as the script's arguments (ARG1), never into its text.
  script << std::setprecision(17)
         << "set termoption noenhanced\nset title ARG1\n"
            "set style fill solid 0.6 border -1\nset grid ytics\nset key top right\n"
            "set xlabel 'P&L'\nset ylabel 'scenarios'\nw = " << width << "\nset boxwidth w absolute\nbin(x) = w * floor(x / w) + w / 2\n";
  if (historical) {
    script << "set arrow 1 from " << -risk.var_99 << ", graph 0 to " << -risk.var_99 << ", graph 1 nohead lw 2 lc rgb 'red'\n"
           << "set arrow 2 from " << -risk.es_975 << ", graph 0 to " << -risk.es_975 << ", graph 1 nohead lw 2 dt 2 lc rgb 'dark-red'\n"
           << "set label 1 'VaR 99%' at " << -risk.var_99 << ", graph 0.95 right offset -0.5,0\n"
           << "set label 2 'ES 97.5%' at " << -risk.es_975 << ", graph 0.88 right offset -0.5,0\n";
  }
  script << "plot 'plot.dat' using (bin($1)):(1.0) smooth frequency with boxes title 'scenarios'\n";
  draw(out, data.str(), script.str(), {"P&L of " + whose + " over scenario set " + set + " (" +
                                          std::to_string(pnl.size()) + " scenarios)"});
  std::cout << "Wrote " << out << " (" << pnl.size() << " scenarios";
  if (historical) std::cout << "; VaR 99% " << risk.var_99 << ", ES 97.5% " << risk.es_975;
  std::cout << "; numbers in " << out << ".dat)\n";
  return 0;
}

int plot_explain(base::Database& db, const std::optional<std::string>& book, const std::string& out) {
  const StoredExplain e = stored_explain(db, book);
  // A bar per cause from the running sum before it to after it, then day_pnl from 0.
  std::ostringstream data;
  data << "# label\tfrom\tto\tcolour (1 down, 2 up, 3 day_pnl)\n" << std::setprecision(17);
  double at = 0;
  for (const auto& [name, total] : e.causes) {
    data << '"' << base::data_label(name) << "\"\t" << at << "\t" << at + total.actual << "\t"
         << (total.actual < 0 ? 1 : 2) << "\n";
    at += total.actual;
  }
  data << "\"day_pnl\"\t0\t" << e.day_pnl << "\t3\n";
  // Names go as the script's arguments (ARG1), never into its text.
  const std::string script = "set termoption noenhanced\nset title ARG1\n"
                             "set style fill solid 0.8 border -1\nset grid ytics\nunset key\nset xzeroaxis\n"
                             "set linetype 1 lc rgb 'dark-red'\nset linetype 2 lc rgb 'dark-green'\n"
                             "set linetype 3 lc rgb 'gray30'\nset xtics rotate by -30\nset ylabel 'P&L since the day began'\n"
                             "plot 'plot.dat' using 0:(($2 + $3) / 2):(0.35):(abs($3 - $2) / 2):4:xtic(1) "
                             "with boxxyerror lc variable\n";
  draw(out, data.str(), script, {"P&L explain of " + e.whose + ", day begun after event " + std::to_string(e.after_event)});
  std::cout << "Wrote " << out << " (" << e.causes.size() << " causes, day_pnl " << e.day_pnl << "; numbers in " << out
            << ".dat)\n";
  return 0;
}

}  // namespace

int plot_command(std::span<char* const> args) {
  const std::optional<Invocation> invoked = invocation(kSpec, args);
  if (!invoked) return 0;
  const base::ParsedArgs& a = invoked->args;
  const Settings& settings = invoked->settings;
  if (a.positional.empty()) throw base::UsageError("plot: say what to draw: ladder BOOK (see --help)");
  base::Database db(settings.db, base::Database::Mode::read_only);
  const std::string& what = a.positional[0];
  if (what == "ladder") {
    if (a.positional.size() != 2) throw base::UsageError("plot ladder: give one book id or name (see --help)");
    return plot_ladder(db, a.positional[1], a.get("out", a.positional[1] + "-ladder.png"));
  }
  if (what == "pnl") {
    if (!a.has("set")) throw base::UsageError("plot pnl: say which scenario set: --set NAME (see --help)");
    if (a.positional.size() > 2) throw base::UsageError("plot pnl: give at most one book id or name (see --help)");
    const std::string set = a.get("set", "");
    const std::optional<std::string> book = a.positional.size() == 2 ? std::optional(a.positional[1]) : std::nullopt;
    return plot_pnl(db, set, book, a.get("out", set + (book ? "-" + *book : "") + "-pnl.png"));
  }
  if (what == command_info(CommandId::explain).name) {  // the engine's command of that name, drawn
    if (a.positional.size() > 2) throw base::UsageError("plot explain: give at most one book id or name (see --help)");
    const std::optional<std::string> book = a.positional.size() == 2 ? std::optional(a.positional[1]) : std::nullopt;
    return plot_explain(db, book, a.get("out", book ? *book + "-explain.png" : std::string("explain.png")));
  }
  throw base::UsageError("plot: unknown plot '" + what + "' (plots: ladder, pnl, explain; see --help)");
}

}  // namespace bond_risk
