#include "bond_risk/db/loader.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <optional>
#include <span>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <utility>

#include "bond_risk/db/convention_rows.h"
#include "bond_risk/db/input_schema.h"
#include "bond_risk/db/risk_limit_rows.h"
#include "bond_risk/db/row_scope.h"
#include "bond_risk/db/snapshot_readers.h"
#include "bond_risk/db/table_rows.h"
#include "bond_risk/model/inputs/bond_terms.h"
#include "bond_risk/model/inputs/input_tables.h"
#include "bond_risk/model/inputs/isin.h"
#include "bond_risk/model/store/layout.h"
#include "bond_risk/model/store/trade_fields.h"
#include "engine/affinity.h"

namespace bond_risk {

namespace {

// The columns of one row, read by name through its table's descriptor.
class Row {
 public:
  Row(const base::Statement& st, const InputTable& table) : st_(st), table_(table) {}
  FieldValue operator[](std::string_view column) const {
    const int i = table_.index(column);
    return read_value(st_, i, table_.columns[static_cast<std::size_t>(i)]);
  }
  std::string_view text(std::string_view column) const { return st_.text(table_.index(column)); }
  std::optional<FieldValue> optional(std::string_view column) const {
    const int i = table_.index(column);
    return read_optional(st_, i, table_.columns[static_cast<std::size_t>(i)]);
  }

 private:
  const base::Statement& st_;
  const InputTable& table_;
};

// Fills `trade` from every column of its row that the model checks
// (`fields`: what each of the table's columns sets); the first bad value is
// said in `error` and leaves the rest unset.
template <class Trade>
Trade read_trade(const base::Statement& st, const InputTable& table, std::span<const TradeField> fields,
                 const Store& store, std::string& error) {
  Trade trade;
  Date start = 0, end = 0;
  try {
    for (std::size_t i = 0; i < table.columns.size(); ++i) {
      const Column& column = table.columns[i];
      if (column.type == ColumnType::id || column.type == ColumnType::text || column.type == ColumnType::name) {
        continue;  // names and currencies: whatever text other programs stored
      }
      const FieldValue value = read_value(st, static_cast<int>(i), column);
      set_field(store, trade, fields[i], value);
      if (fields[i] == TradeField::start_date) start = std::get<Date>(value);
      if (fields[i] == TradeField::end_date) end = std::get<Date>(value);
    }
    if (const std::string problem = check_repo_dates(start, end); !problem.empty()) throw FieldError(problem);
  } catch (const FieldError& e) {
    error = e.message;
  }
  return trade;
}

// Rows of a trade table read on one connection, not yet nodes: read at
// once on several connections, then added to the store in id order.
template <class Trade>
struct TradeRows {
  std::vector<std::int64_t> ids;
  base::HugeVector<Trade> trades;
  std::vector<std::pair<std::size_t, std::string>> errors;  // (row, why it is bad)
};

// Appends one ir_curve_input_rate row to its curve's points; a bad value fails the curve.
void add_rate(Store& store, NodeIndex curve, const Row& row) {
  try {
    // Clamped so that absurd days stay absurd as an int (check_curve_points rejects them).
    const std::int64_t days = std::get<std::int64_t>(row["days_forward"]);
    const double value = std::get<double>(row["value"]);
    store.curves[curve].points.push_back({static_cast<int>(std::clamp<std::int64_t>(days, -1, 1 << 30)), value});
    store.curves[curve].point_idx.push_back(std::get<std::int64_t>(row["idx"]));
  } catch (const FieldError& e) {
    store.fail(ref(Kind::ir_curve, curve), e.message);
  }
}

// Sets a bond's quote from its bond_quote row (columns as select_all's).
void read_quote(Store& store, NodeIndex bond, const base::Statement& st, const InputTable& table) {
  try {
    store.set_quote(bond, std::get<double>(read_value(st, 1, table.columns[1])));
  } catch (const FieldError& e) {
    store.set_quote(bond, std::nullopt, e.message);
  }
}

// Fails the curve if its points cannot define it.
void check_curve(Store& store, NodeIndex curve) {
  std::string problem = check_curve_points(store.curves[curve].points);
  if (!problem.empty()) store.fail(ref(Kind::ir_curve, curve), std::move(problem));
}

std::size_t row_count(base::Database& db, std::string_view table, const std::string& where = "") {
  base::Statement st = db.prepare("SELECT count(*) FROM " + std::string(table) + where);
  st.step();
  return static_cast<std::size_t>(st.integer(0));
}

class Loader {
 public:
  Loader(base::Database& db, const std::vector<std::int64_t>* books) : db_(db), books_(books) {}

