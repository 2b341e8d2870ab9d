#include "bond_risk/live/live_model.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <variant>

#include "bond_risk/model/calculations.h"
#include "bond_risk/cli/flush_report.h"
#include "bond_risk/db/loader.h"
#include "bond_risk/db/result_writer.h"
#include "bond_risk/model/published_values.h"
#include "bond_risk/model/reason.h"

namespace bond_risk {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  return buf;
}

namespace {

using SqlValue = std::variant<std::int64_t, double, std::string>;
// Column -> value of an input row, as a command sets it.
using Row = std::map<std::string, SqlValue>;

bool is_id(const std::string& s) {
  return !s.empty() && s.size() < 19 && s.find_first_not_of("0123456789") == std::string::npos;
}

std::int64_t whole_number(const std::string& text, const std::string& what) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    throw CommandError(what + " '" + text + "' is not a whole number");
  }
  return v;
}

double number(const std::string& text, const std::string& what) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
    throw CommandError(what + " '" + text + "' is not a finite number");
  }
  return v;
}

Date date(const std::string& text, const std::string& what) {
  const auto d = parse_date(text);
  if (!d) throw CommandError(what + " '" + text + "' is not a YYYY-MM-DD date");
  return *d;
}

int side(const std::string& text) {
  if (text == "BUY") return 1;
  if (text == "SELL") return -1;
  throw CommandError("buy_sell '" + text + "' is not BUY or SELL");
}

void need_words(const std::vector<std::string>& w, std::size_t n, const char* usage) {
  if (w.size() < n) throw CommandError(std::string("usage: ") + usage);
}

// field=value words from w[first] on.
std::map<std::string, std::string> fields(const std::vector<std::string>& w, std::size_t first) {
  std::map<std::string, std::string> out;
  for (std::size_t i = first; i < w.size(); ++i) {
    const auto eq = w[i].find('=');
    if (eq == std::string::npos || eq == 0) throw CommandError("'" + w[i] + "' is not field=value");
    if (!out.emplace(w[i].substr(0, eq), w[i].substr(eq + 1)).second) {
      throw CommandError("field " + w[i].substr(0, eq) + " is given twice");
    }
  }
  return out;
}

void bind(base::Statement& st, int param, const SqlValue& v) {
  std::visit([&](const auto& x) {
    if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>) {
      st.bind(param, std::string_view(x));
    } else {
      st.bind(param, x);
    }
  }, v);
}

// Writes `row` to the input table: an UPDATE of row `id`, or an INSERT. A
// row the database refuses (a duplicate name, a trigger) is a CommandError.
void write_row(base::Database* db, const std::string& table, std::int64_t id, const Row& row, bool insert) {
  if (!db || row.empty()) return;
  std::string sql;
  if (insert) {
    std::string columns = "id", params = "?";
    for (const auto& [col, v] : row) columns += ", " + col, params += ", ?";
    sql = "INSERT INTO " + table + " (" + columns + ") VALUES (" + params + ")";
  } else {
    std::string sets;
    for (const auto& [col, v] : row) sets += (sets.empty() ? "" : ", ") + col + " = ?";
    sql = "UPDATE " + table + " SET " + sets + " WHERE id = ?";
  }
  try {
    base::Statement& st = db->cached(sql);
    int p = 1;
    if (insert) st.bind(p++, id);
    for (const auto& [col, v] : row) bind(st, p++, v);
    if (!insert) st.bind(p, id);
    st.run();
  } catch (const std::runtime_error& e) {
    throw CommandError(e.what());
  }
}

void run_sql(base::Database* db, const std::string& sql, std::initializer_list<SqlValue> args) {
  if (!db) return;
  base::Statement& st = db->cached(sql);
  int p = 1;
  for (const SqlValue& v : args) bind(st, p++, v);
  st.run();
}

}  // namespace

LiveModel::LiveModel(Store store, const engine::SchedulerOptions& options, std::size_t grain)
    : store_(std::move(store)), scheduler_(engine::make_scheduler(options)), grain_(grain) {
  build_graph(store_, graph_);
}

LiveModel::Recalculation LiveModel::reload(Store store, base::Database* db) {
  store_ = std::move(store);
  graph_ = engine::Graph();
  build_graph(store_, graph_);
  return recalculate(db);
}

