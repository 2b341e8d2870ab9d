#include <cstdlib>
#include <iostream>

#include "base/cli_args.h"
#include "base/sqlite.h"
#include "bond_risk/cli/commands.h"
#include "bond_risk/cli/settings.h"
#include "bond_risk/db/result_writer.h"
#include "bond_risk/model/store/store.h"

namespace bond_risk {

namespace {

const base::CommandSpec kSpec = {
    "show",
    "[--db PATH] [--conf PATH] ID|NAME...",
    "Prints the stored results of the named nodes (ids or names from any node table): type, status,\n"
    "the reason when not OK, and the values in the results database beside DB (DB.results.db), as the\n"
    "running engine or the last 'bond_risk run --batch' wrote them, and the event they reflect; for a\n"
    "bond or book also its key-rate ladder, a line per curve input point (kr01 per point moved 1bp).\n"
    "Exits 1 if any id or name is unknown, or if there is no results database (none was written yet,\n"
    "or it was deleted: 'bond_risk run --batch' writes it, and a running engine writes it again).",
    {
        {"db", "PATH", "database to read (APP_DB; default from the conf file)"},
        kConfOption,
    },
};

// Prints a bond's or book's stored key-rate ladder, a line per point with its tenor.
void show_key_rates(base::Database& db, const std::string& table, std::int64_t id) {
  base::Statement exists = db.prepare("SELECT 1 FROM results.sqlite_schema WHERE name = ?");
  exists.bind(1, table + "_key_rate");
  if (!exists.step()) return;  // written before ladders were stored
  base::Statement ladder = db.prepare(
      "SELECT k.*, p.days_forward FROM results." + table + "_key_rate k LEFT JOIN ir_curve_input_rate p "
      "ON p.ir_curve_id = k.ir_curve_id AND p.idx = k.idx WHERE k.id = ? ORDER BY k.ir_curve_id, k.idx");
  ladder.bind(1, id);
  while (ladder.step()) {
    std::string line = "  key rate: ir_curve " + ladder.value_text(1) + " idx " + ladder.value_text(2) + " (" +
                       ladder.value_text(ladder.column_count() - 1) + " days)";
    for (int c = 3; c + 1 < ladder.column_count(); ++c) {
      line.append(" ").append(ladder.column_name(c)).append("=").append(ladder.value_text(c));
    }
    std::cout << line << "\n";
  }
}

// Prints the node called `key` (an id or a name); false if there is none.
// The results database is attached as `results` when it exists.
bool show_node(base::Database& db, const std::string& key, bool results) {
  for (std::size_t k = 0; k < kKindCount; ++k) {
    const std::string table(kind_name(static_cast<Kind>(k)));
    // By id when the key is a number (names may be numbers too: then both are tried).
    base::Statement find = db.prepare("SELECT id, name FROM " + table + " WHERE id = ?1 UNION ALL SELECT id, name FROM " +
                                table + " WHERE name = ?2 LIMIT 1");
    if (!key.empty() && key.find_first_not_of("0123456789") == std::string::npos && key.size() < 19) {
      find.bind(1, static_cast<std::int64_t>(std::stoll(key)));
    }
    find.bind(2, key);
    if (!find.step()) continue;
    const std::int64_t id = find.integer(0);
    std::cout << table << " " << id << " (" << find.text(1) << "): ";
    if (table == "calendar" || table == "ir_curve") {
      std::cout << "inputs only; it publishes no stored results\n";
      return true;
    }
    if (!results) {
      std::cout << "no results database\n";
      return true;
    }
    base::Statement result = db.prepare("SELECT * FROM results." + table + "_result WHERE id = ?");
    result.bind(1, id);
    if (!result.step()) {
      std::cout << "no results stored (run: bond_risk run --batch --db " << db.path() << ")\n";
      return true;
    }
    std::string line = result.value_text(1);
    const std::string reason = result.value_text(2);
    if (!reason.empty()) line += " (" + reason + ")";
    for (int c = 3; c < result.column_count(); ++c) {
      line.append(" ").append(result.column_name(c)).append("=").append(result.value_text(c));
    }
    std::cout << line << "\n";
    show_key_rates(db, table, id);
    return true;
  }
  return false;
}

}  // namespace

int show_command(std::span<char* const> args) {
  const std::optional<Invocation> invoked = invocation(kSpec, args);
  if (!invoked) return 0;
  const base::ParsedArgs& a = invoked->args;
  const Settings& settings = invoked->settings;
  if (a.positional.empty()) throw base::UsageError("show: give at least one node id or name (see --help)");
  base::Database db(settings.db, base::Database::Mode::read_only);
  const bool has_results = attach_results(db);
  if (has_results) {
    base::Statement as_of = db.prepare("SELECT event_seq, written_at FROM results.results_as_of");
    if (as_of.step()) {
      std::cout << "results as of event " << as_of.integer(0) << " (written " << as_of.text(1) << ")\n";
    }
  }
  int status = 0;
  if (!has_results) {
    std::cerr << "bond_risk: there is no results database " << results_path(db.path())
              << " (none was written yet, or it was deleted): run bond_risk run --batch --db " << db.path()
              << ", or start the engine (bond_risk run), which writes it; a running engine writes it again within a "
                 "second\n";
    status = 1;
  }
  for (const std::string& key : a.positional) {
    if (!show_node(db, key, has_results)) {
      std::cerr << "bond_risk: no calendar, curve, bond, trade or book has the id or name '" << key << "' in " << db.path() << "\n";
      status = 1;
    }
  }
  return status;
}

}  // namespace bond_risk
