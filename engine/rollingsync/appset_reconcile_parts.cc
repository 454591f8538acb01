#include "engine/rollingsync/appset_reconcile_parts.h"

#include <algorithm>
#include <utility>

#include "engine/health/app_health.h"
#include "engine/repository_condition.h"
#include "engine/rollingsync/rollout_spec_diff.h"
#include "engine/sync/retry_policy.h"
#include "engine/sync/sync_operation.h"
#include "engine/sync/tracking.h"

namespace fleetwave::engine::reconcile {

const Json* Child(const Json* object, const char* key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(key);
  return it == object->end() || it->is_null() ? nullptr : &*it;
}

// Deterministic from its inputs and unique per start: the previous operation's id chains the
// starts of one app, so two starts in the same second at the same revision still differ.
std::string OperationId(const std::string& app, SyncStartTrigger trigger,
                        const std::vector<std::string>& revisions, const OperationRecord* last,
                        Time now) {
  const std::string previous = last != nullptr ? last->id : std::string();
  const std::string key = app + "\x1f" + SyncStartTriggerName(trigger) + "\x1f" +
                          FormatRfc3339(now) + "\x1f" + JoinRevisions(revisions) + "\x1f" +
                          previous;
  return std::string(SyncStartTriggerName(trigger)) + "-" + Fnv1a64Hex(key);
}

const OperationRecord* StoredOperation(const StoredApp* stored) {
  return stored != nullptr && stored->operation ? &*stored->operation : nullptr;
}

bool Running(const OperationRecord* op) {
  return op != nullptr && op->phase == OperationPhase::kRunning;
}

AppSync CompareObserved(const AppIdentity& id, const ObservedApp& app,
                        const std::vector<IgnoreDifference>& ignore) {
  if (!app.reachable || app.source_error || app.rendered == nullptr) {
    AppSync unknown;
    unknown.status = SyncCode::kUnknown;
    if (!app.reachable) {
      unknown.reason = SyncReason::kUnreachable;
      unknown.message = "cluster is unreachable";
    } else {
      unknown.message = app.source_error ? app.source_error->ToString() : "manifests not rendered";
    }
    return unknown;
  }
  return CompareApp(id, *app.rendered, app.live, ignore, true);
}

HealthStatus AssessObserved(const ObservedApp& app) {
  AppHealthInput in;
  in.reachable = app.reachable;
  if (app.reachable && (app.source_error || app.rendered == nullptr)) {
    // Without the rendered objects there is nothing to judge health over: Unknown holds the
    // next step, as an unreachable cluster does.
    return {HealthCode::kUnknown, "manifests could not be rendered"};
  }
  in.gate = GateReadAfterWrite(app.applied, app.live);
  if (app.rendered) {
    in.desired.reserve(app.rendered->size());
    for (const auto& o : *app.rendered) in.desired.push_back(o.ref);
  }
  in.live = app.live_health;
  return AssessAppHealth(in);
}

OperationState OperationStateOf(const OperationRecord& op) {
  OperationState s;
  s.phase = std::string(OperationPhaseName(op.phase));
  s.started_at = op.started_at;
  s.operation = op.operation;
  return s;
}

// The revisions the app is judged at: the ones resolved this reconcile; without them (a source
// error) the pin, so that a failed fetch never reads as a revision change.
std::vector<std::string> CurrentRevisions(const ObservedApp& app, const AppRolloutStatus* entry,
                                          const OperationRecord* op) {
  if (!app.revisions.empty()) return app.revisions;
  if (entry != nullptr) return entry->target_revisions;
  if (op != nullptr) return op->revisions;
  return {};
}

const AppRolloutStatus* FindEntry(const std::vector<AppRolloutStatus>& entries,
                                  const std::string& app) {
  auto it = std::lower_bound(
      entries.begin(), entries.end(), app,
      [](const AppRolloutStatus& e, const std::string& name) { return e.application < name; });
  if (it != entries.end() && it->application == app) return &*it;
  // Stored entries are normally sorted; fall back to a scan when they are not.
  for (const auto& e : entries) {
    if (e.application == app) return &e;
  }
  return nullptr;
}

Json StoredStatusJson(const StoredRolloutStatus& stored,
                      const std::optional<AppSetCondition>& extra, Time now) {
  PlanResult r;
  r.other_status = stored.other;
  r.application_status = stored.application_status;
  r.conditions = extra ? MergeConditions(stored.conditions, {*extra}, {}, now) : stored.conditions;
  if (stored.has_rollout) r.rollout = stored.rollout;
  return PlanStatusJson(r);
}

std::string Prefix(const ApplicationSet& set, const GeneratedApplication& app) {
  std::string out = "appset=" + set.name + " app=" + app.name;
  if (!app.cluster.empty()) out += " cluster=" + app.cluster;
  return out;
}

namespace {

// FNV-1a over the parts of a key.
class KeyHasher {
 public:
  void Add(std::string_view s) {
    for (unsigned char c : s) Byte(c);
    Byte(0xff);  // a separator, so that "ab","c" and "a","bc" differ
  }
  void Add(uint64_t v) {
    for (int i = 0; i < 8; ++i) Byte(static_cast<unsigned char>(v >> (8 * i)));
  }
  void Add(const std::optional<Time>& t) {
    Add(t ? static_cast<uint64_t>(t->time_since_epoch().count()) : ~0ull);
  }
  uint64_t Value() const { return h_ == 0 ? 1 : h_; }

