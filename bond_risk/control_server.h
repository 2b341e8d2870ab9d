// Serves a LiveModel to clients on a Unix domain socket: one command per
// line, one JSON reply per line ({"ok":true,...} or {"ok":false,"error":...}).
// Commands that arrive together are applied in one transaction (group
// commit) in WAL mode with synchronous=FULL, with an event_log row each and
// the results of the nodes they recalculated; no reply is sent before that
// transaction is durable.
#pragma once

#include <signal.h>

#include <string>

#include "bond_risk/live_model.h"
#include "bond_risk/sqlite.h"

namespace bond_risk {

// Runs until a `shutdown` command or one of `stop_signals` (which the caller
// has blocked in every thread). Throws std::runtime_error if the socket is
// held by another engine or the database cannot be written.
void serve(LiveModel& model, Database& db, const std::string& socket_path, const sigset_t& stop_signals);

}  // namespace bond_risk
