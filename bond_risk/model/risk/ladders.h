// The key-rate ladders nodes publish (docs/model.md "Key-rate risk"), from the
// bonds' ladders and the curves' key-rate arrays a flush computed: a trade's
// on demand, a book's as the sum of its OK members' parts.
//
// A trade's part of a book's ladder is linear in the ladders it reads (its
// bond's, and for a repo a row of its own curve's discounted-sum ladder),
// so it is described by a LadderPart: what it reads, with what weight, and
// the versions of those ladders it saw. A book updates from a changed
// member by taking its previous part away and adding its new one, as long
// as the ladders the previous part read are unchanged (same versions; for
// a repo also its calendar, whose today picks its row); otherwise it sums
// afresh. A part saved when a flush starts is taken after the changes it
// follows (a new today, say): any it reads wrongly is not current then.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bond_risk/model/store/store.h"

namespace bond_risk {

// A trade's part of its books' ladders (store.h), as of the ladders it reads now.
LadderPart ladder_part(const Store& store, const OutrightTrade& trade);
LadderPart ladder_part(const Store& store, const RepoTrade& trade);

// A trade's static data is about to change: keeps the part its books hold
// now (when it is OK), for the next flush to take away from them. Called
// by whatever changes a trade's row; the first call between flushes wins.
void hold_ladder_part(Store& store, NodeRef trade);

// The part `trade`'s books hold: the held one, else the trade's own.
LadderPart books_ladder_part(const Store& store, NodeRef trade);

// Whether the ladders `part` read are unchanged since it was taken.
bool still_current(const Store& store, const LadderPart& part);

// Sets `ladder` to the sum of `book`'s OK members' parts (a book summed
// afresh), in a loop made for the flush: the rows of consecutive members on
// one curve are summed first, so for a book that mixes curves the last bits
// may differ from adding the parts one by one.
void sum_key_rates(const Store& store, const OutrightBook& book, std::span<double> ladder);
void sum_key_rates(const Store& store, const RepoBook& book, std::span<double> ladder);

// Adds sign * part to `ladder`, laid out over store.key_rate_axis (a repo's
// margin ladder, then its mtm_pnl ladder at offset axis.size).
void add_key_rates(const Store& store, const LadderPart& part, std::span<double> ladder, double sign = 1.0);

// One point of a published ladder, named as the database names it: the
// kr01 of each of the node's key_rate_names (one for bonds and outrights,
// margin and mtm_pnl for repos).
struct KeyRate {
  std::int64_t ir_curve_id = 0, idx = 0;  // the point's row in ir_curve_input_rate
  int days_forward = 0;                   // its tenor
  std::array<double, 2> kr01{};
};

// The ladder of a bond, trade or book that publishes values (see
// publishes_values): every point of the curves it depends on (a book: of
// the curves its ladder is not all 0 on), in axis order; empty for other
// nodes or when the store computes no key rates.
std::vector<KeyRate> key_rate_ladder(const Store& store, NodeRef node);
// The same, appended to `out` (which keeps its capacity between calls).
void key_rate_ladder(const Store& store, NodeRef node, std::vector<KeyRate>& out);
// A bond's ladder, as key_rate_ladder gives it: its length, and, when that
// is not 0, the ladder written to the first that many points of `out`.
std::size_t bond_ladder_size(const Store& store, NodeIndex bond);
void write_bond_ladder(const Store& store, NodeIndex bond, std::span<KeyRate> out);

// "kr01" for bonds and outrights, "margin_kr01" and "mtm_pnl_kr01" for repos.
std::span<const std::string_view> key_rate_names(Kind kind);

// Whether `kind`'s ladders are stored (KIND_key_rate tables): bonds' and
// books'; a trade's is computed when asked for.
constexpr bool stores_key_rates(Kind kind) { return kind == Kind::bond || is_book(kind); }

}  // namespace bond_risk
