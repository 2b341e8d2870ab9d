#include "bond_risk/live/live_model.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "bond_risk/model/nodes/calculations.h"
#include "bond_risk/model/risk/ladders.h"
#include "bond_risk/model/limits/risk_limits.h"
#include "bond_risk/model/store/trade_fields.h"
#include "bond_risk/model/store/trade_links.h"

namespace bond_risk {

namespace {

std::string text_of(std::string_view s) { return std::string(s.substr(0, 60)); }

// The kind of node whose rows `table` holds, when they can be re-read one
// by one after another program changed them.
std::optional<Kind> row_by_row(std::string_view table) {
  for (Kind kind : {Kind::calendar, Kind::outright_trade, Kind::repo_trade}) {
    if (table == kind_name(kind)) return kind;
  }
  if (table == "ir_curve_input_rate") return Kind::ir_curve;  // a curve's rates, re-read together
  if (table == "bond_quote") return Kind::bond;                // a bond's quote
  return std::nullopt;
}

std::optional<std::int64_t> as_id(std::string_view key) {
  std::int64_t id = 0;
  const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), id);
  if (key.empty() || key[0] == '-' || ec != std::errc() || end != key.data() + key.size()) return std::nullopt;
  return id;
}

// Sets each field on `trade` by its column in `table`; refuses values that
// would make the trade's own values infinite.
template <class Trade>
void set_fields(const Store& store, Trade& trade, const InputTable& table, const Fields& fields) {
  for (const Field& f : fields) {
    const Column* column = table.find(f.column);
    if (!column || column->type == ColumnType::id) {
      throw CommandError("unknown " + std::string(table.name) + " field '" + f.column + "' (" + table.settable_list() + ")");
    }
    try {
      set_field(store, trade, trade_field(*column), f.value);
    } catch (const FieldError& e) {
      throw CommandError(e.message);
    }
  }
  if (!values_finite(store, trade)) {
    std::string given;
    for (const Field& f : fields) given += (given.empty() ? "" : " ") + f.column + "=" + field_text(f.value);
    throw CommandError(std::string(table.name) + " with " + given + " would have values too large for a double");
  }
}

const FieldValue* field(const Fields& fields, std::string_view column) {
  const auto it = std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return f.column == column; });
  return it == fields.end() ? nullptr : &it->value;
}

}  // namespace

// Validates each kind of change and looks up what it names, changing nothing.
struct LiveModel::Prepare {
  const LiveModel& m;
  const StoredRows& rows;

  // A curve's input rates replaced by `points` (the same days), described
  // as `what` in a refusal.
  Prepared curve_points(NodeRef c, std::vector<CurvePoint> points, const std::string& what) const {
    if (m.store_.state(c).error != 0) {
      throw CommandError("ir_curve " + std::to_string(m.store_.id(c)) + " is FAILED (" + m.store_.error(c) +
                         "); fix its rows in the database");
    }
    if (const std::string problem = check_curve_points(points); !problem.empty()) {
      throw CommandError(what + " makes it invalid: " + problem);
    }
    const IrCurve& curve = m.store_.curves[c.index];
    CurveRates write{m.store_.id(c), {}};
    for (std::size_t k = 0; k < points.size(); ++k) write.rates.emplace_back(curve.point_idx[k], points[k].value);
    return {write, Prepared::Curve{c, std::move(points)}};
  }

  Prepared operator()(const BumpCurve& b) const {
    const NodeRef c = m.find_kind(b.curve, Kind::ir_curve, rows);
    std::vector<CurvePoint> bumped = m.store_.curves[c.index].points;
    for (CurvePoint& p : bumped) p.value += b.bp * kBump;
    return curve_points(c, std::move(bumped), "bumping " + b.curve + " by " + field_text(FieldValue{b.bp}) + "bp");
  }

  Prepared operator()(const SetRate& s) const {
    const NodeRef c = m.find_kind(s.curve, Kind::ir_curve, rows);
    const IrCurve& curve = m.store_.curves[c.index];
    const std::optional<std::size_t> at = curve.position_of(s.idx);
    if (!at) throw CommandError("ir_curve " + s.curve + " has no input rate with idx " + std::to_string(s.idx));
    std::vector<CurvePoint> points = curve.points;
    points[*at].value = s.value;
    return curve_points(c, std::move(points), "setting input rate " + std::to_string(s.idx) + " of " + s.curve);
  }

