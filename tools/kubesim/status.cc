#include "tools/kubesim/status.h"

namespace fleetwave::kubesim {

Json ApiError::ToJson() const {
  Json s = {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", Json::object()},
            {"status", "Failure"}, {"message", message}, {"reason", reason},
            {"code", code}};
  Json details = Json::object();
  if (!name.empty()) details["name"] = name;
  if (!group.empty()) details["group"] = group;
  if (!kind.empty()) details["kind"] = kind;
  if (!causes.empty()) {
    Json cs = Json::array();
    for (const auto& c : causes) {
      Json j = {{"reason", c.reason}, {"message", c.message}};
      if (!c.field.empty()) j["field"] = c.field;
      cs.push_back(j);
    }
    details["causes"] = cs;
  }
  if (retry_after_seconds > 0) details["retryAfterSeconds"] = retry_after_seconds;
  if (!details.empty()) s["details"] = details;
  return s;
}

namespace {
std::string Qualified(const std::string& group, const std::string& plural) {
  return group.empty() ? plural : plural + "." + group;
}
}  // namespace

ApiError NotFound(const std::string& group, const std::string& plural, const std::string& name) {
  return {404,    "NotFound", Qualified(group, plural) + " \"" + name + "\" not found",
          plural, name,       group};
}

ApiError NotFoundPath() {
  return {404, "NotFound", "the server could not find the requested resource"};
}

ApiError AlreadyExists(const std::string& group, const std::string& plural,
                       const std::string& name) {
  return {409,
          "AlreadyExists",
          Qualified(group, plural) + " \"" + name + "\" already exists",
          plural,
          name,
          group};
}

ApiError Conflict(const std::string& group, const std::string& plural, const std::string& name,
                  const std::string& why) {
  return {
      409,
      "Conflict",
      "Operation cannot be fulfilled on " + Qualified(group, plural) + " \"" + name + "\": " + why,
      plural,
      name,
      group};
}

ApiError BadRequest(const std::string& message) { return {400, "BadRequest", message}; }

ApiError Invalid(const std::string& group, const std::string& kind, const std::string& name,
                 std::vector<StatusCause> causes) {
  std::string msg = (group.empty() ? kind : kind + "." + group) + " \"" + name + "\" is invalid: ";
  for (std::size_t i = 0; i < causes.size(); ++i) {
    if (i) msg += ", ";
    msg += causes[i].field + ": " + causes[i].message;
  }
  ApiError e{422, "Invalid", msg, kind, name, group};
  e.causes = std::move(causes);
  return e;
}

ApiError MethodNotAllowed(const std::string& message) { return {405, "MethodNotAllowed", message}; }

ApiError Unauthorized() { return {401, "Unauthorized", "Unauthorized"}; }

ApiError Expired(const std::string& message) { return {410, "Expired", message}; }

ApiError UnsupportedMediaType(const std::string& content_type) {
  return {415, "UnsupportedMediaType",
          "the body of the request was in an unknown format - "
          "accepted media types include: application/json, "
          "application/yaml (got " +
              content_type + ")"};
}

ApiError Forbidden(const std::string& message) { return {403, "Forbidden", message}; }

Json SuccessStatus(const std::string& group, const std::string& plural, const std::string& name,
                   const std::string& uid) {
  Json details = {{"name", name}, {"kind", plural}, {"uid", uid}};
  if (!group.empty()) details["group"] = group;
  return {{"kind", "Status"},
          {"apiVersion", "v1"},
          {"metadata", Json::object()},
          {"status", "Success"},
          {"details", details}};
}

}  // namespace fleetwave::kubesim
