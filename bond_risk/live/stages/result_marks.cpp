#include "bond_risk/live/stages/result_marks.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace bond_risk {

void ResultMarks::mark(const LiveModel::Recalculation& r, const Store& store) {
  if (r.whole) mark_whole();
  if (whole_) return;  // every row goes already
  for (std::size_t k = 0; k < kKindCount; ++k) {
    const std::vector<NodeIndex>& changed = r.changed[k];
    if (changed.empty()) continue;
    engine::Bitmap& marks = unpublished_[k];
    const std::size_t size = store.size(static_cast<Kind>(k));
    if (marks.size() < size) marks.resize(size);
    marked_ += marks.set_all(std::span(changed));
    const auto [lo, hi] = std::ranges::minmax(changed);
    marked_from_[k] = std::min<std::size_t>(marked_from_[k], lo);
    marked_to_[k] = std::max<std::size_t>(marked_to_[k], hi + std::size_t{1});
  }
  marked_peak_ = std::max(marked_peak_, marked_);
}

void ResultMarks::mark_whole() {
  for (engine::Bitmap& marks : unpublished_) marks.clear();
  forget();
  whole_ = true;
  passing_ = false;
}

void ResultMarks::check() const {
  std::size_t set = 0;
  for (std::size_t k = 0; k < kKindCount; ++k) {
    const engine::Bitmap& marks = unpublished_[k];
    const std::size_t in_span = marked_from_[k] < marked_to_[k] ? marks.count(marked_from_[k], std::min(marked_to_[k], marks.size())) : 0;
    if (marks.count() != in_span) throw std::logic_error("ResultMarks::check: a mark lies outside its kind's span");
    set += in_span;
  }
  if (set != marked_) throw std::logic_error("ResultMarks::check: the count of marks is not the bits set");
  if (marked_peak_ < marked_) throw std::logic_error("ResultMarks::check: the peak is below the marks set now");
}

void ResultMarks::forget() {
  marked_ = 0;
  marked_from_.fill(SIZE_MAX);
  marked_to_.fill(0);
}

bool ResultMarks::publish(ResultPublisher& publisher, engine::Scheduler& workers, std::int64_t served_event,
                          std::size_t budget, Handover handover) {
  const LiveModel& model = model_;
  if (publisher.needs_all()) mark_whole();  // the results file was deleted or replaced
  if (!passing_) {
    if (!whole_ && marked_ == 0) {
      publisher.seal(served_event);
      return false;
    }
    if (!whole_ && handover == Handover::when_wanted && publisher.defer_pass()) return false;
    passing_ = true;
    pass_kind_ = pass_next_ = 0;
    pass_event_ = served_event;
  }
  if (whole_) {
    publisher.add_all(model.store(), model.graph(), &workers);
    budget -= std::min(budget, model.store().size());
    whole_ = false;
    pass_kind_ = kKindCount;
  }
  for (; pass_kind_ < kKindCount && budget > 0; ++pass_kind_, pass_next_ = 0) {
    const std::size_t to = marked_to_[pass_kind_];
    slice_.clear();
    pass_next_ = unpublished_[pass_kind_].take(std::max(pass_next_, marked_from_[pass_kind_]), to, budget, slice_);
    publisher.add(model.store(), model.graph(), static_cast<Kind>(pass_kind_), slice_, workers);
    marked_ -= slice_.size();
    budget -= slice_.size();
    if (pass_next_ < to) break;
  }
  if (pass_kind_ < kKindCount) return true;
  passing_ = false;
  if (marked_ == 0) forget();
  // Every node marked by the events up to the pass's start is in; those
  // marked since lie behind it unless none is left.
  publisher.seal(marked_ == 0 ? served_event : pass_event_);
  return marked_ > 0;
}

}  // namespace bond_risk