  Prepared operator()(const SetCurve& s) const {
    const NodeRef c = m.find_kind(s.curve, Kind::ir_curve, rows);
    std::vector<CurvePoint> points = m.store_.curves[c.index].points;
    if (s.values.size() != points.size()) {
      throw CommandError("ir_curve " + s.curve + " has " + std::to_string(points.size()) + " input rates, not " +
                         std::to_string(s.values.size()));
    }
    for (std::size_t k = 0; k < points.size(); ++k) points[k].value = s.values[k];
    return curve_points(c, std::move(points), "setting " + s.curve);
  }

  Prepared operator()(const RollDate& r) const {
    std::vector<NodeIndex> calendars;
    if (r.calendar) {
      calendars.push_back(m.find_kind(*r.calendar, Kind::calendar, rows).index);
    } else {
      for (NodeIndex i = 0; i < m.store_.calendars.size(); ++i) calendars.push_back(i);
    }
    CalendarDates write{{}, r.today};
    for (NodeIndex i : calendars) write.calendar_ids.push_back(m.store_.id(ref(Kind::calendar, i)));
    return {write, Prepared::Dates{std::move(calendars), r.today}};
  }

  Prepared operator()(const AmendTrade& a) const {
    const NodeRef t = m.find_trade(a.trade, rows);
    const Kind kind = kind_of(t);
    const std::int64_t id = m.store_.id(t);
    const TradeRow write{kind, id, a.fields, false, std::nullopt};
    Prepared::Amendment step{t, {}, m.store_.state(t).error != 0};
    if (kind == Kind::outright_trade) {
      step.amended = with_fields(m.store_.outright_trades[t.index], kind, a.fields);
    } else {
      step.amended = with_fields(m.store_.repo_trades[t.index], kind, a.fields);
      check_dates(a.fields, id);
    }
    return {write, std::move(step)};
  }

  // `trade` with each field set by its column of `kind`'s table (set_fields' refusals).
  template <class Trade>
  Prepared::Trade with_fields(Trade trade, Kind kind, const Fields& fields) const {
    set_fields(m.store_, trade, input_table(kind), fields);
    return trade;
  }

  // A repo whose amended dates would not both hold is refused (its stored
  // dates fill in the one not amended).
  void check_dates(const Fields& fields, std::int64_t id) const {
    const FieldValue* start = field(fields, "start_date");
    const FieldValue* end = field(fields, "end_date");
    if (!start && !end) return;
    const auto stored_start = rows.date(Kind::repo_trade, id, "start_date");
    const auto stored_end = rows.date(Kind::repo_trade, id, "end_date");
    const Date s = start ? std::get<Date>(*start) : stored_start.value_or(0);
    const Date e = end ? std::get<Date>(*end) : stored_end.value_or(s);
    if (const std::string problem = check_repo_dates(s, e); !problem.empty()) throw CommandError(problem);
  }

  Prepared operator()(const AddTrade& a) const {
    const bool outright = a.kind == Kind::outright_trade;
    const std::optional<NodeRef> book =
        a.book ? std::optional(m.find_kind(*a.book, outright ? Kind::outright_book : Kind::repo_book, rows)) : std::nullopt;
    if (m.store_.max_id == std::numeric_limits<std::int64_t>::max()) {
      throw CommandError("no id is left for a new trade: the largest id in use is " + std::to_string(m.store_.max_id) +
                         "; give the new trade's row an id with another program");
    }
    const std::int64_t id = m.store_.max_id + 1;
    TradeRow write{a.kind, id, a.fields, true, book ? std::optional(m.store_.id(*book)) : std::nullopt};
    // Defaults from the trade's bond: its calendar's today, its calendar and curve.
    const Bond& bond = m.store_.bonds[resolved(*field(a.fields, "bond_id"))];
    auto or_default = [&](std::string column, FieldValue value) {
      if (!field(write.fields, column)) write.fields.push_back({std::move(column), std::move(value)});
    };
    const Date today = m.store_.calendars.at(bond.calendar).today;
    or_default("name", std::string(outright ? "OT_" : "RT_") + std::to_string(id));
    if (outright) {
      or_default("trade_date", today);
    } else {
      or_default("calendar_id", m.store_.id(ref(Kind::calendar, bond.calendar)));
      or_default("ir_curve_id", m.store_.id(ref(Kind::ir_curve, bond.curve)));
      or_default("start_date", today);
    }
    Prepared::Booking step{a.kind, id, {}, book};
    if (outright) {
      step.trade = with_fields(OutrightTrade{}, a.kind, write.fields);
    } else {
      step.trade = with_fields(RepoTrade{}, a.kind, write.fields);
      const std::string problem =
          check_repo_dates(std::get<Date>(*field(write.fields, "start_date")), std::get<Date>(*field(write.fields, "end_date")));
      if (!problem.empty()) throw CommandError(problem);
    }
    return {write, std::move(step)};
  }

