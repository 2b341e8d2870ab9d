// How durable the serving engine's commits are: SQLite's synchronous
// setting of the input database in WAL mode. FULL fsyncs the WAL at every
// commit (an acknowledged change survives a power loss); NORMAL fsyncs only
// at checkpoints (it survives the engine's crash, a power loss may roll back
// the last ones); OFF never fsyncs (a power loss may also corrupt the file).
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace bond_risk {

enum class Synchronous { full, normal, off };
inline constexpr std::array<std::string_view, 3> kSynchronousNames = {"FULL", "NORMAL", "OFF"};

inline std::string_view synchronous_name(Synchronous s) { return kSynchronousNames[static_cast<std::size_t>(s)]; }

// FULL, NORMAL or OFF (as SQLite spells them); nullopt for anything else.
inline std::optional<Synchronous> parse_synchronous(std::string_view text) {
  for (std::size_t i = 0; i < kSynchronousNames.size(); ++i) {
    if (text == kSynchronousNames[i]) return static_cast<Synchronous>(i);
  }
  return std::nullopt;
}

}  // namespace bond_risk
