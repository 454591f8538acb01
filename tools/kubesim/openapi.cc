// OpenAPI documents: enough schema for kubectl's field-validation negotiation and `kubectl
// explain`. Workload specs are permissive (x-kubernetes-preserve-unknown-fields) except the
// Deployment spec, which is spelled out so `explain deployment.spec` has fields to show.
#include <functional>

#include "tools/kubesim/discovery.h"
#include "tools/kubesim/resources.h"

namespace fleetwave::kubesim {

namespace {

constexpr const char* kMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.";

using RefFn = std::function<Json(const std::string&)>;

Json Prop(const char* type, const char* description) {
  return {{"type", type}, {"description", description}};
}

Json RefProp(const RefFn& ref, const std::string& name, const char* description) {
  return {{"allOf", {ref(name)}}, {"description", description}, {"default", Json::object()}};
}

Json Permissive(const char* description) {
  return {{"type", "object"},
          {"description", description},
          {"x-kubernetes-preserve-unknown-fields", true}};
}

std::string SchemaName(const ResourceType& t, const std::string& version, const std::string& kind) {
  return t.openapi_package + "." + version + "." + kind;
}

Json Gvk(const std::string& group, const std::string& version, const std::string& kind) {
  return {{"group", group}, {"version", version}, {"kind", kind}};
}

// All schemas for one served group/version, keyed by name.
Json Schemas(const RefFn& ref, const std::string& group, const std::string& version) {
  Json s = Json::object();
  Json string_map = {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}};
  s[std::string(kMeta) + "ObjectMeta"] = {
      {"type", "object"},
      {"description", "Metadata every persisted object carries: identity, labels, ownership."},
      {"properties",
       {{"name", Prop("string", "Unique name within the namespace.")},
        {"generateName", Prop("string", "Prefix for a server-generated name.")},
        {"namespace", Prop("string", "Namespace the object lives in.")},
        {"uid", Prop("string", "Server-assigned unique id.")},
        {"resourceVersion", Prop("string", "Opaque version for optimistic concurrency.")},
        {"generation",
         {{"type", "integer"},
          {"format", "int64"},
          {"description", "Sequence number of spec changes."}}},
        {"creationTimestamp",
         {{"type", "string"},
          {"format", "date-time"},
          {"description", "When the object was created."}}},
        {"deletionTimestamp",
         {{"type", "string"},
          {"format", "date-time"},
          {"description", "When deletion was requested."}}},
        {"deletionGracePeriodSeconds",
         {{"type", "integer"},
          {"format", "int64"},
          {"description", "Grace period before removal."}}},
        {"labels", string_map},
        {"annotations", string_map},
        {"finalizers",
         {{"type", "array"},
          {"items", {{"type", "string"}}},
          {"description", "Must be empty before the object is removed."}}},
        {"ownerReferences",
         {{"type", "array"},
          {"items", Permissive("An object this one depends on.")},
          {"x-kubernetes-patch-merge-key", "uid"},
          {"x-kubernetes-patch-strategy", "merge"}}},
        {"managedFields", {{"type", "array"}, {"items", Permissive("Field ownership entry.")}}}}}};
  s[std::string(kMeta) + "ListMeta"] = {
      {"type", "object"},
      {"description", "Metadata of a list: resourceVersion and continue token."},
      {"properties",
       {{"resourceVersion", Prop("string", "Version of the list.")},
        {"continue", Prop("string", "Token for the next page.")},
        {"remainingItemCount", {{"type", "integer"}, {"format", "int64"}}}}}};
  s[std::string(kMeta) + "LabelSelector"] = {
      {"type", "object"},
      {"description", "A label query over a set of resources."},
      {"properties",
       {{"matchLabels", string_map},
        {"matchExpressions", {{"type", "array"}, {"items", Permissive("A requirement.")}}}}},
      {"x-kubernetes-map-type", "atomic"}};

