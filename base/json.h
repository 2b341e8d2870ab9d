// JSON values for replies and reports (nlohmann/json, keys kept in the
// order they are added), and their one-line text.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace base {

using Json = nlohmann::ordered_json;

// `value` on one line. Bytes that are not UTF-8 (a client's garbage echoed
// in an error) become U+FFFD, so the text is always valid JSON; non-finite
// numbers are null.
inline std::string dump_line(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace base
