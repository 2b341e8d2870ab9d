// Serves a LiveModel to clients on a Unix domain socket: one command per
// line, one JSON reply per line ({"ok":true,...} or {"ok":false,"error":...}).
// Commands that arrive together are applied in one transaction (group
// commit) in WAL mode with synchronous=FULL, with an event_log row each and
// the results of the nodes they recalculated; no reply is sent before that
// transaction is durable.
#pragma once

#include <signal.h>

#include <string>

#include "bond_risk/live/live_model.h"
#include "base/sqlite.h"

namespace bond_risk {

// Changes that other programs commit to the input tables are noticed within
// 100 ms (PRAGMA data_version, and triggers into input_change), on SIGUSR1
// or on a `reload` command; the model is then reloaded whole.
// Runs until a `shutdown` command or SIGINT/SIGTERM; `signals` (SIGINT,
// SIGTERM, SIGUSR1) must be blocked in every thread by the caller. Throws std::runtime_error if the socket is
// held by another engine or the database cannot be written.
void serve(LiveModel& model, base::Database& db, const std::string& socket_path, const sigset_t& signals);

}  // namespace bond_risk
