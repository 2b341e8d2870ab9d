#include "bond_risk/model/curve_exposure.h"

namespace bond_risk {

namespace {

constexpr std::uint64_t kEvery = ~std::uint64_t{0};

std::uint64_t bit(NodeIndex curve) { return curve < 64 ? std::uint64_t{1} << curve : kEvery; }

}  // namespace

CurveExposure::CurveExposure(const Store& s) : shared_(s.curves.size(), 0) {
  for (const OutrightBook& b : s.outright_books) {
    std::uint64_t m = 0;
    for (NodeIndex t : b.members) m |= bit(s.bonds[s.outright_trades[t].bond].curve);
    outright_.push_back(m);
  }
  for (const RepoBook& b : s.repo_books) {
    std::uint64_t m = 0;
    for (NodeIndex t : b.members) m |= bit(s.repo_trades[t].curve);
    repo_.push_back(m);
  }
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
