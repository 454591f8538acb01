// The coordinator and appset actors' message protocols on CAF's deterministic test scheduler:
// promotion in step order through apply commands and their results, the restart of a failed
// appset actor from the store, and a reload that changes the set. Cluster actors are fakes that
// record apply commands and push live data the test controls; the store is a MemoryStore and
// git a FakeSource; the blocking pool runs jobs inline, so every message waits in a mailbox
// for the test scheduler and nothing depends on timing.
#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include <gtest/gtest.h>

#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "actors/atoms.h"
#include "actors/blocking_pool.h"
#include "actors/coordinator.h"
#include "actors/services.h"
#include "engine/appset/appset.h"
#include "engine/live_object.h"
#include "engine/operator_command.h"
#include "engine/rollingsync/rollback_state.h"
#include "engine/sync/operation_record.h"
#include "engine/yaml_json.h"
#include "sources/fake_source.h"
#include "store/memory_store.h"
#include "store/state.h"

namespace fleetwave::actors {
namespace {

using engine::Json;

constexpr const char* kRepo = "file:///repo.git";
constexpr const char* kSha1 = "1111111111111111111111111111111111111111";
constexpr const char* kSha2 = "2222222222222222222222222222222222222222";

std::string AppSetYaml(const std::string& image_note = "") {
  return R"(apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: web)" +
         image_note +
         R"(}
spec:
  goTemplate: true
  generators:
    - list:
        elements:
          - {cluster: dev, env: dev}
          - {cluster: qa, env: qa}
  strategy:
    type: RollingSync
    rollingSync:
      steps:
        - matchExpressions: [{key: env, operator: In, values: [dev]}]
        - matchExpressions: [{key: env, operator: In, values: [qa]}]
  template:
    metadata: {name: 'web-{{.cluster}}', labels: {env: '{{.env}}'}}
    spec:
      project: default
      source: {repoURL: file:///repo.git, targetRevision: main, path: web}
      destination: {name: '{{.cluster}}', namespace: shop}
)";
}

// The set generating only the dev app: web-qa leaves it.
std::string DevOnlyAppSetYaml() {
  std::string yaml = AppSetYaml();
  const std::string qa = "          - {cluster: qa, env: qa}\n";
  yaml.erase(yaml.find(qa), qa.size());
  return yaml;
}

std::string Deployment(const std::string& image) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 1\n"
         "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"
         "    spec: {containers: [{name: web, image: " +
         image + "}]}\n";
}

engine::ApplicationSet Decode(const std::string& yaml) {
  engine::LoadedDocuments docs = engine::LoadYamlDocuments(yaml, "web.yaml");
  EXPECT_TRUE(docs.issues.empty());
  engine::DecodedApplicationSet d = engine::DecodeApplicationSet(docs.documents.at(0), "web.yaml");
  EXPECT_TRUE(d.issues.empty()) << engine::FormatIssue(d.issues.at(0));
  return *d.appset;
}

// What the fake cluster actors saw and what they report, shared with the test body.
struct FakeCluster {
  std::vector<ApplyCommandPtr> applies;
  LiveSink subscriber;
  std::string label;
  std::vector<LiveEntry> live;
  bool healthy_after_apply = false;
  int resource_version = 100;
  // False: the cluster's watches have not listed yet (a daemon that just started): updates
  // say neither reachable nor synced.
  bool listed = true;
  // True: apply commands are held unanswered in `held` until the test delivers them.
  bool hold_applies = false;
  std::vector<caf::response_promise> held;
  // The labels subscribed at each of the cluster's actors (a replaced actor's stay listed).
  std::map<caf::actor_id, std::set<std::string>> subscriptions;
};

using Clusters = std::map<std::string, std::shared_ptr<FakeCluster>>;

// The fake's own cues on top of the interface the sets use: tick (report the live state, as a
// real cluster actor does on a watch event) and release (fail every held apply).
using FakeClusterHandle =
    ClusterActor::extend<caf::reacts_to<tick_atom>, caf::reacts_to<release_atom>>;

void Push(FakeClusterHandle::pointer self, const std::string& name, FakeCluster& c) {
  if (!c.subscriber) return;
  auto update = std::make_shared<ClusterUpdate>();
  update->cluster = name;
  update->reachable = c.listed;
  update->synced = c.listed;
  update->apps[c.label] = c.live;
  self->send(c.subscriber, live_atom::value, ClusterUpdatePtr(update));
}

FakeClusterHandle::behavior_type FakeClusterActor(FakeClusterHandle::pointer self, std::string name,
                                                  std::shared_ptr<FakeCluster> c) {
  return {
      [=](subscribe_atom, const std::string& label, const LiveSink& who) {
        c->subscriber = who;
        c->label = label;
        c->subscriptions[self->id()].insert(label);
        Push(self, name, *c);
      },
      [=](unsubscribe_atom, const std::string& label, const LiveSink&) {
        c->subscriptions[self->id()].erase(label);
      },
      [=](delete_atom, DeleteCommandPtr) -> DeleteReplyPtr {
        return std::make_shared<DeleteReply>();  // these tests delete nothing
      },
      // The test's cue to report the live state, as a real cluster actor does on a watch event:
      // only to a set subscribed at this very actor.
      [](decide_atom, bool) {},  // leader election only (cluster_pool.h)
      [=](tick_atom) {
        if (c->subscriptions[self->id()].count(c->label) > 0) Push(self, name, *c);
      },
      // The test's cue to fail every held apply (a promise is delivered from inside its actor).
      [=](release_atom) {
        for (auto& promise : c->held)
          promise.deliver(caf::make_error(caf::sec::request_receiver_down));
        c->held.clear();
      },
      [=](watch_kind_atom, const std::string&, const std::string&) {},
      [=](apply_atom, ApplyCommandPtr command) -> caf::result<ApplyReplyPtr> {
        c->applies.push_back(command);
        if (c->hold_applies) {
          c->held.push_back(self->make_response_promise());
          return caf::delegated<ApplyReplyPtr>();
        }
        auto reply = std::make_shared<ApplyReply>();
        reply->operation_id = command->operation_id;
        c->live.clear();
        for (const auto& object : command->objects) {
          Json live = object.object;
          live["metadata"]["resourceVersion"] = std::to_string(++c->resource_version);
          live["metadata"]["generation"] = 1;
          live["status"] = {{"observedGeneration", 1}};
          LiveEntry entry;
          entry.object =
              std::make_shared<const engine::LiveObject>(engine::ProjectLiveObject(live));
          entry.health.status = c->healthy_after_apply ? engine::HealthCode::kHealthy
                                                       : engine::HealthCode::kProgressing;
          c->live.push_back(entry);
          reply->results.push_back({object.ref, engine::ObjectResultCode::kSynced, "applied"});
          reply->applied.push_back({object.ref, std::to_string(c->resource_version), 1});
        }
        Push(self, name, *c);
        return reply;
      },
  };
}

class AppSetActorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    source_.SetRevision(kRepo, "main", kSha1);
    source_.SetFiles(kRepo, kSha1, {{"web/deploy.yaml", Deployment("web:1")}});
    services_.store = &store_;
    services_.source = &source_;
    services_.pool = &pool_;
    services_.now = [this] { return now_; };
    services_.log = [this](const std::string& line) { log_.push_back(line); };
    services_.publish.appset = [this](const std::string&, const Json& summary,
                                      std::vector<std::shared_ptr<const Json>> apps,
                                      const std::map<std::string, std::string>&,
                                      const PublishOrigin*) {
      status_ = summary["status"];
      for (const auto& app : apps) apps_[(*app)["metadata"]["name"].get<std::string>()] = *app;
    };
    clusters_["dev"] = std::make_shared<FakeCluster>();
    clusters_["qa"] = std::make_shared<FakeCluster>();
    cfg_.set("scheduler.policy", caf::atom("testing"));
    system_ = std::make_unique<caf::actor_system>(cfg_);
    sched_ = &dynamic_cast<caf::scheduler::test_coordinator&>(system_->scheduler());
  }
  void TearDown() override {
    if (coordinator_) caf::anon_send(coordinator_, stop_atom::value);
    sched_->run();
    for (auto& [name, actor] : fakes_) caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
    sched_->run();
  }

  DaemonInputs Inputs(const std::string& yaml) {
    DaemonInputs in;
    in.config_path = "fleetwave.yaml";
    in.clusters = {{"dev", "https://dev.example", {}}, {"qa", "https://qa.example", {}}};
    for (const auto& c : in.clusters) {
      clients::ClusterConfig cc;
      cc.name = c.name;
      cc.server = c.server;
      in.cluster_configs.push_back(cc);
    }
    in.files["web.yaml"].appsets.push_back(Decode(yaml));
    return in;
  }

  void Start(const std::string& yaml) {
    inputs_ = Inputs(yaml);
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

  // The set's ErrorOccurred condition as last published; null when it has none.
  Json ErrorOccurred() const {
    if (!status_.is_object() || !status_.contains("conditions")) return nullptr;
    for (const auto& c : status_["conditions"]) {
      if (c["type"] == "ErrorOccurred") return c;
    }
    return nullptr;
  }

  // A repository whose directories name the clusters (read by GitDirectoriesAppSetYaml's git
  // generator only; the apps read kRepo). Returns its URL.
  std::string ServeClustersRepository() {
    const std::string url = "file:///clusters.git";
    source_.SetRevision(url, "main", kSha2);
    source_.SetFiles(url, kSha2, {{"dev/cluster.yaml", "{}\n"}, {"qa/cluster.yaml", "{}\n"}});
    return url;
  }

  // AppSetYaml with a git directories generator over ServeClustersRepository instead of its
  // list: the same apps, each on the cluster its directory names.
  static std::string GitDirectoriesAppSetYaml() {
    std::string yaml = AppSetYaml();
    const std::string list =
        "    - list:\n        elements:\n          - {cluster: dev, env: dev}\n"
        "          - {cluster: qa, env: qa}\n";
    const size_t found = yaml.find(list);
    EXPECT_NE(found, std::string::npos);
    if (found == std::string::npos) return yaml;
    yaml.replace(found, list.size(),
                 "    - git: {repoURL: 'file:///clusters.git', revision: main, directories: "
                 "[{path: '*'}]}\n");
    for (const std::string field : {".cluster", ".env"}) {
      for (size_t at = yaml.find(field + "}}"); at != std::string::npos;
           at = yaml.find(field + "}}")) {
        yaml.replace(at, field.size(), ".path.basename");
      }
    }
    return yaml;
  }

  std::string AppStatus(const std::string& app) {
    for (const auto& e : status_["applicationStatus"]) {
      if (e["application"] == app) return e["status"].get<std::string>();
    }
    return "";
  }

  // Marks a cluster's live objects Healthy and lets every actor react.
  void BecomeHealthy(const std::string& cluster) {
    auto& c = *clusters_.at(cluster);
    for (auto& e : c.live) e.health.status = engine::HealthCode::kHealthy;
    caf::anon_send(fakes_.at(cluster), subscribe_atom::value, c.label, c.subscriber);
    sched_->run();
  }

  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> system_;
  caf::scheduler::test_coordinator* sched_ = nullptr;
  store::MemoryStore store_;
  sources::FakeSource source_;
  BlockingPool pool_{0};
  engine::Time now_ = engine::FromUnixSeconds(1'800'000'000);
  Services services_;
  std::vector<std::string> log_;
  // An operator's command as the API sends it (a request to the coordinator) and the answer
  // the deciding actor gave, once every actor has run.
  template <typename... Ts>
  std::optional<engine::CommandAnswer> Ask(Ts... xs) {
    auto out = std::make_shared<std::optional<engine::CommandAnswer>>();
    CoordinatorActor coordinator = coordinator_;
    // The spawned function takes an argument: CAF 0.17 spawns an argument-less function actor
    // through a null tuple, which UBSan stops on.
    system_->spawn(
        [=](caf::event_based_actor* self, int /*unused*/) -> caf::behavior {
          self->request(coordinator, caf::infinite, xs...)
              .then(
                  [=](const engine::CommandAnswer& a) {
                    *out = a;
                    self->quit();
                  },
                  [=](caf::error&) { self->quit(); });
          return {[](int) {}};
        },
        0);
    sched_->run();
    return *out;
  }

  Json status_;
  std::map<std::string, Json> apps_;  // the Applications last published, by name
  Clusters clusters_;
  std::map<std::string, FakeClusterHandle> fakes_;
  DaemonInputs inputs_;
  CoordinatorActor coordinator_;
};

TEST_F(AppSetActorTest, StepTwoIsAppliedOnlyAfterStepOneIsHealthy) {
  Start(AppSetYaml());
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u);
  EXPECT_EQ(clusters_["dev"]->applies[0]->app, "web-dev");
  EXPECT_TRUE(clusters_["qa"]->applies.empty()) << "step 2 applied while step 1 progresses";
  EXPECT_EQ(AppStatus("web-dev"), "Progressing");
  EXPECT_EQ(AppStatus("web-qa"), "Waiting");

  BecomeHealthy("dev");
  EXPECT_EQ(AppStatus("web-dev"), "Healthy");
  ASSERT_EQ(clusters_["qa"]->applies.size(), 1u);
  EXPECT_EQ(clusters_["qa"]->applies[0]->app, "web-qa");

  BecomeHealthy("qa");
  EXPECT_EQ(AppStatus("web-qa"), "Healthy");
  bool completed = false;
  for (const auto& c : status_["conditions"]) {
    completed = completed || c["message"] == "ApplicationSet Rollout has completed";
  }
  EXPECT_TRUE(completed) << status_.dump(2);
  // Nothing is applied twice.
  EXPECT_EQ(clusters_["dev"]->applies.size(), 1u);
  EXPECT_EQ(clusters_["qa"]->applies.size(), 1u);
}

