// The head of an HTTP request to the desk page's gateway (request line and
// headers), checked before anything else reads it: its size and header
// count are bounded, only GET and HEAD without a body are taken, the Host
// must name this gateway (a DNS-rebinding page cannot read it), and the
// token is checked. What passes goes on to cpp-httplib rewritten, without
// Range headers (every response is whole: no ranges to multiply).
//
// Pure functions of their arguments, callable from any thread; no sockets
// (a fuzz target calls them on any bytes).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace bond_risk::web {

inline constexpr std::size_t kMaxHeadBytes = 8192;  // request line and headers together
inline constexpr std::size_t kMaxHeaders = 64;
inline constexpr const char* kTokenCookie = "bond_risk_token";

// Where the head in `received` ends (just past its empty line); 0 while
// incomplete. A head longer than kMaxHeadBytes is refused by check_head.
std::size_t head_end(std::string_view received);

struct HeadRules {
  std::string token;               // "" : anyone may ask
  std::vector<std::string> hosts;  // accepted Host values, lower case ("name:port"); empty: any
};

// The Host values a gateway listening on `host`:`port` answers to: that
// address and the loopback names, with the port (alone too on port 80);
// none (any Host) for a wildcard address, which needs a token instead.
std::vector<std::string> accepted_hosts(const std::string& host, int port);

struct CheckedHead {
  int status = 0;     // 0: accepted; otherwise the HTTP status to refuse with
  std::string error;  // why it is refused, and what to do
  std::string path;   // accepted: the target without its query
  std::string query;  // accepted: the target after its '?'
  std::string head;   // accepted: the head to hand on, CRLF lines, no Range or If-Range
};

// The first value of parameter `name` in `query` ("a=1&b=2"), decoded; "" when absent.
std::string query_param(std::string_view query, std::string_view name);

// Checks `head` (up to and including its empty line, as head_end found it).
CheckedHead check_head(std::string_view head, const HeadRules& rules);

}  // namespace bond_risk::web
