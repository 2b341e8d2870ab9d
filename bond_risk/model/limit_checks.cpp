#include "bond_risk/model/limit_checks.h"

namespace bond_risk {

namespace {

// Positions by book in CSR form: offsets (books + 1 of them) and the positions.
void index_by_book(std::size_t books, const std::vector<std::pair<NodeIndex, std::uint32_t>>& pairs,
                   std::vector<std::uint32_t>& offsets, std::vector<std::uint32_t>& positions) {
  offsets.assign(books + 1, 0);
  for (const auto& [book, h] : pairs) ++offsets[book + 1];
  for (std::size_t b = 0; b < books; ++b) offsets[b + 1] += offsets[b];
  positions.assign(pairs.size(), 0);
  std::vector<std::uint32_t> next(offsets.begin(), offsets.end() - 1);
  for (const auto& [book, h] : pairs) positions[next[book]++] = h;
}

}  // namespace

LimitChecks::LimitChecks(std::unordered_map<std::int64_t, LimitState> recorded) : states_(std::move(recorded)) {}

void LimitChecks::resolve(const Store& s) {
  for (const Held& h : held_) states_[h.id] = h.state;
  held_.clear();
  outright_totals_.clear(), repo_totals_.clear(), all_totals_.clear();
  std::vector<std::pair<NodeIndex, std::uint32_t>> outright, repo;
  for (const RiskLimit& l : s.limits) {
    if (!limit_error(s, l).empty()) continue;  // FAILED: never checked
    const auto h = static_cast<std::uint32_t>(held_.size());
    const auto state = states_.find(l.id);
    held_.push_back({l.id, l.book_id, resolve_limit(s, l), state == states_.end() ? LimitState::ok : state->second});
    const ResolvedLimit& r = held_.back().limit;
    if (r.book) {
      (kind_of(*r.book) == Kind::outright_book ? outright : repo).emplace_back(r.book->index, h);
    } else if (r.measure == LimitMeasure::day_pnl) {
      all_totals_.push_back(h);
    } else {
      (r.measure == LimitMeasure::margin ? repo_totals_ : outright_totals_).push_back(h);
    }
  }
  index_by_book(s.outright_books.size(), outright, outright_offsets_, outright_limits_);
  index_by_book(s.repo_books.size(), repo, repo_offsets_, repo_limits_);
  resolved_ = true;
  version_ = s.limits_version;
}

void LimitChecks::read(const Store& s, const PnlDay& day, std::uint32_t h, std::vector<LimitAlert>& alerts) {
  Held& held = held_[h];
  const LimitReading r = read_limit(s, day, held.limit);
  if (r.state == held.state) return;
  alerts.push_back({held.id, held.book_id, held.limit.measure, held.state, r.state, r.value, r.bound});
  held.state = r.state;
}

void LimitChecks::check_all(const Store& s, const PnlDay& day, std::vector<LimitAlert>& alerts) {
  resolve(s);
  for (std::uint32_t h = 0; h < held_.size(); ++h) read(s, day, h, alerts);
}

void LimitChecks::check(const Store& s, const PnlDay& day, std::span<const NodeIndex> outright,
                        std::span<const NodeIndex> repo, bool whole, std::vector<LimitAlert>& alerts) {
  if (whole || !resolved_ || version_ != s.limits_version) return check_all(s, day, alerts);
  for (NodeIndex b : outright) {
    if (b + 1 >= outright_offsets_.size()) continue;  // a book the limits were resolved without: none of them
    for (std::uint32_t k = outright_offsets_[b]; k < outright_offsets_[b + 1]; ++k) read(s, day, outright_limits_[k], alerts);
  }
  for (NodeIndex b : repo) {
    if (b + 1 >= repo_offsets_.size()) continue;
    for (std::uint32_t k = repo_offsets_[b]; k < repo_offsets_[b + 1]; ++k) read(s, day, repo_limits_[k], alerts);
  }
  if (!outright.empty()) {
    for (std::uint32_t h : outright_totals_) read(s, day, h, alerts);
  }
  if (!repo.empty()) {
    for (std::uint32_t h : repo_totals_) read(s, day, h, alerts);
  }
  if (!outright.empty() || !repo.empty()) {
    for (std::uint32_t h : all_totals_) read(s, day, h, alerts);
  }
}

}  // namespace bond_risk
