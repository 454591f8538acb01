// fleetwave validate FILE...: every problem in every file, one line each; exit 1 if any.
// A document with `kind: ApplicationSet` is checked as one (decoding, rollout config, and a
// dry generation without clusters); a document without `kind` is checked as fleetwave.yaml.
#include <ostream>

#include "engine/appset.h"
#include "engine/config.h"
#include "engine/generate.h"
#include "engine/yaml_json.h"
#include "tools/fleetwave/args.h"
#include "tools/fleetwave/commands.h"
#include "tools/fleetwave/input.h"
#include "tools/fleetwave/loaders.h"

namespace fleetwave::cli {
namespace {

engine::Issues ValidateFile(const std::string& path, std::string& summary) {
  std::string text, error;
  if (!ReadInput(path, text, error)) return {{"", {}, "", error}};
  engine::LoadedDocuments docs = engine::LoadYamlDocuments(text, path);
  if (!docs.issues.empty()) return docs.issues;
  if (docs.documents.empty()) return {{path, {}, "", "no documents"}};
  engine::Issues issues;
  int appsets = 0;
  for (const YAML::Node& doc : docs.documents) {
    if (doc.IsMap() && !doc["kind"] && !doc["apiVersion"]) {
      LoadedConfig config = LoadConfigFile(path);
      issues.insert(issues.end(), config.issues.begin(), config.issues.end());
      summary = "fleetwave configuration, " + std::to_string(config.clusters.size()) + " clusters";
      continue;
    }
    engine::DecodedApplicationSet decoded = engine::DecodeApplicationSet(doc, path);
    issues.insert(issues.end(), decoded.issues.begin(), decoded.issues.end());
    if (!decoded.appset || !decoded.issues.empty()) continue;
    ++appsets;
    for (auto& i : engine::ValidateRolloutConfig(*decoded.appset)) issues.push_back(i);
    for (auto& i : engine::GenerateApplications(*decoded.appset, nullptr).issues)
      issues.push_back(i);
  }
  if (appsets > 0)
    summary = std::to_string(appsets) + (appsets == 1 ? " ApplicationSet" : " ApplicationSets");
  return issues;
}

}  // namespace

int RunValidate(const Argv& argv, std::ostream& out, std::ostream& err) {
  std::string error;
  auto args = ParseArgs(argv, {}, {}, error);
  if (!args || args->positional.empty()) {
    if (!error.empty()) err << "fleetwave validate: " << error << "\n";
    err << "usage: fleetwave validate FILE...\n";
    return 2;
  }
  int problems = 0;
  for (const std::string& file : args->positional) {
    std::string summary;
    engine::Issues issues = ValidateFile(file, summary);
    PrintIssues(issues, err);
    problems += static_cast<int>(issues.size());
    if (issues.empty()) out << file << ": valid (" << summary << ")\n";
  }
  return problems == 0 ? 0 : 1;
}

}  // namespace fleetwave::cli
