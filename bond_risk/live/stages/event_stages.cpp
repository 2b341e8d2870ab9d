#include "bond_risk/live/stages/event_stages.h"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <utility>

namespace bond_risk {

bool EventStages::joins(const Change& change) {
  bool joins = true;
  const Event asked{&change};
  each([&](EventStage& s) { joins &= s.joins(asked); });  // every stage is asked
  apart_ = !joins;
  return joins;
}

Applied EventStages::apply(const Change& change, const std::function<Logged()>& apply) {
  if (apart_ && awaiting_) throw std::logic_error("a change that joins no group is applied before the group settles");
  const Event asked{&change};
  each([&](EventStage& s) { s.before(asked); });
  const base::Stopwatch clock;
  Logged logged = apply();
  phases_.add(Phase::apply, clock.seconds());
  if (logged.event) served_ = logged.event->seq;
  awaiting_ = true;
  const Event done{&change, &logged.applied, logged.event ? &*logged.event : nullptr};
  each([&](EventStage& s) { s.after(done); });
  return std::move(logged.applied);
}

const LiveModel::Recalculation& EventStages::external(const Change& rows, const std::function<Logged()>& apply) {
  settle();
  joins(rows);  // asked, as of any change; alone whatever the answer
  this->apply(rows, apply);
  external_ = true;
  return *settle();
}

const LiveModel::Recalculation* EventStages::settle(bool values_first) {
  if (!awaiting_) return nullptr;
  awaiting_ = false;
  const base::Stopwatch clock;
  last_ = model_.recalculate(values_first);
  phases_.add(Phase::recalculate, clock.seconds());
  settled_external_ = std::exchange(external_, false);
  const Settled settled{last_, served_, settled_external_};
  each([&](EventStage& s) { s.settled(settled); });
  if (!model_.completing()) completed(LiveModel::Recalculation{});
  return &last_;
}

void EventStages::complete() {
  if (!model_.completing()) return;
  const base::Stopwatch clock;
  LiveModel::Recalculation again = model_.complete();
  phases_.add(Phase::rest, clock.seconds());
  completed(std::move(again));
}

void EventStages::completed(LiveModel::Recalculation again) {
  again_ = std::move(again);
  const Settled done{last_, served_, settled_external_, &again_};
  each([&](EventStage& s) { s.completed(done); });
#ifndef NDEBUG
  check();
#endif
}

bool EventStages::writes() const {
  return std::ranges::any_of(stages_, [](const auto& stage) { return stage->writes(); });
}

void EventStages::check() const {
  model_.graph().check();
  model_.store().check();
  for (const auto& stage : stages_) stage->check();
}

void EventStages::begin() {
  each([](EventStage& s) { s.begin(); });
}

void EventStages::write(base::Database& db) {
  each([&](EventStage& s) { s.write(db); });
}

void EventStages::committed() {
  each([](EventStage& s) { s.committed(); });
}

void EventStages::refused(bool read_back, std::int64_t served) {
  awaiting_ = external_ = false;
  served_ = served;
  // Every stage hears of it, even when one fails (reading the database
  // back): a model read back whole must reach the result marks and the
  // watchers whatever the explain's re-reading does.
  std::exception_ptr failed;
  each([&](EventStage& s) {
    try {
      s.refused(read_back);
    } catch (...) {
      if (!failed) failed = std::current_exception();
    }
  });
  if (failed) std::rethrow_exception(failed);
}

}  // namespace bond_risk
