// The cluster actor's progress-deadline wiring (cluster_actor.h, ClusterActorConfig::
// workload_kinds) on CAF's test coordinator with a scripted API server: every StatefulSet is
// watched (not only labelled ones), one with a deadline gets a workload actor, its timeout
// makes the labelled object Degraded in the next ClusterUpdate (with the timeout's message) and
// is stored, and switching the deadline off stops the actor, removes the record and the
// workload, and the health follows. Virtual time moves the actor clock and Services::now
// together.
#include <gtest/gtest.h>

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <map>
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
          watches_[labelled ? "labelled" : "all"] = id;
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
                   {{{"name", "statefulsets"}, {"kind", "StatefulSet"}, {"namespaced", true}}}}};
        } else if (base == "/apis/apps/v1/statefulsets") {
          body["items"] = Json::array({StatefulSet("90", 5)});
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
};

TEST_F(ClusterDeadlineTest, ATimeoutMakesTheLabelledWorkloadDegradedUntilTheDeadlineGoes) {
  ClusterActorConfig config;
  config.cluster.name = "c1";
  config.cluster.server = kServer;
  config.transport = &fake_;
  config.options.seed = 7;
  config.options.rate_limit = {0, 1};
  config.options.max_attempts = 1;
  config.log = [this](const std::string& line) { logs_.push_back(line); };
  config.workload_kinds = {"StatefulSet"};
  config.services = &services_;
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
  ClusterActorConfig config;
  config.cluster.name = "c1";
  config.cluster.server = kServer;
  config.transport = &fake_;
  config.options.seed = 7;
  config.options.rate_limit = {0, 1};
  config.options.max_attempts = 1;
  config.log = [this](const std::string& line) { logs_.push_back(line); };
  config.workload_kinds = {"StatefulSet"};
  config.services = &services_;
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

}  // namespace
}  // namespace fleetwave::actors
