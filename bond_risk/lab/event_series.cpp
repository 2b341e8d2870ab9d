#include "bond_risk/lab/event_series.h"

#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "base/json.h"
#include "base/unix_socket.h"
#include "bond_risk/live/stages/engine_stages.h"
#include "bond_risk/live/stages/event_stages.h"
#include "bond_risk/protocol/command.h"
#include "bond_risk/protocol/members.h"
#include "bond_risk/protocol/messages.h"
#include "base/timing.h"

namespace bond_risk {

using Clock = std::chrono::steady_clock;

namespace {

// Throws if `reply` to `line` is an error.
void expect_ok(const std::string& line, const std::string& reply) {
  if (!protocol::is_ok_line(reply)) throw std::runtime_error("refused: " + line.substr(0, 200) + ": " + reply);
}

// Stops the writer thread when the reader leaves early (a refused line, a
// closed connection): `stop` is called before the writer is joined.
class OnThrow {
 public:
  explicit OnThrow(std::function<void()> stop) : stop_(std::move(stop)) {}
  ~OnThrow() {
    if (std::uncaught_exceptions() > exceptions_) stop_();
  }
  OnThrow(const OnThrow&) = delete;
  OnThrow& operator=(const OnThrow&) = delete;

 private:
  std::function<void()> stop_;
  int exceptions_ = std::uncaught_exceptions();
};

}  // namespace

InProcess in_process(const std::string& what, LiveModel& model, const StoredRows& rows, base::Database& db,
                     const std::vector<Change>& changes) {
  InProcess out{{what + "_in_process", {}}, {what + "_recalculation_in_process", {}}, {what + "_explain_in_process", {}},
                {what + "_limit_checks_in_process", {}}};
  PhaseTimes phases;
  EventStages road(model, phases, 0);
  const EngineStages stages = add_engine_stages(road, model, rows, db, nullptr);
  stages.limits.check_all();  // resolved once, as the engine's start does
  std::int64_t seq = 0;
  const auto seconds = [&](Phase p) { return phases.seconds[static_cast<std::size_t>(p)]; };
  for (const Change& change : changes) {
    const auto before = phases.seconds;
    const base::Stopwatch w;
    road.joins(change);  // (nothing awaits: each event is recalculated alone)
    road.apply(change, [&] { return EventStages::Logged{model.commit(model.prepare(change, rows), rows), LoggedEvent{++seq, {}, {}}}; });
    const LiveModel::Recalculation& r = *road.settle();
    const double done = w.seconds();
    const auto spent = [&](Phase p) { return (seconds(p) - before[static_cast<std::size_t>(p)]) * 1e6; };
    out.events.micros.push_back(done * 1e6 - spent(Phase::alerts));
    out.recalculation.micros.push_back(spent(Phase::recalculate));
    out.explain.micros.push_back(spent(Phase::explain));
    out.limit_checks.micros.push_back(spent(Phase::limits));
    out.nodes = 0;
    for (std::size_t n : r.nodes) out.nodes += n;
    road.write(db);
    road.committed();
  }
  return out;
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
      replies_ = base::LineReader(fd_.get());
      return;
    } catch (const std::runtime_error&) {
      if (tries > 1200) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

std::string EngineClient::read_line() {
  std::optional<std::string> line = replies_.read_line();
  if (!line) throw std::runtime_error("the engine closed the connection");
  return std::move(*line);
}

Series EngineClient::round_trips(const std::string& name, const std::vector<std::string>& lines) {
  Series s{name, {}};
  for (const std::string& line : lines) {
    const base::Stopwatch w;
    expect_ok(line, ask(line));
    s.micros.push_back(w.seconds() * 1e6);
  }
  return s;
}

Series EngineClient::quiet_round_trips(const std::string& name, const std::vector<std::string>& lines,
                                       std::chrono::milliseconds pause) {
  const std::string stats(command_info(CommandId::stats).name);
  Series s{name, {}};
  for (const std::string& line : lines) {
    const base::Stopwatch w;
    const std::string reply = ask(line);
    s.micros.push_back(w.seconds() * 1e6);
    expect_ok(line, reply);
    const std::int64_t event = base::Json::parse(reply).at(protocol::member::event).get<std::int64_t>();
    for (int polls = 0;; ++polls) {
      const base::Json state = base::Json::parse(ask(stats));
      if (state.at(protocol::member::results_as_of).get<std::int64_t>() >= event) break;
      if (polls > 6000) throw std::runtime_error("the engine's results did not reach event " + std::to_string(event) + " within a minute");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::this_thread::sleep_for(pause);
  }
  return s;
}

std::string EngineClient::ask(const std::string& line) {
  base::write_all(fd_.get(), line + "\n");
  return read_line();
}


OpenLoop EngineClient::open_loop(const std::string& name, const std::vector<std::string>& lines, double per_second,
                                 bool keep_replies) {
  const std::size_t n = lines.size();
  std::vector<std::atomic<Clock::rep>> sent(per_second > 0 ? 0 : n);  // flat out: written by the writer
  const Clock::time_point start = Clock::now();
  const auto due = [&](std::size_t i) {
    return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(i / per_second));
  };
  std::atomic<bool> stop = false;
  std::jthread writer([&] {
    std::string chunk;
    for (std::size_t i = 0; i < n && !stop;) {
      if (per_second > 0) std::this_thread::sleep_until(due(i));
      const Clock::time_point now = Clock::now();
      chunk.clear();
      // Every line due by now (flat out: the next 64), in one write.
      for (; i < n && chunk.size() < 65536 && (per_second > 0 ? due(i) <= now : chunk.empty() || i % 64); ++i) {
        if (per_second <= 0) sent[i].store(now.time_since_epoch().count(), std::memory_order_release);
        chunk += lines[i];
        chunk += '\n';
      }
      base::write_all(fd_.get(), chunk);
    }
  });
  const OnThrow stop_writer([&] {
    stop = true;
    ::shutdown(fd_.get(), SHUT_RDWR);
  });
  OpenLoop out{{name, {}}, 0, {}};
  out.series.micros.reserve(n);
  Clock::time_point first = start, last = start;
  for (std::size_t i = 0; i < n; ++i) {
    std::string reply = read_line();
    const Clock::time_point now = Clock::now();
    if (i == 0) first = now;
    last = now;
    expect_ok(lines[i], reply);
    const Clock::time_point from =
        per_second > 0 ? due(i) : Clock::time_point(Clock::duration(sent[i].load(std::memory_order_acquire)));
    out.series.micros.push_back(std::chrono::duration<double, std::micro>(now - from).count());
    if (keep_replies) out.replies.push_back(std::move(reply));
  }
  // The rate replies came at, from the first to the last: an engine that keeps up answers at the
  // offered rate however late the last reply is; one that falls behind answers at its own.
  const double span = std::chrono::duration<double>(last - first).count();
  out.replies_per_second = n < 2 || span <= 0 ? static_cast<double>(n) / std::chrono::duration<double>(last - start).count()
                                              : static_cast<double>(n - 1) / span;
  return out;
}

Series EngineClient::alert_deliveries(const std::string& name, const std::string& socket,
                                      const std::vector<std::string>& lines, std::size_t alerts_each) {
  EngineClient watcher(socket);
  expect_ok("watch limits", watcher.ask("watch limits"));
  const timeval patience{10, 0};
  setsockopt(watcher.fd_.get(), SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
  std::atomic<std::int64_t> delivered = -1;       // the last event whose alerts are all in
  std::atomic<Clock::rep> delivered_at = 0;
  std::exception_ptr failure;
  std::jthread reader([&] {
    try {
      std::map<std::int64_t, std::size_t> counts;
      for (std::size_t done = 0; done < lines.size();) {
        // An alert line's seq, read in place (the watcher's own cost is on
        // the clock; parsing each line whole would dominate it).
        const std::optional<std::int64_t> seq = protocol::alert_seq(watcher.read_line());
        if (!seq || ++counts[*seq] != alerts_each) continue;
        delivered_at = Clock::now().time_since_epoch().count();
        delivered = *seq;
        delivered.notify_all();
        ++done;
      }
    } catch (...) {
      failure = std::current_exception();
      delivered = -2;
      delivered.notify_all();
    }
  });
  Series s{name, {}};
  for (const std::string& line : lines) {
    const std::string reply = ask(line);
    const Clock::time_point acknowledged = Clock::now();
    expect_ok(line, reply);
    const std::optional<std::int64_t> event = protocol::decode_line(reply).event;
    if (!event) throw std::runtime_error("the reply to " + line.substr(0, 200) + " names no event: " + reply);
    const std::int64_t seq = *event;
    for (std::int64_t d = delivered.load(); d != seq; d = delivered.load()) {
      if (d == -2) std::rethrow_exception(failure);
      delivered.wait(d);
    }
    const Clock::time_point at{Clock::duration(delivered_at.load())};
    s.micros.push_back(std::max(0.0, std::chrono::duration<double, std::micro>(at - acknowledged).count()));
  }
  return s;
}

double EngineClient::flat_out(const std::function<std::string()>& next, double seconds, std::size_t window) {
  if (window == 0) throw std::invalid_argument("flat_out needs a window of at least one line");
  constexpr std::uint64_t kDone = 1ULL << 63;  // set in `posted` once the writer has stopped
  std::atomic<std::uint64_t> posted = 0, answered = 0;
  std::deque<std::string> unanswered;  // lines sent and not yet answered, oldest first (for an error's message)
  std::mutex unanswered_mutex;
  std::exception_ptr failure;  // what stopped the writer (a line it could not make), read once it is done
  const Clock::time_point start = Clock::now();
  const Clock::time_point end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::atomic<bool> stop = false;
  std::jthread writer([&] {
    try {
      std::vector<std::string> batch;
      std::string chunk;
      for (std::uint64_t sent = 0; Clock::now() < end && !stop;) {
        std::uint64_t a = answered.load();
        for (; !stop && sent - a >= window; a = answered.load()) answered.wait(a);
        batch.clear();
        chunk.clear();
        for (std::uint64_t k = 0; k < 64 && sent + k - a < window; ++k) {
          batch.push_back(next());
          chunk += batch.back() + "\n";
        }
        {
          const std::lock_guard lock(unanswered_mutex);
          std::ranges::move(batch, std::back_inserter(unanswered));
        }
        sent += batch.size();
        posted = sent;
        posted.notify_all();
        base::write_all(fd_.get(), chunk);
      }
    } catch (...) {
      failure = std::current_exception();
    }
    posted |= kDone;
    posted.notify_all();
  });
  const OnThrow stop_writer([&] {
    stop = true;
    answered = kDone;  // frees a writer waiting for room in the window
    answered.notify_all();
    ::shutdown(fd_.get(), SHUT_RDWR);
  });
  std::uint64_t i = 0;
  for (std::uint64_t p = posted.load();; p = posted.load()) {
    if (i == (p & ~kDone)) {
      if (p & kDone) break;
      posted.wait(p);
      continue;
    }
    const std::string reply = read_line();
    std::string line;
    {
      const std::lock_guard lock(unanswered_mutex);
      line = std::move(unanswered.front());
      unanswered.pop_front();
    }
    expect_ok(line, reply);
    answered = ++i;
    answered.notify_all();
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  writer.join();  // `failure` is written before kDone; joined, it is read safely
  if (failure) std::rethrow_exception(failure);
  return static_cast<double>(i) / elapsed;
}

}  // namespace bond_risk
