// Every member name of the engine's lines, said once: the engine's encoders
// (protocol/*_replies.h) write them and the clients (protocol/messages.h)
// read them; nothing else spells one. Grouped by the reply that carries
// them; a name two replies share is listed with the first. The words
// values carry (a status, a book's type) follow. Constants: any thread.
#pragma once

#include <string_view>

#include "bond_risk/model/inputs/kind.h"
#include "bond_risk/model/pricing/status.h"

namespace bond_risk::protocol {

namespace member {
// Every reply.
inline constexpr char ok[] = "ok";
inline constexpr char error[] = "error";
inline constexpr char event[] = "event";
// Pushed lines.
inline constexpr char update[] = "update";
inline constexpr char alert[] = "alert";
// A node's values (node_json): its id, name, type, status and key-rate
// ladder; a calendar's today, a curve's number of points.
inline constexpr char id[] = "id";
inline constexpr char name[] = "name";
inline constexpr char type[] = "type";
inline constexpr char status[] = "status";
inline constexpr char key_rates[] = "key_rates";
inline constexpr char reason[] = "reason";    // why it is not OK
inline constexpr char members[] = "members";  // a book's member count
inline constexpr char today[] = "today";
inline constexpr char points[] = "points";
// A ladder's point.
inline constexpr char ir_curve_id[] = "ir_curve_id";
inline constexpr char idx[] = "idx";
inline constexpr char days_forward[] = "days_forward";
// A book's values the gateway sums (of value_names: model/store/published_values.h).
inline constexpr char pv[] = "pv";
inline constexpr char pv01[] = "pv01";
inline constexpr char cs01[] = "cs01";
inline constexpr char pnl[] = "pnl";
inline constexpr char margin[] = "margin";
inline constexpr char mtm_pnl[] = "mtm_pnl";
// get's inputs: what a node is computed from.
inline constexpr char inputs[] = "inputs";
inline constexpr char unreadable[] = "unreadable";
inline constexpr char rates[] = "rates";
inline constexpr char value[] = "value";
inline constexpr char start_date[] = "start_date";
inline constexpr char maturity_date[] = "maturity_date";
inline constexpr char coupon[] = "coupon";
inline constexpr char coupons_per_year[] = "coupons_per_year";
inline constexpr char quote[] = "quote";
inline constexpr char calendar[] = "calendar";
inline constexpr char ir_curve[] = "ir_curve";
inline constexpr char bond_id[] = "bond_id";
inline constexpr char quantity[] = "quantity";
inline constexpr char trade_price[] = "trade_price";
inline constexpr char buy_sell[] = "buy_sell";
inline constexpr char end_date[] = "end_date";
inline constexpr char notional[] = "notional";
inline constexpr char start_cash[] = "start_cash";
inline constexpr char rate[] = "rate";
// A change's reply: what it did, what it recalculated, and for a trade its
// and its books' new values.
inline constexpr char curve[] = "curve";
inline constexpr char calendars[] = "calendars";
inline constexpr char still_failed[] = "still_failed";
inline constexpr char bonds[] = "bonds";
inline constexpr char day_started[] = "day_started";
inline constexpr char limit_id[] = "limit_id";
inline constexpr char removed[] = "removed";
inline constexpr char recalculated[] = "recalculated";
// watch, unwatch, shutdown.
inline constexpr char watching[] = "watching";
inline constexpr char alerts[] = "alerts";
inline constexpr char unwatched[] = "unwatched";
inline constexpr char stopping[] = "stopping";
// list-books: "books"; last-events: "events", each with its "seq", "time",
// "command", "nodes" recalculated and "engine_us" (in stats, "events" is
// the count of changes applied).
inline constexpr char books[] = "books";
inline constexpr char events[] = "events";
inline constexpr char seq[] = "seq";
inline constexpr char time[] = "time";
inline constexpr char command[] = "command";
inline constexpr char nodes[] = "nodes";
inline constexpr char engine_us[] = "engine_us";
// top-positions: "positions", each a "trade" and its "bond" (their values).
inline constexpr char positions[] = "positions";
inline constexpr char trade[] = "trade";
inline constexpr char bond[] = "bond";
// explain: the "day", "books" and "total", each with its day_pnl and
// causes; explain-events: each event's cause and move.
inline constexpr char day[] = "day";
inline constexpr char after_event[] = "after_event";
inline constexpr char measure[] = "measure";
inline constexpr char baseline[] = "baseline";
inline constexpr char total[] = "total";
inline constexpr char day_pnl[] = "day_pnl";
inline constexpr char causes[] = "causes";
inline constexpr char cause[] = "cause";
inline constexpr char actual[] = "actual";
inline constexpr char predicted[] = "predicted";
inline constexpr char unexplained[] = "unexplained";
inline constexpr char residual[] = "residual";
inline constexpr char move[] = "move";
// limits: the limits listed and the count in each state; an alert.
inline constexpr char risk_limits[] = "risk_limits";
inline constexpr char states[] = "states";
inline constexpr char book_id[] = "book_id";
inline constexpr char book_name[] = "book_name";
inline constexpr char lower[] = "lower";
inline constexpr char upper[] = "upper";
inline constexpr char bound[] = "bound";
inline constexpr char utilization[] = "utilization";
inline constexpr char state[] = "state";
inline constexpr char from[] = "from";
inline constexpr char to[] = "to";
// scenario and var.
inline constexpr char set[] = "set";
inline constexpr char margin_change[] = "margin_change";
inline constexpr char scenarios[] = "scenarios";
inline constexpr char var_99[] = "var_99";
inline constexpr char es_975[] = "es_975";
inline constexpr char left_out[] = "left_out";
inline constexpr char note[] = "note";
// stats.
inline constexpr char counts[] = "counts";
inline constexpr char recalc_us[] = "recalc_us";  // a recalculation's, or percentiles of them
inline constexpr char min[] = "min";
inline constexpr char p50[] = "p50";
inline constexpr char p90[] = "p90";
inline constexpr char p99[] = "p99";
inline constexpr char p99_9[] = "p99.9";
inline constexpr char max[] = "max";
inline constexpr char results_as_of[] = "results_as_of";
inline constexpr char results_recovering[] = "results_recovering";
inline constexpr char results_pending[] = "results_pending";
inline constexpr char marked_peak[] = "marked_peak";
inline constexpr char assembled_peak[] = "assembled_peak";
inline constexpr char watch_lines[] = "watch_lines";
inline constexpr char degraded[] = "degraded";
inline constexpr char memory_kb[] = "memory_kb";
inline constexpr char vm_peak[] = "vm_peak";
inline constexpr char vm_rss[] = "vm_rss";
inline constexpr char results_error[] = "results_error";
inline constexpr char commands[] = "commands";  // answered, by command name
inline constexpr char time_us[] = "time_us";    // per phase (protocol/stats_reply.h), summed since start-up
inline constexpr char recalculate_tiers_us[] = "recalculate_tiers_us";  // the recalculations' time per tier, likewise
inline constexpr char batches[] = "batches";
// stats: each recalculation's and each durable commit's seconds since
// start-up, as a histogram: {"le":[bounds],"cumulative":[counts],"sum","observations"}.
inline constexpr char recalc_seconds[] = "recalc_seconds";
inline constexpr char commit_seconds[] = "commit_seconds";
inline constexpr char le[] = "le";
inline constexpr char cumulative[] = "cumulative";
inline constexpr char sum[] = "sum";
inline constexpr char observations[] = "observations";
}  // namespace member

// The words values carry, as the model names them: a status, a book's
// type, a trade's side; and the total's name in limits and alerts.
namespace word {
inline constexpr std::string_view ok = status_name(Status::ok);
inline constexpr std::string_view removed = status_name(Status::removed);
inline constexpr std::string_view outright_book = kind_name(Kind::outright_book);
inline constexpr std::string_view repo_book = kind_name(Kind::repo_book);
inline constexpr std::string_view buy = "BUY";
inline constexpr std::string_view sell = "SELL";
inline constexpr std::string_view total = "total";
}  // namespace word

}  // namespace bond_risk::protocol
