#include "bond_risk/protocol/command.h"

#include <algorithm>
#include <vector>

#include "bond_risk/protocol/members.h"

namespace bond_risk {

namespace {

using Words = std::vector<std::string_view>;

constexpr CommandInfo kCommands[] = {
    {CommandId::bump_curve, "bump-curve", "CURVE BP", "add BP basis points to every input rate of a curve (name or id)", true},
    {CommandId::set_rate, "set-rate", "CURVE IDX VALUE", "set one input rate of a curve", true},
    {CommandId::set_curve, "set-curve", "CURVE V0 V1 ... VN",
     "set every input rate of a curve, in idx order (market data arrives as whole curves)", true},
    {CommandId::roll_date, "roll-date", "YYYY-MM-DD [CALENDAR]",
     "set today, of every calendar or of one (bonds and repos past their end become EXPIRED)", true},
    {CommandId::amend_trade, "amend-trade", "ID field=value...",
     "amend a trade; a FAILED trade is read back whole and the reply's still_failed names what is still wrong", true},
    {CommandId::add_outright, "add-outright", "field=value... [book=NAME]", "book an outright trade; the reply gives its id",
     true},
    {CommandId::add_repo, "add-repo", "field=value... [book=NAME]",
     "book a repo (calendar, curve and start_date default from the bond); the reply gives its id", true},
    {CommandId::remove_trade, "remove-trade", "ID", "remove a trade; its books recalculate", true},
    {CommandId::set_price, "set-price", "BOND CLEAN [BOND CLEAN ...]",
     "set market quotes (clean price per 100) of one or more bonds: their yields' spread to the curve (z_spread) and "
     "cs01, and their trades' and books' cs01, recalculate; model values do not move",
     true},
    {CommandId::clear_price, "clear-price", "BOND", "remove a bond's market quote", true},
    {CommandId::start_day, "start-day", "",
     "begin a P&L day: every book's pnl (a repo book's mtm_pnl) now is its baseline, and the explain starts from zero",
     true},
    {CommandId::set_limit, "set-limit", "BOOK|total MEASURE [CURVE IDX] LOWER UPPER",
     "add a risk limit on a book's or the total's pv01, kr01 (of the curve's input point IDX), cs01, day_pnl or "
     "margin, `none` for an unbounded side; the reply gives its id, and each change of its state is an alert",
     true},
    {CommandId::remove_limit, "remove-limit", "ID", "remove a risk limit", true},
    {CommandId::get, "get", "ID|NAME", "a node's type, status, reason and values, and what it is computed from (inputs: a trade's bond, size, price, side and books; a curve's rates; the date it is valued at)", false},
    {CommandId::book, "book", "NAME", "a book's totals and member count", false},
    {CommandId::top_positions, "top-positions", "BOOK [N]",
     "an outright book's N largest trades by absolute pv01 (default 20, at most 1000; OK trades first), each with its "
     "bond's values: {\"positions\":[{\"trade\":{...},\"bond\":{...}}, ...]}",
     false},
    {CommandId::list_books, "list-books", "", "every book's id, name and type (`watch` them for their values)", false},
    {CommandId::watch, "watch", "ID|NAME...|limits",
     "stream a line on this connection each time a node's values change: {\"update\":{...},\"event\":N}; with "
     "`limits`, each risk limit's change of state as it is committed: {\"alert\":{...},\"event\":N}",
     false},
    {CommandId::unwatch, "unwatch", "[ID|NAME...|limits]", "stop following those nodes (or the limits), or everything",
     false},
    {CommandId::scenario, "scenario", "NAME",
     "every book's P&L (and repo margin change) under a stored scenario, revalued from the current state", false, true},
    {CommandId::var, "var", "[SET]",
     "1-day VaR 99% and expected shortfall 97.5% per book and in total over a historical set (default historical)",
     false, true},
    {CommandId::explain, "explain", "[BOOK]",
     "the day's P&L explain of a book, or of every book and the total: day_pnl, baseline, and per cause (curve NAME, "
     "roll, new, amended, removed, external, quote) the actual move, and for curves the key-rate prediction and unexplained",
     false},
    {CommandId::explain_events, "explain-events", "BOOK [N]",
     "the day's N events (default 10, at most 1000) that moved a book's P&L most: seq, time, command, cause, move", false},
    {CommandId::limits, "limits", "[BOOK|total|all] [N]",
     "each risk limit (table risk_limit) of a book, of the total, or every one, worst first (the first N): its "
     "measure, value, bounds, the bound on its side, utilization (value over that bound) and state (BREACHED, "
     "UNKNOWN, OK; FAILED with the reason), and how many are in each state",
     false},
    {CommandId::stats, "stats", "",
     "counts per type and status, commands answered, recalculation latency percentiles, microseconds per phase "
     "(time_us) and of recalculation per tier (recalculate_tiers_us), the engine's memory (memory_kb) and the update lines built for watchers (watch_lines)",
     false},
    {CommandId::last_events, "last-events", "[SINCE]",
     "the last events after sequence number SINCE (at most 100): time, command, nodes recalculated and the "
     "microseconds from its batch's start to its commit (engine_us; null for events before this engine started)",
     false},
    {CommandId::reload, "reload", "",
     "re-read the database after changes by other programs (also noticed within 100 ms, and on SIGUSR1)", false},
    {CommandId::shutdown, "shutdown", "", "stop the engine", false},
};
static_assert(std::size(kCommands) == kCommandCount);

Words split_words(std::string_view line) {
  Words words;
  std::size_t at = 0;
  while (true) {
    at = line.find_first_not_of(" \t\r", at);
    if (at == std::string_view::npos) return words;
    const std::size_t end = std::min(line.find_first_of(" \t\r", at), line.size());
    words.push_back(line.substr(at, end - at));
    at = end;
  }
}

std::string text_of(std::string_view s) { return std::string(s); }

// Checks the number of words (the command's name included).
void expect_words(const Words& w, const CommandInfo& info, std::size_t min, std::size_t max) {
  if (w.size() < min || w.size() > max) {
    throw CommandError("usage: " + text_of(info.name) + (info.args.empty() ? "" : " ") + text_of(info.args));
  }
}

// `text` as a value of a column of `type` called `what`; a bad value is a CommandError.
FieldValue value(std::string_view what, ColumnType type, std::string_view text) {
  try {
    return parse_field(Column{what, type}, text);
  } catch (const FieldError& e) {
    throw CommandError(e.message);
  }
}

// The count N a listing takes as its third word (`fallback` when none), 1 to `max` of `what`.
std::int64_t count_word(const Words& w, const CommandInfo& info, std::int64_t fallback, std::int64_t max,
                        std::string_view what) {
  const std::int64_t n = w.size() == 3 ? std::get<std::int64_t>(value("N", ColumnType::integer, w[2])) : fallback;
  if (n < 1 || n > max) {
    throw CommandError(text_of(info.name) + " lists 1 to " + std::to_string(max) + " " + text_of(what) + ", not " +
                       std::to_string(n));
  }
  return n;
}

// "outright_trade: name, bond_id, ...; repo_trade: ..."
std::string trade_columns() {
  return "outright_trade: " + input_table(Kind::outright_trade).settable_list() +
         "; repo_trade: " + input_table(Kind::repo_trade).settable_list();
}

// The column a trade command may set: of `table`, or of either trade table when null.
const Column& trade_column(std::string_view name, const InputTable* table) {
  const Column* c = nullptr;
  for (Kind kind : {Kind::outright_trade, Kind::repo_trade}) {
    if (!c && (!table || table == &input_table(kind))) c = input_table(kind).find(name);
  }
  if (!c || c->type == ColumnType::id) {
    throw CommandError("unknown " + (table ? text_of(table->name) : std::string("trade")) + " field '" +
                       text_of(name.substr(0, 40)) + "' (" + (table ? table->settable_list() : trade_columns()) + ")");
  }
  return *c;
}

// The field=value words from w[first] on, typed by their columns; book=NAME
// goes to `book` when given.
Fields fields(const Words& w, std::size_t first, const InputTable* table, std::optional<std::string>* book) {
  Fields out;
  for (std::size_t i = first; i < w.size(); ++i) {
    const auto eq = w[i].find('=');
    if (eq == std::string_view::npos || eq == 0) throw CommandError("'" + text_of(w[i].substr(0, 60)) + "' is not field=value");
    const std::string_view name = w[i].substr(0, eq), text = w[i].substr(eq + 1);
    const bool twice = name == "book" ? book && *book : std::any_of(out.begin(), out.end(), [&](const Field& f) {
      return f.column == name;
    });
    if (twice) throw CommandError("field " + text_of(name) + " is given twice");
    if (name == "book" && book) {
      *book = text_of(text);
      continue;
    }
    const Column& column = trade_column(name, table);
    out.push_back({text_of(column.name), value(column.name, column.type, text)});
  }
  return out;
}

Command parse_add(const Words& w, const CommandInfo& info, Kind kind) {
  AddTrade add{kind, {}, {}};
  add.fields = fields(w, 1, &input_table(kind), &add.book);
  for (const Column& c : input_table(kind).columns) {
    const bool given = std::any_of(add.fields.begin(), add.fields.end(), [&](const Field& f) { return f.column == c.name; });
    if (c.required && !given) throw CommandError(text_of(info.name) + " needs " + text_of(c.name) + "=...");
  }
  return Change{std::move(add)};
}

Command parse_words(const Words& w, const CommandInfo& info) {
  using T = ColumnType;
  switch (info.id) {
    case CommandId::bump_curve:
      expect_words(w, info, 3, 3);
      return Change{BumpCurve{text_of(w[1]), std::get<double>(value("BP", T::real, w[2]))}};
    case CommandId::set_rate:
      expect_words(w, info, 4, 4);
      return Change{SetRate{text_of(w[1]), std::get<std::int64_t>(value("IDX", T::integer, w[2])),
                            std::get<double>(value("VALUE", T::real, w[3]))}};
    case CommandId::set_curve: {
      expect_words(w, info, 3, SIZE_MAX);
      SetCurve set{text_of(w[1]), {}};
      for (std::size_t i = 2; i < w.size(); ++i) {
        const std::string what = std::string(1, 'V').append(std::to_string(i - 2));
        set.values.push_back(std::get<double>(value(what, T::real, w[i])));
      }
      return Change{std::move(set)};
    }
    case CommandId::roll_date: {
      expect_words(w, info, 2, 3);
      RollDate roll{std::get<Date>(value("date", T::date, w[1])), {}};
      if (w.size() == 3) roll.calendar = text_of(w[2]);
      return Change{roll};
    }
    case CommandId::amend_trade:
      expect_words(w, info, 3, SIZE_MAX);
      return Change{AmendTrade{text_of(w[1]), fields(w, 2, nullptr, nullptr)}};
    case CommandId::add_outright: return parse_add(w, info, Kind::outright_trade);
    case CommandId::add_repo: return parse_add(w, info, Kind::repo_trade);
    case CommandId::remove_trade: expect_words(w, info, 2, 2); return Change{RemoveTrade{text_of(w[1])}};
    case CommandId::set_price: {
      expect_words(w, info, 3, SIZE_MAX);
      if (w.size() % 2 == 0) throw CommandError("set-price takes pairs of BOND CLEAN; the last bond has no price");
      SetPrices set;
      for (std::size_t i = 1; i < w.size(); i += 2) {
        set.quotes.emplace_back(text_of(w[i]), std::get<double>(value("CLEAN", T::real, w[i + 1])));
      }
      return Change{std::move(set)};
    }
    case CommandId::clear_price: expect_words(w, info, 2, 2); return Change{ClearPrice{text_of(w[1])}};
    case CommandId::start_day: expect_words(w, info, 1, 1); return Change{StartDay{}};
    case CommandId::set_limit: {
      expect_words(w, info, 5, 7);
      if (w.size() == 6) throw CommandError("usage: set-limit " + text_of(info.args) + " (a kr01 limit names CURVE and IDX)");
      SetLimit set;
      if (w[1] != protocol::word::total) set.book = text_of(w[1]);
      set.measure = text_of(w[2]);
      if (w.size() == 7) set.curve = text_of(w[3]), set.idx = std::get<std::int64_t>(value("IDX", T::integer, w[4]));
      auto bound = [&](std::string_view what, std::string_view word) -> std::optional<double> {
        if (word == "none") return std::nullopt;
        return std::get<double>(value(what, T::real, word));
      };
      set.lower = bound("LOWER", w[w.size() - 2]), set.upper = bound("UPPER", w[w.size() - 1]);
      return Change{std::move(set)};
    }
    case CommandId::remove_limit:
      expect_words(w, info, 2, 2);
      return Change{RemoveLimit{std::get<std::int64_t>(value("ID", T::integer, w[1]))}};
    case CommandId::get: expect_words(w, info, 2, 2); return Get{text_of(w[1])};
    case CommandId::book: expect_words(w, info, 2, 2); return ShowBook{text_of(w[1])};
    case CommandId::top_positions: {
      expect_words(w, info, 2, 3);
      TopPositions top{text_of(w[1])};
      top.count = count_word(w, info, top.count, kMaxTopPositions, "trades");
      return top;
    }
    case CommandId::list_books: expect_words(w, info, 1, 1); return ListBooks{};
    case CommandId::watch: expect_words(w, info, 2, SIZE_MAX); return Watch{std::vector<std::string>(w.begin() + 1, w.end())};
    case CommandId::unwatch: return Unwatch{std::vector<std::string>(w.begin() + 1, w.end())};
    case CommandId::scenario: expect_words(w, info, 2, 2); return RunScenario{text_of(w[1])};
    case CommandId::var: expect_words(w, info, 1, 2); return w.size() == 2 ? ValueAtRisk{text_of(w[1])} : ValueAtRisk{};
    case CommandId::explain:
      expect_words(w, info, 1, 2);
      return w.size() == 2 ? Explain{text_of(w[1])} : Explain{};
    case CommandId::explain_events: {
      expect_words(w, info, 2, 3);
      ExplainEvents e{text_of(w[1])};
      e.count = count_word(w, info, e.count, kMaxExplainEvents, "events");
      return e;
    }
    case CommandId::limits: {
      expect_words(w, info, 1, 3);
      Limits l;
      if (w.size() >= 2 && w[1] != "all") l.book = text_of(w[1]);
      if (w.size() == 3) l.count = count_word(w, info, 0, kMaxLimitsListed, "limits");
      return l;
    }
    case CommandId::stats: expect_words(w, info, 1, 1); return Stats{};
    case CommandId::last_events:
      expect_words(w, info, 1, 2);
      return RecentEvents{w.size() == 2 ? std::get<std::int64_t>(value("SINCE", T::integer, w[1])) : 0};
    case CommandId::reload: expect_words(w, info, 1, 1); return Reload{};
    case CommandId::shutdown: expect_words(w, info, 1, 1); return Shutdown{};
  }
  throw std::logic_error("parse_command: unknown command id");
}

// The words after a command's name, each appended with a space before it
// (appended: GCC 12 warns falsely, -Wrestrict, on " " + std::string&&).
struct Arguments {
  std::string line;

