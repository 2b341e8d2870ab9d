#include "bond_risk/model/nodes/calculations.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "bond_risk/model/conventions/convention_figures.h"
#include "bond_risk/model/nodes/curve_parts.h"
#include "bond_risk/model/store/end_date.h"
#include "bond_risk/model/risk/ladders.h"

namespace bond_risk {

namespace {

using Indices = std::span<const NodeIndex>;

// A trade's published value, status and ladder part before the flush in
// progress, as the engine saves it for the trade's books; an outright
// trade's cs01 and quoted flag too (Store::outright_cs01).
template <class Value>
struct Previous {
  Value value;
  Status status;
  LadderPart part;
  double cs01 = 0;
  bool quoted = false;
};

// Calls f(i) for each node of a chunk, in order. A chunk is sorted without
// repeats, so when it spans as many indices as it has nodes (every chunk of
// a full flush) they are consecutive and are counted, not read.
template <class F>
void for_each_node(Indices nodes, F f) {
  if (!nodes.empty() && nodes.back() - nodes.front() == nodes.size() - 1) {
    for (NodeIndex i = nodes.front(), end = nodes.back() + 1; i != end; ++i) f(i);
  } else {
    for (NodeIndex i : nodes) f(i);
  }
}

struct Calculator {
  Store& s;
  const engine::Graph& g;
  // What the graph runs this calculator for (engine::Pass): a curve's first
  // pass is what values are read off (model/nodes/curve_parts.h), a bond's
  // its value; their rests the key rates, the moments, the bond's ladder and
  // quote analytics; an outright trade's rest is its cs01, a book's its
  // cs01 and ladder.
  engine::Pass pass = engine::Pass::whole;

  bool ladders() const { return s.with_key_rates && pass != engine::Pass::first; }
  // Whether an outright book sums its cs01 with its values (a whole pass:
  // one read of the members), not in its rest.
  bool cs01_with_values() const { return pass == engine::Pass::whole; }
  // Whether bond i solves its quote analytics in this pass: a first pass
  // leaves them to the rest, but for a bond they failed last time (a quote
  // no spread reprices), which they are likely to fail again, failing its
  // trades and books with it, as a whole pass does.
  bool analytics(NodeIndex i) const {
    return s.with_quote_analytics &&
           (pass != engine::Pass::first || s.bond_figures[i].failure != AnalyticsFailure::none);
  }

  // What a trade kernel reads of the tiers below, as pointers taken once
  // per chunk: its stores to statuses and values would otherwise make the
  // compiler reload each vector's pointer from the store for every trade
  // (a tenth of the repo kernel).
  struct Below {
    const NodeState *calendar_states, *curve_states, *bond_states;
    const Calendar* calendars;
    const IrCurve* curves;
    const BondValue* bond_values;
    const double* bond_cs01;
    const Quoted* bond_quoted;
    const BondFigures* bond_figures;
  };
  Below tiers_below() const {
    auto states = [&](Kind kind) { return s.states[static_cast<std::size_t>(kind)].data(); };
    return {states(Kind::calendar), states(Kind::ir_curve), states(Kind::bond), s.calendars.data(), s.curves.data(),
            s.bond_values.data(), s.bond_cs01.data(), s.bond_quoted.data(), s.bond_figures.data()};
  }

  // A value too large for a double (absurd but valid inputs) fails its
  // node, which publishes nothing: no book ever sums an infinity or a NaN.
  template <class Value>
  static void keep_finite(NodeState& st, Value& value) {
    if (all_finite(value)) return;
    st.status = Status::failed;
    value = {};
  }

  Status status_of(Kind kind, NodeIndex i) const { return s.states[static_cast<std::size_t>(kind)][i].status; }
  NodeState& own(Kind kind, NodeIndex i) const { return s.states[static_cast<std::size_t>(kind)][i]; }

  void calendars(Indices nodes) const {
    for_each_node(nodes, [&](NodeIndex i) {
      Calendar& c = s.calendars[i];
      ++c.version;
      own(Kind::calendar, i).status = from_inputs(own(Kind::calendar, i), kNoInputs);
      if (status_of(Kind::calendar, i) == Status::ok) lay_out_coupon_grids(c.today, c.grid_horizon, c.grid_days);
    });
  }

  // Curves whole, their steps in turn on this thread (the bits of the parts).
  void curves(Indices nodes) const {
    for_each_node(nodes, [&](NodeIndex i) {
      for (std::size_t step = 0; step < kCurveSteps; ++step) {
        for (std::size_t part = 0, parts = curve_parts(s, i, step, pass); part < parts; ++part) {
          curve_part(s, i, step, part, pass);
        }
      }
    });
  }

  // Bonds whose quote analytics wait to be computed together.
  struct FiguresQueue {
    std::array<BondInputs, kFiguresBatch> inputs;
    std::array<NodeIndex, kFiguresBatch> bonds;
    std::size_t count = 0;
  };

