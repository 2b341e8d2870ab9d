#include "engine/affinity.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace engine {

namespace {

int parse_cpu(std::string_view text, std::string_view whole, const std::string& setting) {
  int cpu = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), cpu);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || cpu < 0 || cpu >= CPU_SETSIZE) {
    throw std::invalid_argument(setting + ": '" + std::string(text) + "' in CPU list '" + std::string(whole) +
                                "' is not a CPU number (write a list like 0,1 or 0-15)");
  }
  return cpu;
}

}  // namespace

std::vector<int> parse_cpu_list(std::string_view text, const std::string& setting) {
  std::vector<int> cpus;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view part = text.substr(start, comma - start);
    const std::size_t dash = part.find('-');
    if (dash == std::string_view::npos) {
      cpus.push_back(parse_cpu(part, text, setting));
    } else {
      const int first = parse_cpu(part.substr(0, dash), text, setting);
      const int last = parse_cpu(part.substr(dash + 1), text, setting);
      if (last < first) throw std::invalid_argument(setting + ": CPU range '" + std::string(part) + "' runs backwards");
      for (int c = first; c <= last; ++c) cpus.push_back(c);
    }
    start = comma + 1;
  }
  return cpus;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out.append(1, '-').append(std::to_string(cpus[j]));
    i = j + 1;
  }
  return out;
}

void check_cpus_allowed(const std::vector<int>& cpus, const std::string& setting) {
  const std::vector<int> allowed = allowed_cpus();
  for (int c : cpus) {
    if (!std::binary_search(allowed.begin(), allowed.end(), c)) {
      throw std::invalid_argument(setting + ": CPU " + std::to_string(c) +
                                  " is not one this process may run on (allowed: " + format_cpu_list(allowed) + ")");
    }
  }
}

}  // namespace engine
