// Deleting what disappeared (product §3.5, RollingSync §8) through the coordinator, the appset
// actor's marks and the deletion actor, on CAF's deterministic test scheduler with a fake
// clock: the grace period is respected, an empty directory or a failed kubeconfig marks
// nothing, Reverse order moves to the earlier step only once the watch shows the later step's
// objects gone, a restart from the store continues in the same phase and order, and
// preserveResourcesOnDeletion only removes the tracking marks. Cluster actors are fakes that
// record delete commands; the test decides when their watches report objects gone.
#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/atoms.h"
#include "actors/blocking_pool.h"
#include "actors/coordinator.h"
#include "actors/deletion_actor.h"
#include "actors/services.h"
#include "engine/appset/appset.h"
#include "engine/deletion/deletion_state.h"
#include "engine/live_object.h"
#include "engine/yaml_json.h"
#include "sources/fake_source.h"
#include "store/memory_store.h"
#include "store/state.h"

namespace fleetwave::actors {
namespace {

using engine::Json;

constexpr const char* kRepo = "file:///repo.git";
constexpr const char* kSha1 = "1111111111111111111111111111111111111111";
constexpr int kGraceSeconds = 60;

// One app per cluster, the app on cN in step N, deleted in Reverse order; `sync_policy` is the
// set's syncPolicy.
std::string AppSetYaml(const std::string& sync_policy = "{}",
                       const std::vector<std::string>& clusters = {"c1", "c2", "c3"}) {
  std::string elements;
  for (const auto& c : clusters) {
    elements += (elements.empty() ? "" : ", ") + std::string("{cluster: ") + c + ", step: '" +
                c.substr(1) + "'}";
  }
  return R"(apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: web}
spec:
  goTemplate: true
  generators:
    - list:
        elements: [)" +
         elements + R"(]
  strategy:
    type: RollingSync
    deletionOrder: Reverse
    rollingSync:
      steps:
        - matchExpressions: [{key: step, operator: In, values: ['1']}]
        - matchExpressions: [{key: step, operator: In, values: ['2']}]
        - matchExpressions: [{key: step, operator: In, values: ['3']}]
  syncPolicy: )" +
         sync_policy + R"(
  template:
    metadata: {name: 'web-{{.cluster}}', labels: {step: '{{.step}}'}}
    spec:
      project: default
      source: {repoURL: file:///repo.git, targetRevision: main, path: web}
      destination: {name: '{{.cluster}}', namespace: shop}
)";
}

std::string OtherYaml() {
  return R"(apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: other}
spec:
  generators:
    - list: {elements: []}
  template:
    metadata: {name: 'other-{{cluster}}'}
    spec:
      project: default
      source: {repoURL: file:///repo.git, targetRevision: main, path: web}
      destination: {name: '{{cluster}}', namespace: shop}
)";
}

std::string Deployment() {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 1\n"
         "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"
         "    spec: {containers: [{name: web, image: web:1}]}\n";
}

engine::ApplicationSet Decode(const std::string& yaml, const std::string& file) {
  engine::LoadedDocuments docs = engine::LoadYamlDocuments(yaml, file);
  EXPECT_TRUE(docs.issues.empty());
  engine::DecodedApplicationSet d = engine::DecodeApplicationSet(docs.documents.at(0), file);
  EXPECT_TRUE(d.issues.empty()) << engine::FormatIssue(d.issues.at(0));
  return *d.appset;
}

// A fake cluster: applies make objects live (healthy), deletes are recorded and take effect
// only when the test says the watch saw them go (Gone).
struct FakeCluster {
  std::vector<ApplyCommandPtr> applies;
  std::vector<DeleteCommandPtr> deletes;
  std::vector<std::pair<LiveSink, std::string>> subscribers;
  std::map<std::string, std::vector<LiveEntry>> live;  // label -> entries
  int resource_version = 100;
};

using Clusters = std::map<std::string, std::shared_ptr<FakeCluster>>;

// The fake's own cue on top of the interface the sets use: report the live state, as a real
// cluster actor does on a watch event.
using FakeClusterHandle = ClusterActor::extend<caf::reacts_to<tick_atom>>;

void Push(FakeClusterHandle::pointer self, const std::string& name, FakeCluster& c) {
  for (const auto& [who, label] : c.subscribers) {
    auto update = std::make_shared<ClusterUpdate>();
    update->cluster = name;
    update->reachable = true;
    update->synced = true;
    update->apps[label] = c.live[label];
    self->send(who, live_atom::value, ClusterUpdatePtr(update));
  }
}

FakeClusterHandle::behavior_type FakeClusterActor(FakeClusterHandle::pointer self, std::string name,
                                                  std::shared_ptr<FakeCluster> c) {
  return {
      [=](subscribe_atom, const std::string& label, const LiveSink& who) {
        c->subscribers.emplace_back(who, label);
        Push(self, name, *c);
      },
      [=](unsubscribe_atom, const std::string&, const LiveSink&) {},
      [=](watch_kind_atom, const std::string&, const std::string&) {},
      [](decide_atom, bool) {},  // leader election only (cluster_pool.h)
      [=](tick_atom) { Push(self, name, *c); },
      [=](apply_atom, ApplyCommandPtr command) -> ApplyReplyPtr {
        c->applies.push_back(command);
        auto reply = std::make_shared<ApplyReply>();
        reply->operation_id = command->operation_id;
        const std::string label = engine::AppLabelValue({command->appset, command->app});
        c->live[label].clear();
        for (const auto& object : command->objects) {
          Json live = object.object;
          live["metadata"]["resourceVersion"] = std::to_string(++c->resource_version);
          live["metadata"]["generation"] = 1;
          live["status"] = {{"observedGeneration", 1}};
          LiveEntry entry;
          entry.object =
              std::make_shared<const engine::LiveObject>(engine::ProjectLiveObject(live));
          entry.health.status = engine::HealthCode::kHealthy;
          c->live[label].push_back(entry);
          reply->results.push_back({object.ref, engine::ObjectResultCode::kSynced, "applied"});
          reply->applied.push_back({object.ref, std::to_string(c->resource_version), 1});
        }
        Push(self, name, *c);
        return reply;
      },
      [=](delete_atom, DeleteCommandPtr command) -> DeleteReplyPtr {
        c->deletes.push_back(command);
        auto reply = std::make_shared<DeleteReply>();
        for (const auto& ref : command->objects) {
          reply->results.push_back({ref, engine::ObjectResultCode::kPruned, "deleted"});
        }
        for (const auto& ref : command->unmark) {
          reply->results.push_back({ref, engine::ObjectResultCode::kSynced, "marks removed"});
        }
        return reply;
      },
  };
}

class DeletionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    source_.SetRevision(kRepo, "main", kSha1);
    source_.SetFiles(kRepo, kSha1, {{"web/deploy.yaml", Deployment()}});
    services_.store = &store_;
    services_.source = &source_;
    services_.pool = &pool_;
    services_.now = [this] { return now_; };
    services_.log = [this](const std::string& line) { log_.push_back(line); };
    services_.publish.appset = [this](const std::string& name, const Json& summary,
                                      std::vector<std::shared_ptr<const Json>>,
                                      const std::map<std::string, std::string>&,
                                      const PublishOrigin*) { status_[name] = summary["status"]; };
    services_.publish.appset_removed = [this](const std::string& name) { status_.erase(name); };
    services_.publish.pending_deletions = [this](const std::string& name, int count) {
      pending_[name] = count;
    };
    for (const char* c : {"c1", "c2", "c3"}) clusters_[c] = std::make_shared<FakeCluster>();
    NewSystem();
  }
  void TearDown() override { StopSystem(); }

  void NewSystem() {
    cfg_ = std::make_unique<caf::actor_system_config>();
    cfg_->set("scheduler.policy", caf::atom("testing"));
    system_ = std::make_unique<caf::actor_system>(*cfg_);
    sched_ = &dynamic_cast<caf::scheduler::test_coordinator&>(system_->scheduler());
  }
  void StopSystem() {
    if (!system_) return;
    if (coordinator_) caf::anon_send(coordinator_, stop_atom::value);
    sched_->run();
    for (auto& [name, actor] : fakes_) caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
    sched_->run();
    fakes_.clear();
    coordinator_ = CoordinatorActor();
    for (auto& [name, c] : clusters_) c->subscribers.clear();
    system_.reset();  // waits for every actor
  }

  DaemonInputs Inputs(std::map<std::string, std::string> files) {
    DaemonInputs in;
    in.config_path = "fleetwave.yaml";
    in.config.deletion_grace_period_seconds = kGraceSeconds;
    for (const auto& [name, c] : clusters_) {
      in.clusters.push_back({name, "https://" + name + ".example", {}});
      clients::ClusterConfig cc;
      cc.name = name;
      cc.server = "https://" + name + ".example";
      in.cluster_configs.push_back(cc);
    }
    for (const auto& [file, yaml] : files) in.files[file].appsets.push_back(Decode(yaml, file));
    return in;
  }

  void Start(DaemonInputs inputs) {
    inputs_ = std::move(inputs);
    CoordinatorConfig config;
    config.services = &services_;
    config.initial = inputs_;
    config.load = [this] { return inputs_; };
    config.spawn_cluster = [this](caf::actor_system& sys, const clients::ClusterConfig& cc) {
      FakeClusterHandle a = sys.spawn(FakeClusterActor, cc.name, clusters_.at(cc.name));
      fakes_[cc.name] = a;
      return ClusterActor(a);
    };
    coordinator_ = SpawnCoordinator(*system_, config);
    sched_->run();
  }

  void Reload(DaemonInputs inputs) {
    inputs_ = std::move(inputs);
    caf::anon_send(coordinator_, reload_atom::value);
    sched_->run();
  }

  // Moves the fake clock and CAF's test clock together, firing the timers now due.
  void Advance(std::chrono::seconds d) {
    now_ += d;
    sched_->advance_time(d);
    sched_->run();
  }

  // The cluster's watch reports every object of every label gone.
  void Gone(const std::string& cluster) {
    for (auto& [label, entries] : clusters_.at(cluster)->live) entries.clear();
    caf::anon_send(fakes_.at(cluster), tick_atom::value);
    sched_->run();
  }

  size_t Deletes(const std::string& cluster) { return clusters_.at(cluster)->deletes.size(); }

  std::optional<Json> SetRecord() {
    store::GetResult r = store_.Get(store::keys::SetDeletion("web"));
    if (!r.ok()) return std::nullopt;
    return Json::parse(r.entry.value);
  }

  bool Logged(const std::string& text) {
    for (const auto& line : log_) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  }

  void RolledOut() {
    Start(Inputs({{"web.yaml", AppSetYaml()}, {"other.yaml", OtherYaml()}}));
    for (const char* c : {"c1", "c2", "c3"}) {
      ASSERT_EQ(clusters_[c]->applies.size(), 1u) << c;
    }
  }

  std::unique_ptr<caf::actor_system_config> cfg_;
  std::unique_ptr<caf::actor_system> system_;
  caf::scheduler::test_coordinator* sched_ = nullptr;
  store::MemoryStore store_;
  sources::FakeSource source_;
  BlockingPool pool_{0};
  engine::Time now_ = engine::FromUnixSeconds(1'800'000'000);
  Services services_;
  std::vector<std::string> log_;
  std::map<std::string, Json> status_;
  std::map<std::string, int> pending_;
  Clusters clusters_;
  std::map<std::string, FakeClusterHandle> fakes_;
  DaemonInputs inputs_;
  CoordinatorActor coordinator_;
};