  void bonds(Indices nodes) const {
    FiguresQueue queue;
    ConventionQueue conventions;
    // Inlined into both of for_each_node's loops: a call per bond, its
    // coupon sums returned through the stack, cost a tenth of the kernel.
    for_each_node(nodes, [&](NodeIndex i) __attribute__((always_inline)) {
      const Bond& b = s.bonds[i];
      NodeState& st = own(Kind::bond, i);
      BondValue& value = s.bond_values[i];
      value = {};
      if (s.with_quote_analytics) s.bond_cs01[i] = kNull;  // else never written (see Store)
      const bool with_analytics = analytics(i);
      if (with_analytics) s.bond_figures[i] = {};  // off: never written, null since the load
      st.status = from_inputs(
          st, [&] { return std::array{status_of(Kind::calendar, b.calendar), status_of(Kind::ir_curve, b.curve)}; });
      if (b.quote_error != 0) st.status = Status::failed;  // its own bad data outranks STALE and EXPIRED
      if (st.status != Status::ok) {  // publishes no ladder either
        if (ladders()) ++s.bond_ladder_version[i];
        return;
      }
      s.bond_quoted[i] = is_null(b.quote) ? Quoted::no : Quoted::yes;  // read by its trades only while it is OK
      if (b.convention != kNoConvention) return convention_bond(b, i, st, value, conventions, with_analytics);
      const Date today = s.calendars[b.calendar].today;
      st.status = end_status(end_date(b, s.curves[b.curve].horizon()), today);
      if (st.status == Status::ok) {
        const IrCurve& curve = s.curves[b.curve];
        const CouponGridDays& grid_days = s.calendars[b.calendar].grid_days;
        const CurveGrid& grid = grid_for(curve.grids, b.calendar);
        const CouponSums coupons = coupon_sums(grid_days, grid.sums, b.place, b.coupons);
        value = value_bond(coupons, b.maturity, b.coupon, b.coupons_per_year, today, curve.arrays);
        if (ladders()) {
          ladder_of(i, [&](std::span<double> ladder) {
            bond_key_rates(grid_days, grid.key_rates, curve.points.size(), b.place, b.coupons,
                           100.0 * b.coupon / b.coupons_per_year, b.maturity - today, curve.key_rates, ladder);
          });
        }
        keep_finite(st, value);
        if (st.status == Status::ok && with_analytics) {
          BondInputs& in = queue.inputs[queue.count];
          in = {remaining_flows(grid_days, today, b.place, b.coupons, b.maturity, b.coupons_per_year, b.coupon),
                value.price, b.quote, &curve.arrays, grid.moments, known_quote_yield(i, today)};
          // Its moment row, in a few look-ups' time: the rows of every grid outgrow the caches, and bonds
          // lie on their grids at random.
          const MomentSums* row = &in.rows[in.flows.range.row + in.flows.range.last + 1];
          __builtin_prefetch(row);
          __builtin_prefetch(reinterpret_cast<const char*>(row) + 64);
          queue.bonds[queue.count++] = i;
          if (queue.count == kFiguresBatch) figures_of(queue);
        }
      } else if (ladders()) {
        std::ranges::fill(s.bond_ladder(i), 0.0);
        ++s.bond_ladder_version[i];
      }
    });
    figures_of(queue);
    conventions_of(conventions);
  }

  // A bond's key-rate ladder, written by `fill`, whose version moves only
  // when the ladder does: a quote moves no model value, so its trades'
  // ladder parts stay current and their books update their ladders from
  // the changes instead of summing every member afresh (model/risk/ladders.h).
  // A ladder wider than kCompared is taken as moved. Inlined: the compiler
  // made it a call per bond, and the all-on flush took 1.09x as long
  // (bench/pair_flush.sh, 9 rounds of 15 one-thread flushes).
  template <class Fill>
  __attribute__((always_inline)) void ladder_of(NodeIndex i, Fill fill) const {
    constexpr std::size_t kCompared = 64;
    const std::span<double> ladder = s.bond_ladder(i);
    std::array<double, kCompared> before;
    const bool compared = ladder.size() <= kCompared;
    if (compared) std::ranges::copy(ladder, before.begin());
    fill(ladder);
    if (!compared || !std::ranges::equal(ladder, std::span(before).first(ladder.size()))) ++s.bond_ladder_version[i];
  }

  // Convention bonds whose yields wait to be solved together (finish_convention_figures).
  struct ConventionQueue {
    std::array<ConventionStart, kConventionBatch> start;
    std::array<NodeIndex, kConventionBatch> bonds;
    std::array<Date, kConventionBatch> settlement;
    std::size_t count = 0;
  };

  // A convention bond's flows after today: from its kept coupon dates, or
  // its own, built here, on a day before its slot's (a date rolled back).
  void flows_of(const Bond& b, NodeIndex i, ConventionFlows& flows) const {
    const Calendar& calendar = s.calendars[b.calendar];
    const Convention& convention = *s.conventions[b.convention].parsed.convention;
    const BondTerms terms = terms_of(b);
    if (const std::optional<CouponDates> kept =
            s.coupon_schedules.dates(i, terms, convention, calendar.business_days, calendar.today)) {
      convention_flows(terms, convention, *kept, calendar.today, flows);
    } else {
      convention_flows(terms, convention, calendar.business_days, calendar.today, flows);
    }
  }

