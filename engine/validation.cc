#include "engine/validation.h"

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

ValidatedDocuments ValidateDocuments(const std::vector<YAML::Node>& docs, const std::string& file,
                                     const ValidationInputs& inputs) {
  ValidatedDocuments out;
  auto add = [&out](const Issues& issues) {
    out.issues.insert(out.issues.end(), issues.begin(), issues.end());
  };
  for (const YAML::Node& doc : docs) {
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
