// libFuzzer target: the typing of scenario_shift rows. The input fills up to
// eight rows of scenario_shift, column by column, with an integer, a real,
// text, a blob or NULL chosen by the bytes (a scenario id mostly one of the
// set's), under a small valid data set whose set 'f' has four scenarios;
// read_scenario_set then reads the set. It may not crash, and every row is
// either used or reported: each scenario of the set is read with one shift
// per row of it, or left out with a problem naming a scenario_shift rowid.
// Built and run by `make fuzz`.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/sqlite.h"
#include "fuzz/data_sets.h"
#include "fuzz/fuzz_bytes.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/db/scenario_sets.h"
#include "bond_risk/db/schema.h"

namespace {

constexpr std::size_t kScenarios = 4;  // in set 'f'

using fuzz::Bytes;

// Binds parameter `param` of `st` to a value of a type the input chooses.
void bind_value(base::Statement& st, int param, Bytes& in) {
  switch (in.byte() % 7) {
    case 0: st.bind(param, in.integer() % 8); break;  // often an id or idx of the data set
    case 1: st.bind(param, in.integer()); break;
    case 2: {
      double v;
      const std::int64_t bits = in.integer();
      std::memcpy(&v, &bits, sizeof v);
      st.bind(param, v);
      break;
    }
    case 3: st.bind(param, static_cast<double>(in.integer() % 8) + in.byte() / 256.0); break;  // 2.0, 3.5
    case 4: st.bind(param, std::string_view(in.text())); break;
    case 5: st.bind_blob(param, in.text()); break;
    default: st.bind_null(param); break;
  }
}

// The rows of scenario `id` (as read_scenario_set joins them).
std::size_t rows_of(base::Database& db, std::int64_t id) {
  base::Statement st = db.prepare("SELECT count(*) FROM scenario_shift h JOIN scenario s ON h.scenario_id = s.id "
                                  "WHERE s.id = ?");
  st.bind(1, id);
  st.step();
  return static_cast<std::size_t>(st.integer(0));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static base::Database db = [] {
    base::Database d(":memory:", base::Database::Mode::read_write);
    d.exec(bond_risk::kSchemaSql);
    d.exec(fuzz::kScenarioData);
    return d;
  }();
  static const bond_risk::Store store = bond_risk::load(db).store;
  Bytes in{data, size};
  db.exec("SAVEPOINT fuzz");
  const int rows = in.byte() % 9;
  for (int r = 0; r < rows; ++r) {
    try {
      base::Statement st = db.prepare("INSERT INTO scenario_shift (scenario_id, ir_curve_id, idx, shift_bp) "
                                      "VALUES (?, ?, ?, ?)");
      if (in.byte() % 4 != 0) {
        st.bind(1, static_cast<std::int64_t>(1 + in.byte() % 5));  // a scenario of the set, mostly
      } else {
        bind_value(st, 1, in);
      }
      for (int param = 2; param <= 4; ++param) bind_value(st, param, in);
      st.run();
    } catch (const std::runtime_error&) {
      // a row the schema refuses (NULL, a point given twice by value): not in the table
    }
  }
  const bond_risk::ScenarioSet set = bond_risk::read_scenario_set(db, store, "f");
  if (set.scenarios.size() + set.problems.size() != kScenarios) std::abort();
  for (const std::string& problem : set.problems) {
    if (problem.find("scenario_shift rowid") == std::string::npos) std::abort();
  }
  for (const bond_risk::Scenario& scenario : set.scenarios) {
    if (scenario.shifts.size() != rows_of(db, scenario.id)) std::abort();
    for (const bond_risk::Shift& shift : scenario.shifts) {
      if (shift.curve >= store.curves.size() || shift.point >= store.curves[shift.curve].point_idx.size() ||
          !std::isfinite(shift.bp)) {
        std::abort();
      }
    }
  }
  db.exec("ROLLBACK TO fuzz; RELEASE fuzz");
  return 0;
}
