// libFuzzer target: the loader's row parsers. The input picks one input
// table and fills a row of it, column by column, with an integer, a real,
// text, a blob or NULL chosen by the bytes, on top of a small valid data set
// (a trad4 bond and a gilt on its convention and holidays).
// A trade's, a calendar's or a curve rate's row replaces that node's and is
// read back as the running engine reads another program's change (reread);
// a row of any other table is read by a whole load (slower, so one input in
// eight picks among all tables, the others among those four). Neither may crash, and every node they fail says why. Built and run
// by `make fuzz`.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "base/sqlite.h"
#include "fuzz/data_sets.h"
#include "fuzz/fuzz_bytes.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/db/schema.h"
#include "bond_risk/db/table_rows.h"
#include "bond_risk/model/inputs/input_tables.h"

namespace {


using fuzz::Bytes;

// Aborts if a failed node of `s` gives no reason.
void expect_reasons(const bond_risk::Store& s) {
  for (std::size_t k = 0; k < bond_risk::kKindCount; ++k) {
    for (bond_risk::NodeIndex i = 0; i < s.ids[k].size(); ++i) {
      const bond_risk::NodeRef n = bond_risk::ref(static_cast<bond_risk::Kind>(k), i);
      if (s.state(n).error != 0 && s.error(n).empty()) std::abort();
    }
  }
}

// The node whose row a row of `table` becomes, for the tables re-read row by
// row: its id, and the kind reread() is given.
struct Reread {
  std::int64_t id;
  bond_risk::Kind kind;
};
std::optional<Reread> reread_target(std::string_view table) {
  if (table == "outright_trade") return Reread{100, bond_risk::Kind::outright_trade};
  if (table == "repo_trade") return Reread{200, bond_risk::Kind::repo_trade};
  if (table == "calendar") return Reread{1, bond_risk::Kind::calendar};
  if (table == "ir_curve_input_rate") return Reread{2, bond_risk::Kind::ir_curve};
  return std::nullopt;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static base::Database db = [] {
    base::Database d(":memory:", base::Database::Mode::read_write);
    d.exec(bond_risk::kSchemaSql);
    d.exec(fuzz::kRowData);
    return d;
  }();
  static const bond_risk::Store loaded = bond_risk::load(db).store;
  Bytes in{data, size};
  const std::uint8_t pick = in.byte();
  const auto tables = bond_risk::input_tables();
  static constexpr const char* kRereadTables[] = {"outright_trade", "repo_trade", "calendar", "ir_curve_input_rate"};
  const bond_risk::InputTable& table = pick % 8 == 0 ? tables[(pick / 8) % tables.size()]
                                                     : bond_risk::input_table(kRereadTables[pick % 4]);
  const std::optional<Reread> target = reread_target(table.name);
  db.exec("SAVEPOINT fuzz");
  if (target && target->kind != bond_risk::Kind::ir_curve) {
    db.exec("DELETE FROM " + std::string(table.name) + " WHERE id = " + std::to_string(target->id));
  }
  try {
    base::Statement st = db.prepare(bond_risk::insert_all(table));
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      const int param = static_cast<int>(c + 1);
      if (target && table.columns[c].name == table.node_column) {
        st.bind(param, target->id);  // the row belongs to the node that is re-read
        continue;
      }
      switch (in.byte() % 6) {
        case 0: st.bind(param, in.integer() % 1000); break;  // often an id of the data set
        case 1: st.bind(param, in.integer()); break;
        case 2: {
          double v;
          const std::int64_t bits = in.integer();
          std::memcpy(&v, &bits, sizeof v);
          st.bind(param, v);
          break;
        }
        case 3: st.bind(param, std::string_view(in.text())); break;
        case 4: st.bind_blob(param, in.text()); break;
        default: st.bind_null(param); break;
      }
    }
    st.run();
  } catch (const std::runtime_error&) {
    // a row the schema refuses (a duplicate key): the data set alone is loaded
  }
  if (target) {
    bond_risk::Store store = loaded;
    const bond_risk::NodeRef node = *store.by_id.find(target->id);
    bond_risk::reread(db, store, node);
    expect_reasons(store);
  } else {
    expect_reasons(bond_risk::load(db).store);
  }
  db.exec("ROLLBACK TO fuzz; RELEASE fuzz");
  return 0;
}
