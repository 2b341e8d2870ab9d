// Scenarios (docs/model.md "Scenarios"): the P&L of every book when input points
// of curves move, revalued in full, and historical VaR and expected
// shortfall from those P&Ls.
//
// Model. A scenario shifts some input points by a number of basis points;
// each shifted curve is built again from its points and every bond on it
// repriced with the engine's own formulas. A book's value is linear in what
// a scenario changes: an outright book's pv in its bonds' prices, a repo
// book's margin in its bonds' prices and its mtm_pnl in its curves'
// discounted sums. So a book is reduced once to positions over its OK
// members (base statuses, as docs/model.md says): weight per bond, and per
// (curve, days to end) for repos. A scenario's P&L is the sum over a book's
// positions of weight times the change of what the position reads: zero
// for what the scenario leaves alone, exactly. Positions are summed in a
// fixed order, so results do not depend on threads.
//
// Threading: a ScenarioBase copies what revaluation reads from the store
// (calendars, curves, bonds and their prices, statuses, ids, book names),
// so it may be revalued on any thread while the store goes on changing;
// revaluations of different scenarios may run concurrently (each has its
// own curves and prices).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "bond_risk/model/pricing/status.h"
#include "bond_risk/model/store/store.h"
#include "engine/scheduler.h"

namespace bond_risk {

struct Shift {
  NodeIndex curve = 0;
  std::size_t point = 0;  // index into the curve's points (idx order)
  double bp = 0;
  friend bool operator==(const Shift&, const Shift&) = default;
};

struct Scenario {
  std::int64_t id = 0;
  std::string name;
  std::vector<Shift> shifts;
  friend bool operator==(const Scenario&, const Scenario&) = default;
};

// The books a set's P&L is reported for, in result order (every outright
// book, then every repo book): their ids and kinds, and whether each
// publishes (a FAILED book has no P&L).
struct BookList {
  std::vector<std::int64_t> ids;
  std::vector<Kind> kinds;
  std::vector<unsigned char> publishes;
  std::size_t size() const { return ids.size(); }
  void push_back(std::int64_t id, Kind kind, bool published) {
    ids.push_back(id), kinds.push_back(kind), publishes.push_back(published);
  }
};

// The books' positions over their OK members, gathered from a flushed
// store, and a copy of the market they are revalued on.
class ScenarioBase {
 public:
  explicit ScenarioBase(const Store& store);

  // The copied parts of the store: calendars, curves, bonds, bond values,
  // and the statuses and ids of those and of the books (nothing of trades).
  const Store& market() const { return market_; }
  // Books in result order: every outright book, then every repo book.
  std::size_t books() const { return outright_books_ + repo_books_; }
  NodeRef book(std::size_t b) const;
  std::int64_t book_id(std::size_t b) const { return market_.id(book(b)); }
  const std::string& book_name(std::size_t b) const { return book_names_[b]; }  // "" if it has none
  // Whether book b publishes values in the base state: a FAILED book has no
  // P&L (0 in ScenarioPnl, left out of the total; its results are not shown).
  bool publishes(std::size_t b) const { return market_.state(book(b)).status != Status::failed; }
  BookList book_list() const;