TEST_F(DeletionTest, AnEmptyDirectoryOrAFailedKubeconfigMarksNothing) {
  RolledOut();
  {
    SCOPED_TRACE("empty directory");
    Reload(Inputs({}));
    EXPECT_FALSE(SetRecord());
    EXPECT_TRUE(Logged("is empty; the ApplicationSets loaded before stay in force"));
  }
  {
    SCOPED_TRACE("kubeconfig failed to load, and the set's file is gone meanwhile");
    DaemonInputs failed = Inputs({{"other.yaml", OtherYaml()}});
    failed.config_errors.push_back("kubeconfig: cannot read");
    Reload(failed);
    EXPECT_FALSE(SetRecord());
  }
  Advance(std::chrono::seconds(kGraceSeconds * 3));
  EXPECT_FALSE(SetRecord());
  for (const char* c : {"c1", "c2", "c3"}) EXPECT_EQ(Deletes(c), 0u) << c;
  EXPECT_TRUE(status_.count("web"));
}

TEST_F(DeletionTest, GraceThenReverseOrderStepByStepAsTheWatchShowsObjectsGone) {
  RolledOut();
  Reload(Inputs({{"other.yaml", OtherYaml()}}));
  auto record = SetRecord();
  ASSERT_TRUE(record);
  EXPECT_EQ((*record)["phase"], "PendingDeletion");
  EXPECT_EQ(status_["web"]["deletion"]["phase"], "PendingDeletion") << status_["web"].dump();
  EXPECT_EQ(pending_["web"], 3);

  Advance(std::chrono::seconds(kGraceSeconds - 1));
  for (const char* c : {"c1", "c2", "c3"}) EXPECT_EQ(Deletes(c), 0u) << "deleted in the grace";

  Advance(std::chrono::seconds(1));
  EXPECT_EQ((*SetRecord())["phase"], "Deleting");
  EXPECT_EQ((*SetRecord())["step"], 3);
  ASSERT_EQ(Deletes("c3"), 1u);
  EXPECT_EQ(clusters_["c3"]->deletes[0]->objects.size(), 1u);
  EXPECT_TRUE(clusters_["c3"]->deletes[0]->unmark.empty());
  EXPECT_EQ(Deletes("c2"), 0u) << "step 2 before step 3's objects are gone";
  EXPECT_EQ(Deletes("c1"), 0u);

  Gone("c3");
  EXPECT_EQ((*SetRecord())["step"], 2);
  EXPECT_EQ(Deletes("c2"), 1u);
  EXPECT_EQ(Deletes("c1"), 0u);
  Gone("c2");
  EXPECT_EQ(Deletes("c1"), 1u);
  Gone("c1");

  EXPECT_FALSE(SetRecord());
  EXPECT_FALSE(store_.Get(store::keys::AppStatus("web", "web-c1")).ok());
  EXPECT_FALSE(status_.count("web"));
  EXPECT_TRUE(Logged("appset=web deleted"));
  for (const char* c : {"c1", "c2", "c3"}) EXPECT_EQ(Deletes(c), 1u) << "deleted twice";
}

