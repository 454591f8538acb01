// The catalogue of resource types kubesim serves: names, kinds, scopes, verbs and served
// versions, as discovery reports them and as the request router resolves them. Immutable
// after static initialisation; safe to read from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fleetwave::kubesim {

using ResourceId = std::uint8_t;

struct ResourceType {
  ResourceId id;
  std::string group;                  // "" for the core group
  std::vector<std::string> versions;  // served versions; the first is the storage version
  std::string plural;
  std::string singular;
  std::string kind;
  bool namespaced;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  bool read_only;       // clients may only get/list/watch (controllers write these)
  bool has_status;      // a /status subresource exists and the main resource ignores status
  bool has_generation;  // metadata.generation tracks spec changes
  // Schema name prefix in OpenAPI without the version, e.g. "io.k8s.api.apps".
  std::string openapi_package;

  std::string ApiVersion(std::string_view version) const;
  std::string GroupVersionPath(std::string_view version) const;  // "api/v1", "apis/apps/v1"
  std::vector<std::string> Verbs() const;
  // A /scale subresource (autoscaling/v1 Scale) exists: kinds with spec.replicas.
  bool HasScale() const {
    return kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet" ||
           kind == "CloneSet";
  }
};

const std::vector<ResourceType>& AllResources();
const ResourceType& Resource(ResourceId id);
// The resource served at group/version/plural, or nullptr.
const ResourceType* FindResource(std::string_view group, std::string_view version,
                                 std::string_view plural);
const ResourceType* FindResourceByKind(std::string_view group, std::string_view kind);

// Well-known ids, for code that handles one kind specially.
inline constexpr ResourceId kNamespaces = 0;
inline constexpr ResourceId kDeployments = 6;
inline constexpr ResourceId kCloneSets = 10;

// Every group/version kubesim serves, in discovery order, e.g. {"", "v1"}, {"apps", "v1"}.
struct GroupVersion {
  std::string group;
  std::string version;
};
std::vector<GroupVersion> ServedGroupVersions();

}  // namespace fleetwave::kubesim
