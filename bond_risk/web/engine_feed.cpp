#include "bond_risk/web/engine_feed.h"

#include <poll.h>

#include <chrono>
#include <algorithm>
#include <deque>
#include <memory>
#include <stdexcept>

#include "base/unix_socket.h"
#include "bond_risk/protocol/command.h"
#include "bond_risk/protocol/messages.h"

namespace bond_risk::web {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kEventsEvery = std::chrono::milliseconds(100);
constexpr auto kStatsEvery = std::chrono::seconds(1);
constexpr auto kRetryEvery = std::chrono::seconds(1);
constexpr auto kAnswerWithin = std::chrono::seconds(10);  // else the engine is down (stopped, or stuck): twice its busy timeout
constexpr auto kRewatchEvery = std::chrono::seconds(10);  // books no watch could follow are tried again
constexpr std::size_t kMaxWatched = 10'000;  // the engine's bound per connection: the books of one watch link
constexpr std::int64_t kTopPositions = 20;  // of a book a stream shows

// A connection of its own that watches a share of the books (at most
// kMaxWatched): the engine's update lines for them arrive on it.
struct WatchLink {
  WatchLink(base::UniqueFd f, std::size_t n) : fd(std::move(f)), lines(fd.get()), books(n) {}
  base::UniqueFd fd;
  base::LineReader lines;
  std::size_t books;      // asked to follow
  bool answered = false;  // the watch's reply came
  std::string failure;    // why it follows none of them ("" while it does)
};

// One connection to the engine (its questions), and the watch links its
// book list asked for, followed until the connection fails (throws
// std::runtime_error saying why) or `stop` is requested. A watch link that
// fails leaves its books unfollowed, says so in the state, and is tried again.
class Follower {
 public:
  Follower(std::string socket, DeskState& state)
      : socket_(std::move(socket)), fd_(base::connect_unix(socket_)), lines_(fd_.get()), state_(state) {}

