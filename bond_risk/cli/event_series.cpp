#include "bond_risk/cli/event_series.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "base/unix_socket.h"
#include "bond_risk/live/replies.h"
#include "engine/timing.h"

namespace bond_risk {

using Clock = std::chrono::steady_clock;

Series in_process(const std::string& name, LiveModel& model, const std::vector<Change>& changes, std::size_t* nodes,
                  Series* recalculation) {
  Series s{name, {}};
  for (const Change& change : changes) {
    const engine::Stopwatch w;
    model.apply(change, nullptr);
    const double applied = w.seconds();
    const LiveModel::Recalculation r = model.recalculate();
    const double done = w.seconds();
    s.micros.push_back(done * 1e6);
    if (recalculation) recalculation->micros.push_back((done - applied) * 1e6);
    if (nodes) {
      *nodes = 0;
      for (std::size_t n : r.nodes) *nodes += n;
    }
  }
  return s;
}

Series full_flushes(LiveModel& model, std::size_t count) {
  Series s{"full_flush_in_process", {}};
  for (std::size_t i = 0; i < count; ++i) s.micros.push_back(model.flush_all().seconds * 1e6);
  return s;
}

EngineClient::EngineClient(const std::string& socket) {
  for (int tries = 0;; ++tries) {
    try {
      fd_ = base::connect_unix(socket);
      return;
    } catch (const std::runtime_error&) {
      if (tries > 1200) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

std::string EngineClient::read_line() {
  char buf[65536];
  for (;;) {
    if (const auto nl = pending_.find('\n'); nl != std::string::npos) {
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return line;
    }
    const ssize_t n = ::read(fd_.get(), buf, sizeof buf);
    if (n <= 0) throw std::runtime_error("the engine closed the connection");
    pending_.append(buf, static_cast<std::size_t>(n));
  }
}

Series EngineClient::round_trips(const std::string& name, const std::vector<std::string>& lines) {
  Series s{name, {}};
  for (const std::string& line : lines) {
    const engine::Stopwatch w;
    base::write_all(fd_.get(), line + "\n");
    const std::string reply = read_line();
    if (!is_ok_line(reply)) throw std::runtime_error("refused: " + line + ": " + reply);
    s.micros.push_back(w.seconds() * 1e6);
  }
  return s;
}

Series EngineClient::pipelined(const std::string& name, const std::vector<std::string>& lines, double per_second,
                               double* rate) {
  std::vector<std::atomic<Clock::rep>> sent(lines.size());  // written by the writer, read after the reply
  const Clock::time_point start = Clock::now();
  std::jthread writer([&] {
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (per_second > 0) std::this_thread::sleep_until(start + std::chrono::duration<double>(i / per_second));
      sent[i].store(Clock::now().time_since_epoch().count(), std::memory_order_release);
      base::write_all(fd_.get(), lines[i] + "\n");
    }
  });
  Series s{name, {}};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string reply = read_line();
    const Clock::time_point now = Clock::now();
    if (!is_ok_line(reply)) throw std::runtime_error("refused: " + lines[i] + ": " + reply);
    const Clock::time_point at{Clock::duration(sent[i].load(std::memory_order_acquire))};
    s.micros.push_back(std::chrono::duration<double, std::micro>(now - at).count());
  }
  *rate = static_cast<double>(lines.size()) / std::chrono::duration<double>(Clock::now() - start).count();
  return s;
}

}  // namespace bond_risk
