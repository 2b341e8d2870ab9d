// The results database: beside each input database DB.db, a second SQLite
// file DB.results.db holds the result tables (schema/results.sql) and the
// event they reflect. A separate file so that writing results never holds
// the input database's write lock: a curve move rewrites 220,000 rows
// (0.1-0.4 s), and a command is acknowledged as soon as its input is
// durable, not when its results are written.
//
// Everything in it is derived from the inputs, so it is never synced: its
// writers (run --batch, the engine) write it at synchronous OFF, and
// rewrite every row when they start. A crash of the process loses nothing
// the kernel was given; only a crash of the host (a power loss) can leave
// the file broken, so a file is reused only in the boot of the host that
// created it, by the same schema (results_file), and any other is replaced. (Its syncs
// used to hold up the input database's: docs/benchmarks.md, "The results
// file without syncs".) Scenario results, which took a night to compute,
// are kept apart, synced (db/scenario_sets.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "base/progress.h"
#include "base/sqlite.h"
#include "bond_risk/model/nodes/result_rows.h"
#include "bond_risk/model/store/store.h"
#include "engine/graph.h"

namespace bond_risk {

// DB.results.db for DB.db; PATH.results.db for any other PATH.
inline std::string results_path(const std::string& db_path) { return base::companion_path(db_path, "results"); }

// Attaches the results database of `db` (an input database) to it as
// schema `results`; false when there is none yet.
inline bool attach_results(base::Database& db) { return base::attach_companion(db, "results"); }

// Opens the results database of the input database at `db_path`, in WAL
// mode at synchronous OFF, for a writer about to write every row (run
// --batch; the engine at start-up and after the file was lost). A file this
// boot of the host created with this schema is reused as it is; any other
// (from before a reboot, of another schema, not a database; any file when
// the boot cannot be read) is replaced: the scenario results an older
// version kept in it are moved to the scenario results database, the file
// is removed with its -wal and -shm (base::Database::Mode::replace) and
// created owner-only (0600) with its tables. Throws, replacing nothing,
// when the file cannot be read (locked, its permissions) or another
// program has it open; a symbolic link there is refused; each error says
// what to do.
std::unique_ptr<base::Database> open_results(const std::string& db_path);

// Writes the rows `which` (see ResultRows::row) of `kind` of `rows`
// (INSERT OR REPLACE; a removed node's row is deleted) in the caller's
// transaction, calling `between` (if any) before each kWriteSlice of them:
// where a writer that shares the cores may pause.
inline constexpr std::size_t kWriteSlice = 256;
void write_rows(base::Database& results, const ResultRows& rows, Kind kind, std::span<const std::uint32_t> which,
                const std::function<void()>& between = {});

// Deletes every result row, in the caller's transaction.
void clear_results(base::Database& results);

// Copies to limit_event the rows of the input database's limit_alert
// (attached to `results` as schema `input`) of the events up to
// `event_seq` that it does not hold yet, in the caller's transaction; with
// `from_scratch` (the start-up's rewrite of every row) it first empties
// limit_event, so that it mirrors whatever input database it now sits
// beside (one restored from a backup holds fewer alerts, and reuses ids).
void copy_alerts(base::Database& results, std::int64_t event_seq, bool from_scratch);

// Records that the result tables reflect event `event_seq`, in the caller's
// transaction; -1 when there is no row yet.
void set_results_as_of(base::Database& results, std::int64_t event_seq);
std::int64_t results_as_of(base::Database& results);

// Replaces every result row in the results database of the input database
// at `db_path` (opened as open_results() says) with those of `store` as of
// `event_seq`, in one transaction: the tables are never left half-written.
// A file found damaged while writing is removed and written anew, once.
// Returns its path.
std::string write_all_results(const std::string& db_path, const Store& store, const engine::Graph& graph,
                              std::int64_t event_seq);

}  // namespace bond_risk