  Loaded run() {
    // Every table as of one moment, whatever other programs commit meanwhile;
    // the trade tables, most of the rows, and then the membership tables are
    // read on two connections at once when this process may run on two CPUs
    // (an MPI rank is often bound to one). A share of the books is read on
    // db_ alone, in runs of its ids (see row_scope.h).
    SnapshotReaders snapshot(db_, books_ || engine::allowed_cpus().size() < 2 ? 0 : 1);
    check_input_schema(db_);
    if (books_) scope_ = RowScope(db_, *books_);
    std::size_t nodes = 0;
    for (std::size_t k = 0; k < kKindCount; ++k) {
      const std::vector<std::int64_t>* ids = scope_.ids(static_cast<Kind>(k));
      rows_[k] = ids ? ids->size() : row_count(db_, kind_name(static_cast<Kind>(k)));
      nodes += rows_[k];
    }
    s().by_id.reserve(nodes);
    // The calendar's entry first: one whose today is bad keeps its index (and fails), as every node does.
    named_nodes(Kind::calendar, [&](const Row& row, NodeIndex) {
      Calendar& calendar = s().calendars.emplace_back();
      calendar.today = std::get<Date>(row["today"]);
    });
    holidays();
    named_nodes(Kind::ir_curve, [&](const Row&, NodeIndex) { s().curves.emplace_back(); });
    curve_rates();
    s().conventions = read_conventions(db_);
    bonds();
    quotes();
    trades(snapshot);
    books(snapshot);
    s().bond_values.resize(s().bonds.size());
    s().bond_cs01.resize(s().bonds.size(), kNull);
    s().bond_quoted.resize(s().bonds.size());
    s().bond_figures.resize(s().bonds.size());
    s().quote_yield_memos.resize(s().bonds.size());
    s().outright_values.resize(s().outright_trades.size());
    s().outright_cs01.resize(s().outright_trades.size(), kNull);  // OK until calculated: see Store
    s().outright_quoted.resize(s().outright_trades.size());
    s().repo_values.resize(s().repo_trades.size());
    snapshot.release();
    group_by_dependency(s());
    s().size_key_rates();
    s().lay_out_coupon_schedules();
    return std::move(out_);
  }

 private:
  Store& s() { return out_.store; }

  // Calls read(row, index) for every row of `kind`'s table in id order,
  // each a new node; a bad value fails the node.
  template <class Read>
  void each_node(Kind kind, Read read) {
    const InputTable& table = input_table(kind);
    scope_.each_row(db_, select_all(table, db_), kind, "id", [&](const base::Statement& st) {
      const NodeIndex i = s().add(kind, st.integer(0));
      try {
        read(Row(st, table), i);
      } catch (const FieldError& e) {
        s().fail(ref(kind, i), e.message);
      }
    });
  }

  // Calendars, curves and books: few, and named in commands, so their names are kept.
  template <class Read>
  void named_nodes(Kind kind, Read read) {
    each_node(kind, [&](const Row& row, NodeIndex i) {
      s().add_name(std::string(row.text("name")), ref(kind, i));
      read(row, i);
    });
  }

  void curve_rates() {
    const InputTable& rates = input_table("ir_curve_input_rate");
    base::Statement st = db_.prepare(select_all(rates, db_) + " ORDER BY ir_curve_id, idx");
    while (st.step()) {
      const NodeRef* curve = s().by_id.find(st.integer(0));
      if (!curve || kind_of(*curve) != Kind::ir_curve) {
        out_.warnings.push_back("ir_curve_input_rate row (ir_curve_id " + st.value_text(0) + ", idx " +
                                st.value_text(1) + ") names no ir_curve; row ignored");
        continue;
      }
      add_rate(s(), curve->index, Row(st, rates));
    }
    for (NodeIndex i = 0; i < s().curves.size(); ++i) check_curve(s(), i);
  }

