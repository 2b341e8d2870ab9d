#include "bond_risk/live/stages/watched_changes.h"

#include "base/json.h"
#include "bond_risk/protocol/node_replies.h"
#include "bond_risk/protocol/messages.h"

namespace bond_risk {

namespace member = protocol::member;

void WatchedChanges::after(const Event& event) {
  if (event.applied && std::holds_alternative<DayStart>(event.applied->write)) day_started_ = true;
}

void WatchedChanges::settled(const Settled& settled) {
  const LiveModel::Recalculation& r = settled.recalculation;
  if (day_started_) every_book_changed();
  day_started_ = false;
  all_ |= r.whole;
  any_ = true;
  for (std::size_t k = 0; k < kKindCount && !all_; ++k) {
    engine::Bitmap& changed = changed_[k];
    const std::size_t size = model_.store().size(static_cast<Kind>(k));
    if (changed.size() < size) changed.resize(size);
    changed.set_all(std::span(r.changed[k]));
  }
}

void WatchedChanges::refused(bool read_back) {
  day_started_ = false;
  if (read_back) all_ = any_ = true;
}

void WatchedChanges::every_book_changed() {
  any_ = true;
  for (Kind kind : {Kind::outright_book, Kind::repo_book}) {
    engine::Bitmap& changed = changed_[static_cast<std::size_t>(kind)];
    const std::size_t size = model_.store().size(kind);
    if (changed.size() < size) changed.resize(size);
    for (NodeIndex i = 0; i < size; ++i) changed.set(i);
  }
}

bool WatchedChanges::changed(std::int64_t id) const {
  if (all_) return true;
  const NodeRef* node = model_.store().by_id.find(id);
  if (!node) return true;  // gone: its last update says so
  const engine::Bitmap& changed = changed_[node->type];
  return node->index < changed.size() && changed.test(node->index);
}

void WatchedChanges::forget() {
  all_ = any_ = false;
  for (engine::Bitmap& changed : changed_) changed.clear();
}

std::string WatchedChanges::update_values(std::int64_t id) {
  ++lines_;
  const NodeRef* node = model_.store().by_id.find(id);
  if (!node || model_.store().state(*node).status == Status::removed) {
    return base::dump_line({{member::id, id}, {member::status, protocol::word::removed}});
  }
  base::Json values = protocol::node_json(model_.store(), model_.graph(), *node);
  if (is_book(kind_of(*node))) values[member::day_pnl] = book_measure(model_.store(), *node) - explainer_.day().baseline(id);
  return base::dump_line(values);
}

}  // namespace bond_risk
