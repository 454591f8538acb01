// The sync operation RollingSync starts on an Application (rollingsync.md §6), shaped as Argo
// CD's `operation` field so it can be written to the Application or executed by fleetwave's own
// sync: initiatedBy, info, sync (with the pinned revision(s), prune, syncOptions) and retry.
#pragma once

#include <string>
#include <vector>

#include "engine/yaml_json.h"

namespace fleetwave::engine {

// `spec` is the desired Application spec (syncPolicy is read from it); `pinned` are the
// entry's targetRevisions. Multi-source apps get sync.revisions, others sync.revision (the
// first pinned revision). Fields equal to their zero value are omitted, as Argo CD does.
Json BuildSyncOperation(const Json& spec, const std::vector<std::string>& pinned,
                        bool multi_source);

}  // namespace fleetwave::engine
