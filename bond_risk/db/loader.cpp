#include "bond_risk/db/loader.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace bond_risk {

namespace {

struct TableSpec {
  const char* table;
  std::vector<const char*> columns;
};

const std::vector<TableSpec>& input_tables() {
  static const std::vector<TableSpec> tables = {
      {"calendar", {"id", "name", "today"}},
      {"ir_curve", {"id", "name", "ccy"}},
      {"ir_curve_input_rate", {"ir_curve_id", "idx", "days_forward", "value"}},
      {"bond",
       {"id", "name", "calendar_id", "ir_curve_id", "start_date", "maturity_date", "coupons_per_year", "coupon"}},
      {"outright_trade", {"id", "name", "bond_id", "trade_date", "trade_price", "quantity", "buy_sell"}},
      {"repo_trade",
       {"id", "name", "bond_id", "calendar_id", "ir_curve_id", "start_date", "end_date", "notional", "start_cash",
        "rate", "cash_ccy", "buy_sell"}},
      {"outright_book", {"id", "name"}},
      {"outright_book_trade", {"book_id", "trade_id"}},
      {"repo_book", {"id", "name"}},
      {"repo_book_trade", {"book_id", "trade_id"}},
  };
  return tables;
}

std::string quoted(const base::Statement& st, int col) {
  switch (st.column_type(col)) {
    case SQLITE_NULL: return "NULL";
    case SQLITE_INTEGER: return std::to_string(st.integer(col));
    case SQLITE_FLOAT: return std::to_string(st.real(col));
    default: {
      // Built by append: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
      std::string text(1, '\'');
      return text.append(st.text(col).substr(0, 40)).append(1, '\'');
    }
  }
}

// "a bond", "an ir_curve".
std::string with_article(std::string_view noun) {
  return (std::string_view("aeiou").find(noun.front()) == std::string_view::npos ? "a " : "an ") + std::string(noun);
}

// Reads the fields of one row for one node; the first bad field fails the
// node (Store::fail) and later reads return harmless defaults.
class RowReader {
 public:
  RowReader(const base::Statement& st, Store& store, NodeRef node) : st_(st), store_(store), node_(node) {}

  double real(int col, const char* name) {
    const int type = st_.column_type(col);
    if (type != SQLITE_FLOAT && type != SQLITE_INTEGER) return bad(col, name, "is not a number"), 0.0;
    const double v = st_.real(col);
    if (!std::isfinite(v)) return bad(col, name, "is not finite"), 0.0;
    return v;
  }

  std::int64_t integer(int col, const char* name) {
    if (st_.column_type(col) == SQLITE_INTEGER) return st_.integer(col);
    if (st_.column_type(col) == SQLITE_FLOAT) {
      const double v = st_.real(col);
      if (std::isfinite(v) && v == std::trunc(v) && std::abs(v) < 9e15) return static_cast<std::int64_t>(v);
    }
    return bad(col, name, "is not a whole number"), 0;
  }

  Date date(int col, const char* name) {
    if (st_.column_type(col) == SQLITE_TEXT) {
      if (const auto d = parse_date(st_.text(col))) return *d;
    }
    return bad(col, name, "is not a YYYY-MM-DD date"), 0;
  }

  // +1 for BUY, -1 for SELL.
  int direction(int col) {
    const std::string_view v = st_.column_type(col) == SQLITE_TEXT ? st_.text(col) : "";
    if (v == "BUY") return 1;
    if (v == "SELL") return -1;
    return bad(col, "buy_sell", "is not BUY or SELL"), 1;
  }

  // The index of the node of `kind` whose id is in column `col`.
  NodeIndex reference(int col, Kind kind) {
    const std::string what(kind_name(kind));
    if (st_.column_type(col) != SQLITE_INTEGER) return bad(col, (what + "_id").c_str(), "is not an id"), 0;
    const std::int64_t id = st_.integer(col);
    const NodeRef* node = store_.by_id.find(id);
    if (!node) return fail("unknown " + what + " id " + std::to_string(id)), 0;
    if (kind_of(*node) != kind) {
      return fail("id " + std::to_string(id) + " is " + with_article(kind_name(kind_of(*node))) + ", not " +
                  with_article(what)),
             0;
    }
    return node->index;
  }

