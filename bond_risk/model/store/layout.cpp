#include "bond_risk/model/store/layout.h"

#include <algorithm>
#include <numeric>
#include <tuple>
#include <utility>

namespace bond_risk {

namespace {

// The positions of `count` nodes sorted by key(index), ties in index order:
// order[new] = old.
template <class Key>
std::vector<NodeIndex> sorted_order(std::size_t count, Key key) {
  std::vector<NodeIndex> order(count);
  std::iota(order.begin(), order.end(), NodeIndex{0});
  std::stable_sort(order.begin(), order.end(), [&](NodeIndex a, NodeIndex b) { return key(a) < key(b); });
  return order;
}

template <class T, class A>
void permute(std::vector<T, A>& v, const std::vector<NodeIndex>& order) {
  std::vector<T, A> out;
  out.reserve(v.size());
  for (NodeIndex old : order) out.push_back(std::move(v[old]));
  v = std::move(out);
}

// Moves the nodes of `kind` (and the arrays given) into `order`; returns
// new index by old index.
template <class... Arrays>
std::vector<NodeIndex> reorder(Store& s, Kind kind, const std::vector<NodeIndex>& order, Arrays&... arrays) {
  const auto k = static_cast<std::size_t>(kind);
  std::vector<NodeIndex> new_of_old(order.size());
  for (NodeIndex n = 0; n < order.size(); ++n) new_of_old[order[n]] = n;
  // The id index names the first node of each id (a duplicate is FAILED and not in it).
  std::vector<std::pair<std::int64_t, NodeIndex>> moved;
  for (NodeIndex old = 0; old < order.size(); ++old) {
    const NodeRef* r = s.by_id.find(s.ids[k][old]);
    if (r && *r == ref(kind, old)) moved.emplace_back(s.ids[k][old], new_of_old[old]);
  }
  for (const auto& [id, index] : moved) s.by_id.replace(id, ref(kind, index));
  permute(s.ids[k], order);
  permute(s.states[k], order);
  (permute(arrays, order), ...);
  return new_of_old;
}

// Trades in the order of their first book's members; trades in no book last.
template <class Book, class Trade, class... Columns>
void by_book(Store& s, Kind kind, std::vector<Book>& books, base::HugeVector<Trade>& trades, Columns&... columns) {
  std::vector<NodeIndex> order;
  std::vector<unsigned char> placed(trades.size(), 0);
  order.reserve(trades.size());
  for (const Book& b : books) {
    for (NodeIndex m : b.members) {
      if (placed[m]) continue;
      placed[m] = 1;
      order.push_back(m);
    }
  }
  for (NodeIndex i = 0; i < trades.size(); ++i) {
    if (!placed[i]) order.push_back(i);
  }
  const std::vector<NodeIndex> new_of_old = reorder(s, kind, order, trades, columns...);
  for (Book& b : books) {
    for (NodeIndex& m : b.members) m = new_of_old[m];
  }
}

// Where a bond lies: by curve, calendar, coupon grid and maturity's period.
std::tuple<NodeIndex, NodeIndex, std::uint16_t, std::int32_t> place_of(const Bond& b) {
  return {b.curve, b.calendar, b.place.grid, b.place.period};
}

}  // namespace

std::vector<NodeIndex> in_id_order(const Store& s, Kind kind) {
  const auto& ids = s.ids[static_cast<std::size_t>(kind)];
  return sorted_order(ids.size(), [&](NodeIndex i) { return ids[i]; });
}

void group_by_dependency(Store& s) {
  const std::vector<NodeIndex> bonds =
      reorder(s, Kind::bond, sorted_order(s.bonds.size(), [&](NodeIndex i) { return place_of(s.bonds[i]); }), s.bonds,
              s.bond_values, s.bond_cs01, s.bond_quoted);
  auto remap = [&](NodeIndex& bond) { bond = bond < bonds.size() ? bonds[bond] : bond; };  // a FAILED trade may name none
  for (OutrightTrade& t : s.outright_trades) remap(t.bond);
  for (RepoTrade& t : s.repo_trades) remap(t.bond);
  by_book(s, Kind::outright_trade, s.outright_books, s.outright_trades, s.outright_values, s.outright_cs01,
          s.outright_quoted);
  by_book(s, Kind::repo_trade, s.repo_books, s.repo_trades, s.repo_values);
}

}  // namespace bond_risk
