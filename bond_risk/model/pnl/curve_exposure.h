// Which curves each book's measure depends on, so that moves of curves no
// book shares can be recalculated together and still split exactly by cause.
//
// Model. An outright book's pnl moves with its members' bonds' curves; a
// repo book's mtm_pnl with its members' own curves (docs/model.md), and with
// their bonds' curves, whose moves can fail a bond and so take its repos out
// of the book's sum. A book is exposed to those curves whatever its members'
// statuses. Two curves are apart when no book is exposed to both: in a
// recalculation of moves of curves pairwise apart, each book's move is that
// of the one curve of them it is exposed to. A book on a curve past the 64th
// counts as exposed to every curve (so no two curves are then apart).
//
// Kept from the store's membership: the books whose members changed (a
// trade added, amended or removed) are read again at the next refresh();
// build it again after a reload. Plain values, used by one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "bond_risk/model/store/store.h"

namespace bond_risk {

class CurveExposure {
 public:
  explicit CurveExposure(const Store& store);

  // Books (positions) whose members may have changed, read again at the next refresh().
  void members_changed(std::span<const NodeIndex> outright, std::span<const NodeIndex> repo);
  // Reads the changed books again; apart() and first_of() answer for the store now.
  void refresh(const Store& store);

  // Whether no book is exposed to both curves (store positions).
  bool apart(NodeIndex a, NodeIndex b) const;
  // Of `curves` (store positions), the first the book is exposed to; none
  // when it is exposed to none of them.
  std::optional<std::size_t> first_of(NodeRef book, const std::vector<NodeIndex>& curves) const;

 private:
  std::uint64_t mask(NodeRef book) const;
  void read_book(const Store& store, NodeRef book);
  void mark_all();  // every book to be read again

  std::vector<std::uint64_t> outright_, repo_;  // each book's curves, a bit per curve position
  std::vector<std::uint64_t> shared_;           // each curve's: the curves a book shares with it
  std::vector<NodeRef> changed_;                // books to read again
};

}  // namespace bond_risk
