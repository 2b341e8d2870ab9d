// CPU lists ("0,1", "0-15", "0-3,8") and the CPUs this process may run on.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace engine {

// The CPUs of `text`, in the order given. Throws std::invalid_argument
// naming `setting` and the part that is not a CPU number or range.
std::vector<int> parse_cpu_list(std::string_view text, const std::string& setting);

// The CPUs the calling process may run on (sched_getaffinity), ascending.
std::vector<int> allowed_cpus();

// "0-1,4": a short form of an ascending list, for messages.
std::string format_cpu_list(const std::vector<int>& cpus);

// Throws std::invalid_argument, naming `setting`, if a CPU is not allowed.
void check_cpus_allowed(const std::vector<int>& cpus, const std::string& setting);

}  // namespace engine
