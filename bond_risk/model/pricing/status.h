// Constants and statuses of the calculation model (docs/model.md).
#pragma once

#include <cstdint>
#include <string_view>

namespace bond_risk {

inline constexpr double kYearBasis = 365.25;
// A curve's horizon H is its last input day, kNumForwardDays (trad4's 20
// years, every generated curve's) .. kMaxForwardDays (60 years: a 50-year
// gilt and its repos); its daily arrays cover offsets 0 .. H-1.
inline constexpr int kNumForwardDays = 7305;
inline constexpr int kMaxForwardDays = 21915;
inline constexpr double kBump = 0.0001;       // one basis point
// The largest input rate in magnitude (100%): discount factors over a
// curve's 60 years then stay within exp(+-60), so every value is finite.
inline constexpr double kMaxRate = 1.0;

// `removed` marks a trade deleted by an event: it keeps its slot in storage
// but belongs to no table, count or book.
enum class Status : std::uint8_t { ok, failed, stale, expired, removed };
inline constexpr int kStatusCount = 4;  // the statuses of docs/model.md

constexpr std::string_view status_name(Status s) {
  constexpr std::string_view names[] = {"OK", "FAILED", "STALE", "EXPIRED", "REMOVED"};
  return names[static_cast<int>(s)];
}

// A node whose input is FAILED or STALE is STALE.
constexpr bool is_broken(Status s) { return s == Status::failed || s == Status::stale; }

}  // namespace bond_risk