  // Each calendar's holidays; a date that cannot be read fails its
  // calendar, a row naming no calendar is ignored with a warning.
  void holidays() {
    const InputTable& table = input_table("calendar_holiday");
    if (!db_.has_table(std::string(table.name))) return;  // a database from before conventions
    base::Statement st = db_.prepare(select_all(table, db_) + " WHERE calendar_id NOT IN (SELECT id FROM calendar)");
    while (st.step()) {
      out_.warnings.push_back("calendar_holiday row (calendar_id " + st.value_text(0) + ", date " + st.value_text(1) +
                              ") names no calendar; row ignored");
    }
    for (NodeIndex i = 0; i < s().calendars.size(); ++i) {
      const NodeRef calendar = ref(Kind::calendar, i);
      try {
        s().calendars[i].business_days = read_business_days(db_, s().id(calendar));
      } catch (const FieldError& e) {
        s().fail(calendar, "calendar_holiday " + e.message);
      }
    }
  }

  // A bond's convention by name: its index, or FieldError naming what is wrong.
  std::uint32_t convention_of(const std::string& name) const {
    const std::vector<StoredConvention>& all = out_.store.conventions;
    const auto at = std::lower_bound(all.begin(), all.end(), name,
                                     [](const StoredConvention& c, const std::string& n) { return c.name < n; });
    if (at == all.end() || at->name != name) {
      throw FieldError("convention '" + name.substr(0, 60) + "' is not a row of bond_convention");
    }
    if (!at->parsed.convention) throw FieldError(at->parsed.reason);
    return static_cast<std::uint32_t>(at - all.begin());
  }

  // Each quoted bond's clean price; a row naming no bond is ignored with a
  // warning (a share of the books reads its own bonds' rows only).
  void quotes() {
    const InputTable& table = input_table("bond_quote");
    if (!db_.has_table(std::string(table.name))) return;  // a database from before quotes (InputTable::optional)
    scope_.each_row(db_, select_all(table, db_), Kind::bond, "bond_id", [&](const base::Statement& st) {
      const NodeRef* bond = s().by_id.find(st.integer(0));
      if (!bond || kind_of(*bond) != Kind::bond) {
        out_.warnings.push_back("bond_quote row (bond_id " + st.value_text(0) + ") names no bond; row ignored");
        return;
      }
      read_quote(s(), bond->index, st, table);
    });
  }

  void bonds() {
    s().bonds.reserve(rows_[static_cast<std::size_t>(Kind::bond)]);
    each_node(Kind::bond, [&](const Row& row, NodeIndex i) {
      Bond& b = s().bonds.emplace_back();
      b.calendar = resolve(s(), Kind::calendar, std::get<std::int64_t>(row["calendar_id"]));
      b.curve = resolve(s(), Kind::ir_curve, std::get<std::int64_t>(row["ir_curve_id"]));
      b.start = std::get<Date>(row["start_date"]);
      b.maturity = std::get<Date>(row["maturity_date"]);
      const std::int64_t coupons_per_year = std::get<std::int64_t>(row["coupons_per_year"]);
      b.coupon = std::get<double>(row["coupon"]);
      if (std::string problem = bond_terms_problem(b.start, b.maturity, coupons_per_year); !problem.empty()) {
        throw FieldError(problem);
      }
      b.coupons_per_year = static_cast<int>(coupons_per_year);
      b.place = grid_place(b.maturity, b.coupons_per_year);
      b.coupons = coupon_count(b.start, b.maturity, b.coupons_per_year);
      if (const auto isin = row.optional("isin")) {
        const std::string& code = std::get<std::string>(*isin);
        if (std::string problem = isin_problem(code); !problem.empty()) throw FieldError(problem);
        const auto [at, fresh] = isins_.emplace(code, s().id(ref(Kind::bond, i)));
        if (!fresh) throw FieldError("isin '" + code + "' is also bond " + std::to_string(at->second) + "'s");
      }
      if (const auto convention = row.optional("convention")) b.convention = convention_of(std::get<std::string>(*convention));
    });
  }

