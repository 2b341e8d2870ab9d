#include "base/gnuplot.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string_view>

#include "base/unique_fd.h"

extern char** environ;

namespace base {

namespace {

// A script file only this process can read, removed when it goes.
class ScriptFile {
 public:
  explicit ScriptFile(const std::string& text) {
    // Absolute: gnuplot reads it from its own working directory.
    std::string pattern = (std::filesystem::absolute(std::filesystem::temp_directory_path()) / "bond_risk-plot-XXXXXX").string();
    UniqueFd fd(mkstemp(pattern.data()));
    if (fd.get() < 0) throw std::runtime_error("cannot create a temporary gnuplot script in " + pattern);
    path_ = pattern;
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw std::runtime_error("cannot write the temporary gnuplot script " + path_);
      done += static_cast<std::size_t>(n);
    }
  }
  ~ScriptFile() { std::filesystem::remove(path_); }
  ScriptFile(const ScriptFile&) = delete;
  ScriptFile& operator=(const ScriptFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A directory only this process can use, removed with its contents when it goes.
class PrivateDirectory {
 public:
  PrivateDirectory() {
    std::string pattern = (std::filesystem::absolute(std::filesystem::temp_directory_path()) / "bond_risk-plot-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a temporary directory in " + pattern);
    path_ = pattern;
  }
  ~PrivateDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  PrivateDirectory(const PrivateDirectory&) = delete;
  PrivateDirectory& operator=(const PrivateDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// posix_spawn's file actions as an RAII object.
class SpawnActions {
 public:
  SpawnActions() { posix_spawn_file_actions_init(&actions_); }
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions_); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

// gnuplot's absolute path, found on PATH's absolute entries now: posix_spawnp
// would search PATH after the change of directory, where a relative entry
// (".", or an empty one) would find a program in the plot's directory.
std::string gnuplot_path() {
  const char* path = std::getenv("PATH");
  std::string_view entries = path ? path : "/usr/bin:/bin";
  while (!entries.empty()) {
    const std::size_t colon = entries.find(':');
    const std::string_view entry = entries.substr(0, colon);
    entries = colon == std::string_view::npos ? std::string_view() : entries.substr(colon + 1);
    if (entry.empty() || entry.front() != '/') continue;
    const std::string candidate = std::string(entry) + "/gnuplot";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  throw std::runtime_error("gnuplot is not installed (install Debian's gnuplot-nox: scripts/install-deps.sh)");
}

}  // namespace

void run_gnuplot(const std::string& script, const std::vector<std::string>& args, const std::filesystem::path& dir) {
  if (args.size() > 9) throw std::invalid_argument("run_gnuplot: gnuplot takes at most nine script arguments");
  const ScriptFile file(script);
  std::vector<std::string> words = {"gnuplot", "-c", file.path()};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  SpawnActions actions;
  const std::string where = std::filesystem::absolute(dir).string();
  if (posix_spawn_file_actions_addchdir_np(actions.get(), where.c_str()) != 0) {
    throw std::runtime_error("cannot set gnuplot's directory to " + where);
  }
  pid_t pid = 0;
  const std::string program = gnuplot_path();
  const int spawned = posix_spawn(&pid, program.c_str(), actions.get(), nullptr, argv.data(), environ);
  if (spawned == ENOENT) throw std::runtime_error("gnuplot is not installed (install Debian's gnuplot-nox: scripts/install-deps.sh)");
  if (spawned != 0) throw std::runtime_error("cannot start gnuplot in " + where + " (install Debian's gnuplot-nox: scripts/install-deps.sh)");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("gnuplot failed to draw the plot (its message is above)");
  }
}

void draw_png(int width, int height, const std::string& script, const std::string& data,
              const std::vector<std::string>& args, const std::string& out) {
  const PrivateDirectory dir;
  {
    std::ofstream file(dir.path() / kPlotData);
    file << data;
    if (!file.flush()) throw std::runtime_error("cannot write the plot's data in " + dir.path().string());
  }
  run_gnuplot(png_terminal(width, height) + "set output '" + kPlotOutput + "'\n" + script, args, dir.path());
  std::ifstream drawn(dir.path() / kPlotOutput, std::ios::binary);
  if (!drawn) throw std::runtime_error("gnuplot drew no picture (its message is above)");
  std::ofstream copy(out, std::ios::binary | std::ios::trunc);
  if (!copy) throw std::runtime_error("cannot write " + out + " (does its directory exist, and may it be written?)");
  copy << drawn.rdbuf();
  if (!drawn || !copy.flush()) throw std::runtime_error("cannot copy the drawn plot to " + out);
}

std::string png_terminal(int width, int height) {
  const std::string size = " size " + std::to_string(width) + "," + std::to_string(height);
  return "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo" + size +
         " font ',10' } else { set terminal png" + size + " }\n";
}

std::string data_label(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    if (c == '"') c = '\'';
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return out;
}

}  // namespace base
