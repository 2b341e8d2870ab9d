#include "bond_risk/model/store/trade_links.h"

#include <algorithm>
#include <vector>

namespace bond_risk {

namespace {

// Replaces the publishers of `node` with `inputs`.
void relink(engine::Graph& graph, NodeRef node, const std::vector<NodeRef>& inputs) {
  const std::vector<NodeRef> old(graph.publishers(node).begin(), graph.publishers(node).end());
  for (NodeRef p : old) graph.unsubscribe(node, p);
  for (NodeRef p : inputs) graph.subscribe(node, p);
}

std::vector<NodeRef> inputs_of(const Store& store, NodeRef trade) {
  if (store.state(trade).error != 0) return {};
  if (kind_of(trade) == Kind::outright_trade) return {ref(Kind::bond, store.outright_trades[trade.index].bond)};
  const RepoTrade& t = store.repo_trades[trade.index];
  return {ref(Kind::calendar, t.calendar), ref(Kind::bond, t.bond), ref(Kind::ir_curve, t.curve)};
}

std::vector<NodeIndex>& members_of(Store& store, NodeRef book) {
  return kind_of(book) == Kind::outright_book ? store.outright_books[book.index].members
                                              : store.repo_books[book.index].members;
}

}  // namespace

void link_trade(const Store& store, engine::Graph& graph, NodeRef trade) { relink(graph, trade, inputs_of(store, trade)); }

NodeRef add_trade_node(Store& store, engine::Graph& graph, Kind kind, std::int64_t id) {
  const NodeRef t = ref(kind, store.add(kind, id));
  if (kind == Kind::outright_trade) {
    store.outright_trades.emplace_back();
    store.outright_values.emplace_back();
    store.outright_cs01.push_back(kNull);  // OK until calculated: see Store
    store.outright_quoted.push_back(Quoted::no);
  } else {
    store.repo_trades.emplace_back();
    store.repo_values.emplace_back();
  }
  graph.add_nodes(static_cast<engine::TypeId>(kind));
  return t;
}

void join_book(Store& store, engine::Graph& graph, NodeRef book, NodeRef trade) {
  members_of(store, book).push_back(trade.index);
  graph.subscribe(book, trade);
  graph.mark_dirty(book);
}

std::size_t detach_trade(Store& store, engine::Graph& graph, NodeRef trade) {
  const std::span<const NodeRef> books = graph.subscribers(trade);
  const std::size_t count = books.size();
  for (NodeRef b : books) std::erase(members_of(store, b), trade.index);
  graph.retire(trade);  // never dirty or calculated again; its books recalculate
  store.state(trade).status = Status::removed;
  return count;
}

}  // namespace bond_risk
