// kubesim at rest (issue 26): a settled cluster sleeps until the exact time something becomes
// due (a pod turning ready or available, a progress deadline), not on a periodic re-sync; a
// write wakes only the cluster it touched; one watch event is serialised once however many
// watchers share its form. Manual clocks throughout.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tools/kubesim/controllers/controller_manager.h"
#include "tools/kubesim/controllers/controller_util.h"
#include "tools/kubesim/simulator.h"
#include "tools/kubesim/step_scheduler.h"
#include "tools/kubesim/verbs.h"

namespace fleetwave::kubesim {
namespace {

using namespace std::chrono_literals;

Json Deployment(const std::string& name, const std::string& image) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"replicas", 1},
            {"selector", {{"matchLabels", {{"app", name}}}}},
            {"template",
             {{"metadata", {{"labels", {{"app", name}}}}},
              {"spec", {{"containers", Json::array({{{"name", "main"}, {"image", image}}})}}}}}}}};
}

class SettledClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteContext ctx{"v1", "test", false, false};
    ASSERT_EQ(CreateObject(cluster_, Resource(kNamespaces), "",
                           Json{{"metadata", {{"name", "default"}}}}, ctx)
                  .code,
              201);
  }
  void Create(const Json& d) {
    Outcome o =
        CreateObject(cluster_, Resource(kDeployments), "default", d, {"v1", "test", false, false});
    ASSERT_EQ(o.code, 201) << o.body.dump();
  }
  Json Get(const std::string& name) {
    auto o = cluster_.store().Get(kDeployments, "default", name);
    return o ? *o : Json();
  }
  void TickAt(TimePoint t) {
    clock_.Advance(t - clock_.Now());
    manager_.Tick(cluster_);
  }
  // Ticks every 50ms until the controllers' last step changed nothing.
  void TickUntilSettled() {
    for (int i = 0; i < 200; ++i) {
      TickAt(clock_.Now() + 50ms);
      if (manager_.Settled(0)) return;
    }
    FAIL() << "never settled";
  }
  std::string Reason(const std::string& name, const char* type) {
    Json d = Get(name);
    const Json* c = FindCondition(d["status"], type);
    return c ? c->value("reason", "") : "";
  }
  long long Count(const std::string& name, const char* field) {
    Json d = Get(name);
    return d.contains("status") && d["status"].is_object() ? d["status"].value(field, 0LL) : 0;
  }

  Clock clock_{true};
  Cluster cluster_{0, "token", 1, clock_, ClusterOptions{}};
  EventLog events_;
  ControllerOptions options_;
  ControllerManager manager_{options_, &events_};
};

TEST_F(SettledClusterTest, SleepsUntilItsProgressDeadlineAndNotOnceBefore) {
  Json d = Deployment("web", "nginx:fail");
  d["spec"]["progressDeadlineSeconds"] = 30;
  Create(d);
  TickUntilSettled();
  const std::string progressing = Reason("web", "Progressing");
  ASSERT_EQ(progressing, "ReplicaSetUpdated");
  Json web = Get("web");
  auto since =
      ParseRfc3339(FindCondition(web["status"], "Progressing")->value("lastUpdateTime", ""));
  ASSERT_TRUE(since);
  // The deadline check times out strictly after lastUpdateTime + 30s.
  auto due = manager_.NextDue(0);
  ASSERT_TRUE(due);
  EXPECT_EQ(*due, *since + 30s + Duration(1));
  std::uint64_t syncs = manager_.syncs();
  for (TimePoint t = clock_.Now() + 1s; t < *due; t += 1s) TickAt(t);
  TickAt(*due - Duration(1));
  EXPECT_EQ(manager_.syncs(), syncs) << "a settled cluster re-synced before anything was due";
  EXPECT_EQ(Reason("web", "Progressing"), progressing);
  TickAt(*due);
  EXPECT_EQ(Reason("web", "Progressing"), "ProgressDeadlineExceeded");
  TickUntilSettled();
  EXPECT_FALSE(manager_.NextDue(0)) << "nothing is ever due for a timed-out failing rollout";
}

TEST_F(SettledClusterTest, WakesExactlyWhenAPodTurnsAvailable) {
  Json d = Deployment("web", "nginx:1");
  d["spec"]["minReadySeconds"] = 5;
  Create(d);
  // Until every pod is available, the cluster has a due time; it is exact to the microsecond.
  for (int round = 0; round < 20 && Count("web", "availableReplicas") < 1; ++round) {
    TickUntilSettled();
    auto due = manager_.NextDue(0);
    ASSERT_TRUE(due) << "a pod still turns ready or available, so something is due";
    long long available = Count("web", "availableReplicas");
    long long ready = Count("web", "readyReplicas");
    std::uint64_t syncs = manager_.syncs();
    TickAt(*due - Duration(1));
    EXPECT_EQ(manager_.syncs(), syncs);
    TickAt(*due);
    EXPECT_EQ(manager_.syncs(), syncs + 1);
    EXPECT_TRUE(Count("web", "availableReplicas") > available ||
                Count("web", "readyReplicas") > ready)
        << "woken at a time when nothing changed";
  }
  EXPECT_EQ(Count("web", "availableReplicas"), 1);
  TickUntilSettled();
  EXPECT_FALSE(manager_.NextDue(0));
  EXPECT_EQ(Reason("web", "Available"), "MinimumReplicasAvailable");
}

HttpRequest Request(const std::string& method, const std::string& target,
                    const std::string& body = "") {
  HttpRequest r;
  r.method = method;
  r.target = target;
  r.body = body;
  r.accept = "application/json";
  if (!body.empty()) r.content_type = "application/json";
  return r;
}

