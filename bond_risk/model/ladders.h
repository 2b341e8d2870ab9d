// The key-rate ladders nodes publish (MODEL.md "Key-rate risk"), from the
// bonds' ladders and the curves' key-rate arrays a flush computed: a trade's
// on demand, a book's as the sum of its OK members' (the book kernel calls
// add_key_rates per member).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bond_risk/model/store.h"

namespace bond_risk {

// Adds an OK trade's ladder to `ladder`, laid out over store.key_rate_axis
// (a repo's margin ladder, then its mtm_pnl ladder at offset axis.size).
void add_key_rates(const Store& store, const OutrightTrade& trade, std::span<double> ladder);
void add_key_rates(const Store& store, const RepoTrade& trade, std::span<double> ladder);

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

// "kr01" for bonds and outrights, "margin_kr01" and "mtm_pnl_kr01" for repos.
std::span<const std::string_view> key_rate_names(Kind kind);

// Whether `kind`'s ladders are stored (KIND_key_rate tables): bonds' and
// books'; a trade's is computed when asked for.
constexpr bool stores_key_rates(Kind kind) { return kind == Kind::bond || is_book(kind); }

}  // namespace bond_risk
