#include "bond_risk/db/row_scope.h"

#include <algorithm>
#include <stdexcept>

#include "bond_risk/model/inputs/input_tables.h"

namespace bond_risk {

namespace {

// A run ends where the next id is more than this further: reading the rows
// between costs less than a look-up of its own.
constexpr std::uint64_t kGap = 32;

std::vector<std::int64_t> sorted(std::vector<std::int64_t> ids) {
  std::ranges::sort(ids);
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace

RowScope::RowScope(base::Database& db, const std::vector<std::int64_t>& books) : whole_(false), books_(sorted(books)) {
  std::vector<std::int64_t> bonds;
  for (Kind book : {Kind::outright_book, Kind::repo_book}) {
    const Kind trade = book == Kind::outright_book ? Kind::outright_trade : Kind::repo_trade;
    std::vector<std::int64_t>& trades = trades_[trade == Kind::repo_trade];
    each_row(db, "SELECT book_id, trade_id FROM " + std::string(membership_table(book).name), book, "book_id",
             [&](const base::Statement& st) { trades.push_back(st.integer(1)); });
    trades = sorted(std::move(trades));
    each_row(db, "SELECT id, bond_id FROM " + std::string(input_table(trade).name), trade, "id",
             [&](const base::Statement& st) { bonds.push_back(st.integer(1)); });
  }
  bonds_ = sorted(std::move(bonds));
}

const std::vector<std::int64_t>* RowScope::ids(Kind kind) const {
  if (whole_ || kind == Kind::calendar || kind == Kind::ir_curve) return nullptr;
  if (is_book(kind)) return &books_;  // ids are unique across kinds: one set serves both
  if (kind == Kind::bond) return &bonds_;
  return &trades_[kind == Kind::repo_trade];
}

void RowScope::each_row(base::Database& db, const std::string& select, Kind kind, std::string_view key,
                        const std::function<void(const base::Statement&)>& on_row, std::string_view then) const {
  const std::string order = " ORDER BY " + std::string(key) + (then.empty() ? "" : ", ") + std::string(then);
  const std::vector<std::int64_t>* in = ids(kind);
  if (!in) {
    base::Statement st = db.prepare(select + order);
    while (st.step()) on_row(st);
    return;
  }
  if (select.find(" WHERE ") != std::string::npos) throw std::logic_error("a share's rows are read without a WHERE");
  base::Statement st = db.prepare(select + " WHERE " + std::string(key) + " BETWEEN ?1 AND ?2" + order);
  auto next = in->begin();  // the first id not yet passed: rows come in key order
  for (auto first = in->begin(); first != in->end();) {
    auto last = first;  // the run's last id: the next one is more than kGap further
    while (last + 1 != in->end() && static_cast<std::uint64_t>(*(last + 1)) - static_cast<std::uint64_t>(*last) <= kGap) {
      ++last;
    }
    st.reset();
    st.bind(1, *first).bind(2, *last);
    while (st.step()) {
      const std::int64_t id = st.integer(0);
      while (*next < id) ++next;  // the run's rows lie within [*first, *last], so next stops by last
      if (*next == id) on_row(st);
    }
    first = last + 1;
  }
}

}  // namespace bond_risk
