#include "api/api_token.h"

#include <cerrno>
#include <cstdio>
#include <iostream>
#include <system_error>
#include <utility>

namespace fleetwave::api {
namespace {

// A token is a line of text; anything larger is a wrong path (a binary, a log), not a token.
constexpr size_t kMaxTokenFileBytes = 64 * 1024;

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// The file's trimmed content, or the reason there is no usable token.
std::pair<std::optional<std::string>, std::string> ReadToken(const std::string& path) {
  if (path.empty()) return {std::nullopt, "no apiTokenFile is configured"};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const std::string why = std::error_code(errno, std::generic_category()).message();
    return {std::nullopt, "token file " + path + " cannot be read: " + why};
  }
  std::string content(kMaxTokenFileBytes + 1, '\0');
  const size_t n = std::fread(content.data(), 1, content.size(), f);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return {std::nullopt, "token file " + path + " cannot be read"};
  if (n > kMaxTokenFileBytes) {
    return {std::nullopt, "token file " + path + " is larger than 64 KiB"};
  }
  content.resize(n);
  std::string_view token = Trim(content);
  if (token.empty()) return {std::nullopt, "token file " + path + " is empty"};
  return {std::string(token), ""};
}

}  // namespace

bool ConstantTimeEquals(std::string_view expected, std::string_view presented) {
  // Walks the whole expected token whatever the presented one holds; the length difference is
  // folded into the same accumulator instead of returning early.
  unsigned char diff = expected.size() == presented.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i) {
    const unsigned char p = i < presented.size() ? static_cast<unsigned char>(presented[i]) : 0;
    diff |= static_cast<unsigned char>(static_cast<unsigned char>(expected[i]) ^ p);
  }
  return diff == 0 && !expected.empty();
}

std::optional<std::string_view> BearerToken(std::string_view authorization) {
  authorization = Trim(authorization);
  constexpr std::string_view kScheme = "bearer";
  if (authorization.size() <= kScheme.size()) return std::nullopt;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    const char c = authorization[i];
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (lower != kScheme[i]) return std::nullopt;
  }
  if (authorization[kScheme.size()] != ' ' && authorization[kScheme.size()] != '\t') {
    return std::nullopt;
  }
  std::string_view token = Trim(authorization.substr(kScheme.size()));
  if (token.empty()) return std::nullopt;
  return token;
}

ApiTokenSource::ApiTokenSource(std::string path, std::chrono::seconds refresh, Clock clock, Log log,
                               std::string consequence)
    : path_(std::move(path)),
      refresh_(refresh),
      clock_(std::move(clock)),
      log_(std::move(log)),
      consequence_(std::move(consequence)) {}

void ApiTokenSource::LoadLocked(std::chrono::steady_clock::time_point now) {
  auto [token, error] = ReadToken(path_);
  const bool changed = token != token_;
  loaded_at_ = now;
  // Logged once per change of condition, never per request, and never the token itself
  // (ApiAuthTest.MissingTokenFileRefusesEveryMutation).
  if (!token && error != last_error_) {
    const std::string line = "api: " + error + "; " + consequence_ + " until it can be read";
    if (log_) {
      log_(line);
    } else {
      std::cerr << line << "\n";
    }
  } else if (token && (changed || !last_error_.empty()) && loaded_once_) {
    const std::string line = "api: token file " + path_ + " loaded a new token";
    if (log_) {
      log_(line);
    } else {
      std::cerr << line << "\n";
    }
  }
  loaded_once_ = true;
  last_error_ = error;
  token_ = std::move(token);
}

void ApiTokenSource::Reload() {
  std::lock_guard<std::mutex> lock(mu_);
  LoadLocked(clock_ ? clock_() : std::chrono::steady_clock::now());
}

ApiTokenSource::Verdict ApiTokenSource::CheckWith(
    const std::function<bool(std::string_view secret)>& accepts) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = clock_ ? clock_() : std::chrono::steady_clock::now();
  if (!loaded_once_ || now - loaded_at_ >= refresh_) LoadLocked(now);
  if (token_ && accepts(*token_)) return Verdict::kAccepted;
  LoadLocked(now);
  if (!token_) return Verdict::kUnavailable;
  return accepts(*token_) ? Verdict::kAccepted : Verdict::kWrong;
}

ApiTokenSource::Verdict ApiTokenSource::Check(std::string_view presented) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = clock_ ? clock_() : std::chrono::steady_clock::now();
  if (!loaded_once_ || now - loaded_at_ >= refresh_) LoadLocked(now);
  if (token_ && ConstantTimeEquals(*token_, presented)) return Verdict::kAccepted;
  // A mismatch may be a rotated file: read it again before refusing (ApiAuthTest.RotatedToken).
  LoadLocked(now);
  if (!token_) return Verdict::kUnavailable;
  return ConstantTimeEquals(*token_, presented) ? Verdict::kAccepted : Verdict::kWrong;
}

}  // namespace fleetwave::api
