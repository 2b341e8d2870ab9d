// The running engine's model: the loaded graph, kept up to date by the
// commands of a risk desk (curve bumps, date rolls, trade bookings and
// amendments). A command is validated whole before anything changes; it then
// changes the store and the graph, marks what it affects dirty and, given a
// database, writes the change to the input tables (inside the caller's
// transaction). recalculate() then brings the affected nodes up to date.
#pragma once

#include <array>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bond_risk/db/change_log.h"
#include "base/sqlite.h"
#include "bond_risk/model/store.h"
#include "engine/flush.h"
#include "engine/graph.h"
#include "engine/scheduler.h"

namespace bond_risk {

// A command that cannot be applied; nothing was changed.
struct CommandError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class LiveModel {
 public:
  struct Recalculation {
    std::array<std::size_t, kKindCount> nodes{};  // recalculated, per Kind
    double seconds = 0;
  };

  // Builds the graph over `store` (every node dirty) and starts the scheduler.
  LiveModel(Store store, const engine::SchedulerOptions& options, std::size_t grain);
  LiveModel(const LiveModel&) = delete;
  LiveModel& operator=(const LiveModel&) = delete;

  // Recalculates every dirty node; with `db`, writes their results.
  Recalculation recalculate(base::Database* db);

  // Calculates every node: the start-up flush.
  engine::FlushStats flush_all();

  // Replaces the model with `store` (the database as another program left
  // it) and calculates every node; with `db`, writes every result.
  Recalculation reload(Store store, base::Database* db);

  // Brings the model up to date with rows other programs changed: trades,
  // calendars and curve rates are re-read one by one and what they affect is
  // recalculated; a change to any other table (bonds, books, memberships)
  // reloads the whole model.
  Recalculation apply_external(const std::vector<ChangeLog::Change>& changes, base::Database& db);

  // Whether `command` (a command name) changes the model.
  static bool changes_state(const std::string& command);

  // Executes one command given as words; returns the members of its JSON
  // reply after "ok":true (e.g. "\"id\":42", or "" for none). Throws
  // CommandError, having changed nothing, for a bad command. With `db`,
  // state-changing commands also write their change to it.
  std::string execute(const std::vector<std::string>& words, base::Database* db);

  const Store& store() const { return store_; }
  const engine::Graph& graph() const { return graph_; }

 private:
  std::string dispatch(const std::vector<std::string>& words, base::Database* db);
  NodeRef find(const std::string& key, base::Database* db) const;
  NodeRef find_kind(const std::string& key, Kind kind, base::Database* db) const;
  NodeRef find_trade(const std::string& key, base::Database* db) const;
  std::string bump_curve(const std::vector<std::string>& w, base::Database* db);
  std::string set_rate(const std::vector<std::string>& w, base::Database* db);
  std::string roll_date(const std::vector<std::string>& w, base::Database* db);
  std::string amend_trade(const std::vector<std::string>& w, base::Database* db);
  std::string add_trade(Kind kind, const std::vector<std::string>& w, base::Database* db);
  std::string remove_trade(const std::vector<std::string>& w, base::Database* db);
  std::string get(const std::vector<std::string>& w, base::Database* db) const;
  std::string book(const std::vector<std::string>& w, base::Database* db) const;
  std::string stats() const;
  void write_curve(NodeIndex curve, base::Database* db);
  void relink(NodeRef node, const std::vector<NodeRef>& inputs);
  void link_trade(NodeRef trade);
  std::size_t detach(NodeRef trade);

  Store store_;
  engine::Graph graph_;
  std::unique_ptr<engine::Scheduler> scheduler_;
  std::size_t grain_;
  std::size_t events_ = 0;
  std::vector<double> latencies_us_;  // of each recalculation after an event
};

// "\"key\":"; JSON string and number helpers for replies.
std::string json_string(const std::string& text);
std::string json_number(double value);

}  // namespace bond_risk
