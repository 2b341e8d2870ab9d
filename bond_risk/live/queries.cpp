#include "bond_risk/live/queries.h"

#include <optional>
#include <vector>

#include "bond_risk/db/event_log.h"
#include "bond_risk/live/stages/pnl_explainer.h"
#include "bond_risk/protocol/explain_replies.h"
#include "bond_risk/protocol/limit_replies.h"
#include "bond_risk/protocol/messages.h"
#include "bond_risk/protocol/node_replies.h"
#include "bond_risk/protocol/scenario_replies.h"

namespace bond_risk {

namespace member = protocol::member;

struct Queries::Visit {
  Queries& q;
  const Served& s;
  Answer& out;

  // A reply that says which event it reflects.
  base::Json at_event(base::Json reply) const {
    reply[member::event] = s.event;
    return reply;
  }
  NodeRef book_node(const std::string& key) const {
    const NodeRef n = s.model.find(key, s.rows);
    if (!is_book(kind_of(n))) throw CommandError("'" + key + "' is " + std::string(kind_name(kind_of(n))) + ", not a book");
    return n;
  }

  base::Json operator()(const Get& g) const {
    const NodeRef node = s.model.find(g.key, s.rows);
    base::Json out = protocol::node_json(s.model.store(), s.model.graph(), node);
    out[member::inputs] = protocol::inputs_json(s.model.store(), s.model.graph(), node);
    return out;
  }
  base::Json operator()(const ShowBook& b) const {
    return protocol::node_json(s.model.store(), s.model.graph(), book_node(b.key));
  }
  base::Json operator()(const ListBooks&) const { return at_event({{member::books, protocol::books_json(s.model.store())}}); }
  base::Json operator()(const RecentEvents& r) const {
    base::Json events = base::Json::array();
    for (const base::Json& e : s.recent_events) {
      if (e[member::seq].get<std::int64_t>() > r.since) events.push_back(e);
    }
    return at_event({{member::events, std::move(events)}});
  }
  base::Json operator()(const TopPositions& p) const {
    const NodeRef n = s.model.find(p.key, s.rows);
    if (kind_of(n) != Kind::outright_book) {
      throw CommandError("'" + p.key + "' is " + std::string(kind_name(kind_of(n))) + ", not an outright book");
    }
    return at_event(protocol::positions_json(s.model.store(), s.model.graph(), n, static_cast<std::size_t>(p.count)));
  }
  base::Json operator()(const Explain& e) const {
    return at_event(protocol::explain_json(s.model.store(), s.day, e.book ? std::optional(book_node(*e.book)) : std::nullopt));
  }
  base::Json operator()(const ExplainEvents& e) const {
    const auto cause_of = [&](const std::string& line) -> std::optional<Cause> {
      try {
        const Command command = parse_command(line);
        const Change* change = std::get_if<Change>(&command);
        return change ? PnlExplainer::cause_of(*change, s.model, s.rows) : std::nullopt;
      } catch (const CommandError&) {
        return std::nullopt;  // a line this engine no longer parses: not of the cause
      }
    };
    // A recalculation of ticks of curves apart spans no more events than
    // this back to the last of each curve's; past it the recalculation's
    // last is shown.
    constexpr std::size_t kLookBack = 256;
    const NodeRef book = book_node(e.book);
    std::vector<protocol::ShownMove> moves;
    for (const EventMove& m : s.day.largest_moves(s.model.store().id(book), static_cast<std::size_t>(e.count))) {
      std::optional<LoggedEvent> logged;
      if (m.seq) {
        logged = last_logged_event(s.db, m.seq, kLookBack, [&](const std::string& c) { return cause_of(c) == m.cause; });
        if (!logged) logged = last_logged_event(s.db, m.seq, 1, [](const std::string&) { return true; });
      }
      moves.push_back({m, logged ? std::optional(protocol::ShownMove::Logged{logged->seq, logged->time, logged->command})
                                 : std::nullopt});
    }
    return at_event(protocol::explain_events_json(s.model.store(), book, moves));
  }
  base::Json operator()(const Limits& l) const {
    protocol::LimitsOf which;
    which.count = static_cast<std::size_t>(l.count);
    if (l.book && *l.book == protocol::word::total) {
      which.total = true;
    } else if (l.book) {
      which.book_id = s.model.store().id(book_node(*l.book));
    }
    return at_event(protocol::limits_json(s.model.store(), s.day, s.model.store().limits, which));
  }

