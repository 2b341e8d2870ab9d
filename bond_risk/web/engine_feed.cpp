#include "bond_risk/web/engine_feed.h"

#include <poll.h>

#include <chrono>
#include <deque>
#include <stdexcept>

#include "base/unix_socket.h"
#include "bond_risk/live/command.h"

namespace bond_risk::web {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kEventsEvery = std::chrono::milliseconds(100);
constexpr auto kStatsEvery = std::chrono::seconds(1);
constexpr auto kRetryEvery = std::chrono::seconds(1);
constexpr std::size_t kMaxWatched = 10'000;  // the engine's bound per connection

// One connection to the engine, followed until it fails (throws
// std::runtime_error saying why) or `stop` is requested.
class Follower {
 public:
  Follower(base::UniqueFd fd, DeskState& state) : fd_(std::move(fd)), lines_(fd_.get()), state_(state) {}

  void run(const std::stop_token& stop) {
    ask(format_command(ListBooks{}), Asked::books);
    auto next_events = Clock::now(), next_stats = Clock::now();
    while (!stop.stop_requested()) {
      const auto now = Clock::now();
      if (now >= next_events) {
        if (!waiting_for(Asked::events)) ask(format_command(RecentEvents{state_.last_event_seq()}), Asked::events);
        next_events = now + kEventsEvery;
      }
      if (now >= next_stats) {
        if (!waiting_for(Asked::stats)) ask(format_command(Stats{}), Asked::stats);
        next_stats = now + kStatsEvery;
      }
      pollfd p{fd_.get(), POLLIN, 0};
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(std::min(next_events, next_stats) - Clock::now());
      if (::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(wait.count(), 0))) < 0 && errno != EINTR) {
        throw std::runtime_error("cannot wait for the engine's replies");
      }
      if (p.revents != 0) read_lines();
    }
  }

 private:
  enum class Asked { books, watch, events, stats };

  void ask(const std::string& line, Asked what) {
    if (!base::write_all(fd_.get(), line + "\n")) throw std::runtime_error("the engine closed the connection");
    asked_.push_back(what);
  }
  bool waiting_for(Asked what) const { return std::find(asked_.begin(), asked_.end(), what) != asked_.end(); }

  // What the engine sent (poll said it is there): every complete line.
  void read_lines() {
    if (!lines_.fill()) throw std::runtime_error("the engine closed the connection");
    while (const std::optional<std::string> line = lines_.next()) take(base::Json::parse(*line));
  }

  // One line from the engine: a watched book's update, or the reply to the
  // oldest question still open (replies come in the order asked).
  void take(const base::Json& line) {
    if (line.contains("update")) {
      state_.update(line["update"]);
      state_.saw_event(line.value("event", std::int64_t{0}));
      return;
    }
    if (asked_.empty()) throw std::runtime_error("the engine sent a reply nobody asked for");
    const Asked what = asked_.front();
    asked_.pop_front();
    if (!line.value("ok", false)) {
      throw std::runtime_error("the engine refused the gateway's question: " + line.value("error", std::string("?")));
    }
    state_.saw_event(line.value("event", std::int64_t{0}));
    switch (what) {
      case Asked::books: return watch(line["books"]);
      case Asked::watch: return;
      case Asked::events: return state_.add_events(line["events"]);
      case Asked::stats: return figures(line);
    }
  }

  void watch(const base::Json& books) {
    state_.set_books(books);
    Watch watch;
    for (const base::Json& b : books) {
      if (watch.keys.size() == kMaxWatched) break;
      watch.keys.push_back(std::to_string(b.at("id").get<std::int64_t>()));
    }
    books_listed_ = books.size();
    if (!watch.keys.empty()) ask(format_command(watch), Asked::watch);
  }

  // Events per second between two stats replies; a changed number of books
  // (other programs edit the tables) lists them again.
  void figures(const base::Json& stats) {
    const auto now = Clock::now();
    const std::int64_t event = stats.value("event", std::int64_t{0});
    double per_second = 0;
    if (last_stats_event_ >= 0) {
      per_second = static_cast<double>(event - last_stats_event_) /
                   std::chrono::duration<double>(now - last_stats_time_).count();
    }
    last_stats_event_ = event, last_stats_time_ = now;
    state_.set_figures(stats, per_second);
    std::size_t books = 0;
    for (const char* kind : {"outright_book", "repo_book"}) {
      for (const auto& [status, count] : stats["counts"][kind].items()) books += count.get<std::size_t>();
    }
    if (books != books_listed_ && !waiting_for(Asked::books)) ask(format_command(ListBooks{}), Asked::books);
  }

  base::UniqueFd fd_;
  base::LineReader lines_;
  DeskState& state_;
  std::deque<Asked> asked_;
  std::size_t books_listed_ = 0;
  std::int64_t last_stats_event_ = -1;
  Clock::time_point last_stats_time_;
};

}  // namespace

EngineFeed::EngineFeed(std::string socket, DeskState& state)
    : socket_(std::move(socket)), state_(state), thread_([this](const std::stop_token& stop) { run(stop); }) {}

EngineFeed::~EngineFeed() {
  thread_.request_stop();
  thread_.join();
}

void EngineFeed::run(const std::stop_token& stop) {
  while (!stop.stop_requested()) {
    try {
      Follower follower(base::connect_unix(socket_), state_);
      state_.connected(socket_);
      follower.run(stop);
    } catch (const std::exception& e) {  // runtime_error, or a line that is not JSON
      state_.disconnected(socket_, e.what());
    }
    const auto retry = Clock::now() + kRetryEvery;
    while (!stop.stop_requested() && Clock::now() < retry) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace bond_risk::web
