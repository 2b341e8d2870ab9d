#include "base/csv.h"

namespace base {

std::optional<std::vector<std::string>> csv_fields(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<std::string> fields(1);
  std::size_t i = 0;
  while (i <= line.size()) {
    std::string& field = fields.back();
    if (i < line.size() && line[i] == '"') {  // quoted: to the closing quote, "" a quote
      for (++i;; ++i) {
        if (i >= line.size()) return std::nullopt;
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"', ++i;
            continue;
          }
          ++i;
          break;
        }
        field += line[i];
      }
      if (i < line.size() && line[i] != ',') return std::nullopt;
    } else {
      const std::size_t comma = line.find(',', i);
      field.append(line.substr(i, comma == std::string_view::npos ? std::string_view::npos : comma - i));
      i = comma == std::string_view::npos ? line.size() : comma;
    }
    if (i >= line.size()) break;
    ++i;  // past the comma
    fields.emplace_back();
  }
  return fields;
}

}  // namespace base
