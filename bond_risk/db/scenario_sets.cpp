#include "bond_risk/db/scenario_sets.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "bond_risk/db/schema.h"
#include "bond_risk/db/table_rows.h"

namespace bond_risk {

namespace {

void require_tables(base::Database& db) {
  base::Statement scenarios = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'scenario'");
  if (!scenarios.step() || !db.has_table("scenario_set") || !db.has_table("scenario_shift")) {
    throw std::runtime_error(db.path() + " has no scenario tables; create them with: sqlite3 " + db.path() +
                             " < schema/bond_risk.sql (or generate a data set with bond_risk generate)");
  }
}

// scenario_shift's columns 3, 4 and 5 of the reading query, typed as the
// loader types the input tables (model/inputs/input_tables.h).
constexpr Column kShiftColumns[] = {
    {"ir_curve_id", ColumnType::reference, Kind::ir_curve}, {"idx", ColumnType::integer}, {"shift_bp", ColumnType::real}};

// Adds the shift of the current row of `st` to `scenario`; returns why it
// cannot (a value of the wrong type, an unknown curve or point, a point the
// scenario shifts already), or "".
std::string add_shift(const base::Statement& st, const Store& store, Scenario& scenario) {
  try {
    const auto curve_id = std::get<std::int64_t>(read_value(st, 3, kShiftColumns[0]));
    const auto idx = std::get<std::int64_t>(read_value(st, 4, kShiftColumns[1]));
    const double bp = std::get<double>(read_value(st, 5, kShiftColumns[2]));
    const NodeRef* curve = store.by_id.find(curve_id);
    if (!curve || kind_of(*curve) != Kind::ir_curve) return "ir_curve_id " + std::to_string(curve_id) + " is not a curve";
    const std::optional<std::size_t> point = store.curves[curve->index].position_of(idx);
    if (!point) return "ir_curve " + std::to_string(curve_id) + " has no input point idx " + std::to_string(idx);
    const Shift shift{curve->index, *point, bp};
    if (std::ranges::any_of(scenario.shifts, [&](const Shift& s) { return s.curve == shift.curve && s.point == shift.point; })) {
      return "ir_curve " + std::to_string(curve_id) + " idx " + std::to_string(idx) + " is shifted twice";
    }
    scenario.shifts.push_back(shift);
    return "";
  } catch (const FieldError& e) {
    return e.message;
  }
}

}  // namespace

std::vector<std::string> scenario_set_names(base::Database& db) {
  require_tables(db);
  std::vector<std::string> names;
  base::Statement st = db.prepare("SELECT DISTINCT set_name FROM scenario ORDER BY set_name");
  while (st.step()) names.push_back(st.value_text(0));
  return names;
}

ScenarioSet read_scenario_set(base::Database& db, const Store& store, const std::string& name,
                              const std::optional<std::string>& only) {
  require_tables(db);
  ScenarioSet set;
  set.name = name;
  if (db.has_table("scenario_set")) {
    base::Statement kind = db.prepare("SELECT kind FROM scenario_set WHERE name = ?");
    kind.bind(1, name);
    set.historical = kind.step() && kind.text(0) == "historical";
  }
  base::Statement st = db.prepare(
      "SELECT s.id, s.name, h.rowid, h.ir_curve_id, h.idx, h.shift_bp FROM scenario s "
      "LEFT JOIN scenario_shift h ON h.scenario_id = s.id WHERE s.set_name = ?1 AND (?2 IS NULL OR s.name = ?2) "
      "ORDER BY s.id, h.ir_curve_id, h.idx");
  st.bind(1, name);
  if (only) st.bind(2, *only);
  std::string bad;  // why the scenario being read is left out
  auto finish = [&] {
    if (set.scenarios.empty()) return;
    if (!bad.empty()) {
      set.problems.push_back("scenario " + set.scenarios.back().name + " (id " + std::to_string(set.scenarios.back().id) +
                             ") left out: " + bad);
      set.scenarios.pop_back();
    }
    bad.clear();
  };
  std::int64_t current = 0;
  bool any = false;
  while (st.step()) {
    const std::int64_t id = st.integer(0);
    if (!any || id != current) {
      finish();
      set.scenarios.push_back({id, st.value_text(1), {}});
      current = id;
      any = true;
    }
    if (st.column_type(2) == SQLITE_NULL) continue;  // a scenario without shifts: P&L 0
    if (!bad.empty()) continue;
    if (const std::string why = add_shift(st, store, set.scenarios.back()); !why.empty()) {
      bad = why + " (scenario_shift rowid " + std::to_string(st.integer(2)) + ")";
    }
  }
  finish();
  if (!any) throw std::invalid_argument(unknown_set(db, name));
  return set;
}

std::string unknown_set(base::Database& db, const std::string& name) {
  const std::vector<std::string> names = scenario_set_names(db);
  if (std::find(names.begin(), names.end(), name) != names.end()) return "";
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  return "no scenario set '" + name + "' in " + db.path() + " (sets: " +
         (known.empty() ? "none; bond_risk generate --scenarios " + db.path() + " adds 'ladder' and 'historical'" : known) +
         ")";
}

std::int64_t scenario_count(base::Database& db, const std::string& name) {
  require_tables(db);
  base::Statement st = db.prepare("SELECT count(*) FROM scenario WHERE set_name = ?");
  st.bind(1, name);
  st.step();
  return st.integer(0);
}

std::optional<std::string> set_of_scenario(base::Database& db, const std::string& name) {
  require_tables(db);
  base::Statement st = db.prepare("SELECT set_name FROM scenario WHERE name = ?");
  st.bind(1, name);
  if (!st.step()) return std::nullopt;
  return st.value_text(0);
}

std::unique_ptr<base::Database> open_scenario_results(const std::string& db_path) {
  auto scenarios = std::make_unique<base::Database>(scenario_results_path(db_path), base::Database::Mode::create);
  // A rollback journal, not WAL: the file may lie on a cluster's shared storage (docs/cluster.md).
  scenarios->exec("PRAGMA synchronous = FULL");
  scenarios->exec(kScenarioSchemaSql);
  return scenarios;
}

void adopt_scenario_results(const std::string& db_path, const std::string& results_path) {
  const std::unique_ptr<base::Database> scenarios = open_scenario_results(db_path);
  try {
    scenarios->prepare("ATTACH DATABASE ? AS old").bind(1, results_path).run();
    base::Transaction tx(*scenarios, base::Transaction::Begin::immediate);  // a scenarios run writing: wait for it
    scenarios->exec(
        "CREATE TEMP TABLE held AS SELECT set_name FROM main.scenario_pnl UNION SELECT set_name FROM main.scenario_var;"
        "INSERT INTO main.scenario_pnl (set_name, scenario_id, book_id, pnl, margin_change)"
        " SELECT set_name, scenario_id, book_id, pnl, margin_change FROM old.scenario_pnl"
        " WHERE set_name NOT IN (SELECT set_name FROM temp.held) ORDER BY set_name, book_id, scenario_id;"
        "INSERT INTO main.scenario_var (set_name, book_id, scenarios, var_99, es_975)"
        " SELECT set_name, book_id, scenarios, var_99, es_975 FROM old.scenario_var"
        " WHERE set_name NOT IN (SELECT set_name FROM temp.held);"
        "DROP TABLE temp.held");
    tx.commit();
  } catch (const std::exception& e) {
    throw std::runtime_error(
        "cannot move the scenario results an older version kept in " + results_path + " to " + scenarios->path() +
        " (" + e.what() + "). If another program is writing either file, run again once it is done; otherwise copy "
        "them: sqlite3 " + scenarios->path() + " \"ATTACH '" + results_path +
        "' AS old; INSERT INTO scenario_pnl SELECT * FROM old.scenario_pnl; INSERT INTO scenario_var SELECT * FROM "
        "old.scenario_var\", then move " + results_path + " away and run again");
  }
}

void write_scenario_results(base::Database& results, const ScenarioSet& set, const BookList& books,
                            const std::vector<ScenarioPnl>& pnl) {
  base::Transaction tx(results);
  for (const char* table : {"scenario_pnl", "scenario_var"}) {
    base::Statement clear = results.prepare("DELETE FROM " + std::string(table) + " WHERE set_name = ?");
    clear.bind(1, set.name).run();
  }
  base::Statement row = results.prepare(
      "INSERT INTO scenario_pnl (set_name, scenario_id, book_id, pnl, margin_change) VALUES (?, ?, ?, ?, ?)");
  const std::size_t n = books.size();
  // Book by book (every book that publishes, then the total, book_id NULL),
  // in the index's order: its pages fill one after another, not at random.
  for (std::size_t b = 0; b <= n; ++b) {
    if (b < n && !books.publishes[b]) continue;
    for (std::size_t k = 0; k < set.scenarios.size(); ++k) {
      if (!pnl[k].error.empty()) continue;
      row.bind(1, set.name).bind(2, set.scenarios[k].id);
      if (b < n) {
        row.bind(3, books.ids[b]).bind(4, pnl[k].pnl[b]);
        if (books.kinds[b] == Kind::repo_book) {
          row.bind(5, pnl[k].margin[b]);
        } else {
          row.bind_null(5);
        }
      } else {
        row.bind_null(3).bind(4, pnl[k].total).bind_null(5);
      }
      row.run();
    }
  }
  if (set.historical) {
    const SetRisk risk = set_risk(n, pnl);
    base::Statement var = results.prepare(
        "INSERT INTO scenario_var (set_name, book_id, scenarios, var_99, es_975) VALUES (?, ?, ?, ?, ?)");
    for (std::size_t b = 0; risk.scenarios > 0 && b <= n; ++b) {
      if (b < n && !books.publishes[b]) continue;
      const TailRisk& r = b < n ? risk.books[b] : risk.total;
      var.bind(1, set.name);
      if (b < n) {
        var.bind(2, books.ids[b]);
      } else {
        var.bind_null(2);
      }
      var.bind(3, static_cast<std::int64_t>(risk.scenarios)).bind(4, r.var_99).bind(5, r.es_975).run();
    }
  }
  tx.commit();
}

std::vector<double> stored_scenario_pnl(base::Database& db, const std::string& schema, const std::string& set,
                                        std::optional<std::int64_t> book_id) {
  base::Statement has = db.prepare("SELECT 1 FROM " + schema + ".sqlite_schema WHERE name = 'scenario_pnl'");
  if (!has.step()) return {};
  base::Statement st = db.prepare("SELECT pnl FROM " + schema +
                                  ".scenario_pnl WHERE set_name = ?1 AND book_id IS ?2 ORDER BY scenario_id");
  st.bind(1, set);
  if (book_id) {
    st.bind(2, *book_id);
  } else {
    st.bind_null(2);
  }
  std::vector<double> out;
  while (st.step()) out.push_back(st.real(0));
  return out;
}

}  // namespace bond_risk