engine::FlushStats LiveModel::flush_all() {
  graph_.mark_all_dirty();
  return engine::flush(graph_, *scheduler_, grain_);
}

bool LiveModel::changes_state(const std::string& c) {
  return c == "bump-curve" || c == "set-rate" || c == "roll-date" || c == "amend-trade" || c == "add-outright" ||
         c == "add-repo" || c == "remove-trade";
}

std::string LiveModel::execute(const std::vector<std::string>& w, base::Database* db) {
  if (w.empty()) throw CommandError("empty command");
  std::string reply = dispatch(w, db);
  if (changes_state(w[0])) ++events_;
  return reply;
}

std::string LiveModel::dispatch(const std::vector<std::string>& w, base::Database* db) {
  const std::string& c = w[0];
  if (c == "bump-curve") return bump_curve(w, db);
  if (c == "set-rate") return set_rate(w, db);
  if (c == "roll-date") return roll_date(w, db);
  if (c == "amend-trade") return amend_trade(w, db);
  if (c == "add-outright") return add_trade(Kind::outright_trade, w, db);
  if (c == "add-repo") return add_trade(Kind::repo_trade, w, db);
  if (c == "remove-trade") return remove_trade(w, db);
  if (c == "get") return get(w, db);
  if (c == "book") return book(w, db);
  if (c == "stats") return stats();
  throw CommandError("unknown command '" + c.substr(0, 40) +
                     "' (commands: bump-curve, set-rate, roll-date, amend-trade, add-outright, add-repo, "
                     "remove-trade, get, book, stats, reload, shutdown)");
}

NodeRef LiveModel::find(const std::string& key, base::Database* db) const {
  if (is_id(key)) {
    const NodeRef* n = store_.by_id.find(std::stoll(key));
    if (n && store_.state(*n).status != Status::removed) return *n;
  }
  if (const auto it = store_.names.find(key); it != store_.names.end()) return it->second;
  if (db) {
    for (Kind k : {Kind::bond, Kind::outright_trade, Kind::repo_trade}) {
      base::Statement st = db->prepare("SELECT id FROM " + std::string(kind_name(k)) + " WHERE name = ?");
      st.bind(1, std::string_view(key));
      if (st.step()) return find(std::to_string(st.integer(0)), nullptr);
    }
  }
  throw CommandError("no node with id or name '" + key.substr(0, 60) + "'");
}

NodeRef LiveModel::find_kind(const std::string& key, Kind kind, base::Database* db) const {
  const NodeRef n = find(key, db);
  if (kind_of(n) != kind) {
    throw CommandError("'" + key + "' is " + std::string(kind_name(kind_of(n))) + " " + std::to_string(store_.id(n)) +
                       ", not " + std::string(kind_name(kind)));
  }
  return n;
}

NodeRef LiveModel::find_trade(const std::string& key, base::Database* db) const {
  const NodeRef n = find(key, db);
  if (kind_of(n) != Kind::outright_trade && kind_of(n) != Kind::repo_trade) {
    throw CommandError("'" + key + "' is " + std::string(kind_name(kind_of(n))) + ", not a trade");
  }
  return n;
}

void LiveModel::write_curve(NodeIndex c, base::Database* db) {
  const IrCurve& curve = store_.curves[c];
  for (std::size_t k = 0; k < curve.points.size(); ++k) {
    run_sql(db, "UPDATE ir_curve_input_rate SET value = ? WHERE ir_curve_id = ? AND idx = ?",
            {curve.points[k].value, store_.id(ref(Kind::ir_curve, c)), curve.point_idx[k]});
  }
  graph_.mark_dirty(ref(Kind::ir_curve, c));
}

std::string LiveModel::bump_curve(const std::vector<std::string>& w, base::Database* db) {
  need_words(w, 3, "bump-curve CURVE BP");
  const NodeRef c = find_kind(w[1], Kind::ir_curve, db);
  const double bp = number(w[2], "BP");
  IrCurve& curve = store_.curves[c.index];
  std::vector<CurvePoint> bumped = curve.points;
  for (CurvePoint& p : bumped) p.value += bp * kBump;
  if (!check_curve_points(bumped).empty() && store_.state(c).error == 0) {
    throw CommandError("bumping " + w[1] + " by " + w[2] + "bp makes it invalid: " + check_curve_points(bumped));
  }
  curve.points = std::move(bumped);
  write_curve(c.index, db);
  return "\"curve\":" + std::to_string(store_.id(c));
}

