#include "bond_risk/live/result_publisher.h"

#include <sys/stat.h>

#include <algorithm>

#include "bond_risk/db/result_writer.h"

namespace bond_risk {

ResultPublisher::ResultPublisher(std::string input_path)
    : path_(results_path(input_path)), input_path_(std::move(input_path)), writer_([this] { run(); }) {}

ResultPublisher::~ResultPublisher() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  writer_.join();
}

void ResultPublisher::add(const Store& store, const engine::Graph& graph, Kind kind, std::span<const NodeIndex> nodes,
                          engine::Scheduler& workers) {
  if (kind == Kind::calendar || kind == Kind::ir_curve) return;  // inputs only: no result table
  const std::lock_guard lock(mutex_);
  front_.rows.put(store, graph, kind, nodes, &workers);  // a sealed batch stays sealed: its rows only get newer
  assembled_peak_ = std::max(assembled_peak_, front_.rows.size());
}

void ResultPublisher::add_all(const Store& store, const engine::Graph& graph, engine::Scheduler* workers) {
  const std::lock_guard lock(mutex_);
  front_.rows.clear();
  front_.replace_all = true;
  front_.sealed = false;
  std::vector<NodeIndex> nodes;  // a kind's, less the removed
  for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {
    const Kind kind = static_cast<Kind>(k);
    nodes.clear();
    for (NodeIndex i = 0; i < store.size(kind); ++i) {
      if (store.state(ref(kind, i)).status != Status::removed) nodes.push_back(i);
    }
    front_.rows.put(store, graph, kind, nodes, workers);
  }
  assembled_peak_ = std::max(assembled_peak_, front_.rows.size());
}

void ResultPublisher::seal(std::int64_t event_seq) {
  {
    const std::lock_guard lock(mutex_);
    front_.sealed = true;
    front_.event_seq = event_seq;
    newer_waiting_ = false;
  }
  changed_.notify_all();
}

bool ResultPublisher::defer_pass() {
  const std::lock_guard lock(mutex_);
  if (!writing_ || !front_.sealed) return false;
  newer_waiting_ = true;
  return true;
}

bool ResultPublisher::needs_all() {
  const std::lock_guard lock(mutex_);
  notice_loss();
  if (!lost_ || all_asked_) return false;
  all_asked_ = true;
  return true;
}

std::int64_t ResultPublisher::wait_written() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return (!takeable() && !writing_) || !error_.empty(); });
  return written_as_of_;
}

std::int64_t ResultPublisher::written_as_of() {
  const std::lock_guard lock(mutex_);
  notice_loss();
  return written_as_of_;
}

std::string ResultPublisher::recovering() {
  const std::lock_guard lock(mutex_);
  notice_loss();
  return lost_ ? "the results database " + path_ + " was deleted or replaced; every row is being written to it again"
               : "";
}