TEST_F(DeletionTest, ReappearanceCancelsThePendingDeletion) {
  RolledOut();
  Reload(Inputs({{"other.yaml", OtherYaml()}}));
  ASSERT_TRUE(SetRecord());
  Advance(std::chrono::seconds(10));
  Reload(Inputs({{"web.yaml", AppSetYaml()}, {"other.yaml", OtherYaml()}}));
  EXPECT_FALSE(SetRecord());
  Advance(std::chrono::seconds(kGraceSeconds * 2));
  for (const char* c : {"c1", "c2", "c3"}) EXPECT_EQ(Deletes(c), 0u) << c;
  EXPECT_TRUE(Logged("is defined again: its pending deletion is cancelled"));
}

TEST_F(DeletionTest, ARestartFromTheStoreContinuesTheSamePhaseAndOrder) {
  RolledOut();
  Reload(Inputs({{"other.yaml", OtherYaml()}}));
  Advance(std::chrono::seconds(kGraceSeconds));
  ASSERT_EQ(Deletes("c3"), 1u);
  Gone("c3");
  ASSERT_EQ(Deletes("c2"), 1u);

  // The process dies here (c2's objects still live); a new one starts without the set's file.
  StopSystem();
  NewSystem();
  Start(Inputs({{"other.yaml", OtherYaml()}}));
  EXPECT_EQ((*SetRecord())["phase"], "Deleting");
  EXPECT_EQ(Deletes("c3"), 1u) << "a gone step is not deleted again";
  EXPECT_EQ(Deletes("c2"), 2u) << "the step in progress is asked again";
  EXPECT_EQ(Deletes("c1"), 0u) << "the earlier step still waits";
  Gone("c2");
  EXPECT_EQ(Deletes("c1"), 1u);
  Gone("c1");
  EXPECT_FALSE(SetRecord());
}