std::string LiveModel::set_rate(const std::vector<std::string>& w, base::Database* db) {
  need_words(w, 4, "set-rate CURVE IDX VALUE");
  const NodeRef c = find_kind(w[1], Kind::ir_curve, db);
  const std::int64_t idx = whole_number(w[2], "IDX");
  const double value = number(w[3], "VALUE");
  IrCurve& curve = store_.curves[c.index];
  const auto at = std::find(curve.point_idx.begin(), curve.point_idx.end(), idx);
  if (at == curve.point_idx.end()) throw CommandError("ir_curve " + w[1] + " has no input rate with idx " + w[2]);
  curve.points[static_cast<std::size_t>(at - curve.point_idx.begin())].value = value;
  write_curve(c.index, db);
  return "\"curve\":" + std::to_string(store_.id(c));
}

std::string LiveModel::roll_date(const std::vector<std::string>& w, base::Database* db) {
  need_words(w, 2, "roll-date YYYY-MM-DD [CALENDAR]");
  const Date today = date(w[1], "date");
  std::vector<NodeIndex> calendars;
  if (w.size() > 2) {
    calendars.push_back(find_kind(w[2], Kind::calendar, db).index);
  } else {
    for (NodeIndex i = 0; i < store_.calendars.size(); ++i) calendars.push_back(i);
  }
  for (NodeIndex i : calendars) {
    store_.calendars[i].today = today;
    run_sql(db, "UPDATE calendar SET today = ? WHERE id = ?", {w[1], store_.id(ref(Kind::calendar, i))});
    graph_.mark_dirty(ref(Kind::calendar, i));
  }
  return "\"calendars\":" + std::to_string(calendars.size());
}

namespace {

// Applies field=value pairs to a trade's static data and to the row that
// persists them; throws CommandError on any unknown field or bad value.
struct TradeFields {
  const Store& store;
  std::function<NodeIndex(const std::string&, Kind)> resolve;

  void outright(OutrightTrade& t, const std::map<std::string, std::string>& f, Row& row) const {
    for (const auto& [k, v] : f) {
      if (k == "quantity") row[k] = t.quantity = whole_number(v, k);
      else if (k == "trade_price") row[k] = t.trade_price = number(v, k);
      else if (k == "buy_sell") t.dir = side(v), row[k] = v;
      else if (k == "bond_id") t.bond = resolve(v, Kind::bond), row[k] = whole_number(v, k);
      else if (k == "trade_date") date(v, k), row[k] = v;
      else if (k == "name") row[k] = v;
      else throw CommandError("unknown outright_trade field '" + k + "' (quantity, trade_price, buy_sell, bond_id, trade_date, name)");
    }
  }

  void repo(RepoTrade& t, const std::map<std::string, std::string>& f, Row& row) const {
    for (const auto& [k, v] : f) {
      if (k == "notional") row[k] = t.notional = whole_number(v, k);
      else if (k == "start_cash") row[k] = t.start_cash = number(v, k);
      else if (k == "rate") row[k] = t.rate = number(v, k);
      else if (k == "end_date") t.end = date(v, k), row[k] = v;
      else if (k == "start_date") date(v, k), row[k] = v;
      else if (k == "buy_sell") side(v), row[k] = v;
      else if (k == "cash_ccy" || k == "name") row[k] = v;
      else if (k == "bond_id") t.bond = resolve(v, Kind::bond), row[k] = whole_number(v, k);
      else if (k == "calendar_id") t.calendar = resolve(v, Kind::calendar), row[k] = whole_number(v, k);
      else if (k == "ir_curve_id") t.curve = resolve(v, Kind::ir_curve), row[k] = whole_number(v, k);
      else throw CommandError("unknown repo_trade field '" + k + "' (notional, start_cash, rate, start_date, end_date, "
                              "buy_sell, cash_ccy, bond_id, calendar_id, ir_curve_id, name)");
    }
  }
};

std::vector<NodeRef> inputs_of(const OutrightTrade& t) { return {ref(Kind::bond, t.bond)}; }
std::vector<NodeRef> inputs_of(const RepoTrade& t) {
  return {ref(Kind::calendar, t.calendar), ref(Kind::bond, t.bond), ref(Kind::ir_curve, t.curve)};
}

}  // namespace

