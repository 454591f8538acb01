#include "sources/render_cache.h"

#include <iterator>
#include <optional>
#include <utility>

namespace fleetwave::sources {
namespace {

// The render's inputs besides the manifests: the app's whole spec (sources, destination,
// sync options) and the commit each source resolves to now. The resolver memoises, so the
// resolves here are the ones RenderApp would make anyway.
std::optional<std::string> KeyOf(ResolveOnce& resolver, const std::string& appset,
                                 const engine::GeneratedApplication& app) {
  const engine::Json* spec = nullptr;
  if (app.object.is_object()) {
    auto it = app.object.find("spec");
    if (it != app.object.end()) spec = &*it;
  }
  if (spec == nullptr) return std::nullopt;
  std::string key = appset + '\n' + app.name + '\n' + spec->dump() + '\n';
  for (const auto& s : SourcesOf(*spec)) {
    auto repo = s.find("repoURL");
    auto path = s.find("path");
    if (repo == s.end() || !repo->is_string() || path == s.end() || !path->is_string()) continue;
    auto rev = s.find("targetRevision");
    const std::string revision = rev != s.end() && rev->is_string() ? rev->get<std::string>() : "";
    const Resolution resolved = resolver.Resolve(repo->get<std::string>(), revision);
    if (!resolved.ok()) return std::nullopt;  // an error is re-rendered, never cached
    key += resolved.snapshot->sha + '\n';
  }
  return key;
}

}  // namespace

AppRender RenderCache::Render(ResolveOnce& resolver, const std::string& appset,
                              const engine::GeneratedApplication& app,
                              const engine::Discovery& discovery,
                              const engine::InputLimits& limits) {
  const std::optional<std::string> key = KeyOf(resolver, appset, app);
  if (key) {
    auto it = entries_.find(app.name);
    if (it != entries_.end() && it->second.key == *key) {
      ++hits_;
      return it->second.render;  // shares the objects: one copy of each render in memory
    }
  }
  ++misses_;
  AppRender render = RenderApp(resolver, appset, app, nullptr, discovery, limits);
  if (key && render.ok()) {
    entries_[app.name] = Entry{*key, render};
  } else {
    entries_.erase(app.name);
  }
  return render;
}

void RenderCache::Retain(const std::set<std::string>& apps) {
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = apps.count(it->first) ? std::next(it) : entries_.erase(it);
  }
}

}  // namespace fleetwave::sources
