// Discovery documents (/version, /api, /api/v1, /apis, /apis/G/V) and OpenAPI documents
// (/openapi/v2, /openapi/v3 index and per group-version) derived from the resource catalogue.
// `prefix` is the cluster's path prefix ("/clusters/sim-3" or "") for URLs the documents
// carry. Pure functions.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace fleetwave::kubesim {

using Json = nlohmann::json;

Json VersionInfo();
Json CoreApiVersions();
Json ApiGroupList();
std::optional<Json> ApiGroup(const std::string& group);
// nullopt when group/version is not served.
std::optional<Json> ApiResourceList(const std::string& group, const std::string& version);

Json OpenApiV2();
Json OpenApiV3Index(const std::string& prefix);
// `gv_path` like "api/v1" or "apis/apps/v1"; nullopt when not served.
std::optional<Json> OpenApiV3(const std::string& gv_path);

}  // namespace fleetwave::kubesim