// Replaces the publishers of `node` with `inputs`.
void LiveModel::relink(NodeRef node, const std::vector<NodeRef>& inputs) {
  const std::vector<NodeRef> old(graph_.publishers(node).begin(), graph_.publishers(node).end());
  for (NodeRef p : old) graph_.unsubscribe(node, p);
  for (NodeRef p : inputs) graph_.subscribe(node, p);
}

std::string LiveModel::amend_trade(const std::vector<std::string>& w, base::Database* db) {
  need_words(w, 3, "amend-trade ID field=value...");
  const NodeRef t = find_trade(w[1], db);
  const bool failed = store_.state(t).error != 0;
  if (failed && !db) {
    throw CommandError(std::string(kind_name(kind_of(t))) + " " + w[1] + " is FAILED (" + store_.error(t) +
                       "); only an engine with its database can amend it");
  }
  const auto f = fields(w, 2);
  const TradeFields apply{store_, [&](const std::string& v, Kind k) { return find_kind(v, k, nullptr).index; }};
  Row row;
  if (kind_of(t) == Kind::outright_trade) {
    OutrightTrade amended = store_.outright_trades[t.index];
    apply.outright(amended, f, row);
    write_row(db, "outright_trade", store_.id(t), row, false);
    store_.outright_trades[t.index] = amended;
  } else {
    RepoTrade amended = store_.repo_trades[t.index];
    apply.repo(amended, f, row);
    if (db && f.count("end_date") + f.count("start_date")) {
      base::Statement st = db->prepare("SELECT start_date, end_date FROM repo_trade WHERE id = ?");
      st.bind(1, store_.id(t));
      st.step();
      const std::string start = f.count("start_date") ? f.at("start_date") : std::string(st.text(0));
      const std::string end = f.count("end_date") ? f.at("end_date") : std::string(st.text(1));
      if (end < start) throw CommandError("end_date " + end + " is before start_date " + start);
    }
    write_row(db, "repo_trade", store_.id(t), row, false);
    store_.repo_trades[t.index] = amended;
  }
  // A FAILED trade's row holds a value the store could not take: read the
  // amended row back whole, so that it is valid again only if nothing bad is left.
  if (failed) reread(*db, store_, t);
  link_trade(t);
  graph_.mark_dirty(t);
  std::string reply = "\"id\":" + std::to_string(store_.id(t));
  if (store_.state(t).error != 0) reply += ",\"still_failed\":" + json_string(store_.error(t));
  return reply;
}