  // A bond with a market convention (model/conventions/convention_figures.h):
  // its flows built and valued one by one, not on the coupon grids; its
  // yields, where they are a regular stream's, solved with the queue's.
  void convention_bond(const Bond& b, NodeIndex i, NodeState& st, BondValue& value, ConventionQueue& queue,
                       bool with_analytics) const {
    const Calendar& calendar = s.calendars[b.calendar];
    const Convention& convention = *s.conventions[b.convention].parsed.convention;
    st.status = end_status(end_date(b, calendar, convention, s.curves[b.curve].horizon()), calendar.today);
    if (st.status != Status::ok) {
      if (ladders()) {
        std::ranges::fill(s.bond_ladder(i), 0.0);
        ++s.bond_ladder_version[i];
      }
      return;
    }
    const IrCurve& curve = s.curves[b.curve];
    ConventionFlows flows;
    flows_of(b, i, flows);
    if (ladders()) {
      ladder_of(i, [&](std::span<double> ladder) {
        value = convention_value_and_key_rates(flows, calendar.today, curve.arrays, curve.key_rates,
                                               curve.points.size(), ladder);
      });
    } else {
      value = convention_value(flows, calendar.today, curve.arrays);
    }
    if (!with_analytics) {  // only what trades and books use: the holder's value
      keep_finite(st, value);
      return;
    }
    const Date settlement = calendar.business_days.advance(calendar.today, convention.settlement_days);
    ConventionStart& start = queue.start[queue.count];
    start = start_convention_figures(flows, value, convention, b.coupons_per_year, calendar.today, settlement,
                                     b.quote, curve.arrays, known_quote_yield(i, settlement));
    if (start.solves == 0) return publish_convention(i, settlement, start.figures);
    queue.bonds[queue.count] = i;
    queue.settlement[queue.count++] = settlement;
    if (queue.count == kConventionBatch) conventions_of(queue);
  }

  // The queued bonds' yields solved side by side, and their figures
  // completed: a spread the first evaluation leaves by walking the bond's
  // flows, anything else the closed forms leave by calculating the bond
  // alone (convention_figures).
  void conventions_of(ConventionQueue& queue) const {
    std::array<Finished, kConventionBatch> finished;
    finish_convention_figures(std::span(queue.start).first(queue.count), std::span(finished).first(queue.count));
    for (std::size_t k = 0; k < queue.count; ++k) {
      const NodeIndex i = queue.bonds[k];
      Finished& f = finished[k];
      if (f.left == Unfinished::spread) walk_spread(i, queue.settlement[k], queue.start[k], f);
      publish_convention(i, queue.settlement[k],
                         f.left == Unfinished::nothing ? f.figures : figures_alone(i, queue.settlement[k]));
    }
    queue.count = 0;
  }

  // Bond i's spread, which `start` left, walked over its flows built again.
  void walk_spread(NodeIndex i, Date settlement, const ConventionStart& start, Finished& finished) const {
    const Bond& b = s.bonds[i];
    ConventionFlows flows;
    flows_of(b, i, flows);
    finish_convention_spread(start, flows, *s.conventions[b.convention].parsed.convention,
                             s.calendars[b.calendar].today, settlement, s.curves[b.curve].arrays, finished);
  }

  // Bond i's figures calculated alone (its flows built again), where the
  // closed forms reach no yield or quote yield.
  ConventionFigures figures_alone(NodeIndex i, Date settlement) const {
    const Bond& b = s.bonds[i];
    ConventionFlows flows;
    flows_of(b, i, flows);
    return convention_figures(flows, *s.conventions[b.convention].parsed.convention, b.coupons_per_year,
                              s.calendars[b.calendar].today, settlement, b.quote, s.curves[b.curve].arrays,
                              known_quote_yield(i, settlement));
  }

  // A convention bond's value and figures, settling on `settlement`; a
  // solve that found no root fails it.
  void publish_convention(NodeIndex i, Date settlement, const ConventionFigures& figures) const {
    NodeState& st = own(Kind::bond, i);
    BondValue& value = s.bond_values[i];
    value = figures.value;
    keep_finite(st, value);
    if (st.status != Status::ok) return;
    s.bond_figures[i] = figures.figures;
    s.bond_cs01[i] = figures.figures.cs01;
    keep_quote_yield(i, settlement);
    if (figures.figures.failure == AnalyticsFailure::none) return;
    st.status = Status::failed;
    value = {};
    s.bond_cs01[i] = kNull;
  }

  // Bond i's quote yield if it was solved for its quote and flows as they
  // are (reckoned from `day`): a curve's move leaves it as it was
  // (QuoteYieldMemo). NaN: to be solved.
  double known_quote_yield(NodeIndex i, Date day) const {
    const QuoteYieldMemo& memo = s.quote_yield_memos[i];
    return memo.quote == s.bonds[i].quote && memo.day == day ? memo.quote_yield : kNull;
  }
  // Keeps bond i's published quote yield, reckoned from `day`, for the next recalculation.
  void keep_quote_yield(NodeIndex i, Date day) const {
    const double quote_yield = s.bond_figures[i].quote_yield;
    s.quote_yield_memos[i] = is_null(quote_yield) ? QuoteYieldMemo{} : QuoteYieldMemo{s.bonds[i].quote, day, quote_yield};
  }

