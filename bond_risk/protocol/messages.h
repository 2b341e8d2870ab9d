// The engine's wire format: what comes back on its socket.
//
// A client writes command lines (protocol/command.h). The engine answers
// each line, in order, with one reply: {"ok":true,...,"event":N} or
// {"ok":false,"error":TEXT}. A connection that watches also gets lines
// pushed between replies: {"update":VALUES,"event":N} when a watched node's
// values change, {"alert":ALERT,"event":N} when a limit changes state. N is
// the last event the line reflects.
//
// Every member of every line is named once, in protocol/members.h; the
// clients decode with those names here and the engine's encoders
// (protocol/*_replies.h) encode with them. A client spells no member
// itself. Plain functions: no state, any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/histogram.h"
#include "base/json.h"
#include "bond_risk/protocol/members.h"

namespace bond_risk::protocol {

// Encoding (the engine). A reply: {"ok":true, then `members`}, or
// {"ok":false,"error":message}; a pushed update of a node whose values are
// `values` (a JSON object's text) or an alert; each one line, without its "\n".
std::string ok_line(const base::Json& members);
std::string error_line(std::string_view message);
// A read's reply may be at most this long: a longer one is refused up front
// (too_long_line), so that no reply outgrows what a connection may queue
// (16 MiB: live/control_server.cpp). The explain of 22,000 books is 7 MB.
inline constexpr std::size_t kMaxReplyBytes = 12 << 20;
std::string too_long_line(std::size_t bytes);
std::string update_line(std::string_view values, std::int64_t event);
std::string alert_line(const base::Json& alert, std::int64_t event);

// Decoding (the clients). One line the engine sent; throws
// std::runtime_error naming the line when it is not a JSON object.
struct Line {
  enum class Kind { reply, update, alert };
  Kind kind = Kind::reply;
  bool ok = false;         // a reply's "ok"
  std::string error;       // a refused reply's reason
  std::optional<std::int64_t> event;  // the last event it reflects, if it names one
  base::Json body;         // a reply whole, an update's values, an alert
};
Line decode_line(std::string_view text);
// Without parsing into a Line: whether `text` is {"ok":true,...}, and
// whether it is pushed (an update or an alert) rather than a reply.
bool is_ok_line(std::string_view text);
bool is_pushed_line(std::string_view text);
// An alert line's alert seq, read in place without parsing the line (a
// watcher's hot path: alert_line puts the alert first, and the alert's
// "seq" is its first member named so); nullopt for any other line.
std::optional<std::int64_t> alert_seq(std::string_view text);

// A book as list-books gives it.
struct BookEntry {
  std::int64_t id = 0;
  std::string name;
  std::string type;  // outright_book or repo_book
};
base::Json encode(const BookEntry& book);
std::vector<BookEntry> decode_books(const base::Json& reply);

// What a client reads of stats: the event served, the event the results
// database holds, the recalculation latency percentiles ({"p50":...}), how
// many books exist (any status), and the engine's resident memory.
// A histogram as stats replies it (member::recalc_seconds).
struct HistogramFigures {
  std::vector<double> le;                  // the bounds, seconds
  std::vector<std::uint64_t> cumulative;   // observations at or below each
  double sum = 0;
  std::uint64_t count = 0;
};
base::Json histogram_json(const base::Histogram& histogram);

struct EngineFigures {
  std::int64_t event = 0;
  std::int64_t results_as_of = 0;
  base::Json recalc_us;
  std::optional<HistogramFigures> recalc_seconds, commit_seconds;  // if the reply gives them
  std::size_t books = 0;
  std::optional<std::int64_t> vm_rss_kb;  // if the reply gives it
};
EngineFigures decode_figures(const base::Json& stats_reply);

}  // namespace bond_risk::protocol