std::string LiveModel::add_trade(Kind kind, const std::vector<std::string>& w, base::Database* db) {
  const bool outright = kind == Kind::outright_trade;
  auto f = fields(w, 1);
  std::optional<NodeRef> book;
  if (const auto it = f.find("book"); it != f.end()) {
    book = find_kind(it->second, outright ? Kind::outright_book : Kind::repo_book, db);
    f.erase(it);
  }
  const std::vector<std::string> required =
      outright ? std::vector<std::string>{"bond_id", "trade_price", "quantity", "buy_sell"}
               : std::vector<std::string>{"bond_id", "end_date", "notional", "start_cash", "rate", "buy_sell", "cash_ccy"};
  for (const std::string& r : required) {
    if (!f.count(r)) throw CommandError(std::string(w[0]) + " needs " + r + "=...");
  }
  const TradeFields apply{store_, [&](const std::string& v, Kind k) { return find_kind(v, k, nullptr).index; }};
  const std::int64_t id = store_.max_id + 1;
  const std::string prefix = outright ? "OT_" : "RT_";
  Row row{{"name", prefix + std::to_string(id)}};
  OutrightTrade o;
  RepoTrade r;
  if (outright) {
    apply.outright(o, f, row);
    if (!row.count("trade_date")) row["trade_date"] = format_date(store_.calendars.at(store_.bonds[o.bond].calendar).today);
  } else {
    const Bond& b = store_.bonds.at(find_kind(f.at("bond_id"), Kind::bond, nullptr).index);
    r.calendar = b.calendar;
    r.curve = b.curve;
    row["calendar_id"] = store_.id(ref(Kind::calendar, b.calendar));
    row["ir_curve_id"] = store_.id(ref(Kind::ir_curve, b.curve));
    row["start_date"] = format_date(store_.calendars.at(b.calendar).today);
    apply.repo(r, f, row);
    if (std::get<std::string>(row["end_date"]) < std::get<std::string>(row["start_date"])) {
      throw CommandError("end_date is before start_date " + std::get<std::string>(row["start_date"]));
    }
  }
  write_row(db, std::string(kind_name(kind)), id, row, true);
  const NodeIndex i = store_.add(kind, id);
  if (outright) {
    store_.outright_trades.push_back(o);
    store_.outright_values.emplace_back();
  } else {
    store_.repo_trades.push_back(r);
    store_.repo_values.emplace_back();
  }
  const NodeRef t = ref(kind, graph_.add_nodes(static_cast<engine::TypeId>(kind)));
  relink(t, outright ? inputs_of(o) : inputs_of(r));
  if (book) {
    run_sql(db, "INSERT INTO " + std::string(kind_name(kind_of(*book))) + "_trade (book_id, trade_id) VALUES (?, ?)",
            {store_.id(*book), id});
    (outright ? store_.outright_books[book->index].members : store_.repo_books[book->index].members).push_back(i);
    graph_.subscribe(*book, t);
    graph_.mark_dirty(*book);
  }
  return "\"id\":" + std::to_string(id);
}

std::string LiveModel::remove_trade(const std::vector<std::string>& w, base::Database* db) {
  need_words(w, 2, "remove-trade ID");
  const NodeRef t = find_trade(w[1], db);
  const std::string table(kind_name(kind_of(t)));
  const std::int64_t id = store_.id(t);
  const std::size_t books = detach(t);
  run_sql(db, "DELETE FROM " + table + " WHERE id = ?", {id});
  run_sql(db, "DELETE FROM " + std::string(kind_of(t) == Kind::outright_trade ? "outright" : "repo") +
                  "_book_trade WHERE trade_id = ?", {id});
  run_sql(db, "DELETE FROM " + table + "_result WHERE id = ?", {id});
  return "\"id\":" + std::to_string(id) + ",\"books\":" + std::to_string(books);
}

// Takes a trade out of the graph and its books; returns how many books held it.
std::size_t LiveModel::detach(NodeRef t) {
  relink(t, {});
  const std::vector<NodeRef> books(graph_.subscribers(t).begin(), graph_.subscribers(t).end());
  for (NodeRef b : books) {
    auto& members = kind_of(b) == Kind::outright_book ? store_.outright_books[b.index].members
                                                     : store_.repo_books[b.index].members;
    members.erase(std::remove(members.begin(), members.end(), t.index), members.end());
    graph_.unsubscribe(b, t);
    graph_.mark_dirty(b);
  }
  store_.state(t).status = Status::removed;
  return books.size();
}

// Subscribes a trade to its inputs, unless its static data is invalid.
void LiveModel::link_trade(NodeRef t) {
  if (store_.state(t).error != 0) return relink(t, {});
  if (kind_of(t) == Kind::outright_trade) return relink(t, inputs_of(store_.outright_trades[t.index]));
  relink(t, inputs_of(store_.repo_trades[t.index]));
}

