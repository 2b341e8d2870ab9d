// In-memory storage of the seven node types: contiguous vectors per type,
// static data apart from published values so that the values a tier reads
// from the one below (a bond's price for 200,000 trades) stay in cache; plus
// each node's status and database id. A flush streams all of this through
// memory, so the structs hold only what the calculations read: fields that
// are merely validated (a trade's trade_date, a repo's start_date) stay in
// the database. Nodes are named by engine::NodeRef, whose type is a Kind.
// Plain values that own their data; a LiveModel holds it once built (the
// graph's calculations refer to it). Not thread-safe: one thread changes it;
// a flush's workers write only their chunks' nodes (engine/graph.h).
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/huge_pages.h"
#include "bond_risk/model/conventions/business_days.h"
#include "bond_risk/model/conventions/convention.h"
#include "bond_risk/model/conventions/coupon_schedules.h"
#include "bond_risk/model/pricing/coupon_grid.h"
#include "bond_risk/model/pricing/dates.h"
#include "bond_risk/model/store/id_index.h"
#include "bond_risk/model/pricing/key_rates.h"
#include "bond_risk/model/inputs/kind.h"
#include "bond_risk/model/pricing/status.h"
#include "bond_risk/model/pricing/pricing.h"
#include "bond_risk/model/quotes/quote_analytics.h"
#include "bond_risk/model/inputs/risk_limit.h"

namespace bond_risk {

// Four bytes, read and written for every node of every flush.
struct NodeState {
  Status status : 8 = Status::ok;
  std::uint32_t error : 24 = 0;  // index into Store::errors of why its static data is invalid; 0 = valid
};

// The status a node takes from its own static data and its inputs, before
// any date checks: FAILED, STALE, EXPIRED (an input expired) or OK.
// `inputs()` gives the inputs' statuses; it is only called when the
// node's references are valid.
template <class Inputs>
Status from_inputs(const NodeState& own, Inputs inputs) {
  if (own.error != 0) return Status::failed;
  bool expired = false;
  for (const Status st : inputs()) {
    if (is_broken(st)) return Status::stale;
    expired |= st == Status::expired;
  }
  return expired ? Status::expired : Status::ok;
}
inline constexpr auto kNoInputs = [] { return std::array<Status, 0>{}; };

struct Calendar {
  Date today = 0;
  std::uint32_t version = 0;  // counts the flushes that recalculated it (see model/risk/ladders.h)
  CouponGridDays grid_days;   // for today, when OK (model/pricing/coupon_grid.h)
  int grid_horizon = kNumForwardDays;  // the days its grids reach: its bonds' curves' longest horizon (build_graph)
  BusinessDays business_days;  // from its calendar_holiday rows (convention bonds settle and pay on them)
};

// A bond_convention row: its convention, or why it has none (its bonds FAIL with that reason).
struct StoredConvention {
  std::string name;
  ParsedConvention parsed;
};
inline constexpr std::uint32_t kNoConvention = 0xFFFF'FFFF;

// A curve's running sums over the coupon grids of one calendar its trad4 bonds
// use (model/pricing/coupon_grid.h), of its key-rate shares when the store
// computes key rates, and its moments when it computes quote analytics;
// empty while the calendar is not OK.
struct CurveGrid {
  NodeIndex calendar = 0;
  CouponSumRows sums;
  GridKeyRates key_rates;
  MomentRows moments;  // when the store computes quote analytics (model/quotes/grid_moments.h)
};

struct IrCurve {
  std::vector<CurvePoint> points;
  std::vector<std::int64_t> point_idx;  // each point's idx in ir_curve_input_rate
  CurveArrays arrays;
  KeyRateArrays key_rates;  // when the store computes key rates
  std::uint32_t key_rate_version = 0;  // counts the flushes that rebuilt key_rates
  std::vector<CurveGrid> grids;        // one per calendar of its trad4 bonds (build_graph)

  // Its horizon H, the days its arrays cover: its last input day (once built).
  int horizon() const { return static_cast<int>(arrays.df.size()); }

