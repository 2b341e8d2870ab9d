// Persists the live engine's results behind its acknowledgements. The
// master thread copies the rows of the nodes it recalculated into the batch
// being assembled (the writer never reads the store), in as many slices as
// it likes, then seals the batch with an event: every row that event and
// those before it changed is in the batch (rows copied later may already
// show later events). A writer thread on its own connection to the results
// database (db/result_writer.h) takes only sealed batches and writes them
// conflated (only a node's latest row, however many events touched it), in
// id order, in one transaction together with that event. Readers of the
// results database therefore know their freshness; after a crash or a
// power loss the engine's start-up writes every row again (to a new file
// after a power loss: db/result_writer.h).
//
// The writer yields to recalculations without starving: it writes a batch
// in slices of kWriteSlice rows (db/result_writer.h) and looks at the master every kLookEvery of
// writing: while the master says it is busy with a batch of changes
// (master_busy), it waits for it to finish, for at most kMaxPause. On a
// host with few cores, writing a big event's rows would otherwise take a
// core from the next event's recalculation, and its reply would wait
// (docs/benchmarks.md, "Results behind the replies"); under a flood of
// events, or on a host other programs keep busy, a pause that runs out is
// followed by kAfterPause of writing, so the rows still advance (a lower
// CPU priority, its first design, starved it there). It takes the lock to swap batches, to put back a
// failed one, to account for one and to wait, never while it writes or
// empties one.
//
// The master copies a row again only when the writer will write it: while
// the writer writes one batch and the next is sealed already, a new pass
// over the marked rows waits (defer_pass), for rows copied then would be
// copied again before they are written. Once done, the writer waits up to
// kMaxPause for those newer rows before it takes the sealed batch as it is.
// Under a flood of big events the master thus copies once per batch
// written, not once per event.
//
// Memory is bounded by the nodes, not by the events: the batch being
// assembled holds at most one row per node (a node's later row replaces
// its earlier one), and so does the batch being written; adding to a sealed
// batch leaves it sealed, so a flood of events never keeps the writer
// waiting. (The executor keeps what it has yet to copy as one mark per node.) A batch whose write fails (the database
// locked or the disk full) goes back under the newer rows, and the writer
// tries again after a pause (0.1 s, doubling up to 5 s): no row is lost, and
// the tables never claim an event they do not reflect.
//
// The risk limits' alerts are written by the master into the input
// database (db/limit_alert_log.h), durable with their events; each write
// transaction also copies those of the events it reflects, by id, to the
// results database's limit_event (so a crash loses none: the next write
// copies what the last one did not reach).
//
// The results file deleted or replaced under the engine (rm DB.results.db*)
// is noticed before each write transaction and whenever written_as_of() or
// needs_all() is asked: from then on written_as_of() is -1 and recovering()
// says why, the writer writes nothing until the master has added every row
// again (needs_all(), then add_all()), and writes those to a file it opens
// afresh at the path, as at start-up. A write that finds the file damaged
// removes it, and so takes the same way.
// Owns the writer thread and that thread's connection, and copies of the rows
// (add() reads the store and graph only during the call). The master thread
// constructs, calls and destroys it; each member takes the lock.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "base/sqlite.h"
#include "bond_risk/model/nodes/result_rows.h"
#include "bond_risk/model/store/store.h"
#include "engine/graph.h"

namespace bond_risk {

class ResultPublisher {
 public:
  // Starts the writer thread on the results database of the input database
  // at `input_path` (opened as db/result_writer.h says).
  explicit ResultPublisher(std::string input_path);
  ~ResultPublisher();  // writes what is sealed (one more attempt after a failed write), then stops the thread
  ResultPublisher(const ResultPublisher&) = delete;
  ResultPublisher& operator=(const ResultPublisher&) = delete;