  // The queued bonds' quote analytics (model/quotes/quote_analytics.h), solved
  // afresh from their prices: a warm start from the last solve would save
  // a step or two but make the figures depend on the path of events, where
  // a replay or a fresh flush must give the same bits. Only a quote yield
  // is taken as it was, and only while its quote and day stand (it is then
  // the bits a solve gives: known_quote_yield). No root fails the bond.
  void figures_of(FiguresQueue& queue) const {
    std::array<BondFigures, kFiguresBatch> figures;
    bond_figures(std::span(queue.inputs).first(queue.count), std::span(figures).first(queue.count));
    for (std::size_t k = 0; k < queue.count; ++k) {
      const NodeIndex i = queue.bonds[k];
      s.bond_figures[i] = figures[k];
      keep_quote_yield(i, s.calendars[s.bonds[i].calendar].today);
      s.bond_cs01[i] = figures[k].cs01;
      if (figures[k].failure == AnalyticsFailure::none) continue;
      own(Kind::bond, i).status = Status::failed;
      s.bond_values[i] = {};
      s.bond_cs01[i] = kNull;
    }
    queue.count = 0;
  }

  // Asks for the bond value of the trade kAhead places after trade i: trades
  // lie by book, so they read their bonds' values at random, and the trades
  // streaming through push those out of the nearest caches. A FAILED trade
  // may name no bond: the address is an integer sum, not a pointer past the
  // array, and a prefetch never faults.
  static void prefetch_bond_value(std::span<const OutrightTrade> trades, const BondValue* values, NodeIndex i) {
    constexpr NodeIndex kAhead = 16;
    if (i + kAhead >= trades.size()) return;
    const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(values);
    __builtin_prefetch(reinterpret_cast<const void*>(base + trades[i + kAhead].bond * sizeof(BondValue)));
  }

  void outright_trades(Indices nodes) const {
    const Below below = tiers_below();
    const std::span<const OutrightTrade> trades = s.outright_trades;
    NodeState* states = s.states[static_cast<std::size_t>(Kind::outright_trade)].data();
    OutrightValue* values = s.outright_values.data();
    double* cs01 = s.outright_cs01.data();
    Quoted* quoted = s.outright_quoted.data();
    if (pass == engine::Pass::rest) {
      // The cs01 of its bond's, now solved. One too large for a double (an
      // absurd quote times a huge quantity) fails the trade in one pass; here
      // it makes its books' cs01 infinite, and LiveModel::complete
      // recalculates its bond again whole, which fails it.
      for_each_node(nodes, [&](NodeIndex i) {
        const OutrightTrade& t = trades[i];
        if (states[i].status != Status::ok || below.bond_states[t.bond].status != Status::ok) return;
        cs01[i] = outright_cs01(t.quantity, t.dir, below.bond_cs01[t.bond]);
      });
      return;
    }
    for_each_node(nodes, [&](NodeIndex i) {
      const OutrightTrade& t = trades[i];
      prefetch_bond_value(trades, below.bond_values, i);
      NodeState& st = states[i];
      OutrightValue& value = values[i];
      const bool was_ok = st.status == Status::ok;
      value = {};
      st.status = from_inputs(st, [&] { return std::array{below.bond_states[t.bond].status}; });
      if (st.status == Status::ok) {
        value = value_outright(t.quantity, t.dir, t.trade_price, below.bond_values[t.bond]);
        quoted[i] = below.bond_quoted[t.bond];
        bool finite = all_finite(value);
        // Without quote analytics an OK trade's cs01 is NaN as long as it stays OK (see Store).
        if (s.with_quote_analytics || !was_ok) {
          cs01[i] = outright_cs01(t.quantity, t.dir, below.bond_cs01[t.bond]);
          finite = finite && !std::isinf(cs01[i]);  // a NaN cs01 is null, not a failure
        }
        if (finite) return;
        st.status = Status::failed;  // as keep_finite
        value = {};
      }
      quoted[i] = Quoted::no;
      cs01[i] = 0;
    });
  }

  // Settles a repo's status; returns what its value is computed from, or
  // zeros when it is not OK (they give the zero value it publishes).
  static RepoInputs repo_inputs_of(const Below& below, const RepoTrade& t, NodeState& st) {
    st.status = from_inputs(st, [&] {
      return std::array{below.calendar_states[t.calendar].status, below.bond_states[t.bond].status,
                        below.curve_states[t.curve].status};
    });
    if (st.status != Status::ok) return {};
    const Date today = below.calendars[t.calendar].today;
    st.status = end_status(end_date(t, below.curves[t.curve].horizon()), today);
    if (st.status != Status::ok) return {};
    return repo_inputs(t.start_cash, t.notional, t.rate, t.end - today, below.bond_values[t.bond].price,
                       below.curves[t.curve].arrays);
  }

  // Repos' inputs by field, for their values a vector of lanes at a time.
  struct RepoBlock {
    static constexpr std::size_t kSize = 32;
    static_assert(kSize % base::kLanes == 0);
    using Column = std::array<double, kSize>;
    std::size_t count = 0;
    std::array<NodeIndex, kSize> nodes{};
    RepoInputsOf<Column> inputs{};

