// fleetwave render APP -f APPSET [--config F] [--revision R] [-o yaml|json]: the exact objects
// a sync of APP would apply: its manifests read from git at the resolved revision (a
// kustomization built as the daemon builds it), rendered by engine::Render (namespace
// defaulting, tracking marks, applied hash, apply order), with Secret values redacted.
// Discovery is not asked of any cluster: the kinds every API server serves as cluster-scoped
// are known, the rest count as namespaced, as an unknown CRD's kinds would.
#include <ostream>
#include <vector>

#include "engine/generate.h"
#include "engine/render.h"
#include "engine/yaml_json.h"
#include "sources/generator_inputs.h"
#include "sources/git_source.h"
#include "sources/kustomize.h"
#include "sources/resolve_once.h"
#include "tools/fleetwave/args.h"
#include "tools/fleetwave/commands.h"
#include "tools/fleetwave/loaders.h"

namespace fleetwave::cli {
namespace {

constexpr const char* kUsage =
    "usage: fleetwave render APP -f APPSET [--config F] [--revision R] [-o yaml|json]\n";

const engine::Json& Member(const engine::Json& object, const char* key) {
  static const engine::Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string StringOf(const engine::Json& object, const char* key) {
  const engine::Json& v = Member(object, key);
  return v.is_string() ? v.get<std::string>() : "";
}

// spec.sources[] when non-empty, else [spec.source]; entries that are not objects dropped.
std::vector<engine::Json> SourcesOf(const engine::Json& spec) {
  std::vector<engine::Json> out;
  const engine::Json& many = Member(spec, "sources");
  if (many.is_array() && !many.empty()) {
    for (const auto& s : many) {
      if (s.is_object()) out.push_back(s);
    }
    return out;
  }
  const engine::Json& one = Member(spec, "source");
  if (one.is_object()) out.push_back(one);
  return out;
}

std::string Origin(const sources::Snapshot& snapshot, const sources::Manifest& m) {
  return snapshot.repo_url + "@" + snapshot.sha + ":" + m.file + ":" + std::to_string(m.pos.line) +
         ":" + std::to_string(m.pos.column);
}

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
  sources::GitSource source;
  sources::ResolveOnce resolver(source);
  const engine::GeneratorInputs inputs = sources::ReadGeneratorInputs(*loaded.appset, resolver);
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

  const engine::Json& spec = Member(app->object, "spec");
  const std::vector<engine::Json> app_sources = SourcesOf(spec);
  if (app_sources.empty()) {
    err << app_name << ": spec.source has no repoURL\n";
    return 1;
  }
  if (revision && app_sources.size() > 1) {
    err << app_name << ": --revision names one revision; this application has several sources\n";
    return 1;
  }
  engine::RenderInput input;
  input.app = {loaded.appset->name, app_name};
  input.destination_namespace = StringOf(Member(spec, "destination"), "namespace");
  input.discovery = engine::Discovery::BuiltIn();
  bool failed = false;
  for (const auto& s : app_sources) {
    const std::string repo = StringOf(s, "repoURL");
    if (repo.empty() || !Member(s, "path").is_string())
      continue;  // e.g. a `ref`-only values source
    const sources::Resolution resolved =
        resolver.Resolve(repo, revision.value_or(StringOf(s, "targetRevision")));
    if (!resolved.ok()) {
      err << resolved.error->message << "\n";
      failed = true;
      continue;
    }
    // Plain manifests, or a kustomization built by kubectl; a Helm chart is refused.
    const sources::ReadResult read =
        sources::ReadPath(source, *resolved.snapshot, StringOf(s, "path"), {});
    for (const auto& e : read.errors) err << e.message << "\n";
    failed = failed || !read.ok();
    for (const auto& m : read.manifests) {
      input.manifests.push_back({Origin(*resolved.snapshot, m), m.object});
    }
  }
  if (failed) return 1;
  const engine::RenderResult rendered = engine::Render(input);
  if (!rendered.issues.empty()) {
    PrintIssues(rendered.issues, err);
    return 1;
  }
  if (format == "json") {
    engine::Json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", engine::Json::array()}};
    for (const auto& o : rendered.objects) list["items"].push_back(engine::RedactSecret(o.object));
    out << list.dump(2, ' ', false, engine::Json::error_handler_t::replace) << "\n";
  } else {
    for (size_t i = 0; i < rendered.objects.size(); ++i) {
      if (i > 0) out << "---\n";
      out << engine::JsonToYaml(engine::RedactSecret(rendered.objects[i].object));
    }
  }
  return 0;
}

}  // namespace fleetwave::cli