  std::string text(int col) const { return std::string(st_.text(col)); }

  void fail(std::string reason) { store_.fail(node_, std::move(reason)); }

 private:
  void bad(int col, const char* name, const char* problem) {
    fail(std::string(name) + " " + quoted(st_, col) + " " + problem);
  }

  const base::Statement& st_;
  Store& store_;
  NodeRef node_;
};

constexpr const char* kOutrightSelect =
    "SELECT id, bond_id, trade_date, trade_price, quantity, buy_sell FROM outright_trade";

OutrightTrade read_outright(RowReader& row) {
  OutrightTrade t;
  t.bond = row.reference(1, Kind::bond);
  row.date(2, "trade_date");  // validated, not used by the model
  t.trade_price = row.real(3, "trade_price");
  t.quantity = row.integer(4, "quantity");
  t.dir = row.direction(5);
  return t;
}

constexpr const char* kRepoSelect =
    "SELECT id, bond_id, calendar_id, ir_curve_id, start_date, end_date, notional, start_cash, rate, buy_sell "
    "FROM repo_trade";

RepoTrade read_repo(RowReader& row) {
  RepoTrade t;
  t.bond = row.reference(1, Kind::bond);
  t.calendar = row.reference(2, Kind::calendar);
  t.curve = row.reference(3, Kind::ir_curve);
  const Date start = row.date(4, "start_date");
  t.end = row.date(5, "end_date");
  t.notional = row.integer(6, "notional");
  t.start_cash = row.real(7, "start_cash");
  t.rate = row.real(8, "rate");
  row.direction(9);  // validated; buy_sell does not enter the repo formulas
  if (t.end < start) row.fail("end_date " + format_date(t.end) + " is before start_date " + format_date(start));
  return t;
}

constexpr const char* kRateSelect = "SELECT ir_curve_id, idx, days_forward, value FROM ir_curve_input_rate";

// Appends one ir_curve_input_rate row to its curve's points.
void read_rate(RowReader& row, const base::Statement& st, IrCurve& curve) {
  // Clamped so that absurd days stay absurd as an int (check_curve_points rejects them).
  const auto days = static_cast<int>(std::clamp<std::int64_t>(row.integer(2, "days_forward"), -1, 1 << 30));
  curve.points.push_back({days, row.real(3, "value")});
  curve.point_idx.push_back(st.integer(1));
}

// Fails the curve if its points cannot define it.
void check_curve(Store& store, NodeIndex i) {
  std::string problem = check_curve_points(store.curves[i].points);
  if (!problem.empty()) store.fail(ref(Kind::ir_curve, i), std::move(problem));
}

std::size_t row_count(base::Database& db, const std::string& table) {
  base::Statement st = db.prepare("SELECT count(*) FROM " + table);
  st.step();
  return static_cast<std::size_t>(st.integer(0));
}

class Loader {
 public:
  explicit Loader(base::Database& db) : db_(db) {}

  Loaded run() {
    check_input_schema(db_);
    std::size_t nodes = 0;
    for (std::size_t k = 0; k < kKindCount; ++k) nodes += row_count(db_, std::string(kind_name(static_cast<Kind>(k))));
    s().by_id.reserve(nodes);
    calendars();
    curves();
    bonds();
    outright_trades();
    repo_trades();
    books(Kind::outright_book, Kind::outright_trade, out_.store.outright_books, "outright_book_trade");
    books(Kind::repo_book, Kind::repo_trade, out_.store.repo_books, "repo_book_trade");
    s().bond_values.resize(s().bonds.size());
    s().outright_values.resize(s().outright_trades.size());
    s().repo_values.resize(s().repo_trades.size());
    return std::move(out_);
  }