TEST_F(AppSetActorTest, AFailedAppSetActorIsRestartedFromTheStoreWithoutReapplying) {
  Start(AppSetYaml());
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u);
  BecomeHealthy("dev");
  ASSERT_EQ(clusters_["qa"]->applies.size(), 1u);

  // Kill the appset actor the way a bug would (an unhandled exception's exit reason).
  caf::actor appset = caf::actor_cast<caf::actor>(clusters_["dev"]->subscriber);
  ASSERT_TRUE(appset);
  caf::anon_send_exit(appset, caf::exit_reason::unhandled_exception);
  sched_->run();

  bool restarted = false;
  for (const auto& line : log_) {
    restarted = restarted || line.find("appset=web actor failed") != std::string::npos;
  }
  EXPECT_TRUE(restarted);
  EXPECT_NE(caf::actor_cast<caf::actor>(clusters_["dev"]->subscriber), appset)
      << "the new actor subscribes again";
  // The new actor reads the rollout back from the store: nothing re-applied, state kept.
  EXPECT_EQ(clusters_["dev"]->applies.size(), 1u);
  EXPECT_EQ(clusters_["qa"]->applies.size(), 1u);
  EXPECT_EQ(AppStatus("web-dev"), "Healthy");
  EXPECT_EQ(AppStatus("web-qa"), "Progressing");
}