  // The position among `points` of the point of input idx `idx`, if it is one.
  std::optional<std::size_t> position_of(std::int64_t idx) const {
    const auto at = std::find(point_idx.begin(), point_idx.end(), idx);
    if (at == point_idx.end()) return std::nullopt;
    return static_cast<std::size_t>(at - point_idx.begin());
  }
};

// The one of a curve's `grids` for `calendar`'s bonds: build_graph gives
// every valid trad4 bond's curve one for its calendar.
inline const CurveGrid& grid_for(std::span<const CurveGrid> grids, NodeIndex calendar) {
  for (const CurveGrid& g : grids) {
    if (g.calendar == calendar) return g;
  }
  throw std::logic_error("a curve has no coupon grid for calendar " + std::to_string(calendar));
}

struct Bond {
  NodeIndex calendar = 0, curve = 0;
  Date start = 0, maturity = 0;
  int coupons_per_year = 0;
  GridPlace place;              // its coupons' grid
  std::uint32_t coupons = 0;    // the dates of its schedule (coupon_count)
  double coupon = 0;
  double quote = kNull;         // its market clean price per 100 (bond_quote); NaN: none
  std::uint32_t quote_error = 0;  // index into Store::errors of why its quote row is bad; 0 = none (it FAILS)
  std::uint32_t convention = kNoConvention;  // index into Store::conventions; none: the trad4 model
};

// What a convention bond's coupon dates and flows are built from.
inline BondTerms terms_of(const Bond& b) { return {b.start, b.maturity, b.coupons_per_year, b.coupon}; }

struct OutrightTrade {
  NodeIndex bond = 0;
  int dir = 1;
  double trade_price = 0;
  std::int64_t quantity = 0;
};

struct RepoTrade {
  NodeIndex bond = 0, calendar = 0, curve = 0;
  Date end = 0;
  std::int64_t notional = 0;
  double start_cash = 0, rate = 0;
};

// A book's sums, kept up to date from its members' changes between full
// recalculations (see update_book in calculations.cpp).
template <class Value>
struct Book {
  std::vector<NodeIndex> members;
  Value total;                      // sums over the OK members (a repo book's end_cash is unused)
  double cs01 = 0;                  // an outright book's, over its OK members on a quoted bond
  std::uint32_t excluded = 0;       // members left out of the sums (not OK)
  std::uint32_t broken = 0;         // members FAILED or STALE: the book is STALE
  std::uint32_t unquoted = 0;       // an outright book's OK members on a bond with no quote
  std::uint32_t since_full_sum = 0;  // updates from changes since the last full sum
  // Key-rate ladder over Store::key_rate_axis, summed afresh at each update:
  // an outright book's pv; a repo book's margin, then its mtm_pnl.
  std::vector<double> kr01;
};
// A trade's part of its books' key-rate ladders (see model/risk/ladders.h).
struct LadderPart {
  NodeIndex bond = 0, curve = 0, calendar = 0;  // curve, calendar: a repo's own (mtm_pnl); unused for outrights
  // Store::bond_ladder_version, IrCurve::key_rate_version, Calendar::version
  std::uint32_t bond_version = 0, curve_version = 0, calendar_version = 0;
  int days = 0;                                        // a repo's days to its end (its curve's ladder row)
  double weight = 0;  // of the bond's ladder: quantity * dir, or -notional
  double cash = 0;    // a repo's of its discounted-sum ladder: -start_cash / YEAR_BASIS; 0 for outrights
};

// A bond's last quote yield and what it was solved from: its quote, and
// the day its flows are reckoned from (today; a convention bond's
// settlement). A quote yield is a function of these and the bond's terms
// alone (model/quotes/quote_analytics.h), so a recalculation that moved
// neither (a curve's move) takes it as it was: the same bits.
struct QuoteYieldMemo {
  double quote = kNull;  // none kept: NaN equals no quote
  Date day = 0;
  double quote_yield = 0;
};

using OutrightBook = Book<OutrightValue>;
using RepoBook = Book<RepoValue>;

struct Store {
  std::vector<Calendar> calendars;
  std::vector<IrCurve> curves;
  std::vector<StoredConvention> conventions;  // bond_convention's rows, in name order
  base::HugeVector<Bond> bonds;
  base::HugeVector<BondValue> bond_values;  // published, one per bond
  // Beside them, what its outright trades take apart from their values (see
  // outright_cs01 below): its cs01 from quote analytics (NaN when not
  // published; without quote analytics never written), and whether it has
  // a market quote (cs01 may still be null: no rate enters).
  base::HugeVector<double> bond_cs01;
  base::HugeVector<Quoted> bond_quoted;
  base::HugeVector<BondFigures> bond_figures;  // published beside them (model/quotes/quote_analytics.h)
  base::HugeVector<QuoteYieldMemo> quote_yield_memos;  // one per bond, written by the worker that calculates it
  // A slot per bond, a convention bond's laid out for its terms and today
  // (lay_out_coupon_schedules); a slot written, during flushes, by the worker that calculates its bond.
  CouponSchedules coupon_schedules;
  base::HugeVector<OutrightTrade> outright_trades;
  base::HugeVector<OutrightValue> outright_values;
  // Beside an outright trade's values, apart so that a flush without quote
  // analytics streams only what it computes: its cs01 (0 when it is not OK;
  // else its bond's times its quantity and direction, which without quote
  // analytics is always NaN: written as the trade becomes OK), and whether
  // its bond has a market quote (its books count the OK members on one
  // that has not).
  base::HugeVector<double> outright_cs01;
  base::HugeVector<Quoted> outright_quoted;
  base::HugeVector<RepoTrade> repo_trades;
  base::HugeVector<RepoValue> repo_values;
  std::vector<OutrightBook> outright_books;
  std::vector<RepoBook> repo_books;


