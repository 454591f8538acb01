// The cluster actor's progress-deadline wiring (cluster_actor.h, ClusterActorConfig::
// workload_kinds) on CAF's test coordinator with a scripted API server: every StatefulSet is
// watched (not only labelled ones), one with a deadline gets a workload actor, its timeout
// makes the labelled object Degraded in the next ClusterUpdate (with the timeout's message) and
// is stored, and switching the deadline off stops the actor, removes the record and the
// workload, and the health follows. A Deployment (Kubernetes' deadline) gets no actor and no
// record: its row echoes its own condition. Virtual time moves the actor clock and Services::now
// together.
#include <gtest/gtest.h>

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "actors/atoms.h"
#include "actors/blocking_pool.h"
#include "actors/cluster_actor.h"
#include "actors/services.h"
#include "engine/sync/tracking.h"
#include "store/memory_store.h"
#include "store/state.h"
#include "tests/cluster-clients/fake_transport.h"

namespace fleetwave::actors {
namespace {

using clients::HttpRequest;
using clients::Json;
using clients::RequestId;

constexpr const char* kServer = "https://c1.example.test";

Json StatefulSet(const std::string& rv, std::optional<int> deadline) {
  Json o = {{"apiVersion", "apps/v1"},
            {"kind", "StatefulSet"},
            {"metadata",
             {{"name", "db"},
              {"namespace", "shop"},
              {"resourceVersion", rv},
              {"generation", 1},
              {"labels", {{engine::kAppLabel, "A"}}}}},
            {"spec", {{"replicas", 2}, {"updateStrategy", {{"type", "RollingUpdate"}}}}},
            {"status",
             {{"observedGeneration", 1},
              {"replicas", 2},
              {"readyReplicas", 1},
              {"updatedReplicas", 1},
              {"currentRevision", "db-1"},
              {"updateRevision", "db-2"}}}};
  if (deadline) o["spec"]["progressDeadlineSeconds"] = *deadline;
  return o;
}

// A Deployment as Kubernetes keeps it: its controller writes the Progressing condition.
Json Deployment(const std::string& name, const std::string& rv, const std::string& reason,
                bool labelled) {
  Json condition = {{"type", "Progressing"},
                    {"status", reason == "ProgressDeadlineExceeded" ? "False" : "True"},
                    {"reason", reason},
                    {"message", "ReplicaSet \"" + name + "-2\" is progressing."},
                    {"lastUpdateTime", "2026-12-07T10:00:00Z"},
                    {"lastTransitionTime", "2026-12-07T10:00:00Z"}};
  Json o = {{"apiVersion", "apps/v1"},
            {"kind", "Deployment"},
            {"metadata",
             {{"name", name},
              {"namespace", "shop"},
              {"resourceVersion", rv},
              {"generation", 2},
              {"annotations", {{"deployment.kubernetes.io/revision", "2"}}}}},
            {"spec", {{"replicas", 2}, {"progressDeadlineSeconds", 600}}},
            {"status",
             {{"observedGeneration", 2},
              {"replicas", 2},
              {"updatedReplicas", 2},
              {"readyReplicas", 1},
              {"availableReplicas", 1}}}};
  o["status"]["conditions"] = Json::array({condition});
  if (labelled) o["metadata"]["labels"] = {{engine::kAppLabel, "A"}};
  return o;
}

std::string Event(const std::string& type, const Json& object) {
  return Json{{"type", type}, {"object", object}}.dump() + "\n";
}

LiveSink::behavior_type Subscriber(LiveSink::pointer,
                                   std::shared_ptr<std::vector<ClusterUpdatePtr>> got) {
  return {[got](live_atom, const ClusterUpdatePtr& u) { got->push_back(u); }};
}

class ClusterDeadlineTest : public ::testing::Test {
 protected:
  static caf::actor_system_config& Testing(caf::actor_system_config& cfg) {
    cfg.set("scheduler.policy", caf::atom("testing"));
    cfg.set("logger.verbosity", caf::atom("quiet"));
    return cfg;
  }
  ClusterDeadlineTest() : system_(Testing(cfg_)) {
    services_.store = &store_;
    services_.pool = &pool_;
    services_.now = [this] { return now_; };
    services_.log = [this](const std::string& line) { logs_.push_back(line); };
    services_.publish.workload = [this](const Json& item) {
      workloads_[item["name"].get<std::string>()] = item;
    };
    services_.publish.progress_evaluated = [this] { ++evaluations_; };
    services_.publish.workload_removed = [this](const std::string&, const std::string&,
                                                const std::string&, const std::string& name) {
      workloads_.erase(name);
    };
  }
  ~ClusterDeadlineTest() override {
    for (auto& a : spawned_) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    Pump();
  }
  caf::scheduler::test_coordinator& sched() {
    return dynamic_cast<caf::scheduler::test_coordinator&>(system_.scheduler());
  }
  // The cluster actor of these tests: cluster c1 on the fake transport, one attempt per
  // request, watching the workloads of `kind` for their deadlines.
  ClusterActorConfig ConfigWatching(const std::string& kind) {
    ClusterActorConfig config;
    config.cluster.name = "c1";
    config.cluster.server = kServer;
    config.transport = &fake_;
    config.options.seed = 7;
    config.options.rate_limit = {0, 1};
    config.options.max_attempts = 1;
    config.log = [this](const std::string& line) { logs_.push_back(line); };
    config.workload_kinds = {kind};
    config.services = &services_;
    return config;
  }

