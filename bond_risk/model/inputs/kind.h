// The seven kinds of node, in tier order; a Kind's value is its engine type
// id, and its name is its input table's name.
#pragma once

#include <cstddef>
#include <string_view>

#include "engine/node_ref.h"

namespace bond_risk {

using engine::NodeIndex;
using engine::NodeRef;

enum class Kind : engine::TypeId { calendar, ir_curve, bond, outright_trade, repo_trade, outright_book, repo_book };
inline constexpr std::size_t kKindCount = 7;

// The node's table name in the database ("bond", "outright_trade", ...).
constexpr std::string_view kind_name(Kind kind) {
  constexpr std::string_view names[kKindCount] = {"calendar",   "ir_curve",      "bond",     "outright_trade",
                                                  "repo_trade", "outright_book", "repo_book"};
  return names[static_cast<std::size_t>(kind)];
}

constexpr NodeRef ref(Kind kind, NodeIndex index) { return {static_cast<engine::TypeId>(kind), index}; }
constexpr Kind kind_of(NodeRef node) { return static_cast<Kind>(node.type); }
constexpr bool is_trade(Kind kind) { return kind == Kind::outright_trade || kind == Kind::repo_trade; }
constexpr bool is_book(Kind kind) { return kind == Kind::outright_book || kind == Kind::repo_book; }

}  // namespace bond_risk