  // Key-rate ladders (model/pricing/key_rates.h), computed by flushes when
  // with_key_rates. The axis is laid out for the curves' point counts at
  // load; a curve whose count changes is loaded again with everything else.
  bool with_key_rates = true;
  // Quote analytics (model/quotes/quote_analytics.h), computed by flushes when
  // with_quote_analytics; otherwise every bond's figures are null.
  bool with_quote_analytics = true;
  KeyRateAxis key_rate_axis;
  base::HugeVector<double> bond_kr01;  // a bond's ladder at key_rate_axis.stride * its index
  // The curve each bond's ladder lies on (bonds[i].curve, fixed from the
  // load on), a column of its own: a book summing its ladder reads it for
  // every member, at random, where a Bond is 56 bytes.
  base::HugeVector<NodeIndex> ladder_curves;
  base::HugeVector<std::uint32_t> bond_ladder_version;  // per bond: the flushes that wrote its ladder
  // Parts trades' books hold, kept when a trade's static data changed
  // since the last flush (hold_ladder_part), by NodeRef as type << 32 | index.
  std::unordered_map<std::uint64_t, LadderPart> held_parts;

  std::array<base::HugeVector<NodeState>, kKindCount> states;
  std::array<base::HugeVector<std::int64_t>, kKindCount> ids;  // database id per node
  IdIndex by_id;
  std::vector<std::string> errors{""};
  std::vector<std::uint32_t> free_errors;  // released slots of errors, reused first
  std::unordered_map<std::string, NodeRef> names;  // calendars, curves and books by name (add_name)
  std::array<std::vector<std::string>, kKindCount> node_names;  // the same by node index ("": none)
  std::int64_t max_id = 0;                          // the largest id of any node
  // The risk limits (table risk_limit) in id order, and a count of the
  // times they were read again whole since the store was loaded (a limit
  // added or removed by a command is told to the checks by its id instead:
  // LiveModel::Recalculation::limits).
  std::vector<RiskLimit> limits;
  std::uint32_t limits_version = 0;

  NodeState& state(NodeRef n) { return states[n.type][n.index]; }
  const NodeState& state(NodeRef n) const { return states[n.type][n.index]; }
  std::int64_t id(NodeRef n) const { return ids[n.type][n.index]; }
  // A named node's name (calendars, curves, books), else its id as text.
  std::string name_of(NodeRef n) const;
  // Names node `n` (the first node named so keeps the name).
  void add_name(std::string name, NodeRef n);
  std::size_t size(Kind kind) const { return ids[static_cast<std::size_t>(kind)].size(); }
  std::size_t size() const;

  // Registers a node's id and state; returns its index. Fails the node if the
  // id is already taken (ids are unique across all tables).
  NodeIndex add(Kind kind, std::int64_t id);
  // Marks the node's static data invalid, keeping the first reason given. Its
  // status turns FAILED at its next calculation: statuses are what the last
  // flush published, which books update from.
  void fail(NodeRef node, std::string reason);
  // Sets or clears (nullopt) a bond's quote from its bond_quote row. A
  // value that is not a finite positive number, or one that could not be
  // read as a number (`unreadable` says why), fails the bond with that
  // reason until the quote is set again.
  void set_quote(NodeIndex bond, std::optional<double> clean_price, const std::string& unreadable = "");
  const std::string& error(NodeRef node) const { return errors[state(node).error]; }
  // Keeps a reason; its index in errors (never 0): a slot released before,
  // or a new one. A re-read row's old reason is released first, so that the
  // table holds the reasons of the rows that are bad now, however often
  // bad rows are read again.
  std::uint32_t add_error(std::string reason);
  void release_error(std::uint32_t index);  // 0: none
  // A node's own data valid again (its reason released).
  void clear_error(NodeRef node);

  // Throws std::logic_error naming the first broken invariant of the
  // indices: each kind's arrays the same size, by_id giving back every
  // node's id, names and node_names agreeing, every node's reason a kept
  // slot and no freed slot in use, ids within max_id, the limits in id
  // order. Linear in the nodes.
  void check() const;

  // Lays out key_rate_axis for the curves' point counts and sizes the
  // bonds' and books' ladders; once the nodes are loaded.
  void size_key_rates();
  // Lays out coupon_schedules for the bonds' terms and their calendars'
  // today, once they are loaded and in place.
  void lay_out_coupon_schedules();
  std::span<double> bond_ladder(NodeIndex bond) {
    return {bond_kr01.data() + std::size_t{key_rate_axis.stride} * bond, key_rate_axis.stride};
  }
  std::span<const double> bond_ladder(NodeIndex bond) const {
    return {bond_kr01.data() + std::size_t{key_rate_axis.stride} * bond, key_rate_axis.stride};
  }
};

}  // namespace bond_risk