LiveModel::Recalculation LiveModel::apply_external(const std::vector<ChangeLog::Change>& changes, base::Database& db) {
  for (const ChangeLog::Change& c : changes) {
    const bool trade = c.table == "outright_trade" || c.table == "repo_trade";
    if (!trade && c.table != "calendar" && c.table != "ir_curve_input_rate") return reload(load(db).store, &db);
    const Kind kind = c.table == "outright_trade" ? Kind::outright_trade
                      : c.table == "repo_trade"   ? Kind::repo_trade
                      : c.table == "calendar"     ? Kind::calendar
                                                  : Kind::ir_curve;
    const NodeRef* found = store_.by_id.find(c.id);
    NodeRef node;
    if (found && kind_of(*found) == kind && store_.state(*found).status != Status::removed) {
      node = *found;
    } else if (trade && !found) {  // a trade booked by another program
      node = ref(kind, store_.add(kind, c.id));
      if (kind == Kind::outright_trade) {
        store_.outright_trades.emplace_back();
        store_.outright_values.emplace_back();
      } else {
        store_.repo_trades.emplace_back();
        store_.repo_values.emplace_back();
      }
      graph_.add_nodes(static_cast<engine::TypeId>(kind));
    } else {
      return reload(load(db).store, &db);  // an id reused across tables, a new calendar or curve, ...
    }
    if (!reread(db, store_, node)) {
      if (!trade) return reload(load(db).store, &db);
      detach(node);
      continue;
    }
    if (trade) link_trade(node);
    graph_.mark_dirty(node);
  }
  return recalculate(&db);
}

namespace {

std::string values_json(const Store& s, NodeRef n) {
  switch (kind_of(n)) {
    case Kind::calendar: return ",\"today\":" + json_string(format_date(s.calendars[n.index].today));
    case Kind::ir_curve: return ",\"points\":" + std::to_string(s.curves[n.index].points.size());
    default: break;
  }
  std::string out;
  const std::span<const std::string_view> names = value_names(kind_of(n));
  const PublishedValues values = published_values(s, n);
  for (std::size_t k = 0; k < values.count; ++k) out += ",\"" + std::string(names[k]) + "\":" + json_number(values.values[k]);
  if (kind_of(n) == Kind::outright_book) out += ",\"members\":" + std::to_string(s.outright_books[n.index].members.size());
  if (kind_of(n) == Kind::repo_book) out += ",\"members\":" + std::to_string(s.repo_books[n.index].members.size());
  return out;
}

}  // namespace

std::string LiveModel::get(const std::vector<std::string>& w, base::Database* db) const {
  need_words(w, 2, "get ID|NAME");
  const NodeRef n = find(w[1], db);
  return "\"id\":" + std::to_string(store_.id(n)) + ",\"type\":" + json_string(std::string(kind_name(kind_of(n)))) +
         ",\"status\":" + json_string(std::string(status_name(store_.state(n).status))) +
         ",\"reason\":" + json_string(reason(store_, graph_, n)) + values_json(store_, n);
}

std::string LiveModel::book(const std::vector<std::string>& w, base::Database* db) const {
  need_words(w, 2, "book NAME");
  const NodeRef n = find(w[1], db);
  if (kind_of(n) != Kind::outright_book && kind_of(n) != Kind::repo_book) {
    throw CommandError("'" + w[1] + "' is " + std::string(kind_name(kind_of(n))) + ", not a book");
  }
  return get({"get", w[1]}, db);
}

std::string LiveModel::stats() const {
  std::vector<double> sorted = latencies_us_;
  std::sort(sorted.begin(), sorted.end());
  auto pct = [&](double p) {
    if (sorted.empty()) return std::string("null");
    return json_number(sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(p / 100 * sorted.size()))]);
  };
  return "\"counts\":" + status_counts_json(store_) + ",\"events\":" + std::to_string(events_) +
         ",\"recalc_us\":{\"min\":" + pct(0) + ",\"p50\":" + pct(50) + ",\"p90\":" + pct(90) + ",\"p99\":" + pct(99) +
         ",\"p99.9\":" + pct(99.9) + ",\"max\":" + pct(100) + "}";
}

LiveModel::Recalculation LiveModel::recalculate(base::Database* db) {
  Recalculation r;
  if (graph_.dirty_count() == 0) return r;
  const engine::Stopwatch watch;
  std::array<std::vector<NodeIndex>, kKindCount> recalculated;
  for (std::size_t k = 0; k < kKindCount; ++k) {
    const auto dirty = graph_.dirty(static_cast<engine::TypeId>(k));
    r.nodes[k] = dirty.size();
    if (db) recalculated[k].assign(dirty.begin(), dirty.end());
  }
  engine::flush(graph_, *scheduler_, grain_);
  r.seconds = watch.seconds();
  latencies_us_.push_back(r.seconds * 1e6);
  if (db) write_results(*db, store_, graph_, recalculated);
  return r;
}

}  // namespace bond_risk