TEST_F(DeletionTest, TheApiDeletesAPendingSetAtOnce) {
  RolledOut();
  Reload(Inputs({{"other.yaml", OtherYaml()}}));
  caf::anon_send(coordinator_, delete_atom::value, std::string("web"), std::string("1.2.3.4:5"));
  sched_->run();
  EXPECT_EQ((*SetRecord())["phase"], "Deleting");
  EXPECT_EQ(Deletes("c3"), 1u);
  EXPECT_TRUE(Logged("deletion requested by 1.2.3.4:5"));
}

TEST_F(DeletionTest, PreserveResourcesOnDeletionOnlyRemovesTheTrackingMarks) {
  Start(Inputs({{"web.yaml", AppSetYaml("{preserveResourcesOnDeletion: true}")},
                {"other.yaml", OtherYaml()}}));
  Reload(Inputs({{"other.yaml", OtherYaml()}}));
  Advance(std::chrono::seconds(kGraceSeconds));
  ASSERT_EQ(Deletes("c3"), 1u);
  EXPECT_TRUE(clusters_["c3"]->deletes[0]->objects.empty());
  EXPECT_EQ(clusters_["c3"]->deletes[0]->unmark.size(), 1u);
}

TEST_F(DeletionTest, AnAppNoLongerGeneratedIsDeletedAfterTheGraceAlone) {
  RolledOut();
  Reload(Inputs({{"web.yaml", AppSetYaml("{}", {"c1", "c2"})}, {"other.yaml", OtherYaml()}}));
  EXPECT_TRUE(store_.Get(store::keys::AppDeletion("web", "web-c3")).ok());
  EXPECT_EQ(pending_["web"], 1);
  Advance(std::chrono::seconds(kGraceSeconds - 1));
  EXPECT_EQ(Deletes("c3"), 0u);
  Advance(std::chrono::seconds(1));
  ASSERT_EQ(Deletes("c3"), 1u);
  Gone("c3");
  EXPECT_FALSE(store_.Get(store::keys::AppDeletion("web", "web-c3")).ok());
  EXPECT_EQ(pending_["web"], 0);
  EXPECT_EQ(Deletes("c1"), 0u);
  EXPECT_EQ(Deletes("c2"), 0u);
}

