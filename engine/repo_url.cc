#include "engine/repo_url.h"

#include <algorithm>
#include <cctype>

namespace fleetwave::engine {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::string DefaultPort(const std::string& scheme) {
  if (scheme == "https") return "443";
  if (scheme == "http") return "80";
  if (scheme == "ssh") return "22";
  if (scheme == "git") return "9418";
  return "";
}

std::string CleanPath(std::string path) {
  if (path.empty() || path.front() != '/') path.insert(path.begin(), '/');
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path.size() > 4 && path.compare(path.size() - 4, 4, ".git") == 0)
    path.resize(path.size() - 4);
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path == "/") path.clear();
  return path;
}

// Splits "user[:password]@host[:port]" into `out`; false when there is no host.
bool ParseAuthority(const std::string& authority, RepoUrl& out) {
  std::string hostport = authority;
  const size_t at = authority.rfind('@');
  if (at != std::string::npos) {
    const std::string userinfo = authority.substr(0, at);
    const size_t colon = userinfo.find(':');
    out.user = userinfo.substr(0, colon);
    out.has_password = colon != std::string::npos;
    hostport = authority.substr(at + 1);
  }
  size_t port_colon = std::string::npos;
  if (!hostport.empty() && hostport.front() == '[') {
    const size_t close = hostport.find(']');
    if (close == std::string::npos) return false;
    if (close + 1 < hostport.size() && hostport[close + 1] == ':') port_colon = close + 1;
  } else {
    port_colon = hostport.rfind(':');
  }
  out.host = Lower(hostport.substr(0, port_colon));
  if (port_colon != std::string::npos) out.port = hostport.substr(port_colon + 1);
  if (out.port == DefaultPort(out.scheme)) out.port.clear();
  return !out.host.empty();
}

}  // namespace

std::optional<RepoUrl> ParseRepoUrl(const std::string& raw) {
  const std::string url = Trim(raw);
  RepoUrl out;
  const size_t sep = url.find("://");
  if (sep != std::string::npos) {
    out.scheme = Lower(url.substr(0, sep));
    if (out.scheme == "git+ssh" || out.scheme == "ssh+git") out.scheme = "ssh";
    if (out.scheme != "https" && out.scheme != "http" && out.scheme != "ssh" &&
        out.scheme != "git") {
      return std::nullopt;
    }
    const std::string rest = url.substr(sep + 3);
    const size_t slash = rest.find('/');
    if (!ParseAuthority(rest.substr(0, slash), out)) return std::nullopt;
    out.path = CleanPath(slash == std::string::npos ? "" : rest.substr(slash));
    return out;
  }
  // scp-like "[user@]host:path": a ':' before any '/'.
  const size_t colon = url.find(':');
  if (colon == std::string::npos || colon == 0 || url.find('/') < colon) return std::nullopt;
  out.scheme = "ssh";
  const std::string userhost = url.substr(0, colon);
  const size_t at = userhost.rfind('@');
  if (at != std::string::npos) out.user = userhost.substr(0, at);
  out.host = Lower(userhost.substr(at == std::string::npos ? 0 : at + 1));
  if (out.host.empty()) return std::nullopt;
  out.path = CleanPath(url.substr(colon + 1));
  return out;
}

std::string NormalizeRepoUrl(const std::string& url) {
  const std::optional<RepoUrl> u = ParseRepoUrl(url);
  if (!u) return url;
  std::string out = u->scheme + "://";
  if (u->scheme == "ssh" && !u->user.empty()) out += u->user + "@";
  out += u->host;
  if (!u->port.empty()) out += ":" + u->port;
  return out + u->path;
}

std::string RedactUrl(const std::string& url) {
  const size_t sep = url.find("://");
  if (sep == std::string::npos) return url;
  const size_t start = sep + 3;
  const size_t end = std::min(url.find('/', start), url.size());
  const size_t at = url.rfind('@', end);
  if (at == std::string::npos || at < start) return url;
  const size_t colon = url.find(':', start);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

const RepositoryConfig* FindRepository(const std::vector<RepositoryConfig>& repositories,
                                       const std::string& repo_url) {
  const std::optional<RepoUrl> url = ParseRepoUrl(repo_url);
  if (!url) return nullptr;
  const RepositoryConfig* best = nullptr;
  size_t best_length = 0;
  for (const RepositoryConfig& entry : repositories) {
    const std::optional<RepoUrl> prefix = ParseRepoUrl(entry.url);
    if (!prefix || prefix->scheme != url->scheme || prefix->host != url->host ||
        prefix->port != url->port) {
      continue;
    }
    if (!prefix->user.empty() && prefix->user != url->user) continue;
    const bool path_matches =
        url->path.compare(0, prefix->path.size(), prefix->path) == 0 &&
        (url->path.size() == prefix->path.size() || url->path[prefix->path.size()] == '/');
    if (!path_matches) continue;
    // Longest wins; a named user is more specific than none at the same path.
    const size_t length = prefix->path.size() * 2 + (prefix->user.empty() ? 0 : 1);
    if (best == nullptr || length > best_length) {
      best = &entry;
      best_length = length;
    }
  }
  return best;
}

}  // namespace fleetwave::engine
