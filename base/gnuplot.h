// Drawing with gnuplot (Debian's gnuplot-nox).
//
// A script is code and is always the program's own text; every name or path
// that comes from data, flags or the network travels as one of the script's
// arguments (gnuplot's ARG1..ARG9, string variables that gnuplot never parses
// as commands) or inside a data file. gnuplot is started directly, without a
// shell, so no argument reaches a shell either.
#pragma once

#include <string>
#include <vector>

namespace base {

// Runs gnuplot on `script` (written to a private temporary file) with `args`
// as its ARG1..ARG9; blocks until gnuplot exits. Throws std::invalid_argument
// past nine arguments, std::runtime_error saying what to do when gnuplot is
// missing or reports an error (its message goes to standard error).
void run_gnuplot(const std::string& script, const std::vector<std::string>& args);

// The terminal line for a PNG of width x height: pngcairo when this gnuplot
// has it, else the plain png terminal.
std::string png_terminal(int width, int height);

// `text` fit for a double-quoted string field of a gnuplot data file: a
// double quote becomes a single one and control characters (a newline
// would end the row) spaces. Data files are data, so this guards the rows'
// shape, not against code.
std::string data_label(const std::string& text);

}  // namespace base