  // Master thread: adds the current rows of `nodes` of `kind` (in
  // increasing order) to the batch being assembled (a removed trade's row
  // is to be deleted), copied by `workers`' threads when there are many.
  void add(const Store& store, const engine::Graph& graph, Kind kind, std::span<const NodeIndex> nodes,
           engine::Scheduler& workers);
  // Master thread: every node's row, replacing the tables (start-up,
  // reload), copied by `workers`' threads if given.
  void add_all(const Store& store, const engine::Graph& graph, engine::Scheduler* workers = nullptr);
  // Master thread: the batch holds every row changed up to event
  // `event_seq`; the writer may take it.
  void seal(std::int64_t event_seq);
  // Master thread, before a pass over rows that may wait: true when the
  // writer is writing a batch and the next is sealed already (rows copied
  // now would be copied again before they are written); the writer, once
  // done, then waits up to kMaxPause for a pass that seals newer rows.
  bool defer_pass();
  // Master thread: it is applying a batch of changes (true: recalculating,
  // committing, replying) or done (false); the writer pauses between slices
  // meanwhile (see above). Busy says so for its scope (not nested).
  void master_busy(bool busy);
  class Busy {
   public:
    explicit Busy(ResultPublisher& publisher) : publisher_(publisher) { publisher_.master_busy(true); }
    ~Busy() { publisher_.master_busy(false); }
    Busy(const Busy&) = delete;
    Busy& operator=(const Busy&) = delete;

   private:
    ResultPublisher& publisher_;
  };
  // Master thread: alerts were committed to the input database; the
  // writer copies them with the next batch, even one without rows.
  void alerts_written();
  // Master thread: true once after the results file was found deleted or
  // replaced; the master then calls add_all() and seal().
  bool needs_all();

  // Blocks until every sealed batch is written, or until a write fails
  // (see last_error; the writer tries again); returns the event the tables
  // then reflect.
  std::int64_t wait_written();

  // The event the written tables reflect (-1 before the first write, and
  // while the results file is lost), and the last write's error ("" when it
  // succeeded).
  std::int64_t written_as_of();
  std::string last_error() const;
  // Why every row is being written again ("" when they are not).
  std::string recovering();
  // The most rows the batch being assembled has held (at most one per node).
  std::size_t assembled_peak() const;

 private:
  // Rows waiting to be written, one per node (its latest).
  struct Pending {
    ResultRows rows;
    bool replace_all = false;
    bool alerts = false;  // alerts were committed since the last batch
    bool sealed = false;
    std::int64_t event_seq = -1;
    bool empty() const { return rows.empty() && !replace_all && !alerts; }
    // Empty again, its space kept (event_seq is left as it was).
    void clear();
  };

  static constexpr std::chrono::milliseconds kFirstRetry{100}, kLastRetry{5000};
  static constexpr std::chrono::microseconds kLookEvery{1000};  // writing between two looks at the master
  static constexpr std::chrono::microseconds kAfterPause{5000};  // the same after a pause that ran out
  static constexpr std::chrono::milliseconds kMaxPause{20};  // the longest the writer waits for it

  // A file's identity: device and inode.
  struct FileId {
    std::uint64_t device = 0, inode = 0;
    friend bool operator==(const FileId&, const FileId&) = default;
  };
  static std::optional<FileId> file_at(const std::string& path);

  // With the lock held: whether the writer may take front_.
  bool takeable() const;
  // With the lock held: marks the file lost if the one the writer opened at
  // path_ is no longer there (deleted, or another file in its place).
  void notice_loss();
  void run();
  // The results database (bond_risk::open_results), with the input
  // database attached as `input`; throws if it cannot be.
  static std::unique_ptr<base::Database> open_results(const std::string& input_path);
  // With the lock held: puts a batch that failed to be written back into
  // front_, each row unless front_ has a newer one of its node (none when
  // front_ replaces every row).
  void requeue(Pending& failed);
  void write(Pending& batch, base::Database& results);
  // Waits while the master is busy with a batch of changes, for at most
  // kMaxPause; true when the pause ran out (the master busy throughout).
  bool yield_to_master();

  mutable std::mutex mutex_;
  std::condition_variable changed_;  // work for the writer, or work done
  Pending front_;                    // filled by the master
  Pending back_;                     // written by the writer thread
  bool writing_ = false;
  bool stopping_ = false;
  bool master_busy_ = false;
  bool newer_waiting_ = false;  // defer_pass() said yes since the writer last took a batch
  std::size_t assembled_peak_ = 0;
  std::int64_t written_as_of_ = -1;
  std::string error_;
  const std::string path_;           // of the results database
  const std::string input_path_;     // of the input database
  std::optional<FileId> opened_;     // the file the writer opened there (none before it first opens)
  bool lost_ = false;                // it was deleted or replaced, and not every row is written again yet
  bool all_asked_ = false;           // needs_all() has said so to the master
  std::thread writer_;
};

}  // namespace bond_risk
