#include "actors/workload_actor.h"

#include <caf/all.hpp>
#include <iostream>
#include <utility>

#include "actors/atoms.h"
#include "actors/blocking_pool.h"
#include "engine/progress/progress_decision.h"

namespace fleetwave::actors {
namespace {

using engine::Json;
using engine::PreviousCondition;

Json Plain(const nlohmann::ordered_json& ordered) { return Json::parse(ordered.dump()); }

// RFC 3339 with milliseconds: a requeue is exact to well below a second.
std::string FormatMillis(engine::Time t) {
  std::string whole = engine::FormatRfc3339(t);  // "...:SSZ", truncated to seconds
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(t - engine::TruncateToSeconds(t))
          .count();
  std::string frac = std::to_string(ms);
  frac.insert(0, 3 - frac.size(), '0');
  whole.insert(whole.size() - 1, "." + frac);
  return whole;
}

struct WorkloadState {
  WorkloadActorConfig config;
  WorkloadPtr workload;
  // The decision of the last evaluation (what the engine sees as "previous" next time), and
  // the one the store holds (what is published, logged and reported).
  std::optional<PreviousCondition> decided;
  std::optional<PreviousCondition> durable;
  engine::ProgressResult result;
  std::optional<engine::Time> requeue_at;
  uint64_t generation = 0;  // bumped by every evaluation: older timers are stale
  uint64_t commit_seq = 0;  // the last commit started
  bool committing = false;
  std::optional<PreviousCondition> committing_value;
  bool stopping = false;
  std::optional<Json> published;
  std::optional<engine::DeadlineView> reported;