  NodeIndex resolved(const FieldValue& bond_id) const {
    try {
      return resolve(m.store_, Kind::bond, std::get<std::int64_t>(bond_id));
    } catch (const FieldError& e) {
      throw CommandError(e.message);
    }
  }

  // Quotes move no model value: each quoted bond recalculates its figures,
  // and its trades and books their cs01.
  Prepared operator()(const SetPrices& p) const {
    BondQuotes write;
    Prepared::Quotes step;
    for (const auto& [key, price] : p.quotes) {
      step.bonds.push_back(m.find_kind(key, Kind::bond, rows).index);
      if (!(price > 0)) {
        throw CommandError("clean price " + field_text(FieldValue{price}) + " of bond " + text_of(key) +
                           " is not a positive number");
      }
      write.quotes.emplace_back(m.store_.id(ref(Kind::bond, step.bonds.back())), price);
    }
    return {std::move(write), std::move(step)};
  }

  Prepared operator()(const ClearPrice& c) const {
    const NodeIndex bond = m.find_kind(c.bond, Kind::bond, rows).index;
    return {BondQuotes{{{m.store_.id(ref(Kind::bond, bond)), std::nullopt}}}, Prepared::Quotes{{bond}}};
  }

  Prepared operator()(const StartDay&) const { return {DayStart{}, std::monostate{}}; }

  // A limit is checked as another program's row would be (limit_error):
  // one that could not hold is refused, naming why.
  Prepared operator()(const SetLimit& c) const {
    RiskLimit limit;
    if (!m.store_.limits.empty()) limit.id = m.store_.limits.back().id;  // in id order
    limit.id = std::max(limit.id, rows.largest_limit_id());  // never a removed limit's id
    if (limit.id == std::numeric_limits<std::int64_t>::max()) throw CommandError("no id is left for a new limit");
    ++limit.id;
    if (c.book) {
      const NodeRef book = m.find(*c.book, rows);
      if (!is_book(kind_of(book))) {
        throw CommandError("'" + text_of(*c.book) + "' is " + std::string(kind_name(kind_of(book))) + ", not a book");
      }
      limit.book_id = m.store_.id(book);
    }
    limit.measure = c.measure;
    if (c.curve && c.measure != "kr01") throw CommandError("only a kr01 limit names a curve and idx, not " + text_of(c.measure));
    if (c.curve) limit.ir_curve_id = m.store_.id(m.find_kind(*c.curve, Kind::ir_curve, rows));
    limit.idx = c.idx;
    limit.lower = c.lower.value_or(-std::numeric_limits<double>::infinity());
    limit.upper = c.upper.value_or(std::numeric_limits<double>::infinity());
    if (const std::string error = limit_error(m.store_, limit); !error.empty()) throw CommandError(error);
    return {LimitRow{limit}, Prepared::NewLimit{limit}};
  }

  Prepared operator()(const RemoveLimit& r) const {
    const std::vector<RiskLimit>& limits = m.store_.limits;
    const auto it = std::find_if(limits.begin(), limits.end(), [&](const RiskLimit& l) { return l.id == r.id; });
    if (it == limits.end()) throw CommandError("no risk limit with id " + std::to_string(r.id) + " (see `limits`)");
    return {LimitRemoval{r.id}, Prepared::DroppedLimit{r.id}};
  }

