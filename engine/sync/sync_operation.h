// The sync operations fleetwave starts on an Application, shaped as Argo CD's `operation`
// field so it can be written to the Application or executed by fleetwave's own sync:
// initiatedBy, info, sync (with the revision(s), prune, syncOptions) and retry. The
// RollingSync rollout, AllAtOnce automated sync and a person's manual
// sync all build theirs with the same function, so they differ only in who started them and
// at which revision.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// An Application spec with `sources` (non-empty) syncs through sync.revisions.
bool IsMultiSourceSpec(const Json& spec);
// Revisions as one text: "a,b" (log lines, messages, operation ids).
std::string JoinRevisions(const std::vector<std::string>& revisions);

// Who started a sync and why: initiatedBy.{username, automated} and an info Reason entry.
struct SyncTrigger {
  std::string username;  // "" = omitted (Argo's automated sync names nobody)
  bool automated = false;
  std::string reason;  // info [{name: Reason, value: reason}]; "" = no info
};

// The one builder. `spec` is the Application spec (syncPolicy is read from it): sync.prune is
// its automated prune, sync.syncOptions its syncOptions, retry its retry or {limit: 5}.
// Multi-source apps get sync.revisions, others sync.revision (the first revision). Fields
// equal to their zero value are omitted, as Argo CD does.
Json BuildSyncOperation(const Json& spec, const std::vector<std::string>& revisions,
                        bool multi_source, const SyncTrigger& trigger);

// RollingSync's operation: initiatedBy {username: applicationset-controller, automated: true},
// the rollout's Reason, and `pinned`, the entry's targetRevisions.
Json BuildSyncOperation(const Json& spec, const std::vector<std::string>& pinned,
                        bool multi_source);

// AllAtOnce automated sync at `revisions`: initiatedBy {automated: true}, no info.
Json BuildAutomatedSyncOperation(const Json& spec, const std::vector<std::string>& revisions,
                                 bool multi_source);

// `fleetwave sync APP [--revision R]`: initiatedBy {username: initiated_by}, at the pinned
// revision(s) unless `revision` is given. `--revision` names one revision, so it is refused
// for a multi-source app (`error` set, `operation` null).
struct ManualSync {
  Json operation;
  std::optional<Error> error;  // kInvalidInput
};
ManualSync BuildManualSyncOperation(const Json& spec, const std::vector<std::string>& pinned,
                                    bool multi_source, const std::optional<std::string>& revision,
                                    const std::string& initiated_by);

}  // namespace fleetwave::engine
