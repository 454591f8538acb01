#include "engine/appset/app_sync_policy.h"

namespace fleetwave::engine {

const char* AppActionName(AppAction action) {
  switch (action) {
    case AppAction::kCreate:
      return "create";
    case AppAction::kUpdate:
      return "update";
    case AppAction::kDelete:
      return "delete";
  }
  return "?";
}

std::optional<ApplicationsSync> ParseApplicationsSync(const std::string& value) {
  if (value == "sync") return ApplicationsSync::kSync;
  if (value == "create-only") return ApplicationsSync::kCreateOnly;
  if (value == "create-update") return ApplicationsSync::kCreateUpdate;
  if (value == "create-delete") return ApplicationsSync::kCreateDelete;
  return std::nullopt;
}

const char* ApplicationsSyncName(ApplicationsSync policy) {
  switch (policy) {
    case ApplicationsSync::kSync:
      return "sync";
    case ApplicationsSync::kCreateOnly:
      return "create-only";
    case ApplicationsSync::kCreateUpdate:
      return "create-update";
    case ApplicationsSync::kCreateDelete:
      return "create-delete";
  }
  return "?";
}

bool ApplicationsSyncAllows(ApplicationsSync policy, AppAction action) {
  if (action == AppAction::kCreate) return true;  // every policy creates
  switch (policy) {
    case ApplicationsSync::kSync:
      return true;
    case ApplicationsSync::kCreateOnly:
      return false;
    case ApplicationsSync::kCreateUpdate:
      return action == AppAction::kUpdate;
    case ApplicationsSync::kCreateDelete:
      return action == AppAction::kDelete;
  }
  return false;
}

std::string HeldBackMessage(const ApplicationSet& set, ApplicationsSync policy, AppAction action,
                            const std::string& app) {
  const std::string id = set.namespace_.empty() ? set.name : set.namespace_ + "/" + set.name;
  return "appset " + id + ": applicationsSync " + ApplicationsSyncName(policy) + " holds back " +
         AppActionName(action) + " of Application " + app;
}

}  // namespace fleetwave::engine
