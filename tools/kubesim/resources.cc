#include "tools/kubesim/resources.h"

namespace fleetwave::kubesim {

namespace {

std::vector<ResourceType> Build() {
  std::vector<ResourceType> r;
  auto add = [&r](ResourceType t) {
    t.id = static_cast<ResourceId>(r.size());
    r.push_back(std::move(t));
  };
  const std::vector<std::string> core_v1{"v1"};
  const std::vector<std::string> apps_v1{"v1"};
  add({0,
       "",
       core_v1,
       "namespaces",
       "namespace",
       "Namespace",
       false,
       {"ns"},
       {},
       false,
       true,
       false,
       "io.k8s.api.core"});
  add({0,
       "",
       core_v1,
       "configmaps",
       "configmap",
       "ConfigMap",
       true,
       {"cm"},
       {},
       false,
       false,
       false,
       "io.k8s.api.core"});
  add({0,
       "",
       core_v1,
       "secrets",
       "secret",
       "Secret",
       true,
       {},
       {},
       false,
       false,
       false,
       "io.k8s.api.core"});
  add({0,
       "",
       core_v1,
       "services",
       "service",
       "Service",
       true,
       {"svc"},
       {"all"},
       false,
       true,
       false,
       "io.k8s.api.core"});
  add({0,
       "",
       core_v1,
       "serviceaccounts",
       "serviceaccount",
       "ServiceAccount",
       true,
       {"sa"},
       {},
       false,
       false,
       false,
       "io.k8s.api.core"});
  add({0,
       "",
       core_v1,
       "events",
       "event",
       "Event",
       true,
       {"ev"},
       {},
       true,
       false,
       false,
       "io.k8s.api.core"});
  add({0,
       "apps",
       apps_v1,
       "deployments",
       "deployment",
       "Deployment",
       true,
       {"deploy"},
       {"all"},
       false,
       true,
       true,
       "io.k8s.api.apps"});
  add({0,
       "apps",
       apps_v1,
       "statefulsets",
       "statefulset",
       "StatefulSet",
       true,
       {"sts"},
       {"all"},
       false,
       true,
       true,
       "io.k8s.api.apps"});
  add({0,
       "apps",
       apps_v1,
       "daemonsets",
       "daemonset",
       "DaemonSet",
       true,
       {"ds"},
       {"all"},
       false,
       true,
       true,
       "io.k8s.api.apps"});
  add({0,
       "apps",
       apps_v1,
       "replicasets",
       "replicaset",
       "ReplicaSet",
       true,
       {"rs"},
       {"all"},
       true,
       true,
       true,
       "io.k8s.api.apps"});
  add({0,
       "apps.kruise.io",
       {"v1alpha1", "v1beta1"},
       "clonesets",
       "cloneset",
       "CloneSet",
       true,
       {"clone"},
       {"all"},
       false,
       true,
       true,
       "com.openkruise.apps"});
  return r;
}

}  // namespace

const std::vector<ResourceType>& AllResources() {
  static const std::vector<ResourceType> all = Build();
  return all;
}

const ResourceType& Resource(ResourceId id) { return AllResources()[id]; }

std::string ResourceType::ApiVersion(std::string_view version) const {
  return group.empty() ? std::string(version) : group + "/" + std::string(version);
}

std::string ResourceType::GroupVersionPath(std::string_view version) const {
  return group.empty() ? "api/" + std::string(version)
                       : "apis/" + group + "/" + std::string(version);
}

std::vector<std::string> ResourceType::Verbs() const {
  if (read_only) return {"get", "list", "watch"};
  return {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
}

const ResourceType* FindResource(std::string_view group, std::string_view version,
                                 std::string_view plural) {
  for (const auto& t : AllResources()) {
    if (t.group != group || t.plural != plural) continue;
    for (const auto& v : t.versions)
      if (v == version) return &t;
  }
  return nullptr;
}

const ResourceType* FindResourceByKind(std::string_view group, std::string_view kind) {
  for (const auto& t : AllResources())
    if (t.group == group && t.kind == kind) return &t;
  return nullptr;
}

std::vector<GroupVersion> ServedGroupVersions() {
  // For apps.kruise.io the first listed version is the preferred one, as Kruise serves it.
  return {
      {"", "v1"}, {"apps", "v1"}, {"apps.kruise.io", "v1alpha1"}, {"apps.kruise.io", "v1beta1"}};
}

}  // namespace fleetwave::kubesim