  Prepared operator()(const RemoveTrade& r) const {
    const NodeRef t = m.find_trade(r.trade, rows);
    return {TradeRemoval{kind_of(t), m.store_.id(t)}, Prepared::Removal{t}};
  }

  Prepared operator()(const RowsChanged& c) const {
    Prepared::Reread reread;
    for (const RowsChanged::Row& row : c.rows) {
      if (row.table == "risk_limit") {
        reread.limits = true;
      } else if (row.table == "calendar_holiday") {
        reread.holidays.push_back(row.id);
      } else if (row.table == "bond_convention") {
        reread.conventions = true;
      } else if (const std::optional<Kind> kind = row_by_row(row.table)) {
        reread.nodes.emplace_back(*kind, row.id);
      } else {
        reread.whole = true;  // bonds, books, memberships: what they mean depends on the rest
      }
    }
    return {RowsWritten{}, std::move(reread)};
  }
};

// Applies each kind of prepared step to the store and the graph.
struct LiveModel::Commit {
  LiveModel& m;
  const Write& write;
  const StoredRows& rows;

  Applied operator()(std::monostate) const { return {write}; }

  // Puts trade node `t`'s static data in the store.
  void store(NodeRef t, const Prepared::Trade& trade) const {
    if (const auto* o = std::get_if<OutrightTrade>(&trade)) {
      m.store_.outright_trades[t.index] = *o;
    } else {
      m.store_.repo_trades[t.index] = std::get<RepoTrade>(trade);
    }
  }

  Applied operator()(Prepared::Curve& c) const {
    m.store_.curves[c.curve.index].points = std::move(c.points);
    m.graph_.mark_dirty(c.curve);
    return {write};
  }

  Applied operator()(const Prepared::Dates& d) const {
    std::vector<NodeRef> marked;
    for (NodeIndex i : d.calendars) {
      m.store_.calendars[i].today = d.today;
      marked.push_back(ref(Kind::calendar, i));
    }
    m.graph_.mark_dirty(marked);
    return {write};
  }

  Applied operator()(const Prepared::Amendment& a) const {
    const NodeRef t = a.trade;
    hold_ladder_part(m.store_, t);  // before the row changes
    store(t, a.amended);
    // A FAILED trade's row holds a value the store could not take: read the
    // amended row back whole, so that it is valid again only if nothing bad is left.
    if (a.was_failed) rows.read_back(m.store_, t);
    link_trade(m.store_, m.graph_, t);
    m.graph_.mark_dirty(t);
    Applied applied{write};
    if (m.store_.state(t).error != 0) applied.still_failed = m.store_.error(t);
    return applied;
  }

  Applied operator()(const Prepared::Booking& b) const {
    const NodeRef t = add_trade_node(m.store_, m.graph_, b.kind, b.id);
    store(t, b.trade);
    link_trade(m.store_, m.graph_, t);
    if (b.book) join_book(m.store_, m.graph_, *b.book, t);
    return {write};
  }

  // A quote moves its bond's figures, read by its outright trades (cs01)
  // and on by their books, not its repos: those recalculate only if the
  // quote fails the bond or mends it (recalculate() sees to that).
  Applied operator()(const Prepared::Quotes& q) const {
    const BondQuotes& quotes = std::get<BondQuotes>(write);
    std::vector<NodeRef> marked;
    for (std::size_t k = 0; k < q.bonds.size(); ++k) {
      m.store_.set_quote(q.bonds[k], quotes.quotes[k].second);
      marked.push_back(ref(Kind::bond, q.bonds[k]));
      m.quoted_.emplace_back(q.bonds[k], Status{m.store_.state(marked.back()).status});
    }
    m.graph_.mark_dirty_through(marked, static_cast<engine::TypeId>(Kind::outright_trade));
    return {write};
  }

  // A limit's id comes after every other's (SetLimit): the limits stay in id order.
  Applied operator()(Prepared::NewLimit& l) const {
    m.limits_changed_.push_back(l.limit.id);
    m.store_.limits.push_back(std::move(l.limit));
    return {write};
  }

