// The simulated workload controllers, stepped tick by tick on a manual clock without HTTP.
// Rollout invariants are asserted at every tick, not only at the end state.
#include <algorithm>
#include <functional>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "tools/kubesim/controllers/controller_manager.h"
#include "tools/kubesim/controllers/controller_util.h"
#include "tools/kubesim/controllers/workload_controllers.h"
#include "tools/kubesim/verbs.h"

namespace fleetwave::kubesim {
namespace {

using namespace std::chrono_literals;

constexpr Duration kTick = 50ms;

Json PodTemplate(const std::string& app, const std::string& image) {
  return {{"metadata", {{"labels", {{"app", app}}}}},
          {"spec", {{"containers", Json::array({{{"name", "main"}, {"image", image}}})}}}};
}

Json Workload(const std::string& kind, const std::string& name, long long replicas,
              const std::string& image) {
  Json o = {
      {"apiVersion", kind == "CloneSet" ? "apps.kruise.io/v1alpha1" : "apps/v1"},
      {"kind", kind},
      {"metadata", {{"name", name}, {"namespace", "default"}}},
      {"spec",
       {{"selector", {{"matchLabels", {{"app", name}}}}}, {"template", PodTemplate(name, image)}}}};
  if (kind != "DaemonSet") o["spec"]["replicas"] = replicas;
  return o;
}

class ControllersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteContext ctx{"v1", "test", false, false};
    ASSERT_EQ(CreateObject(cluster_, Resource(kNamespaces), "",
                           Json{{"metadata", {{"name", "default"}}}}, ctx)
                  .code,
              201);
  }

  const ResourceType& Type(const std::string& kind) {
    return *FindResourceByKind(kind == "CloneSet" ? "apps.kruise.io" : "apps", kind);
  }
  WriteContext Ctx(const std::string& kind) {
    return {kind == "CloneSet" ? "v1alpha1" : "v1", "test", false, false};
  }
  void Create(const Json& object) {
    std::string kind = object["kind"];
    Outcome o = CreateObject(cluster_, Type(kind), "default", object, Ctx(kind));
    ASSERT_EQ(o.code, 201) << o.body.dump();
  }
  Json Get(const std::string& kind, const std::string& name) {
    auto o = cluster_.store().Get(Type(kind).id, "default", name);
    return o ? *o : Json();
  }
  void Mutate(const std::string& kind, const std::string& name,
              const std::function<void(Json&)>& change) {
    Json o = Get(kind, name);
    change(o);
    Outcome out = UpdateObject(cluster_, Type(kind), "default", name, o, Ctx(kind));
    ASSERT_EQ(out.code, 200) << out.body.dump();
  }
  void Tick() {
    clock_.Advance(kTick);
    manager_.Tick(cluster_);
  }
  // Ticks until `done` holds (at most `limit` ticks); `each` runs after every tick.
  bool TickUntil(
      const std::function<bool()>& done, int limit, const std::function<void()>& each = [] {}) {
    for (int i = 0; i < limit; ++i) {
      Tick();
      each();
      if (done()) return true;
    }
    return false;
  }
  long long Status(const std::string& kind, const std::string& name, const char* field) {
    return Get(kind, name)["status"].value(field, -1LL);
  }
  std::vector<std::string> Events(const std::string& name) {
    std::vector<std::string> out;
    for (const auto& e : events_.events())
      if (e.name == name) out.push_back(e.event);
    return out;
  }

  Clock clock_{true};
  Cluster cluster_{0, "token", 1, clock_, ClusterOptions{}};
  EventLog events_;
  ControllerOptions options_;
  ControllerManager manager_{options_, &events_};
};

bool DeploymentComplete(const Json& d) {
  const Json& s = d["status"];
  long long r = d["spec"]["replicas"];
  return s.value("observedGeneration", 0LL) >= d["metadata"]["generation"].get<long long>() &&
         s.value("updatedReplicas", -1LL) == r && s.value("replicas", -1LL) == r &&
         s.value("availableReplicas", -1LL) == r;
}

