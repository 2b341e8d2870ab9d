#include "bond_risk/web/desk_state.h"

#include <iterator>
#include <set>

namespace bond_risk::web {

namespace member = protocol::member;

namespace {

constexpr std::size_t kKeptEvents = 50;     // the page's event feed
constexpr std::size_t kKeptRemoved = 4096;  // a stream further behind gets everything again

double number(const base::Json& values, const char* key) {
  const auto it = values.find(key);
  return it != values.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::int64_t milliseconds_since_epoch() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::uint64_t DeskState::bump() {
  changed_.notify_all();
  return ++version_;
}

std::map<std::int64_t, DeskState::Book>::iterator DeskState::erase(std::map<std::int64_t, Book>::iterator book,
                                                                   std::uint64_t version) {
  removed_.emplace_back(version, book->first);
  if (removed_.size() > kKeptRemoved) removed_.pop_front();
  if (const auto shown = positions_.find(book->second.name); shown != positions_.end()) {
    shown->second.text.clear();
    shown->second.asked = 0;
  }
  ids_.erase(book->second.name);
  return books_.erase(book);
}

void DeskState::connected(const std::string& socket) {
  const std::lock_guard lock(mutex_);
  restarted_ = bump();
  for (auto& [name, shown] : positions_) shown.asked = 0;  // this engine's are asked for again
  engine_ = {restarted_, {{"connected", true}, {"socket", socket}, {"error", ""}}};
  events_.clear();
  alerts_.clear();
  limits_ = {restarted_, nullptr};
  figures_ = {restarted_, base::Json::object()};
  as_of_event_ = 0;
  resident_kb_ = 0;
  unwatched_.clear();
}

void DeskState::disconnected(const std::string& socket, const std::string& error) {
  const std::lock_guard lock(mutex_);
  if (engine_.value.value("error", "") == error) return;  // the same failure, retried
  engine_ = {bump(), {{"connected", false}, {"socket", socket}, {"error", error}}};
}

void DeskState::set_books(const std::vector<protocol::BookEntry>& books) {
  const std::lock_guard lock(mutex_);
  const std::uint64_t v = bump();
  std::set<std::int64_t> listed;
  for (const protocol::BookEntry& b : books) {
    listed.insert(b.id);
    Book& book = books_[b.id];
    if (book.name != b.name || book.type != b.type) {
      book.name = b.name;
      book.type = b.type;
      book.changed = book.ladder_changed = v;
    }
  }
  for (auto it = books_.begin(); it != books_.end();) it = listed.count(it->first) ? std::next(it) : erase(it, v);
  ids_.clear();
  for (const auto& [id, book] : books_) ids_[book.name] = id;
}

void DeskState::update(const base::Json& values) {
  const std::lock_guard lock(mutex_);
  const std::int64_t id = values.at(member::id).get<std::int64_t>();
  const auto found = books_.find(id);
  if (found == books_.end()) return;  // not a listed book
  Book& book = found->second;
  if (values.value(member::status, "") == protocol::word::removed) {
    erase(found, bump());
    return;
  }
  base::Json row = {{member::id, id}, {member::name, book.name}};
  for (const auto& [key, value] : values.items()) {
    if (key != member::id && key != member::key_rates) row[key] = value;
  }
  const base::Json ladder = {{member::name, book.name},
                             {member::id, id},
                             {member::type, book.type},
                             {"points", values.value(member::key_rates, base::Json::array())}};
  std::string row_text = base::dump_line(row), ladder_text = base::dump_line(ladder);
  if (book.has_values && row_text == book.row && ladder_text == book.ladder) return;  // watched again after a reconnect
  const std::uint64_t v = bump();
  if (ladder_text != book.ladder) book.ladder = std::move(ladder_text), book.ladder_changed = v;
  book.row = std::move(row_text);
  book.has_values = true;
  book.ok = values.value(member::status, "") == protocol::word::ok;
  book.pv = number(values, member::pv), book.pv01 = number(values, member::pv01), book.cs01 = number(values, member::cs01);
  book.pnl = number(values, member::pnl);
  book.margin = number(values, member::margin), book.mtm_pnl = number(values, member::mtm_pnl);
  book.day_pnl = number(values, member::day_pnl);
  book.changed = v;
}

void DeskState::set_explain(const base::Json& reply) {
  const std::lock_guard lock(mutex_);
  std::uint64_t v = 0;  // bumped at the first change
  auto stamp = [&] { return v ? v : v = bump(); };
  for (const base::Json& b : reply.value(member::books, base::Json::array())) {
    const auto found = books_.find(b.value(member::id, std::int64_t{0}));
    if (found == books_.end()) continue;
    std::string text = base::dump_line({{member::name, found->second.name},
                                        {member::day_pnl, b.value(member::day_pnl, 0.0)},
                                        {member::causes, b.value(member::causes, base::Json::array())}});
    if (text != found->second.explain) found->second.explain = std::move(text), found->second.explain_changed = stamp();
  }
  const base::Json& t = reply.contains(member::total) ? reply.at(member::total) : base::Json::object();
  base::Json total = {{member::name, "total"},
                      {member::day_pnl, t.value(member::day_pnl, 0.0)},
                      {member::causes, t.value(member::causes, base::Json::array())}};
  if (total != explain_total_.value) explain_total_ = {stamp(), std::move(total)};
}

void DeskState::add_events(const base::Json& events) {
  if (events.empty()) return;
  const std::lock_guard lock(mutex_);
  const std::uint64_t v = bump();
  for (const base::Json& e : events) {
    const std::int64_t seq = e.value(member::seq, std::int64_t{0});
    if (!events_.empty() && seq <= events_.back().value.value(member::seq, std::int64_t{0})) continue;
    events_.push_back({v, e});
    as_of_event_ = std::max(as_of_event_, seq);
    if (events_.size() > kKeptEvents) events_.pop_front();
  }
}

void DeskState::set_figures(const protocol::EngineFigures& stats, double events_per_second) {
  const std::lock_guard lock(mutex_);
  as_of_event_ = std::max(as_of_event_, stats.event);
  base::Json figures = {{"events_per_s", events_per_second},
                        {member::recalc_us, stats.recalc_us},
                        {member::event, stats.event},
                        {member::results_as_of, stats.results_as_of},
                        {"results_lag", stats.event - stats.results_as_of}};
  if (figures != figures_.value) figures_ = {bump(), std::move(figures)};
  if (stats.vm_rss_kb) resident_kb_ = *stats.vm_rss_kb;
  recalc_seconds_ = stats.recalc_seconds;
  commit_seconds_ = stats.commit_seconds;
}

DeskState::Health DeskState::health() const {
  const std::lock_guard lock(mutex_);
  Health h;
  h.connected = engine_.value.value("connected", false);
  h.error = engine_.value.value("error", "");
  h.has_figures = h.connected && !figures_.value.empty();
  if (!h.has_figures) return h;
  h.event = figures_.value.value(member::event, std::int64_t{0});
  h.results_as_of = figures_.value.value(member::results_as_of, std::int64_t{0});
  h.resident_kb = resident_kb_;
  h.recalc_seconds = recalc_seconds_;
  h.commit_seconds = commit_seconds_;
  return h;
}

void DeskState::saw_event(std::int64_t event) {
  const std::lock_guard lock(mutex_);
  if (event <= as_of_event_) return;
  as_of_event_ = event;
  bump();
}

void DeskState::set_limits(const base::Json& reply) {
  const std::lock_guard lock(mutex_);
  base::Json shown = base::Json::array();
  for (const base::Json& limit : reply.value(member::risk_limits, base::Json::array())) {
    if (shown.size() < kShownLimits) shown.push_back(limit);
  }
  base::Json limits = {{"shown", std::move(shown)}, {member::states, reply.value(member::states, base::Json::object())}};
  if (limits != limits_.value) limits_ = {bump(), std::move(limits)};
}

void DeskState::add_alert(const base::Json& alert) {
  const std::lock_guard lock(mutex_);
  alerts_.push_back({bump(), alert});
  if (alerts_.size() > kKeptAlerts) alerts_.pop_front();
}

void DeskState::set_unwatched(std::size_t books, const std::string& why) {
  const std::lock_guard lock(mutex_);
  std::string text;
  if (books > 0) {
    text = std::to_string(books) + " of " + std::to_string(books_.size()) + " books are not followed (" + why +
           "): their values are missing and the totals leave them out; the gateway tries again every 10 s";
  }
  if (text == unwatched_) return;
  unwatched_ = std::move(text);
  bump();
}

void DeskState::show_positions(const std::string& name) {
  const std::lock_guard lock(mutex_);
  ++positions_[name].streams;
}

void DeskState::hide_positions(const std::string& name) {
  const std::lock_guard lock(mutex_);
  const auto shown = positions_.find(name);
  if (shown != positions_.end() && --shown->second.streams == 0) positions_.erase(shown);
}

std::vector<std::int64_t> DeskState::positions_due() {
  const std::lock_guard lock(mutex_);
  std::vector<std::int64_t> due;
  for (auto& [name, shown] : positions_) {
    const auto id = ids_.find(name);
    if (id == ids_.end()) continue;
    const Book& book = books_.at(id->second);
    if (book.type != protocol::word::outright_book || !book.has_values || book.changed <= shown.asked) continue;
    shown.asked = book.changed;
    due.push_back(id->second);
  }
  return due;
}

void DeskState::set_positions(std::int64_t id, const base::Json& reply) {
  const std::lock_guard lock(mutex_);
  const auto book = books_.find(id);
  if (book == books_.end()) return;  // gone since it was asked for
  const auto shown = positions_.find(book->second.name);
  if (shown == positions_.end()) return;  // no stream shows it any more
  std::string text = base::dump_line({{member::name, book->second.name},
                                      {member::id, id},
                                      {member::positions, reply.value(member::positions, base::Json::array())}});
  if (text == shown->second.text) return;
  shown->second.text = std::move(text);
  shown->second.changed = bump();
}

std::size_t DeskState::books() const {
  const std::lock_guard lock(mutex_);
  return books_.size();
}

std::int64_t DeskState::last_event_seq() const {
  const std::lock_guard lock(mutex_);
  return events_.empty() ? 0 : events_.back().value.value(member::seq, std::int64_t{0});
}

// Sums over the OK books, in id order (the same figures for every stream);
// day_pnl over every book, as the explain's total (a book not OK is at 0).
base::Json DeskState::totals() const {
  double pv = 0, pv01 = 0, cs01 = 0, pnl = 0, margin = 0, mtm_pnl = 0, outright_day = 0, repo_day = 0;
  std::size_t outright = 0, repo = 0, not_ok = 0, missing = 0;
  for (const auto& [id, b] : books_) {
    if (!b.has_values) {
      ++missing;
      continue;
    }
    const bool is_outright = b.type == protocol::word::outright_book;
    (is_outright ? outright_day : repo_day) += b.day_pnl;
    if (!b.ok) {
      ++not_ok;
    } else if (is_outright) {
      pv += b.pv, pv01 += b.pv01, cs01 += b.cs01, pnl += b.pnl, ++outright;
    } else {
      margin += b.margin, mtm_pnl += b.mtm_pnl, ++repo;
    }
  }
  return {{"outright", {{"pv", pv}, {"pv01", pv01}, {"cs01", cs01}, {"pnl", pnl}, {"day_pnl", outright_day}, {"books", outright}}},
          {"repo", {{"margin", margin}, {"mtm_pnl", mtm_pnl}, {"day_pnl", repo_day}, {"books", repo}}},
          {"not_ok", not_ok},
          {"complete", missing == 0},
          {"missing", missing}};
}

std::string DeskState::message(std::uint64_t since, const std::string& selected, std::uint64_t* version) const {
  const std::lock_guard lock(mutex_);
  // A stream older than the removals kept starts again from everything.
  // So does a stream from before the engine was reached again (its events and event number may be another engine's).
  const bool full = since == 0 || since < restarted_ ||
                    (!removed_.empty() && removed_.front().first > since && removed_.size() == kKeptRemoved);
  if (full) since = 0;
  std::string rows = "[", ladder, explain;
  bool explained = explain_total_.version > since;
  for (const auto& [id, b] : books_) {
    if (b.has_values && b.changed > since) rows.append(rows.size() > 1 ? "," : "").append(b.row);
    if (b.name == selected && b.has_values && b.ladder_changed > since) ladder = b.ladder;
    if (b.name == selected && !b.explain.empty()) explain = b.explain, explained = explained || b.explain_changed > since;
  }
  rows += "]";
  const auto shown = positions_.find(selected);
  const bool positions = shown != positions_.end() && !shown->second.text.empty() && shown->second.changed > since;
  base::Json removed = base::Json::array();
  for (const auto& [v, id] : removed_) {
    if (v > since) removed.push_back(id);
  }
  base::Json events = base::Json::array(), alerts = base::Json::array();
  for (const Stamped& e : events_) {
    if (e.version > since) events.push_back(e.value);
  }
  for (const Stamped& a : alerts_) {
    if (a.version > since) alerts.push_back(a.value);
  }
  base::Json head = {{"full", full}, {"engine", engine_.value}, {"as_of_event", as_of_event_}, {"error", unwatched_}};
  base::Json tail = {{"removed", std::move(removed)},
                     {"totals", totals()},
                     {"events", std::move(events)},
                     {"alerts", std::move(alerts)},
                     {"figures", figures_.value},
                     {"sent_ms", milliseconds_since_epoch()}};
  if (limits_.version > since && !limits_.value.is_null()) head["risk_limits"] = limits_.value;
  std::string out = base::dump_line(head);
  out.pop_back();  // the closing brace: the rows, the ladder and the positions go in as they are
  out.append(",\"rows\":").append(rows);
  if (!ladder.empty()) out.append(",\"ladder\":").append(ladder);
  if (positions) out.append(",\"positions\":").append(shown->second.text);
  if (explained && !explain_total_.value.is_null()) {
    out.append(",\"pnl_explain\":{\"total\":").append(base::dump_line(explain_total_.value));
    if (!explain.empty()) out.append(",\"book\":").append(explain);
    out.append("}");
  }
  const std::string rest = base::dump_line(tail);
  out.append(",").append(rest, 1, std::string::npos);
  *version = version_;
  return out;
}

std::uint64_t DeskState::wait_past(std::uint64_t since, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout, [&] { return stopping_ || version_ > since; });
  return version_;
}

void DeskState::stop() {
  const std::lock_guard lock(mutex_);
  stopping_ = true;
  changed_.notify_all();
}

bool DeskState::stopping() const {
  const std::lock_guard lock(mutex_);
  return stopping_;
}

}  // namespace bond_risk::web