  for (const auto& t : AllResources()) {
    bool served = false;
    for (const auto& v : t.versions)
      if (t.group == group && v == version) served = true;
    if (!served) continue;
    std::string name = SchemaName(t, version, t.kind);
    Json props = {
        {"apiVersion", Prop("string", "The versioned schema of this representation.")},
        {"kind", Prop("string", "The REST resource this object represents.")},
        {"metadata", RefProp(ref, std::string(kMeta) + "ObjectMeta", "Standard metadata.")}};
    if (t.kind == "ConfigMap") {
      props["data"] = {{"type", "object"},
                       {"additionalProperties", {{"type", "string"}}},
                       {"description", "Configuration data."}};
      props["binaryData"] = {{"type", "object"},
                             {"additionalProperties", {{"type", "string"}, {"format", "byte"}}}};
      props["immutable"] = Prop("boolean", "Data cannot change once set.");
    } else if (t.kind == "Secret") {
      props["data"] = {{"type", "object"},
                       {"additionalProperties", {{"type", "string"}, {"format", "byte"}}},
                       {"description", "Secret data, base64 encoded."}};
      props["stringData"] = {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}};
      props["type"] = Prop("string", "Used to facilitate programmatic handling of secret data.");
      props["immutable"] = Prop("boolean", "Data cannot change once set.");
    } else if (t.kind == "ServiceAccount") {
      props["secrets"] = {{"type", "array"}, {"items", Permissive("A secret reference.")}};
      props["imagePullSecrets"] = {{"type", "array"}, {"items", Permissive("A reference.")}};
      props["automountServiceAccountToken"] = Prop("boolean", "Mount the token into pods.");
    } else if (t.kind == "Event") {
      for (const char* f : {"reason", "message", "type", "action", "reportingComponent",
                            "reportingInstance", "firstTimestamp", "lastTimestamp"})
        props[f] = Prop("string", "Event field.");
      props["count"] = {{"type", "integer"}, {"format", "int32"}};
      props["involvedObject"] = Permissive("The object this event is about.");
      props["source"] = Permissive("The component reporting this event.");
      props["eventTime"] = {{"type", "string"}, {"format", "date-time"}};
    } else if (t.kind == "Deployment") {
      std::string spec = SchemaName(t, version, "DeploymentSpec");
      props["spec"] =
          RefProp(ref, spec, "Specification of the desired behavior of the Deployment.");
      props["status"] = Permissive("Most recently observed status of the Deployment.");
      s[spec] = {
          {"type", "object"},
          {"description",
           "DeploymentSpec is the specification of the desired behavior of the "
           "Deployment."},
          {"required", {"selector", "template"}},
          {"properties",
           {{"minReadySeconds",
             {{"type", "integer"},
              {"format", "int32"},
              {"description", "Seconds a new pod must be ready before it counts as available."}}},
            {"paused", Prop("boolean", "Indicates that the deployment is paused.")},
            {"progressDeadlineSeconds",
             {{"type", "integer"},
              {"format", "int32"},
              {"description",
               "Seconds the deployment may take to make progress before it is "
               "considered failed. Defaults to 600s."}}},
            {"replicas",
             {{"type", "integer"},
              {"format", "int32"},
              {"description", "Number of desired pods. Defaults to 1."}}},
            {"revisionHistoryLimit",
             {{"type", "integer"},
              {"format", "int32"},
              {"description", "Number of old ReplicaSets to retain. Defaults to 10."}}},
            {"selector", RefProp(ref, std::string(kMeta) + "LabelSelector",
                                 "Label selector for pods managed by this deployment.")},
            {"strategy",
             {{"type", "object"},
              {"description", "The deployment strategy used to replace old pods."},
              {"x-kubernetes-preserve-unknown-fields", true},
              {"x-kubernetes-patch-strategy", "retainKeys"}}},
            {"template",
             {{"type", "object"},
              {"description", "Template describes the pods that will be created."},
              {"x-kubernetes-preserve-unknown-fields", true}}}}}};
    } else if (t.kind == "Namespace" || t.kind == "Service" || t.has_generation) {
      props["spec"] = Permissive("Specification of the desired behavior.");
      props["status"] = Permissive("Most recently observed status.");
    }
    s[name] = {{"type", "object"},
               {"description", t.kind + " as served by kubesim."},
               {"properties", props},
               {"x-kubernetes-group-version-kind", {Gvk(group, version, t.kind)}}};
    s[SchemaName(t, version, t.kind + "List")] = {
        {"type", "object"},
        {"description", t.kind + "List is a list of " + t.kind + " objects."},
        {"required", {"items"}},
        {"properties",
         {{"apiVersion", Prop("string", "The versioned schema of this representation.")},
          {"kind", Prop("string", "The REST resource this object represents.")},
          {"metadata", RefProp(ref, std::string(kMeta) + "ListMeta", "Standard list metadata.")},
          {"items", {{"type", "array"}, {"items", ref(name)}}}}},
        {"x-kubernetes-group-version-kind", {Gvk(group, version, t.kind + "List")}}};
  }
  return s;
}

