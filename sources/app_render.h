// The objects one generated Application applies: its sources resolved (through the caller's
// ResolveOnce, so every app of a reconcile sees one snapshot per repo and revision), their
// paths read (plain manifests, or a kustomization built as kustomize.h does) and rendered by
// engine::Render. `fleetwave render` and the daemon's appset actor both call this, so what the
// CLI prints is what the daemon applies.
//
// Blocking (git, kubectl kustomize): the daemon's blocking pool only.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/appset/generate.h"
#include "engine/appset/render.h"
#include "engine/input_limits.h"
#include "sources/resolve_once.h"
#include "sources/source.h"

namespace fleetwave::sources {

struct AppRender {
  // The resolved revisions, one per source that has a path, in spec order.
  std::vector<std::string> revisions;
  std::shared_ptr<const std::vector<engine::RenderedObject>> objects;  // null on error
  // Every problem, each naming where (repo@sha:file:line:col); empty = ok.
  std::vector<engine::Error> errors;
  // Those of `errors` that a source's resolve gave (a fetch failed, the revision is not in the
  // repository), as the resolver gave them: they name the repository, not a file in it.
  std::vector<engine::Error> repository_errors;
  bool ok() const { return errors.empty() && objects != nullptr; }
  // All of them as one error for the app's operation and condition: one line per problem, of
  // kind kTransient when any of them is (reading again may succeed), else the first one's kind.
  // nullopt when ok.
  std::optional<engine::Error> error() const;
};

// Renders `app` of `appset`, reading through `resolver`'s source (each path of a commit once per
// resolver). `revisions`, when given, replaces the sources' targetRevisions one for one (a
// pinned revision list, or a manual sync's --revision for a one-source app).
AppRender RenderApp(ResolveOnce& resolver, const std::string& appset,
                    const engine::GeneratedApplication& app,
                    const std::vector<std::string>* revisions, const engine::Discovery& discovery,
                    const engine::InputLimits& limits = engine::InputLimits{});

// spec.sources[] when non-empty, else [spec.source]; entries that are not objects dropped.
std::vector<engine::Json> SourcesOf(const engine::Json& spec);

}  // namespace fleetwave::sources
