// The commands the event benchmarks send, drawn from a loaded Store by a
// seeded generator: the same database and seed give the same commands, so
// two commits are measured on the same lines. Amendments and reads draw
// from the first half of the outright trades, removals from the second
// half, each trade once, so no command of a mix refers to a trade an
// earlier one removed.
// Owns copies of what it draws from, not `store`. Not thread-safe: one thread
// at a time draws (the bench command's, or EngineClient::flat_out's writer).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bond_risk/protocol/command.h"
#include "bond_risk/model/store/store.h"

namespace bond_risk {

class Workload {
 public:
  // Keeps what it draws from, not `store`. Throws std::invalid_argument if
  // the store has no outright trade, curve or outright book.
  Workload(const Store& store, std::uint64_t seed);

  Change amendment();  // a random trade's quantity, 1..5000
  Change booking();    // an outright trade of a random bond into a random outright book
  Change removal();    // the next trade of the second half; throws std::out_of_range past its end
  Change tick();       // set-curve of a random curve: every point within 0.1bp of its loaded value
  Change bump();       // bump-curve of a random curve by 1 to 5 bp, up or down
  // A quote tick (SetPrices) of `bonds` random quoted bonds, each within 0.05 of its loaded
  // quote; throws std::invalid_argument if the store quoted none.
  Change quote_tick(std::size_t bonds);
  Command read();      // get of a random trade, or book of a random outright book

  // A line of the desk-day mix: 60% reads, 25% amendments, 8% bookings,
  // 5% removals, 2% whole-curve ticks.
  std::string desk_line();

  // The first curve's name and points, and the first calendar's today.
  const std::string& first_curve() const { return curves_.front().name; }
  Date today() const { return today_; }

 private:
  struct Curve {
    std::string name;
    std::vector<double> values;
  };
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }

  std::mt19937_64 rng_;
  std::vector<std::int64_t> trades_, bonds_;
  std::vector<std::pair<std::int64_t, double>> quotes_;  // (bond id, loaded clean price)
  std::size_t next_removal_;
  std::vector<std::string> books_;
  std::vector<Curve> curves_;
  Date today_;
};

// The command lines of `n` draws of `next` (a Workload member).
template <typename Next>
std::vector<std::string> lines(std::size_t n, Next next) {
  std::vector<std::string> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(format_command(next()));
  return out;
}

}  // namespace bond_risk