TEST_F(DeletionTest, AContextGoneFromTheKubeconfigMarksItsAppAndItsClusterStaysForTheDeletion) {
  Start(Inputs({{"other.yaml", OtherYaml()}, {"web.yaml", R"(apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: web}
spec:
  generators:
    - clusters: {}
  template:
    metadata: {name: 'web-{{name}}'}
    spec:
      project: default
      source: {repoURL: file:///repo.git, targetRevision: main, path: web}
      destination: {name: '{{name}}', namespace: shop}
      syncPolicy: {automated: {}}
)"}}));
  ASSERT_EQ(clusters_["c3"]->applies.size(), 1u);
  DaemonInputs without_c3 = inputs_;
  without_c3.clusters.pop_back();
  without_c3.cluster_configs.pop_back();
  Reload(without_c3);
  EXPECT_TRUE(store_.Get(store::keys::AppDeletion("web", "web-c3")).ok());
  Advance(std::chrono::seconds(kGraceSeconds - 1));
  EXPECT_EQ(Deletes("c3"), 0u);
  Advance(std::chrono::seconds(1));
  ASSERT_EQ(Deletes("c3"), 1u) << "the retired cluster actor still deletes";
  Gone("c3");
  EXPECT_FALSE(store_.Get(store::keys::AppDeletion("web", "web-c3")).ok());
}

TEST_F(DeletionTest, AnAppGeneratedAgainWhileDeletingIsCancelledNotFoughtOver) {
  RolledOut();
  Reload(Inputs({{"web.yaml", AppSetYaml("{}", {"c1", "c2"})}, {"other.yaml", OtherYaml()}}));
  Advance(std::chrono::seconds(kGraceSeconds));
  ASSERT_EQ(Deletes("c3"), 1u);  // its objects are still live: the deletion waits for them
  Reload(Inputs({{"web.yaml", AppSetYaml()}, {"other.yaml", OtherYaml()}}));
  EXPECT_FALSE(store_.Get(store::keys::AppDeletion("web", "web-c3")).ok());
  EXPECT_TRUE(Logged("app=web-c3 is generated again: its pending deletion is cancelled"));
  Advance(std::chrono::seconds(kGraceSeconds));
  EXPECT_EQ(Deletes("c3"), 1u) << "deleted again after the cancel";
  EXPECT_EQ(pending_["web"], 0);
}

// The deletion actor alone, its stored records read before the coordinator's cluster map
// arrives: nothing may be judged orphaned (and the deletion ended) from an empty map.
TEST_F(DeletionTest, NoRoundRunsBeforeTheClusterMapArrives) {
  engine::DeletionRecord r = engine::MarkPending(now_, std::chrono::seconds(0), "test");
  r.phase = engine::DeletionPhase::kDeleting;
  r.apps = {{"web-c1", "c1", {}, {{"apps/v1", "Deployment"}}}};
  ASSERT_TRUE(
      store::State(store_)
          .Commit(store::StateBatch().PutDeletion("web", "", engine::EncodeDeletionRecord(r)))
          .ok());
  const std::string label = engine::AppLabelValue({"web", "web-c1"});
  LiveEntry entry;
  engine::LiveObject object;
  object.ref = {"apps", "Deployment", "shop", "web"};
  object.annotations[engine::kTrackingIdAnnotation] =
      engine::TrackingId({"web", "web-c1"}, object.ref);
  entry.object = std::make_shared<const engine::LiveObject>(std::move(object));
  clusters_["c1"]->live[label] = {entry};
  FakeClusterHandle fake = system_->spawn(FakeClusterActor, std::string("c1"), clusters_["c1"]);
  fakes_["c1"] = fake;
  // Spawned with an argument: CAF 0.17 dereferences a null argument tuple for a function actor
  // spawned without one, which UBSan stops on.
  DeletionParent coordinator = system_->spawn(
      [](DeletionParent::pointer, int) -> DeletionParent::behavior_type {
        return {[](deleted_atom, const std::string&) {},
                [](needs_atom, const std::vector<std::string>&) {}};
      },
      0);
  DeletionActorConfig config;
  config.services = &services_;
  DeletionActor deleter = SpawnDeletionActor(*system_, coordinator, config);
  sched_->run();
  EXPECT_TRUE(SetRecord()) << "ended without a cluster map";
  EXPECT_EQ(Deletes("c1"), 0u);

  auto map = std::make_shared<ClusterMap>();
  map->emplace("c1", ClusterActor(fake));
  caf::anon_send(deleter, clusters_atom::value, ClusterMapPtr(map), true);
  sched_->run();
  EXPECT_EQ(Deletes("c1"), 1u);
  EXPECT_TRUE(SetRecord());
  caf::anon_send_exit(deleter, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(coordinator, caf::exit_reason::user_shutdown);
  sched_->run();
}

}  // namespace
}  // namespace fleetwave::actors