    void add(NodeIndex i, const RepoInputs& in) {
      nodes[count] = i;
      inputs.start_cash[count] = in.start_cash;
      inputs.notional[count] = in.notional;
      inputs.growth[count] = in.growth;
      inputs.bond_price[count] = in.bond_price;
      inputs.cum_df[count] = in.cum_df;
      ++count;
    }
    // The inputs of nodes k .. k + kLanes - 1 (past the last node, after pad: zeros).
    RepoInputsOf<base::Doubles> lanes(std::size_t k) const {
      auto at = [k](const Column& column) {
        base::Doubles v{};  // set whole by the copy (GCC -O1 cannot tell)
        std::memcpy(&v, &column[k], sizeof v);
        return v;
      };
      return {at(inputs.start_cash), at(inputs.notional), at(inputs.growth), at(inputs.bond_price), at(inputs.cum_df)};
    }
    // Zeros past the last node, up to a whole vector.
    void pad() {
      for (std::size_t k = count; k % base::kLanes != 0; ++k) {
        for (Column* column : {&inputs.start_cash, &inputs.notional, &inputs.growth, &inputs.bond_price, &inputs.cum_df}) {
          (*column)[k] = 0;
        }
      }
    }
  };

  // Repos in blocks: their statuses and inputs one by one, then their
  // values a vector of lanes at a time (base/lanes.h), the same bits as one
  // at a time.
  void repo_trades(Indices nodes) const {
    RepoBlock block;
    const Below below = tiers_below();
    const RepoTrade* trades = s.repo_trades.data();
    NodeState* states = s.states[static_cast<std::size_t>(Kind::repo_trade)].data();
    RepoValue* values = s.repo_values.data();
    for_each_node(nodes, [&](NodeIndex i) __attribute__((always_inline)) {
      block.add(i, repo_inputs_of(below, trades[i], states[i]));
      if (block.count == RepoBlock::kSize) value_repos(block, states, values);
    });
    value_repos(block, states, values);
  }

  static void value_repos(RepoBlock& block, NodeState* states, RepoValue* values) {
    block.pad();
    for (std::size_t k = 0; k < block.count; k += base::kLanes) {
      const RepoValueOf<base::Doubles> v = value_repo(block.lanes(k));
      const bool finite = all_finite(v);
      for (std::size_t j = 0; j < base::kLanes && k + j < block.count; ++j) {
        const NodeIndex i = block.nodes[k + j];
        values[i] = {v.end_cash[j], v.margin[j], v.mtm_pnl[j]};
        if (!finite) keep_finite(states[i], values[i]);
      }
    }
    block.count = 0;
  }

  // Brings a book up to date: from its members' changes when the graph has
  // them (a few members changed; see engine/graph.h), otherwise by summing
  // all members afresh, and at least every kFullSumEvery updates so that
  // rounding never drifts from a fresh sum. Its cs01 and ladder (the rest
  // of a flush in two passes) follow the same way, the ladder summed afresh
  // when a changed member's previous part read a ladder this flush rewrote
  // (see model/risk/ladders.h). Each sum adds what one pass would, in the
  // same order: the same bits whole or in two passes.
  template <class Value, class Trade>
  void update_book(Kind kind, NodeIndex i, Book<Value>& book, Kind member_kind, std::span<const Value> values,
                   std::span<const Trade> trades) const {
    const auto changed = g.changed_inputs(ref(kind, i));
    if (pass != engine::Pass::rest) update_book_values(book, member_kind, values, changed);
    if (pass != engine::Pass::first) update_book_rest(book, member_kind, trades, changed);
    NodeState& st = own(kind, i);
    st.status = st.error != 0 ? Status::failed : book.broken != 0 ? Status::stale : Status::ok;
    if (!book_finite(book)) st.status = Status::failed;  // see keep_finite
  }

  template <class Value>
  static bool book_finite(const Book<Value>& book) {
    return all_finite(book.total) && !std::isinf(book.cs01);  // a repo book's cs01 stays 0
  }

  // 1 for an outright member on a bond with no quote (Store::outright_quoted), 0 for a repo: counted for OK members.
  template <class Value>
  std::uint32_t unquoted_member(NodeIndex m) const {
    if constexpr (std::is_same_v<Value, OutrightValue>) return s.outright_quoted[m] == Quoted::yes ? 0 : 1;
    return 0;
  }
  // What a member adds to its book's cs01: its own, or 0 when unquoted.
  static double cs01_of(double cs01, double sign) {
    return is_null(cs01) ? 0.0 : sign * cs01;  // a select, not a branch: 1 in 5 is unquoted
  }

  using Changed = std::optional<std::span<const NodeRef>>;

  // A book's values but cs01; book.since_full_sum is 0 after a fresh sum.
  template <class Value>
  void update_book_values(Book<Value>& book, Kind member_kind, std::span<const Value> values,
                          const Changed& changed) const {
    constexpr std::uint32_t kFullSumEvery = 1000;
    // Never from a total that overflowed: an infinity less the member that
    // made it is still one, where a fresh sum may be finite again.
    bool from_changes = changed && book.since_full_sum < kFullSumEvery && book_finite(book);
    for (std::size_t k = 0; from_changes && k < changed->size(); ++k) {
      from_changes = g.previous<Previous<Value>>((*changed)[k]).has_value();
    }
    if (from_changes) {
      for (NodeRef m : *changed) {
        const Previous<Value> before = *g.previous<Previous<Value>>(m);
        add_member(book, before.status, before.value, before.quoted ? 0 : 1, -1.0);
        add_member(book, status_of(member_kind, m.index), values[m.index], unquoted_member<Value>(m.index), 1.0);
      }
      ++book.since_full_sum;
    } else {
      sum_members(book, s.states[static_cast<std::size_t>(member_kind)], values, cs01_with_values());
    }
  }