 private:
  Store& s() { return out_.store; }

  // Calls read(reader, index) for every row of `select`, each a new node of
  // `kind` whose id is the first column.
  template <class Read>
  void each_node(Kind kind, const char* select, Read read) {
    base::Statement st = db_.prepare(select);
    while (st.step()) {
      const NodeIndex i = s().add(kind, st.integer(0));
      RowReader row(st, s(), ref(kind, i));
      read(row, i);
    }
  }

  void calendars() {
    each_node(Kind::calendar, "SELECT id, today, name FROM calendar ORDER BY id", [&](RowReader& row, NodeIndex i) {
      s().calendars.push_back({row.date(1, "today")});
      name(row, 2, ref(Kind::calendar, i));
    });
  }

  void curves() {
    each_node(Kind::ir_curve, "SELECT id, name FROM ir_curve ORDER BY id", [&](RowReader& row, NodeIndex i) {
      s().curves.emplace_back();
      name(row, 1, ref(Kind::ir_curve, i));
    });
    base::Statement st = db_.prepare(std::string(kRateSelect) + " ORDER BY ir_curve_id, idx");
    while (st.step()) {
      const NodeRef* curve = s().by_id.find(st.integer(0));
      if (!curve || kind_of(*curve) != Kind::ir_curve) {
        out_.warnings.push_back("ir_curve_input_rate row (ir_curve_id " + quoted(st, 0) + ", idx " + quoted(st, 1) +
                                ") names no ir_curve; row ignored");
        continue;
      }
      RowReader row(st, s(), *curve);
      read_rate(row, st, s().curves[curve->index]);
    }
    for (NodeIndex i = 0; i < s().curves.size(); ++i) check_curve(s(), i);
  }

  void bonds() {
    s().bonds.reserve(row_count(db_, "bond"));
    each_node(Kind::bond,
              "SELECT id, calendar_id, ir_curve_id, start_date, maturity_date, coupons_per_year, coupon FROM bond "
              "ORDER BY id",
              [&](RowReader& row, NodeIndex i) {
                Bond b;
                b.calendar = row.reference(1, Kind::calendar);
                b.curve = row.reference(2, Kind::ir_curve);
                b.start = row.date(3, "start_date");
                b.maturity = row.date(4, "maturity_date");
                const std::int64_t coupons_per_year = row.integer(5, "coupons_per_year");
                b.coupon = row.real(6, "coupon");
                if (coupons_per_year != 1 && coupons_per_year != 2 && coupons_per_year != 4) {
                  row.fail("coupons_per_year " + std::to_string(coupons_per_year) + " is not 1, 2 or 4");
                } else if (b.maturity <= b.start) {
                  row.fail("maturity_date " + format_date(b.maturity) + " is not after start_date " +
                           format_date(b.start));
                }
                b.coupons_per_year = static_cast<int>(coupons_per_year);
                if (s().state(ref(Kind::bond, i)).error == 0) {
                  const std::vector<Date> schedule = coupon_schedule(b.start, b.maturity, b.coupons_per_year);
                  b.schedule_begin = static_cast<std::uint32_t>(s().coupon_dates.size());
                  b.schedule_size = static_cast<std::uint32_t>(schedule.size());
                  s().coupon_dates.insert(s().coupon_dates.end(), schedule.begin(), schedule.end());
                }
                s().bonds.push_back(b);
              });
  }

  void outright_trades() {
    s().outright_trades.reserve(row_count(db_, "outright_trade"));
    each_node(Kind::outright_trade, (std::string(kOutrightSelect) + " ORDER BY id").c_str(),
              [&](RowReader& row, NodeIndex) { s().outright_trades.push_back(read_outright(row)); });
  }

