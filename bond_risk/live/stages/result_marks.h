// The results the running engine has yet to hand to its ResultPublisher,
// conflated: one mark per node (whatever the number of events that changed
// it) or one reload, so what waits is bounded by the nodes, never by the
// events. publish() hands them over in passes, in index order, a slice at
// a time; a pass that ends with marks behind it (made by events during the
// pass) seals the event it began at, so the written tables advance however
// fast events come. Only the span of each kind that holds marks is scanned:
// an amendment's few cost a few words. A stage of every event
// (live/stages/event_stage.h): each recalculation's rows are marked as it
// settles, every row when the model was read back. Used by the master
// thread only; borrows the model, which outlives it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bond_risk/live/stages/event_stage.h"
#include "bond_risk/live/live_model.h"
#include "bond_risk/live/result_publisher.h"
#include "engine/bitmap.h"

namespace bond_risk {

// When a pass over the marks may start: now, or when the writer will write
// what it copies (ResultPublisher::defer_pass).
enum class Handover { now, when_wanted };

class ResultMarks : public EventStage {
 public:
  explicit ResultMarks(const LiveModel& model) : model_(model) { forget(); }

  Phase phase() const override { return Phase::recalculate; }
  void settled(const Settled& settled) override { mark(settled.recalculation, model_.store()); }
  void refused(bool read_back) override {
    if (read_back) mark_whole();
  }

  // Marks the rows recalculation `r` changed (every row, when whole).
  void mark(const LiveModel::Recalculation& r, const Store& store);
  // Every row is to be published again (a reload, or the results file lost).
  void mark_whole();
  // Hands at most about `budget` marked rows to `publisher` (copied by
  // `workers`, the model's) and seals what a finished pass covers (up to
  // `served_event` when no mark is left); true while marks remain to be
  // handed now. Every row, when the publisher asks for them. With
  // `when_wanted`, a new pass waits while the publisher defers it (false,
  // the marks kept).
  bool publish(ResultPublisher& publisher, engine::Scheduler& workers, std::int64_t served_event, std::size_t budget,
               Handover handover = Handover::now);

  std::size_t peak() const { return marked_peak_; }  // the most marks set at once since start-up

  // Throws std::logic_error unless the count of marks is the bits set, every
  // mark lies in its kind's span, and the peak is at least the count.
  void check() const override;

 private:
  void forget();  // no mark is left: none counted, no span

  const LiveModel& model_;
  std::array<engine::Bitmap, kKindCount> unpublished_;  // by node index
  std::size_t marked_ = 0, marked_peak_ = 0;           // marks set now, and at most since start-up
  std::array<std::size_t, kKindCount> marked_from_{}, marked_to_{};  // per kind, [from, to) holds every mark
  bool whole_ = false;                                 // every row (a reload)
  bool passing_ = false;                               // a pass is under way
  std::size_t pass_kind_ = 0, pass_next_ = 0;          // where the pass goes on
  std::int64_t pass_event_ = 0;                        // the event it began at
  std::vector<NodeIndex> slice_;                       // the nodes of one slice (reused)
};

}  // namespace bond_risk