  // A book's cs01 and ladder, from the changes where its values were.
  template <class Value, class Trade>
  void update_book_rest(Book<Value>& book, Kind member_kind, std::span<const Trade> trades,
                        const Changed& changed) const {
    const auto& states = s.states[static_cast<std::size_t>(member_kind)];
    if (book.since_full_sum == 0) {
      if constexpr (std::is_same_v<Value, OutrightValue>) {
        if (!cs01_with_values()) {
          double cs01 = 0;
          for (NodeIndex m : book.members) {
            if (states[m].status == Status::ok) cs01 += cs01_of(s.outright_cs01[m], 1.0);
          }
          book.cs01 = cs01;
        }
      }
      sum_ladder(book);
      return;
    }
    bool ladder_from_changes = true;
    for (NodeRef m : *changed) {
      const Previous<Value> before = *g.previous<Previous<Value>>(m);
      if constexpr (std::is_same_v<Value, OutrightValue>) {
        if (before.status == Status::ok) book.cs01 += cs01_of(before.cs01, -1.0);
        if (states[m.index].status == Status::ok) book.cs01 += cs01_of(s.outright_cs01[m.index], 1.0);
      }
      ladder_from_changes = ladder_from_changes && (before.status != Status::ok || still_current(s, before.part));
    }
    if (s.with_key_rates && ladder_from_changes) {
      for (NodeRef m : *changed) {
        const Previous<Value> before = *g.previous<Previous<Value>>(m);
        if (before.status == Status::ok) add_key_rates(s, before.part, book.kr01, -1.0);
        if (states[m.index].status == Status::ok) add_key_rates(s, ladder_part(s, trades[m.index]), book.kr01);
      }
    } else {
      sum_ladder(book);
    }
  }

  // A book summed afresh, add_member's sums in a loop whose sums stay in
  // registers (the book's own could alias the values it reads); an outright
  // book's cs01 too `with_cs01` (a whole pass: one read of the members where
  // the rest's sum would be a second, the same sum in the same order), else
  // kept for the rest. Without quote analytics every OK member's cs01 is
  // NaN (see Store::outright_cs01): the sum is 0, its column unread.
  template <class Value>
  void sum_members(Book<Value>& book, std::span<const NodeState> states, std::span<const Value> values,
                   bool with_cs01) const {
    Value total{};
    double cs01 = with_cs01 ? 0.0 : book.cs01;  // else the rest's
    with_cs01 = with_cs01 && s.with_quote_analytics;
    std::uint32_t excluded = 0, broken = 0, unquoted = 0;
    for (NodeIndex m : book.members) {
      const Status status = states[m].status;
      if (status == Status::ok) {
        accumulate(total, values[m], 1.0);
        unquoted += unquoted_member<Value>(m);
        if constexpr (std::is_same_v<Value, OutrightValue>) {
          if (with_cs01) cs01 += cs01_of(s.outright_cs01[m], 1.0);
        }
      } else {
        ++excluded;
        broken += is_broken(status) ? 1 : 0;
      }
    }
    book.total = total;
    book.cs01 = cs01;
    book.excluded = excluded;
    book.broken = broken;
    book.unquoted = unquoted;
    book.since_full_sum = 0;
  }

  // Adds (sign 1) or takes away (sign -1) one member's part of a book.
  template <class Value>
  static void add_member(Book<Value>& book, Status status, const Value& v, std::uint32_t unquoted, double sign) {
    const std::uint32_t one = sign > 0 ? 1u : ~0u;  // unsigned +1 or -1
    if (status == Status::ok) {
      accumulate(book.total, v, sign);
      book.unquoted += unquoted * one;  // 0 for a repo
      return;
    }
    book.excluded += one;
    if (is_broken(status)) book.broken += one;
  }

  // An outright book's values but cs01 (the rest's: cs01_of).
  static void accumulate(OutrightValue& sum, const OutrightValue& v, double sign) {
    sum.pv += sign * v.pv;
    sum.pv01 += sign * v.pv01;
    sum.pnl += sign * v.pnl;
  }

  static void accumulate(RepoValue& sum, const RepoValue& v, double sign) {
    sum.margin += sign * v.margin;
    sum.mtm_pnl += sign * v.mtm_pnl;
  }

  // A book's ladder, summed afresh from its OK members (model/risk/ladders.h).
  template <class Value>
  void sum_ladder(Book<Value>& book) const {
    if (s.with_key_rates) sum_key_rates(s, book, book.kr01);
  }

  void outright_books(Indices nodes) const {
    for_each_node(nodes, [&](NodeIndex i) {
      update_book<OutrightValue, OutrightTrade>(Kind::outright_book, i, s.outright_books[i], Kind::outright_trade,
                                                s.outright_values, s.outright_trades);
    });
  }

