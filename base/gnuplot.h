// Drawing with gnuplot (Debian's gnuplot-nox): a script is piped to a
// gnuplot process, which writes the picture the script names.
#pragma once

#include <string>

namespace base {

// Runs `gnuplot` on `script`; throws std::runtime_error saying what to do
// when gnuplot is missing or reports an error.
void run_gnuplot(const std::string& script);

// The terminal line for a PNG of width x height: pngcairo when this gnuplot
// has it, else the plain png terminal.
std::string png_terminal(int width, int height);

// `text` as a gnuplot string literal in single quotes.
std::string gnuplot_quoted(const std::string& text);

}  // namespace base
