#include "bond_risk/protocol/messages.h"

#include <charconv>
#include <stdexcept>


namespace bond_risk::protocol {

std::string ok_line(const base::Json& members) {
  base::Json reply = {{member::ok, true}};
  reply.update(members);
  return base::dump_line(reply);
}

std::string error_line(std::string_view message) {
  return base::dump_line({{member::ok, false}, {member::error, message}});
}

std::string too_long_line(std::size_t bytes) {
  return error_line("the reply would be " + std::to_string(bytes) + " bytes, more than a reply may be (" +
                    std::to_string(kMaxReplyBytes) + "): ask for less, e.g. the first N (`limits all 1000`) or one book "
                    "(`limits BOOK`, `explain BOOK`)");
}

std::string update_line(std::string_view values, std::int64_t event) {
  // `values` is already an object's text (the server compares it to the
  // last one sent): spliced whole, never cut.
  std::string line = "{\"";
  line.append(member::update).append("\":").append(values);
  line.append(",\"").append(member::event).append("\":").append(std::to_string(event)).append("}");
  return line;
}

std::string alert_line(const base::Json& alert, std::int64_t event) {
  return base::dump_line({{member::alert, alert}, {member::event, event}});
}

namespace {

std::optional<std::int64_t> event_of(const base::Json& j) {
  const auto it = j.find(member::event);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

}  // namespace

Line decode_line(std::string_view text) {
  base::Json j = base::Json::parse(text, nullptr, false);
  if (!j.is_object()) throw std::runtime_error("the engine sent a line that is not a JSON object: " + std::string(text.substr(0, 200)));
  Line line;
  line.event = event_of(j);
  if (const auto it = j.find(member::update); it != j.end()) {
    line.kind = Line::Kind::update;
    line.body = std::move(*it);
  } else if (const auto a = j.find(member::alert); a != j.end()) {
    line.kind = Line::Kind::alert;
    line.body = std::move(*a);
  } else {
    line.ok = j.value(member::ok, false);
    line.error = line.ok ? std::string() : j.value(member::error, std::string("?"));
    line.body = std::move(j);
  }
  return line;
}

bool is_ok_line(std::string_view text) {
  const base::Json j = base::Json::parse(text, nullptr, false);
  return j.is_object() && j.value(member::ok, false) == true;
}

bool is_pushed_line(std::string_view text) {
  const base::Json j = base::Json::parse(text, nullptr, false);
  return j.is_object() && (j.contains(member::update) || j.contains(member::alert));
}

std::optional<std::int64_t> alert_seq(std::string_view text) {
  const std::string head = std::string("{\"") + member::alert + "\":";
  const std::string seq = std::string("\"") + member::seq + "\":";
  const std::size_t at = text.find(seq);
  if (!text.starts_with(head) || at == std::string_view::npos) return std::nullopt;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data() + at + seq.size(), text.data() + text.size(), value);
  if (ec != std::errc()) return std::nullopt;
  return value;
}

base::Json encode(const BookEntry& book) {
  return {{member::id, book.id}, {member::name, book.name}, {member::type, book.type}};
}

std::vector<BookEntry> decode_books(const base::Json& reply) {
  std::vector<BookEntry> books;
  for (const base::Json& b : reply.at(member::books)) {
    books.push_back({b.at(member::id).get<std::int64_t>(), b.at(member::name).get<std::string>(),
                     b.at(member::type).get<std::string>()});
  }
  return books;
}

base::Json histogram_json(const base::Histogram& h) {
  return {{member::le, base::Histogram::kBounds}, {member::cumulative, h.cumulative()}, {member::sum, h.sum()},
          {member::observations, h.count()}};
}

namespace {

std::optional<HistogramFigures> decode_histogram(const base::Json& stats_reply, const char* name) {
  const auto found = stats_reply.find(name);
  if (found == stats_reply.end() || !found->is_object()) return std::nullopt;
  HistogramFigures h{found->at(member::le).get<std::vector<double>>(),
                     found->at(member::cumulative).get<std::vector<std::uint64_t>>(), found->at(member::sum).get<double>(),
                     found->at(member::observations).get<std::uint64_t>()};
  if (h.le.size() != h.cumulative.size()) return std::nullopt;
  return h;
}

}  // namespace

EngineFigures decode_figures(const base::Json& stats_reply) {
  EngineFigures f;
  f.event = event_of(stats_reply).value_or(0);
  f.results_as_of = stats_reply.value(member::results_as_of, std::int64_t{0});
  f.recalc_us = stats_reply.value(member::recalc_us, base::Json());
  f.recalc_seconds = decode_histogram(stats_reply, member::recalc_seconds);
  f.commit_seconds = decode_histogram(stats_reply, member::commit_seconds);
  const base::Json counts = stats_reply.value(member::counts, base::Json::object());
  for (const std::string_view kind : {word::outright_book, word::repo_book}) {
    const auto of_kind = counts.find(std::string(kind));
    if (of_kind == counts.end()) continue;
    for (const auto& [status, count] : of_kind->items()) f.books += count.get<std::size_t>();
  }
  const base::Json memory = stats_reply.value(member::memory_kb, base::Json::object());
  if (memory.is_object() && memory.contains(member::vm_rss)) f.vm_rss_kb = memory.at(member::vm_rss).get<std::int64_t>();
  return f;
}

}  // namespace bond_risk::protocol