  void Pump() {
    for (;;) {
      fake_.RunUntilIdle();
      if (sched().run() == 0) return;
    }
  }
  void Advance(std::chrono::milliseconds d) {
    now_ += d;
    sched().advance_time(d);
    Pump();
  }
  // Answers every request but watches (kept open, by path with query).
  void Serve() {
    for (bool answered = true; answered;) {
      answered = false;
      for (RequestId id : fake_.Outstanding()) {
        const HttpRequest& r = fake_.Get(id).request;
        const std::string path = r.url.substr(std::string(kServer).size());
        if (path.find("watch=1") != std::string::npos) {
          const bool labelled = path.find("labelSelector") != std::string::npos;
          const std::string prefix =
              path.find("/deployments") != std::string::npos ? "deployments/" : "";
          watches_[prefix + (labelled ? "labelled" : "all")] = id;
          watch_ids_.insert(id);
          continue;
        }
        const std::string base = path.substr(0, path.find('?'));
        Json body = {
            {"kind", "List"}, {"metadata", {{"resourceVersion", "100"}}}, {"items", Json::array()}};
        if (base == "/version") {
          body = {{"major", "1"}, {"minor", "30"}, {"gitVersion", "v1.30.0"}};
        } else if (base == "/api") {
          body = {{"versions", {"v1"}}};
        } else if (base == "/apis") {
          body = {{"groups",
                   {{{"name", "apps"},
                     {"versions", {{{"groupVersion", "apps/v1"}, {"version", "v1"}}}}}}}};
        } else if (base == "/apis/apps/v1") {
          body = {{"resources",
                   {{{"name", "statefulsets"}, {"kind", "StatefulSet"}, {"namespaced", true}},
                    {{"name", "deployments"}, {"kind", "Deployment"}, {"namespaced", true}}}}};
        } else if (base == "/apis/apps/v1/statefulsets") {
          body["items"] = Json::array({StatefulSet("90", 5)});
        } else if (base == "/apis/apps/v1/deployments") {
          const bool labelled = path.find("labelSelector") != std::string::npos;
          body["items"] = Json::array();
          for (const Json& d : deployments_) {
            if (!labelled || d["metadata"].contains("labels")) body["items"].push_back(d);
          }
        }
        fake_.Respond(id, 200, body.dump());
        Pump();
        answered = true;
        break;
      }
    }
  }
  std::string Health(const ClusterUpdatePtr& u) {
    auto it = u->apps.find("A");
    if (it == u->apps.end() || it->second.empty()) return "(none)";
    const auto& h = it->second.front().health;
    return std::string(engine::HealthCodeName(h.status)) + ": " + h.message;
  }

