// The P&L day and its explain (docs/model.md "The P&L day and its explain").
//
// Model. A day begins at an event with every book's measure (an outright
// book's pnl, a repo book's mtm_pnl) as its baseline. Each later event is
// recalculated alone, so the change of each book's measure across it is
// that event's, and belongs to its cause (a curve, the roll, new, amended,
// removed or external trades). The explain of a book is the sum of its
// moves per cause, added in event order; a curve event also adds what the
// book's key-rate ladder just before it predicted. The causes thus add up
// to day_pnl = measure now - baseline, up to the rounding of the sums.
// A book's measure is its total's, over its OK members (a member leaving
// the sum moves it); NaN counts as 0; a book another program deleted
// measures 0 from then on, and stays in the day's total.
//
// A PnlDay is rebuilt bit for bit from its baseline and its events' moves,
// recorded again in event order (db/pnl_day_log.h keeps them). Plain
// values, used by one thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "bond_risk/model/store/store.h"

namespace bond_risk {

// docs/model.md's causes, and `quote` (set-price, clear-price: a quote moves no
// pv, but one that no spread reprices fails its bond, whose trades then
// leave their books' sums; and re-summing unchanged members rounds).
enum class CauseKind : std::uint8_t { curve, roll, new_trade, amended, removed, external, quote };

struct Cause {
  CauseKind kind = CauseKind::external;
  std::int64_t curve_id = 0;  // a curve cause's ir_curve id; 0 otherwise
  auto operator<=>(const Cause&) const = default;
};

// "curve NAME", "roll", "new", "amended", "removed", "external", "quote".
std::string cause_name(const Store& store, const Cause& cause);
// The cause a stored name stands for ("curve" with its curve's id).
std::optional<CauseKind> parse_cause_kind(std::string_view name);
std::string_view cause_kind_name(CauseKind kind);

// One book's move across one event. predicted is NaN unless a curve moved.
struct BookMove {
  std::int64_t book_id = 0;
  double actual = 0, predicted = 0;
};

// A book's measure now (0 for NaN).
double book_measure(const Store& store, NodeRef book);

// Every book's measure now, by book id.
std::map<std::int64_t, double> book_measures(const Store& store);

// What each book's ladder predicts for moving the curves from `before`
// (every curve's input values, as curve_values gave them before the event)
// to the store's now: sum over moved points of kr01 * shift / BUMP, per book
// in store order (outright books, then repo books); empty when the store
// keeps no ladders or no curve moved.
std::vector<std::vector<double>> curve_values(const Store& store);
std::vector<double> predicted_moves(const Store& store, const std::vector<std::vector<double>>& before);

// Each book whose measure moved since `last` (store order, updated to now),
// with the prediction when one is given, into `out` (cleared first: a
// buffer the caller reuses). Only the books listed are looked at (outright,
// repo: indices in order; the rest cannot have moved), unless `all` or a
// prediction is given. With `all` (the store was loaded again), a book of
// `last` the store no longer has (another program deleted it) moves to 0:
// it stays in the day, its measure 0, so the day's total moves by what it
// held, to that cause (moves_of_books_gone, in id order).
struct BooksToLook {
  std::span<const NodeIndex> outright, repo;
  bool all = false;
};
// `last` is by book id: a reload that adds or drops books moves no other's.
using BookMeasures = std::unordered_map<std::int64_t, double>;
void book_moves(const Store& store, BookMeasures& last, std::span<const double> predicted, const BooksToLook& books,
                std::vector<BookMove>& out);
void moves_of_books_gone(const Store& store, BookMeasures& last, std::vector<BookMove>& out);
// The ids of the store's books (a book of the day not among them was deleted since it began).
std::unordered_set<std::int64_t> book_ids(const Store& store);

struct CauseTotal {
  double actual = 0, predicted = 0;
  bool has_prediction = false;
  CauseTotal& operator+=(const CauseTotal& other) {
    actual += other.actual;
    predicted += other.predicted;
    has_prediction = has_prediction || other.has_prediction;
    return *this;
  }
};

// The largest moves a day keeps per book (largest_moves lists no more):
// its memory is bounded by the books, not the events.
inline constexpr std::size_t kKeptMoves = 1000;

// One recalculation's move of one book by one cause, for the audit trail.
struct EventMove {
  std::int64_t seq = 0;  // the recalculation's last event; 0: changes by other programs between events
  Cause cause;
  double move = 0;
};

class PnlDay {
 public:
  // A day that began after event `seq` (0: before any), at `time` (UTC).
  PnlDay(std::int64_t seq, std::string time, std::map<std::int64_t, double> baselines);

  std::int64_t started_after() const { return seq_; }
  const std::string& started_at() const { return time_; }

  // Adds one event's moves; events come in order.
  void record(std::int64_t seq, const Cause& cause, std::span<const BookMove> moves);

  // The baseline of a book (0 for a book the day did not know).
  double baseline(std::int64_t book_id) const;
  // A book's totals by cause, in cause order.
  const std::map<Cause, CauseTotal>& explain(std::int64_t book_id) const;
  // Every book the day knows (a baseline or a move), in id order.
  std::vector<std::int64_t> book_ids() const;
  // Each book's measure as the day has it: its baseline and its recorded moves.
  std::map<std::int64_t, double> recorded_measures() const;
  // A book's `count` (at most kKeptMoves) largest moves by size, largest
  // first (ties: earlier first).
  std::vector<EventMove> largest_moves(std::int64_t book_id, std::size_t count) const;

 private:
  // A book's day, found by one hash look-up per move (an event's cost).
  struct BookDay {
    double baseline = 0;
    std::map<Cause, CauseTotal> causes;
    std::vector<EventMove> kept;  // its largest moves, up to 2 * kKeptMoves before pruning
  };

  std::int64_t seq_;
  std::string time_;
  std::unordered_map<std::int64_t, BookDay> books_;
};

}  // namespace bond_risk