TEST_F(AppSetActorTest, ASyncInterruptedByACrashResumesWithoutReapplyingWhatTheClusterHas) {
  Start(AppSetYaml());
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u);

  // As if the process died after the apply and before recording its end: the stored operation
  // is Running again.
  const std::string key = store::keys::Operation("web", "web-dev");
  store::GetResult stored = store_.Get(key);
  ASSERT_TRUE(stored.ok());
  engine::Issues issues;
  auto record = engine::OperationRecordFromJson(Json::parse(stored.entry.value), issues);
  ASSERT_TRUE(record.has_value());
  ASSERT_EQ(record->phase, engine::OperationPhase::kSucceeded);
  record->phase = engine::OperationPhase::kRunning;
  record->finished_at.reset();
  ASSERT_TRUE(store_.Put(key, engine::OperationRecordToJson(*record).dump()).ok());

  caf::actor appset = caf::actor_cast<caf::actor>(clusters_["dev"]->subscriber);
  caf::anon_send_exit(appset, caf::exit_reason::unhandled_exception);
  sched_->run();

  // The new actor resumed the operation once the cluster's live objects arrived: they carry
  // the applied hash, so nothing was sent again, and the operation ended.
  EXPECT_EQ(clusters_["dev"]->applies.size(), 1u);
  stored = store_.Get(key);
  ASSERT_TRUE(stored.ok());
  record = engine::OperationRecordFromJson(Json::parse(stored.entry.value), issues);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->phase, engine::OperationPhase::kSucceeded);
}

TEST_F(AppSetActorTest, APausedRolloutPromotesNothingUntilResumedAndASkipOpensTheNextStep) {
  Start(AppSetYaml());
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u);
  caf::anon_send(coordinator_, pause_atom::value, std::string("web"), std::string("test"));
  sched_->run();
  EXPECT_EQ(status_["rollout"]["paused"], true) << status_.dump(2);

  // Step 1 completes while paused: step 2 waits for the resume.
  BecomeHealthy("dev");
  EXPECT_TRUE(clusters_["qa"]->applies.empty()) << "promoted while paused";
  now_ += std::chrono::seconds(30);
  caf::anon_send(coordinator_, resume_atom::value, std::string("web"), std::string("test"));
  sched_->run();
  EXPECT_FALSE(status_["rollout"].value("paused", false));
  ASSERT_EQ(clusters_["qa"]->applies.size(), 1u);

  // Skipping the step-2 app that never becomes healthy completes the rollout.
  caf::anon_send(coordinator_, skip_atom::value, std::string("web"), std::string("web-qa"),
                 std::string("qa cluster is being rebuilt"), std::string("test"));
  sched_->run();
  EXPECT_EQ(status_["rollout"]["skipped"]["web-qa"], "qa cluster is being rebuilt");
  bool logged = false;
  for (const auto& line : log_) {
    logged = logged || line.find("app=web-qa skipped (qa cluster is being rebuilt) by test") !=
                           std::string::npos;
  }
  EXPECT_TRUE(logged);
}

// A restart (here: the appset actor re-spawned from the store) whose clusters have not listed
// yet must not read their apps' Unknown health as step 1 re-opening: that would restart step
// 2's clock (RollingSync §7: the step clock survives restarts). Pinned in the engine by
// AppSetReconcileTest.UnobservedClusterNeverReopensAStepOrRestartsItsClock.
TEST_F(AppSetActorTest, ARestartBeforeTheClustersListedKeepsTheStepAndItsClock) {
  Start(AppSetYaml());
  BecomeHealthy("dev");
  ASSERT_EQ(status_["rollout"]["step"], 2) << status_.dump(2);
  const Json started = status_["rollout"]["stepStartedAt"];
  ASSERT_TRUE(started.is_string());

  now_ += std::chrono::seconds(20);
  for (auto& [name, c] : clusters_) c->listed = false;
  caf::actor appset = caf::actor_cast<caf::actor>(clusters_["dev"]->subscriber);
  caf::anon_send_exit(appset, caf::exit_reason::unhandled_exception);
  sched_->run();
  ASSERT_NE(caf::actor_cast<caf::actor>(clusters_["dev"]->subscriber), appset);
  EXPECT_EQ(status_["rollout"]["step"], 2) << status_.dump(2);
  EXPECT_EQ(status_["rollout"]["stepStartedAt"], started);

  // The clusters list: the rollout goes on at step 2 on the same clock.
  now_ += std::chrono::seconds(1);
  for (auto& [name, c] : clusters_) c->listed = true;
  BecomeHealthy("dev");
  EXPECT_EQ(status_["rollout"]["step"], 2) << status_.dump(2);
  EXPECT_EQ(status_["rollout"]["stepStartedAt"], started);
  for (const auto& line : log_) EXPECT_EQ(line.find("re-opened"), std::string::npos) << line;
}

TEST_F(AppSetActorTest, AReloadWithANewCommitRerollsFromStepOne) {
  clusters_["dev"]->healthy_after_apply = true;
  clusters_["qa"]->healthy_after_apply = true;
  Start(AppSetYaml());
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u);
  ASSERT_EQ(clusters_["qa"]->applies.size(), 1u);

  // A new commit with another image; the coordinator reloads and the set re-reconciles.
  clusters_["qa"]->healthy_after_apply = false;
  clusters_["dev"]->healthy_after_apply = false;
  source_.SetRevision(kRepo, "main", kSha2);
  source_.SetFiles(kRepo, kSha2, {{"web/deploy.yaml", Deployment("web:2")}});
  now_ += std::chrono::seconds(10);
  caf::anon_send(coordinator_, reload_atom::value);
  sched_->run();
  ASSERT_EQ(clusters_["dev"]->applies.size(), 2u);
  EXPECT_EQ(clusters_["qa"]->applies.size(), 1u) << "qa gets the new commit only after dev";
  const auto& image = clusters_["dev"]->applies[1]->objects.at(0).object["spec"]["template"]["spec"]
                                                                        ["containers"][0]["image"];
  EXPECT_EQ(image, "web:2");

  BecomeHealthy("dev");
  EXPECT_EQ(clusters_["qa"]->applies.size(), 2u);
}

// issue 31: the apply's error handler ran after a new commit had replaced the generation its
// app pointed into and read the cluster's name through that pointer (a use-after-free ASan
// reports). The failure must name the cluster it was sent to.
TEST_F(AppSetActorTest, AnApplyThatFailsAfterANewCommitReplacedTheGenerationNamesItsCluster) {
  clusters_["dev"]->hold_applies = true;
  Start(AppSetYaml());
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u);
  ASSERT_EQ(clusters_["dev"]->held.size(), 1u);

  source_.SetRevision(kRepo, "main", kSha2);
  source_.SetFiles(kRepo, kSha2, {{"web/deploy.yaml", Deployment("web:2")}});
  now_ += std::chrono::seconds(10);
  caf::anon_send(coordinator_, reload_atom::value);
  sched_->run();

  caf::anon_send(fakes_.at("dev"), release_atom::value);
  sched_->run();
  bool named = false;
  for (const auto& line : log_)
    named |= line.find("cluster dev did not answer") != std::string::npos;
  EXPECT_TRUE(named) << "the failed attempt names the cluster it was sent to";
}

