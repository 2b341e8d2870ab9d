// Drawing with gnuplot (Debian's gnuplot-nox).
//
// gnuplot opens a file name that starts with '|' or '<' as a pipe through a
// shell, so no name or path from data, flags or the network may ever be a
// file name to gnuplot. The rule here: gnuplot runs with its working
// directory set to the directory of its files, and every file it opens is a
// constant relative name written in the program's own script. Names that
// are shown (titles, series) travel as the script's arguments (gnuplot's
// ARG1..ARG9, string variables it never parses as commands) or inside a data
// file; the caller copies the drawn file to wherever the user asked, as a
// plain file. gnuplot is started directly, without a shell.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace base {

// Runs gnuplot on `script` (written to a private temporary file) in the
// directory `dir`, with `args` as its ARG1..ARG9; blocks until gnuplot exits.
// Throws std::invalid_argument past nine arguments, std::runtime_error saying
// what to do when gnuplot is missing or reports an error (its message goes
// to standard error).
void run_gnuplot(const std::string& script, const std::vector<std::string>& args, const std::filesystem::path& dir);

// The names a PNG drawing's script uses: it reads kPlotData and writes (the
// terminal and output are set before it) kPlotOutput.
inline constexpr const char* kPlotData = "plot.dat";
inline constexpr const char* kPlotOutput = "plot.png";

// Draws a width x height PNG: writes `data` as kPlotData into a private
// temporary directory, runs `script` there with `args`, and copies the
// picture to `out` (any path: it is opened by this process as a plain file,
// never by gnuplot). Throws std::runtime_error as run_gnuplot does, or when
// `out` cannot be written.
void draw_png(int width, int height, const std::string& script, const std::string& data,
              const std::vector<std::string>& args, const std::string& out);

// The terminal line for a PNG of width x height: pngcairo when this gnuplot
// has it, else the plain png terminal.
std::string png_terminal(int width, int height);

// `text` fit for a double-quoted string field of a gnuplot data file: a
// double quote becomes a single one and control characters (a newline
// would end the row) spaces. Data files are data, so this guards the rows'
// shape, not against code.
std::string data_label(const std::string& text);

}  // namespace base