  // Calls read(db, p) for parts p = 0 .. parts - 1 at once: part 0 on db_,
  // part p on reader p - 1 while there is one, the parts beyond the readers
  // on db_ after part 0. Rethrows the first part's failure once all ended.
  template <class Read>
  void at_once(SnapshotReaders& readers, std::size_t parts, Read read) {
    std::vector<std::exception_ptr> failed(parts);
    auto guarded = [&](base::Database& db, std::size_t p) {
      try {
        read(db, p);
      } catch (...) {
        failed[p] = std::current_exception();
      }
    };
    {
      std::vector<std::jthread> threads;
      for (std::size_t p = 1; p < parts && p <= readers.size(); ++p) {
        threads.emplace_back([&, p] { guarded(readers.reader(p - 1), p); });
      }
      for (std::size_t p = 0; p < parts; ++p) {
        if (p == 0 || p > readers.size()) guarded(db_, p);
      }
    }
    for (const std::exception_ptr& e : failed) {
      if (e) std::rethrow_exception(e);
    }
  }

  // Outright and repo trades: each table read in id ranges, one range per
  // connection at once (reading only bonds of the store), then added to
  // the store in id order, as one connection would.
  void trades(SnapshotReaders& readers) {
    const std::size_t parts = 1 + readers.size();
    const IdRanges outright_ids = id_ranges(Kind::outright_trade, parts), repo_ids = id_ranges(Kind::repo_trade, parts);
    std::vector<TradeRows<OutrightTrade>> outright(parts);
    std::vector<TradeRows<RepoTrade>> repo(parts);
    at_once(readers, parts, [&](base::Database& db, std::size_t p) {
      if (const auto where = outright_ids.where(p)) {
        outright[p] = read_trades<OutrightTrade>(db, Kind::outright_trade, *where, outright_ids.rows_per_part);
      }
      if (const auto where = repo_ids.where(p)) {
        repo[p] = read_trades<RepoTrade>(db, Kind::repo_trade, *where, repo_ids.rows_per_part);
      }
    });
    add_trades(Kind::outright_trade, outright, s().outright_trades);
    add_trades(Kind::repo_trade, repo, s().repo_trades);
  }

  // A table's ids cut into ranges of equal width (equal counts when ids are
  // dense), read in id order one after another as one ORDER BY id would.
  // Only a table whose id is its rowid (INTEGER PRIMARY KEY, as the schema
  // has it) is cut: its ids are whole numbers, never NULL.
  struct IdRanges {
    std::vector<std::int64_t> starts;  // part p: starts[p] <= id < starts[p + 1], the last unbounded
    std::size_t rows_per_part = 0;     // room per part: an uncut table's rows, a range's if its ids are dense
    // Part p's WHERE clause ("" for an uncut table, read as part 0), or nullopt if it has no rows to read.
    std::optional<std::string> where(std::size_t p) const {
      if (starts.empty()) return p == 0 ? std::optional(std::string()) : std::nullopt;
      std::string w = " WHERE id >= " + std::to_string(starts[p]);
      return p + 1 < starts.size() ? w + " AND id < " + std::to_string(starts[p + 1]) : w;
    }
  };
  IdRanges id_ranges(Kind kind, std::size_t parts) {
    IdRanges ranges;
    const std::string table(input_table(kind).name);
    base::Statement rowid = db_.prepare(
        "SELECT count(*) = 1 AND sum(name = 'id' AND upper(type) = 'INTEGER') = 1 FROM pragma_table_info(?) WHERE pk > 0");
    if (parts == 1 || !(rowid.bind(1, std::string_view(table)).step() && rowid.integer(0) == 1)) {
      ranges.rows_per_part = rows_[static_cast<std::size_t>(kind)];
      return ranges;
    }
    // Two subqueries: SQLite reads only an end of the rowid b-tree for a lone min() or max().
    base::Statement st = db_.prepare("SELECT (SELECT min(id) FROM " + table + "), (SELECT max(id) FROM " + table + ")");
    st.step();
    const auto lo = static_cast<std::uint64_t>(st.integer(0)), span = static_cast<std::uint64_t>(st.integer(1)) - lo;
    for (std::size_t p = 0; p < parts; ++p) ranges.starts.push_back(static_cast<std::int64_t>(lo + span / parts * p));
    ranges.rows_per_part = static_cast<std::size_t>(std::min<std::uint64_t>(span / parts + 1, 1u << 26));
    return ranges;
  }

