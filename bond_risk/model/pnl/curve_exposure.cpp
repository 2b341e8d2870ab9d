#include "bond_risk/model/pnl/curve_exposure.h"

#include <algorithm>

namespace bond_risk {

namespace {

constexpr std::uint64_t kEvery = ~std::uint64_t{0};

std::uint64_t bit(NodeIndex curve) { return curve < 64 ? std::uint64_t{1} << curve : kEvery; }

}  // namespace

CurveExposure::CurveExposure(const Store& s)
    : outright_(s.outright_books.size()), repo_(s.repo_books.size()), shared_(s.curves.size()) {
  mark_all();
  refresh(s);
}

void CurveExposure::mark_all() {
  changed_.clear();
  for (NodeIndex b = 0; b < outright_.size(); ++b) changed_.push_back(ref(Kind::outright_book, b));
  for (NodeIndex b = 0; b < repo_.size(); ++b) changed_.push_back(ref(Kind::repo_book, b));
}

void CurveExposure::members_changed(std::span<const NodeIndex> outright, std::span<const NodeIndex> repo) {
  for (NodeIndex b : outright) changed_.push_back(ref(Kind::outright_book, b));
  for (NodeIndex b : repo) changed_.push_back(ref(Kind::repo_book, b));
  if (changed_.size() > outright_.size() + repo_.size()) mark_all();  // bounded: every book once
}

void CurveExposure::read_book(const Store& s, NodeRef book) {
  std::uint64_t m = 0;
  if (kind_of(book) == Kind::outright_book) {
    for (NodeIndex t : s.outright_books[book.index].members) m |= bit(s.bonds[s.outright_trades[t].bond].curve);
    outright_.at(book.index) = m;
  } else {
    // A repo's own curve moves its mtm_pnl; its bond's curve can fail or
    // restore the bond, and with it the repo's place in the book's sum.
    for (NodeIndex t : s.repo_books[book.index].members) {
      m |= bit(s.repo_trades[t].curve) | bit(s.bonds[s.repo_trades[t].bond].curve);
    }
    repo_.at(book.index) = m;
  }
}

void CurveExposure::refresh(const Store& s) {
  if (changed_.empty()) return;
  for (NodeRef book : changed_) read_book(s, book);
  changed_.clear();
  std::fill(shared_.begin(), shared_.end(), 0);
  for (const std::vector<std::uint64_t>* masks : {&outright_, &repo_}) {
    for (const std::uint64_t m : *masks) {
      for (NodeIndex c = 0; c < shared_.size(); ++c) {
        if (m & bit(c)) shared_[c] |= m;
      }
    }
  }
}

bool CurveExposure::apart(NodeIndex a, NodeIndex b) const {
  return a != b && a < shared_.size() && a < 64 && b < 64 && !(shared_[a] & bit(b));
}

std::uint64_t CurveExposure::mask(NodeRef book) const {
  const std::vector<std::uint64_t>& masks = kind_of(book) == Kind::outright_book ? outright_ : repo_;
  return book.index < masks.size() ? masks[book.index] : kEvery;
}

std::optional<std::size_t> CurveExposure::first_of(NodeRef book, const std::vector<NodeIndex>& curves) const {
  const std::uint64_t m = mask(book);
  for (std::size_t k = 0; k < curves.size(); ++k) {
    if (m & bit(curves[k])) return k;
  }
  return std::nullopt;
}

}  // namespace bond_risk