  const Services& services() const { return *config.services; }
  void Log(const std::string& line) const {
    if (services().log) {
      services().log(line);
    } else {
      std::cerr << "fleetwave: " << line << "\n";
    }
  }
  std::string Name() const {
    return "workload cluster=" + config.cluster + " namespace=" + config.ref.namespace_ +
           " kind=" + config.ref.kind + " name=" + config.ref.name;
  }
};

// The public protocol plus the actor's own timers and its commits' answers.
using WorkloadActorImpl =
    WorkloadActor::extend<caf::reacts_to<requeue_atom, uint64_t>,
                          caf::reacts_to<committed_atom, uint64_t, bool, std::string>,
                          caf::reacts_to<committed_atom>>;
using Self = WorkloadActorImpl::stateful_pointer<WorkloadState>;

void Report(Self self, const engine::DeadlineView& view, bool removed) {
  auto& st = self->state;
  if (!st.config.parent) return;
  auto v = std::make_shared<WorkloadView>();
  v->ref = st.config.ref;
  v->view = view;
  v->removed = removed;
  self->send(st.config.parent, deadline_atom::value, WorkloadViewPtr(std::move(v)));
}

// Publishes the durable decision (only called while no commit is in flight, so the current
// result is the durable one) and tells the cluster actor when exceeded changed.
void PublishCurrent(Self self) {
  auto& st = self->state;
  if (!st.workload) return;
  Json item =
      WorkloadItem(st.config.cluster, st.config.ref, *st.workload, st.result, st.requeue_at);
  if (!st.published || *st.published != item) {
    if (st.services().publish.workload) st.services().publish.workload(item);
    st.published = std::move(item);
  }
  const engine::DeadlineView view = engine::DeadlineViewOf(st.result);
  if (engine::DeadlineViewChanged(st.reported, view)) {
    Report(self, view, false);
    st.reported = view;
  }
}

void Finish(Self self) {
  auto& st = self->state;
  const auto& pub = st.services().publish;
  if (pub.workload_removed) {
    pub.workload_removed(st.config.cluster, st.config.ref.namespace_, st.config.ref.kind,
                         st.config.ref.name);
  }
  Report(self, engine::DeadlineView{}, true);
  self->quit();
}

// Commits `decided` (or the removal of the record when there is none) on the pool; the result
// comes back as (committed_atom, seq, ok, error).
void StartCommit(Self self) {
  auto& st = self->state;
  const uint64_t seq = ++st.commit_seq;
  st.committing = true;
  st.committing_value = st.decided;
  store::StateBatch batch;
  const auto& ref = st.config.ref;
  if (st.decided) {
    batch.PutWorkload(st.config.cluster, ref.namespace_, ref.kind, ref.name,
                      WorkloadRecordValue(*st.decided));
  } else {
    batch.RemoveWorkload(st.config.cluster, ref.namespace_, ref.kind, ref.name);
  }
  store::Store* store = st.services().store;
  WorkloadActorImpl me = self;
  st.services().StorePool().Post([store, batch = std::move(batch), me, seq] {
    store::State state(*store);
    const store::WriteResult r = state.Commit(batch);
    caf::anon_send(me, committed_atom::value, seq, r.ok(), r.status.message);
  });
}

void OnCommitted(Self self, uint64_t seq, bool ok, const std::string& error) {
  auto& st = self->state;
  if (seq != st.commit_seq) return;  // a newer commit is in flight; its answer publishes
  st.committing = false;
  if (!ok) {
    st.Log(st.Name() + ": storing its progress condition failed (" + error + "); retrying in " +
           std::to_string(st.config.retry_after.count()) + " ms; nothing published until stored");
    self->delayed_send(self, st.config.retry_after, committed_atom::value);
    return;
  }
  const std::optional<PreviousCondition> stored = st.committing_value;
  if (engine::IsLoggedTransition(st.durable, stored)) {
    if (stored) {
      st.Log(st.Name() + " revision=" + stored->revision +
             ": Progressing=" + stored->condition.status + " reason=" + stored->condition.reason +
             " (" + stored->condition.message + ")");
    } else {
      st.Log(st.Name() + ": no Progressing condition any more (deadline off or object gone)");
    }
  }
  st.durable = stored;
  if (st.stopping) {
    Finish(self);
    return;
  }
  PublishCurrent(self);
}

void Stop(Self self) {
  auto& st = self->state;
  if (st.stopping) return;
  st.stopping = true;
  ++st.generation;  // any armed timer is stale
  st.requeue_at.reset();
  st.decided.reset();
  StartCommit(self);
}

void Evaluate(Self self) {
  auto& st = self->state;
  if (!st.workload || st.stopping) return;
  const engine::Time now = st.services().now();
  engine::ProgressResult r = engine::EvaluateProgress(*st.workload, st.decided, now);
  if (st.services().publish.progress_evaluated) st.services().publish.progress_evaluated();
  ++st.generation;
  if (!engine::HoldsProgressCondition(*st.workload)) {
    // The deadline is off (or invalid): nothing to hold, nothing to time.
    st.result = std::move(r);
    Stop(self);
    return;
  }
  if (r.requeue_after) {
    st.requeue_at = now + *r.requeue_after;
    self->delayed_send(self, *r.requeue_after, requeue_atom::value, st.generation);
  } else {
    st.requeue_at.reset();
  }
  std::optional<PreviousCondition> next = engine::DecisionOf(r);
  st.result = std::move(r);
  if (engine::DecisionChanged(st.decided, next)) {
    st.decided = std::move(next);
    StartCommit(self);  // write-ahead: published when the commit answers
  } else if (!st.committing) {
    PublishCurrent(self);
  }
}

WorkloadActorImpl::behavior_type WorkloadBehavior(Self self, WorkloadActorConfig config) {
  auto& st = self->state;
  st.config = std::move(config);
  if (st.config.stored) {
    engine::ResumedDecision resumed = engine::ResumeFromRecord(*st.config.stored);
    st.decided = std::move(resumed.held);
    if (resumed.dropped)
      st.Log(st.Name() + ": its stored condition does not decode; starting afresh");
    st.durable = st.decided;
  }
  return {
      [self](workload_atom, const WorkloadPtr& w) {
        if (!w) return;
        self->state.workload = w;
        Evaluate(self);
      },
      [self](requeue_atom, uint64_t generation) {
        if (generation != self->state.generation) return;  // a newer update re-armed
        Evaluate(self);
      },
      [self](committed_atom, uint64_t seq, bool ok, const std::string& error) {
        OnCommitted(self, seq, ok, error);
      },
      [self](committed_atom) {  // retry after a failed commit
        if (!self->state.committing) StartCommit(self);
      },
      [self](stop_atom) { Stop(self); },
  };
}

}  // namespace

WorkloadActor SpawnWorkloadActor(caf::actor_system& system, WorkloadActorConfig config) {
  return system.spawn(WorkloadBehavior, std::move(config));
}

store::Json WorkloadRecordValue(const PreviousCondition& previous) {
  return store::Json{{"revision", previous.revision},
                     {"condition", Plain(engine::ConditionToJson(previous.condition))}};
}

std::optional<PreviousCondition> PreviousFromRecord(const store::Json& value) {
  return engine::ResumeFromRecord(value).held;
}

Json WorkloadItem(const std::string& cluster, const engine::ObjectRef& ref,
                  const engine::Workload& workload, const engine::ProgressResult& result,
                  std::optional<engine::Time> requeue_at) {
  Json problems = Json::array();
  for (const auto& p : result.problems) {
    problems.push_back(Json{{"path", p.path}, {"message", p.message}});
  }
  const engine::DeadlineSetting deadline = engine::ResolveDeadline(workload);
  return Json{
      {"cluster", cluster},
      {"namespace", ref.namespace_},
      {"kind", ref.kind},
      {"name", ref.name},
      {"revision", engine::PublishedRevision(workload, result)},
      {"deadlineSeconds", deadline.seconds ? Json(*deadline.seconds) : Json()},
      {"condition", result.condition ? Plain(engine::ConditionToJson(*result.condition)) : Json()},
      {"exceeded", result.Exceeded()},
      {"requeueAt", requeue_at ? Json(FormatMillis(*requeue_at)) : Json()},
      {"problems", std::move(problems)},
      {"controllerCondition", workload.progressing_condition
                                  ? Plain(engine::ConditionToJson(*workload.progressing_condition))
                                  : Json()},
  };
}

}  // namespace fleetwave::actors