  void run(const std::stop_token& stop) {
    ask(format_command(ListBooks{}), Asked::books);
    auto next_events = Clock::now(), next_stats = Clock::now();
    std::vector<pollfd> polled;
    while (!stop.stop_requested()) {
      const auto now = Clock::now();
      // Down: a question waits, and the engine has sent nothing since it was asked, for kAnswerWithin
      // (an engine working through big replies, or watches, is heard from meanwhile).
      if (!asked_.empty() && now - std::max(asked_.front().at, heard_) > kAnswerWithin) {
        throw std::runtime_error("the engine has not answered for " +
                                 std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kAnswerWithin).count()) +
                                 " s (stopped, or stuck)");
      }
      if (now >= next_events) {
        if (!waiting_for(Asked::events)) ask(format_command(RecentEvents{state_.last_event_seq()}), Asked::events);
        if (!waiting_for(Asked::positions)) {
          for (const std::int64_t book : state_.positions_due()) {
            ask(format_command(TopPositions{std::to_string(book), kTopPositions}), Asked::positions, book);
          }
        }
        next_events = now + kEventsEvery;
      }
      if (now >= next_stats) {
        if (!waiting_for(Asked::stats)) ask(format_command(Stats{}), Asked::stats);
        // The explain (every book's) and the limits, once a second at most, when an event came.
        if (!waiting_for(Asked::explain) && !waiting_for(Asked::limits) && state_.last_event_seq() != explained_at_) {
          explained_at_ = state_.last_event_seq();
          ask(format_command(Explain{}), Asked::explain);
          ask(format_command(Limits{std::nullopt, DeskState::kShownLimits}), Asked::limits);
        }
        next_stats = now + kStatsEvery;
      }
      polled.assign(1, {fd_.get(), POLLIN, 0});
      for (const auto& link : links_) polled.push_back({link->failure.empty() ? link->fd.get() : -1, POLLIN, 0});
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(std::min(next_events, next_stats) - Clock::now());
      if (::poll(polled.data(), polled.size(), static_cast<int>(std::max<std::int64_t>(wait.count(), 0))) < 0 && errno != EINTR) {
        throw std::runtime_error("cannot wait for the engine's replies");
      }
      const std::size_t links_polled = links_made_;
      if (polled[0].revents != 0) read_lines();
      // A book list read just now replaced the links: what was polled was of the old ones.
      for (std::size_t i = 0; links_made_ == links_polled && i + 1 < polled.size(); ++i) {
        if (polled[i + 1].revents != 0) read_link(*links_[i]);
      }
    }
  }

 private:
  enum class Asked { books, events, stats, positions, explain, limits };
  struct Question {
    Asked what;
    std::int64_t book;  // whose positions
    Clock::time_point at;
  };

  void ask(const std::string& line, Asked what, std::int64_t book = 0) {
    if (!base::write_all(fd_.get(), line + "\n")) throw std::runtime_error("the engine closed the connection");
    asked_.push_back({what, book, Clock::now()});
  }
  bool waiting_for(Asked what) const {
    return std::any_of(asked_.begin(), asked_.end(), [&](const Question& q) { return q.what == what; });
  }

  // What the engine sent (poll said it is there): every complete line.
  void read_lines() {
    if (!lines_.fill()) throw std::runtime_error("the engine closed the connection");
    heard_ = Clock::now();
    while (const std::optional<std::string> line = lines_.next()) take(protocol::decode_line(*line));
  }

  // The reply to the oldest question still open (replies come in the order
  // asked). A book's positions refused (the book went meanwhile) are left as they were.
  void take(const protocol::Line& line) {
    if (asked_.empty()) throw std::runtime_error("the engine sent a reply nobody asked for");
    if (line.kind != protocol::Line::Kind::reply) throw std::runtime_error("the engine pushed a line to a connection that watches nothing");
    const Question asked = asked_.front();
    asked_.pop_front();
    if (!line.ok) {
      if (asked.what == Asked::positions || asked.what == Asked::explain || asked.what == Asked::limits) return;
      throw std::runtime_error("the engine refused the gateway's question: " + line.error);
    }
    state_.saw_event(line.event.value_or(0));
    switch (asked.what) {
      case Asked::books: return watch(protocol::decode_books(line.body));
      case Asked::events: return state_.add_events(line.body.at(protocol::member::events));
      case Asked::stats: return figures(protocol::decode_figures(line.body));
      case Asked::positions: return state_.set_positions(asked.book, line.body);
      case Asked::explain: return state_.set_explain(line.body);
      case Asked::limits: return state_.set_limits(line.body);
    }
  }

  // A watch link's lines: its watch's reply, then the updates of its books.
  void read_link(WatchLink& link) {
    try {
      if (!link.lines.fill()) return fail(link, "the engine closed the connection watching them");
      heard_ = Clock::now();
      while (const std::optional<std::string> text = link.lines.next()) {
        const protocol::Line line = protocol::decode_line(*text);
        if (line.kind == protocol::Line::Kind::update) {
          state_.update(line.body);
          state_.saw_event(line.event.value_or(0));
        } else if (line.kind == protocol::Line::Kind::alert) {
          state_.add_alert(line.body);
        } else if (!link.answered) {
          link.answered = true;
          if (!line.ok) return fail(link, "the engine refused to watch them: " + line.error);
        }
      }
    } catch (const std::exception& e) {  // a read error, or a line that is not JSON
      fail(link, e.what());
    }
  }

  void fail(WatchLink& link, const std::string& why) {
    link.failure = why;
    link.fd = base::UniqueFd();
    report_unwatched();
  }

  void report_unwatched() {
    std::size_t unwatched = 0;
    std::string why;
    for (const auto& link : links_) {
      if (link->failure.empty()) continue;
      unwatched += link->books;
      if (why.empty()) why = link->failure;
    }
    state_.set_unwatched(unwatched, why);
    rewatch_at_ = Clock::now() + kRewatchEvery;
  }

  // Watches every listed book, kMaxWatched to a link, on new links (the old
  // ones close: a link never follows more than its share).
  void watch(const std::vector<protocol::BookEntry>& books) {
    state_.set_books(books);
    books_listed_ = books.size();
    links_.clear();
    ++links_made_;
    for (std::size_t first = 0; first < books.size(); first += kMaxWatched) {
      Watch watch;
      if (first == 0) watch.keys.emplace_back(command_info(CommandId::limits).name);  // and the limits' alerts
      for (std::size_t i = first; i < std::min(books.size(), first + kMaxWatched); ++i) {
        watch.keys.push_back(std::to_string(books[i].id));
      }
      const std::size_t share = std::min(books.size(), first + kMaxWatched) - first;
      try {
        links_.push_back(std::make_unique<WatchLink>(base::connect_unix(socket_), share));
      } catch (const std::exception& e) {
        links_.push_back(std::make_unique<WatchLink>(base::UniqueFd(), share));
        links_.back()->failure = e.what();
        continue;
      }
      if (!base::write_all(links_.back()->fd.get(), format_command(watch) + "\n")) {
        links_.back()->failure = "the engine closed the connection watching them";
      }
    }
    report_unwatched();
  }

  // Events per second between two stats replies; a changed number of books
  // (other programs edit the tables), or books left unwatched a while, lists
  // them again.
  void figures(const protocol::EngineFigures& stats) {
    const auto now = Clock::now();
    double per_second = 0;
    if (last_stats_event_ >= 0) {
      per_second = static_cast<double>(stats.event - last_stats_event_) /
                   std::chrono::duration<double>(now - last_stats_time_).count();
    }
    last_stats_event_ = stats.event, last_stats_time_ = now;
    state_.set_figures(stats, per_second);
    const std::size_t books = stats.books;
    const bool unwatched = std::any_of(links_.begin(), links_.end(), [](const auto& l) { return !l->failure.empty(); });
    if ((books != books_listed_ || (unwatched && now >= rewatch_at_)) && !waiting_for(Asked::books)) {
      ask(format_command(ListBooks{}), Asked::books);
    }
  }

  std::string socket_;
  base::UniqueFd fd_;
  base::LineReader lines_;
  DeskState& state_;
  std::deque<Question> asked_;
  Clock::time_point heard_;  // when the engine last sent anything, on any of these connections
  std::vector<std::unique_ptr<WatchLink>> links_;
  std::size_t links_made_ = 0;  // how many times links_ was made anew (a book list read)
  Clock::time_point rewatch_at_;
  std::size_t books_listed_ = 0;
  std::int64_t last_stats_event_ = -1;
  Clock::time_point last_stats_time_;
  std::int64_t explained_at_ = -1;  // the last event when the explain was last asked for
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
      Follower follower(socket_, state_);
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
