#include "engine/cluster_rules.h"

#include <set>
#include <utility>

#include "engine/progress/progress_deadline.h"
#include "engine/progress/progress_decision.h"
#include "engine/sync/tracking.h"

namespace fleetwave::engine {

std::vector<WatchedKind> KindsToWatch(const std::vector<RenderedObject>& objects) {
  std::vector<WatchedKind> kinds;
  std::set<std::pair<std::string, std::string>> seen;
  for (const RenderedObject& o : objects) {
    auto api_version = o.object.is_object() ? o.object.find("apiVersion") : o.object.end();
    if (api_version == o.object.end() || !api_version->is_string()) continue;
    const std::string version = api_version->get<std::string>();
    if (version.empty() || o.ref.kind.empty()) continue;
    if (seen.emplace(version, o.ref.kind).second) kinds.push_back({version, o.ref.kind});
  }
  return kinds;
}

ObjectResult DeletionResult(const ObjectRef& ref, bool ok, bool not_found, const std::string& error,
                            const std::string& verb) {
  if (ok || not_found) return {ref, ObjectResultCode::kPruned, verb};
  return {ref, ObjectResultCode::kSyncFailed, error};
}

ObjectResult ApplyResult(const ObjectRef& ref, bool ok, const std::string& error) {
  if (ok) return {ref, ObjectResultCode::kSynced, "applied"};
  return {ref, ObjectResultCode::kSyncFailed, error};
}

ObjectResult UnmarkResult(const ObjectRef& ref, bool ok, const std::string& error) {
  if (ok) return {ref, ObjectResultCode::kSynced, "tracking marks removed"};
  return {ref, ObjectResultCode::kSyncFailed, error};
}

Json UntrackPatch() {
  return {{"metadata",
           {{"annotations", {{kTrackingIdAnnotation, nullptr}, {kAppliedHashAnnotation, nullptr}}},
            {"labels", {{kAppLabel, nullptr}}}}}};
}

WorkloadEventStep OnWorkloadEvent(bool has_deadline, bool deciding, bool has_actor) {
  WorkloadEventStep step;
  step.remember = has_deadline;
  if (!deciding) return step;  // a standby only remembers; a term's start spawns
  if (has_actor) {
    // The actor evaluates the update; without a deadline it removes its record and quits.
    step.tell_actor = true;
    step.forget_actor = !has_deadline;
    return step;
  }
  step.spawn_actor = has_deadline;
  return step;
}

namespace {

// What a Deployment's row shows of it: the deadline in force, the condition and its revision.
bool EchoedRowDiffers(const Workload& a, const Workload& b) {
  return ResolveDeadline(a).seconds != ResolveDeadline(b).seconds ||
         a.progressing_condition != b.progressing_condition || a.Revision() != b.Revision();
}

std::optional<PreviousCondition> EchoedDecision(const Workload& w) {
  return DecisionOf(EvaluateProgress(w, std::nullopt, Time{}));  // an echo: `now` is not read
}

}  // namespace

EchoedWorkloadStep OnEchoedWorkloadEvent(const std::optional<Workload>& before,
                                         const std::optional<Workload>& after, bool deciding) {
  EchoedWorkloadStep step;
  if (!deciding) return step;
  const bool had_row = before && HoldsProgressCondition(*before);
  const bool has_row = after && HoldsProgressCondition(*after);
  step.publish = has_row && (!had_row || EchoedRowDiffers(*before, *after));
  step.remove = had_row && !has_row;
  // Only an update is a transition: an add is the object as listed (a daemon start lists every
  // Deployment, and a line for each would say nothing new), a delete or a deadline switched off
  // ends the row.
  step.log_transition =
      had_row && has_row && IsLoggedTransition(EchoedDecision(*before), EchoedDecision(*after));
  return step;
}

bool RecordCoveredByListing(const std::string& record_kind, const std::string& record_ns,
                            const std::string& listed_kind, const std::string& listed_ns) {
  return record_kind == listed_kind && (listed_ns.empty() || record_ns == listed_ns);
}

std::optional<Error> RefusalWhileDown(bool down, const std::string& cluster,
                                      const std::string& last_failure) {
  if (!down) return std::nullopt;
  return TransientError("", "cluster " + cluster + " is unreachable (" + last_failure + ")");
}

std::optional<std::string> ReachabilityChangeLine(bool was_up, bool was_down, bool up, bool down,
                                                  bool hung, int failures_in_a_row,
                                                  const std::string& last_failure) {
  if (!was_up && up) return "reachable";
  if (was_down || !down) return std::nullopt;
  if (hung) return "unreachable: a request or watch made no progress; last: " + last_failure;
  return "unreachable after " + std::to_string(failures_in_a_row) +
         " consecutive failures; last: " + last_failure;
}

bool ApplyReachedNoServer(std::size_t answered, std::size_t cluster_failures) {
  return answered == 0 && cluster_failures > 0;
}

DiscoveryStep OnDiscovery(DiscoveryAnswer answer, std::size_t versions_left) {
  switch (answer) {
    case DiscoveryAnswer::kServed:
      return DiscoveryStep::kWatch;
    case DiscoveryAnswer::kNotServed:
      // A kind the server does not serve is not retried: a CRD that arrives later is picked
      // up by the next apply that names it.
      return versions_left > 0 ? DiscoveryStep::kTryNextVersion : DiscoveryStep::kNotServed;
    case DiscoveryAnswer::kFailed:
      break;
  }
  return DiscoveryStep::kRetryLater;
}

std::vector<std::string> WorkloadWatchNamespaces(const std::vector<std::string>& configured) {
  if (configured.empty()) return {""};  // the cluster scope: every namespace
  return configured;
}

bool ClusterStatusToTell(bool reachable, bool synced, bool told_reachable, bool told_synced) {
  return reachable != told_reachable || synced != told_synced;
}

}  // namespace fleetwave::engine
