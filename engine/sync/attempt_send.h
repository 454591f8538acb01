// What one attempt of a sync sends to its cluster, or why it ends without a request. The set's
// actor gathers the facts (the app's cluster, its live objects, the render) and sends what this
// plans. Pure. Pinned by tests/engine/sync/attempt_send_test.cc.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/appset/render.h"
#include "engine/error.h"
#include "engine/live_objects.h"
#include "engine/rollingsync/appset_reconcile.h"
#include "engine/sync/operation_record.h"
#include "engine/sync/tracking.h"

namespace fleetwave::engine {

// Where an attempt goes.
struct AttemptTarget {
  AppIdentity app;             // the set and the app
  std::string cluster;         // the app's destination cluster (a kubeconfig context's name)
  bool cluster_known = false;  // the daemon has a cluster of that name
};

struct AttemptSendPlan {
  // The attempt ends now, without a request to the cluster: with `error` when it cannot run,
  // else with `attempt.settled` (nothing to apply or prune: everything is in place).
  bool finish_now = false;
  std::optional<Error> error;
  SyncAttempt attempt;  // what to apply and prune, and the results known already
};

// Whether the operation asked for pruning: its `sync.prune` is true (Argo's operation shape).
bool PruneRequested(const OperationRecord& operation);

// An unknown cluster ends the attempt with NotFound "no cluster named <cluster>"; otherwise the
// attempt is PlanSyncAttempt's (the app's ignoreDifferences from `app_spec`, pruning as the
// operation asked), ending at once when there is nothing to apply and nothing to prune.
AttemptSendPlan PlanAttemptSend(const AttemptTarget& target, const OperationRecord& operation,
                                const Json& app_spec, const std::vector<RenderedObject>& desired,
                                const LiveObjects& live);

// The log line for an attempt sent to its cluster (e2e tests grep it):
// "app=<app> cluster=<cluster> applying <n> object(s), pruning <m>".
std::string AttemptSendLine(const AttemptTarget& target, size_t applying, size_t pruning);

}  // namespace fleetwave::engine