TEST_F(ControllersTest, DeploymentRollingUpdateHoldsSurgeAndAvailabilityAtEveryTick) {
  Json d = Workload("Deployment", "web", 4, "nginx:1");
  d["spec"]["strategy"] = {{"type", "RollingUpdate"},
                           {"rollingUpdate", {{"maxSurge", 1}, {"maxUnavailable", 1}}}};
  Create(d);
  ASSERT_TRUE(TickUntil([&] { return DeploymentComplete(Get("Deployment", "web")); }, 200));

  Mutate("Deployment", "web",
         [](Json& o) { o["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"; });
  std::vector<long long> updated_steps;
  int ticks = 0;
  bool done =
      TickUntil([&] { return DeploymentComplete(Get("Deployment", "web")); }, 400,
                [&] {
                  ++ticks;
                  Json now = Get("Deployment", "web");
                  const Json& s = now["status"];
                  SCOPED_TRACE("tick " + std::to_string(ticks) + ": " + s.dump());
                  EXPECT_GE(s.value("availableReplicas", 0LL), 3);
                  EXPECT_LE(s.value("replicas", 99LL), 5);
                  // The ReplicaSets agree with the Deployment: never more than replicas + maxSurge
                  // pods.
                  long long rs_total = 0;
                  cluster_.store().Scan(Type("ReplicaSet").id, "default", "",
                                        [&](const std::string&, const Json& rs) {
                                          rs_total += rs["status"].value("replicas", 0LL);
                                          EXPECT_LE(rs["spec"]["replicas"].get<long long>(), 5);
                                          return true;
                                        });
                  EXPECT_LE(rs_total, 5);
                  long long updated = s.value("updatedReplicas", 0LL);
                  if (updated_steps.empty() || updated_steps.back() != updated)
                    updated_steps.push_back(updated);
                });
  ASSERT_TRUE(done);
  // updatedReplicas rose in several steps (0 → 1 → 2 → ... → 4), never in one jump.
  ASSERT_GE(updated_steps.size(), 3u);
  EXPECT_TRUE(std::is_sorted(updated_steps.begin(), updated_steps.end()));
  EXPECT_EQ(updated_steps.back(), 4);

  Json final = Get("Deployment", "web");
  const Json* progressing = FindCondition(final["status"], "Progressing");
  ASSERT_NE(progressing, nullptr);
  EXPECT_EQ((*progressing)["reason"], "NewReplicaSetAvailable");
  EXPECT_EQ((*progressing)["status"], "True");
  const Json* available = FindCondition(final["status"], "Available");
  ASSERT_NE(available, nullptr);
  EXPECT_EQ((*available)["reason"], "MinimumReplicasAvailable");
  EXPECT_EQ(final["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "2");
  EXPECT_EQ(final["status"]["observedGeneration"], 2);
  EXPECT_EQ(final["status"]["unavailableReplicas"], 0);

  // Two ReplicaSets, owned by the Deployment; the old one scaled to zero.
  int rs_count = 0;
  cluster_.store().Scan(
      Type("ReplicaSet").id, "default", "", [&](const std::string&, const Json& rs) {
        ++rs_count;
        EXPECT_TRUE(IsControlledBy(rs, UidOf(final)));
        std::string rev = rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"];
        EXPECT_EQ(rs["spec"]["replicas"].get<long long>(), rev == "2" ? 4 : 0);
        return true;
      });
  EXPECT_EQ(rs_count, 2);

  // Two rollouts, each from rolloutStarted to available, with the generation that began it.
  std::vector<std::pair<long long, std::string>> seen;
  for (const auto& e : events_.events())
    if (e.name == "web") seen.push_back({e.generation, e.event});
  std::vector<std::pair<long long, std::string>> want = {
      {1, "rolloutStarted"}, {1, "progressing"}, {1, "available"},
      {2, "rolloutStarted"}, {2, "progressing"}, {2, "available"}};
  EXPECT_EQ(seen, want);
}

TEST_F(ControllersTest, DeploymentWithFailingImageExceedsItsProgressDeadline) {
  Json d = Workload("Deployment", "web", 2, "nginx:fail");
  d["spec"]["progressDeadlineSeconds"] = 3;
  Create(d);
  TimePoint start = clock_.Now();
  TimePoint exceeded_at{};
  ASSERT_TRUE(TickUntil(
      [&] {
        Json current = Get("Deployment", "web");
        const Json* c = FindCondition(current["status"], "Progressing");
        if (c && (*c)["reason"] == "ProgressDeadlineExceeded") exceeded_at = clock_.Now();
        return exceeded_at != TimePoint{};
      },
      400));
  // Kubernetes measures from lastUpdateTime, which has second precision (truncated), so the
  // deadline of 3s passes between 2s and 3s after the last progress, plus at most a tick.
  EXPECT_GT(exceeded_at - start, 2s);
  EXPECT_LE(exceeded_at - start, 4s + kTick);
  Json s = Get("Deployment", "web")["status"];
  const Json* c = FindCondition(s, "Progressing");
  EXPECT_EQ((*c)["status"], "False");
  EXPECT_EQ(
      (*c)["message"].get<std::string>().find("has timed out progressing") != std::string::npos,
      true);
  EXPECT_EQ(s["availableReplicas"], 0);
  EXPECT_EQ(s["updatedReplicas"], 2);
  EXPECT_EQ((*FindCondition(s, "Available"))["status"], "False");
  std::vector<std::string> want = {"rolloutStarted", "progressing", "progressDeadlineExceeded"};
  EXPECT_EQ(Events("web"), want);
}

TEST_F(ControllersTest, SlowImageTakesTenTimesTheReadyDelay) {
  Create(Workload("Deployment", "slow", 1, "nginx:slow-1"));
  Tick();
  // 200ms ready delay × 10: not ready after 1.5s, ready by 2.1s.
  for (int i = 0; i < 29; ++i) Tick();
  EXPECT_EQ(Status("Deployment", "slow", "readyReplicas"), 0);
  for (int i = 0; i < 13; ++i) Tick();
  EXPECT_EQ(Status("Deployment", "slow", "readyReplicas"), 1);
}

TEST_F(ControllersTest, MinReadySecondsDelaysAvailability) {
  Json d = Workload("Deployment", "web", 1, "nginx:1");
  d["spec"]["minReadySeconds"] = 2;
  Create(d);
  ASSERT_TRUE(TickUntil([&] { return Status("Deployment", "web", "readyReplicas") == 1; }, 20));
  EXPECT_EQ(Status("Deployment", "web", "availableReplicas"), 0);
  TimePoint ready = clock_.Now();
  ASSERT_TRUE(
      TickUntil([&] { return Status("Deployment", "web", "availableReplicas") == 1; }, 100));
  EXPECT_GE(clock_.Now() - ready, 2s - kTick);
}

TEST_F(ControllersTest, PausedDeploymentDoesNotRollUntilResumed) {
  Create(Workload("Deployment", "web", 2, "nginx:1"));
  ASSERT_TRUE(TickUntil([&] { return DeploymentComplete(Get("Deployment", "web")); }, 100));
  Mutate("Deployment", "web", [](Json& o) {
    o["spec"]["paused"] = true;
    o["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2";
  });
  for (int i = 0; i < 40; ++i) Tick();
  Json d = Get("Deployment", "web");
  EXPECT_EQ(d["status"]["updatedReplicas"], 0);
  EXPECT_EQ((*FindCondition(d["status"], "Progressing"))["reason"], "DeploymentPaused");
  EXPECT_EQ((*FindCondition(d["status"], "Progressing"))["status"], "Unknown");
  EXPECT_EQ(cluster_.store().Count(Type("ReplicaSet").id, "default"), 1u);

  Mutate("Deployment", "web", [](Json& o) { o["spec"]["paused"] = false; });
  Tick();
  // Resumed, then immediately a new ReplicaSet for the changed template.
  EXPECT_EQ(cluster_.store().Count(Type("ReplicaSet").id, "default"), 2u);
  ASSERT_TRUE(TickUntil([&] { return DeploymentComplete(Get("Deployment", "web")); }, 200));
  std::vector<std::string> want = {"rolloutStarted", "progressing", "available", "paused",
                                   "rolloutStarted", "progressing", "available"};
  EXPECT_EQ(Events("web"), want);
}

TEST_F(ControllersTest, RecreateStopsOldPodsBeforeStartingNewOnes) {
  Json d = Workload("Deployment", "web", 3, "nginx:1");
  d["spec"]["strategy"] = {{"type", "Recreate"}};
  Create(d);
  ASSERT_TRUE(TickUntil([&] { return DeploymentComplete(Get("Deployment", "web")); }, 100));
  Mutate("Deployment", "web",
         [](Json& o) { o["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"; });
  ASSERT_TRUE(TickUntil([&] { return DeploymentComplete(Get("Deployment", "web")); }, 200,
                        [&] {
                          const Json s = Get("Deployment", "web")["status"];
                          long long old_pods =
                              s.value("replicas", 0LL) - s.value("updatedReplicas", 0LL);
                          // Never old and new pods at the same time.
                          EXPECT_TRUE(old_pods == 0 || s.value("updatedReplicas", 0LL) == 0)
                              << s.dump();
                        }));
}

TEST_F(ControllersTest, ScalingADeploymentScalesItsReplicaSet) {
  Create(Workload("Deployment", "web", 2, "nginx:1"));
  ASSERT_TRUE(TickUntil([&] { return DeploymentComplete(Get("Deployment", "web")); }, 100));
  Mutate("Deployment", "web", [](Json& o) { o["spec"]["replicas"] = 5; });
  ASSERT_TRUE(TickUntil([&] { return DeploymentComplete(Get("Deployment", "web")); }, 100));
  Mutate("Deployment", "web", [](Json& o) { o["spec"]["replicas"] = 1; });
  ASSERT_TRUE(TickUntil([&] { return DeploymentComplete(Get("Deployment", "web")); }, 100));
  EXPECT_EQ(cluster_.store().Count(Type("ReplicaSet").id, "default"), 1u);
}

TEST_F(ControllersTest, OldReplicaSetsBeyondTheHistoryLimitAreDeleted) {
  Json d = Workload("Deployment", "web", 1, "nginx:1");
  d["spec"]["revisionHistoryLimit"] = 1;
  Create(d);
  for (const char* image : {"nginx:2", "nginx:3", "nginx:4"}) {
    ASSERT_TRUE(TickUntil([&] { return DeploymentComplete(Get("Deployment", "web")); }, 100));
    Mutate("Deployment", "web",
           [&](Json& o) { o["spec"]["template"]["spec"]["containers"][0]["image"] = image; });
  }
  ASSERT_TRUE(TickUntil([&] { return DeploymentComplete(Get("Deployment", "web")); }, 100));
  std::set<std::string> revisions;
  cluster_.store().Scan(
      Type("ReplicaSet").id, "default", "", [&](const std::string&, const Json& rs) {
        revisions.insert(rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"]);
        return true;
      });
  EXPECT_EQ(revisions, (std::set<std::string>{"3", "4"}));
}

// ---- CloneSet ------------------------------------------------------------------------------

TEST_F(ControllersTest, CloneSetPartitionScalesLikeKruise) {
  struct Case {
    Json partition;
    long long replicas;
    long long want;
  };
  for (const Case& c : std::vector<Case>{{Json(), 4, 0},
                                         {Json(2), 4, 2},
                                         {Json(9), 4, 4},
                                         {Json("50%"), 4, 2},
                                         {Json("50%"), 5, 3},   // rounds up
                                         {Json("1%"), 10, 1},   // above 0% keeps one old pod
                                         {Json("99%"), 10, 9},  // below 100% updates one
                                         {Json("99%"), 1, 1},
                                         {Json("100%"), 10, 10},
                                         {Json("0%"), 10, 0}}) {
    SCOPED_TRACE(c.partition.dump() + " of " + std::to_string(c.replicas));
    EXPECT_EQ(CloneSetPartition(c.partition, c.replicas), c.want);
  }
}

TEST_F(ControllersTest, CloneSetWithPartitionHalfStopsAtHalf) {
  Json cs = Workload("CloneSet", "app", 4, "nginx:1");
  Create(cs);
  ASSERT_TRUE(TickUntil([&] { return Status("CloneSet", "app", "availableReplicas") == 4; }, 100));
  Json before = Get("CloneSet", "app")["status"];
  EXPECT_EQ(before["currentRevision"], before["updateRevision"]);
  EXPECT_EQ(before["expectedUpdatedReplicas"], 4);
  EXPECT_EQ(before["labelSelector"], "app=app");
  // No Progressing condition: that is fleetwave's job unless --kruise-progress-conditions.
  EXPECT_EQ(FindCondition(before, "Progressing"), nullptr);

  Mutate("CloneSet", "app", [](Json& o) {
    o["spec"]["updateStrategy"]["partition"] = "50%";
    o["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2";
  });
  std::string old_rev = before["updateRevision"];
  // maxUnavailable defaults to 20% of 4, rounded up: one pod at a time.
  ASSERT_TRUE(TickUntil([&] { return Status("CloneSet", "app", "updatedAvailableReplicas") == 2; },
                        200,
                        [&] {
                          const Json s = Get("CloneSet", "app")["status"];
                          EXPECT_GE(s.value("availableReplicas", 0LL), 3) << s.dump();
                          EXPECT_LE(s.value("updatedReplicas", 0LL), 2) << s.dump();
                        }));
  for (int i = 0; i < 40; ++i) Tick();  // and it stays there
  Json s = Get("CloneSet", "app")["status"];
  EXPECT_EQ(s["replicas"], 4);
  EXPECT_EQ(s["updatedReplicas"], 2);
  EXPECT_EQ(s["updatedReadyReplicas"], 2);
  EXPECT_EQ(s["updatedAvailableReplicas"], 2);
  EXPECT_EQ(s["expectedUpdatedReplicas"], 2);
  EXPECT_EQ(s["readyReplicas"], 4);
  EXPECT_EQ(s["availableReplicas"], 4);
  EXPECT_EQ(s["currentRevision"], old_rev);
  EXPECT_NE(s["updateRevision"], old_rev);
  EXPECT_EQ(s["updateRevision"].get<std::string>().rfind("app-", 0), 0u);
  EXPECT_EQ(s["observedGeneration"], 2);
  std::vector<std::string> want = {"rolloutStarted", "progressing", "available",
                                   "rolloutStarted", "progressing", "partitionReached"};
  EXPECT_EQ(Events("app"), want);

  // Lifting the partition finishes the rollout; currentRevision follows.
  Mutate("CloneSet", "app", [](Json& o) { o["spec"]["updateStrategy"]["partition"] = 0; });
  ASSERT_TRUE(
      TickUntil([&] { return Status("CloneSet", "app", "updatedAvailableReplicas") == 4; }, 200));
  s = Get("CloneSet", "app")["status"];
  EXPECT_EQ(s["currentRevision"], s["updateRevision"]);
  EXPECT_EQ(s["expectedUpdatedReplicas"], 4);
}

TEST_F(ControllersTest, PausedCloneSetDoesNotMove) {
  Create(Workload("CloneSet", "app", 3, "nginx:1"));
  ASSERT_TRUE(TickUntil([&] { return Status("CloneSet", "app", "availableReplicas") == 3; }, 100));
  Mutate("CloneSet", "app", [](Json& o) {
    o["spec"]["updateStrategy"]["paused"] = true;
    o["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2";
  });
  Tick();
  Json first = Get("CloneSet", "app")["status"];
  for (int i = 0; i < 100; ++i) {
    Tick();
    Json s = Get("CloneSet", "app")["status"];
    ASSERT_EQ(s, first) << "tick " << i;
  }
  EXPECT_EQ(first["updatedReplicas"], 0);
  EXPECT_EQ(first["availableReplicas"], 3);
  EXPECT_NE(first["currentRevision"], first["updateRevision"]);
  EXPECT_EQ(Events("app").back(), "paused");
  Mutate("CloneSet", "app", [](Json& o) { o["spec"]["updateStrategy"]["paused"] = false; });
  ASSERT_TRUE(
      TickUntil([&] { return Status("CloneSet", "app", "updatedAvailableReplicas") == 3; }, 200));
}

TEST_F(ControllersTest, CloneSetProgressConditionOnlyWhenAsked) {
  ControllerOptions with;
  with.kruise_progress_conditions = true;
  ControllerManager manager(with, &events_);
  Json cs = Workload("CloneSet", "app", 2, "nginx:fail");
  cs["spec"]["progressDeadlineSeconds"] = 2;
  Create(cs);
  std::string reason;
  for (int i = 0; i < 100 && reason != "ProgressDeadlineExceeded"; ++i) {
    clock_.Advance(kTick);
    manager.Tick(cluster_);
    Json current = Get("CloneSet", "app");
    const Json* c = FindCondition(current["status"], "Progressing");
    if (c) reason = (*c)["reason"];
  }
  EXPECT_EQ(reason, "ProgressDeadlineExceeded");
  Json final = Get("CloneSet", "app");
  const Json* c = FindCondition(final["status"], "Progressing");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ((*c)["message"], "CloneSet revision " +
                                 final["status"]["updateRevision"].get<std::string>() +
                                 " has timed out progressing");
}

// ---- StatefulSet ---------------------------------------------------------------------------

TEST_F(ControllersTest, StatefulSetStartsPodsInOrder) {
  Create(Workload("StatefulSet", "db", 3, "pg:1"));
  std::vector<long long> ready_steps;
  ASSERT_TRUE(TickUntil([&] { return Status("StatefulSet", "db", "readyReplicas") == 3; }, 200,
                        [&] {
                          long long r = Status("StatefulSet", "db", "readyReplicas");
                          long long n = Status("StatefulSet", "db", "replicas");
                          // OrderedReady: at most one pod not ready at a time.
                          EXPECT_LE(n - r, 1);
                          if (ready_steps.empty() || ready_steps.back() != r)
                            ready_steps.push_back(r);
                        }));
  std::vector<long long> want = {0, 1, 2, 3};
  EXPECT_EQ(ready_steps, want);
  Json s = Get("StatefulSet", "db")["status"];
  EXPECT_EQ(s["currentRevision"], s["updateRevision"]);
  EXPECT_EQ(s["currentReplicas"], 3);
  EXPECT_EQ(s["updatedReplicas"], 3);
  EXPECT_EQ(s["availableReplicas"], 3);
}

TEST_F(ControllersTest, StatefulSetPartitionUpdatesOnlyHigherOrdinals) {
  Json sts = Workload("StatefulSet", "db", 4, "pg:1");
  Create(sts);
  ASSERT_TRUE(TickUntil([&] { return Status("StatefulSet", "db", "readyReplicas") == 4; }, 200));
  Mutate("StatefulSet", "db", [](Json& o) {
    o["spec"]["updateStrategy"] = {{"type", "RollingUpdate"},
                                   {"rollingUpdate", {{"partition", 2}}}};
    o["spec"]["template"]["spec"]["containers"][0]["image"] = "pg:2";
  });
  ASSERT_TRUE(TickUntil(
      [&] {
        return Status("StatefulSet", "db", "updatedReplicas") == 2 &&
               Status("StatefulSet", "db", "readyReplicas") == 4;
      },
      200));
  for (int i = 0; i < 40; ++i) Tick();
  Json s = Get("StatefulSet", "db")["status"];
  EXPECT_EQ(s["updatedReplicas"], 2);
  EXPECT_EQ(s["currentReplicas"], 2);
  EXPECT_NE(s["currentRevision"], s["updateRevision"]);
  EXPECT_EQ(Events("db").back(), "partitionReached");
}

TEST_F(ControllersTest, StatefulSetOnDeleteNeverUpdatesByItself) {
  Json sts = Workload("StatefulSet", "db", 2, "pg:1");
  sts["spec"]["updateStrategy"] = {{"type", "OnDelete"}};
  Create(sts);
  ASSERT_TRUE(TickUntil([&] { return Status("StatefulSet", "db", "readyReplicas") == 2; }, 200));
  Mutate("StatefulSet", "db",
         [](Json& o) { o["spec"]["template"]["spec"]["containers"][0]["image"] = "pg:2"; });
  for (int i = 0; i < 60; ++i) Tick();
  EXPECT_EQ(Status("StatefulSet", "db", "updatedReplicas"), 0);
  EXPECT_EQ(Status("StatefulSet", "db", "currentReplicas"), 2);
}

// ---- DaemonSet -----------------------------------------------------------------------------

TEST_F(ControllersTest, DaemonSetUpdatesOneNodeAtATime) {
  Create(Workload("DaemonSet", "agent", 0, "agent:1"));
  ASSERT_TRUE(TickUntil([&] { return Status("DaemonSet", "agent", "numberAvailable") == 3; }, 100));
  Json s = Get("DaemonSet", "agent")["status"];
  EXPECT_EQ(s["desiredNumberScheduled"], 3);
  EXPECT_EQ(s["currentNumberScheduled"], 3);
  EXPECT_EQ(s["updatedNumberScheduled"], 3);
  EXPECT_EQ(s["numberMisscheduled"], 0);
  EXPECT_EQ(s["numberUnavailable"], 0);
  Mutate("DaemonSet", "agent",
         [](Json& o) { o["spec"]["template"]["spec"]["containers"][0]["image"] = "agent:2"; });
  std::set<long long> updated_seen;
  ASSERT_TRUE(TickUntil(
      [&] {
        return Status("DaemonSet", "agent", "updatedNumberScheduled") == 3 &&
               Status("DaemonSet", "agent", "numberAvailable") == 3;
      },
      200,
      [&] {
        EXPECT_GE(Status("DaemonSet", "agent", "numberAvailable"), 2);  // maxUnavailable 1
        updated_seen.insert(Status("DaemonSet", "agent", "updatedNumberScheduled"));
      }));
  EXPECT_GE(updated_seen.size(), 3u);
}

TEST_F(ControllersTest, DeletedWorkloadIsReported) {
  Create(Workload("CloneSet", "app", 1, "nginx:1"));
  Tick();
  Outcome o = DeleteObject(cluster_, Type("CloneSet"), "default", "app", {});
  ASSERT_EQ(o.code, 200) << o.body.dump();
  Tick();
  EXPECT_EQ(Events("app").back(), "deleted");
  EXPECT_EQ(manager_.pods(0).owner_count(), 0u);
}

}  // namespace
}  // namespace fleetwave::kubesim
