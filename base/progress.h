// A one-line progress bar on standard error, drawn only when standard error
// is a terminal (so logs and pipes stay clean).
// Not thread-safe: the thread that made it updates it (revalue_all calls its
// progress on the calling thread). Owns its label; draws on standard error.
#pragma once

#include <cstddef>
#include <string>

namespace base {

class ProgressBar {
 public:
  ProgressBar(std::string label, std::size_t total);
  ~ProgressBar();  // ends the line if anything was drawn
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Records that `done` of `total` units are finished; cheap to call often.
  void update(std::size_t done);
  // Records one more finished unit.
  void advance() { update(++done_); }

 private:
  std::string label_;
  std::size_t total_;
  bool enabled_;
  int drawn_percent_ = -1;
  std::size_t done_ = 0;
};

}  // namespace base
