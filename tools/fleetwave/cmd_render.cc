// fleetwave render APP -f APPSET [--config F] [--revision R] [-o yaml|json]: the exact objects
// a sync of APP would apply: its manifests read from git at the resolved revision (a
// kustomization built as the daemon builds it), rendered by engine::Render (namespace
// defaulting, tracking marks, applied hash, apply order), with Secret values redacted.
// Discovery is not asked of any cluster: the kinds every API server serves as cluster-scoped
// are known, the rest count as namespaced, as an unknown CRD's kinds would.
#include <ostream>
#include <vector>

#include "engine/appset/generate.h"
#include "engine/appset/render.h"
#include "engine/yaml_json.h"
#include "sources/app_render.h"
#include "sources/generator_inputs.h"
#include "sources/git_source.h"
#include "sources/resolve_once.h"
#include "tools/fleetwave/args.h"
#include "tools/fleetwave/commands.h"
#include "tools/fleetwave/daemon_loader.h"
#include "tools/fleetwave/loaders.h"

namespace fleetwave::cli {
namespace {

constexpr const char* kUsage =
    "usage: fleetwave render APP -f APPSET [--config F] [--revision R] [-o yaml|json]\n";

}  // namespace

int RunRender(const Argv& argv, std::ostream& out, std::ostream& err) {
  std::string error;
  auto args =
      ParseArgs(argv, {"-f", "--filename", "--config", "--revision", "-o", "--output"}, {}, &error);
  const auto file =
      args ? (args->Get("-f") ? args->Get("-f") : args->Get("--filename")) : std::nullopt;
  const std::string format =
      args ? args->Get("-o").value_or(args->Get("--output").value_or("yaml")) : "yaml";
  if (!args || !file || args->positional.size() != 1 || (format != "yaml" && format != "json")) {
    if (!error.empty()) err << "fleetwave render: " << error << "\n";
    err << kUsage;
    return 2;
  }
  const std::string app_name = args->positional[0];
  const std::optional<std::string> revision = args->Get("--revision");

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
  // One snapshot per (repoURL, revision) for the generators and the manifests alike.
  // A remote repository is mirrored in the user's cache (CliGitSourceOptions).
  sources::GitSource source(
      CliGitSourceOptions(config ? &config->config : nullptr, args->Get("--config").value_or("")));
  sources::ResolveOnce resolver(source);
  const engine::GeneratorInputs inputs =
      sources::ReadGeneratorInputs(*loaded.appset, resolver, config ? &config->clusters : nullptr);
  engine::GenerateResult generated =
      engine::GenerateApplications(*loaded.appset, config ? &config->clusters : nullptr, &inputs);
  if (!generated.issues.empty()) {
    PrintIssues(generated.issues, err);
    return 1;
  }
  const engine::GeneratedApplication* app = nullptr;
  std::string names;
  for (const auto& a : generated.apps) {
    if (a.name == app_name) app = &a;
    names += (names.empty() ? "" : ", ") + a.name;
  }
  if (app == nullptr) {
    err << *file << ": ApplicationSet " << loaded.appset->name << " generates no Application \""
        << app_name << "\"" << (names.empty() ? "" : " (it generates: " + names + ")") << "\n";
    return 1;
  }

  const size_t source_count =
      sources::SourcesOf(engine::Json(app->object).value("spec", engine::Json::object())).size();
  if (source_count == 0) {
    err << app_name << ": spec.source has no repoURL\n";
    return 1;
  }
  if (revision && source_count > 1) {
    err << app_name << ": --revision names one revision; this application has several sources\n";
    return 1;
  }
  const std::vector<std::string> revisions =
      revision ? std::vector<std::string>{*revision} : std::vector<std::string>{};
  const sources::AppRender rendered =
      sources::RenderApp(resolver, loaded.appset->name, *app, revision ? &revisions : nullptr,
                         engine::Discovery::BuiltIn());
  if (!rendered.ok()) {
    for (const auto& e : rendered.errors) err << e.ToString() << "\n";
    return 1;
  }
  const std::vector<engine::RenderedObject>& objects = *rendered.objects;
  if (format == "json") {
    engine::Json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", engine::Json::array()}};
    for (const auto& o : objects) list["items"].push_back(engine::RedactSecret(o.object));
    out << list.dump(2, ' ', false, engine::Json::error_handler_t::replace) << "\n";
  } else {
    for (size_t i = 0; i < objects.size(); ++i) {
      if (i > 0) out << "---\n";
      out << engine::JsonToYaml(engine::RedactSecret(objects[i].object));
    }
  }
  return 0;
}

}  // namespace fleetwave::cli
