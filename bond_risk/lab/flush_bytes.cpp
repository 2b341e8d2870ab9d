#include "bond_risk/lab/flush_bytes.h"

namespace bond_risk {

namespace {

template <class T, class A>
std::size_t bytes_of(const std::vector<T, A>& v) {
  return v.size() * sizeof(T);
}

}  // namespace

FlushBytes full_flush_bytes(const Store& s) {
  FlushBytes b;
  for (std::size_t k = 0; k < kKindCount; ++k) {
    // Its state; not its entry in the dirty list: a full flush's chunks are counted, not read (for_each_node).
    const std::size_t n = s.size(static_cast<Kind>(k));
    b.read += n * sizeof(NodeState);
    b.written += n * sizeof(NodeState);
  }
  const auto grid_days = [](const Calendar& c) {
    return bytes_of(c.grid_days.first_period) + bytes_of(c.grid_days.begin) + bytes_of(c.grid_days.days);
  };
  for (const Calendar& c : s.calendars) {  // coupon grids laid out for today, with the first fractions quote analytics read
    b.written += grid_days(c) + bytes_of(c.grid_days.first_fraction);
  }
  for (const IrCurve& c : s.curves) {
    const auto size = static_cast<std::size_t>(c.arrays.r.size() + c.arrays.df.size() + c.arrays.df_up.size() +
                                               c.arrays.df_dn.size() + c.arrays.cum_df.size());
    b.written += size * sizeof(double);
    b.read += size * sizeof(double) - static_cast<std::size_t>(c.arrays.r.size()) * sizeof(double);  // read by bonds, repos
    for (const CurveGrid& g : c.grids) {  // a calendar's grids read, their sums written, read by bonds
      b.read += grid_days(s.calendars[g.calendar]) + bytes_of(g.sums);
      b.written += bytes_of(g.sums);
    }
  }
  b.read += bytes_of(s.bonds);
  b.written += bytes_of(s.bond_values) + bytes_of(s.bond_quoted);
  b.read += bytes_of(s.bond_values) + bytes_of(s.bond_quoted);  // prices and quote flags for the trades
  b.read += bytes_of(s.outright_trades) + bytes_of(s.repo_trades);
  b.written += bytes_of(s.outright_values) + bytes_of(s.outright_quoted) + bytes_of(s.repo_values);
  // With quote analytics, the cs01 a bond writes and its trades read, and the trades' own (Store::bond_cs01).
  const std::size_t cs01 = s.with_quote_analytics ? sizeof(double) : 0;
  b.written += (s.bond_cs01.size() + s.outright_cs01.size()) * cs01;
  b.read += s.bond_cs01.size() * cs01;
  for (const OutrightBook& book : s.outright_books) {
    const std::size_t member = sizeof(OutrightValue) + sizeof(Quoted) + cs01 + sizeof(NodeState);
    b.read += bytes_of(book.members) + book.members.size() * member;
    b.written += sizeof(OutrightBook);
  }
  for (const RepoBook& book : s.repo_books) {
    b.read += bytes_of(book.members) + book.members.size() * (sizeof(RepoValue) + sizeof(NodeState));
    b.written += sizeof(RepoBook);
  }
  return b;
}

}  // namespace bond_risk
