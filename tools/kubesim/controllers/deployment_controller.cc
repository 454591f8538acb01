#include "tools/kubesim/controllers/deployment_controller.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>
#include <vector>

#include "tools/kubesim/controllers/controller_util.h"
#include "tools/kubesim/defaults.h"

namespace fleetwave::kubesim {

namespace {

constexpr const char* kRevision = "deployment.kubernetes.io/revision";
constexpr const char* kHashLabel = "pod-template-hash";
constexpr long long kMaxInt32 = 2147483647;

const ResourceType& ReplicaSets() {
  static const ResourceType& t = *FindResourceByKind("apps", "ReplicaSet");
  return t;
}

struct Rs {
  Json original;
  Json object;
  std::vector<SimPod>* pods = nullptr;
  bool created = false;

  long long Replicas() const { return IntAt(object, "/spec/replicas", 0); }
  void SetReplicas(long long n) { object["spec"]["replicas"] = n; }
  long long Revision() const {
    return std::atoll(
        StringAt(object, "/metadata/annotations/deployment.kubernetes.io~1revision").c_str());
  }
  Duration MinReady() const {
    return std::chrono::seconds(IntAt(object, "/spec/minReadySeconds", 0));
  }
  std::string Created() const { return StringAt(object, "/metadata/creationTimestamp"); }
};

long long CountIf(const std::vector<SimPod>& pods, TimePoint now, Duration min_ready,
                  bool available) {
  long long n = 0;
  for (const auto& p : pods) n += available ? p.Available(now, min_ready) : p.Ready(now);
  return n;
}

long long Available(const Rs& rs, TimePoint now) {
  return CountIf(*rs.pods, now, rs.MinReady(), true);
}

// Brings the simulated pods of `rs` to its spec.replicas. Scale-down removes the pods a
// ReplicaSet controller would: not ready first, then not available, then the youngest.
void ReconcilePods(Rs& rs, const ControllerContext& ctx) {
  auto& pods = *rs.pods;
  long long want = std::max(0LL, rs.Replicas());
  if (static_cast<long long>(pods.size()) > want) {
    TimePoint now = ctx.now;
    Duration min_ready = rs.MinReady();
    std::stable_sort(pods.begin(), pods.end(), [&](const SimPod& a, const SimPod& b) {
      auto rank = [&](const SimPod& p) {
        return std::make_tuple(p.Available(now, min_ready), p.Ready(now),
                               -p.created.time_since_epoch().count());
      };
      return rank(a) > rank(b);
    });
    pods.resize(static_cast<std::size_t>(want));
  }
  if (static_cast<long long>(pods.size()) < want) {
    auto delay =
        ReadyDelayFor(rs.object["spec"].value("template", Json::object()), ctx.options.ready_delay);
    int serial = pods.empty() ? 0 : pods.back().ordinal + 1;
    while (static_cast<long long>(pods.size()) < want)
      pods.push_back(NewPod(StringAt(rs.object, "/metadata/labels/pod-template-hash"), serial++,
                            ctx.now, delay));
  }
}

struct Fenceposts {
  long long surge = 0;
  long long unavailable = 0;
};

bool IsRolling(const Json& d) { return StringAt(d, "/spec/strategy/type") != "Recreate"; }

// deploymentutil.ResolveFenceposts: surge rounds up, unavailability rounds down, and both
// zero would deadlock, so unavailability becomes one.
Fenceposts Resolve(const Json& d, long long desired) {
  Fenceposts f;
  if (!IsRolling(d)) return f;
  Json ru = d["spec"]["strategy"].value("rollingUpdate", Json::object());
  f.surge = ScaledIntOrPercent(ru.value("maxSurge", Json("25%")), desired, true).value_or(0);
  f.unavailable =
      ScaledIntOrPercent(ru.value("maxUnavailable", Json("25%")), desired, false).value_or(0);
  if (f.surge == 0 && f.unavailable == 0) f.unavailable = 1;
  return f;
}

long long MaxUnavailable(const Json& d, long long desired) {
  if (!IsRolling(d) || desired == 0) return 0;
  return std::min(Resolve(d, desired).unavailable, desired);
}

bool HasProgressDeadline(const Json& d) {
  long long pds = IntAt(d, "/spec/progressDeadlineSeconds", -1);
  return pds >= 0 && pds != kMaxInt32;
}

Json NewReplicaSet(ControllerContext& ctx, const Json& d, const std::string& hash,
                   long long revision, long long replicas) {
  Json tpl = d["spec"].value("template", Json::object());
  tpl["metadata"]["labels"][kHashLabel] = hash;
  Json selector = d["spec"].value("selector", Json::object());
  selector["matchLabels"][kHashLabel] = hash;
  long long desired = IntAt(d, "/spec/replicas", 1);
  Json rs = {{"apiVersion", "apps/v1"},
             {"kind", "ReplicaSet"},
             {"metadata",
              {{"name", NameOf(d) + "-" + hash},
               {"namespace", NamespaceOf(d)},
               {"uid", ctx.cluster.NewUid()},
               {"creationTimestamp", FormatTime(ctx.now)},
               {"generation", 1},
               {"labels", tpl["metadata"]["labels"]},
               {"annotations",
                {{kRevision, std::to_string(revision)},
                 {"deployment.kubernetes.io/desired-replicas", std::to_string(desired)},
                 {"deployment.kubernetes.io/max-replicas",
                  std::to_string(desired + Resolve(d, desired).surge)}}},
               {"ownerReferences", Json::array({ControllerRef(d, "apps/v1", "Deployment")})}}},
             {"spec",
              {{"replicas", replicas},
               {"minReadySeconds", IntAt(d, "/spec/minReadySeconds", 0)},
               {"selector", selector},
               {"template", tpl}}},
             {"status", {{"replicas", 0}}}};
  ApplyDefaults(ReplicaSets(), rs);
  return rs;
}

void SyncOne(ControllerContext& ctx, const Json& stored) {
  Cluster& c = ctx.cluster;
  Json d = stored;
  const std::string ns = NamespaceOf(d), name = NameOf(d), uid = UidOf(d);
  const std::string now_s = FormatTime(ctx.now);
  if (IsDeleting(d)) {
    ctx.tracker.Deleting("Deployment", ns, name, GenerationOf(d), ctx.now);
    return;
  }
  const long long desired = IntAt(d, "/spec/replicas", 1);
  const bool paused = BoolAt(d, "/spec/paused");
  const bool deadline = HasProgressDeadline(d);
  const std::string hash = ShortHash(d["spec"].value("template", Json::object()));
  Json& status = d["status"];
  if (!status.is_object()) status = Json::object();

  std::vector<Rs> all;
  c.store().Scan(ReplicaSets().id, ns, "", [&](const std::string&, const Json& o) {
    if (IsControlledBy(o, uid)) all.push_back({o, o, nullptr, false});
    return true;
  });
  for (auto& rs : all) {
    rs.pods = &ctx.pods.PodsOf(UidOf(rs.object), rs.MinReady());
    ctx.live_owners.insert(UidOf(rs.object));
    ReconcilePods(rs, ctx);
  }
  auto find_new = [&]() -> Rs* {
    for (auto& rs : all)
      if (StringAt(rs.object, "/metadata/labels/pod-template-hash") == hash) return &rs;
    return nullptr;
  };
  Rs* fresh = find_new();
  long long max_revision = 0;
  for (const auto& rs : all)
    if (&rs != fresh) max_revision = std::max(max_revision, rs.Revision());

  // checkPausedConditions: a timeout is never overwritten by a pause.
  if (deadline) {
    const Json* cond = FindCondition(status, "Progressing");
    bool timed_out = cond && cond->value("reason", "") == "ProgressDeadlineExceeded";
    bool paused_cond = cond && cond->value("reason", "") == "DeploymentPaused";
    if (!timed_out && paused && !paused_cond)
      SetCondition(status, "Progressing", "Unknown", "DeploymentPaused", "Deployment is paused",
                   now_s);
    else if (!timed_out && !paused && paused_cond)
      SetCondition(status, "Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed",
                   now_s);
  }

  Fenceposts fp = Resolve(d, desired);
  auto total_replicas = [&]() {
    long long n = 0;
    for (const auto& rs : all) n += rs.Replicas();
    return n;
  };
  if (!paused && !fresh) {
    // NewRSNewReplicas for a ReplicaSet that does not exist yet.
    long long replicas = desired;
    if (IsRolling(d))
      replicas = std::max(0LL, std::min(desired + fp.surge - total_replicas(), desired));
    else if (total_replicas() > 0)
      replicas = 0;
    all.push_back({Json(), NewReplicaSet(ctx, d, hash, max_revision + 1, replicas), nullptr, true});
    Rs& rs = all.back();
    rs.pods = &ctx.pods.PodsOf(UidOf(rs.object), rs.MinReady());
    ctx.live_owners.insert(UidOf(rs.object));
    fresh = &rs;
    if (deadline)
      SetCondition(status, "Progressing", "True", "NewReplicaSetCreated",
                   "Created new replica set \"" + NameOf(rs.object) + "\"", now_s);
  } else if (fresh) {
    if (fresh->Revision() <= max_revision) {
      // A rollback to an older template: its ReplicaSet becomes the newest revision.
      fresh->object["metadata"]["annotations"][kRevision] = std::to_string(max_revision + 1);
    }
    // getNewReplicaSet keeps the new ReplicaSet's minReadySeconds in step with the Deployment.
    fresh->object["spec"]["minReadySeconds"] = IntAt(d, "/spec/minReadySeconds", 0);
    if (deadline && !paused && !FindCondition(status, "Progressing"))
      SetCondition(status, "Progressing", "True", "FoundNewReplicaSet",
                   "Found new replica set \"" + NameOf(fresh->object) + "\"", now_s);
  }

  std::vector<Rs*> old;
  for (auto& rs : all)
    if (&rs != fresh) old.push_back(&rs);
  // Oldest first, as the controller scales down.
  std::stable_sort(old.begin(), old.end(),
                   [](const Rs* a, const Rs* b) { return a->Created() < b->Created(); });

  if (paused) {
    // sync(): scaling only. Without a rollout in flight the one active ReplicaSet follows
    // spec.replicas; proportional scaling across several is not simulated.
    std::vector<Rs*> active;
    for (auto& rs : all)
      if (rs.Replicas() > 0) active.push_back(&rs);
    if (active.size() == 1 && active[0]->Replicas() != desired) active[0]->SetReplicas(desired);
    if (active.empty() && fresh && fresh->Replicas() != desired) fresh->SetReplicas(desired);
  } else if (!IsRolling(d)) {
    bool old_running = false;
    for (Rs* rs : old)
      if (rs->Replicas() > 0 || !rs->pods->empty()) {
        old_running = true;
        rs->SetReplicas(0);
      }
    if (!old_running && fresh->Replicas() != desired) fresh->SetReplicas(desired);
  } else {
    // rolloutRolling: scale the new ReplicaSet up if it may; otherwise scale old ones down.
    bool scaled = false;
    long long n = fresh->Replicas();
    if (n > desired) {
      fresh->SetReplicas(desired);
      scaled = true;
    } else if (n < desired) {
      long long current = total_replicas();
      long long max_total = desired + fp.surge;
      if (current < max_total) {
        fresh->SetReplicas(n + std::min(max_total - current, desired - n));
        scaled = true;
      }
    }
    if (!scaled) {
      long long old_pods = 0;
      for (Rs* rs : old) old_pods += rs->Replicas();
      long long min_available = desired - MaxUnavailable(d, desired);
      long long new_unavailable = fresh->Replicas() - Available(*fresh, ctx.now);
      long long max_down = total_replicas() - min_available - new_unavailable;
      if (old_pods > 0 && max_down > 0) {
        // cleanupUnhealthyReplicas: unavailable old pods go first and cost no availability.
        long long cleaned = 0;
        for (Rs* rs : old) {
          if (cleaned >= max_down) break;
          long long unhealthy = rs->Replicas() - Available(*rs, ctx.now);
          if (unhealthy <= 0) continue;
          long long k = std::min(max_down - cleaned, unhealthy);
          rs->SetReplicas(rs->Replicas() - k);
          ReconcilePods(*rs, ctx);
          cleaned += k;
        }
        // scaleDownOldReplicaSetsForRollingUpdate: only what stays above minAvailable.
        long long available = 0;
        for (auto& rs : all) available += Available(rs, ctx.now);
        long long budget = available - min_available;
        for (Rs* rs : old) {
          if (budget <= 0) break;
          long long k = std::min(rs->Replicas(), budget);
          if (k <= 0) continue;
          rs->SetReplicas(rs->Replicas() - k);
          budget -= k;
        }
      }
    }
  }

  // Write ReplicaSets: spec changes first, then pods follow, then their status.
  long long replicas = 0, updated = 0, ready = 0, available = 0, spec_total = 0;
  for (auto& rs : all) {
    ReconcilePods(rs, ctx);
    long long rs_ready = CountIf(*rs.pods, ctx.now, rs.MinReady(), false);
    long long rs_available = Available(rs, ctx.now);
    long long pods = static_cast<long long>(rs.pods->size());
    Json rs_status = {{"replicas", pods},
                      {"fullyLabeledReplicas", pods},
                      {"readyReplicas", rs_ready},
                      {"availableReplicas", rs_available},
                      {"observedGeneration", GenerationOf(rs.object)}};
    rs.object["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] =
        std::to_string(desired);
    rs.object["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] =
        std::to_string(desired + fp.surge);
    if (!rs.created && rs.object.value("spec", Json()) != rs.original.value("spec", Json()))
      rs.object["metadata"]["generation"] = GenerationOf(rs.object) + 1;
    rs_status["observedGeneration"] = GenerationOf(rs.object);
    rs.object["status"] = rs_status;
    if (rs.created)
      rs.object = c.Commit(ReplicaSets().id, std::move(rs.object), EventType::kAdded);
    else
      rs.object = CommitIfChanged(c, ReplicaSets().id, rs.original, std::move(rs.object));
    replicas += pods;
    ready += rs_ready;
    available += rs_available;
    spec_total += rs.Replicas();
    if (&rs == fresh) updated = pods;
  }

  // calculateStatus
  Json previous = stored.value("status", Json::object());
  status["observedGeneration"] = GenerationOf(d);
  status["replicas"] = replicas;
  status["updatedReplicas"] = updated;
  status["readyReplicas"] = ready;
  status["availableReplicas"] = available;
  status["unavailableReplicas"] = std::max(0LL, spec_total - available);
  if (available >= desired - MaxUnavailable(d, desired))
    SetCondition(status, "Available", "True", "MinimumReplicasAvailable",
                 "Deployment has minimum availability.", now_s);
  else
    SetCondition(status, "Available", "False", "MinimumReplicasUnavailable",
                 "Deployment does not have minimum availability.", now_s);
  if (fresh)
    d["metadata"]["annotations"][kRevision] =
        StringAt(fresh->object, "/metadata/annotations/deployment.kubernetes.io~1revision");

  bool complete = updated == desired && replicas == desired && available == desired;
  if (!paused) {
    // syncRolloutStatus
    if (!deadline) RemoveCondition(status, "Progressing");
    const Json* cur = FindCondition(status, "Progressing");
    bool settled =
        replicas == updated && cur && cur->value("reason", "") == "NewReplicaSetAvailable";
    std::string rs_name = fresh ? NameOf(fresh->object) : name;
    if (deadline && !settled) {
      auto old_count = [](const Json& s) {
        return s.value("replicas", 0LL) - s.value("updatedReplicas", 0LL);
      };
      bool progressed = updated > previous.value("updatedReplicas", 0LL) ||
                        old_count(status) < old_count(previous) ||
                        ready > previous.value("readyReplicas", 0LL) ||
                        available > previous.value("availableReplicas", 0LL);
      if (complete) {
        SetCondition(status, "Progressing", "True", "NewReplicaSetAvailable",
                     "ReplicaSet \"" + rs_name + "\" has successfully progressed.", now_s);
      } else if (progressed) {
        // Progress refreshes lastUpdateTime even when the reason is unchanged.
        std::string transition = now_s;
        if (cur && cur->value("status", "") == "True")
          transition = cur->value("lastTransitionTime", now_s);
        RemoveCondition(status, "Progressing");
        SetCondition(status, "Progressing", "True", "ReplicaSetUpdated",
                     "ReplicaSet \"" + rs_name + "\" is progressing.", now_s);
        for (auto& cnd : status["conditions"])
          if (cnd.value("type", "") == "Progressing") cnd["lastTransitionTime"] = transition;
      } else if (cur && cur->value("reason", "") != "NewReplicaSetAvailable") {
        bool timed_out = cur->value("reason", "") == "ProgressDeadlineExceeded";
        if (!timed_out) {
          auto since = ParseRfc3339(cur->value("lastUpdateTime", now_s));
          long long pds = IntAt(d, "/spec/progressDeadlineSeconds", 600);
          timed_out = since && *since + std::chrono::seconds(pds) < ctx.now;
        }
        if (timed_out)
          SetCondition(status, "Progressing", "False", "ProgressDeadlineExceeded",
                       "ReplicaSet \"" + rs_name + "\" has timed out progressing.", now_s);
      }
    }
  }
  if (complete && !paused) {
    // cleanupDeployment: keep at most revisionHistoryLimit old ReplicaSets that are fully
    // scaled down, dropping the oldest revisions first.
    long long limit = IntAt(d, "/spec/revisionHistoryLimit", 10);
    std::vector<Rs*> idle;
    for (Rs* rs : old)
      if (rs->Replicas() == 0 && rs->pods->empty()) idle.push_back(rs);
    std::stable_sort(idle.begin(), idle.end(),
                     [](const Rs* a, const Rs* b) { return a->Revision() < b->Revision(); });
    long long excess = static_cast<long long>(idle.size()) - std::max(0LL, limit);
    for (long long k = 0; k < excess; ++k)
      c.Erase(ReplicaSets().id, idle[static_cast<std::size_t>(k)]->object);
  }
  Json written = CommitIfChanged(c, Resource(kDeployments).id, stored, std::move(d));

  const Json* cond = FindCondition(written["status"], "Progressing");
  if (deadline && !paused && cond && cond->value("reason", "") != "NewReplicaSetAvailable" &&
      cond->value("reason", "") != "ProgressDeadlineExceeded") {
    // The deadline check above times out strictly after lastUpdateTime + deadline: wake then.
    if (auto since = ParseRfc3339(cond->value("lastUpdateTime", "")))
      WakeAt(ctx, *since +
                      std::chrono::seconds(IntAt(written, "/spec/progressDeadlineSeconds", 600)) +
                      Duration(1));
  }
  RolloutPhase phase = RolloutPhase::kProgressing;
  if (paused)
    phase = RolloutPhase::kPaused;
  else if (cond && cond->value("reason", "") == "ProgressDeadlineExceeded")
    phase = RolloutPhase::kDeadlineExceeded;
  else if (complete)
    phase = RolloutPhase::kAvailable;
  // What is rolling out is the newest ReplicaSet's template: a template changed while paused
  // has no ReplicaSet yet, so its rollout starts only on resume.
  std::string rolling = hash;
  if (!fresh) {
    long long best = -1;
    for (const auto& rs : all)
      if (rs.Revision() > best) {
        best = rs.Revision();
        rolling = StringAt(rs.object, "/metadata/labels/pod-template-hash");
      }
  }
  ctx.tracker.Observe("Deployment", ns, name, GenerationOf(written), rolling, phase, ctx.now);
}

}  // namespace

void SyncDeployments(ControllerContext& ctx) {
  std::vector<Json> deployments;
  ctx.cluster.store().Scan(kDeployments, "", "", [&](const std::string&, const Json& o) {
    deployments.push_back(o);
    return true;
  });
  for (const auto& d : deployments) SyncOne(ctx, d);
}

}  // namespace fleetwave::kubesim
