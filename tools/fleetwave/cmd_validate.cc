// fleetwave validate FILE...: every problem in every file, one line each; exit 1 if any.
// The checks are engine::ValidateDocuments, the chain the daemon runs: a document with `kind:
// ApplicationSet` is decoded, its rollout config checked and dry-generated without clusters; a
// document without `kind` is a fleetwave.yaml, checked with the kubeconfigs it names.
#include <ostream>

#include "tools/fleetwave/args.h"
#include "tools/fleetwave/commands.h"
#include "tools/fleetwave/input.h"
#include "tools/fleetwave/loaders.h"

namespace fleetwave::cli {
namespace {

// The one-line summary of a valid file.
std::string Summary(const engine::ValidatedDocuments& v) {
  const std::size_t appsets = v.appsets.size();
  const std::size_t projects = v.projects.size();
  std::string sets, projs;
  if (appsets > 0)
    sets = std::to_string(appsets) + (appsets == 1 ? " ApplicationSet" : " ApplicationSets");
  if (projects > 0)
    projs = std::to_string(projects) + (projects == 1 ? " AppProject" : " AppProjects");
  if (!sets.empty() || !projs.empty())
    return sets + (!sets.empty() && !projs.empty() ? ", " : "") + projs;
  if (v.config)
    return "fleetwave configuration, " + std::to_string(v.clusters.size()) + " clusters";
  return "";
}

}  // namespace

int RunValidate(const Argv& argv, std::ostream& out, std::ostream& err) {
  std::string error;
  auto args = ParseArgs(argv, {}, {}, &error);
  if (!args || args->positional.empty()) {
    if (!error.empty()) err << "fleetwave validate: " << error << "\n";
    err << "usage: fleetwave validate FILE...\n";
    return 2;
  }
  int problems = 0;
  for (const std::string& file : args->positional) {
    engine::LoadedDocuments docs = ReadDocuments(file);
    if (docs.issues.empty() && docs.documents.empty())
      docs.issues.push_back({InputName(file), {}, "", "no documents"});
    if (!docs.issues.empty()) {
      PrintIssues(docs.issues, err);
      problems += static_cast<int>(docs.issues.size());
      continue;
    }
    ValidatedFile v = ValidateLoaded(docs.documents, file);
    for (const auto& w : v.warnings) err << "warning: " << w << "\n";
    PrintIssues(v.result.issues, err);
    problems += static_cast<int>(v.result.issues.size());
    if (v.result.issues.empty()) out << file << ": valid (" << Summary(v.result) << ")\n";
  }
  return problems == 0 ? 0 : 1;
}

}  // namespace fleetwave::cli
