#include "cluster-clients/result.h"

#include <cstdlib>

#include "cluster-clients/json_fields.h"

namespace fleetwave::clients {

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kOk:
      return "ok";
    case Outcome::kTransient:
      return "transient";
    case Outcome::kConflict:
      return "conflict";
    case Outcome::kNotFound:
      return "not_found";
    case Outcome::kPermanent:
      return "permanent";
  }
  return "unknown";
}

const char* ProblemName(Problem p) {
  switch (p) {
    case Problem::kNone:
      return "none";
    case Problem::kTls:
      return "tls";
    case Problem::kUnauthorized:
      return "unauthorized";
    case Problem::kForbidden:
      return "forbidden";
    case Problem::kTimeout:
      return "timeout";
    case Problem::kNoProgress:
      return "no progress";
    case Problem::kConnectionRefused:
      return "connection refused";
    case Problem::kDns:
      return "dns";
    case Problem::kConnection:
      return "connection";
    case Problem::kThrottled:
      return "throttled";
    case Problem::kServerError:
      return "server error";
    case Problem::kExpired:
      return "expired";
    case Problem::kCredentials:
      return "credentials";
    case Problem::kRequest:
      return "request";
    case Problem::kOther:
      return "other";
  }
  return "unknown";
}

std::string Result::ToString() const {
  std::string s = OutcomeName(outcome);
  if (http_status != 0) s += " (" + std::to_string(http_status) + ")";
  if (!reason.empty()) s += ": " + reason;
  if (!message.empty()) s += ": " + message;
  return s;
}

Result ErrorResult(Outcome outcome, Problem problem, std::string message) {
  Result r;
  r.outcome = outcome;
  r.problem = problem;
  r.message = std::move(message);
  return r;
}

engine::ErrorKind ErrorKindOf(Outcome outcome) {
  switch (outcome) {
    case Outcome::kTransient:
      return engine::ErrorKind::kTransient;
    case Outcome::kConflict:
      return engine::ErrorKind::kConflict;
    case Outcome::kNotFound:
      return engine::ErrorKind::kNotFound;
    case Outcome::kOk:
    case Outcome::kPermanent:
      break;
  }
  return engine::ErrorKind::kPermanent;
}

engine::Error ToError(const Result& result, std::string object, const std::string& context) {
  return engine::Error{ErrorKindOf(result.outcome), std::move(object),
                       context.empty() ? result.ToString() : context + ": " + result.ToString()};
}

std::optional<std::chrono::milliseconds> ParseRetryAfter(const std::string& value) {
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  long long secs = std::strtoll(value.c_str(), &end, 10);
  if (end == value.c_str() || secs < 0) return std::nullopt;
  return std::chrono::milliseconds(secs * 1000);
}

Result ResultFromHttp(int status, const std::string& body,
                      std::optional<std::chrono::milliseconds> retry_after) {
  Result r;
  r.http_status = status;
  Json doc = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (status >= 200 && status < 300) {
    r.outcome = Outcome::kOk;
    r.object = doc.is_discarded() ? Json() : std::move(doc);
    return r;
  }
  // The body comes from the server or whatever proxy answered: read it without throwing
  // (cluster_client_test.cc, ResultTest.OddStatusBodiesDoNotThrow).
  FieldReader fields(doc);
  const bool is_status = doc.is_object() && fields.String({"kind"}) == "Status";
  if (is_status) {
    r.reason = fields.String({"reason"});
    r.message = fields.String({"message"});
    r.object = std::move(doc);
  } else {
    // A proxy or load balancer answered: keep a short, single-line excerpt.
    std::string excerpt = body.substr(0, 200);
    for (char& c : excerpt)
      if (c == '\n' || c == '\r') c = ' ';
    r.message = excerpt;
  }
  if (status == 429 || status == 503) r.retry_after = retry_after;
  switch (status) {
    case 404:
      r.outcome = Outcome::kNotFound;
      r.problem = Problem::kRequest;
      break;
    case 409:
      r.outcome = Outcome::kConflict;
      r.problem = Problem::kRequest;
      break;
    case 401:
      r.outcome = Outcome::kPermanent;
      r.problem = Problem::kUnauthorized;
      break;
    case 403:
      r.outcome = Outcome::kPermanent;
      r.problem = Problem::kForbidden;
      break;
    case 410:
      r.outcome = Outcome::kPermanent;
      r.problem = Problem::kExpired;
      break;
    case 408:
      r.outcome = Outcome::kTransient;
      r.problem = Problem::kTimeout;
      break;
    case 429:
      r.outcome = Outcome::kTransient;
      r.problem = Problem::kThrottled;
      break;
    case 504:
      r.outcome = Outcome::kTransient;
      r.problem = Problem::kTimeout;
      break;
    default:
      if (status >= 500) {
        // 501 Not Implemented will not get better by retrying.
        r.outcome = status == 501 ? Outcome::kPermanent : Outcome::kTransient;
        r.problem = Problem::kServerError;
      } else {
        r.outcome = Outcome::kPermanent;
        r.problem = Problem::kRequest;
      }
  }
  if (r.reason.empty()) {
    // Keep the Kubernetes reason vocabulary even when a proxy answered.
    static const std::pair<int, const char*> kReasons[] = {
        {400, "BadRequest"},    {401, "Unauthorized"},
        {403, "Forbidden"},     {404, "NotFound"},
        {409, "Conflict"},      {410, "Expired"},
        {422, "Invalid"},       {429, "TooManyRequests"},
        {500, "InternalError"}, {503, "ServiceUnavailable"},
        {504, "Timeout"}};
    for (const auto& [code, reason] : kReasons)
      if (code == status) r.reason = reason;
  }
  return r;
}

}  // namespace fleetwave::clients
