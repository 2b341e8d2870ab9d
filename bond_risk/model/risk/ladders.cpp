#include "bond_risk/model/risk/ladders.h"

#include <algorithm>

#include "bond_risk/model/store/published_values.h"
#include "bond_risk/model/pricing/status.h"

namespace bond_risk {

namespace {

std::span<double> curve_part(const Store& s, std::span<double> ladder, NodeIndex curve, std::size_t from = 0) {
  return ladder.subspan(from + s.key_rate_axis.offset[curve], s.curves[curve].points.size());
}

// Writes curve c's points to `out` (at least as long), with the values
// first[k] and second[k] (second empty: 0).
void write_points(const Store& s, NodeIndex c, std::span<const double> first, std::span<const double> second,
                  std::span<KeyRate> out) {
  const std::int64_t curve_id = s.ids[static_cast<std::size_t>(Kind::ir_curve)][c];
  const IrCurve& curve = s.curves[c];
  for (std::size_t k = 0; k < curve.points.size(); ++k) {
    out[k] = {curve_id, curve.point_idx[k], curve.points[k].days_forward, {first[k], second.empty() ? 0.0 : second[k]}};
  }
}

// The same, appended to `out`.
void append_points(const Store& s, NodeIndex c, std::span<const double> first, std::span<const double> second,
                   std::vector<KeyRate>& out) {
  const std::size_t at = out.size();
  out.resize(at + s.curves[c].points.size());
  write_points(s, c, first, second, std::span(out).subspan(at));
}

// to[k] += scale * from[k] for k < n.
inline void add_row(double* to, const double* from, std::size_t n, double scale) {
  for (std::size_t k = 0; k < n; ++k) to[k] += scale * from[k];
}

void add_scaled(std::span<double> to, std::span<const double> from, double scale) {
  add_row(to.data(), from.data(), to.size(), scale);
}

// Calls add(trade, curve, ladder) for each OK member of `book`, with its
// bond's ladder and the curve that lies on, fetching those of members a few
// places ahead (random rows of Store::bond_kr01 and ladder_curves). The
// store's arrays are read through pointers taken once: add's stores would
// otherwise make the compiler reload them for every member.
template <class Trade, class Add>
void for_ok_members(const Store& s, std::span<const NodeIndex> members, Kind kind, std::span<const Trade> trades, Add add) {
  const NodeState* states = s.states[static_cast<std::size_t>(kind)].data();
  const Trade* trade = trades.data();
  const NodeIndex* curves = s.ladder_curves.data();
  const double* ladders = s.bond_kr01.data();
  const std::size_t stride = s.key_rate_axis.stride;
  constexpr std::size_t kAhead = 8;
  const std::size_t n = members.size();
  for (std::size_t k = 0; k < n; ++k) {
    if (k + kAhead < n) {
      const NodeIndex b = trade[members[k + kAhead]].bond;
      __builtin_prefetch(curves + b);
      __builtin_prefetch(ladders + stride * b);
      __builtin_prefetch(ladders + stride * b + 8);
    }
    const NodeIndex m = members[k];
    if (states[m].status != Status::ok) continue;
    const Trade& t = trade[m];
    add(t, curves[t.bond], ladders + stride * t.bond);
  }
}

// A book's running sum of rows on one curve's part of its ladder, kept in
// registers while consecutive members stay on that curve (they do in a
// book of one curve) and added to the ladder when the curve changes.
class RowSum {
 public:
  explicit RowSum(const Store& s, std::span<double> ladder, std::size_t from = 0) : s_(s), ladder_(ladder), from_(from) {}
  ~RowSum() { flush(); }
  RowSum(const RowSum&) = delete;
  RowSum& operator=(const RowSum&) = delete;

  void add(NodeIndex curve, const double* row, double scale) {
    if (curve != curve_) {
      flush();
      curve_ = curve;
      n_ = s_.curves[curve].points.size();
    }
    if (n_ == kCommon) {
      sum_ += scale * Eigen::Map<const Row>(row);  // lane by lane: the bits of a scalar loop
    } else {
      add_row(ladder_.data() + from_ + s_.key_rate_axis.offset[curve], row, n_, scale);
    }
  }

 private:
  static constexpr std::size_t kCommon = 12;  // the generated curves' points
  void flush() {
    if (n_ != kCommon) return;
    Eigen::Map<Row>(ladder_.data() + from_ + s_.key_rate_axis.offset[curve_]) += sum_;
    sum_.setZero();
  }