  void repo_books(Indices nodes) const {
    for_each_node(nodes, [&](NodeIndex i) {
      update_book<RepoValue, RepoTrade>(Kind::repo_book, i, s.repo_books[i], Kind::repo_trade, s.repo_values,
                                        s.repo_trades);
    });
  }
};

// Saves each of `nodes` (trades of `kind`) as a Previous to `out`, one
// after another. The trades lie anywhere in their arrays: each one's rows
// are fetched kAhead trades ahead, and its bond's ladder version half as
// far, once its row (which names the bond) has come in.
template <class Value, class Trade>
void save_previous(const Store& store, Kind kind, std::span<const Value> values, std::span<const Trade> trades,
                   std::span<const NodeIndex> nodes, std::byte* out) {
  constexpr std::size_t kAhead = 16;
  const NodeState* states = store.states[static_cast<std::size_t>(kind)].data();
  const bool outright = kind == Kind::outright_trade, ladders = store.with_key_rates;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    if (k + kAhead < nodes.size()) {
      const NodeIndex ahead = nodes[k + kAhead];
      __builtin_prefetch(&values[ahead]);
      __builtin_prefetch(&states[ahead]);
      __builtin_prefetch(&trades[ahead]);
      if (outright) {
        __builtin_prefetch(&store.outright_cs01[ahead]);
        __builtin_prefetch(&store.outright_quoted[ahead]);
      }
    }
    if (ladders && k + kAhead / 2 < nodes.size()) {
      const NodeIndex bond = trades[nodes[k + kAhead / 2]].bond;
      if (bond < store.bond_ladder_version.size()) __builtin_prefetch(&store.bond_ladder_version[bond]);
    }
    const NodeIndex i = nodes[k];
    const Status status = states[i].status;
    Previous<Value> saved{values[i], status,
                          ladders && status == Status::ok ? books_ladder_part(store, ref(kind, i)) : LadderPart{}};
    if (outright) saved.cs01 = store.outright_cs01[i], saved.quoted = store.outright_quoted[i] == Quoted::yes;
    std::memcpy(out + k * sizeof saved, &saved, sizeof saved);
  }
}

}  // namespace

bool values_finite(const Store& s, const OutrightTrade& t) {
  if (t.bond >= s.bonds.size() || s.state(ref(Kind::bond, t.bond)).status != Status::ok) return true;
  return all_finite(value_outright(t.quantity, t.dir, t.trade_price, s.bond_values[t.bond])) &&
         !std::isinf(outright_cs01(t.quantity, t.dir, s.bond_cs01[t.bond]));
}

bool values_finite(const Store& s, const RepoTrade& t) {
  if (t.bond >= s.bonds.size() || t.curve >= s.curves.size() || t.calendar >= s.calendars.size()) return true;
  if (s.state(ref(Kind::bond, t.bond)).status != Status::ok || s.state(ref(Kind::ir_curve, t.curve)).status != Status::ok) {
    return true;
  }
  const Date today = s.calendars[t.calendar].today;
  if (end_status(end_date(t, s.curves[t.curve].horizon()), today) != Status::ok) return true;
  return all_finite(value_repo(t.start_cash, t.notional, t.rate, t.end - today, s.bond_values[t.bond].price,
                               s.curves[t.curve].arrays));
}