  Applied operator()(const Prepared::DroppedLimit& d) const {
    std::vector<RiskLimit>& limits = m.store_.limits;
    const auto at = std::lower_bound(limits.begin(), limits.end(), d.id,
                                     [](const RiskLimit& l, std::int64_t id) { return l.id < id; });
    if (at != limits.end() && at->id == d.id) limits.erase(at);
    m.limits_changed_.push_back(d.id);
    return {write};
  }

  Applied operator()(const Prepared::Removal& r) const {
    Applied applied{write};
    applied.books = detach_trade(m.store_, m.graph_, r.trade);
    m.removed_.push_back(r.trade);
    return applied;
  }

  Applied operator()(const Prepared::Reread& r) const {
    const bool whole = r.whole ||
                       !std::all_of(r.nodes.begin(), r.nodes.end(),
                                    [&](const auto& node) { return m.reread(node.first, node.second, rows); }) ||
                       !std::all_of(r.holidays.begin(), r.holidays.end(),
                                    [&](std::int64_t id) { return m.reread_holidays(id, rows); }) ||
                       (r.conventions && !m.reread_conventions(rows));
    if (whole) {
      m.reload(rows.load());
    } else if (r.limits) {
      m.store_.limits = rows.limits();
      ++m.store_.limits_version;
    }
    return {write};
  }
};

LiveModel::LiveModel(Store store, const engine::SchedulerOptions& options, std::size_t grain)
    : store_(std::move(store)), scheduler_(engine::make_scheduler(options)), grain_(grain) {
  build_graph(store_, graph_);
}

LiveModel::Prepared LiveModel::prepare(const Change& change, const StoredRows& rows) const {
  return std::visit(Prepare{*this, rows}, change);
}

Applied LiveModel::commit(Prepared prepared, const StoredRows& rows) {
  if (completing_) throw std::logic_error("commit: the last recalculation's rest has not run (complete())");
  Applied applied = std::visit(Commit{*this, prepared.write, rows}, prepared.step);
  if (!std::holds_alternative<RowsWritten>(applied.write)) ++events_;
  return applied;
}

bool LiveModel::reread(Kind kind, std::int64_t id, const StoredRows& rows) {
  const NodeRef* found = store_.by_id.find(id);
  NodeRef node;
  if (found && kind_of(*found) == kind && store_.state(*found).status != Status::removed) {
    node = *found;
  } else if (is_trade(kind) && !found) {
    node = add_trade_node(store_, graph_, kind, id);  // a trade booked by another program
  } else {
    return false;  // an id reused across tables, a new calendar or curve, ...
  }
  if (found && is_trade(kind)) hold_ladder_part(store_, node);
  if (!rows.read_back(store_, node)) return false;  // a deleted row: its books' memberships decide, so reload
  if (is_trade(kind)) link_trade(store_, graph_, node);
  graph_.mark_dirty(node);
  return true;
}

bool LiveModel::reread_holidays(std::int64_t id, const StoredRows& rows) {
  const NodeRef* found = store_.by_id.find(id);
  if (!found || kind_of(*found) != Kind::calendar || store_.state(*found).error != 0) return false;
  std::optional<BusinessDays> days = rows.business_days(id);
  if (!days) return false;
  const NodeIndex calendar = found->index;
  store_.calendars[calendar].business_days = std::move(*days);
  mark_convention_bonds([&](const Bond& b) { return b.calendar == calendar; });
  return true;
}

bool LiveModel::reread_conventions(const StoredRows& rows) {
  std::vector<StoredConvention> now = rows.conventions();
  std::vector<StoredConvention>& was = store_.conventions;
  if (now.size() != was.size()) return false;
  std::vector<bool> changed(now.size());
  for (std::size_t k = 0; k < now.size(); ++k) {
    if (now[k].name != was[k].name || !now[k].parsed.convention || !was[k].parsed.convention) return false;
    changed[k] = *now[k].parsed.convention != *was[k].parsed.convention;
  }
  was = std::move(now);
  mark_convention_bonds([&](const Bond& b) { return changed[b.convention]; });
  return true;
}

