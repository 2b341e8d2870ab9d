// The socket server's poll timer and shutdown (second hardening round,
// class 2): a stop() that runs while the timer's expiry is already queued
// must still end the loop. Asio's loop gathers expired waits when it looks
// at the reactor, which it does before a handler posted earlier runs: so a
// handler posted before the period ran out, run after, sees the expiry
// queued behind it, where cancel() cannot recall it.
#include "bond_risk/live/repeating_timer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace bond_risk {
namespace {

using std::chrono::milliseconds;

TEST(RepeatingTimer, RunsEveryPeriodUntilStopped) {
  asio::io_context io;
  RepeatingTimer timer(io, milliseconds(1));
  int runs = 0;
  timer.start([&] {
    if (++runs == 3) timer.stop();
  });
  io.run_for(std::chrono::seconds(5));
  EXPECT_EQ(runs, 3);
  EXPECT_TRUE(io.stopped()) << "the loop still had work after stop()";
}

TEST(RepeatingTimer, AStopWhileTheExpiryIsAlreadyQueuedEndsTheLoop) {
  asio::io_context io;
  RepeatingTimer timer(io, milliseconds(1));
  int runs = 0;
  timer.start([&] { ++runs; });
  asio::post(io, [&] { timer.stop(); });    // like `shutdown`, read before the period ran out
  std::this_thread::sleep_for(milliseconds(20));  // the period runs out before the loop runs
  io.run_for(std::chrono::seconds(2));
  EXPECT_EQ(runs, 0) << "the task ran after stop()";
  EXPECT_TRUE(io.stopped()) << "the timer re-armed after stop(): the loop, and the engine, would never end";
}

}  // namespace
}  // namespace bond_risk
