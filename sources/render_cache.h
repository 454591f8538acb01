// Renders of an ApplicationSet's apps kept from one reconcile to the next. A render is a pure
// function of the commits its sources resolve to and of the app's generated spec, so while
// neither changes the previous render is reused: a reconcile woken by a cluster event or a git
// poll that found no new commit costs one resolve per repository, not a read and a render per
// app (pinned by tests/sources/render_cache_test.cc).
//
// Failed renders are never kept: the next reconcile tries again, so a transient read error
// heals by itself. A kustomization whose remote bases change under the same commit is the one
// input not covered by the key; it is re-read when its commit or the app changes.
//
// Thread-safety: none. One appset actor owns one cache and uses it from one gather at a time.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>

#include "sources/app_render.h"

namespace fleetwave::sources {

class RenderCache {
 public:
  // RenderApp(resolver, appset, app, nullptr, discovery), or the previous result for `app` when
  // its spec and its sources' resolved commits are the same as then.
  AppRender Render(ResolveOnce& resolver, const std::string& appset,
                   const engine::GeneratedApplication& app, const engine::Discovery& discovery,
                   const engine::InputLimits& limits = engine::InputLimits{});

  // Forgets every app not in `apps` (no longer generated), so the cache never outgrows the set.
  void Retain(const std::set<std::string>& apps);

  size_t size() const { return entries_.size(); }
  size_t hits() const { return hits_; }
  size_t misses() const { return misses_; }

 private:
  struct Entry {
    std::string key;
    AppRender render;
  };
  std::map<std::string, Entry> entries_;  // app name -> its last good render
  size_t hits_ = 0;
  size_t misses_ = 0;
};

}  // namespace fleetwave::sources
