#include "bond_risk/protocol/scenario_replies.h"

#include "bond_risk/model/inputs/changes.h"
#include "bond_risk/protocol/members.h"

namespace bond_risk::protocol {

namespace {

// Each book's {"id","name"}, in ScenarioBase order.
std::vector<base::Json> book_heads(const ScenarioBase& base) {
  std::vector<base::Json> heads;
  for (std::size_t b = 0; b < base.books(); ++b) {
    heads.push_back({{member::id, base.book_id(b)}});
    if (!base.book_name(b).empty()) heads.back()[member::name] = base.book_name(b);
  }
  return heads;
}

}  // namespace

base::Json scenario_json(const ScenarioBase& base, const Scenario& scenario, const std::string& set, const ScenarioPnl& pnl) {
  std::vector<base::Json> heads = book_heads(base);
  base::Json books = base::Json::array();
  for (std::size_t b = 0; b < base.books(); ++b) {
    if (!base.publishes(b)) continue;
    base::Json& book = heads[b];
    book[member::pnl] = pnl.pnl[b];
    if (kind_of(base.book(b)) == Kind::repo_book) book[member::margin_change] = pnl.margin[b];
    books.push_back(std::move(book));
  }
  return {{member::name, scenario.name}, {member::id, scenario.id}, {member::set, set}, {member::total, pnl.total}, {member::books, std::move(books)}};
}

base::Json var_json(const ScenarioBase& base, const ScenarioSet& set, const std::vector<ScenarioPnl>& pnl) {
  if (const std::string why = no_var_reason(set, pnl); !why.empty()) throw CommandError(why);
  const SetRisk risk = set_risk(base.books(), pnl);
  auto risk_json = [](const TailRisk& r) { return base::Json{{member::var_99, r.var_99}, {member::es_975, r.es_975}}; };
  std::vector<base::Json> heads = book_heads(base);
  base::Json books = base::Json::array();
  for (std::size_t b = 0; b < base.books(); ++b) {
    if (!base.publishes(b)) continue;
    base::Json& book = heads[b];
    book.update(risk_json(risk.books[b]));
    books.push_back(std::move(book));
  }
  base::Json reply = {{member::set, set.name}, {member::scenarios, risk.scenarios}, {member::total, risk_json(risk.total)}, {member::books, std::move(books)}};
  if (const std::vector<std::string> out = left_out(set, pnl); !out.empty()) reply[member::left_out] = out;
  if (const std::string note = few_scenarios_note(risk.scenarios); !note.empty()) reply[member::note] = note;
  return reply;
}

}  // namespace bond_risk::protocol
