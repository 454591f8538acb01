#include "tools/kubesim/discovery.h"

#include "tools/kubesim/resources.h"

namespace fleetwave::kubesim {

namespace {

Json GroupJson(const std::string& group) {
  Json versions = Json::array();
  for (const auto& gv : ServedGroupVersions())
    if (gv.group == group)
      versions.push_back({{"groupVersion", group + "/" + gv.version}, {"version", gv.version}});
  return {{"name", group}, {"versions", versions}, {"preferredVersion", versions.front()}};
}

}  // namespace

Json VersionInfo() {
  return {{"major", "1"},
          {"minor", "32"},
          {"gitVersion", "v1.32.0-kubesim"},
          {"gitCommit", "70d3cc986aa8221cd1dfb1121852688902d3bf53"},
          {"gitTreeState", "clean"},
          {"buildDate", "2024-12-11T17:59:15Z"},
          {"goVersion", "go1.23.3"},
          {"compiler", "gc"},
          {"platform", "linux/amd64"}};
}

Json CoreApiVersions() {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs",
           {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", "127.0.0.1:6443"}}}}};
}

Json ApiGroupList() {
  Json groups = Json::array();
  for (const char* g : {"apps", "apps.kruise.io"}) groups.push_back(GroupJson(g));
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

std::optional<Json> ApiGroup(const std::string& group) {
  if (group != "apps" && group != "apps.kruise.io") return std::nullopt;
  Json g = GroupJson(group);
  g["kind"] = "APIGroup";
  g["apiVersion"] = "v1";
  return g;
}

std::optional<Json> ApiResourceList(const std::string& group, const std::string& version) {
  bool served = false;
  for (const auto& gv : ServedGroupVersions())
    if (gv.group == group && gv.version == version) served = true;
  if (!served) return std::nullopt;
  Json resources = Json::array();
  for (const auto& t : AllResources()) {
    if (!FindResource(group, version, t.plural) || &t != FindResource(group, version, t.plural))
      continue;
    Json r = {
        {"name", t.plural},           {"singularName", t.singular},
        {"namespaced", t.namespaced}, {"kind", t.kind},
        {"verbs", t.Verbs()},         {"storageVersionHash", t.kind.substr(0, 4) + "kubesim="}};
    if (!t.short_names.empty()) r["shortNames"] = t.short_names;
    if (!t.categories.empty()) r["categories"] = t.categories;
    resources.push_back(r);
    if (t.HasScale())
      resources.push_back({{"name", t.plural + "/scale"},
                           {"singularName", ""},
                           {"namespaced", t.namespaced},
                           {"group", "autoscaling"},
                           {"version", "v1"},
                           {"kind", "Scale"},
                           {"verbs", {"get", "patch", "update"}}});
    if (t.has_status)
      resources.push_back({{"name", t.plural + "/status"},
                           {"singularName", ""},
                           {"namespaced", t.namespaced},
                           {"kind", t.kind},
                           {"verbs", {"get", "patch", "update"}}});
  }
  return Json{{"kind", "APIResourceList"},
              {"apiVersion", "v1"},
              {"groupVersion", group.empty() ? version : group + "/" + version},
              {"resources", resources}};
}

}  // namespace fleetwave::kubesim