// Issue 31: a cluster actor replaced while the daemon runs (here its context's token changed;
// a crash restart is the same message) starts with no subscribers. The set subscribes at the
// new actor, whose reports then drive the rollout; without that, the set would decide on what
// the stopped actor last said, forever.
TEST_F(AppSetActorTest, AReplacedClusterActorIsSubscribedAtAndItsReportsDriveTheRollout) {
  Start(AppSetYaml());
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u);
  const FakeClusterHandle old_dev = fakes_.at("dev");
  const std::string label = clusters_["dev"]->label;

  inputs_.cluster_configs.at(0).token = "rotated";
  now_ += std::chrono::seconds(10);
  caf::anon_send(coordinator_, reload_atom::value);
  sched_->run();
  const FakeClusterHandle new_dev = fakes_.at("dev");
  ASSERT_NE(new_dev, old_dev) << "the changed context got a new actor";
  EXPECT_EQ(clusters_["dev"]->subscriptions[new_dev.id()], std::set<std::string>{label})
      << "the set never subscribed at the new actor";

  // Only the new actor reports: dev turns Healthy and step 2 is applied.
  for (auto& e : clusters_["dev"]->live) e.health.status = engine::HealthCode::kHealthy;
  caf::anon_send(new_dev, tick_atom::value);
  sched_->run();
  EXPECT_EQ(AppStatus("web-dev"), "Healthy");
  EXPECT_EQ(clusters_["qa"]->applies.size(), 1u) << "step 2 waits on a report that never comes";
}

// Issue 31: an app that leaves the set (its generator element went) is unsubscribed from its
// cluster, which then stops sending its live objects to the set; one still generated keeps
// its subscription.
TEST_F(AppSetActorTest, AnAppThatLeavesTheSetIsUnsubscribedFromItsCluster) {
  clusters_["dev"]->healthy_after_apply = true;
  clusters_["qa"]->healthy_after_apply = true;
  Start(AppSetYaml());
  ASSERT_EQ(clusters_["qa"]->applies.size(), 1u);
  const std::string qa_label = clusters_["qa"]->label;
  const std::string dev_label = clusters_["dev"]->label;
  ASSERT_EQ(clusters_["qa"]->subscriptions[fakes_.at("qa").id()], std::set<std::string>{qa_label});

  inputs_ = Inputs(DevOnlyAppSetYaml());
  now_ += std::chrono::seconds(10);
  caf::anon_send(coordinator_, reload_atom::value);
  sched_->run();
  EXPECT_TRUE(clusters_["qa"]->subscriptions[fakes_.at("qa").id()].empty())
      << "web-qa left the set and is still subscribed at qa";
  EXPECT_EQ(clusters_["dev"]->subscriptions[fakes_.at("dev").id()],
            std::set<std::string>{dev_label});
}

TEST_F(AppSetActorTest, AnUnchangedRenderAtANewCommitAppliesNothing) {
  clusters_["dev"]->healthy_after_apply = true;
  clusters_["qa"]->healthy_after_apply = true;
  Start(AppSetYaml());
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u);
  ASSERT_EQ(clusters_["qa"]->applies.size(), 1u);

  source_.SetRevision(kRepo, "main", kSha2);
  source_.SetFiles(kRepo, kSha2, {{"web/deploy.yaml", Deployment("web:1")}});
  now_ += std::chrono::seconds(10);
  caf::anon_send(coordinator_, reload_atom::value);
  sched_->run();
  EXPECT_EQ(clusters_["dev"]->applies.size(), 1u);
  EXPECT_EQ(clusters_["qa"]->applies.size(), 1u);
  for (const auto& e : status_["applicationStatus"]) {
    EXPECT_EQ(e["targetRevisions"], Json::array({kSha2})) << "the pin moves without a sync";
    EXPECT_EQ(e["status"], "Healthy");
  }
}

// A git poll that finds the commit the set was generated from keeps that generation (no
// re-generation, no render lookups: fleet_bench's idle figures) and changes nothing; the poll
// after a new commit still sees it, renders it and rolls it out from step 1.
TEST_F(AppSetActorTest, APollAtTheSameCommitChangesNothingAndTheNextCommitIsRolledOut) {
  clusters_["dev"]->healthy_after_apply = true;
  clusters_["qa"]->healthy_after_apply = true;
  Start(AppSetYaml());
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u);
  ASSERT_EQ(clusters_["qa"]->applies.size(), 1u);
  const Json reconciled = status_["applicationStatus"];
  auto resolves = [this] {
    size_t n = 0;
    for (const auto& call : source_.calls()) n += call.rfind("resolve ", 0) == 0 ? 1 : 0;
    return n;
  };
  const size_t resolves_before = resolves();

  const auto poll = std::chrono::seconds(inputs_.config.git_poll_interval_seconds);
  now_ += poll;
  sched_->advance_time(poll + std::chrono::seconds(1));
  sched_->run();
  EXPECT_GT(resolves(), resolves_before) << "the poll asked git for the branch's commit";
  EXPECT_EQ(status_["applicationStatus"], reconciled);
  EXPECT_EQ(clusters_["dev"]->applies.size(), 1u);

  clusters_["dev"]->healthy_after_apply = false;
  source_.SetRevision(kRepo, "main", kSha2);
  source_.SetFiles(kRepo, kSha2, {{"web/deploy.yaml", Deployment("web:2")}});
  now_ += poll;
  sched_->advance_time(poll + std::chrono::seconds(1));
  sched_->run();
  ASSERT_EQ(clusters_["dev"]->applies.size(), 2u);
  EXPECT_EQ(clusters_["qa"]->applies.size(), 1u) << "qa waits for dev at the new commit";
  const auto& image = clusters_["dev"]->applies[1]->objects.at(0).object["spec"]["template"]["spec"]
                                                                        ["containers"][0]["image"];
  EXPECT_EQ(image, "web:2");
}

TEST_F(AppSetActorTest, APollThatFindsNothingChangedDecidesOnlyAtTheResyncAndAnEventAtOnce) {
  size_t decisions = 0;
  services_.publish.reconcile_seconds = [&decisions](const std::string& actor, double) {
    if (actor == "appset") ++decisions;
  };
  clusters_["dev"]->healthy_after_apply = true;
  clusters_["qa"]->healthy_after_apply = true;
  Start(AppSetYaml());
  ASSERT_EQ(clusters_["qa"]->applies.size(), 1u) << "the rollout reached step 2";
  auto resolves = [this] {
    size_t n = 0;
    for (const auto& call : source_.calls()) n += call.rfind("resolve ", 0) == 0 ? 1 : 0;
    return n;
  };
  const auto poll = std::chrono::seconds(inputs_.config.git_poll_interval_seconds);
  auto next_poll = [&] {
    now_ += poll;
    sched_->advance_time(poll + std::chrono::seconds(1));
    sched_->run();
  };

  // An event decides at once; the two polls after it find the same commit and no event: git is
  // asked each time, nothing is decided.
  const size_t before_event = decisions;
  BecomeHealthy("qa");
  const size_t settled = decisions;
  EXPECT_EQ(settled, before_event + 1);
  const size_t resolved = resolves();
  next_poll();
  next_poll();
  EXPECT_EQ(resolves(), resolved + 2) << "each poll asked git for the branch's commit";
  EXPECT_EQ(decisions, settled) << "a poll that found nothing changed decided again";

  // Three poll intervals after the last decision the set decides again (the resync).
  next_poll();
  EXPECT_EQ(decisions, settled + 1);

  // A cluster event decides at once, between polls.
  BecomeHealthy("dev");
  EXPECT_EQ(decisions, settled + 2);
  EXPECT_EQ(clusters_["dev"]->applies.size(), 1u);
  EXPECT_EQ(clusters_["qa"]->applies.size(), 1u);
}