  template <class Trade>
  TradeRows<Trade> read_trades(base::Database& db, Kind kind, const std::string& where, std::size_t room) const {
    const InputTable& table = input_table(kind);
    const std::vector<TradeField> fields = trade_fields(table);
    TradeRows<Trade> rows;
    rows.ids.reserve(room);  // growing would free memory the other reader's CPU maps too: costly on every CPU
    rows.trades.reserve(room);
    std::string error;
    scope_.each_row(db, select_all(table, db) + where, kind, "id", [&](const base::Statement& st) {
      rows.ids.push_back(st.integer(0));
      rows.trades.push_back(read_trade<Trade>(st, table, fields, out_.store, error));
      if (!error.empty()) rows.errors.emplace_back(rows.ids.size() - 1, std::exchange(error, {}));
    });
    return rows;
  }

  template <class Trade>
  void add_trades(Kind kind, std::vector<TradeRows<Trade>>& parts, base::HugeVector<Trade>& out) {
    std::size_t count = 0;
    for (const TradeRows<Trade>& part : parts) count += part.ids.size();
    if (parts.size() > 1) out.reserve(count);
    for (TradeRows<Trade>& part : parts) {
      const NodeIndex first = static_cast<NodeIndex>(out.size());
      for (std::int64_t id : part.ids) s().add(kind, id);
      if (parts.size() == 1) {
        out = std::move(part.trades);
      } else {
        out.insert(out.end(), part.trades.begin(), part.trades.end());
      }
      for (auto& [row, why] : part.errors) s().fail(ref(kind, first + static_cast<NodeIndex>(row)), std::move(why));
      part = {};  // the rows read are freed as they go in: a load holds them about once
    }
  }

  // Both kinds of books, then their members: the two membership tables
  // read at once on two connections when there are two. A table's reader
  // only collects what fails and warns, applied afterwards in row order, as
  // one connection would have.
  void books(SnapshotReaders& readers) {
    named_nodes(Kind::outright_book, [&](const Row&, NodeIndex) { s().outright_books.emplace_back(); });
    named_nodes(Kind::repo_book, [&](const Row&, NodeIndex) { s().repo_books.emplace_back(); });
    Membership outright, repo;
    at_once(readers, 2, [&](base::Database& db, std::size_t p) {
      if (p == 0) outright = members(db, Kind::outright_book, Kind::outright_trade, s().outright_books);
      if (p == 1) repo = members(db, Kind::repo_book, Kind::repo_trade, s().repo_books);
    });
    apply(Kind::outright_book, outright, s().outright_books);
    apply(Kind::repo_book, repo, s().repo_books);
  }

  // What reading a membership table found wrong, in row order.
  struct Membership {
    std::vector<std::string> warnings;                         // rows ignored
    std::vector<std::pair<NodeIndex, std::string>> failures;  // (book, why it fails)
  };

  // Adds each membership row's trade to its book. Only reads the store
  // (and writes `books`), so that both tables can be read at once.
  template <class Book>
  Membership members(base::Database& db, Kind book_kind, Kind member_kind, std::vector<Book>& books) const {
    Membership found;
    const Store& store = out_.store;
    const InputTable& table = membership_table(book_kind);
    const int trade_id = table.index("trade_id");  // found once, not per row
    scope_.each_row(db, select_all(table, db), book_kind, "book_id", [&](const base::Statement& st) {
      const NodeRef* book = store.by_id.find(st.integer(0));
      if (!book || kind_of(*book) != book_kind) {
        found.warnings.push_back(std::string(table.name) + " row (book_id " + st.value_text(0) + ", trade_id " +
                                 st.value_text(1) + ") names no " + std::string(kind_name(book_kind)) +
                                 "; row ignored");
        return;
      }
      try {
        const FieldValue trade = read_value(st, trade_id, table.columns[static_cast<std::size_t>(trade_id)]);
        books[book->index].members.push_back(resolve(store, member_kind, std::get<std::int64_t>(trade)));
      } catch (const FieldError& e) {
        found.failures.emplace_back(book->index, e.message);
      }
    }, "trade_id");
    return found;
  }