 private:
  friend class ScenarioRevaluer;
  struct BondPosition {
    NodeIndex bond;
    double weight;  // outright: quantity * dir; repo margin: -notional
  };
  struct CashPosition {
    NodeIndex curve;
    int days;       // the discounted sum df[0] + ... + df[days-1]
    double weight;  // -start_cash / YEAR_BASIS
  };
  Store market_;
  std::size_t outright_books_ = 0, repo_books_ = 0;
  std::vector<std::string> book_names_;
  // Book b's positions are [begin[b], begin[b + 1]) of each list (repo books
  // have no outright positions and outright books no cash positions).
  std::vector<BondPosition> bond_positions_;
  std::vector<std::uint32_t> bond_begin_;
  std::vector<CashPosition> cash_positions_;
  std::vector<std::uint32_t> cash_begin_;
  // A convention bond's flows after today (model/conventions/convention_flows.h)
  // as (days from today, amount): bond b's are [flow_begin[b], flow_begin[b + 1]),
  // none for a bond without a convention or not OK.
  struct DatedFlow {
    int day;
    double amount;
  };
  std::vector<DatedFlow> convention_flows_;
  std::vector<std::uint32_t> flow_begin_;
};

// One scenario's result: per book (in ScenarioBase order) its P&L (the
// change of pv for outright books, of mtm_pnl for repo books) and its
// margin change (0 for outright books); the total P&L over every book.
// `error` says why the scenario could not be revalued (a shifted rate out
// of range); the numbers are then empty.
struct ScenarioPnl {
  std::vector<double> pnl, margin;
  double total = 0;
  std::string error;
};

// Revalues `scenario` against `base`; one revaluer per thread.
// Borrows `base`, which must outlive it; owns its shifted curves and prices.
// Used by one thread at a time: a revalue_all job, or the job runner's.
class ScenarioRevaluer {
 public:
  explicit ScenarioRevaluer(const ScenarioBase& base);
  ScenarioPnl revalue(const Scenario& scenario);

 private:
  const ScenarioBase& base_;
  std::vector<std::vector<CurvePoint>> points_;  // shifted curves' points
  std::vector<CurveArrays> curves_;     // shifted curves
  std::vector<std::vector<CurveGrid>> grids_;  // shifted curves' coupon grids
  std::vector<unsigned char> shifted_;  // per curve
  std::vector<double> price_change_;    // per bond
};

// Revalues every scenario, in parallel on `scheduler`; results in the
// scenarios' order, the same for any scheduler. `progress` is called on the
// calling thread with the number done so far (may be empty).
std::vector<ScenarioPnl> revalue_all(const ScenarioBase& base, std::span<const Scenario> scenarios,
                                     engine::Scheduler& scheduler,
                                     const std::function<void(std::size_t)>& progress = {});

// 1-day VaR at 99% and expected shortfall at 97.5% of a historical set's
// P&Ls (docs/model.md): positive numbers for a loss.
struct TailRisk {
  double var_99 = 0, es_975 = 0;
};
TailRisk tail_risk(std::span<const double> pnl);

// For VaR and ES over fewer than 100 scenarios, says what they are then
// (less than one scenario in the 1% tail: VaR 99% is the worst loss seen);
// "" from 100 on.
std::string few_scenarios_note(std::size_t scenarios);

// Each of `books` books' (in result order) and the total's VaR and ES over
// the scenarios revalued without an error, and how many those were.
struct SetRisk {
  std::vector<TailRisk> books;
  TailRisk total;
  std::size_t scenarios = 0;
};
SetRisk set_risk(std::size_t books, std::span<const ScenarioPnl> pnl);

// "scenario NAME left out: why" for each scenario whose revaluation failed.
std::vector<std::string> left_out(std::span<const Scenario> scenarios, std::span<const ScenarioPnl> pnl);

// A scenario set as read from the database (db/scenario_sets.h).
struct ScenarioSet {
  std::string name;
  bool historical = false;  // scenario_set.kind = 'historical': VaR and ES apply
  std::vector<Scenario> scenarios;
  // Scenarios left out, each with why and the scenario_shift rowid of its
  // first bad row (a curve id or idx that is not a whole number, a shift
  // that is not a finite number, an unknown curve or point, a point shifted
  // twice): one bad row never stops the set.
  std::vector<std::string> problems;
  friend bool operator==(const ScenarioSet&, const ScenarioSet&) = default;
};

// Every scenario of `set` left out, each with why: those that could not be
// read (set.problems), then those whose revaluation failed (`pnl`: one per
// scenario of the set, in order).
std::vector<std::string> left_out(const ScenarioSet& set, std::span<const ScenarioPnl> pnl);

// Why the historical `set` has no VaR or ES: "" when a scenario of it
// revalued (`pnl` as above); otherwise names the set and says how many
// scenarios were left out and why the first was.
std::string no_var_reason(const ScenarioSet& set, std::span<const ScenarioPnl> pnl);

}  // namespace bond_risk