// A wake-up between polls (here a failed attempt's retry, 5 s after it failed) decides on the
// last gather: the retry runs and git is not asked, as only the poll gathers. Before, every
// wake-up gathered the set and decided it from scratch, twice at a resync.
TEST_F(AppSetActorTest, ARetryBetweenPollsRunsWithoutGatheringTheSetAgain) {
  std::string yaml = AppSetYaml();
  const std::string project = "      project: default\n";
  yaml.insert(yaml.find(project) + project.size(),
              "      syncPolicy: {retry: {limit: 3, backoff: {duration: 5s, factor: 1}}}\n");
  clusters_["dev"]->hold_applies = true;
  Start(yaml);
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u);
  auto resolves = [this] {
    size_t n = 0;
    for (const auto& call : source_.calls()) n += call.rfind("resolve ", 0) == 0 ? 1 : 0;
    return n;
  };
  const size_t resolved = resolves();
  caf::anon_send(fakes_.at("dev"), release_atom::value);  // the attempt fails: retry in 5 s
  sched_->run();
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u);
  now_ += std::chrono::seconds(5);
  sched_->advance_time(std::chrono::seconds(6));
  sched_->run();
  EXPECT_EQ(clusters_["dev"]->applies.size(), 2u) << "the retry did not run at its time";
  EXPECT_EQ(resolves(), resolved) << "the retry's wake-up gathered the set (asked git)";

  // The poll still comes one interval after the last gather, and asks git.
  const auto poll = std::chrono::seconds(inputs_.config.git_poll_interval_seconds);
  now_ += poll - std::chrono::seconds(5);
  sched_->advance_time(poll);
  sched_->run();
  EXPECT_EQ(resolves(), resolved + 1);
}

// A decision's commit runs on the store's own threads: with every thread of the blocking pool
// held (a slow git fetch, the render of a large set), a cluster event is still decided,
// committed and acted on.
TEST_F(AppSetActorTest, ADecisionIsCommittedWhileEveryPoolThreadIsBusy) {
  Start(AppSetYaml());
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  BlockingPool busy(1);
  busy.Post([released] { released.wait(); });  // holds the pool's only thread
  services_.pool = &busy;
  services_.store_pool = &pool_;
  BecomeHealthy("dev");
  EXPECT_EQ(AppStatus("web-dev"), "Healthy");
  EXPECT_EQ(clusters_["qa"]->applies.size(), 1u) << "step 2 waited for a pool thread";
  release.set_value();
  busy.Stop();
  services_.pool = &pool_;
}

// Issue 27: while the repository cannot be reached, polls come further apart (the interval
// doubled per consecutive failure), and the first poll that reaches it again goes back to the
// interval. The last decision stays in force meanwhile: nothing is re-applied.
TEST_F(AppSetActorTest, PollsBackOffWhileTheRepositoryCannotBeReachedAndResumeAfter) {
  Start(AppSetYaml());
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u);
  auto resolves = [this] {
    size_t n = 0;
    for (const auto& call : source_.calls()) n += call.rfind("resolve ", 0) == 0 ? 1 : 0;
    return n;
  };
  const auto poll = std::chrono::seconds(inputs_.config.git_poll_interval_seconds);
  auto at = [&](std::chrono::seconds later) {  // moves both clocks on by `later`
    now_ += later;
    sched_->advance_time(later);
    sched_->run();
  };
  source_.SetFetchError(kRepo, engine::TransientError(kRepo, "cannot fetch: connection refused"));
  size_t asked = resolves();
  at(poll + std::chrono::seconds(1));  // the first poll fails: the next comes 2 intervals on
  EXPECT_EQ(resolves(), asked + 1);
  asked = resolves();
  at(poll);
  EXPECT_EQ(resolves(), asked) << "polled at the interval while the repository fails";
  const auto slack = std::chrono::seconds(1);  // timers fire a few ms after their time
  at(poll + slack);
  EXPECT_EQ(resolves(), asked + 1) << "the second poll, two intervals after the first";
  asked = resolves();
  at(3 * poll);
  EXPECT_EQ(resolves(), asked) << "the third waits four intervals";
  source_.SetFetchError(kRepo, std::nullopt);
  at(poll + slack);
  EXPECT_EQ(resolves(), asked + 1);
  asked = resolves();
  at(poll + slack);
  EXPECT_EQ(resolves(), asked + 1) << "back at the interval once the repository answered";
  EXPECT_EQ(clusters_["dev"]->applies.size(), 1u);
}

// Issue 27: the actor passes a failed fetch through to the decision: the set's published status
// carries ErrorOccurred naming the repository and the reason while it fails, nothing is
// re-applied, and the first poll that reads the repository again clears it.
TEST_F(AppSetActorTest, AFailedFetchShowsOnTheSetUntilAPollReadsTheRepositoryAgain) {
  Start(AppSetYaml());
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u);
  auto error_occurred = [this]() -> Json {
    for (const auto& c : status_["conditions"]) {
      if (c["type"] == "ErrorOccurred") return c;
    }
    return nullptr;
  };
  const auto poll = std::chrono::seconds(inputs_.config.git_poll_interval_seconds);
  auto at = [&](std::chrono::seconds later) {
    now_ += later;
    sched_->advance_time(later);
    sched_->run();
  };
  const engine::Error failed = engine::TransientError(kRepo, "cannot fetch: connection refused");
  source_.SetFetchError(kRepo, failed);
  at(poll + std::chrono::seconds(1));
  const Json shown = error_occurred();
  ASSERT_FALSE(shown.is_null()) << status_.dump(2);
  EXPECT_EQ(shown["status"], "True");
  EXPECT_EQ(shown["reason"], "RepositoryUnavailable");
  EXPECT_EQ(shown["message"], failed.ToString());
  EXPECT_EQ(clusters_["dev"]->applies.size(), 1u);
  source_.SetFetchError(kRepo, std::nullopt);
  at(3 * poll);  // the backed-off poll has come
  EXPECT_TRUE(error_occurred().is_null()) << status_.dump(2);
  EXPECT_EQ(clusters_["dev"]->applies.size(), 1u);
}

