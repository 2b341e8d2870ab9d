// Serves a LiveModel to clients on a Unix domain socket: one command per
// line (live/command.h), one JSON reply per line, in order. Commands that
// arrive together are executed as one batch (live/command_executor.h: one
// durable transaction, replies after its commit). Changes other programs
// commit to the input tables are noticed within 100 ms (PRAGMA
// data_version), on SIGUSR1 or on a `reload` command.
#pragma once

#include <signal.h>

#include <string>

#include "base/sqlite.h"
#include "bond_risk/live/live_model.h"

namespace bond_risk {

// Runs until a shutdown command or SIGINT/SIGTERM; `signals` (SIGINT,
// SIGTERM, SIGUSR1) must be blocked in every thread by the caller. Throws
// std::runtime_error if the socket is held by another engine or the
// database cannot be written.
void serve(LiveModel& model, base::Database& db, const std::string& socket_path, const sigset_t& signals);

}  // namespace bond_risk
