#include "engine/validation.h"

#include <string>

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
  if (kind && kind.IsScalar() && kind.Scalar() != "ApplicationSet")
    return std::string(kNeither) + " (kind: " + kind.Scalar() + ")";
  if (!kind && doc["apiVersion"] && doc["apiVersion"].IsScalar())
    return std::string(kNeither) + " (apiVersion: " + doc["apiVersion"].Scalar() + ", no kind)";
  return "";
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
    DecodedApplicationSet decoded = DecodeApplicationSet(doc, file);
    add(decoded.issues);
    if (!decoded.appset || !decoded.issues.empty()) continue;
    add(ValidateRolloutConfig(*decoded.appset));
    add(GenerateApplications(*decoded.appset, inputs.generate_against).issues);
    out.appsets.push_back(std::move(*decoded.appset));
  }
  return out;
}

}  // namespace fleetwave::engine