  void repo_trades() {
    s().repo_trades.reserve(row_count(db_, "repo_trade"));
    each_node(Kind::repo_trade, (std::string(kRepoSelect) + " ORDER BY id").c_str(),
              [&](RowReader& row, NodeIndex) { s().repo_trades.push_back(read_repo(row)); });
  }

  // Calendars, curves and books are few and named in events: their names are kept.
  void name(RowReader& row, int col, NodeRef node) { s().names.emplace(row.text(col), node); }

  template <class Book>
  void books(Kind book_kind, Kind member_kind, std::vector<Book>& books, const std::string& link_table) {
    const std::string table(kind_name(book_kind));
    each_node(book_kind, ("SELECT id, name FROM " + table + " ORDER BY id").c_str(), [&](RowReader& row, NodeIndex i) {
      books.emplace_back();
      name(row, 1, ref(book_kind, i));
    });
    base::Statement st = db_.prepare("SELECT book_id, trade_id FROM " + link_table + " ORDER BY book_id, trade_id");
    while (st.step()) {
      const NodeRef* book = s().by_id.find(st.integer(0));
      if (!book || kind_of(*book) != book_kind) {
        out_.warnings.push_back(link_table + " row (book_id " + quoted(st, 0) + ", trade_id " + quoted(st, 1) +
                                ") names no " + table + "; row ignored");
        continue;
      }
      RowReader row(st, s(), *book);
      const NodeIndex member = row.reference(1, member_kind);
      if (s().state(*book).error == 0) books[book->index].members.push_back(member);
    }
    // A failed book keeps no members, so it never reads an index it does not own.
    for (NodeIndex i = 0; i < books.size(); ++i) {
      if (s().state(ref(book_kind, i)).error != 0) books[i].members.clear();
    }
  }

  base::Database& db_;
  Loaded out_;
};

}  // namespace

void check_input_schema(base::Database& db) {
  for (const TableSpec& t : input_tables()) {
    if (!db.has_table(t.table)) {
      throw std::runtime_error("database " + db.path() + " has no table " + t.table +
                               " (create the tables with: sqlite3 " + db.path() + " < schema/bond_risk.sql)");
    }
    for (const char* c : t.columns) {
      if (!db.has_column(t.table, c)) {
        throw std::runtime_error("database " + db.path() + ": table " + t.table + " has no column " + c +
                                 " (see schema/bond_risk.sql)");
      }
    }
  }
}

Loaded load(base::Database& db) { return Loader(db).run(); }

bool reread(base::Database& db, Store& store, NodeRef node) {
  store.state(node).error = 0;
  const std::int64_t id = store.id(node);
  // Reads the node's one row of `select` into `read`; false if it is gone.
  auto read_one = [&](const char* select, auto read) {
    base::Statement st = db.prepare(std::string(select) + " WHERE id = ?");
    st.bind(1, id);
    if (!st.step()) return false;
    RowReader row(st, store, node);
    read(row);
    return true;
  };
  switch (kind_of(node)) {
    case Kind::outright_trade:
      return read_one(kOutrightSelect, [&](RowReader& row) { store.outright_trades[node.index] = read_outright(row); });
    case Kind::repo_trade:
      return read_one(kRepoSelect, [&](RowReader& row) { store.repo_trades[node.index] = read_repo(row); });
    case Kind::calendar:
      return read_one("SELECT id, today FROM calendar",
                      [&](RowReader& row) { store.calendars[node.index].today = row.date(1, "today"); });
    case Kind::ir_curve: {
      IrCurve& curve = store.curves[node.index];
      curve.points.clear();
      curve.point_idx.clear();
      base::Statement st = db.prepare(std::string(kRateSelect) + " WHERE ir_curve_id = ? ORDER BY idx");
      st.bind(1, id);
      while (st.step()) {
        RowReader row(st, store, node);
        read_rate(row, st, curve);
      }
      check_curve(store, node.index);
      return true;
    }
    default: throw std::logic_error("reread: " + std::string(kind_name(kind_of(node))) + " rows are not re-read");
  }
}


}  // namespace bond_risk
