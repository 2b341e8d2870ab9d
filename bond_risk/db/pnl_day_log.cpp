#include "bond_risk/db/pnl_day_log.h"

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace bond_risk {

namespace {

// Fixed-size records as a blob's bytes, in the host's byte order (none: an
// empty blob, not NULL, which SQLite binds for a null pointer).
template <class Record>
std::string_view bytes_of(std::span<const Record> records) {
  if (records.empty()) return "";
  return {reinterpret_cast<const char*>(records.data()), records.size_bytes()};
}

template <class Record>
std::vector<Record> unpack(std::string_view blob, const char* what) {
  if (blob.size() % sizeof(Record) != 0) {
    throw std::runtime_error(std::string("a ") + what + " blob of " + std::to_string(blob.size()) +
                             " bytes is not whole records: the P&L day's rows are damaged");
  }
  std::vector<Record> records(blob.size() / sizeof(Record));
  if (!records.empty()) std::memcpy(records.data(), blob.data(), blob.size());
  return records;
}

struct Baseline {
  std::int64_t book_id;
  double measure;
};
static_assert(sizeof(Baseline) == 16 && sizeof(BookMove) == 24);

}  // namespace

PnlDay write_day(base::Database& db, std::int64_t seq, std::map<std::int64_t, double> baselines) {
  std::vector<Baseline> records;
  for (const auto& [id, measure] : baselines) records.push_back({id, measure});
  base::Statement& st = db.cached(
      "INSERT OR REPLACE INTO pnl_day (seq, time, baseline) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?) "
      "RETURNING time");
  st.bind(1, seq).bind_blob(2, bytes_of<Baseline>(records)).step();
  std::string time(st.text(0));
  st.reset();
  db.cached("DELETE FROM pnl_move WHERE day = ?").bind(1, seq).run();  // a day begun again after the same event
  return PnlDay(seq, std::move(time), std::move(baselines));
}

void write_moves(base::Database& db, std::int64_t day, std::int64_t seq, const std::optional<Cause>& cause,
                 std::span<const BookMove> moves) {
  base::Statement& st = db.cached("INSERT INTO pnl_move (day, seq, cause, curve_id, moves) VALUES (?, ?, ?, ?, ?)");
  st.bind(1, day).bind(2, seq).bind_null(3).bind_null(4);
  if (cause) st.bind(3, cause_kind_name(cause->kind));
  if (cause && cause->kind == CauseKind::curve) st.bind(4, cause->curve_id);
  st.bind_blob(5, bytes_of(moves)).run();
}

std::optional<PnlDay> read_day(base::Database& db) {
  base::Statement day = db.prepare("SELECT seq, time, baseline FROM pnl_day ORDER BY seq DESC LIMIT 1");
  if (!day.step()) return std::nullopt;
  std::map<std::int64_t, double> baselines;
  for (const Baseline& b : unpack<Baseline>(day.blob(2), "pnl_day baseline")) baselines.emplace(b.book_id, b.measure);
  PnlDay out(day.integer(0), std::string(day.text(1)), std::move(baselines));
  base::Statement moves = db.prepare(
      "SELECT seq, cause, coalesce(curve_id, 0), moves FROM pnl_move WHERE day = ? AND cause IS NOT NULL ORDER BY id");
  moves.bind(1, out.started_after());
  while (moves.step()) {
    const std::optional<CauseKind> kind = parse_cause_kind(moves.text(1));
    if (!kind) throw std::runtime_error("pnl_move holds an unknown cause '" + std::string(moves.text(1)) + "'");
    out.record(moves.integer(0), Cause{*kind, moves.integer(2)}, unpack<BookMove>(moves.blob(3), "pnl_move moves"));
  }
  return out;
}

}  // namespace bond_risk