void build_graph(Store& store, engine::Graph& graph) {
  const Calculator calc{store, graph};
  const Calculator first{store, graph, engine::Pass::first}, rest{store, graph, engine::Pass::rest};
  // Work per node relative to an outright trade (see engine::Graph::add_type),
  // as measured on the 440k set: a curve fills daily arrays (~7000x), a bond
  // reads its coupon grid (~1x; ~2x with its ladder, a pass over the
  // curve's segments; ~64x with its quote analytics, 0.5 us of solves), a
  // book reads members at ~1/4 of a trade each.
  auto average = [](std::size_t total, std::size_t count) { return count ? 1 + total / count : 1; };
  std::size_t members = 0;
  for (const OutrightBook& b : store.outright_books) members += b.members.size();
  for (const RepoBook& b : store.repo_books) members += b.members.size();
  const std::size_t book_cost = average(members, store.outright_books.size() + store.repo_books.size()) / 4;
  // A trade's value and status as its books saw them, saved by the engine
  // before a flush recalculates the trade (save_previous, engine/graph.h).
  auto saved_as_previous = [&store](Kind kind, const auto& values, const auto& trades) {
    using Saved = Previous<typename std::decay_t<decltype(values)>::value_type>;
    return engine::TypeOptions{
        .cost = kind == Kind::outright_trade ? 1u : 2u,
        .value_bytes = sizeof(Saved),
        .save_values = [&store, kind, &values, &trades](std::span<const NodeIndex> nodes, std::byte* out) {
          save_previous(store, kind, std::span(values), std::span(trades), nodes, out);
        }};
  };
  const engine::TypeOptions book_options{.cost = book_cost, .incremental = true};
  struct TypeSpec {
    Kind kind;
    unsigned tier;
    void (Calculator::*fn)(Indices) const;
    engine::TypeOptions options;
    bool two_passes = false;  // engine::Pass: the calculator's first pass, then its rest
  };
  const TypeSpec specs[] = {
      {Kind::calendar, 1, &Calculator::calendars, {.cost = 1}},
      {Kind::ir_curve, 2, &Calculator::curves,
       {.cost = kNumForwardDays,
        .split = {.steps = kCurveSteps,
                  .parts = [&store](NodeIndex i, std::size_t step, engine::Pass pass) {
                    return curve_parts(store, i, step, pass);
                  },
                  .run = [&store](NodeIndex i, std::size_t step, std::size_t part, engine::Pass pass) {
                    curve_part(store, i, step, part, pass);
                  }}},
       true},
      {Kind::bond, 3, &Calculator::bonds, {.cost = store.with_quote_analytics ? 64u : store.with_key_rates ? 2u : 1u}, true},
      {Kind::outright_trade, 4, &Calculator::outright_trades,
       saved_as_previous(Kind::outright_trade, store.outright_values, store.outright_trades), true},
      {Kind::repo_trade, 4, &Calculator::repo_trades,
       saved_as_previous(Kind::repo_trade, store.repo_values, store.repo_trades)},
      {Kind::outright_book, 5, &Calculator::outright_books, book_options, true},
      {Kind::repo_book, 5, &Calculator::repo_books, book_options, true},
  };
  for (TypeSpec spec : specs) {
    const auto run = [fn = spec.fn](const Calculator& c) { return [c, fn](Indices n) { (c.*fn)(n); }; };
    if (spec.two_passes) {
      spec.options.first = run(first);
      spec.options.rest = run(rest);
      if (spec.kind == Kind::bond) spec.options.first_cost = 1;  // a value off its coupon grid (or its flows)
    }
    graph.add_type(std::string(kind_name(spec.kind)), spec.tier, run(calc), spec.options);
    graph.add_nodes(static_cast<engine::TypeId>(spec.kind), store.size(spec.kind));
  }

  auto valid = [&](Kind kind, NodeIndex i) { return store.states[static_cast<std::size_t>(kind)][i].error == 0; };
  // A curve sums its coupon grids for each calendar of its trad4 bonds (model/pricing/coupon_grid.h;
  // a convention bond values its own flows), and subscribes to that calendar where its first such bond
  // does. A bond's convention, curve or calendar changes only with a reload, which builds the graph anew.
  std::vector<unsigned char> opens_grid(store.bonds.size(), 0);
  for (IrCurve& c : store.curves) c.grids.clear();
  for (NodeIndex i = 0; i < store.bonds.size(); ++i) {
    if (!valid(Kind::bond, i) || store.bonds[i].convention != kNoConvention) continue;
    const Bond& b = store.bonds[i];
    std::vector<CurveGrid>& grids = store.curves[b.curve].grids;
    if (std::ranges::none_of(grids, [&](const CurveGrid& g) { return g.calendar == b.calendar; })) {
      grids.push_back({b.calendar, {}, {}, {}});
      opens_grid[i] = 1;
    }
  }
  // A calendar's grids reach the longest horizon of the curves that sum them.
  for (Calendar& c : store.calendars) c.grid_horizon = kNumForwardDays;
  for (NodeIndex c = 0; c < store.curves.size(); ++c) {
    if (!valid(Kind::ir_curve, c)) continue;
    for (const CurveGrid& g : store.curves[c].grids) {
      int& horizon = store.calendars[g.calendar].grid_horizon;
      horizon = std::max(horizon, store.curves[c].points.back().days_forward);
    }
  }
  graph.subscribe_all([&](auto add) {
    auto link = [&](Kind sub_kind, NodeIndex sub, Kind pub_kind, NodeIndex pub) {
      add(ref(sub_kind, sub), ref(pub_kind, pub));
    };
    for (NodeIndex i = 0; i < store.bonds.size(); ++i) {
      if (!valid(Kind::bond, i)) continue;
      const Bond& b = store.bonds[i];
      link(Kind::bond, i, Kind::calendar, b.calendar);
      link(Kind::bond, i, Kind::ir_curve, b.curve);
      if (opens_grid[i]) link(Kind::ir_curve, b.curve, Kind::calendar, b.calendar);
    }
    for (NodeIndex i = 0; i < store.outright_trades.size(); ++i) {
      if (valid(Kind::outright_trade, i)) link(Kind::outright_trade, i, Kind::bond, store.outright_trades[i].bond);
    }
    for (NodeIndex i = 0; i < store.repo_trades.size(); ++i) {
      if (!valid(Kind::repo_trade, i)) continue;
      const RepoTrade& t = store.repo_trades[i];
      link(Kind::repo_trade, i, Kind::calendar, t.calendar);
      link(Kind::repo_trade, i, Kind::bond, t.bond);
      link(Kind::repo_trade, i, Kind::ir_curve, t.curve);
    }
    for (NodeIndex i = 0; i < store.outright_books.size(); ++i) {
      for (NodeIndex m : store.outright_books[i].members) link(Kind::outright_book, i, Kind::outright_trade, m);
    }
    for (NodeIndex i = 0; i < store.repo_books.size(); ++i) {
      for (NodeIndex m : store.repo_books[i].members) link(Kind::repo_book, i, Kind::repo_trade, m);
    }
  });
}

}  // namespace bond_risk