template <class Uses>
void LiveModel::mark_convention_bonds(Uses uses) {
  std::vector<NodeRef> marked;
  for (NodeIndex i = 0; i < store_.bonds.size(); ++i) {
    const Bond& b = store_.bonds[i];
    if (b.convention != kNoConvention && uses(b)) {
      marked.push_back(ref(Kind::bond, i));
      store_.quote_yield_memos[i] = {};  // its flows may have moved with its settlement as it was
      store_.coupon_schedules.mark_stale(i);
    }
  }
  graph_.mark_dirty(marked);
}

void LiveModel::reload(Store store) {
  store.with_key_rates = store_.with_key_rates;
  store_ = std::move(store);
  graph_ = engine::Graph();
  build_graph(store_, graph_);
  removed_.clear();
  limits_changed_.clear();  // whole: every limit is checked
  quoted_.clear();  // the new graph's nodes are all dirty
  completing_ = false;  // a rest awaiting: the new graph calculates every node
  reloaded_ = true;
}

engine::FlushStats LiveModel::flush_all() {
  graph_.mark_all_dirty();
  // Every figure solved afresh, the quote yields too: what a full flush measures (the same bits either way).
  std::ranges::fill(store_.quote_yield_memos, QuoteYieldMemo{});
  return flush();
}

engine::FlushStats LiveModel::flush(engine::Pass pass) {
  const engine::FlushStats stats = engine::flush(graph_, *scheduler_, grain_, pass);
  if (pass != engine::Pass::first) store_.held_parts.clear();  // the flush took them away (see hold_ladder_part)
  return stats;
}

void LiveModel::list_dirty(std::array<std::vector<NodeIndex>, kKindCount>& into) {
  for (std::size_t k = 0; k < kKindCount; ++k) {
    const auto dirty = graph_.dirty(static_cast<engine::TypeId>(k));
    into[k].insert(into[k].end(), dirty.begin(), dirty.end());
  }
}

void LiveModel::count_tiers(const engine::FlushStats& stats) {
  for (const engine::TierStats& t : stats.tiers) {
    if (tier_seconds_.size() <= t.tier) tier_seconds_.resize(t.tier + 1);
    tier_seconds_[t.tier] += t.seconds;
  }
}

void LiveModel::record_latency(double seconds) {
  if (latencies_us_.size() < kLatencyWindow) {
    latencies_us_.push_back(seconds * 1e6);
  } else {
    latencies_us_[recalculations_ % kLatencyWindow] = seconds * 1e6;
  }
  latency_histogram_.add(seconds);
  ++recalculations_;
}

LiveModel::Recalculation LiveModel::complete() {
  Recalculation again;
  if (!completing_) return again;
  completing_ = false;
  const base::Stopwatch watch;
  count_tiers(flush(engine::Pass::rest));
  std::vector<NodeRef> failed;
  for (NodeIndex i : first_bonds_) {
    if (store_.bond_figures[i].failure != AnalyticsFailure::none) failed.push_back(ref(Kind::bond, i));
  }
  for (NodeIndex k : first_books_) {  // a trade's cs01 overflowed: its book's is infinite
    if (std::isfinite(store_.outright_books[k].cs01)) continue;
    for (NodeIndex m : store_.outright_books[k].members) {
      if (std::isinf(store_.outright_cs01[m])) failed.push_back(ref(Kind::bond, store_.outright_trades[m].bond));
    }
  }
  if (!failed.empty()) {
    graph_.mark_dirty(failed);
    list_dirty(again.changed);
    for (std::size_t k = 0; k < kKindCount; ++k) again.nodes[k] = again.changed[k].size();
    count_tiers(flush());
  }
  again.seconds = watch.seconds();
  record_latency(first_seconds_ + again.seconds);
  return again;
}

std::vector<std::pair<std::string, double>> LiveModel::tier_seconds() const {
  std::vector<std::pair<std::string, double>> out;
  for (unsigned tier = 0; tier < tier_seconds_.size(); ++tier) {
    if (tier_seconds_[tier] != 0) out.emplace_back(graph_.tier_types(tier, "+"), tier_seconds_[tier]);
  }
  return out;
}

