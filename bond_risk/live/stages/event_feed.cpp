#include "bond_risk/live/stages/event_feed.h"

#include <numeric>

#include "bond_risk/db/event_log.h"
#include "bond_risk/protocol/messages.h"

namespace bond_risk {

namespace {

namespace member = protocol::member;

// An event as `last-events` replies it; its nodes and engine_us stay null
// unless this engine recalculated and committed it.
base::Json event_json(const LoggedEvent& e) {
  return {{member::seq, e.seq},
          {member::time, e.time},
          {member::command, e.command.substr(0, 200)},
          {member::nodes, nullptr},
          {member::engine_us, nullptr}};
}

}  // namespace

EventFeed::EventFeed(base::Database& db) {
  for (const LoggedEvent& e : last_events(db, kRecentEvents)) recent_.push_back(event_json(e));
}

void EventFeed::begin() {
  batch_clock_.restart();
  logged_.clear();
  logged_settled_ = 0;
}

void EventFeed::after(const Event& event) {
  if (event.logged) logged_.push_back(event_json(*event.logged));
}

void EventFeed::settled(const Settled& settled) {
  const auto& counts = settled.recalculation.nodes;
  const std::size_t nodes = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
  for (; logged_settled_ < logged_.size(); ++logged_settled_) logged_[logged_settled_][member::nodes] = nodes;
}

void EventFeed::committed() {
  for (base::Json& event : logged_) {
    event[member::engine_us] = batch_clock_.seconds() * 1e6;
    recent_.push_back(std::move(event));
    if (recent_.size() > kRecentEvents) recent_.pop_front();
  }
  logged_.clear();
  logged_settled_ = 0;
}

void EventFeed::refused(bool) {
  logged_.clear();
  logged_settled_ = 0;
}

}  // namespace bond_risk