Json Operation(const std::string& action, const Json& gvk, const Json& response_schema, bool writes,
               bool v3) {
  Json params = Json::array();
  if (writes) {
    for (const char* p : {"dryRun", "fieldManager", "fieldValidation"})
      params.push_back({{"name", p},
                        {"in", "query"},
                        {"description", "See the Kubernetes API conventions."},
                        {"schema", {{"type", "string"}}},
                        {"uniqueItems", true}});
    if (action == "patch")
      params.push_back({{"name", "force"}, {"in", "query"}, {"schema", {{"type", "boolean"}}}});
  }
  if (!v3)
    for (auto& p : params) {
      p["type"] = p["schema"]["type"];
      p.erase("schema");
    }
  Json response = {{"description", "OK"}};
  if (v3)
    response["content"] = {{"application/json", {{"schema", response_schema}}}};
  else
    response["schema"] = response_schema;
  return {{"operationId", action},
          {"parameters", params},
          {"responses", {{"200", response}}},
          {"x-kubernetes-action", action},
          {"x-kubernetes-group-version-kind", gvk}};
}

Json Paths(const RefFn& ref, const std::string& group, const std::string& version, bool v3) {
  Json paths = Json::object();
  for (const auto& t : AllResources()) {
    if (FindResource(group, version, t.plural) != &t) continue;
    std::string base = "/" + t.GroupVersionPath(version) + "/";
    if (t.namespaced) base += "namespaces/{namespace}/";
    base += t.plural;
    Json gvk = Gvk(group, version, t.kind);
    Json one = ref(SchemaName(t, version, t.kind));
    Json list = ref(SchemaName(t, version, t.kind + "List"));
    bool w = !t.read_only;
    Json collection = {{"get", Operation("list", gvk, list, false, v3)}};
    if (w) collection["post"] = Operation("post", gvk, one, true, v3);
    Json item = {{"get", Operation("get", gvk, one, false, v3)}};
    if (w) {
      item["put"] = Operation("put", gvk, one, true, v3);
      item["patch"] = Operation("patch", gvk, one, true, v3);
      item["delete"] = Operation("delete", gvk, one, true, v3);
    }
    paths[base] = collection;
    paths[base + "/{name}"] = item;
    if (t.has_status)
      paths[base + "/{name}/status"] = {{"get", Operation("get", gvk, one, false, v3)},
                                        {"put", Operation("put", gvk, one, true, v3)},
                                        {"patch", Operation("patch", gvk, one, true, v3)}};
  }
  return paths;
}

Json Info() { return {{"title", "Kubernetes"}, {"version", "v1.32.0-kubesim"}}; }

}  // namespace

Json OpenApiV2() {
  RefFn ref = [](const std::string& n) { return Json{{"$ref", "#/definitions/" + n}}; };
  Json definitions = Json::object();
  Json paths = Json::object();
  for (const auto& gv : ServedGroupVersions()) {
    definitions.update(Schemas(ref, gv.group, gv.version));
    paths.update(Paths(ref, gv.group, gv.version, false));
  }
  return {{"swagger", "2.0"}, {"info", Info()}, {"paths", paths}, {"definitions", definitions}};
}

Json OpenApiV3Index(const std::string& prefix) {
  Json paths = Json::object();
  for (const auto& gv : ServedGroupVersions()) {
    std::string p = gv.group.empty() ? "api/" + gv.version : "apis/" + gv.group + "/" + gv.version;
    std::string hash = std::to_string(std::hash<std::string>{}(OpenApiV3(p)->dump()));
    paths[p] = {{"serverRelativeURL", prefix + "/openapi/v3/" + p + "?hash=" + hash}};
  }
  return {{"paths", paths}};
}

std::optional<Json> OpenApiV3(const std::string& gv_path) {
  for (const auto& gv : ServedGroupVersions()) {
    std::string p = gv.group.empty() ? "api/" + gv.version : "apis/" + gv.group + "/" + gv.version;
    if (p != gv_path) continue;
    RefFn ref = [](const std::string& n) { return Json{{"$ref", "#/components/schemas/" + n}}; };
    return Json{{"openapi", "3.0.0"},
                {"info", Info()},
                {"paths", Paths(ref, gv.group, gv.version, true)},
                {"components", {{"schemas", Schemas(ref, gv.group, gv.version)}}}};
  }
  return std::nullopt;
}

}  // namespace fleetwave::kubesim