  void word(std::string_view w) { line.append(1, ' ').append(w); }
  void number(double v) { word(field_text(FieldValue{v})); }
  void fields(const Fields& fields) {
    for (const Field& f : fields) word(f.column + "=" + field_text(f.value));
  }

  void operator()(const Change& c) { std::visit(*this, c); }
  void operator()(const BumpCurve& c) { word(c.curve), number(c.bp); }
  void operator()(const SetRate& c) { word(c.curve), word(std::to_string(c.idx)), number(c.value); }
  void operator()(const SetCurve& c) {
    word(c.curve);
    for (double v : c.values) number(v);
  }
  void operator()(const RollDate& c) {
    word(format_date(c.today));
    if (c.calendar) word(*c.calendar);
  }
  void operator()(const AmendTrade& c) { word(c.trade), fields(c.fields); }
  void operator()(const AddTrade& c) {
    fields(c.fields);
    if (c.book) word("book=" + *c.book);
  }
  void operator()(const RemoveTrade& c) { word(c.trade); }
  void operator()(const SetPrices& c) {
    for (const auto& [bond, price] : c.quotes) word(bond), number(price);
  }
  void operator()(const ClearPrice& c) { word(c.bond); }
  void operator()(const SetLimit& c) {
    word(c.book ? *c.book : std::string(protocol::word::total)), word(c.measure);
    if (c.curve) word(*c.curve), word(std::to_string(c.idx.value_or(0)));
    for (const std::optional<double>& bound : {c.lower, c.upper}) bound ? number(*bound) : word("none");
  }
  void operator()(const RemoveLimit& c) { word(std::to_string(c.id)); }
  void operator()(const Get& c) { word(c.key); }
  void operator()(const ShowBook& c) { word(c.key); }
  void operator()(const TopPositions& c) { word(c.key), word(std::to_string(c.count)); }
  void operator()(const RunScenario& c) { word(c.name); }
  void operator()(const ValueAtRisk& c) { word(c.set); }
  void operator()(const RecentEvents& c) { word(std::to_string(c.since)); }
  void operator()(const Explain& c) {
    if (c.book) word(*c.book);
  }
  void operator()(const Limits& c) {
    if (c.book || c.count > 0) word(c.book.value_or("all"));
    if (c.count > 0) word(std::to_string(c.count));
  }
  void operator()(const ExplainEvents& c) { word(c.book), word(std::to_string(c.count)); }
  void operator()(const Watch& c) {
    for (const std::string& k : c.keys) word(k);
  }
  void operator()(const Unwatch& c) {
    for (const std::string& k : c.keys) word(k);
  }
  void operator()(const auto&) {}
};

// The fields a trade command takes, for help.
std::string fields_help(CommandId id) {
  auto required = [](Kind kind) {
    std::string out;
    for (const Column& c : input_table(kind).columns) {
      if (c.required) out.append(out.empty() ? "" : ", ").append(c.name);
    }
    return out;
  };
  switch (id) {
    case CommandId::amend_trade: return "fields: " + trade_columns();
    case CommandId::add_outright: return "required: " + required(Kind::outright_trade);
    case CommandId::add_repo: return "required: " + required(Kind::repo_trade);
    default: return "";
  }
}

}  // namespace

std::span<const CommandInfo> command_table() { return kCommands; }

const CommandInfo& command_info(CommandId id) { return kCommands[static_cast<std::size_t>(id)]; }

CommandId command_id(const Command& command) {
  struct Id {
    CommandId operator()(const Change& c) const { return std::visit(*this, c); }
    CommandId operator()(const BumpCurve&) const { return CommandId::bump_curve; }
    CommandId operator()(const SetRate&) const { return CommandId::set_rate; }
    CommandId operator()(const SetCurve&) const { return CommandId::set_curve; }
    CommandId operator()(const RollDate&) const { return CommandId::roll_date; }
    CommandId operator()(const AmendTrade&) const { return CommandId::amend_trade; }
    CommandId operator()(const AddTrade& c) const {
      return c.kind == Kind::outright_trade ? CommandId::add_outright : CommandId::add_repo;
    }
    CommandId operator()(const RemoveTrade&) const { return CommandId::remove_trade; }
    CommandId operator()(const SetPrices&) const { return CommandId::set_price; }
    CommandId operator()(const ClearPrice&) const { return CommandId::clear_price; }
    CommandId operator()(const StartDay&) const { return CommandId::start_day; }
    CommandId operator()(const SetLimit&) const { return CommandId::set_limit; }
    CommandId operator()(const RemoveLimit&) const { return CommandId::remove_limit; }
    CommandId operator()(const RowsChanged&) const { return CommandId::reload; }  // what applies them
    CommandId operator()(const Explain&) const { return CommandId::explain; }
    CommandId operator()(const ExplainEvents&) const { return CommandId::explain_events; }
    CommandId operator()(const Limits&) const { return CommandId::limits; }
    CommandId operator()(const Get&) const { return CommandId::get; }
    CommandId operator()(const ShowBook&) const { return CommandId::book; }
    CommandId operator()(const TopPositions&) const { return CommandId::top_positions; }
    CommandId operator()(const ListBooks&) const { return CommandId::list_books; }
    CommandId operator()(const Watch&) const { return CommandId::watch; }
    CommandId operator()(const Unwatch&) const { return CommandId::unwatch; }
    CommandId operator()(const RunScenario&) const { return CommandId::scenario; }
    CommandId operator()(const ValueAtRisk&) const { return CommandId::var; }
    CommandId operator()(const Stats&) const { return CommandId::stats; }
    CommandId operator()(const RecentEvents&) const { return CommandId::last_events; }
    CommandId operator()(const Reload&) const { return CommandId::reload; }
    CommandId operator()(const Shutdown&) const { return CommandId::shutdown; }
  };
  return std::visit(Id{}, command);
}

Command parse_command(std::string_view line) {
  const Words words = split_words(line);
  if (words.empty()) throw CommandError("empty command");
  for (const CommandInfo& info : kCommands) {
    if (info.name == words[0]) return parse_words(words, info);
  }
  throw CommandError("unknown command '" + text_of(words[0].substr(0, 40)) + "' (commands: " + command_names() + ")");
}

bool runs_apart(std::string_view line) {
  const std::size_t at = line.find_first_not_of(" \t\r");
  if (at == std::string_view::npos) return false;
  const std::string_view name = line.substr(at, line.find_first_of(" \t\r", at) - at);
  for (const CommandInfo& info : kCommands) {
    if (info.name == name) return info.runs_apart;
  }
  return false;
}

std::string format_command(const Command& command) {
  Arguments arguments{text_of(command_info(command_id(command)).name)};
  std::visit(arguments, command);
  return arguments.line;
}

std::string commands_help() {
  std::string out;
  for (const CommandInfo& c : kCommands) {
    std::string left = "  " + text_of(c.name) + (c.args.empty() ? "" : " ") + text_of(c.args);
    left.resize(std::max<std::size_t>(left.size() + 2, 44), ' ');
    out += left + text_of(c.help) + "\n";
    if (const std::string more = fields_help(c.id); !more.empty()) out += std::string(44, ' ') + more + "\n";
  }
  return out;
}

std::string commands_markdown() {
  std::string out = "| command | effect |\n| --- | --- |\n";
  for (const CommandInfo& c : kCommands) {
    std::string usage = text_of(c.name) + (c.args.empty() ? "" : " ") + text_of(c.args);
    for (std::size_t at = 0; (at = usage.find('|', at)) != std::string::npos; at += 2) usage.insert(at, 1, '\\');
    const std::string more = fields_help(c.id);
    out += "| `" + usage + "` | " + text_of(c.help) + (more.empty() ? "" : "; " + more) + " |\n";
  }
  return out;
}

std::string command_names() {
  std::string out;
  for (const CommandInfo& c : kCommands) out.append(out.empty() ? "" : ", ").append(c.name);
  return out;
}

}  // namespace bond_risk
