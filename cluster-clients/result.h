// Results of Kubernetes requests as values. Every verb of the client reports one `Result`
// (never an exception): an outcome class the caller branches on, the HTTP status, the
// Kubernetes Status reason and message, and, for doctor-style reporting, the kind of problem.
// Plain values; safe to copy between threads.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/error.h"

namespace fleetwave::clients {

using Json = nlohmann::json;

// What the caller should do about a result.
enum class Outcome {
  kOk,         // 2xx
  kTransient,  // retry later: network errors, timeouts, 429, 5xx
  kConflict,   // 409: stale resourceVersion, SSA field conflict, already exists
  kNotFound,   // 404
  kPermanent,  // retrying will not help: 400/401/403/405/410/422, TLS, DNS, bad config
};

// Why a request failed, coarse enough for one human problem line (fleetwave doctor).
enum class Problem {
  kNone,
  kTls,                // certificate verification or handshake failed
  kUnauthorized,       // 401
  kForbidden,          // 403
  kTimeout,            // no answer in time
  kNoProgress,         // the server took the request and went silent (a hung server or path)
  kConnectionRefused,  // nothing listens
  kDns,                // host name does not resolve
  kConnection,         // connection reset / closed mid-request
  kThrottled,          // 429
  kServerError,        // 5xx
  kExpired,            // 410: resourceVersion or continue token too old
  kCredentials,        // the credential could not be obtained (exec plugin, token file)
  kRequest,            // the server rejected the request itself (4xx other than above)
  kOther,
};

const char* OutcomeName(Outcome o);
const char* ProblemName(Problem p);

struct Result {
  Outcome outcome = Outcome::kOk;
  Problem problem = Problem::kNone;
  int http_status = 0;  // 0 when no HTTP response arrived
  std::string reason;   // Kubernetes Status reason ("NotFound", "Conflict", ...) or ""
  std::string message;  // human text; never contains credentials
  Json object;          // the decoded response body for successes (null otherwise)
  std::optional<std::chrono::milliseconds> retry_after;  // from Retry-After on 429/503

  bool ok() const { return outcome == Outcome::kOk; }
  // "<outcome>: <reason>: <message>" for logs and errors.
  std::string ToString() const;
};

// Classifies a complete HTTP response. `body` is decoded as a Kubernetes Status when it is one.
Result ResultFromHttp(int status, const std::string& body,
                      std::optional<std::chrono::milliseconds> retry_after);

// A result for a failure before or outside any HTTP response.
Result ErrorResult(Outcome outcome, Problem problem, std::string message);

// The result of a failed request as the error vocabulary of every layer (engine/error.h): the
// outcome becomes the kind (kOk is not an error: kPermanent, should a caller ask), the text is
// `context` + ": " + ToString(), and `object` names what the request was about.
engine::ErrorKind ErrorKindOf(Outcome outcome);
engine::Error ToError(const Result& result, std::string object, const std::string& context);

// Parses a Retry-After header value (delta seconds; HTTP dates are not used by API servers).
std::optional<std::chrono::milliseconds> ParseRetryAfter(const std::string& value);

}  // namespace fleetwave::clients
