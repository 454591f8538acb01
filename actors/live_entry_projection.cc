#include "actors/live_entry_projection.h"

#include <memory>

#include "cluster-clients/json_fields.h"
#include "engine/progress/progress_decision.h"
#include "engine/progress/workload.h"
#include "engine/sync/tracking.h"

namespace fleetwave::actors {

ProjectedEntry ProjectEntry(const Json& object) {
  clients::FieldReader reader(object);
  ProjectedEntry out;
  out.label = reader.String({"metadata", "labels", engine::kAppLabel});
  out.entry.object = std::make_shared<const engine::LiveObject>(engine::ProjectLiveObject(object));
  // A Deployment's deadline is Kubernetes' own condition, which its health already reads
  // (engine::DaemonDecidesDeadline): one health, and no copy held to pick from.
  const std::optional<engine::WorkloadKind> kind = engine::WorkloadKindOf(object);
  if (!kind || !engine::DaemonDecidesDeadline(*kind)) {
    out.entry.health = engine::AssessHealth(object);
    return out;
  }
  // A workload's deadline is the daemon's own decision (its workload actor), not the object's
  // status: both healths are computed here, where the whole object is at hand, and the cluster
  // actor picks one by that decision (ClusterProjectionTest.DecidedWorkloadsCarryBothHealths).
  out.entry.health = engine::AssessHealth(object, engine::DeadlineView{});
  out.health_if_exceeded = engine::AssessHealth(object, engine::DeadlineView{true, ""});
  return out;
}

}  // namespace fleetwave::actors
