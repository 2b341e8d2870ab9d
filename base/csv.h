// One line of comma-separated values (RFC 4180): fields split at commas; a
// field in double quotes may hold commas, and "" for a quote. A line's
// trailing carriage return is dropped. Plain functions, any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace base {

// The fields of `line`, or nullopt when a quoted field is not closed or a
// quote is followed by something other than a comma.
std::optional<std::vector<std::string>> csv_fields(std::string_view line);

}  // namespace base
