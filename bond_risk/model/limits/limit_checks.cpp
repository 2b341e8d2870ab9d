#include "bond_risk/model/limits/limit_checks.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace bond_risk {

LimitChecks::LimitChecks(std::unordered_map<std::int64_t, RecordedLimit> recorded) : states_(std::move(recorded)) {}

LimitChecks::Held LimitChecks::hold(const Store& s, const PnlDay& day, const RiskLimit& l) const {
  const LimitIdentity what{l.book_id, *parse_limit_measure(l.measure)};
  const auto recorded = states_.find(l.id);
  // Recorded for another book or measure: another limit under a reused id.
  const bool same = recorded != states_.end() && recorded->second.what == what;
  return {l.id, what, resolve_limit(s, day, l), same ? recorded->second.state : LimitState::ok};
}

void LimitChecks::resolve(const Store& s, const PnlDay& day) {
  for (const std::vector<Held>* held : {&held_, &loose_}) {
    for (const Held& h : *held) {
      if (!h.removed) states_[h.id] = {h.what, h.state};
    }
  }
  // A limit no longer there is forgotten.
  std::unordered_map<std::int64_t, RecordedLimit> kept;
  for (const RiskLimit& l : s.limits) {
    if (const auto it = states_.find(l.id); it != states_.end()) kept.emplace(l.id, it->second);
  }
  states_ = std::move(kept);
  held_.clear();
  totals_.clear();
  loose_.clear();
  held_at_.clear();
  for (const RiskLimit& l : s.limits) {
    if (!limit_error(s, l).empty()) continue;  // FAILED: never checked
    held_.push_back(hold(s, day, l));
  }

  // By book (outright books, then repo books, then the totals), in id order within each.
  const auto group = [&](const Held& h) {
    const std::optional<NodeRef>& book = h.limit.book;
    if (!book) return std::pair<std::size_t, std::size_t>(2, 0);
    return std::pair<std::size_t, std::size_t>(kind_of(*book) == Kind::outright_book ? 0 : 1, book->index);
  };
  std::stable_sort(held_.begin(), held_.end(), [&](const Held& a, const Held& b) { return group(a) < group(b); });
  outright_offsets_.assign(s.outright_books.size() + 1, 0);
  repo_offsets_.assign(s.repo_books.size() + 1, 0);
  for (const Held& h : held_) {
    if (h.limit.book) ++(kind_of(*h.limit.book) == Kind::outright_book ? outright_offsets_ : repo_offsets_)[h.limit.book->index + 1];
  }
  for (std::size_t b = 1; b < outright_offsets_.size(); ++b) outright_offsets_[b] += outright_offsets_[b - 1];
  repo_offsets_[0] = outright_offsets_.back();
  for (std::size_t b = 1; b < repo_offsets_.size(); ++b) repo_offsets_[b] += repo_offsets_[b - 1];
  for (std::uint32_t h = 0; h < repo_offsets_.back(); ++h) held_at_.emplace(held_[h].id, h);
  for (auto h = static_cast<std::uint32_t>(repo_offsets_.back()); h < held_.size(); ++h) {
    const ResolvedLimit& r = held_[h].limit;
    Total& t = totals_.emplace_back(Total{h, {}, {}, {}, 0, 0});
    for_each_total_book(s, r, [&](NodeRef book) {
      t.baselines.push_back(r.measure == LimitMeasure::day_pnl ? day.baseline(s.id(book)) : 0);
      t.parts.push_back(0);
      t.ok.push_back(1);
      update(s, t, book, t.parts.size() - 1);
    });
    t.sum = std::accumulate(t.parts.begin(), t.parts.end(), 0.0);  // afresh, in order, as read_limit sums
  }
  resolved_ = true;
  version_ = s.limits_version;
}

std::string_view alert_cause_name(AlertCause cause) { return cause == AlertCause::event ? "event" : "external"; }

void LimitChecks::check_invariants() const {
  const auto fail = [](const std::string& what) { throw std::logic_error("LimitChecks::check_invariants: " + what); };
  if (loose_.size() > kLoose) fail("more than kLoose limits held apart");
  if (!resolved_) return;  // nothing is held yet
  for (const std::vector<std::uint32_t>* offsets : {&outright_offsets_, &repo_offsets_}) {
    if (!std::is_sorted(offsets->begin(), offsets->end()) || offsets->back() > held_.size()) fail("the books' offsets are not ascending within the held limits");
    const Kind kind = offsets == &outright_offsets_ ? Kind::outright_book : Kind::repo_book;
    for (std::size_t b = 0; b + 1 < offsets->size(); ++b) {
      for (std::uint32_t h = (*offsets)[b]; h < (*offsets)[b + 1]; ++h) {
        const std::optional<NodeRef>& book = held_[h].limit.book;
        if (!book || *book != ref(kind, static_cast<NodeIndex>(b))) fail("limit " + std::to_string(held_[h].id) + " is held under another book");
      }
    }
  }
  for (const auto& [id, at] : held_at_) {
    if (at >= held_.size() || held_[at].id != id) fail("held_at_ does not find limit " + std::to_string(id));
  }
  for (const Total& t : totals_) {
    if (t.held >= held_.size() || t.parts.size() != t.ok.size()) fail("a total is held out of range");
    const auto not_ok = static_cast<std::size_t>(std::count(t.ok.begin(), t.ok.end(), std::uint8_t{0}));
    if (not_ok != t.not_ok) fail("limit " + std::to_string(held_[t.held].id) + ": its count of books not OK is off");
  }
}

