// Deleting what disappeared (product §3.5, RollingSync §8) as pure decisions over a stored
// record: when a disappeared ApplicationSet or Application is marked PendingDeletion, when a
// mark is cancelled, when the grace period is over, and in each round of the Deleting phase
// which apps get which delete commands and which are gone. The appset actor only stores the
// record these functions return (before acting: write-ahead) and sends the commands.
// Pinned by tests/engine/daemon/deletion_state_test.cc.
//
// The record is self-contained: it keeps what deleting needs after the definition is gone and
// after a restart — the set's last good strategy (for deletionOrder Reverse), each app's name,
// labels, cluster and the kinds it rendered (so the cluster watches them again), and the apps
// already confirmed gone. A restart therefore continues the same phase in the same order.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/appset/appset.h"
#include "engine/issue.h"
#include "engine/live_objects.h"
#include "engine/sync/apply_plan.h"
#include "engine/time.h"

namespace fleetwave::engine {

enum class DeletionPhase { kPendingDeletion, kDeleting };
const char* DeletionPhaseName(DeletionPhase phase);  // "PendingDeletion" | "Deleting"

// One app as deleting it needs it, captured while it was still generated.
struct DeletionApp {
  std::string name;
  std::string cluster;  // kubeconfig context; "" when it resolved to none
  std::map<std::string, std::string> labels;
  std::vector<std::pair<std::string, std::string>> kinds;  // (apiVersion, kind) it rendered
  bool operator==(const DeletionApp&) const = default;
};

struct DeletionRecord {
  DeletionPhase phase = DeletionPhase::kPendingDeletion;
  Time since;  // first seen missing (or when the API asked)
  Time due;    // since + grace period; the API makes it `now`
  std::string reason;
  Strategy strategy;  // the set's last good strategy: type, deletionOrder, steps' selectors
  bool preserve_resources = false;
  std::vector<DeletionApp> apps;  // sorted by name
  std::set<std::string> gone;     // apps confirmed gone: progress, committed before acting on
  int step = 0;                   // the step being deleted (DeletionPlan::step), for status
};

Json EncodeDeletionRecord(const DeletionRecord& record);
// Non-throwing and strict: nullopt (with issues naming each field, e.g.
// `deletion.preserveResources: must be a boolean, not a string`) when the value is not a
// usable record, a field of the wrong type included.
std::optional<DeletionRecord> DecodeDeletionRecord(const Json& value, Issues& issues);

// ---- disappearance and the grace period ----

struct DisappearanceInput {
  // False while the ApplicationSet directory is empty or unreadable or the kubeconfig failed to
  // load: then nothing is marked, cancelled or started (the last good inputs stay in force).
  bool inputs_trusted = true;
  std::set<std::string> known;                    // names that existed (stored apps; running sets)
  std::set<std::string> present;                  // names the current inputs define / generate
  std::map<std::string, DeletionRecord> pending;  // stored records by name
  Time now;
  Duration grace{0};
  // An app generated again while Deleting gets its mark cancelled too (else its sync and its
  // deletion would fight, and the deletion would wait forever for objects the sync re-creates);
  // a whole set being deleted is not (a finalizer's role: it completes, then the file's set is
  // created afresh).
  bool deleting_cancellable = false;
};

struct DisappearanceDecision {
  std::vector<std::string> mark;    // known, now missing, no record yet: PendingDeletion
  std::vector<std::string> cancel;  // PendingDeletion and present again: the record goes
  std::vector<std::string> start;   // PendingDeletion, still missing, due: Deleting now
  std::optional<Time> next_due;     // the earliest due time not yet reached
  bool held = false;                // inputs not trusted: nothing decided
};

// A PendingDeletion record is cancelled when the name is present again; a Deleting one only
// with `deleting_cancellable` (apps), else its deletion completes first.
DisappearanceDecision DecideDisappearance(const DisappearanceInput& input);

// A new PendingDeletion record (due = now + grace).
DeletionRecord MarkPending(Time now, Duration grace, std::string reason);
// The API's DELETE: a PendingDeletion record becomes due now.
void ExpediteDeletion(DeletionRecord& record, Time now, const std::string& caller);

// ---- one round of the Deleting phase ----

// What the app's cluster shows of it this round.
struct DeletionAppView {
  bool cluster_exists = true;  // the app's cluster has an actor at all
  bool observed = false;       // reachable and every watch listed: `live` is the truth
  LiveObjects live;            // the objects carrying the app's label
};

struct AppDeleteCommand {
  std::string app;
  std::string cluster;
  DeletePlan plan;  // delete_now (background), unmark (preserveResourcesOnDeletion), kept
};

struct DeletionRound {
  DeletionRecord record;  // with newly gone apps and the current step; store it before acting
  bool changed = false;   // `record` differs from the input's (commit it first)
  std::vector<AppDeleteCommand> commands;  // apps of the current step with something to do
  std::vector<std::string> newly_gone;
  std::vector<std::string> waiting;   // apps of the current step whose cluster is not observed
  std::vector<std::string> orphaned;  // apps whose cluster no longer exists: counted gone
  bool done = false;                  // every app is gone: drop the records
};

// An app is gone once nothing of it is left to delete or unmark on an observed cluster (kept
// objects — Delete=false, Namespaces/CRDs without allow-delete — stay and do not hold it), or
// when its cluster no longer exists. engine::PlanDeletion picks the apps of the current step
// from the recorded strategy and labels; the next step begins only once they are all gone.
DeletionRound PlanDeletionRound(const std::string& appset, const DeletionRecord& record,
                                const std::map<std::string, DeletionAppView>& views);

// The status block the API shows for a record: {phase, since, deleteAt, reason, step,
// remaining}.
Json DeletionStatusJson(const DeletionRecord& record);

}  // namespace fleetwave::engine