  template <class Book>
  void apply(Kind book_kind, Membership& found, std::vector<Book>& books) {
    for (std::string& warning : found.warnings) out_.warnings.push_back(std::move(warning));
    for (auto& [book, why] : found.failures) s().fail(ref(book_kind, book), std::move(why));
    // A failed book keeps no members, so it never reads an index it does not own.
    for (NodeIndex i = 0; i < books.size(); ++i) {
      if (s().state(ref(book_kind, i)).error != 0) books[i].members.clear();
    }
  }

  base::Database& db_;
  const std::vector<std::int64_t>* books_;
  RowScope scope_;
  std::array<std::size_t, kKindCount> rows_{};  // rows of each node kind's table in scope, counted once
  std::unordered_map<std::string, std::int64_t> isins_;  // each ISIN read: the bond that has it
  Loaded out_;
};

}  // namespace

Loaded load(base::Database& db, const std::vector<std::int64_t>* books) {
  Loaded loaded = Loader(db, books).run();
  if (!books) loaded.store.limits = read_limits(db);  // a subset of books is a batch run's: it checks no limit
  return loaded;
}

bool reread(base::Database& db, Store& store, NodeRef node) {
  if (kind_of(node) == Kind::bond) {  // its quote: a change to its own row loads everything again
    const InputTable& table = input_table("bond_quote");
    base::Statement st = db.prepare(select_all(table, db) + " WHERE bond_id = ?");
    st.bind(1, store.id(node));
    if (st.step()) {
      read_quote(store, node.index, st, table);
    } else {
      store.set_quote(node.index, std::nullopt);
    }
    return true;
  }
  store.clear_error(node);
  const bool curve = kind_of(node) == Kind::ir_curve;
  const InputTable& table = curve ? input_table("ir_curve_input_rate") : input_table(kind_of(node));
  base::Statement st = db.prepare(select_all(table, db) + " WHERE " + std::string(table.node_column) + " = ?" +
                                  (curve ? " ORDER BY idx" : ""));
  st.bind(1, store.id(node));
  if (curve) {
    const std::size_t points = store.curves[node.index].points.size();
    const int horizon = points ? store.curves[node.index].points.back().days_forward : 0;
    store.curves[node.index].points.clear();
    store.curves[node.index].point_idx.clear();
    while (st.step()) add_rate(store, node.index, Row(st, table));
    check_curve(store, node.index);
    // Else every ladder is laid out again, and the calendars' grids for the new horizon.
    const std::vector<CurvePoint>& now = store.curves[node.index].points;
    return now.size() == points && !now.empty() && now.back().days_forward == horizon;
  }
  if (!st.step()) return false;
  switch (kind_of(node)) {
    case Kind::outright_trade:
    case Kind::repo_trade: {
      std::string error;
      if (kind_of(node) == Kind::outright_trade) {
        store.outright_trades[node.index] = read_trade<OutrightTrade>(st, table, trade_fields(table), store, error);
      } else {
        store.repo_trades[node.index] = read_trade<RepoTrade>(st, table, trade_fields(table), store, error);
      }
      if (!error.empty()) store.fail(node, std::move(error));
      return true;
    }
    case Kind::calendar:
      try {
        store.calendars[node.index].today = std::get<Date>(Row(st, table)["today"]);
      } catch (const FieldError& e) {
        store.fail(node, e.message);
      }
      return true;
    default: throw std::logic_error("reread: " + std::string(kind_name(kind_of(node))) + " rows are not re-read");
  }
}

}  // namespace bond_risk
