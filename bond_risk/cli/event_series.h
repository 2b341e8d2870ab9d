// The measurements of bond_risk bench-events: series of event latencies in
// microseconds, taken in process on a LiveModel (the clock around apply and
// recalculate) or end to end through a running engine's socket (the clock
// from writing the line to reading its reply, which leaves only after the
// durable commit).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/unique_fd.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/model/changes.h"

namespace bond_risk {

struct Series {
  std::string name;  // an identifier: amend_in_process, bump_end_to_end, ...
  std::vector<double> micros;
};

// Applies and recalculates each change in turn (the clock around both);
// also counts the nodes the last one recalculated into `nodes` and, with
// `recalculation`, times the recalculation alone (after the marking apply
// does) into it.
Series in_process(const std::string& name, LiveModel& model, const std::vector<Change>& changes,
                  std::size_t* nodes = nullptr, Series* recalculation = nullptr);

// `count` full flushes of the model (the yardstick of the in-process events).
Series full_flushes(LiveModel& model, std::size_t count);

// A connection to a running engine.
class EngineClient {
 public:
  explicit EngineClient(const std::string& socket);  // waits up to a minute for the engine to listen
  // Each line sent alone, its reply awaited; throws if one is refused.
  Series round_trips(const std::string& name, const std::vector<std::string>& lines);
  // The lines sent as fast as the engine takes them (one writer thread) or,
  // with `per_second`, paced; each line's latency is from its send to its
  // reply. Returns the series; `rate` receives replies per second.
  Series pipelined(const std::string& name, const std::vector<std::string>& lines, double per_second, double* rate);

 private:
  std::string read_line();

  base::UniqueFd fd_;
  std::string pending_;
};

}  // namespace bond_risk