 private:
  void Byte(unsigned char c) {
    h_ ^= c;
    h_ *= 1099511628211ull;  // FNV-1a
  }
  uint64_t h_ = 14695981039346656037ull;
};

}  // namespace

uint64_t ApplicationKey(const AppView& v, uint64_t spec_fingerprint, const OperationRecord* op) {
  if (spec_fingerprint == 0) return 0;
  KeyHasher k;
  k.Add(spec_fingerprint);
  k.Add(v.desired->name);
  const Json* metadata = Child(&v.desired->object, "metadata");
  const uint64_t metadata_fingerprint = metadata != nullptr ? SpecFingerprint(*metadata) : 1;
  if (metadata != nullptr && metadata->is_object() && metadata_fingerprint == 0) return 0;
  k.Add(metadata_fingerprint);
  for (const auto& [key, value] : v.desired->labels) {
    k.Add(key);
    k.Add(value);
  }
  k.Add(HealthCodeName(v.health.status));
  k.Add(v.health.message);
  for (const auto& c : v.conditions) {
    k.Add(c.type);
    k.Add(c.message);
  }
  k.Add(static_cast<uint64_t>(v.live->revisions.size()));
  for (const auto& r : v.live->revisions) k.Add(r);
  if (op != nullptr) {
    k.Add(op->id);
    k.Add(OperationPhaseName(op->phase));
    k.Add(op->message);
    k.Add(static_cast<uint64_t>(op->retry_count));
    k.Add(std::optional<Time>(op->started_at));
    k.Add(op->finished_at);
    k.Add(op->next_attempt_at);
    k.Add(static_cast<uint64_t>(op->results.size()));
  } else {
    k.Add("no operation");
  }
  return k.Value();
}

// The Argo-shaped Application the API serves (DecodeApplication reads it back). Built member
// by member (no initializer lists, which copy their values) around the app's new spec, which it
// takes over; `reconciled_at` is `now` formatted once per reconcile.
Json ApplicationJson(const AppView& v, Json spec, const OperationRecord* op,
                     const std::string& reconciled_at) {
  const ObservedApp& app = *v.observed;
  const GeneratedApplication& desired = *v.desired;
  Json metadata = Json::object();
  if (const Json* m = Child(&desired.object, "metadata"); m && m->is_object()) {
    for (const char* key : {"namespace", "labels", "annotations"}) {
      if (const Json* f = Child(m, key)) metadata[key] = *f;
    }
  }
  metadata["name"] = desired.name;
  if (!desired.labels.empty()) metadata["labels"] = desired.labels;

  Json sync = Json::object();
  sync["status"] = std::string(SyncCodeName(v.sync->status));
  if (IsMultiSourceSpec(spec)) {
    sync["revisions"] = v.live->revisions;
  } else if (!v.live->revisions.empty()) {
    sync["revision"] = v.live->revisions.front();
  }
  if (!v.sync->message.empty()) sync["message"] = v.sync->message;

  Json resources = Json::array();
  resources.get_ref<Json::array_t&>().reserve(v.sync->objects.size());
  for (const auto& o : v.sync->objects) {
    Json r = Json::object();
    r["group"] = o.ref.group;
    r["kind"] = o.ref.kind;
    r["namespace"] = o.ref.namespace_;
    r["name"] = o.ref.name;
    r["status"] = std::string(SyncCodeName(o.status));
    if (auto h = app.live_health.find(o.ref); h != app.live_health.end()) {
      Json health = Json::object();
      health["status"] = std::string(HealthCodeName(h->second.status));
      if (!h->second.message.empty()) health["message"] = h->second.message;
      r["health"] = std::move(health);
    }
    resources.push_back(std::move(r));
  }

  Json status = Json::object();
  status["sync"] = std::move(sync);
  Json health = Json::object();
  health["status"] = std::string(HealthCodeName(v.health.status));
  if (!v.health.message.empty()) health["message"] = v.health.message;
  status["health"] = std::move(health);
  if (op != nullptr) status["operationState"] = OperationRecordToJson(*op);
  status["reconciledAt"] = reconciled_at;
  status["resources"] = std::move(resources);
  if (!v.conditions.empty()) {
    Json conditions = Json::array();
    for (const auto& c : v.conditions) {
      Json condition = Json::object();
      condition["type"] = c.type;
      condition["message"] = c.message;
      conditions.push_back(std::move(condition));
    }
    status["conditions"] = std::move(conditions);
  }
  Json out = Json::object();
  out["apiVersion"] = "argoproj.io/v1alpha1";
  out["kind"] = "Application";
  out["metadata"] = std::move(metadata);
  out["spec"] = std::move(spec);
  out["status"] = std::move(status);
  return out;
}

void LogEntryChange(const ApplicationSet& set, const GeneratedApplication& app,
                    const AppRolloutStatus* old, const AppRolloutStatus& now_entry,
                    std::vector<std::string>& log) {
  const std::string prefix = Prefix(set, app);
  const std::string step = " (step " + now_entry.step + ")";
  const bool promoted = now_entry.status == RolloutAppState::kPending &&
                        (old == nullptr || old->status != RolloutAppState::kPending);
  if (promoted) {
    log.push_back(prefix + " promoted to Pending" + step);
    return;
  }
  if (old == nullptr) {
    log.push_back(prefix + " " + ToString(now_entry.status) + step + ": " + now_entry.message);
    return;
  }
  if (old->status != now_entry.status) {
    log.push_back(prefix + " " + ToString(old->status) + " -> " + ToString(now_entry.status) +
                  step + ": " + now_entry.message);
  } else if (old->target_revisions != now_entry.target_revisions) {
    log.push_back(prefix + " pinned to " + JoinRevisions(now_entry.target_revisions) + ", " +
                  ToString(now_entry.status) + step + ": " + now_entry.message);
  }
}

// Level-triggered: derived from the difference between the state before and after, nothing is
// remembered between reconciles.
void LogRolloutStateChanges(const ApplicationSet& set, const RolloutState& was,
                            const std::vector<AppSetCondition>& before_conditions,
                            const std::optional<RolloutState>& after_rollout,
                            const std::vector<AppSetCondition>& after_conditions,
                            std::vector<std::string>& log) {
  if (after_rollout) {
    const RolloutState& is = *after_rollout;
    const std::string prefix = "appset=" + set.name;
    if (is.generation != was.generation) {
      log.push_back(prefix + " rollout generation " + std::to_string(is.generation) + " started");
    } else if (was.step > 0 && is.step != was.step) {
      for (int s = was.step;
           s < (is.step == 0 ? static_cast<int>(set.strategy.steps.size()) + 1 : is.step); ++s) {
        log.push_back(prefix + " step " + std::to_string(s) + " complete");
      }
      if (is.step != 0 && is.step < was.step) {
        log.push_back(prefix + " step " + std::to_string(is.step) + " re-opened");
      }
    }
  }
  // A repository condition that went: the set's repositories read again (said once, as its
  // setting was).
  for (const auto& c : before_conditions) {
    if (!IsRepositoryCondition(c)) continue;
    const bool still =
        std::any_of(after_conditions.begin(), after_conditions.end(),
                    [](const AppSetCondition& a) { return IsRepositoryCondition(a); });
    if (!still) {
      log.push_back("appset=" + set.name + " ErrorOccurred cleared: its repositories read again");
    }
  }
  // Conditions: a new or changed RolloutProgressing / InvalidRolloutConfig / ErrorOccurred.
  for (const auto& c : after_conditions) {
    if (c.type != "RolloutProgressing" && c.type != "InvalidRolloutConfig" &&
        c.type != "ErrorOccurred") {
      continue;
    }
    auto old = std::find_if(before_conditions.begin(), before_conditions.end(),
                            [&](const AppSetCondition& o) { return o.type == c.type; });
    const bool changed = old == before_conditions.end() || old->status != c.status ||
                         old->reason != c.reason || old->message != c.message;
    if (!changed) continue;
    if (c.reason == "ApplicationSetRolloutComplete") {
      log.push_back("appset=" + set.name + " rollout completed");
    } else if (c.type != "RolloutProgressing" || c.reason != "ApplicationSetModified") {
      // "performing rollout of step N" is already told by the step lines above.
      log.push_back("appset=" + set.name + " " + c.type + "=" + c.status + " " + c.reason + ": " +
                    c.message);
    }
  }
}

std::string HealedLine(const ApplicationSet& set, const AppView& v) {
  return Prefix(set, *v.desired) + " drifted from its pinned revision (" + v.sync->message +
         "): it is synced again in step order";
}

RolloutStartCheck CheckRolloutStart(const AppView& v, const AppRolloutStatus& entry) {
  const OperationRecord* op = StoredOperation(v.stored);
  RolloutStartCheck out;
  if (!v.observed->reachable) {
    out.held = "cluster is unreachable";
  } else if (v.observed->source_error) {
    out.held = "manifests could not be read or rendered";
  } else if (Running(op)) {
    out.held = "operation " + op->id + " is running";
  } else if (op != nullptr && op->revisions == entry.target_revisions &&
             entry.last_transition_time && op->started_at >= *entry.last_transition_time) {
    // already started for this entry; its phase moves the entry on
  } else {
    out.start = true;
  }
  return out;
}

RolloutStartCheck CheckRollbackStart(const AppView& v, const RollbackSync& back) {
  const OperationRecord* op = StoredOperation(v.stored);
  RolloutStartCheck out;
  if (!v.observed->reachable) {
    out.held = "cluster is unreachable";
  } else if (Running(op)) {
    out.held = "operation " + op->id + " is running";
  } else if (op != nullptr && op->revisions == back.to && op->started_at >= back.since) {
    // already started; its phase moves the rollback on
  } else {
    out.start = true;
  }
  return out;
}

// Started no earlier than the entry's transition, so that the planner's rule (an operation
// started at or after the transition moves a Pending entry on) holds whatever the clock did
// since the promotion: with a clock stepped back, a start stamped `now` would read as older than
// the entry and be sent again every reconcile.
Time RolloutStartTime(const AppRolloutStatus& entry, Time now) {
  return std::max(now, entry.last_transition_time.value_or(now));
}

SyncStart MakeSyncStart(const ApplicationSet& set, const AppView& v, SyncStartTrigger trigger,
                        Json operation, std::vector<std::string> revisions, Time started_at,
                        Time now, std::vector<std::string>& log) {
  SyncStart s;
  s.app = v.id.app;
  s.trigger = trigger;
  s.record =
      StartOperation(OperationId(v.id.app, trigger, revisions, StoredOperation(v.stored), now),
                     std::move(operation), std::move(revisions), started_at);
  log.push_back(Prefix(set, *v.desired) + " sync started (" + SyncStartTriggerName(trigger) +
                ") operation=" + s.record.id + " revision=" + JoinRevisions(s.record.revisions));
  return s;
}

void KeepStoredSpec(GeneratedApplication& gen, StoredApp* stored, SpecWriteRules rules) {
  if (stored == nullptr || !stored->spec || rules.may_update) return;
  if (stored->spec_fingerprint == 0) stored->spec_fingerprint = SpecFingerprint(*stored->spec);
  // A copy: the stored record stays the store's.
  gen.object["spec"] = *stored->spec;
  gen.spec_fingerprint = stored->spec_fingerprint;
}

void DeriveView(const ApplicationSet& set, ObservedApp& app, const GeneratedApplication& gen,
                StoredApp* stored, const AppRolloutStatus* stored_entry, SpecWriteRules rules,
                AppView& v, Application& live) {
  v.observed = &app;
  v.desired = &gen;
  v.stored = stored;
  v.live = &live;
  v.id = {set.name, gen.name};
  Json* stored_spec = v.stored && v.stored->spec ? &*v.stored->spec : nullptr;
  // Equal fingerprints mean equal specs; only different ones need the full comparison.
  if (stored_spec != nullptr && v.stored->spec_fingerprint == 0) {
    v.stored->spec_fingerprint = SpecFingerprint(*stored_spec);
  }
  const uint64_t stored_fingerprint = stored_spec != nullptr ? v.stored->spec_fingerprint : 0;

  // The spec after this reconcile: the desired one (Argo's appset controller writes it every
  // reconcile), unless the set may not write or applicationsSync holds updates back.
  if (stored_spec == nullptr) {
    v.new_spec_is_desired = true;
    v.write_spec = rules.writes;
  } else if (rules.writes && rules.may_update &&
             !SpecFingerprintsEqual(stored_fingerprint, gen.spec_fingerprint) &&
             *stored_spec != DesiredSpecOf(gen)) {
    v.new_spec_is_desired = true;
    v.write_spec = true;
  }

  if (app.compared != nullptr && gen.spec_fingerprint != 0 &&
      app.compared_spec == gen.spec_fingerprint) {
    v.sync = app.compared;
  } else {
    v.sync = std::make_shared<const AppSync>(
        CompareObserved(v.id, app, DecodeIgnoreDifferences(DesiredSpecOf(gen))));
    app.compared = v.sync;
    app.compared_spec = gen.spec_fingerprint;
  }
  v.health = AssessObserved(app);
  if (app.source_error)
    v.conditions.push_back({kSourceErrorCondition, app.source_error->ToString()});

  live.name = gen.name;
  live.labels = gen.labels;
  // The Application as it stands before this reconcile's write: what fleetwave stored, or on
  // first sight the desired spec. (A copy: the stored apps are handed back.)
  if (stored_spec != nullptr) {
    live.spec = *stored_spec;
    live.spec_fingerprint = stored_fingerprint;
  } else {
    live.spec = DesiredSpecOf(gen);
    live.spec_fingerprint = gen.spec_fingerprint;
  }
  if (live.spec_fingerprint == 0) live.spec_fingerprint = SpecFingerprint(live.spec);
  live.sync_status = std::string(SyncCodeName(v.sync->status));
  live.revisions = CurrentRevisions(app, stored_entry, StoredOperation(v.stored));
  live.health_status = std::string(HealthCodeName(v.health.status));
  // reconciledAt stays unset for the planner: it guards `fleetwave plan` against an
  // Application status older than the entry's transition, and the daemon's observation is
  // fresh by construction. Set, a clock stepped back would hold Pending entries until it
  // caught up (appset_reconcile_test.cc ClockSteppedBackBeforeTheStartNeverReSends).
  if (const OperationRecord* op = StoredOperation(v.stored)) {
    live.operation_state = OperationStateOf(*op);
  }
  live.conditions = v.conditions;
}

void KeepEarliest(std::optional<Time>& wake, Time t) {
  if (!wake || t < *wake) wake = t;
}

}  // namespace fleetwave::engine::reconcile