LiveModel::Recalculation LiveModel::recalculate(bool values_first) {
  if (completing_) throw std::logic_error("recalculate: the last recalculation's rest has not run (complete())");
  Recalculation r;
  for (NodeRef t : removed_) r.changed[t.type].push_back(t.index);
  removed_.clear();
  r.limits = std::exchange(limits_changed_, {});
  r.whole = std::exchange(reloaded_, false);
  if (graph_.dirty_count() == 0 && quoted_.empty()) return r;
  const base::Stopwatch watch;
  std::array<std::vector<NodeIndex>, kKindCount> recalculated;
  const auto flush_dirty = [&](engine::Pass pass) {
    list_dirty(recalculated);
    count_tiers(flush(pass));
  };
  // Without key rates and quote analytics there is no rest: one pass.
  if (values_first && quoted_.empty() && (store_.with_key_rates || store_.with_quote_analytics)) {
    flush_dirty(engine::Pass::first);
    completing_ = true;
    // What the rest may yet fail: the bonds the first pass left OK, and the outright books.
    first_bonds_.clear();
    for (NodeIndex i : recalculated[static_cast<std::size_t>(Kind::bond)]) {
      if (store_.state(ref(Kind::bond, i)).status == Status::ok) first_bonds_.push_back(i);
    }
    first_books_ = recalculated[static_cast<std::size_t>(Kind::outright_book)];
  } else if (quoted_.empty()) {
    flush_dirty(engine::Pass::whole);
  } else {
    std::vector<NodeIndex>& bonds = recalculated[static_cast<std::size_t>(Kind::bond)];
    for (const auto& [bond, before] : quoted_) bonds.push_back(bond);  // held: not listed as dirty
    flush_dirty(engine::Pass::whole);
    std::vector<NodeRef> moved;  // bonds a quote failed or mended: everything on them, again
    for (const auto& [bond, before] : quoted_) {
      if (store_.state(ref(Kind::bond, bond)).status != before) moved.push_back(ref(Kind::bond, bond));
    }
    quoted_.clear();
    if (!moved.empty()) {
      graph_.mark_dirty(moved);
      flush_dirty(engine::Pass::whole);
    }
    // Listed once each, in index order, as a single flush lists them.
    for (std::vector<NodeIndex>& nodes : recalculated) {
      // std::unique, not ranges::unique: clang 14 rejects the latter's subrange.
      std::sort(nodes.begin(), nodes.end());
      nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    }
  }
  for (std::size_t k = 0; k < kKindCount; ++k) {
    r.nodes[k] = recalculated[k].size();
    if (r.changed[k].empty()) {
      r.changed[k] = std::move(recalculated[k]);
    } else {  // after the removed trades
      r.changed[k].insert(r.changed[k].end(), recalculated[k].begin(), recalculated[k].end());
    }
  }
  r.seconds = watch.seconds();
  if (completing_) {
    first_seconds_ = r.seconds;
  } else {
    record_latency(r.seconds);
  }
  return r;
}

NodeRef LiveModel::find(std::string_view key, const StoredRows& rows) const {
  if (const auto id = as_id(key)) {
    const NodeRef* n = store_.by_id.find(*id);
    if (n && store_.state(*n).status != Status::removed) return *n;
  }
  if (const auto it = store_.names.find(std::string(key)); it != store_.names.end()) return it->second;
  if (const auto id = rows.id_by_name(key)) {
    const NodeRef* n = store_.by_id.find(*id);
    if (n && store_.state(*n).status != Status::removed) return *n;
  }
  throw CommandError("no calendar, curve, bond, trade or book has the id or name '" + text_of(key) + "'");
}

NodeRef LiveModel::find_kind(std::string_view key, Kind kind, const StoredRows& rows) const {
  const NodeRef n = find(key, rows);
  if (kind_of(n) != kind) {
    throw CommandError("'" + text_of(key) + "' is " + std::string(kind_name(kind_of(n))) + " " +
                       std::to_string(store_.id(n)) + ", not " + std::string(kind_name(kind)));
  }
  return n;
}

NodeRef LiveModel::find_trade(std::string_view key, const StoredRows& rows) const {
  const NodeRef n = find(key, rows);
  if (!is_trade(kind_of(n))) {
    throw CommandError("'" + text_of(key) + "' is " + std::string(kind_name(kind_of(n))) + ", not a trade");
  }
  return n;
}

}  // namespace bond_risk
