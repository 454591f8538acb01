// Rendering an Application's manifests into the exact objects a sync applies: default the
// namespace of namespaced objects to the app's destination namespace, mark each object (the
// tracking-id annotation, the app label, the applied-hash annotation; engine/sync/tracking.h) and
// order them so that Namespaces and CustomResourceDefinitions exist before what lives in them.
// The daemon and `fleetwave render` both call Render; it is pure (the manifests are already
// read, discovery data is a value).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "engine/input_limits.h"
#include "engine/issue.h"
#include "engine/object_ref.h"
#include "engine/sync/tracking.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// Which kinds are cluster-scoped, as a cluster's discovery reports them ("namespaced: false").
// Kinds not listed are namespaced. Keys are "<group>/<kind>" ("/Namespace" for the core group).
struct Discovery {
  std::set<std::string> cluster_scoped;

  bool IsClusterScoped(const std::string& group, const std::string& kind) const {
    return cluster_scoped.count(group + "/" + kind) > 0;
  }
  // The cluster-scoped kinds every Kubernetes API server serves, for renders done without a
  // cluster at hand (`fleetwave render`).
  static Discovery BuiltIn();
};

// One manifest document. `origin` locates it for issues ("<repo>@<sha>:<file>:<line>:<col>").
struct ManifestDocument {
  std::string origin;
  Json object;
};

struct RenderInput {
  AppIdentity app;
  // spec.destination.namespace of the Application. Empty: namespaced objects without a
  // namespace go to "default", as the API server itself would put them.
  std::string destination_namespace;
  std::vector<ManifestDocument> manifests;  // in source order: file name, then document
  Discovery discovery;
};

struct RenderedObject {
  ObjectRef ref;
  std::string tracking_id;
  std::string applied_hash;
  Json object;  // the complete object as applied, marks included
};

struct RenderResult {
  // Namespaces first, then CustomResourceDefinitions, then everything else; within each
  // group, source order (file name, then document), which is stable across renders.
  std::vector<RenderedObject> objects;
  Issues issues;  // one per unusable document; the other documents are still rendered
};

// Renders every manifest. A `v1` `List` is flattened into its items. CRDs among the
// manifests with `spec.scope: Cluster` add their kind to the cluster-scoped kinds. A
// cluster-scoped object's namespace is cleared. Issues: a document that is not an object, an
// object without apiVersion, kind or metadata.name, a name or namespace Kubernetes would refuse
// (engine/k8s_names.h: they become request paths), and an object defined twice. An invalid
// destination namespace, or objects whose canonical JSON together exceeds
// `limits.max_render_bytes`, fail the whole render: one issue, no objects.
RenderResult Render(const RenderInput& input, const InputLimits& limits = {});

// The object with Secret values hidden, for output meant for people: a core `Secret`'s
// `data` and `stringData` values, its applied hash (a short hash of secret content can be
// brute-forced) and a `kubectl.kubernetes.io/last-applied-configuration` annotation become
// "<redacted>". Other objects are returned unchanged.
Json RedactSecret(const Json& object);

inline constexpr const char* kRedacted = "<redacted>";

}  // namespace fleetwave::engine
