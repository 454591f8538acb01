// fleetwave validate FILE...: every problem in every file, one line each; exit 1 if any.
// The checks are engine::ValidateDocuments, the chain the daemon runs: a document with `kind:
// ApplicationSet` is decoded, its rollout config checked and dry-generated without clusters; a
// document without `kind` is a fleetwave.yaml, checked with the kubeconfigs it names.
// Warnings (said, never failing): an AppProject sync window's syncOverrun (no effect in
// fleetwave), and an analysis step with no Prometheus to ask, judged against `--config
// fleetwave.yaml` (or a fleetwave.yaml document in the same file) when given, and a step whose
// onFailure: Rollback can never act (no maxFailures, no analysis).
#include <optional>
#include <ostream>

#include "engine/appset/app_project.h"
#include "engine/rollingsync/analysis_settings.h"
#include "engine/rollingsync/rollback.h"

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

// A warning per set whose analysis steps have no Prometheus: with the daemon's configuration
// known (`default_prometheus`), the daemon refuses that set (analysis_settings.h); without it,
// the daemon's fleetwave.yaml must set analysis.prometheus.
void WarnAnalysisWithoutPrometheus(const std::string& file,
                                   const std::vector<engine::ApplicationSet>& appsets,
                                   const std::optional<std::string>& default_prometheus,
                                   std::ostream& err) {
  for (const auto& set : appsets) {
    const std::vector<int> steps =
        engine::StepsWithoutPrometheus(set.strategy, default_prometheus.value_or(""));
    if (steps.empty()) continue;
    const engine::SourcePos pos = set.strategy.steps[static_cast<size_t>(steps[0])].pos;
    const std::string message = default_prometheus
                                    ? engine::MissingPrometheusMessage(steps) +
                                          "; the daemon refuses ApplicationSet " + set.name
                                    : engine::AnalysisFieldsHave(steps) +
                                          " no prometheus: the daemon's fleetwave.yaml must set "
                                          "analysis.prometheus, or the daemon "
                                          "refuses ApplicationSet " +
                                          set.name + " (check it with --config fleetwave.yaml)";
    err << "warning: " << engine::FormatIssue({file, pos, "", message}) << "\n";
  }
}

}  // namespace

int RunValidate(const Argv& argv, std::ostream& out, std::ostream& err) {
  std::string error;
  auto args = ParseArgs(argv, {"--config"}, {}, &error);
  if (!args || args->positional.empty()) {
    if (!error.empty()) err << "fleetwave validate: " << error << "\n";
    err << "usage: fleetwave validate [--config fleetwave.yaml] FILE...\n";
    return 2;
  }
  int problems = 0;
  // The daemon's default Prometheus for analysis steps, when its configuration is given.
  std::optional<std::string> default_prometheus;
  if (auto config_file = args->Get("--config")) {
    LoadedConfig config = LoadConfigFile(*config_file, /*with_clusters=*/false);
    PrintIssues(config.issues, err);
    problems += static_cast<int>(config.issues.size());
    default_prometheus = config.config.analysis_prometheus;
  }
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
    for (const auto& project : v.result.projects) {
      for (const auto& w : engine::SyncOverrunWarnings(project)) {
        err << "warning: " << engine::FormatIssue(w) << "\n";
      }
    }
    for (const auto& set : v.result.appsets) {
      for (const auto& w : engine::RollbackNeverActsWarnings(set)) {
        err << "warning: " << engine::FormatIssue(w) << "\n";
      }
    }
    WarnAnalysisWithoutPrometheus(
        InputName(file), v.result.appsets,
        v.result.config ? std::optional(v.result.config->analysis_prometheus) : default_prometheus,
        err);
    PrintIssues(v.result.issues, err);
    problems += static_cast<int>(v.result.issues.size());
    if (v.result.issues.empty()) out << file << ": valid (" << Summary(v.result) << ")\n";
  }
  return problems == 0 ? 0 : 1;
}

}  // namespace fleetwave::cli
