#include "bond_risk/protocol/explain_replies.h"

#include <map>
#include <string>
#include <unordered_set>

#include "bond_risk/protocol/messages.h"

namespace bond_risk::protocol {

namespace {

// Per cause name: the actual move, and the prediction when one was made.
using Causes = std::map<std::string, CauseTotal>;

base::Json totals_json(const Causes& causes, double day_pnl) {
  base::Json list = base::Json::array();
  double sum = 0;
  for (const auto& [name, total] : causes) {
    base::Json c = {{member::cause, name}, {member::actual, total.actual}};
    if (total.has_prediction) c[member::predicted] = total.predicted, c[member::unexplained] = total.actual - total.predicted;
    list.push_back(std::move(c));
    sum += total.actual;
  }
  return {{member::day_pnl, day_pnl}, {member::causes, std::move(list)}, {member::residual, day_pnl - sum}};
}

}  // namespace

base::Json explain_json(const Store& s, const PnlDay& day, std::optional<NodeRef> only) {
  base::Json out = {{member::day, {{member::after_event, day.started_after()}, {member::time, day.started_at()}}}};
  base::Json books = base::Json::array();
  Causes all;
  double total_pnl = 0;
  auto book_json = [&](NodeRef book) {
    const std::int64_t id = s.id(book);
    const double measure = book_measure(s, book), baseline = day.baseline(id);
    Causes causes;
    for (const auto& [cause, total] : day.explain(id)) causes[cause_name(s, cause)] += total;
    for (const auto& [name, total] : causes) all[name] += total;
    total_pnl += measure - baseline;
    base::Json b = {{member::id, id}, {member::name, s.name_of(book)}, {member::type, kind_name(kind_of(book))}, {member::measure, measure},
                    {member::baseline, baseline}};
    b.update(totals_json(causes, measure - baseline));
    return b;
  };
  if (only) {
    out.update(book_json(*only));
    return out;
  }
  for (NodeIndex b = 0; b < s.outright_books.size(); ++b) books.push_back(book_json(ref(Kind::outright_book, b)));
  for (NodeIndex b = 0; b < s.repo_books.size(); ++b) books.push_back(book_json(ref(Kind::repo_book, b)));
  // Books deleted since the day began stay in its total, measuring 0 (model/pnl/pnl_day.h).
  const std::unordered_set<std::int64_t> there = book_ids(s);
  for (const std::int64_t id : day.book_ids()) {
    if (there.contains(id)) continue;
    for (const auto& [cause, total] : day.explain(id)) all[cause_name(s, cause)] += total;
    total_pnl -= day.baseline(id);
  }
  out[member::books] = std::move(books);
  out[member::total] = totals_json(all, total_pnl);
  return out;
}

base::Json explain_events_json(const Store& s, NodeRef book, std::span<const ShownMove> moves) {
  base::Json events = base::Json::array();
  for (const ShownMove& m : moves) {
    base::Json e = {{member::seq, m.move.seq},
                    {member::time, nullptr},
                    {member::command, "changes by other programs"},
                    {member::cause, cause_name(s, m.move.cause)},
                    {member::move, m.move.move}};
    if (m.event) {
      e[member::seq] = m.event->seq;
      e[member::time] = m.event->time;
      e[member::command] = m.event->command;
    }
    events.push_back(std::move(e));
  }
  return {{member::id, s.id(book)}, {member::events, std::move(events)}};
}

}  // namespace bond_risk::protocol
