#include "sources/app_render.h"

#include "sources/kustomize.h"

namespace fleetwave::sources {
namespace {

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

std::string Origin(const Snapshot& snapshot, const Manifest& m) {
  return snapshot.repo_url + "@" + snapshot.sha + ":" + m.file + ":" + std::to_string(m.pos.line) +
         ":" + std::to_string(m.pos.column);
}

// Argo CD's `CreateNamespace=true` sync option: the destination namespace is created with the
// app's objects (Render puts Namespaces first) unless the manifests define it themselves.
bool WantsNamespace(const engine::Json& spec) {
  const engine::Json& options = Member(Member(spec, "syncPolicy"), "syncOptions");
  if (!options.is_array()) return false;
  for (const auto& o : options) {
    if (o.is_string() && o.get<std::string>() == "CreateNamespace=true") return true;
  }
  return false;
}

bool DefinesNamespace(const std::vector<engine::ManifestDocument>& manifests,
                      const std::string& name) {
  for (const auto& m : manifests) {
    if (StringOf(m.object, "kind") == "Namespace" &&
        StringOf(Member(m.object, "metadata"), "name") == name) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<engine::Error> AppRender::error() const {
  if (ok()) return std::nullopt;
  if (errors.empty()) return engine::PermanentError("", "not rendered");
  engine::Error out{errors.front().kind, "", ""};
  for (const auto& e : errors) {
    if (e.kind == engine::ErrorKind::kTransient) out.kind = e.kind;
    if (!out.message.empty()) out.message += "\n";
    out.message += e.ToString();
  }
  return out;
}

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

AppRender RenderApp(ResolveOnce& resolver, const std::string& appset,
                    const engine::GeneratedApplication& app,
                    const std::vector<std::string>* revisions, const engine::Discovery& discovery,
                    const engine::InputLimits& limits) {
  AppRender out;
  const engine::Json& spec = Member(app.object, "spec");
  const std::vector<engine::Json> app_sources = SourcesOf(spec);
  engine::RenderInput input;
  input.app = {appset, app.name};
  input.destination_namespace = StringOf(Member(spec, "destination"), "namespace");
  input.discovery = discovery;
  size_t with_path = 0;
  for (const auto& s : app_sources) {
    const std::string repo = StringOf(s, "repoURL");
    if (repo.empty() || !Member(s, "path").is_string()) continue;  // e.g. a `ref`-only source
    const size_t index = with_path++;
    std::string revision = StringOf(s, "targetRevision");
    if (revisions != nullptr && index < revisions->size()) revision = (*revisions)[index];
    const Resolution resolved = resolver.Resolve(repo, revision);
    if (!resolved.ok()) {
      out.errors.push_back(*resolved.error);
      out.repository_errors.push_back(*resolved.error);
      continue;
    }
    out.revisions.push_back(resolved.snapshot->sha);
    // Once per path and commit for all the apps of this reconcile (ResolveOnce::ReadPath).
    const std::shared_ptr<const ReadResult> read =
        resolver.ReadPath(*resolved.snapshot, StringOf(s, "path"));
    out.errors.insert(out.errors.end(), read->errors.begin(), read->errors.end());
    for (const auto& m : read->manifests) {
      input.manifests.push_back({Origin(*resolved.snapshot, m), m.object});
    }
  }
  if (with_path == 0) {
    out.errors.push_back(
        engine::InvalidInputError(app.name, "spec.source has no repoURL and path"));
  }
  if (!out.errors.empty()) return out;
  if (!input.destination_namespace.empty() && WantsNamespace(spec) &&
      !DefinesNamespace(input.manifests, input.destination_namespace)) {
    input.manifests.push_back({"syncOptions: CreateNamespace=true",
                               {{"apiVersion", "v1"},
                                {"kind", "Namespace"},
                                {"metadata", {{"name", input.destination_namespace}}}}});
  }
  engine::RenderResult rendered = engine::Render(input, limits);
  for (const auto& issue : rendered.issues) {
    out.errors.push_back(engine::InvalidInputError("", engine::FormatIssue(issue)));
  }
  if (!out.errors.empty()) return out;
  out.objects =
      std::make_shared<const std::vector<engine::RenderedObject>>(std::move(rendered.objects));
  return out;
}

}  // namespace fleetwave::sources
