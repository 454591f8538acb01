#include "tools/kubesim/controllers/workload_controllers.h"

#include <algorithm>
#include <tuple>
#include <vector>

#include "tools/kubesim/controllers/controller_util.h"

namespace fleetwave::kubesim {

namespace {

struct Counts {
  long long pods = 0, ready = 0, available = 0;
  long long updated = 0, updated_ready = 0, updated_available = 0;
  long long current = 0;
};

Counts Count(const std::vector<SimPod>& pods, TimePoint now, Duration min_ready,
             const std::string& update_rev, const std::string& current_rev) {
  Counts c;
  for (const auto& p : pods) {
    ++c.pods;
    bool r = p.Ready(now), a = p.Available(now, min_ready);
    c.ready += r;
    c.available += a;
    if (p.revision == update_rev) {
      ++c.updated;
      c.updated_ready += r;
      c.updated_available += a;
    }
    if (p.revision == current_rev) ++c.current;
  }
  return c;
}

Duration MinReady(const Json& o) {
  return std::chrono::seconds(IntAt(o, "/spec/minReadySeconds", 0));
}

// Common prologue: skip deleting objects (reporting them once) and register the pod owner.
std::vector<SimPod>* Prologue(ControllerContext& ctx, const Json& o, const char* kind) {
  if (IsDeleting(o)) {
    ctx.tracker.Deleting(kind, NamespaceOf(o), NameOf(o), GenerationOf(o), ctx.now);
    return nullptr;
  }
  ctx.live_owners.insert(UidOf(o));
  return &ctx.pods.PodsOf(UidOf(o), MinReady(o));
}

std::vector<Json> All(Cluster& c, ResourceId id) {
  std::vector<Json> out;
  c.store().Scan(id, "", "", [&](const std::string&, const Json& o) {
    out.push_back(o);
    return true;
  });
  return out;
}

std::string SelectorString(const Json& o) {
  const Json* ml = nullptr;
  if (o.contains("spec") && o["spec"].contains("selector") &&
      o["spec"]["selector"].contains("matchLabels"))
    ml = &o["spec"]["selector"]["matchLabels"];
  std::string s;
  if (ml && ml->is_object())
    for (auto it = ml->begin(); it != ml->end(); ++it)
      s += (s.empty() ? "" : ",") + it.key() + "=" +
           (it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
  return s;
}

// ---- StatefulSet -------------------------------------------------------------------------

void SyncStatefulSet(ControllerContext& ctx, const Json& stored) {
  auto* pods = Prologue(ctx, stored, "StatefulSet");
  if (!pods) return;
  Json s = stored;
  const std::string name = NameOf(s);
  const long long replicas = IntAt(s, "/spec/replicas", 1);
  const bool on_delete = StringAt(s, "/spec/updateStrategy/type") == "OnDelete";
  const long long partition =
      on_delete ? 0 : IntAt(s, "/spec/updateStrategy/rollingUpdate/partition", 0);
  const bool parallel = StringAt(s, "/spec/podManagementPolicy") == "Parallel";
  const Json tpl = s["spec"].value("template", Json::object());
  const std::string update_rev = name + "-" + ShortHash(tpl);
  std::string current_rev = StringAt(s, "/status/currentRevision");
  if (current_rev.empty()) current_rev = update_rev;
  const auto delay = ReadyDelayFor(tpl, ctx.options.ready_delay);
  const Duration min_ready = MinReady(s);

  std::sort(pods->begin(), pods->end(),
            [](const SimPod& a, const SimPod& b) { return a.ordinal < b.ordinal; });
  auto pod_at = [&](long long ord) -> SimPod* {
    for (auto& p : *pods)
      if (p.ordinal == ord) return &p;
    return nullptr;
  };
  // OrderedReady: one change per tick, and only while every pod below is ready.
  bool acted = false;
  for (long long i = 0; i < replicas && !acted; ++i) {
    if (pod_at(i)) {
      if (!parallel && !pod_at(i)->Ready(ctx.now)) acted = true;  // wait for it
      continue;
    }
    // newVersionedStatefulSetPod: ordinals below the partition are created at the current
    // revision, the rest at the update revision.
    bool current = !on_delete && i < partition;
    pods->push_back(NewPod(current ? current_rev : update_rev, static_cast<int>(i), ctx.now,
                           current ? std::optional<Duration>(ctx.options.ready_delay) : delay));
    if (!parallel) acted = true;
  }
  std::sort(pods->begin(), pods->end(),
            [](const SimPod& a, const SimPod& b) { return a.ordinal < b.ordinal; });
  bool all_ready =
      std::all_of(pods->begin(), pods->end(), [&](const SimPod& p) { return p.Ready(ctx.now); });
  if (!acted && static_cast<long long>(pods->size()) > replicas && (parallel || all_ready)) {
    // Scale down from the highest ordinal, one at a time unless Parallel.
    if (parallel)
      pods->resize(static_cast<std::size_t>(replicas));
    else
      pods->pop_back();
    acted = true;
  }
  if (!acted && !on_delete && all_ready) {
    // Rolling update from the highest ordinal down to the partition; the deleted pod comes
    // back at the update revision and must be ready before the next one goes.
    for (long long i = replicas - 1; i >= partition; --i) {
      SimPod* p = pod_at(i);
      if (p && p->revision != update_rev) {
        *p = NewPod(update_rev, static_cast<int>(i), ctx.now, delay);
        break;
      }
    }
  }

  Counts n = Count(*pods, ctx.now, min_ready, update_rev, current_rev);
  Json& st = s["status"];
  if (!st.is_object()) st = Json::object();
  st["observedGeneration"] = GenerationOf(s);
  st["replicas"] = n.pods;
  st["readyReplicas"] = n.ready;
  st["availableReplicas"] = n.available;
  st["currentReplicas"] = n.current;
  st["updatedReplicas"] = n.updated;
  st["currentRevision"] = current_rev;
  st["updateRevision"] = update_rev;
  st["collisionCount"] = 0;
  // completeRollingUpdate: only RollingUpdate moves currentRevision forward by itself.
  if (!on_delete && n.updated == n.pods && n.ready == n.pods && n.pods == replicas) {
    st["currentRevision"] = update_rev;
    st["currentReplicas"] = n.updated;
  }
  Json written =
      CommitIfChanged(ctx.cluster, FindResourceByKind("apps", "StatefulSet")->id, stored, s);
  RolloutPhase phase = RolloutPhase::kProgressing;
  if (st["currentRevision"] == update_rev && n.updated == replicas && n.ready == replicas &&
      n.available == replicas)
    phase = RolloutPhase::kAvailable;
  else if (partition > 0 && n.updated >= replicas - partition && n.ready == replicas)
    phase = RolloutPhase::kPartitionReached;
  ctx.tracker.Observe("StatefulSet", NamespaceOf(s), name, GenerationOf(written), update_rev, phase,
                      ctx.now);
}

// ---- DaemonSet ---------------------------------------------------------------------------

void SyncDaemonSet(ControllerContext& ctx, const Json& stored) {
  auto* pods = Prologue(ctx, stored, "DaemonSet");
  if (!pods) return;
  Json s = stored;
  const long long nodes = std::max(0, ctx.options.nodes);
  const Json tpl = s["spec"].value("template", Json::object());
  const std::string rev = ShortHash(tpl);
  const bool on_delete = StringAt(s, "/spec/updateStrategy/type") == "OnDelete";
  Json ru = Json::object();
  if (s["spec"].contains("updateStrategy") && s["spec"]["updateStrategy"].contains("rollingUpdate"))
    ru = s["spec"]["updateStrategy"]["rollingUpdate"];
  long long max_unavailable =
      ScaledIntOrPercent(ru.value("maxUnavailable", Json(1)), nodes, true).value_or(1);
  if (max_unavailable < 1) max_unavailable = 1;
  const auto delay = ReadyDelayFor(tpl, ctx.options.ready_delay);
  const Duration min_ready = MinReady(s);

  // One pod per simulated node; pods on nodes that no longer exist go away.
  pods->erase(std::remove_if(pods->begin(), pods->end(),
                             [&](const SimPod& p) { return p.ordinal >= nodes; }),
              pods->end());
  for (long long node = 0; node < nodes; ++node) {
    bool has =
        std::any_of(pods->begin(), pods->end(), [&](const SimPod& p) { return p.ordinal == node; });
    if (!has) pods->push_back(NewPod(rev, static_cast<int>(node), ctx.now, delay));
  }
  std::sort(pods->begin(), pods->end(),
            [](const SimPod& a, const SimPod& b) { return a.ordinal < b.ordinal; });
  if (!on_delete) {
    long long unavailable = 0;
    for (const auto& p : *pods) unavailable += !p.Available(ctx.now, min_ready);
    for (auto& p : *pods) {
      if (p.revision == rev) continue;
      // An old pod that is not available costs no availability: replace it at once.
      if (!p.Available(ctx.now, min_ready)) {
        p = NewPod(rev, p.ordinal, ctx.now, delay);
      } else if (unavailable < max_unavailable) {
        p = NewPod(rev, p.ordinal, ctx.now, delay);
        ++unavailable;
      }
    }
  }
  Counts n = Count(*pods, ctx.now, min_ready, rev, rev);
  Json& st = s["status"];
  if (!st.is_object()) st = Json::object();
  st["currentNumberScheduled"] = n.pods;
  st["numberMisscheduled"] = 0;
  st["desiredNumberScheduled"] = nodes;
  st["numberReady"] = n.ready;
  st["observedGeneration"] = GenerationOf(s);
  st["updatedNumberScheduled"] = n.updated;
  st["numberAvailable"] = n.available;
  st["numberUnavailable"] = nodes - n.available;
  Json written =
      CommitIfChanged(ctx.cluster, FindResourceByKind("apps", "DaemonSet")->id, stored, s);
  RolloutPhase phase = n.updated == nodes && n.available == nodes ? RolloutPhase::kAvailable
                                                                  : RolloutPhase::kProgressing;
  ctx.tracker.Observe("DaemonSet", NamespaceOf(s), NameOf(s), GenerationOf(written), rev, phase,
                      ctx.now);
}

// ---- CloneSet ----------------------------------------------------------------------------

// The Progressing condition newer Kruise versions write themselves, written only with
// --kruise-progress-conditions (newer Kruise versions write one; fleetwave must cope).
void CloneSetProgress(Json& st, const Json& spec, long long replicas, const Counts& n,
                      long long expected, bool paused, const std::string& now_s, TimePoint now) {
  long long pds = spec.value("progressDeadlineSeconds", -1LL);
  if (pds < 0 || pds == 2147483647) {
    RemoveCondition(st, "Progressing");
    return;
  }
  const std::string update_rev = st.value("updateRevision", "");
  const Json* prev = FindCondition(st, "Progressing");
  std::string prev_reason = prev ? prev->value("reason", "") : "";
  if (st.value("currentRevision", "") == update_rev && n.pods == replicas &&
      n.updated == replicas && n.updated_available == replicas) {
    SetCondition(st, "Progressing", "True", "CloneSetAvailable", "CloneSet is available", now_s);
  } else if (paused) {
    SetCondition(st, "Progressing", "True", "CloneSetPaused", "CloneSet is paused", now_s);
  } else if (expected < replicas && expected <= n.updated_available) {
    SetCondition(st, "Progressing", "True", "ProgressPartitionAvailable",
                 "CloneSet has been paused due to partition ready", now_s);
  } else {
    std::string timeout_msg = "CloneSet revision " + update_rev + " has timed out progressing";
    bool exceeded = false;
    if (prev_reason == "ProgressDeadlineExceeded") {
      exceeded = prev->value("message", "") == timeout_msg;
    } else if (prev_reason == "CloneSetUpdated") {
      auto since = ParseRfc3339(prev->value("lastUpdateTime", now_s));
      exceeded = since && *since + std::chrono::seconds(pds) < now;
    }
    if (exceeded)
      SetCondition(st, "Progressing", "False", "ProgressDeadlineExceeded", timeout_msg, now_s);
    else if (prev_reason == "ProgressDeadlineExceeded")
      // A new revision after a timeout starts a fresh clock.
      SetCondition(st, "Progressing", "True", "CloneSetUpdated", "CloneSet is progressing", now_s);
    else
      SetCondition(st, "Progressing", "True", "CloneSetUpdated", "CloneSet is progressing", now_s);
  }
}

void SyncCloneSet(ControllerContext& ctx, const Json& stored) {
  auto* pods = Prologue(ctx, stored, "CloneSet");
  if (!pods) return;
  Json s = stored;
  const std::string name = NameOf(s);
  const long long replicas = IntAt(s, "/spec/replicas", 1);
  // Stored as v1alpha1: partition, paused and maxUnavailable sit directly in updateStrategy.
  Json us = Json::object();
  if (s["spec"].contains("updateStrategy") && s["spec"]["updateStrategy"].is_object())
    us = s["spec"]["updateStrategy"];
  const bool paused = us.value("paused", false);
  const long long partition = CloneSetPartition(us.value("partition", Json()), replicas);
  const long long expected = replicas - partition;
  const long long max_surge =
      paused ? 0 : ScaledIntOrPercent(us.value("maxSurge", Json(0)), replicas, true).value_or(0);
  // Kruise rounds maxUnavailable up when there is no surge (so 20% of 2 is 1, not 0).
  const long long max_unavailable =
      ScaledIntOrPercent(us.value("maxUnavailable", Json("20%")), replicas, max_surge == 0)
          .value_or(1);
  const Json tpl = s["spec"].value("template", Json::object());
  const std::string update_rev = name + "-" + ShortHash(tpl);
  std::string current_rev = StringAt(s, "/status/currentRevision");
  if (current_rev.empty()) current_rev = update_rev;
  const auto delay = ReadyDelayFor(tpl, ctx.options.ready_delay);
  const Duration min_ready = MinReady(s);
  auto updated_count = [&]() {
    return std::count_if(pods->begin(), pods->end(),
                         [&](const SimPod& p) { return p.revision == update_rev; });
  };

  // Scale: new pods take the update revision until the partition's share is reached.
  int serial = 0;
  for (const auto& p : *pods) serial = std::max(serial, p.ordinal + 1);
  while (static_cast<long long>(pods->size()) < replicas) {
    bool update = updated_count() < expected;
    pods->push_back(NewPod(update ? update_rev : current_rev, serial++, ctx.now,
                           update ? delay : std::optional<Duration>(ctx.options.ready_delay)));
  }
  if (static_cast<long long>(pods->size()) > replicas) {
    TimePoint now = ctx.now;
    std::stable_sort(pods->begin(), pods->end(), [&](const SimPod& a, const SimPod& b) {
      auto rank = [&](const SimPod& p) {
        return std::make_tuple(p.Available(now, min_ready), p.Ready(now), p.revision == update_rev,
                               -p.created.time_since_epoch().count());
      };
      return rank(a) > rank(b);
    });
    pods->resize(static_cast<std::size_t>(replicas));
  }
  if (!paused) {
    // calculateDiffsWithExpectation: update old pods down to the partition; pods that are
    // not available go first and cost nothing, available ones only within maxUnavailable.
    long long to_update = static_cast<long long>(pods->size()) - updated_count() - partition;
    long long unavailable = 0;
    for (const auto& p : *pods) unavailable += !p.Available(ctx.now, min_ready);
    long long budget =
        max_unavailable + static_cast<long long>(pods->size()) - replicas - unavailable;
    for (int pass = 0; pass < 2 && to_update > 0; ++pass)
      for (auto& p : *pods) {
        if (to_update <= 0) break;
        if (p.revision == update_rev) continue;
        bool available = p.Available(ctx.now, min_ready);
        if (pass == 0 && available) continue;
        if (pass == 1 && (!available || budget <= 0)) continue;
        if (pass == 1) --budget;
        p = NewPod(update_rev, p.ordinal, ctx.now, delay);
        --to_update;
      }
  }

  Counts n = Count(*pods, ctx.now, min_ready, update_rev, current_rev);
  Json& st = s["status"];
  if (!st.is_object()) st = Json::object();
  st["observedGeneration"] = GenerationOf(s);
  st["replicas"] = n.pods;
  st["readyReplicas"] = n.ready;
  st["availableReplicas"] = n.available;
  st["updatedReplicas"] = n.updated;
  st["updatedReadyReplicas"] = n.updated_ready;
  st["updatedAvailableReplicas"] = n.updated_available;
  st["expectedUpdatedReplicas"] = expected;
  st["updateRevision"] = update_rev;
  // The update revision is stable once every pod runs it and the count is right; readiness
  // is not required (Kruise's calculateStatus).
  st["currentRevision"] = n.updated == n.pods && n.pods == replicas ? update_rev : current_rev;
  st["labelSelector"] = SelectorString(s);
  st["collisionCount"] = 0;
  if (ctx.options.kruise_progress_conditions)
    CloneSetProgress(st, s["spec"], replicas, n, expected, paused, FormatTime(ctx.now), ctx.now);
  if (const Json* c = FindCondition(st, "Progressing");
      ctx.options.kruise_progress_conditions && c && c->value("reason", "") == "CloneSetUpdated") {
    // CloneSetProgress times out strictly after lastUpdateTime + deadline: wake then.
    if (auto since = ParseRfc3339(c->value("lastUpdateTime", "")))
      WakeAt(ctx, *since + std::chrono::seconds(IntAt(s, "/spec/progressDeadlineSeconds", 0)) +
                      Duration(1));
  }
  Json written = CommitIfChanged(ctx.cluster, kCloneSets, stored, s);

  RolloutPhase phase = RolloutPhase::kProgressing;
  if (st["currentRevision"] == update_rev && n.pods == replicas && n.updated == replicas &&
      n.updated_available == replicas)
    phase = RolloutPhase::kAvailable;
  else if (paused)
    phase = RolloutPhase::kPaused;
  else if (expected < replicas && expected <= n.updated_available)
    phase = RolloutPhase::kPartitionReached;
  else if (const Json* c = FindCondition(st, "Progressing");
           c && c->value("reason", "") == "ProgressDeadlineExceeded")
    phase = RolloutPhase::kDeadlineExceeded;
  ctx.tracker.Observe("CloneSet", NamespaceOf(s), name, GenerationOf(written), update_rev, phase,
                      ctx.now);
}

}  // namespace

long long CloneSetPartition(const Json& partition, long long replicas) {
  if (partition.is_null()) return 0;
  long long value = ScaledIntOrPercent(partition, replicas, true).value_or(0);
  if (replicas > 1 && value >= replicas && partition.is_string() && partition != "100%")
    value = replicas - 1;
  return std::max(0LL, std::min(value, replicas));
}

void SyncStatefulSets(ControllerContext& ctx) {
  for (const auto& o : All(ctx.cluster, FindResourceByKind("apps", "StatefulSet")->id))
    SyncStatefulSet(ctx, o);
}

void SyncDaemonSets(ControllerContext& ctx) {
  for (const auto& o : All(ctx.cluster, FindResourceByKind("apps", "DaemonSet")->id))
    SyncDaemonSet(ctx, o);
}

void SyncCloneSets(ControllerContext& ctx) {
  for (const auto& o : All(ctx.cluster, kCloneSets)) SyncCloneSet(ctx, o);
}

}  // namespace fleetwave::kubesim
