#include "bond_risk/db/change_writer.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "bond_risk/db/table_rows.h"

namespace bond_risk {

namespace {

struct Persist {
  base::Database& db;

  void operator()(const CurveRates& w) const {
    base::Statement& st = db.cached("UPDATE ir_curve_input_rate SET value = ? WHERE ir_curve_id = ? AND idx = ?");
    for (const auto& [idx, value] : w.rates) st.bind(1, value).bind(2, w.curve_id).bind(3, idx).run();
  }

  void operator()(const CalendarDates& w) const {
    base::Statement& st = db.cached("UPDATE calendar SET today = ? WHERE id = ?");
    for (std::int64_t id : w.calendar_ids) st.bind(1, format_date(w.today)).bind(2, id).run();
  }

  void operator()(const TradeRow& w) const {
    if (w.fields.empty()) return;
    const std::string table(kind_name(w.kind));
    std::string sql;
    if (w.insert) {
      std::string columns = "id", params = "?";
      for (const Field& f : w.fields) columns += ", " + f.column, params += ", ?";
      sql = "INSERT INTO " + table + " (" + columns + ") VALUES (" + params + ")";
    } else {
      std::string sets;
      for (const Field& f : w.fields) sets += (sets.empty() ? "" : ", ") + f.column + " = ?";
      sql = "UPDATE " + table + " SET " + sets + " WHERE id = ?";
    }
    base::Statement& st = db.cached(sql);
    int param = 1;
    if (w.insert) st.bind(param++, w.id);
    for (const Field& f : w.fields) bind_value(st, param++, f.value);
    if (!w.insert) st.bind(param, w.id);
    st.run();
    if (w.book_id) {
      const InputTable& members = membership_table(w.kind == Kind::outright_trade ? Kind::outright_book : Kind::repo_book);
      db.cached(insert_all(members)).bind(1, *w.book_id).bind(2, w.id).run();
    }
  }

  // A tick's quotes go up to kQuotesPerInsert rows to a statement: a
  // statement's fixed cost (its journal) is paid per
  // chunk, not per quote.
  void operator()(const BondQuotes& w) const {
    constexpr std::size_t kQuotesPerInsert = 32;
    base::Statement& clear = db.cached("DELETE FROM bond_quote WHERE bond_id = ?");
    std::vector<std::pair<std::int64_t, double>> set;
    for (const auto& [id, price] : w.quotes) {
      if (price) {
        set.emplace_back(id, *price);
      } else {
        clear.bind(1, id).run();
      }
    }
    for (std::size_t first = 0; first < set.size(); first += kQuotesPerInsert) {
      const std::size_t rows = std::min(kQuotesPerInsert, set.size() - first);
      std::string sql = "INSERT OR REPLACE INTO bond_quote (bond_id, clean_price) VALUES (?, ?)";
      for (std::size_t r = 1; r < rows; ++r) sql += ", (?, ?)";
      base::Statement& insert = db.cached(sql);
      for (std::size_t r = 0; r < rows; ++r) {
        insert.bind(static_cast<int>(2 * r + 1), set[first + r].first).bind(static_cast<int>(2 * r + 2), set[first + r].second);
      }
      insert.run();
    }
  }

  void operator()(const DayStart&) const {}

  void operator()(const LimitRow& w) const {
    const RiskLimit& l = w.limit;
    base::Statement& st = db.cached(
        "INSERT INTO risk_limit (id, book_id, measure, ir_curve_id, idx, lower, upper) VALUES (?, ?, ?, ?, ?, ?, ?)");
    st.bind(1, l.id).bind(3, std::string_view(l.measure));
    auto whole = [&](int param, const std::optional<std::int64_t>& v) { v ? st.bind(param, *v) : st.bind_null(param); };
    auto bound = [&](int param, double v) { std::isfinite(v) ? st.bind(param, v) : st.bind_null(param); };
    whole(2, l.book_id), whole(4, l.ir_curve_id), whole(5, l.idx), bound(6, l.lower), bound(7, l.upper);
    st.run();
  }

  void operator()(const RowsWritten&) const {}  // other programs wrote them

  void operator()(const LimitRemoval& w) const { db.cached("DELETE FROM risk_limit WHERE id = ?").bind(1, w.id).run(); }

  void operator()(const TradeRemoval& w) const {
    const std::string table(kind_name(w.kind));
    const InputTable& members = membership_table(w.kind == Kind::outright_trade ? Kind::outright_book : Kind::repo_book);
    db.cached("DELETE FROM " + table + " WHERE id = ?").bind(1, w.id).run();
    db.cached("DELETE FROM " + std::string(members.name) + " WHERE trade_id = ?").bind(1, w.id).run();
  }
};

}  // namespace

void persist(base::Database& db, const Write& write) { std::visit(Persist{db}, write); }

std::optional<std::int64_t> find_id_by_name(base::Database& db, std::string_view name) {
  for (Kind kind : {Kind::bond, Kind::outright_trade, Kind::repo_trade}) {
    base::Statement& st = db.cached("SELECT id FROM " + std::string(kind_name(kind)) + " WHERE name = ?");
    st.bind(1, name);
    const bool found = st.step();
    const std::int64_t id = found ? st.integer(0) : 0;
    st.reset();
    if (found) return id;
  }
  return std::nullopt;
}

std::optional<StoredBook> find_stored_book(base::Database& db, std::string_view key) {
  for (Kind kind : {Kind::outright_book, Kind::repo_book}) {
    base::Statement find = db.prepare("SELECT id, name FROM " + std::string(kind_name(kind)) +
                                      " WHERE name = ?1 OR CAST(id AS TEXT) = ?1 LIMIT 1");
    find.bind(1, key);
    if (find.step()) return StoredBook{kind, find.integer(0), std::string(find.text(1))};
  }
  return std::nullopt;
}

std::optional<Date> stored_date(base::Database& db, Kind kind, std::int64_t id, std::string_view column) {
  base::Statement& st =
      db.cached("SELECT " + std::string(column) + " FROM " + std::string(kind_name(kind)) + " WHERE id = ?");
  st.bind(1, id);
  const std::optional<Date> date = st.step() ? parse_date(st.text(0)) : std::nullopt;
  st.reset();
  return date;
}

}  // namespace bond_risk