std::optional<ResultPublisher::FileId> ResultPublisher::file_at(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

void ResultPublisher::notice_loss() {
  if (lost_ || !opened_ || file_at(path_) == opened_) return;
  lost_ = true;
  all_asked_ = false;
  written_as_of_ = -1;
}

bool ResultPublisher::takeable() const {
  // Once the file is lost, only a batch of every row is written (to a new
  // file). A sealed batch without rows (the marks it covered were curves'
  // and calendars', which have no result table) still stamps its event.
  return front_.sealed && (!front_.empty() || front_.event_seq > written_as_of_) && (!lost_ || front_.replace_all);
}

std::size_t ResultPublisher::assembled_peak() const {
  const std::lock_guard lock(mutex_);
  return assembled_peak_;
}

std::string ResultPublisher::last_error() const {
  const std::lock_guard lock(mutex_);
  return error_;
}

void ResultPublisher::master_busy(bool busy) {
  {
    const std::lock_guard lock(mutex_);
    master_busy_ = busy;
  }
  if (!busy) changed_.notify_all();
}

bool ResultPublisher::yield_to_master() {
  std::unique_lock lock(mutex_);
  return !changed_.wait_for(lock, kMaxPause, [&] { return !master_busy_ || stopping_; });
}

void ResultPublisher::run() {
  std::unique_ptr<base::Database> results;
  auto retry_after = kFirstRetry;
  for (;;) {
    std::unique_lock lock(mutex_);
    // Rows newer than the sealed batch wait to be copied (defer_pass): a little time for the master to
    // seal them, rather than write the rows they replace.
    changed_.wait_for(lock, kMaxPause, [&] { return !newer_waiting_ || stopping_; });
    changed_.wait(lock, [&] {
      notice_loss();  // before each write transaction
      return stopping_ || takeable();
    });
    if (!takeable()) return;  // stopping, with nothing sealed left to write
    std::swap(front_, back_);
    writing_ = true;
    newer_waiting_ = false;  // the master's next pass goes into the emptied batch
    const bool reopen = lost_;  // then back_ holds every row
    lock.unlock();
    std::string error;
    try {
      if (reopen) results.reset();
      if (!results) {
        results = open_results(input_path_);
        // Gone already: an identity no file has, so that notice_loss() finds it lost.
        const FileId opened = file_at(path_).value_or(FileId{});
        const std::lock_guard relock(mutex_);
        opened_ = opened;
      }
      write(back_, *results);
    } catch (const base::SqliteError& e) {
      error = e.what();
      if (e.broken()) {  // damaged under the engine: removed, it is noticed as lost and written again whole
        results.reset();
        try {
          base::remove_database(path_);
        } catch (const std::exception& removal) {
          error += std::string("; ") + removal.what();
        }
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) {
      const std::lock_guard relock(mutex_);
      requeue(back_);
    }
    // back_ is this thread's alone until writing_ is cleared: emptied
    // without the lock, which a master adding rows must never wait for
    // (this thread runs at a low priority and may be preempted).
    back_.clear();  // keeps its event_seq
    lock.lock();
    if (error.empty()) {
      if (reopen) lost_ = false;  // unless it was lost again meanwhile (then notice_loss() finds that next time)
      if (!lost_) written_as_of_ = back_.event_seq;
      retry_after = kFirstRetry;
    }
    writing_ = false;
    error_ = error;
    changed_.notify_all();
    if (error.empty()) continue;
    // Stopping: that was the last attempt (the next start-up writes every row).
    if (stopping_) return;
    changed_.wait_for(lock, retry_after, [&] { return stopping_; });
    retry_after = std::min(2 * retry_after, kLastRetry);
  }
}

std::unique_ptr<base::Database> ResultPublisher::open_results(const std::string& input_path) {
  auto results = bond_risk::open_results(input_path);  // the batch it writes first replaces every row
  results->prepare("ATTACH DATABASE ? AS input").bind(1, input_path).run();
  return results;
}

void ResultPublisher::alerts_written() {
  const std::lock_guard lock(mutex_);
  front_.alerts = true;
}

void ResultPublisher::Pending::clear() {
  rows.clear();
  replace_all = alerts = sealed = false;
}

void ResultPublisher::requeue(Pending& failed) {
  if (front_.replace_all) return;  // the master's batch replaces every row already
  const bool fresh = front_.empty();
  front_.rows.put_older(failed.rows);
  assembled_peak_ = std::max(assembled_peak_, front_.rows.size());
  front_.replace_all = failed.replace_all;
  front_.alerts |= failed.alerts;
  if (fresh && !front_.sealed) {  // nothing newer: the rows still reflect the failed batch's event
    front_.sealed = true;
    front_.event_seq = failed.event_seq;
  }
}

// One transaction: the rows in id order within each table, in slices
// between which the writer yields to a recalculation, the alerts of the
// events they reflect not copied yet, and the event.
void ResultPublisher::write(Pending& batch, base::Database& results) {
  base::Transaction tx(results);
  if (batch.replace_all) clear_results(results);
  // A look at the master every kLookEvery of writing; after a pause that ran out (the master busy
  // throughout: a flood of events), kAfterPause of writing first, so that the rows still advance.
  using Clock = std::chrono::steady_clock;
  Clock::duration writing = kLookEvery;
  Clock::time_point looked = Clock::now() - writing;  // a look before the first slice
  const auto look = [&] {
    if (Clock::now() - looked < writing) return;
    writing = yield_to_master() ? Clock::duration(kAfterPause) : Clock::duration(kLookEvery);
    looked = Clock::now();
  };
  for (std::size_t k = static_cast<std::size_t>(Kind::bond); k < kKindCount; ++k) {  // the kinds with result tables
    const Kind kind = static_cast<Kind>(k);
    write_rows(results, batch.rows, kind, batch.rows.in_id_order(kind), look);
  }
  copy_alerts(results, batch.event_seq, batch.replace_all);
  set_results_as_of(results, batch.event_seq);
  tx.commit();
}

}  // namespace bond_risk