void LimitChecks::update(const Store& s, Total& t, NodeRef book, std::size_t at) {
  const ResolvedLimit& r = held_[t.held].limit;
  const BookPart part = book_part(s, book, r, t.baselines[at]);
  const double value = total_sums_part(r, part) ? part.value : 0;
  t.sum += value - t.parts[at];
  t.parts[at] = value;
  t.not_ok += static_cast<std::size_t>(!part.ok) - static_cast<std::size_t>(!t.ok[at]);
  t.ok[at] = part.ok;
  if (!std::isfinite(t.sum)) t.sum = std::accumulate(t.parts.begin(), t.parts.end(), 0.0);  // past an infinite part
}

void LimitChecks::record(const Store& s, Held& held, const LimitReading& r, std::vector<LimitAlert>& alerts) {
  if (r.state == held.state) return;
  const std::optional<std::int64_t> book = held.limit.book ? std::optional(s.id(*held.limit.book)) : std::nullopt;
  alerts.push_back({held.id, book, held.limit.measure, held.state, r.state, r.value, r.bound});
  held.state = r.state;
}

void LimitChecks::check_all(const Store& s, const PnlDay& day, std::vector<LimitAlert>& alerts) {
  resolve(s, day);
  for (auto h = std::uint32_t{0}; h < repo_offsets_.back(); ++h) record(s, held_[h], read_limit(s, day, held_[h].limit), alerts);
  for (const Total& t : totals_) {
    const ResolvedLimit& r = held_[t.held].limit;
    record(s, held_[t.held], reading_of(t.sum, t.not_ok == 0, r.lower, r.upper), alerts);
  }
}

bool LimitChecks::apply_limit_changes(const Store& s, const PnlDay& day, std::span<const std::int64_t> ids,
                                      std::vector<LimitAlert>& alerts) {
  for (const std::int64_t id : ids) {
    for (const Total& t : totals_) {
      if (held_[t.held].id == id) return false;
    }
    if (const auto at = held_at_.find(id); at != held_at_.end()) {
      held_[at->second].removed = true;
      held_at_.erase(at);
    }
    std::erase_if(loose_, [&](const Held& h) { return h.id == id; });
    // Store::limits is in id order.
    const auto now = std::lower_bound(s.limits.begin(), s.limits.end(), id,
                                      [](const RiskLimit& l, std::int64_t key) { return l.id < key; });
    if (now == s.limits.end() || now->id != id || !limit_error(s, *now).empty()) continue;  // removed, or FAILED
    if (now->of_total() || loose_.size() == kLoose) return false;
    Held held = hold(s, day, *now);
    record(s, held, read_limit(s, day, held.limit), alerts);
    loose_.push_back(std::move(held));
  }
  return true;
}

void LimitChecks::check_books(const Store& s, const PnlDay& day, std::span<const NodeIndex> changed,
                              const std::vector<std::uint32_t>& offsets, std::vector<LimitAlert>& alerts) {
  for (NodeIndex b : changed) {
    if (b + 1 >= offsets.size()) continue;  // a book the limits were resolved without: none of them
    const char* from = reinterpret_cast<const char*>(held_.data() + offsets[b]);
    const char* to = reinterpret_cast<const char*>(held_.data() + offsets[b + 1]);
    for (const char* line = from; line < to; line += 64) __builtin_prefetch(line);  // their misses overlap
    for (std::uint32_t h = offsets[b]; h < offsets[b + 1]; ++h) {
      if (held_[h].removed) continue;
      const ResolvedLimit& l = held_[h].limit;
      const BookPart part = book_part(s, *l.book, l, l.baseline);
      if (state_of(part.value, part.ok, l.lower, l.upper) != held_[h].state) record(s, held_[h], read_limit(s, day, l), alerts);
    }
  }
}

void LimitChecks::check(const Store& s, const PnlDay& day, std::span<const NodeIndex> outright,
                        std::span<const NodeIndex> repo, bool whole, std::span<const std::int64_t> limits,
                        std::vector<LimitAlert>& alerts) {
  if (whole || !resolved_ || version_ != s.limits_version) return check_all(s, day, alerts);
  if (!apply_limit_changes(s, day, limits, alerts)) return check_all(s, day, alerts);
  check_books(s, day, outright, outright_offsets_, alerts);
  check_books(s, day, repo, repo_offsets_, alerts);
  for (Held& held : loose_) {  // few: each read again
    const ResolvedLimit& l = held.limit;
    const BookPart part = book_part(s, *l.book, l, l.baseline);
    if (state_of(part.value, part.ok, l.lower, l.upper) != held.state) record(s, held, read_limit(s, day, l), alerts);
  }
  for (Total& t : totals_) {
    const ResolvedLimit& r = held_[t.held].limit;
    const bool reads_outright = total_reads(r, Kind::outright_book), reads_repo = total_reads(r, Kind::repo_book);
    if (!(reads_outright && !outright.empty()) && !(reads_repo && !repo.empty())) continue;
    const std::size_t repo_at = reads_outright ? s.outright_books.size() : 0;
    if (reads_outright) {
      for (NodeIndex b : outright) {
        if (b < repo_at) update(s, t, ref(Kind::outright_book, b), b);
      }
    }
    if (reads_repo) {
      for (NodeIndex b : repo) {
        if (repo_at + b < t.parts.size()) update(s, t, ref(Kind::repo_book, b), repo_at + b);
      }
    }
    if (state_of(t.sum, t.not_ok == 0, r.lower, r.upper) != held_[t.held].state) {
      record(s, held_[t.held], reading_of(t.sum, t.not_ok == 0, r.lower, r.upper), alerts);
    }
  }
}

}  // namespace bond_risk