  clients::testing::FakeTransport fake_;
  caf::actor_system_config cfg_;
  caf::actor_system system_;
  store::MemoryStore store_;
  BlockingPool pool_{0};
  engine::Time now_ = engine::FromUnixSeconds(1'800'000'000);
  Services services_;
  std::vector<caf::actor> spawned_;
  std::vector<std::string> logs_;
  std::map<std::string, Json> workloads_;
  std::map<std::string, RequestId> watches_;
  std::set<RequestId> watch_ids_;  // every watch request
  std::vector<Json> deployments_;  // what a list of Deployments returns
  int evaluations_ = 0;            // progress-deadline evaluations (workload actors)
};

TEST_F(ClusterDeadlineTest, ATimeoutMakesTheLabelledWorkloadDegradedUntilTheDeadlineGoes) {
  ClusterActorConfig config = ConfigWatching("StatefulSet");
  ClusterActor cluster = SpawnClusterActor(system_, config);
  spawned_.push_back(caf::actor_cast<caf::actor>(cluster));
  Pump();
  Serve();
  auto got = std::make_shared<std::vector<ClusterUpdatePtr>>();
  LiveSink sub = system_.spawn(Subscriber, got);
  spawned_.push_back(caf::actor_cast<caf::actor>(sub));
  caf::anon_send(cluster, subscribe_atom::value, std::string("A"), sub);
  caf::anon_send(cluster, watch_kind_atom::value, std::string("apps/v1"),
                 std::string("StatefulSet"));
  Pump();
  Serve();
  std::string log;
  for (const auto& l : logs_) log += l + "\n";
  ASSERT_EQ(watches_.count("all"), 1u) << "every StatefulSet is watched, labelled or not\n" << log;
  ASSERT_EQ(watches_.count("labelled"), 1u);
  ASSERT_EQ(workloads_.count("db"), 1u);
  EXPECT_EQ(workloads_["db"]["condition"]["reason"], "StatefulSetUpdated");

  Advance(std::chrono::milliseconds(100));  // the tick
  ASSERT_FALSE(got->empty());
  EXPECT_EQ(Health(got->back()).rfind("Progressing", 0), 0u) << Health(got->back());

  Advance(std::chrono::seconds(6));  // the requeue: exceeded
  EXPECT_EQ(workloads_["db"]["exceeded"], true);
  auto stored = store::State(store_).LoadWorkloads("c1");
  ASSERT_EQ(stored.value.size(), 1u);
  EXPECT_EQ(stored.value[0].record.value["condition"]["reason"], "ProgressDeadlineExceeded");
  Advance(std::chrono::milliseconds(100));
  EXPECT_EQ(Health(got->back()), "Degraded: StatefulSet revision db-2 has timed out progressing");

  // The deadline switched off: the actor goes, its record and workload too, the health follows.
  fake_.Feed(watches_["all"], Event("MODIFIED", StatefulSet("91", std::nullopt)));
  fake_.Feed(watches_["labelled"], Event("MODIFIED", StatefulSet("91", std::nullopt)));
  Pump();
  Advance(std::chrono::milliseconds(100));
  EXPECT_EQ(workloads_.count("db"), 0u);
  EXPECT_TRUE(store::State(store_).LoadWorkloads("c1").value.empty());
  EXPECT_EQ(Health(got->back()).rfind("Progressing", 0), 0u) << Health(got->back());
}

// Leader election (issue 28, cluster_pool.h): a standby's cluster actor watches every workload
// and the labelled kinds as a leader's does, but runs no workload actor and stores nothing -
// not even the removal of a record its watch did not list - until its term starts; then the
// workload it kept seeing gets its actor, the stale record goes and the watched kinds are
// stored for the next standby. A term that ends stops the workload actors again.
TEST_F(ClusterDeadlineTest, AStandbyWatchesButDecidesAndStoresNothingUntilItsTermStarts) {
  store::StateBatch stale;
  stale.PutWorkload("c1", "shop", "StatefulSet", "gone", Json{{"revision", "1"}});
  ASSERT_TRUE(store::State(store_).Commit(stale).ok());
  ClusterActorConfig config = ConfigWatching("StatefulSet");
  config.deciding = false;
  config.share_watched_kinds = true;
  ClusterActor cluster = SpawnClusterActor(system_, config);
  spawned_.push_back(caf::actor_cast<caf::actor>(cluster));
  Pump();
  Serve();
  caf::anon_send(cluster, watch_kind_atom::value, std::string("apps/v1"),
                 std::string("StatefulSet"));
  Pump();
  Serve();
  ASSERT_EQ(watches_.count("all"), 1u) << "a standby watches every StatefulSet";
  ASSERT_EQ(watches_.count("labelled"), 1u) << "and the labelled kinds it is told";
  Advance(std::chrono::seconds(6));  // past the deadline: a leader would store the timeout
  EXPECT_TRUE(workloads_.empty()) << "no workload actor on a standby";
  auto records = store::State(store_).LoadWorkloads("c1");
  ASSERT_EQ(records.value.size(), 1u) << "nothing stored, nothing removed";
  EXPECT_EQ(records.value[0].name, "gone");
  EXPECT_EQ(store_.Get(store::keys::WatchedKinds("c1")).status.code, store::Code::kNotFound);

  caf::anon_send(cluster, decide_atom::value, true);
  Pump();
  Serve();
  ASSERT_EQ(workloads_.count("db"), 1u) << "the workload it kept seeing gets its actor";
  records = store::State(store_).LoadWorkloads("c1");
  ASSERT_EQ(records.value.size(), 1u);
  EXPECT_EQ(records.value[0].name, "db") << "the unlisted workload's record went";
  const store::GetResult kinds = store_.Get(store::keys::WatchedKinds("c1"));
  ASSERT_TRUE(kinds.ok()) << kinds.status.message;
  EXPECT_EQ(Json::parse(kinds.entry.value), Json::array({"apps/v1/StatefulSet"}));
  EXPECT_EQ(watches_.size(), 2u) << "no watch started again";

  // The term ends before the deadline passes: the record stays as the term stored it.
  EXPECT_EQ(records.value[0].record.value["condition"]["reason"], "StatefulSetUpdated");
  caf::anon_send(cluster, decide_atom::value, false);
  Pump();
  fake_.Feed(watches_["all"], Event("MODIFIED", StatefulSet("92", 5)));
  Pump();
  Advance(std::chrono::seconds(6));
  EXPECT_EQ(store::State(store_).LoadWorkloads("c1").value[0].record.value["condition"]["reason"],
            "StatefulSetUpdated")
      << "a term that ended stores nothing more (no timeout while standing by)";
}

// Issue 26: a Deployment's deadline is Kubernetes' (its controller writes the Progressing
// condition), so it gets no workload actor and no stored record - a record an older daemon left
// goes once the watch listed - and its row in GET /api/v1/workloads (and the workload metrics
// fed from the same publish) is an echo of the condition in the watch's projection: published
// when listed, again when Kubernetes says the deadline passed, removed when it is deleted. The
// labelled one's health is Degraded by Kubernetes' condition alone. Whatever the number of
// Deployments, each kind is watched once for deadlines and once for the apps' objects.
TEST_F(ClusterDeadlineTest, ADeploymentsRowEchoesKubernetesWithNoActorAndNoRecord) {
  store::StateBatch older;
  older.PutWorkload(
      "c1", "shop", "Deployment", "web",
      Json{{"revision", "2"}, {"condition", {{"type", "Progressing"}, {"status", "True"}}}});
  ASSERT_TRUE(store::State(store_).Commit(older).ok());
  deployments_.push_back(Deployment("web", "90", "ReplicaSetUpdated", true));
  for (int i = 0; i < 20; ++i) {
    deployments_.push_back(
        Deployment("api-" + std::to_string(i), "90", "NewReplicaSetAvailable", false));
  }
  ClusterActorConfig config = ConfigWatching("Deployment");
  ClusterActor cluster = SpawnClusterActor(system_, config);
  spawned_.push_back(caf::actor_cast<caf::actor>(cluster));
  auto got = std::make_shared<std::vector<ClusterUpdatePtr>>();
  LiveSink sub = system_.spawn(Subscriber, got);
  spawned_.push_back(caf::actor_cast<caf::actor>(sub));
  Pump();
  const std::size_t actors_before = system_.registry().running();
  Serve();
  caf::anon_send(cluster, subscribe_atom::value, std::string("A"), sub);
  caf::anon_send(cluster, watch_kind_atom::value, std::string("apps/v1"),
                 std::string("Deployment"));
  Pump();
  Serve();
  ASSERT_EQ(watches_.count("deployments/all"), 1u) << "every Deployment is watched, once";
  ASSERT_EQ(watches_.count("deployments/labelled"), 1u);
  EXPECT_EQ(watch_ids_.size(), 2u) << "one watch per purpose, not one per Deployment";

  ASSERT_EQ(workloads_.size(), 21u) << "every Deployment with a deadline has its row";
  const Json& web = workloads_["web"];
  EXPECT_EQ(web["kind"], "Deployment");
  EXPECT_EQ(web["revision"], "2");
  EXPECT_EQ(web["deadlineSeconds"], 600);
  EXPECT_EQ(web["condition"]["reason"], "ReplicaSetUpdated");
  EXPECT_EQ(web["condition"], web["controllerCondition"]) << "the condition is Kubernetes'";
  EXPECT_EQ(web["exceeded"], false);
  EXPECT_TRUE(web["requeueAt"].is_null()) << "nothing is timed";
  EXPECT_EQ(system_.registry().running(), actors_before) << "no workload actor";
  EXPECT_EQ(evaluations_, 0) << "fleetwave computes nothing for a Deployment";
  EXPECT_TRUE(store::State(store_).LoadWorkloads("c1").value.empty())
      << "nothing stored, and an older daemon's record of it went once the watch listed";

  // Kubernetes says the deadline passed: the row says so at once, one line is logged, and the
  // labelled Deployment's health is Degraded with Kubernetes' own rule.
  const Json timed_out = Deployment("web", "91", "ProgressDeadlineExceeded", true);
  fake_.Feed(watches_["deployments/all"], Event("MODIFIED", timed_out));
  fake_.Feed(watches_["deployments/labelled"], Event("MODIFIED", timed_out));
  Pump();
  Advance(std::chrono::milliseconds(100));
  EXPECT_EQ(workloads_["web"]["exceeded"], true);
  EXPECT_EQ(workloads_["web"]["condition"]["reason"], "ProgressDeadlineExceeded");
  ASSERT_FALSE(got->empty());
  EXPECT_EQ(Health(got->back()), "Degraded: Deployment \"web\" exceeded its progress deadline");
  int lines = 0;
  for (const auto& l : logs_) {
    if (l.find("name=web") != std::string::npos &&
        l.find("reason=ProgressDeadlineExceeded") != std::string::npos) {
      ++lines;
    }
  }
  EXPECT_EQ(lines, 1) << "the transition is logged once";
  EXPECT_EQ(system_.registry().running(), actors_before);
  EXPECT_TRUE(store::State(store_).LoadWorkloads("c1").value.empty());

  // Deleted: its row goes.
  fake_.Feed(watches_["deployments/all"], Event("DELETED", timed_out));
  Pump();
  EXPECT_EQ(workloads_.count("web"), 0u);
  EXPECT_EQ(workloads_.size(), 20u);
  EXPECT_EQ(evaluations_, 0);
}

// A standby shows no Deployment rows (nothing is decided there, as for every workload); its term's
// start publishes every Deployment's row from the watch's cache, still without an actor.
TEST_F(ClusterDeadlineTest, ATermsStartPublishesTheDeploymentRowsFromTheWatch) {
  deployments_.push_back(Deployment("web", "90", "ProgressDeadlineExceeded", false));
  deployments_.push_back(Deployment("api", "90", "NewReplicaSetAvailable", false));
  ClusterActorConfig config = ConfigWatching("Deployment");
  config.deciding = false;
  ClusterActor cluster = SpawnClusterActor(system_, config);
  spawned_.push_back(caf::actor_cast<caf::actor>(cluster));
  Pump();
  const std::size_t actors_before = system_.registry().running();
  Serve();
  ASSERT_EQ(watches_.count("deployments/all"), 1u) << "a standby watches every Deployment";
  EXPECT_TRUE(workloads_.empty()) << "and shows none";

  caf::anon_send(cluster, decide_atom::value, true);
  Pump();
  Serve();
  ASSERT_EQ(workloads_.size(), 2u);
  EXPECT_EQ(workloads_["web"]["exceeded"], true);
  EXPECT_EQ(workloads_["api"]["condition"]["reason"], "NewReplicaSetAvailable");
  EXPECT_EQ(system_.registry().running(), actors_before) << "no workload actor";
  EXPECT_TRUE(store::State(store_).LoadWorkloads("c1").value.empty());
  EXPECT_EQ(watch_ids_.size(), 1u) << "no watch started again";
}

}  // namespace
}  // namespace fleetwave::actors
