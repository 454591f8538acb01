// The bearer token that authorises the HTTP API's mutations: the trimmed content of
// apiTokenFile. The file is re-read when a presented token does not match (a rotated token works
// on its first use) and when the loaded copy is older than the refresh interval (a revoked token
// stops working within that interval). A file that cannot be read, is empty or too large leaves
// no token: every mutation is refused, and the condition is logged once per change, naming the
// file and never the token.
//
// Thread-safety: Check() may be called from any thread (a mutex serialises it).
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace fleetwave::api {

// Compares without an early exit, so the time taken does not reveal how much of a guess matched
// (ApiTokenTest.ConstantTimeEquals).
bool ConstantTimeEquals(std::string_view expected, std::string_view presented);

// The token of an `Authorization: Bearer <token>` header value (scheme case-insensitive, as
// RFC 7235 says), or nullopt for any other value.
std::optional<std::string_view> BearerToken(std::string_view authorization);

class ApiTokenSource {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  using Log = std::function<void(const std::string&)>;

  enum class Verdict {
    kAccepted,
    kWrong,        // a token was presented and does not match
    kUnavailable,  // no usable token file: nothing can match
  };

  // `clock` nullptr = steady_clock::now; `log` nullptr = stderr.
  // `consequence`: what a missing file means, for its log line.
  ApiTokenSource(std::string path, std::chrono::seconds refresh, Clock clock, Log log,
                 std::string consequence = "every API mutation is refused with 401");

  // REQUIRES: `presented` is non-empty (a missing header is refused before asking).
  Verdict Check(std::string_view presented);

  // The same for a secret that is not compared but used (a webhook's HMAC key): kAccepted
  // when `accepts` returns true for the file's content, the file read again once before
  // refusing (a rotated secret works on its first use).
  Verdict CheckWith(const std::function<bool(std::string_view secret)>& accepts);

  // Reads the file now (the server calls it at start, so a missing file is logged before the
  // first request rather than at it).
  void Reload();

 private:
  void LoadLocked(std::chrono::steady_clock::time_point now);

  const std::string path_;
  const std::chrono::seconds refresh_;
  const Clock clock_;
  const Log log_;
  const std::string consequence_;
  std::mutex mu_;
  bool loaded_once_ = false;
  std::chrono::steady_clock::time_point loaded_at_{};
  std::optional<std::string> token_;  // nullopt: no usable file
  std::string last_error_;            // logged condition, to log each change once
};

}  // namespace fleetwave::api
