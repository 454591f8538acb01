#include "engine/validation.h"

#include <string>

#include "engine/appset/app_project.h"
#include "engine/k8s_names.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

bool IsFleetConfig(const YAML::Node& doc) {
  return doc.IsMap() && !doc["kind"] && !doc["apiVersion"];
}

std::optional<std::size_t> FindFleetConfig(const std::vector<YAML::Node>& docs) {
  for (std::size_t i = 0; i < docs.size(); ++i)
    if (IsFleetConfig(docs[i])) return i;
  return std::nullopt;
}

namespace {

// Why a document is neither an ApplicationSet nor a fleetwave configuration; empty when it
// is one of the two. Such a document is reported in one line rather than decoded as a
// configuration or a set (validate_foreign_test).
std::string Foreign(const YAML::Node& doc) {
  const char* kNeither = "neither an ApplicationSet nor a fleetwave configuration";
  if (!doc.IsMap()) return std::string(kNeither) + " (not a mapping)";
  const YAML::Node kind = doc["kind"];
  if (kind && kind.IsScalar() && kind.Scalar() != "ApplicationSet" && kind.Scalar() != "AppProject")
    return std::string(kNeither) + " (kind: " + kind.Scalar() + ")";
  if (!kind && doc["apiVersion"] && doc["apiVersion"].IsScalar())
    return std::string(kNeither) + " (apiVersion: " + doc["apiVersion"].Scalar() + ", no kind)";
  return "";
}

const Json* Member(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

// The names a set and its Applications carry into request paths, store keys, API paths and
// metric labels: the set's own name and namespace, each Application's name and namespace and
// its destination namespace (issue 30: a namespace "x/../../sim-0/..." once sent an apply to
// another cluster). A wrong type is the decoders' concern; here only strings are judged.
void CheckNames(const ApplicationSet& set, const GenerateResult& generated, Issues& issues) {
  // Held to what Application names are held to (GenerateApplications): the set's name is a
  // store key, an API path segment and a metric label.
  if (std::string why = CheckDns1123Subdomain(set.name); !set.name.empty() && !why.empty())
    issues.push_back({set.file,
                      {},
                      "metadata.name",
                      QuoteExcerpt(set.name) + " is not a valid ApplicationSet name: " + why});
  if (!set.namespace_.empty())
    if (std::string p = NamespaceProblem(set.namespace_); !p.empty())
      issues.push_back({set.file, {}, "metadata.namespace", p});
  for (const GeneratedApplication& app : generated.apps) {
    const std::string who = "Application " + QuoteExcerpt(app.name) + ": ";
    // GenerateApplications already holds names to a DNS-1123 subdomain; this is the floor
    // should that ever change.
    if (std::string p = ObjectNameProblem("argoproj.io", "Application", app.name); !p.empty())
      issues.push_back({set.file, set.template_pos, "spec.template.metadata.name", who + p});
    const Json* md = Member(app.object, "metadata");
    const Json* app_ns = md ? Member(*md, "namespace") : nullptr;
    if (app_ns && app_ns->is_string() && set.namespace_.empty() &&
        !app_ns->get_ref<const std::string&>().empty())
      if (std::string p = NamespaceProblem(app_ns->get_ref<const std::string&>()); !p.empty())
        issues.push_back({set.file, set.template_pos, "spec.template.metadata.namespace", who + p});
    const Json* spec = Member(app.object, "spec");
    const Json* dest = spec ? Member(*spec, "destination") : nullptr;
    const Json* ns = dest ? Member(*dest, "namespace") : nullptr;
    if (ns && ns->is_string() && !ns->get_ref<const std::string&>().empty())
      if (std::string p = NamespaceProblem(ns->get_ref<const std::string&>()); !p.empty())
        issues.push_back({set.file, set.template_pos, "spec.template.spec.destination.namespace",
                          who + "destination.namespace: " + p});
  }
}

}  // namespace

ValidatedDocuments ValidateDocuments(const std::vector<YAML::Node>& docs, const std::string& file,
                                     const ValidationInputs& inputs) {
  ValidatedDocuments out;
  auto add = [&out](const Issues& issues) {
    out.issues.insert(out.issues.end(), issues.begin(), issues.end());
  };
  // A file holding only foreign documents is reported once, at its first document.
  bool all_foreign = !docs.empty();
  for (const YAML::Node& doc : docs) all_foreign = all_foreign && !Foreign(doc).empty();
  for (const YAML::Node& doc : docs) {
    if (const std::string why = Foreign(doc); !why.empty()) {
      out.issues.push_back({file, PosOf(doc), "", why});
      if (all_foreign) break;
      continue;
    }
    if (IsFleetConfig(doc)) {
      if (out.config) {
        // One file, one configuration: a second one would silently override the first.
        out.issues.push_back(
            {file, PosOf(doc), "", "a second fleetwave configuration in the same file"});
        continue;
      }
      DecodedConfig decoded = DecodeConfig(doc, file);
      add(decoded.issues);
      add(inputs.kubeconfig.issues);
      out.clusters = LabelClusters(inputs.kubeconfig.clusters, decoded.config, file, &out.issues);
      out.config = std::move(decoded.config);
      continue;
    }
    if (IsAppProjectDocument(doc)) {
      DecodedAppProject project = DecodeAppProject(doc, file);
      add(project.issues);
      if (project.project) out.projects.push_back(std::move(*project.project));
      continue;
    }
    DecodedApplicationSet decoded = DecodeApplicationSet(doc, file, inputs.limits);
    add(decoded.issues);
    if (!decoded.appset || !decoded.issues.empty()) continue;
    add(ValidateRolloutConfig(*decoded.appset));
    const GenerateResult generated =
        GenerateApplications(*decoded.appset, inputs.generate_against, nullptr, inputs.limits);
    add(generated.issues);
    CheckNames(*decoded.appset, generated, out.issues);
    out.appsets.push_back(std::move(*decoded.appset));
  }
  return out;
}

}  // namespace fleetwave::engine