// Issue 27: a repository only a git generator reads (the template's apps read kRepo) that
// cannot be fetched shows on the set as an app's repository does: ErrorOccurred naming it, the
// last generated apps kept (published, nothing re-applied or dropped), and the first poll that
// reads it again clears it.
TEST_F(AppSetActorTest, AGitGeneratorsFailedFetchShowsOnTheSetUntilAPollReadsItAgain) {
  const std::string clusters_repo = ServeClustersRepository();
  Start(GitDirectoriesAppSetYaml());
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u) << status_.dump(2);
  ASSERT_EQ(apps_.count("web-qa"), 1u);
  const auto poll = std::chrono::seconds(inputs_.config.git_poll_interval_seconds);
  auto at = [&](std::chrono::seconds later) {
    now_ += later;
    sched_->advance_time(later);
    sched_->run();
  };
  const engine::Error failed =
      engine::TransientError(clusters_repo, "cannot fetch: connection refused");
  source_.SetFetchError(clusters_repo, failed);
  apps_.clear();
  at(poll + std::chrono::seconds(1));
  const Json shown = ErrorOccurred();
  ASSERT_FALSE(shown.is_null()) << status_.dump(2);
  EXPECT_EQ(shown["status"], "True");
  EXPECT_EQ(shown["reason"], "RepositoryUnavailable");
  EXPECT_EQ(shown["message"], failed.ToString());
  EXPECT_EQ(apps_.count("web-dev") + apps_.count("web-qa"), 2u) << "the last apps stay in force";
  EXPECT_EQ(AppStatus("web-qa"), "Waiting") << status_.dump(2);
  EXPECT_EQ(clusters_["dev"]->applies.size(), 1u);
  EXPECT_TRUE(clusters_["qa"]->applies.empty());
  source_.SetFetchError(clusters_repo, std::nullopt);
  at(3 * poll);  // the backed-off poll has come
  EXPECT_TRUE(ErrorOccurred().is_null()) << status_.dump(2);
  EXPECT_EQ(clusters_["dev"]->applies.size(), 1u);
}

// Issue 27, after a restart: the set has no generation of this process to keep in force, so
// while the repository only its git generator reads stays down the API shows its stored status
// (steps, application statuses, pins) with ErrorOccurred naming that repository; nothing is
// synced, written or deleted, a later poll that still fails keeps the condition's time, and the
// first generation that reads the repository again decides as usual and clears it.
TEST_F(AppSetActorTest, AGitGeneratorsFailedFetchAfterARestartShowsOnTheStoredStatus) {
  const std::string clusters_repo = ServeClustersRepository();
  const std::string yaml = GitDirectoriesAppSetYaml();
  Start(yaml);
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u) << status_.dump(2);
  ASSERT_EQ(AppStatus("web-dev"), "Progressing") << status_.dump(2);
  ASSERT_EQ(AppStatus("web-qa"), "Waiting");
  const Json before = status_;
  const store::ListResult stored = store_.List("");
  ASSERT_TRUE(stored.ok());

  // The daemon stops; it starts again on the same store while the repository is down.
  caf::anon_send(coordinator_, stop_atom::value);
  sched_->run();
  for (auto& [name, actor] : fakes_) caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  sched_->run();
  status_ = nullptr;
  apps_.clear();
  now_ += std::chrono::seconds(40);
  const engine::Error failed =
      engine::TransientError(clusters_repo, "cannot fetch: connection refused");
  source_.SetFetchError(clusters_repo, failed);
  Start(yaml);

  const Json shown = ErrorOccurred();
  ASSERT_FALSE(shown.is_null()) << status_.dump(2);
  EXPECT_EQ(shown["status"], "True");
  EXPECT_EQ(shown["reason"], "RepositoryUnavailable");
  EXPECT_EQ(shown["message"], failed.ToString());
  EXPECT_EQ(status_["applicationStatus"], before["applicationStatus"]) << status_.dump(2);
  EXPECT_EQ(status_["rollout"], before["rollout"]);
  EXPECT_EQ(clusters_["dev"]->applies.size(), 1u);
  EXPECT_TRUE(clusters_["qa"]->applies.empty());
  const store::ListResult kept = store_.List("");
  ASSERT_TRUE(kept.ok());
  ASSERT_EQ(kept.entries.size(), stored.entries.size());
  for (size_t i = 0; i < kept.entries.size(); ++i) {
    EXPECT_EQ(kept.entries[i].key, stored.entries[i].key);
    EXPECT_EQ(kept.entries[i].value, stored.entries[i].value) << kept.entries[i].key;
  }

  const auto poll = std::chrono::seconds(inputs_.config.git_poll_interval_seconds);
  auto at = [&](std::chrono::seconds later) {
    now_ += later;
    sched_->advance_time(later);
    sched_->run();
  };
  status_ = nullptr;  // what follows is published again
  at(3 * poll);       // a backed-off poll that fails again
  ASSERT_FALSE(ErrorOccurred().is_null()) << status_.dump(2);
  EXPECT_EQ(ErrorOccurred()["lastTransitionTime"], shown["lastTransitionTime"]);

  source_.SetFetchError(clusters_repo, std::nullopt);
  at(5 * poll);  // the next backed-off poll reads it
  EXPECT_TRUE(ErrorOccurred().is_null()) << status_.dump(2);
  EXPECT_EQ(apps_.count("web-dev") + apps_.count("web-qa"), 2u);
  EXPECT_EQ(AppStatus("web-qa"), "Waiting") << status_.dump(2);
  EXPECT_EQ(clusters_["dev"]->applies.size(), 1u) << "nothing applied again";
}

// Issue 25: a refresh (or webhook) that finds the commit in force is decided on what changed,
// as an event is: no from-scratch decision of the whole set, so no Application is rebuilt (its
// reconciledAt stays). The resync still decides from scratch and moves it.
TEST_F(AppSetActorTest, ARefreshAtTheSameCommitIsDecidedOnWhatChanged) {
  size_t divergences = 0;
  services_.publish.decision_divergence = [&divergences](const std::string&) { ++divergences; };
  Start(AppSetYaml());
  BecomeHealthy("dev");
  ASSERT_EQ(clusters_["qa"]->applies.size(), 1u);
  const Json reconciled = apps_["web-dev"]["status"]["reconciledAt"];
  ASSERT_TRUE(reconciled.is_string());
  now_ += std::chrono::seconds(10);
  auto refreshed = Ask(refresh_atom::value, std::string("test"));
  ASSERT_TRUE(refreshed);
  EXPECT_EQ(apps_["web-dev"]["status"]["reconciledAt"], reconciled)
      << "the refresh decided the set from scratch";
  BecomeHealthy("qa");  // the rollout goes on from the incremental state
  EXPECT_EQ(AppStatus("web-qa"), "Healthy");
  const auto poll = std::chrono::seconds(inputs_.config.git_poll_interval_seconds);
  for (int i = 0; i < 3; ++i) {  // the resync
    now_ += poll;
    sched_->advance_time(poll + std::chrono::seconds(1));
    sched_->run();
  }
  EXPECT_NE(apps_["web-dev"]["status"]["reconciledAt"], reconciled);
  EXPECT_EQ(divergences, 0u);
  EXPECT_EQ(clusters_["dev"]->applies.size(), 1u);
  EXPECT_EQ(clusters_["qa"]->applies.size(), 1u);
}

// Issue 25 (latency path): a committed decision's syncs are sent before the decision is
// published (publishing a large set costs milliseconds that its next apply must not wait for).
TEST_F(AppSetActorTest, ADecisionsSyncsAreSentBeforeItIsPublished) {
  Start(AppSetYaml());
  std::vector<size_t> published_at;  // the log's length at each publish
  auto publish = services_.publish.appset;
  services_.publish.appset = [&, publish](const std::string& set, const Json& summary,
                                          std::vector<std::shared_ptr<const Json>> apps,
                                          const std::map<std::string, std::string>& clusters,
                                          const PublishOrigin* origin) {
    published_at.push_back(log_.size());
    publish(set, summary, std::move(apps), clusters, origin);
  };
  BecomeHealthy("dev");  // step 2 starts: web-qa's sync
  ASSERT_EQ(clusters_["qa"]->applies.size(), 1u);
  size_t applying = log_.size();
  for (size_t i = 0; i < log_.size(); ++i) {
    if (log_[i].find("app=web-qa cluster=qa applying") != std::string::npos) applying = i;
  }
  ASSERT_LT(applying, log_.size()) << "no apply of web-qa logged";
  ASSERT_FALSE(published_at.empty());
  EXPECT_LT(applying, published_at.front()) << "the decision was published before its sync";
}