  // Set `name` as the database holds it now (only scenario `only`, when
  // given); a set or scenario that is not there is the client's error.
  ScenarioSet read_set(const std::string& name, std::optional<std::string> only = std::nullopt) const {
    try {
      return read_scenario_set(s.db, s.model.store(), name, only);
    } catch (const std::invalid_argument& e) {
      throw CommandError(e.what());
    }
  }
  // A scenario and VaR revalue on the job runner's thread, against a copy
  // of the market taken here (the reply is what the state was at this
  // line); the master serves the others meanwhile.
  base::Json operator()(const RunScenario& r) const {
    const std::optional<std::string> set_name = set_of_scenario(s.db, r.name);
    if (!set_name) throw CommandError("no scenario '" + r.name + "' (table scenario)");
    const ScenarioSet set = read_set(*set_name, r.name);
    if (set.scenarios.empty()) {
      throw CommandError(set.problems.empty() ? "scenario '" + r.name + "' cannot be read" : set.problems.front());
    }
    auto base = std::make_shared<const ScenarioBase>(s.model.store());
    defer([base, scenario = set.scenarios.front(), set_name = *set_name, event = s.event](std::stop_token) {
      const ScenarioPnl pnl = ScenarioRevaluer(*base).revalue(scenario);
      if (!pnl.error.empty()) throw CommandError("scenario " + scenario.name + ": " + pnl.error);
      base::Json reply = protocol::scenario_json(*base, scenario, set_name, pnl);
      reply[member::event] = event;
      return reply;
    }, {});
    return nullptr;
  }
  // Every scenario of the set, one after another on the job runner's
  // thread; the reply is kept per set until the state or the set's rows
  // change, so asking again costs only reading the set.
  base::Json operator()(const ValueAtRisk& v) const {
    const std::int64_t size = scenario_count(s.db, v.set);
    if (size > static_cast<std::int64_t>(kMaxLiveScenarios)) {
      throw CommandError("scenario set '" + v.set + "' has " + std::to_string(size) + " scenarios; the running engine "
                         "revalues at most " + std::to_string(kMaxLiveScenarios) + " for one request: run "
                         "'bond_risk scenarios --set " + v.set + "' (or bond_risk_mpi) for it");
    }
    ScenarioSet set = read_set(v.set);
    if (!set.historical) {
      throw CommandError("scenario set '" + v.set + "' is not historical (scenario_set.kind); VaR needs one day's moves per scenario");
    }
    const std::string state = std::to_string(s.event) + "/" + std::to_string(s.model.recalculations());
    if (const auto kept = q.var_cache_.find(v.set);
        kept != q.var_cache_.end() && kept->second.state == state && kept->second.set == set) {
      return kept->second.reply;
    }
    auto base = std::make_shared<const ScenarioBase>(s.model.store());
    auto shared_set = std::make_shared<const ScenarioSet>(std::move(set));
    defer([base, shared_set, event = s.event](std::stop_token stop) {
      std::vector<ScenarioPnl> pnl;
      ScenarioRevaluer revaluer(*base);
      for (const Scenario& scenario : shared_set->scenarios) {
        if (stop.stop_requested()) throw CommandError("the engine is stopping");
        pnl.push_back(revaluer.revalue(scenario));
      }
      base::Json reply = protocol::var_json(*base, *shared_set, pnl);
      reply[member::event] = event;
      return reply;
    }, [&q = q, shared_set, state](const base::Json& reply) { q.var_cache_[shared_set->name] = {state, *shared_set, reply}; });
    return nullptr;
  }
  void defer(std::function<base::Json(std::stop_token)> run, std::function<void(const base::Json&)> keep) const {
    out.deferred = std::make_shared<Deferred>(Deferred{std::move(run), std::move(keep)});
  }

  base::Json operator()(const auto&) const { throw std::logic_error("not a read: the executor answers it"); }
};

Queries::Answer Queries::answer(const Command& command, const Served& served) {
  Answer out;
  out.members = std::visit(Visit{*this, served, out}, command);
  return out;
}

}  // namespace bond_risk
