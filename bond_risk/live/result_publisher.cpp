#include "bond_risk/live/result_publisher.h"

#include <algorithm>

#include "bond_risk/db/result_writer.h"

namespace bond_risk {

ResultPublisher::ResultPublisher(std::string results_path)
    : writer_([this, path = std::move(results_path)] { run(path); }) {}

ResultPublisher::~ResultPublisher() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  writer_.join();
}

void ResultPublisher::add_row(const Store& store, const engine::Graph& graph, NodeRef node) {
  std::vector<std::uint32_t>& slots = front_.slot[node.type];
  if (slots.size() <= node.index) slots.resize(store.size(kind_of(node)), kNone);
  std::uint32_t& slot = slots[node.index];
  if (slot == kNone) {
    slot = static_cast<std::uint32_t>(front_.rows.size());
    front_.rows.emplace_back();
    front_.nodes.push_back(node);
  }
  front_.rows[slot] = result_row(store, graph, node);
}

void ResultPublisher::add(const Store& store, const engine::Graph& graph, Kind kind, std::span<const NodeIndex> nodes) {
  if (kind == Kind::calendar || kind == Kind::ir_curve) return;  // inputs only: no result table
  const std::lock_guard lock(mutex_);
  front_.sealed = false;
  for (NodeIndex i : nodes) add_row(store, graph, ref(kind, i));
}

void ResultPublisher::add_all(const Store& store, const engine::Graph& graph) {
  const std::lock_guard lock(mutex_);
  for (std::size_t k = 0; k < kKindCount; ++k) front_.slot[k].clear();
  front_.rows.clear();
  front_.nodes.clear();
  front_.replace_all = true;
  front_.sealed = false;
  for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {
    for (NodeIndex i = 0; i < store.size(static_cast<Kind>(k)); ++i) {
      const NodeRef node = ref(static_cast<Kind>(k), i);
      if (store.state(node).status != Status::removed) add_row(store, graph, node);
    }
  }
}

void ResultPublisher::seal(std::int64_t event_seq) {
  {
    const std::lock_guard lock(mutex_);
    front_.sealed = true;
    front_.event_seq = event_seq;
  }
  changed_.notify_all();
}

std::int64_t ResultPublisher::wait_written() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return ((front_.empty() || !front_.sealed) && !writing_) || !error_.empty(); });
  return written_as_of_;
}

std::int64_t ResultPublisher::written_as_of() const {
  const std::lock_guard lock(mutex_);
  return written_as_of_;
}

std::string ResultPublisher::last_error() const {
  const std::lock_guard lock(mutex_);
  return error_;
}

void ResultPublisher::run(const std::string& results_path) {
  std::unique_ptr<base::Database> results;
  auto retry_after = kFirstRetry;
  for (;;) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return stopping_ || (front_.sealed && !front_.empty()); });
    if (!front_.sealed || front_.empty()) return;  // stopping, with nothing sealed left to write
    std::swap(front_, back_);
    writing_ = true;
    lock.unlock();
    std::string error;
    try {
      if (!results) {
        results = std::make_unique<base::Database>(results_path, base::Database::Mode::create);
        results->exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");  // results can be recomputed
        create_result_tables(*results);
      }
      write(back_, *results);
    } catch (const std::exception& e) {
      error = e.what();
    }
    lock.lock();
    const std::int64_t as_of = back_.event_seq;
    if (error.empty()) {
      retry_after = kFirstRetry;
    } else {
      requeue(back_);
    }
    for (NodeRef n : back_.nodes) back_.slot[n.type][n.index] = kNone;
    back_.rows.clear();
    back_.nodes.clear();
    back_.replace_all = false;
    back_.sealed = false;
    writing_ = false;
    error_ = error;
    if (error.empty()) written_as_of_ = as_of;
    lock.unlock();
    changed_.notify_all();
    if (!error.empty()) {  // the next attempt after a pause, unless the engine stops first (its start-up writes every row)
      lock.lock();
      if (changed_.wait_for(lock, retry_after, [&] { return stopping_; })) return;
      retry_after = std::min(2 * retry_after, kLastRetry);
    }
  }
}

void ResultPublisher::requeue(Pending& failed) {
  const bool fresh = front_.empty();
  for (std::size_t r = 0; r < failed.rows.size(); ++r) {
    const NodeRef node = failed.nodes[r];
    std::vector<std::uint32_t>& slots = front_.slot[node.type];
    if (slots.size() <= node.index) slots.resize(failed.slot[node.type].size(), kNone);
    if (slots[node.index] != kNone) continue;  // the master has a newer row
    slots[node.index] = static_cast<std::uint32_t>(front_.rows.size());
    front_.rows.push_back(std::move(failed.rows[r]));
    front_.nodes.push_back(node);
  }
  front_.replace_all = front_.replace_all || failed.replace_all;
  if (fresh) {  // nothing newer yet: the rows still reflect the failed batch's event
    front_.sealed = true;
    front_.event_seq = failed.event_seq;
  }
}

// One transaction: the rows in id order within each table, and the event they reflect.
void ResultPublisher::write(Pending& batch, base::Database& results) {
  // Sorting the rows leaves `nodes` (which only clears the slots afterwards) as it is.
  std::sort(batch.rows.begin(), batch.rows.end(), [](const ResultRow& x, const ResultRow& y) {
    return x.kind != y.kind ? x.kind < y.kind : x.id < y.id;
  });
  base::Transaction tx(results);
  if (batch.replace_all) clear_results(results);
  write_rows(results, batch.rows);
  set_results_as_of(results, batch.event_seq);
  tx.commit();
}

}  // namespace bond_risk
