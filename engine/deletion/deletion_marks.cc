#include "engine/deletion/deletion_marks.h"

namespace fleetwave::engine {

SetMarkDecision DecideSetMark(const SetMarkInput& in) {
  SetMarkDecision d;
  if (!in.set_mark && in.defined) return d;
  if (in.set_mark) {
    const bool pending = in.set_mark->record.phase == DeletionPhase::kPendingDeletion;
    if (!in.defined || !pending || !in.inputs_trusted) {
      d.action = SetMarkAction::kLeaveToDeleter;
      return d;
    }
    // Defined again while only pending: the mark goes (compare-and-set: once the deletion
    // actor moved it to Deleting, this fails and the set stays with it).
    d.action = SetMarkAction::kCancel;
    d.cancel_revision = in.set_mark->revision;
    d.log.push_back("appset=" + in.appset + " is defined again: its pending deletion is cancelled");
    return d;
  }
  if (!in.inputs_trusted) {
    d.action = SetMarkAction::kHold;  // nothing is marked while the inputs did not load
    return d;
  }
  // The snapshot: this gather's apps (the last good spec generates them), else the last
  // gather's.
  if (in.generated_now || in.generated_before) {
    d.action = SetMarkAction::kMark;
    d.snapshot = in.generated_now ? SnapshotSource::kThisGather : SnapshotSource::kLastGather;
    return d;
  }
  d.action = SetMarkAction::kRetry;
  d.retry_at = in.now + in.poll_interval;
  d.log_now.push_back(
      "cannot generate the applications to mark for deletion; retrying at the next poll");
  return d;
}

SetMark MarkSetPending(const ApplicationSet& appset, const std::vector<DeletionApp>& snapshot,
                       const std::map<std::string, StoredDeletion>& app_marks, Time now,
                       Duration grace) {
  SetMark out;
  DeletionRecord& r = out.record;
  r = MarkPending(now, grace, "no file defines it any more (was " + appset.file + ")");
  r.strategy = appset.strategy;
  r.preserve_resources = appset.preserve_resources_on_deletion;
  std::map<std::string, DeletionApp> by_name;
  for (const auto& [name, entry] : app_marks) {
    for (const auto& a : entry.record.apps) {
      if (entry.record.gone.count(a.name) == 0) by_name[a.name] = a;
    }
    out.absorbed.emplace_back(name, entry.revision);
  }
  for (const auto& a : snapshot) by_name[a.name] = a;
  for (auto& [name, a] : by_name) r.apps.push_back(std::move(a));
  out.log = "appset=" + appset.name + " is no longer defined: PendingDeletion of " +
            std::to_string(r.apps.size()) + " application(s) until " + FormatRfc3339(r.due);
  return out;
}

AppMarks MarkDisappearedApps(const AppMarksInput& input) {
  AppMarks marks;
  DisappearanceInput in;
  in.inputs_trusted = input.inputs_trusted;
  in.known = input.known;
  in.present = input.generated;
  for (const auto& [app, entry] : input.app_marks) in.pending[app] = entry.record;
  in.now = input.now;
  in.grace = input.grace;
  in.deleting_cancellable = true;
  const DisappearanceDecision d = DecideDisappearance(in);
  for (const auto& app : d.mark) {
    DeletionRecord r = MarkPending(input.now, input.grace, "no longer generated");
    auto p = input.previous.find(app);
    DeletionApp snapshot;
    snapshot.name = app;
    r.apps.push_back(p != input.previous.end() ? p->second : snapshot);
    marks.log.push_back("appset=" + input.appset + " app=" + app +
                        (r.apps[0].cluster.empty() ? "" : " cluster=" + r.apps[0].cluster) +
                        " is no longer generated: PendingDeletion until " + FormatRfc3339(r.due));
    marks.marked[app] = std::move(r);
    marks.records_leave.push_back(app);
  }
  for (const auto& app : d.cancel) {
    marks.cancelled.emplace_back(app, input.app_marks.at(app).revision);
    marks.log.push_back("appset=" + input.appset + " app=" + app +
                        " is generated again: its pending deletion is cancelled");
  }
  return marks;
}

Json PendingDeletionsJson(const std::map<std::string, StoredDeletion>& app_marks,
                          const AppMarks& marks) {
  std::map<std::string, DeletionRecord> records;
  for (const auto& [app, entry] : app_marks) records[app] = entry.record;
  for (const auto& [app, revision] : marks.cancelled) records.erase(app);
  for (const auto& [app, record] : marks.marked) records[app] = record;
  Json out = Json::array();
  for (const auto& [app, record] : records) {
    Json entry = DeletionStatusJson(record);
    entry["application"] = app;
    out.push_back(std::move(entry));
  }
  return out;
}

void ShowPendingDeletions(Json& status, const Json& pending) {
  if (!pending.empty()) status["pendingDeletions"] = pending;
}

AppsToJudge AppsToJudgeOf(const std::map<std::string, Json>& statuses,
                          const std::map<std::string, StoredApp>& stored,
                          const std::set<std::string>& present,
                          const std::vector<GeneratedApplication>& generation) {
  AppsToJudge out;
  for (const auto& [app, _] : statuses) out.known.insert(app);
  for (const auto& [app, _] : stored) out.known.insert(app);
  out.generated = present;
  for (const auto& app : generation) out.generated.insert(app.name);
  return out;
}

SetMarkEffect EffectOfSetMark(SetMarkAction action) {
  switch (action) {
    case SetMarkAction::kNone:
    case SetMarkAction::kRetry:
      return {std::nullopt, false, false};
    case SetMarkAction::kLeaveToDeleter:
    case SetMarkAction::kHold:
      return {true, false, false};
    case SetMarkAction::kCancel:
      return {false, true, true};
    case SetMarkAction::kMark:
      return {true, true, false};
  }
  return {};
}

std::optional<bool> DeletingAfterSetMarkCommit(const SetMarkEffect& effect, bool stored) {
  if (!stored || effect.reconcile_after) return false;
  return std::nullopt;
}

}  // namespace fleetwave::engine
