#include "base/gnuplot.h"

#include <sys/wait.h>

#include <cstdio>
#include <memory>
#include <stdexcept>

namespace base {

namespace {

struct PipeCloser {
  void operator()(FILE* f) const {
    if (f) pclose(f);
  }
};

}  // namespace

void run_gnuplot(const std::string& script) {
  std::unique_ptr<FILE, PipeCloser> pipe(popen("gnuplot 2>&1", "w"));
  if (!pipe) throw std::runtime_error("cannot start gnuplot (install Debian's gnuplot-nox: scripts/install-deps.sh)");
  const bool written = std::fwrite(script.data(), 1, script.size(), pipe.get()) == script.size();
  const int status = pclose(pipe.release());
  if (!written || status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error(WIFEXITED(status) && WEXITSTATUS(status) == 127
                                 ? "gnuplot is not installed (install Debian's gnuplot-nox: scripts/install-deps.sh)"
                                 : "gnuplot failed to draw the plot (its message is above)");
  }
}

std::string png_terminal(int width, int height) {
  const std::string size = " size " + std::to_string(width) + "," + std::to_string(height);
  return "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo" + size +
         " font ',10' } else { set terminal png" + size + " }\n";
}

std::string gnuplot_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace base
