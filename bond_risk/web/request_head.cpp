#include "bond_risk/web/request_head.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace bond_risk::web {

namespace {

constexpr std::string_view kCrlf = "\r\n";

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool same_name(std::string_view a, std::string_view b) { return a.size() == b.size() && lower(a) == lower(b); }

// Compares in time independent of where the texts differ.
bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// RFC 9110's token characters, for method and header names.
bool token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), token_char); }

// Visible characters, spaces and tabs (no CR, LF, NUL or other controls).
bool is_text(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == '\t' || static_cast<unsigned char>(c) >= 0x20; });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

std::string percent_decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Every value of parameter `name` in `query` ("a=1&b=2"), decoded.
std::vector<std::string> params(std::string_view query, std::string_view name) {
  std::vector<std::string> out;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const std::size_t eq = pair.find('=');
    if (percent_decoded(pair.substr(0, eq)) == name) out.push_back(eq == std::string_view::npos ? "" : percent_decoded(pair.substr(eq + 1)));
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
  }
  return out;
}

struct Header {
  std::string_view name, value;
};

bool carries_token(std::string_view query, const std::vector<Header>& headers, const std::string& token) {
  for (const std::string& t : params(query, "token")) {
    if (same_secret(t, token)) return true;
  }
  const std::string bearer = "Bearer " + token;
  const std::string wanted = std::string(kTokenCookie) + "=";
  for (const Header& h : headers) {
    if (same_name(h.name, "Authorization") && same_secret(h.value, bearer)) return true;
    if (!same_name(h.name, "Cookie")) continue;
    for (std::string_view rest = h.value; !rest.empty();) {
      const std::size_t semi = rest.find(';');
      const std::string_view cookie = trim(rest.substr(0, semi));
      if (cookie.starts_with(wanted) && same_secret(cookie.substr(wanted.size()), token)) return true;
      rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
    }
  }
  return false;
}

CheckedHead refuse(int status, std::string error) {
  CheckedHead out;
  out.status = status;
  out.error = std::move(error);
  return out;
}

bool wildcard(const std::string& host) { return host.empty() || host == "0.0.0.0" || host == "::" || host == "[::]"; }

}  // namespace

std::size_t head_end(std::string_view received) {
  const std::size_t at = received.find("\r\n\r\n");
  return at == std::string_view::npos ? 0 : at + 4;
}

std::vector<std::string> accepted_hosts(const std::string& host, int port) {
  if (wildcard(host)) return {};
  const std::string listen = host.find(':') != std::string::npos && !host.starts_with("[") ? "[" + host + "]" : host;
  std::vector<std::string> out;
  for (const std::string& name : {lower(listen), std::string("localhost"), std::string("127.0.0.1"), std::string("[::1]")}) {
    if (std::find(out.begin(), out.end(), name + ":" + std::to_string(port)) != out.end()) continue;
    out.push_back(name + ":" + std::to_string(port));
    if (port == 80) out.push_back(name);
  }
  return out;
}

std::string query_param(std::string_view query, std::string_view name) {
  const std::vector<std::string> values = params(query, name);
  return values.empty() ? std::string() : values.front();
}

CheckedHead check_head(std::string_view head, const HeadRules& rules) {
  if (head.size() > kMaxHeadBytes) {
    return refuse(431, "the request's head is longer than " + std::to_string(kMaxHeadBytes) + " bytes: send fewer or shorter headers");
  }
  if (!head.ends_with("\r\n\r\n")) return refuse(400, "the request's head does not end with an empty line (CRLF CRLF)");
  head.remove_suffix(2);  // the empty line: every line below ends with CRLF

  const std::size_t line_end = head.find(kCrlf);
  const std::string_view line = head.substr(0, line_end);
  const std::size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
  if (sp1 == std::string_view::npos || sp1 == sp2) return refuse(400, "the request line is not METHOD TARGET HTTP/1.1");
  const std::string_view method = line.substr(0, sp1), target = line.substr(sp1 + 1, sp2 - sp1 - 1),
                         version = line.substr(sp2 + 1);
  if (!is_token(method) || target.empty() || target.front() != '/' || !is_text(target) ||
      target.find_first_of(" \t") != std::string_view::npos) {
    return refuse(400, "the request line is not METHOD TARGET HTTP/1.1 (the target starts with /)");
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return refuse(505, "only HTTP/1.0 and HTTP/1.1 are served");

  std::vector<Header> headers;
  for (std::size_t at = line_end + kCrlf.size(); at < head.size();) {
    const std::size_t end = head.find(kCrlf, at);
    const std::string_view h = head.substr(at, end - at);
    at = end + kCrlf.size();
    if (headers.size() == kMaxHeaders) {
      return refuse(431, "the request has more than " + std::to_string(kMaxHeaders) + " headers: send fewer");
    }
    const std::size_t colon = h.find(':');
    if (colon == std::string_view::npos || !is_token(h.substr(0, colon)) || !is_text(h.substr(colon + 1))) {
      return refuse(400, "a header line is not NAME: VALUE");
    }
    headers.push_back({h.substr(0, colon), trim(h.substr(colon + 1))});
  }

  std::optional<std::string_view> host;
  for (const Header& h : headers) {
    if (!same_name(h.name, "Host")) continue;
    if (host) return refuse(400, "the request has more than one Host header");
    host = h.value;
  }
  if (!host) return refuse(400, "the request has no Host header");
  if (!rules.hosts.empty() && std::find(rules.hosts.begin(), rules.hosts.end(), lower(*host)) == rules.hosts.end()) {
    return refuse(421, "this gateway answers only for " + rules.hosts.front() +
                           " or the loopback addresses (a page under another name could read it): open http://" +
                           rules.hosts.front() + "/");
  }

  const std::size_t question = target.find('?');
  const std::string_view path = target.substr(0, question);
  const std::string_view query = question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
  if (!rules.token.empty() && !carries_token(query, headers, rules.token)) {
    return refuse(401, "this gateway needs its token: open the page as /?token=TOKEN (the WEB_TOKEN it was started with)");
  }
  if (method != "GET" && method != "HEAD") return refuse(405, "the desk page's gateway serves GET and HEAD only");
  for (const Header& h : headers) {
    if (same_name(h.name, "Transfer-Encoding") || (same_name(h.name, "Content-Length") && h.value != "0")) {
      return refuse(413, "the desk page's gateway takes no request body");
    }
  }

  CheckedHead out;
  out.path = std::string(path);
  out.query = std::string(query);
  out.head.append(line).append(kCrlf);
  for (const Header& h : headers) {
    if (same_name(h.name, "Range") || same_name(h.name, "If-Range")) continue;
    out.head.append(h.name).append(": ").append(h.value).append(kCrlf);
  }
  out.head.append(kCrlf);
  return out;
}

}  // namespace bond_risk::web