class SimulatorAtRestTest : public ::testing::Test {
 protected:
  SimulatorAtRestTest() : sim_(Options()) {
    sim_.SetWakeListener([this] { ++wakes_; });
  }
  static SimulatorOptions Options() {
    SimulatorOptions o;
    o.clusters = 3;
    o.manual_clock = true;
    return o;
  }
  int Post(const std::string& target, const Json& body) {
    return sim_.Handle(Request("POST", target, body.dump()), -1).response.status;
  }
  void Advance(const std::string& d) { ASSERT_EQ(Post("/kubesim/clock", {{"advance", d}}), 200); }
  std::uint64_t Stat(const char* name) { return sim_.Stats()[name].get<std::uint64_t>(); }
  Json GetDeployment(int cluster, const std::string& name) {
    auto o = sim_.cluster(cluster).store().Get(kDeployments, "default", name);
    return o ? *o : Json();
  }

  Simulator sim_;
  int wakes_ = 0;
};

TEST_F(SimulatorAtRestTest, StepsNothingAtRestAndAWriteWakesOnlyItsCluster) {
  ASSERT_EQ(Post("/clusters/sim-1/apis/apps/v1/namespaces/default/deployments",
                 Deployment("web", "nginx:1")),
            201);
  EXPECT_EQ(wakes_, 1);
  EXPECT_TRUE(sim_.busy());
  Advance("5s");
  Json web = GetDeployment(1, "web");
  EXPECT_EQ(web["status"].value("availableReplicas", 0), 1);
  EXPECT_FALSE(sim_.busy());
  EXPECT_FALSE(sim_.NextDue()) << "a rolled-out fleet has nothing due";
  std::uint64_t steps = Stat("cluster_steps"), syncs = Stat("controller_syncs");
  Advance("10m");
  EXPECT_EQ(Stat("cluster_steps"), steps) << "a cluster at rest was stepped";
  EXPECT_EQ(Stat("controller_syncs"), syncs);
  // A write to another cluster wakes the simulator, and only that cluster steps.
  ASSERT_EQ(Post("/clusters/sim-2/api/v1/namespaces/default/configmaps",
                 {{"metadata", {{"name", "c"}}}, {"data", {{"k", "v"}}}}),
            201);
  EXPECT_EQ(wakes_, 2);
  EXPECT_TRUE(sim_.busy());
  Advance("50ms");
  EXPECT_EQ(Stat("cluster_steps"), steps + 1);
  EXPECT_FALSE(sim_.busy());
}

TEST_F(SimulatorAtRestTest, ClockAdvanceRunsADeadlineThatBecameDue) {
  Json d = Deployment("web", "nginx:fail");
  d["spec"]["progressDeadlineSeconds"] = 30;
  ASSERT_EQ(Post("/clusters/sim-0/apis/apps/v1/namespaces/default/deployments", d), 201);
  Advance("2s");
  ASSERT_TRUE(sim_.NextDue());
  auto reason = [&] {
    Json d = GetDeployment(0, "web");
    const Json* c = FindCondition(d["status"], "Progressing");
    return c ? c->value("reason", "") : "";
  };
  EXPECT_EQ(reason(), "ReplicaSetUpdated");
  Advance("40s");
  EXPECT_EQ(reason(), "ProgressDeadlineExceeded");
  EXPECT_FALSE(sim_.NextDue());
}

class CountingSink : public WatchSink {
 public:
  void Send(std::string line) override { lines.push_back(std::move(line)); }
  std::vector<std::string> lines;
};

TEST(WatchHubSharingTest, OneSerialisationPerEventFormHoweverManyWatchers) {
  WatchHub hub(16, std::chrono::minutes(5));
  auto a = std::make_shared<CountingSink>(), b = std::make_shared<CountingSink>(),
       c = std::make_shared<CountingSink>();
  WatchFilter deployments;
  deployments.resource = kDeployments;
  deployments.version = "v1";
  hub.Add(deployments, a);
  hub.Add(deployments, b);
  WatchFilter in_default = deployments;
  in_default.ns = "default";
  hub.Add(in_default, c);
  Json o = Deployment("web", "nginx:1");
  o["metadata"]["resourceVersion"] = "1001";
  hub.Publish(EventType::kAdded, kDeployments, 1001, o, nullptr, TimePoint{});
  EXPECT_EQ(hub.lines_serialised(), 1u);
  EXPECT_EQ(hub.lines_sent(), 3u);
  ASSERT_EQ(a->lines.size(), 1u);
  EXPECT_EQ(a->lines, b->lines);
  EXPECT_EQ(a->lines, c->lines);
  EXPECT_EQ(Json::parse(a->lines[0])["object"]["metadata"]["name"], "web");
}

TEST(StepSchedulerTest, ActiveClustersStepNextAndSleepersAtTheirDueTime) {
  StepScheduler s(4);
  TimePoint t0{};
  EXPECT_TRUE(s.MarkActive(2));
  EXPECT_FALSE(s.MarkActive(3)) << "only the first activation wakes a sleeping timer";
  s.Sleep(1, t0 + 5s);
  s.Sleep(0, t0 + 2s);
  EXPECT_EQ(s.TakeDue(t0), (std::vector<int>{2, 3}));
  EXPECT_FALSE(s.busy());
  EXPECT_EQ(s.NextDue(), t0 + 2s);
  s.Sleep(0, t0 + 7s);  // a new due time replaces the old one
  EXPECT_EQ(s.TakeDue(t0 + 5s), (std::vector<int>{1}));
  EXPECT_EQ(s.NextDue(), t0 + 7s);
  s.Sleep(0, std::nullopt);
  EXPECT_FALSE(s.NextDue());
  EXPECT_TRUE(s.TakeDue(t0 + 1h).empty());
}

}  // namespace
}  // namespace fleetwave::kubesim
