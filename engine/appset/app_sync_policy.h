// `spec.syncPolicy.applicationsSync`: which changes fleetwave makes to the Applications an
// ApplicationSet generates. A pure decision the daemon asks before creating, updating or
// deleting a generated Application:
//   sync           everything (the default)
//   create-only    creates; never updates or deletes
//   create-update  creates and updates; never deletes
//   create-delete  creates and deletes; never updates
// An action held back is logged once per (app, action) by the caller, with the line
// HeldBackMessage gives. Pinned by tests/engine/generators/app_sync_policy_test.cc.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <utility>

#include "engine/appset/appset.h"

namespace fleetwave::engine {

enum class AppAction { kCreate, kUpdate, kDelete };

const char* AppActionName(AppAction action);  // "create", "update", "delete"

// "create-only" etc.; nullopt for anything else (the value is case-sensitive, as in Argo CD).
std::optional<ApplicationsSync> ParseApplicationsSync(const std::string& value);
const char* ApplicationsSyncName(ApplicationsSync policy);

// True when `policy` lets fleetwave take `action` on a generated Application.
bool ApplicationsSyncAllows(ApplicationsSync policy, AppAction action);

// spec.syncPolicy.preserveResourcesOnDeletion: when a generated Application is deleted (the
// set no longer generates it, or the set is deleted), are the objects it deployed deleted
// with it? False when the set preserves them: the Application goes, its objects stay.
inline bool DeleteResourcesWithApplication(const ApplicationSet& set) {
  return !set.preserve_resources_on_deletion;
}

// The log line for an action the policy holds back, e.g.
//   appset argocd/web: applicationsSync create-only holds back update of Application web-dev
std::string HeldBackMessage(const ApplicationSet& set, ApplicationsSync policy, AppAction action,
                            const std::string& app);

// Remembers which held-back actions were already logged so each is logged once; a value the
// caller keeps per appset (restarting forgets it, which logs each again once: harmless).
class HeldBackLog {
 public:
  // True the first time (app, action) is seen; false afterwards.
  bool FirstTime(const std::string& app, AppAction action) {
    return seen_.emplace(app, action).second;
  }
  // Forget an app whose action went through (so a later hold-back is logged again).
  void Clear(const std::string& app, AppAction action) { seen_.erase({app, action}); }

 private:
  std::set<std::pair<std::string, AppAction>> seen_;
};

}  // namespace fleetwave::engine
