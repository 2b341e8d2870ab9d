#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <vector>

#include "base/cli_args.h"
#include "base/gnuplot.h"
#include "base/sqlite.h"
#include "bond_risk/cli/commands.h"
#include "bond_risk/cli/settings.h"
#include "bond_risk/db/result_writer.h"
#include "bond_risk/model/kind.h"

namespace bond_risk {

namespace {

const base::CommandSpec kSpec = {
    "plot",
    "ladder BOOK [--db PATH] [--out FILE.png] [--conf PATH]",
    "Draws stored results with gnuplot into a PNG (and writes the numbers drawn beside it, FILE.dat).\n"
    "  ladder BOOK   a book's key-rate ladder (id or name) as bars by tenor of its curves' input points:\n"
    "                kr01 for an outright book, margin_kr01 and mtm_pnl_kr01 side by side for a repo book,\n"
    "                as the running engine or the last 'bond_risk run --batch' stored them.",
    {
        {"db", "PATH", "database whose results to draw (APP_DB; default from the conf file)"},
        {"out", "FILE.png", "picture to write (default: BOOK-ladder.png in the current directory)"},
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

// The book called `key` (id or name) in either book table.
std::pair<Kind, std::int64_t> find_book(base::Database& db, const std::string& key) {
  for (Kind kind : {Kind::outright_book, Kind::repo_book}) {
    base::Statement find = db.prepare("SELECT id FROM " + std::string(kind_name(kind)) +
                                      " WHERE name = ?1 OR CAST(id AS TEXT) = ?1 LIMIT 1");
    find.bind(1, key);
    if (find.step()) return {kind, find.integer(0)};
  }
  throw base::UsageError("plot: no outright_book or repo_book with id or name '" + key + "' in " + db.path());
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
  const std::string data = out + ".dat";
  std::ofstream file(data);
  if (!file) throw std::runtime_error("cannot write " + data);
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
  const bool several_curves = !points.empty() && points.front().curve != points.back().curve;
  file << "# tenor\t" << (repo ? "margin_kr01\tmtm_pnl_kr01" : "kr01") << "\n";
  for (const Point& p : points) {
    file << '"' << (several_curves ? p.curve + " " : "") << p.tenor << "\"\t" << p.values << "\n";
  }
  file.close();
  if (points.empty()) {
    throw std::runtime_error(std::string(kind_name(kind)) + " " + book + " has no stored key-rate ladder (it is FAILED, "
                             "or the results were written with KEY_RATES=0; run: bond_risk run --batch --db " +
                             db.path() + ")");
  }
  std::string script = base::png_terminal(1100, 600) + "set termoption noenhanced\nset output " + base::gnuplot_quoted(out) + "\n" +
                       "set title " + base::gnuplot_quoted("Key-rate ladder of " + std::string(kind_name(kind)) + " " +
                                                            book + " (" + curves + ")") + "\n" +
                       "set style data histograms\nset style histogram clustered gap 1\n"
                       "set style fill solid 0.8 border -1\nset boxwidth 0.9\nset grid ytics\nset key top left\n"
                       "set xtics rotate by -45\nset xlabel 'input point of the curve (tenor)'\n"
                       "set ylabel 'kr01: value change for +1bp at the point'\nset xzeroaxis\n";
  const std::string quoted = base::gnuplot_quoted(data);
  script += repo ? "plot " + quoted + " using 2:xtic(1) title 'margin_kr01', '' using 3 title 'mtm_pnl_kr01'\n"
                 : "plot " + quoted + " using 2:xtic(1) title 'kr01'\n";
  base::run_gnuplot(script);
  std::cout << "Wrote " << out << " (" << points.size() << " points; numbers in " << data << ")\n";
  return 0;
}

}  // namespace

int plot_command(std::span<char* const> args) {
  const std::optional<base::ParsedArgs> parsed = base::parse_command(kSpec, args);
  if (!parsed) return 0;
  const base::ParsedArgs& a = *parsed;
  if (a.positional.empty()) throw base::UsageError("plot: say what to draw: ladder BOOK (see --help)");
  const Settings settings = load_settings(a, [](const char* key) { return std::getenv(key); });
  base::Database db(settings.db, base::Database::Mode::read_only);
  const std::string& what = a.positional[0];
  if (what == "ladder") {
    if (a.positional.size() != 2) throw base::UsageError("plot ladder: give one book id or name (see --help)");
    return plot_ladder(db, a.positional[1], a.get("out", a.positional[1] + "-ladder.png"));
  }
  throw base::UsageError("plot: unknown plot '" + what + "' (plots: ladder; see --help)");
}

}  // namespace bond_risk
