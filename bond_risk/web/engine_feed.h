// Follows a running engine for the desk page, as an ordinary client of its
// Unix socket: lists the books (list-books) and watches every one of them,
// over as many more connections as the engine's bound on one connection's
// watches (10,000) needs; asks for the events after the last it saw every
// 100 ms (last-events) and for the engine's figures every second (stats),
// and feeds all of it to a DeskState. Every 100 ms it also asks for the 20
// largest positions (top-positions) of each outright book a stream shows
// whose values changed since it last asked (DeskState::positions_due), one
// round of such questions at a time. The first watch link also watches the
// limits (their alerts); the explain and `limits` are asked for once a
// second when events came. Books no watch could follow are named
// in the state (and tried again every 10 s). When the engine is unreachable,
// goes away, or sends nothing for 10 s while a question waits (stopped, or
// stuck: health means it answered recently; a batch may wait 5 s for
// another program's write lock, and so may a question behind it), the state says so and the feed
// connects again every second by itself; the state then starts again from
// what that engine says.
//
// Runs on its own thread from construction to destruction; `state` must
// outlive it.
#pragma once

#include <string>
#include <thread>

#include "bond_risk/web/desk_state.h"

namespace bond_risk::web {

class EngineFeed {
 public:
  EngineFeed(std::string socket, DeskState& state);
  ~EngineFeed();  // stops and joins the thread
  EngineFeed(const EngineFeed&) = delete;
  EngineFeed& operator=(const EngineFeed&) = delete;

 private:
  void run(const std::stop_token& stop);

  std::string socket_;
  DeskState& state_;
  std::jthread thread_;
};

}  // namespace bond_risk::web
