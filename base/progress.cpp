#include "base/progress.h"

#include <unistd.h>

#include <cstdio>

namespace base {

ProgressBar::ProgressBar(std::string label, std::size_t total)
    : label_(std::move(label)), total_(total), enabled_(isatty(STDERR_FILENO) == 1 && total > 0) {}

ProgressBar::~ProgressBar() {
  if (enabled_ && drawn_percent_ >= 0) std::fputc('\n', stderr);
}

void ProgressBar::update(std::size_t done) {
  if (!enabled_) return;
  const int percent = static_cast<int>(100 * (done < total_ ? done : total_) / total_);
  if (percent == drawn_percent_) return;
  drawn_percent_ = percent;
  constexpr int width = 40;
  const int filled = percent * width / 100;
  std::fprintf(stderr, "\r%-24s [%.*s%*s] %3d%%", label_.c_str(), filled, "########################################",
               width - filled, "", percent);
  std::fflush(stderr);
}

}  // namespace base
