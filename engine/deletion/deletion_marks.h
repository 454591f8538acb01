// What an appset actor marks when something of its set disappears (product §3.5): the whole
// set's PendingDeletion mark (or its cancel when the definition is back while only pending),
// and the per-app marks and cancels of one reconcile, each with its log lines. Pure: the appset
// actor builds the snapshots from its gathered generations, turns these typed decisions into
// store operations and commits them before acting; the deletion actor (PlanDeletionSweep) does
// the deleting. Pinned by tests/engine/deletion/deletion_marks_test.cc.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/appset/appset.h"
#include "engine/appset/generate.h"
#include "engine/deletion/deletion_state.h"
#include "engine/deletion/deletion_sweep.h"
#include "engine/rollingsync/appset_reconcile.h"
#include "engine/time.h"

namespace fleetwave::engine {

// ---- the whole set ----

struct SetMarkInput {
  std::string appset;
  bool defined = true;  // a file defines the set now
  bool inputs_trusted = true;
  std::optional<StoredDeletion> set_mark;  // the set's stored deletion record, if any
  bool generated_now = false;              // this gather generated the set's apps without errors
  bool generated_before = false;           // there is a previous gather to snapshot
  Time now;
  Duration poll_interval{0};
};

enum class SetMarkAction {
  kNone,            // defined and not marked: an ordinary reconcile
  kLeaveToDeleter,  // marked and Deleting, or still not defined: the deletion actor acts
  kHold,            // not trusted: nothing is marked or cancelled while the inputs did not load
  kCancel,          // defined again while only pending: remove the mark (compare-and-set)
  kMark,            // no longer defined: store a PendingDeletion mark from `snapshot`
  kRetry,           // no generation to snapshot: try again at `retry_at`
};

enum class SnapshotSource { kThisGather, kLastGather };

struct SetMarkDecision {
  SetMarkAction action = SetMarkAction::kNone;
  int64_t cancel_revision = 0;  // kCancel: the mark's revision; a Deleting one by then wins
  SnapshotSource snapshot = SnapshotSource::kThisGather;  // kMark
  std::optional<Time> retry_at;                           // kRetry
  std::vector<std::string> log_now;                       // kRetry: logged at once
  std::vector<std::string> log;                           // kCancel: logged once stored
};

SetMarkDecision DecideSetMark(const SetMarkInput& input);

// What a set-mark decision does to the set's own reconciling. `deleting` (nullopt: as it was)
// holds the set's reconciles while the deletion is the deletion actor's, or held until the
// inputs load; `stores`: a mark or its cancel is committed; `reconcile_after`: once a cancel is
// stored, the set reconciles afresh, as before it was marked.
struct SetMarkEffect {
  std::optional<bool> deleting;
  bool stores = false;
  bool reconcile_after = false;
};
SetMarkEffect EffectOfSetMark(SetMarkAction action);

// `deleting` once the commit of `effect` answered (`stored`; nullopt: as it was). A commit that
// failed put nothing in force, so the set is not held (and the decision is retried); a stored
// cancel releases it.
std::optional<bool> DeletingAfterSetMarkCommit(const SetMarkEffect& effect, bool stored);

// kMark: the record to store (must not exist yet), the app marks it absorbs (removed in the
// same batch, each compare-and-set on its revision) and the line logged once stored.
struct SetMark {
  DeletionRecord record;
  std::vector<std::pair<std::string, int64_t>> absorbed;  // (app, revision)
  std::string log;
};

// The set's last good strategy and preserve flag; its apps are `snapshot` plus those already
// pending deletion on their own and not yet gone.
SetMark MarkSetPending(const ApplicationSet& appset, const std::vector<DeletionApp>& snapshot,
                       const std::map<std::string, StoredDeletion>& app_marks, Time now,
                       Duration grace);

// ---- the apps of one reconcile ----

struct AppMarksInput {
  std::string appset;
  bool inputs_trusted = true;
  std::set<std::string> known;      // the apps the store holds
  std::set<std::string> generated;  // the apps generated now
  // What the previous gather knew of apps no longer generated (name, labels, cluster, kinds).
  std::map<std::string, DeletionApp> previous;
  std::map<std::string, StoredDeletion> app_marks;  // this set's stored per-app deletions
  Time now;
  Duration grace{0};
};

struct AppMarks {
  // Marked PendingDeletion: each app's records leave the set and its mark is stored.
  std::map<std::string, DeletionRecord> marked;
  // The apps whose stored records (status, spec, operation) go in the same batch as their
  // mark: every marked app, since a status kept for it would read as known and mark it again.
  std::vector<std::string> records_leave;
  // Generated again: the mark goes, compare-and-set on this revision (once the deletion actor
  // moved it on, the batch fails and is retried with the record as it is then).
  std::vector<std::pair<std::string, int64_t>> cancelled;
  std::vector<std::string> log;  // logged once stored
  bool changed() const { return !marked.empty() || !cancelled.empty(); }
};

AppMarks MarkDisappearedApps(const AppMarksInput& input);

// status.pendingDeletions of the set: per app pending deletion or being deleted, after `marks`
// ({application, phase, since, deleteAt, reason, remaining}), sorted by app.
Json PendingDeletionsJson(const std::map<std::string, StoredDeletion>& app_marks,
                          const AppMarks& marks);

// The set's published status with its pending deletions: status.pendingDeletions is shown only
// while some app is pending deletion or being deleted (`pending`: PendingDeletionsJson).
void ShowPendingDeletions(Json& status, const Json& pending);

// The apps a reconcile's marks are judged over: `known`, every app the store holds a record of
// (a status entry, a stored spec or operation); `generated`, the apps of this generation and
// those the decision still holds present.
struct AppsToJudge {
  std::set<std::string> known, generated;
};
AppsToJudge AppsToJudgeOf(const std::map<std::string, Json>& statuses,
                          const std::map<std::string, StoredApp>& stored,
                          const std::set<std::string>& present,
                          const std::vector<GeneratedApplication>& generation);

}  // namespace fleetwave::engine