  const Store& s_;
  std::span<double> ladder_;
  std::size_t from_;
  NodeIndex curve_ = ~NodeIndex{0};
  std::size_t n_ = 0;
  using Row = Eigen::Array<double, kCommon, 1, Eigen::DontAlign>;
  Row sum_ = Row::Zero();
};

// A book's running sum of discounted-sum ladders on one curve (repos'
// mtm_pnl), gathered per segment while consecutive members stay on that
// curve: per segment, the cash whose ladder starts with the segment's base
// row and the partial shares of its days; laid onto the ladder when the
// curve changes. Curves of more points than kMost add each ladder at once.
class DiscountSums {
 public:
  DiscountSums(const Store& s, std::span<double> ladder, std::size_t from) : s_(s), ladder_(ladder), from_(from) {}
  ~DiscountSums() { flush(); }
  DiscountSums(const DiscountSums&) = delete;
  DiscountSums& operator=(const DiscountSums&) = delete;

  void add(NodeIndex curve, int days, double cash) {
    if (curve != curve_) {
      flush();
      curve_ = curve;
      n_ = s_.curves[curve].points.size();
      partial_ = s_.curves[curve].key_rates.partial.data();
    }
    if (n_ > kMost) {
      add_discount_sum_key_rates(s_.curves[curve].key_rates, n_, days, cash, curve_part(s_, ladder_, curve, from_));
      return;
    }
    const DiscountSumPart& p = partial_[days];
    cash_[p.segment] += cash;
    lo_[p.segment] += cash * p.lo;
    hi_[p.segment] += cash * p.hi;
  }

 private:
  static constexpr std::size_t kMost = 16;
  void flush() {
    if (n_ == 0 || n_ > kMost) return;
    const double* base = s_.curves[curve_].key_rates.segment_base.data();
    const std::span<double> to = curve_part(s_, ladder_, curve_, from_);
    for (std::size_t k = 0; k + 1 < n_; ++k) {
      if (cash_[k] != 0) add_row(to.data(), base + k * n_, n_, cash_[k]);
      to[k] += lo_[k];
      to[k + 1] += hi_[k];
    }
    cash_.fill(0.0);
    lo_.fill(0.0);
    hi_.fill(0.0);
  }

