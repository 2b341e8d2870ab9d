// Serves a LiveModel to clients on a Unix domain socket, on one Asio event
// loop: one command per line (protocol/command.h), exactly one JSON reply per
// line, in order. Lines that arrive together, from any clients, are
// executed as one batch (live/command_executor.h: one durable transaction,
// replies after its commit). Replies wait in a queue per connection until
// its socket can take them: a client that reads slowly delays only itself,
// stops being read past 1 MiB of unread replies and is dropped, with a
// message, past 16 MiB. A connection that watches nodes receives a line
// whenever their values change; only the latest unsent update per node
// waits. Changes other programs commit to the input tables are noticed
// within 100 ms (PRAGMA data_version), on SIGUSR1 or SIGHUP, or on a
// `reload` command.
#pragma once

#include <string>

#include "base/sqlite.h"
#include "bond_risk/db/synchronous.h"
#include "bond_risk/live/live_model.h"

namespace bond_risk {

// Runs until a shutdown command or SIGINT/SIGTERM, committing with
// `synchronous` (db/synchronous.h). Throws
// std::runtime_error if the socket is held by another engine or the
// database cannot be written.
void serve(LiveModel& model, base::Database& db, const std::string& socket_path,
           Synchronous synchronous = Synchronous::full);

}  // namespace bond_risk
