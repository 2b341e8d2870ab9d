// libFuzzer target: the desk page gateway's check of a request head
// (request line, headers, query, Host, token, Range), as the gateway calls
// it on what a client sent. Any bytes are refused with an HTTP error status
// and a reason, or accepted; an accepted head goes on without Range headers,
// and (within the size bound) is accepted again as it is, to the same path.
// Built and run by `make fuzz`.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "bond_risk/web/request_head.h"

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

void check(std::string_view received, const bond_risk::web::HeadRules& rules) {
  using namespace bond_risk::web;
  const std::size_t end = head_end(received);
  if (end > received.size()) std::abort();
  const CheckedHead head = check_head(received.substr(0, end == 0 ? received.size() : end), rules);
  if (head.status != 0) {
    if (head.status < 400 || head.status > 599 || head.error.empty()) std::abort();
    return;
  }
  if (end == 0 || !head.path.starts_with("/") || lower(head.head).find("\r\nrange:") != std::string::npos) std::abort();
  query_param(head.query, "ladder");
  if (head.head.size() > kMaxHeadBytes) return;
  const CheckedHead again = check_head(head.head, rules);
  if (again.status != 0 || again.head != head.head || again.path != head.path || again.query != head.query) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view received(reinterpret_cast<const char*>(data), size);
  static const bond_risk::web::HeadRules guarded{"s3cret", bond_risk::web::accepted_hosts("127.0.0.1", 8080)};
  static const bond_risk::web::HeadRules open{"", bond_risk::web::accepted_hosts("0.0.0.0", 8080)};
  check(received, guarded);
  check(received, open);
  return 0;
}