  const Store& s_;
  std::span<double> ladder_;
  std::size_t from_;
  NodeIndex curve_ = ~NodeIndex{0};
  std::size_t n_ = 0;
  const DiscountSumPart* partial_ = nullptr;  // curve_'s
  std::array<double, kMost> cash_{}, lo_{}, hi_{};
};

std::uint64_t key_of(NodeRef node) { return std::uint64_t{node.type} << 32 | node.index; }

}  // namespace

LadderPart ladder_part(const Store& s, const OutrightTrade& t) {
  return {.bond = t.bond, .bond_version = s.bond_ladder_version[t.bond],
          .weight = static_cast<double>(t.quantity) * t.dir};
}

LadderPart ladder_part(const Store& s, const RepoTrade& t) {
  return {.bond = t.bond, .curve = t.curve, .calendar = t.calendar, .bond_version = s.bond_ladder_version[t.bond],
          .curve_version = s.curves[t.curve].key_rate_version, .calendar_version = s.calendars[t.calendar].version,
          .days = t.end - s.calendars[t.calendar].today,
          .weight = -static_cast<double>(t.notional), .cash = -t.start_cash / kYearBasis};
}

void hold_ladder_part(Store& s, NodeRef trade) {
  if (!s.with_key_rates || s.state(trade).status != Status::ok) return;
  s.held_parts.try_emplace(key_of(trade), books_ladder_part(s, trade));
}

LadderPart books_ladder_part(const Store& s, NodeRef trade) {
  if (const auto held = s.held_parts.find(key_of(trade)); held != s.held_parts.end()) return held->second;
  return kind_of(trade) == Kind::outright_trade ? ladder_part(s, s.outright_trades[trade.index])
                                                : ladder_part(s, s.repo_trades[trade.index]);
}

bool still_current(const Store& s, const LadderPart& p) {
  return s.bond_ladder_version[p.bond] == p.bond_version &&
         (p.cash == 0 || (s.curves[p.curve].key_rate_version == p.curve_version &&
                          s.calendars[p.calendar].version == p.calendar_version));
}

void add_key_rates(const Store& s, const LadderPart& p, std::span<double> ladder, double sign) {
  add_scaled(curve_part(s, ladder, s.bonds[p.bond].curve), s.bond_ladder(p.bond), sign * p.weight);
  if (p.cash == 0) return;
  const IrCurve& curve = s.curves[p.curve];
  add_discount_sum_key_rates(curve.key_rates, curve.points.size(), p.days, sign * p.cash,
                             curve_part(s, ladder, p.curve, s.key_rate_axis.size));
}

void sum_key_rates(const Store& s, const OutrightBook& book, std::span<double> ladder) {
  std::ranges::fill(ladder, 0.0);
  RowSum sum(s, ladder);
  for_ok_members<OutrightTrade>(s, book.members, Kind::outright_trade, s.outright_trades,
                 [&](const OutrightTrade& t, NodeIndex curve, const double* row) {
                   sum.add(curve, row, static_cast<double>(t.quantity) * t.dir);
                 });
}

void sum_key_rates(const Store& s, const RepoBook& book, std::span<double> ladder) {
  std::ranges::fill(ladder, 0.0);
  RowSum margin(s, ladder);
  DiscountSums mtm_pnl(s, ladder, s.key_rate_axis.size);
  for_ok_members<RepoTrade>(s, book.members, Kind::repo_trade, s.repo_trades,
                            [&](const RepoTrade& t, NodeIndex curve, const double* row) {
                              margin.add(curve, row, -static_cast<double>(t.notional));
                              mtm_pnl.add(t.curve, t.end - s.calendars[t.calendar].today, -t.start_cash / kYearBasis);
                            });
}

void key_rate_ladder(const Store& s, NodeRef node, std::vector<KeyRate>& out) {
  const Kind kind = kind_of(node);
  if (!s.with_key_rates || !publishes_values(kind, s.state(node).status)) return;
  const NodeIndex i = node.index;
  if (kind == Kind::bond) {  // its own curve's points, as it holds them
    append_points(s, s.bonds[i].curve, s.bond_ladder(i), {}, out);
    return;
  }
  const std::size_t width = s.key_rate_axis.size;
  std::vector<double> dense(2 * width, 0.0);  // over the axis: the first value's ladder, then the second's
  std::vector<bool> used(s.curves.size(), false);
  switch (kind) {
    case Kind::outright_trade:
      if (s.state(node).status == Status::ok) add_key_rates(s, ladder_part(s, s.outright_trades[i]), dense);
      used[s.bonds[s.outright_trades[i].bond].curve] = true;
      break;
    case Kind::repo_trade:
      if (s.state(node).status == Status::ok) add_key_rates(s, ladder_part(s, s.repo_trades[i]), dense);
      used[s.bonds[s.repo_trades[i].bond].curve] = used[s.repo_trades[i].curve] = true;
      break;
    case Kind::outright_book:
      std::copy(s.outright_books[i].kr01.begin(), s.outright_books[i].kr01.end(), dense.begin());
      break;
    case Kind::repo_book:
      std::copy(s.repo_books[i].kr01.begin(), s.repo_books[i].kr01.end(), dense.begin());
      break;
    default: return;
  }
  if (is_book(kind)) {  // the curves its members are exposed to
    for (NodeIndex c = 0; c < s.curves.size(); ++c) {
      const auto exposed = [&](std::size_t from) {
        const auto part = curve_part(s, dense, c, from);
        return std::ranges::any_of(part, [](double v) { return v != 0; });
      };
      used[c] = exposed(0) || exposed(width);
    }
  }
  for (NodeIndex c = 0; c < s.curves.size(); ++c) {
    if (used[c]) append_points(s, c, curve_part(s, dense, c), curve_part(s, dense, c, width), out);
  }
}

std::size_t bond_ladder_size(const Store& s, NodeIndex bond) {
  const bool published = s.with_key_rates && publishes_values(Kind::bond, s.state(ref(Kind::bond, bond)).status);
  return published ? s.curves[s.bonds[bond].curve].points.size() : 0;
}

void write_bond_ladder(const Store& s, NodeIndex bond, std::span<KeyRate> out) {
  write_points(s, s.bonds[bond].curve, s.bond_ladder(bond), {}, out);
}

std::vector<KeyRate> key_rate_ladder(const Store& s, NodeRef node) {
  std::vector<KeyRate> out;
  key_rate_ladder(s, node, out);
  return out;
}

std::span<const std::string_view> key_rate_names(Kind kind) {
  static constexpr std::string_view one[] = {"kr01"};
  static constexpr std::string_view repo[] = {"margin_kr01", "mtm_pnl_kr01"};
  switch (kind) {
    case Kind::bond:
    case Kind::outright_trade:
    case Kind::outright_book: return one;
    case Kind::repo_trade:
    case Kind::repo_book: return repo;
    default: return {};
  }
}

}  // namespace bond_risk