// Issue 30: a stored rollout with `paused: "yes"` is not read as "not paused". The set is held
// (nothing decided, nothing applied), said once however often it is retried, and goes on once
// the record is fixed.
TEST_F(AppSetActorTest, AStoredValueOfTheWrongTypeHoldsTheSetAndIsSaidOnce) {
  ASSERT_TRUE(
      store_.Put(store::keys::Rollout("web"), R"({"generation": 1, "step": 1, "paused": "yes"})")
          .ok());
  std::vector<std::optional<std::string>> shown;
  services_.publish.stored_state = [&shown](const std::string& set,
                                            const std::optional<std::string>& problem) {
    EXPECT_EQ(set, "web");
    shown.push_back(problem);
  };
  Start(AppSetYaml());
  for (int retry = 0; retry < 3; ++retry) {
    now_ += std::chrono::seconds(5);
    sched_->trigger_timeouts();
    sched_->run();
  }
  EXPECT_TRUE(clusters_["dev"]->applies.empty()) << "decided on a default";
  int said = 0;
  for (const auto& line : log_) {
    if (line.find("cannot use the stored state: appsets/web/ (stored status): "
                  "status.rollout.paused: must be a boolean, not a string") != std::string::npos) {
      ++said;
    }
  }
  EXPECT_EQ(said, 1);
  ASSERT_EQ(shown.size(), 1u);  // on the set's entry in the API's errors, once
  EXPECT_EQ(shown[0],
            "appsets/web/ (stored status): status.rollout.paused: must be a boolean, not a string");

  ASSERT_TRUE(
      store_.Put(store::keys::Rollout("web"), R"({"generation": 1, "step": 1, "paused": false})")
          .ok());
  now_ += std::chrono::seconds(5);
  sched_->trigger_timeouts();
  sched_->run();
  EXPECT_EQ(clusters_["dev"]->applies.size(), 1u);
  ASSERT_EQ(shown.size(), 2u);
  EXPECT_EQ(shown[1], std::nullopt);
}

// A stored deletion record with a field of the wrong type is never acted on, and said once,
// not at every poll.
TEST_F(AppSetActorTest, AnUndecodableStoredDeletionIsSaidOnceNotAtEveryPoll) {
  ASSERT_TRUE(store_
                  .Put(store::keys::AppDeletion("web", "web-gone"),
                       R"({"phase": "PendingDeletion", "since": "2027-01-15T08:00:00Z",
                           "due": "2027-01-15T08:10:00Z", "preserveResources": "yes"})")
                  .ok());
  Start(AppSetYaml());
  for (int poll = 0; poll < 3; ++poll) {
    now_ += std::chrono::seconds(60);
    sched_->trigger_timeouts();
    sched_->run();
  }
  int said = 0;
  for (const auto& line : log_) {
    if (line ==
        "appset=web stored deletion: deletion.preserveResources: must be a boolean, not a string") {
      ++said;
    }
  }
  EXPECT_EQ(said, 1) << ::testing::PrintToString(log_);
}

// Issue 31: an operator's command is answered by the actor that decides, with what will happen.
// A sync that is accepted shows as a Running operation until it ends; one the set cannot carry
// out now is refused with the reason (an operation running, an unreachable cluster, an app the
// set does not generate, a set that does not exist).
TEST_F(AppSetActorTest, ASyncIsAnsweredWithWhatHappensAndTheAcceptedOperationShowsUntilItEnds) {
  using engine::CommandOutcome;
  Start(AppSetYaml());
  BecomeHealthy("dev");
  clusters_["dev"]->hold_applies = true;
  // A sync at another revision has objects to apply (one at the synced revision finishes at
  // once: the live objects carry its hash).
  source_.SetRevision(kRepo, "v2", kSha2);
  source_.SetFiles(kRepo, kSha2, {{"web/deploy.yaml", Deployment("web:2")}});
  const std::string web("web"), dev("web-dev"), qa("web-qa"), none(""), alice("alice");

  auto accepted = Ask(sync_atom::value, web, dev, std::string("v2"), alice);
  ASSERT_TRUE(accepted);
  EXPECT_EQ(accepted->outcome, CommandOutcome::kAccepted) << accepted->message;
  const Json& op = apps_[dev]["status"]["operationState"];
  ASSERT_TRUE(op.is_object()) << apps_[dev].dump(2);
  EXPECT_EQ(op["phase"], "Running");
  EXPECT_NE(accepted->message.find(op["id"].get<std::string>()), std::string::npos)
      << accepted->message << " does not name the operation " << op.dump();
  ASSERT_EQ(clusters_["dev"]->held.size(), 1u) << "the accepted sync was never attempted";

  auto running = Ask(sync_atom::value, web, dev, none, alice);
  ASSERT_TRUE(running);
  EXPECT_EQ(running->outcome, CommandOutcome::kConflict) << running->message;
  EXPECT_NE(running->message.find("already running"), std::string::npos) << running->message;

  // The qa cluster stops answering: a sync there cannot be carried out now.
  clusters_["qa"]->listed = false;
  BecomeHealthy("qa");
  auto unreachable = Ask(sync_atom::value, web, qa, none, alice);
  ASSERT_TRUE(unreachable);
  EXPECT_EQ(unreachable->outcome, CommandOutcome::kUnavailable) << unreachable->message;
  EXPECT_NE(unreachable->message.find("cluster qa is unreachable"), std::string::npos)
      << unreachable->message;

  auto not_generated = Ask(sync_atom::value, web, std::string("web-prod"), none, alice);
  ASSERT_TRUE(not_generated);
  EXPECT_EQ(not_generated->outcome, CommandOutcome::kNotFound) << not_generated->message;
  auto no_set = Ask(sync_atom::value, std::string("shop"), dev, none, alice);
  ASSERT_TRUE(no_set);
  EXPECT_EQ(no_set->outcome, CommandOutcome::kNotFound) << no_set->message;
}

TEST_F(AppSetActorTest, PauseResumeAndSkipSayWhetherTheyChangedTheRollout) {
  using engine::CommandOutcome;
  Start(AppSetYaml());
  const std::string web("web"), test("test");
  auto paused = Ask(pause_atom::value, web, test);
  ASSERT_TRUE(paused);
  EXPECT_EQ(paused->outcome, CommandOutcome::kAccepted) << paused->message;
  EXPECT_EQ(status_["rollout"]["paused"], true) << status_.dump(2);
  auto again = Ask(pause_atom::value, web, test);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->outcome, CommandOutcome::kUnchanged) << again->message;
  auto resumed = Ask(resume_atom::value, web, test);
  ASSERT_TRUE(resumed);
  EXPECT_EQ(resumed->outcome, CommandOutcome::kAccepted) << resumed->message;
  auto skipped = Ask(skip_atom::value, web, std::string("web-qa"), std::string("rebuilt"), test);
  ASSERT_TRUE(skipped);
  EXPECT_EQ(skipped->outcome, CommandOutcome::kAccepted) << skipped->message;
  EXPECT_EQ(status_["rollout"]["skipped"]["web-qa"], "rebuilt");
  auto unknown_app = Ask(skip_atom::value, web, std::string("web-prod"), std::string("x"), test);
  ASSERT_TRUE(unknown_app);
  EXPECT_EQ(unknown_app->outcome, CommandOutcome::kNotFound) << unknown_app->message;
}

