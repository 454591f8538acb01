// Kubernetes `Status` objects: the error values every verb returns instead of throwing, and
// their JSON form with the reasons and codes real API servers use. Plain values; no state.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fleetwave::kubesim {

using Json = nlohmann::json;

struct StatusCause {
  std::string reason;
  std::string message;
  std::string field;
};

// A failed request: HTTP code, metav1.StatusReason, message and optional details.
struct ApiError {
  ApiError() = default;
  ApiError(int c, std::string r, std::string m, std::string k = "", std::string n = "",
           std::string g = "")
      : code(c),
        reason(std::move(r)),
        message(std::move(m)),
        kind(std::move(k)),
        name(std::move(n)),
        group(std::move(g)) {}

  int code = 500;
  std::string reason;
  std::string message;
  std::string kind;   // details.kind (resource plural's kind, e.g. "deployments")
  std::string name;   // details.name
  std::string group;  // details.group
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;

  Json ToJson() const;
};

ApiError NotFound(const std::string& group, const std::string& plural, const std::string& name);
// A path that names no resource or document.
ApiError NotFoundPath();
ApiError AlreadyExists(const std::string& group, const std::string& plural,
                       const std::string& name);
ApiError Conflict(const std::string& group, const std::string& plural, const std::string& name,
                  const std::string& why);
ApiError BadRequest(const std::string& message);
ApiError Invalid(const std::string& group, const std::string& kind, const std::string& name,
                 std::vector<StatusCause> causes);
ApiError MethodNotAllowed(const std::string& message);
ApiError Unauthorized();
ApiError Expired(const std::string& message);
ApiError UnsupportedMediaType(const std::string& content_type);
ApiError Forbidden(const std::string& message);

// A Status for a successful delete.
Json SuccessStatus(const std::string& group, const std::string& plural, const std::string& name,
                   const std::string& uid);

}  // namespace fleetwave::kubesim
