#include "engine/etcd_url.h"

#include <cctype>
#include <string>

namespace fleetwave::engine {

namespace {

bool StartsWith(const std::string& s, const std::string& p) {
  return s.compare(0, p.size(), p) == 0;
}

// "host:port" with a port 1..65535; "[v6]:port" too.
bool ValidEndpoint(const std::string& e) {
  const size_t colon = e.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == e.size()) return false;
  const std::string host = e.substr(0, colon);
  const std::string port = e.substr(colon + 1);
  if (port.size() > 5) return false;
  for (char c : port) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  const long n = std::stol(port);
  if (n < 1 || n > 65535) return false;
  for (char c : host) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '[' ||
          c == ']' || c == ':')) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool IsEtcdUrl(const std::string& url) {
  return StartsWith(url, "etcd://") || StartsWith(url, "etcds://");
}

std::string ShownUrl(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t at = url.find('@');
  if (at == std::string::npos || scheme == std::string::npos || at < scheme) return url;
  return url.substr(0, scheme + 3) + "***" + url.substr(at);
}

std::optional<std::string> ParseEtcdUrl(const std::string& url, EtcdUrl* out) {
  EtcdUrl parsed;
  std::string rest;
  if (StartsWith(url, "etcds://")) {
    parsed.tls = true;
    rest = url.substr(8);
  } else if (StartsWith(url, "etcd://")) {
    rest = url.substr(7);
  } else {
    return "the scheme is not etcd:// or etcds://";
  }
  if (rest.find('@') != std::string::npos) {
    return "credentials in the URL are not supported (use etcds:// with client certificates)";
  }
  const size_t slash = rest.find('/');
  if (slash == std::string::npos) return "no /PREFIX after the endpoints";
  const std::string hosts = rest.substr(0, slash);
  std::string prefix = rest.substr(slash);
  while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
  if (prefix == "/") return "the PREFIX is empty";
  if (prefix.find_first_of("?#") != std::string::npos) {
    return "the PREFIX \"" + prefix + "\" has a query or fragment";
  }
  if (hosts.empty()) return "no HOST:PORT";
  size_t start = 0;
  while (true) {
    const size_t comma = hosts.find(',', start);
    const std::string e =
        hosts.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!ValidEndpoint(e)) return "endpoint \"" + e + "\" is not HOST:PORT";
    parsed.endpoints.push_back(e);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  parsed.prefix = prefix;
  *out = std::move(parsed);
  return std::nullopt;
}

}  // namespace fleetwave::engine