// Issue 29: an abort is stored in status.rollout with its caller and said once; a resume ends it.
TEST_F(AppSetActorTest, AbortIsStoredWithItsCallerAndAResumeEndsIt) {
  using engine::CommandOutcome;
  Start(AppSetYaml());
  const std::string web("web"), alice("alice@10.0.0.7");
  auto aborted = Ask(abort_atom::value, web, alice);
  ASSERT_TRUE(aborted);
  EXPECT_EQ(aborted->outcome, CommandOutcome::kAccepted) << aborted->message;
  EXPECT_NE(aborted->message.find("abort by alice@10.0.0.7"), std::string::npos)
      << aborted->message;
  EXPECT_EQ(status_["rollout"]["aborted"], true) << status_.dump(2);
  EXPECT_EQ(status_["rollout"]["abortedBy"], alice);
  auto again = Ask(abort_atom::value, web, alice);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->outcome, CommandOutcome::kUnchanged) << again->message;
  auto resumed = Ask(resume_atom::value, web, alice);
  ASSERT_TRUE(resumed);
  EXPECT_EQ(resumed->outcome, CommandOutcome::kAccepted) << resumed->message;
  EXPECT_FALSE(status_["rollout"].contains("aborted")) << status_.dump(2);
}

// Issue 29: a rollback reaches the set with its caller and target revision, is logged with
// them, and the decision that follows starts it (status.rollout.rollback); that decision's
// commit counts it once in fleetwave_rollbacks_total's hook, and later decisions do not count it
// again. A resume is refused from then on.
TEST_F(AppSetActorTest, ARollbackIsStartedByTheNextDecisionAndCountedOnce) {
  using engine::CommandOutcome;
  std::vector<std::pair<std::string, std::string>> started;
  services_.publish.rollback_started = [&started](const std::string& set,
                                                  const std::string& reason) {
    started.emplace_back(set, reason);
  };
  Start(AppSetYaml());
  ASSERT_TRUE(started.empty()) << "no rollback before one is asked for";
  const std::string web("web"), v1("v1"), alice("alice@10.0.0.7");
  auto rolled = Ask(rollback_atom::value, web, v1, alice);
  ASSERT_TRUE(rolled);
  EXPECT_EQ(rolled->outcome, CommandOutcome::kAccepted) << rolled->message;
  EXPECT_NE(rolled->message.find("rollback by alice@10.0.0.7"), std::string::npos)
      << rolled->message;
  EXPECT_NE(rolled->message.find("revision v1"), std::string::npos) << rolled->message;
  const Json& rollback = status_["rollout"]["rollback"];
  ASSERT_TRUE(rollback.is_object()) << status_.dump(2);
  EXPECT_EQ(rollback["reason"], engine::kRollbackOperator);
  EXPECT_EQ(rollback["by"], alice);
  EXPECT_EQ(rollback["to"], v1);
  EXPECT_FALSE(status_["rollout"].contains("rollbackRequested")) << "the decision took it";
  bool logged = false;
  for (const auto& line : log_) {
    if (line.find("rollback requested by alice@10.0.0.7 to revision v1") != std::string::npos) {
      logged = true;
    }
  }
  EXPECT_TRUE(logged);
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0], std::make_pair(web, std::string(engine::kRollbackOperator)));

  BecomeHealthy("dev");  // more decisions on the rolled-back set, incremental and from scratch
  ASSERT_TRUE(Ask(refresh_atom::value, std::string("test")));
  EXPECT_EQ(started.size(), 1u) << "a rollback is counted once";
  auto resumed = Ask(resume_atom::value, web, alice);
  ASSERT_TRUE(resumed);
  EXPECT_EQ(resumed->outcome, CommandOutcome::kConflict) << resumed->message;
}

// The API's DELETE: a set a file still defines is refused with that file named.
TEST_F(AppSetActorTest, DeletingASetAFileStillDefinesIsAConflictNamingTheFile) {
  Start(AppSetYaml());
  auto refused = Ask(delete_atom::value, std::string("web"), std::string("test"));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->outcome, engine::CommandOutcome::kConflict) << refused->message;
  EXPECT_NE(refused->message.find("web.yaml"), std::string::npos) << refused->message;
  auto missing = Ask(delete_atom::value, std::string("shop"), std::string("test"));
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->outcome, engine::CommandOutcome::kNotFound) << missing->message;
}

// Issue 25: between resyncs a RollingSync set decides each event on the apps it concerns; every
// resync decides the same state from scratch too and compares. Through a whole rollout (applies,
// syncs ending, health turning, a cluster going away and coming back) the two never differ, and
// what the rollout does is what it did when every event was decided from scratch.
TEST_F(AppSetActorTest, EventsDecidedOnWhatChangedAgreeWithTheFromScratchDecisionAtEachResync) {
  size_t divergences = 0;
  services_.publish.decision_divergence = [&divergences](const std::string&) { ++divergences; };
  auto resync = [&] {  // three polls: the resync decides from scratch and checks
    const auto poll = std::chrono::seconds(inputs_.config.git_poll_interval_seconds);
    for (int i = 0; i < 3; ++i) {
      now_ += poll;
      sched_->advance_time(poll + std::chrono::seconds(1));
      sched_->run();
    }
  };
  Start(AppSetYaml());
  ASSERT_EQ(clusters_["dev"]->applies.size(), 1u);
  resync();
  EXPECT_EQ(AppStatus("web-dev"), "Progressing");
  EXPECT_EQ(AppStatus("web-qa"), "Waiting");

  BecomeHealthy("dev");  // an event: step 1 healthy, step 2 starts
  EXPECT_EQ(AppStatus("web-dev"), "Healthy");
  ASSERT_EQ(clusters_["qa"]->applies.size(), 1u);
  resync();

  // qa goes away and comes back: its app's observation changes with the cluster's reachability.
  clusters_["qa"]->listed = false;
  caf::anon_send(fakes_.at("qa"), tick_atom::value);
  sched_->run();
  resync();
  clusters_["qa"]->listed = true;
  caf::anon_send(fakes_.at("qa"), tick_atom::value);
  sched_->run();
  resync();
  BecomeHealthy("qa");
  EXPECT_EQ(AppStatus("web-qa"), "Healthy");
  resync();
  bool completed = false;
  for (const auto& c : status_["conditions"]) {
    completed = completed || c["message"] == "ApplicationSet Rollout has completed";
  }
  EXPECT_TRUE(completed) << status_.dump(2);
  EXPECT_EQ(divergences, 0u);
  for (const auto& line : log_) {
    EXPECT_EQ(line.find("internal error"), std::string::npos) << line;
  }
  EXPECT_EQ(clusters_["dev"]->applies.size(), 1u);
  EXPECT_EQ(clusters_["qa"]->applies.size(), 1u);
}

}  // namespace
}  // namespace fleetwave::actors
