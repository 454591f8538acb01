// fleetwave generate -f APPSET [--config F] [-o yaml|json]: the Applications a set generates.
// With --config, clusters come from its kubeconfigs and labels, and every destination must
// resolve to exactly one of them; without it, destinations are printed as written.
#include <algorithm>
#include <ostream>

#include "engine/appset/generate.h"
#include "engine/yaml_json.h"
#include "sources/generator_inputs.h"
#include "sources/git_source.h"
#include "tools/fleetwave/args.h"
#include "tools/fleetwave/commands.h"
#include "tools/fleetwave/daemon_loader.h"
#include "tools/fleetwave/loaders.h"

namespace fleetwave::cli {

int RunGenerate(const Argv& argv, std::ostream& out, std::ostream& err) {
  std::string error;
  auto args = ParseArgs(argv, {"-f", "--filename", "--config", "-o", "--output"}, {}, &error);
  const auto file =
      args ? (args->Get("-f") ? args->Get("-f") : args->Get("--filename")) : std::nullopt;
  const std::string format =
      args ? args->Get("-o").value_or(args->Get("--output").value_or("yaml")) : "yaml";
  if (!args || !file || !args->positional.empty() || (format != "yaml" && format != "json")) {
    if (!error.empty()) err << "fleetwave generate: " << error << "\n";
    err << "usage: fleetwave generate -f APPSET [--config F] [-o yaml|json]\n";
    return 2;
  }
  LoadedAppSet loaded = LoadApplicationSetFile(*file);
  engine::Issues issues = loaded.issues;
  std::optional<LoadedConfig> config;
  if (auto cfg = args->Get("--config")) {
    config = LoadConfigFile(*cfg);
    for (const auto& w : config->warnings) err << "warning: " << w << "\n";
    issues.insert(issues.end(), config->issues.begin(), config->issues.end());
  }
  if (!issues.empty() || !loaded.appset) {
    PrintIssues(issues, err);
    return 1;
  }
  if (engine::UsesClustersGenerator(*loaded.appset) && !config) {
    err << *file
        << ": note: the clusters generator needs --config to know the clusters; it produced "
           "nothing\n";
  }
  // Git generators read their repositories here, one snapshot per (repoURL, revision).
  // A remote repository is mirrored in the user's cache (CliGitSourceOptions).
  sources::GitSource source(
      CliGitSourceOptions(config ? &config->config : nullptr, args->Get("--config").value_or("")));
  sources::ResolveOnce resolver(source);
  const engine::GeneratorInputs inputs =
      sources::ReadGeneratorInputs(*loaded.appset, resolver, config ? &config->clusters : nullptr);
  engine::GenerateResult result =
      engine::GenerateApplications(*loaded.appset, config ? &config->clusters : nullptr, &inputs);
  if (!result.issues.empty()) {
    PrintIssues(result.issues, err);
    return 1;
  }
  if (format == "json") {
    engine::Json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", engine::Json::array()}};
    for (const auto& app : result.apps) list["items"].push_back(app.object);
    out << list.dump(2) << "\n";
  } else {
    for (size_t i = 0; i < result.apps.size(); ++i) {
      if (i > 0) out << "---\n";
      out << engine::JsonToYaml(result.apps[i].object);
    }
  }
  return 0;
}

}  // namespace fleetwave::cli
