// The cluster actor's message protocols on CAF's test coordinator (virtual time) with a
// scripted API server on the FakeTransport (virtual time too): subscribe answers at once,
// watch events coalesce into one update per tick and only while something changed, down after
// N consecutive failures and up again on the first success, apply order (Namespaces first,
// then the rest in parallel, then prune), delete/unmark, and exit cancelling the watches.
#include "actors/cluster_actor.h"

#include <gtest/gtest.h>

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/atoms.h"
#include "engine/sync/tracking.h"
#include "tests/cluster-clients/fake_transport.h"

namespace fleetwave::actors {
namespace {

using clients::HttpRequest;
using clients::Json;
using clients::NetError;
using clients::RequestId;

constexpr const char* kServer = "https://c1.example.test";

Json DeploymentJson(const std::string& name, const std::string& label, int available,
                    const std::string& rv) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata",
           {{"name", name},
            {"namespace", "shop"},
            {"resourceVersion", rv},
            {"generation", 1},
            {"labels", {{engine::kAppLabel, label}}}}},
          {"spec", {{"replicas", 2}}},
          {"status",
           {{"observedGeneration", 1},
            {"replicas", 2},
            {"updatedReplicas", 2},
            {"readyReplicas", available},
            {"availableReplicas", available}}}};
}

std::string Event(const std::string& type, const Json& object) {
  return Json{{"type", type}, {"object", object}}.dump() + "\n";
}

LiveSink::behavior_type Subscriber(LiveSink::pointer,
                                   std::shared_ptr<std::vector<ClusterUpdatePtr>> got) {
  return {[got](live_atom, const ClusterUpdatePtr& u) { got->push_back(u); }};
}

template <typename Atom, typename Command, typename Reply>
caf::behavior Requester(caf::event_based_actor* self, ClusterActor cluster, Command cmd,
                        std::shared_ptr<Reply> out) {
  self->request(cluster, std::chrono::seconds(30), Atom::value, cmd).then([out](const Reply& r) {
    *out = r;
  });
  return {};
}

class ClusterActorTest : public ::testing::Test {
 protected:
  static caf::actor_system_config& Testing(caf::actor_system_config& cfg) {
    cfg.set("scheduler.policy", caf::atom("testing"));
    cfg.set("logger.verbosity", caf::atom("quiet"));
    return cfg;
  }
  ClusterActorTest() : system_(Testing(cfg_)) {}
  ~ClusterActorTest() override {
    for (auto& a : spawned_) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    Pump();
  }

  caf::scheduler::test_coordinator& sched() {
    return dynamic_cast<caf::scheduler::test_coordinator&>(system_.scheduler());
  }

  // Runs the actors and the transport's loop until both are idle (virtual time stands still).
  void Pump() {
    for (;;) {
      fake_.RunUntilIdle();
      if (sched().run() == 0) return;
    }
  }
  // Fires the actors' due timers (the tick, the probe) and what they cause.
  void Tick() {
    sched().trigger_timeouts();
    Pump();
  }
  // Sends the actor its own tick now (a timer message, not part of the ClusterActor interface
  // a set may use, hence the untyped handle).
  void Tickle(const ClusterActor& cluster) {
    caf::anon_send(caf::actor_cast<caf::actor>(cluster), tick_atom::value);
    Pump();
  }

  ClusterActor Spawn() {
    ClusterActorConfig config;
    config.cluster.name = "c1";
    config.cluster.server = kServer;
    config.transport = &fake_;
    config.options.seed = 7;
    config.options.rate_limit = {0, 1};
    config.options.max_attempts = 1;  // every failure reaches the actor
    config.liveness = liveness_;
    // The token tells when the client is gone: once the actor is, only the client's copy of
    // the log sink holds it.
    auto token = std::make_shared<int>(0);
    client_alive_ = token;
    config.log = [this, token](const std::string& line) { logs_.push_back(line); };
    ClusterActor a = SpawnClusterActor(system_, std::move(config));
    spawned_.push_back(caf::actor_cast<caf::actor>(a));
    Pump();
    return a;
  }

  std::shared_ptr<std::vector<ClusterUpdatePtr>> Subscribe(const ClusterActor& cluster,
                                                           const std::string& label) {
    auto got = std::make_shared<std::vector<ClusterUpdatePtr>>();
    LiveSink sub = system_.spawn(Subscriber, got);
    spawned_.push_back(caf::actor_cast<caf::actor>(sub));
    caf::anon_send(cluster, subscribe_atom::value, label, sub);
    Pump();
    return got;
  }

  std::string PathOf(const HttpRequest& r) const {
    return r.url.substr(std::string(kServer).size());
  }

  // The scripted API server: answers every outstanding request it may (watches stay open and
  // are remembered; `held` requests wait), running the actors after each answer.
  void Serve(const std::function<bool(const HttpRequest&)>& held = nullptr) {
    for (bool answered = true; answered;) {
      answered = false;
      for (RequestId id : fake_.Outstanding()) {
        const HttpRequest& r = fake_.Get(id).request;
        const std::string path = PathOf(r);
        if (path.find("watch=1") != std::string::npos) {
          if (down_) {
            fake_.Fail(id, NetError::kConnectRefused);
          } else {
            watches_[path.substr(0, path.find('?'))] = id;
            // An API server sends a watch's headers at once (a watch without them past the
            // client's progress bound is a hang).
            if (!fake_.Get(id).headers_sent) fake_.Feed(id, "");
            continue;
          }
        } else if (held && held(r)) {
          continue;
        } else if (down_) {
          fake_.Fail(id, NetError::kConnectRefused);
        } else {
          Answer(id);
        }
        Pump();
        answered = true;
        break;
      }
    }
  }

  // Moves the transport's time on in steps, the server answering between them as a live or
  // refusing one does at once (a request left unanswered past its bound would be a hang).
  void AdvanceServing(clients::Duration d) {
    for (clients::Duration done{}; done < d; done += std::chrono::seconds(5)) {
      fake_.Advance(std::chrono::seconds(5));
      Pump();
      Serve();
    }
  }

  void Answer(RequestId id, int status = 200) {
    const HttpRequest r = fake_.Get(id).request;
    const std::string path = PathOf(r);
    const std::string base = path.substr(0, path.find('?'));
    Json body = Json::object();
    if (status != 200) {
      body = {{"kind", "Status"},
              {"status", "Failure"},
              {"code", status},
              {"reason", "Invalid"},
              {"message", "spec.replicas: Invalid value"}};
    } else if (base == "/version") {
      body = {{"major", "1"}, {"minor", "30"}, {"gitVersion", "v1.30.0"}};
    } else if (base == "/api") {
      body = {{"versions", {"v1"}}};
    } else if (base == "/apis") {
      body = {
          {"groups",
           {{{"name", "apps"}, {"versions", {{{"groupVersion", "apps/v1"}, {"version", "v1"}}}}}}}};
    } else if (base == "/api/v1") {
      body = {
          {"resources", {{{"name", "namespaces"}, {"kind", "Namespace"}, {"namespaced", false}}}}};
    } else if (base == "/apis/apps/v1") {
      body = {
          {"resources", {{{"name", "deployments"}, {"kind", "Deployment"}, {"namespaced", true}}}}};
    } else if (r.method == "GET" && base == "/apis/apps/v1/deployments") {
      body = {{"kind", "DeploymentList"},
              {"metadata", {{"resourceVersion", "100"}}},
              {"items", listed_}};
    } else if (r.method == "GET") {
      body = {
          {"kind", "List"}, {"metadata", {{"resourceVersion", "100"}}}, {"items", Json::array()}};
    } else if (r.method == "PATCH") {
      body = Json::parse(r.body);
      body["metadata"]["resourceVersion"] = std::to_string(++rv_);
      body["metadata"]["generation"] = 7;
    } else if (r.method == "DELETE") {
      body = {{"kind", "Status"}, {"status", "Success"}};
    }
    fake_.Respond(id, status, body.dump());
  }

  std::vector<RequestId> OutstandingWith(const std::string& method) {
    std::vector<RequestId> out;
    for (RequestId id : fake_.Outstanding()) {
      if (fake_.Get(id).request.method == method) out.push_back(id);
    }
    return out;
  }

  // A cluster actor that is up and watches Deployments, with `listed_` listed.
  ClusterActor WatchingDeployments() {
    ClusterActor cluster = Spawn();
    Serve();
    caf::anon_send(cluster, watch_kind_atom::value, std::string("apps/v1"),
                   std::string("Deployment"));
    Pump();
    Serve();
    return cluster;
  }

  std::vector<std::string> Summary(const ClusterUpdatePtr& u) {
    std::vector<std::string> out;
    for (const auto& [label, entries] : u->apps) {
      for (const auto& e : entries) {
        out.push_back(label + " " + e.object->ref.name + "@" + e.object->resource_version + " " +
                      std::string(engine::HealthCodeName(e.health.status)));
      }
      if (entries.empty()) out.push_back(label + " (none)");
    }
    return out;
  }

  clients::testing::FakeTransport fake_;  // outlives the actor system (declared first)
  caf::actor_system_config cfg_;
  caf::actor_system system_;
  std::vector<caf::actor> spawned_;
  std::vector<std::string> logs_;
  std::vector<Json> listed_;
  std::map<std::string, RequestId> watches_;  // path -> open watch
  std::weak_ptr<int> client_alive_;           // expires with the last spawned actor's client
  // No probes while up unless a test asks (they would be due at every Tick, which fires every
  // timer); probes of a down cluster back off from 1 s as in production.
  clients::LivenessPolicy liveness_ = [] {
    clients::LivenessPolicy p;
    p.probe_interval = clients::Duration::zero();
    return p;
  }();
  bool down_ = false;
  int rv_ = 500;
};

TEST_F(ClusterActorTest, SubscribeAnswersAtOnceAndWatchEventsCoalescePerTick) {
  listed_ = {DeploymentJson("web", "A", 2, "90"), DeploymentJson("db", "B", 2, "91")};
  ClusterActor cluster = Spawn();
  Serve();  // GET /version: up
  auto got = Subscribe(cluster, "A");
  ASSERT_EQ(got->size(), 1u) << "the subscription is answered at once";
  EXPECT_TRUE((*got)[0]->reachable);
  EXPECT_FALSE((*got)[0]->synced);
  EXPECT_EQ(Summary((*got)[0]), (std::vector<std::string>{"A (none)"}));

  caf::anon_send(cluster, watch_kind_atom::value, std::string("apps/v1"),
                 std::string("Deployment"));
  Pump();
  Serve();  // discovery, the list; the watch stays open
  ASSERT_EQ(watches_.count("/apis/apps/v1/deployments"), 1u);
  EXPECT_EQ(got->size(), 1u) << "nothing is sent before the tick";
  Tick();
  ASSERT_EQ(got->size(), 2u);
  EXPECT_TRUE((*got)[1]->synced);
  EXPECT_EQ(Summary((*got)[1]), (std::vector<std::string>{"A web@90 Healthy"}));
  EXPECT_FALSE(sched().has_pending_timeout()) << "no tick is armed while nothing changed";

  // Four events in one tick: one update, the whole list of A, nothing about B.
  const RequestId watch = watches_["/apis/apps/v1/deployments"];
  fake_.Feed(watch, Event("MODIFIED", DeploymentJson("web", "A", 0, "101")) +
                        Event("MODIFIED", DeploymentJson("web", "A", 1, "102")) +
                        Event("ADDED", DeploymentJson("api", "A", 2, "103")) +
                        Event("MODIFIED", DeploymentJson("db", "B", 1, "104")));
  Pump();
  EXPECT_EQ(got->size(), 2u);
  Tick();
  ASSERT_EQ(got->size(), 3u);
  EXPECT_EQ(Summary((*got)[2]),
            (std::vector<std::string>{"A api@103 Healthy", "A web@102 Progressing"}));

  // A change to B only: A's subscriber hears nothing.
  fake_.Feed(watch, Event("DELETED", DeploymentJson("db", "B", 1, "105")));
  Pump();
  EXPECT_FALSE(sched().has_pending_timeout());
  // A deletion in A: the remaining list.
  fake_.Feed(watch, Event("DELETED", DeploymentJson("api", "A", 2, "106")));
  Pump();
  Tick();
  ASSERT_EQ(got->size(), 4u);
  EXPECT_EQ(Summary((*got)[3]), (std::vector<std::string>{"A web@102 Progressing"}));

  // watch_kind is idempotent: no second discovery, list or watch.
  const std::size_t requests = fake_.log().size();
  caf::anon_send(cluster, watch_kind_atom::value, std::string("apps/v1"),
                 std::string("Deployment"));
  Pump();
  EXPECT_EQ(fake_.log().size(), requests);
}

TEST_F(ClusterActorTest, AnUnknownKindIsLoggedOnceAndNotWatched) {
  ClusterActor cluster = WatchingDeployments();
  for (int i = 0; i < 3; ++i) {
    caf::anon_send(cluster, watch_kind_atom::value, std::string("example.com/v1"),
                   std::string("Widget"));
    Pump();
    Serve();
  }
  int mentions = 0;
  for (const auto& line : logs_) mentions += line.find("Widget") != std::string::npos;
  EXPECT_EQ(mentions, 1);
  EXPECT_EQ(watches_.size(), 1u);
}

TEST_F(ClusterActorTest, DownAfterThreeConsecutiveFailuresAndUpOnTheFirstSuccess) {
  listed_ = {DeploymentJson("web", "A", 2, "90")};
  ClusterActor cluster = WatchingDeployments();
  auto got = Subscribe(cluster, "A");
  ASSERT_TRUE(got->back()->reachable);
  // The list's entries (listed before anyone subscribed) go out first, so the status change
  // below carries none however soon it comes.
  Tickle(cluster);
  Pump();

  down_ = true;
  fake_.Fail(watches_["/apis/apps/v1/deployments"], NetError::kConnection);
  Pump();
  for (int i = 0; i < 20 && got->back()->reachable; ++i) {
    Serve();
    AdvanceServing(std::chrono::seconds(60));  // the informer's backoff
    Tick();
  }
  ASSERT_FALSE(got->back()->reachable);
  EXPECT_TRUE(got->back()->apps.empty()) << "a status change carries no entries";
  bool logged = false;
  for (const auto& line : logs_) logged |= line.find("unreachable after 3") != std::string::npos;
  EXPECT_TRUE(logged);

  // A down cluster answers an apply at once, without a request.
  auto cmd = std::make_shared<ApplyCommand>();
  cmd->operation_id = "op-1";
  cmd->objects.push_back(
      {{"apps", "Deployment", "shop", "web"}, "", "", DeploymentJson("web", "A", 0, "")});
  auto reply = std::make_shared<ApplyReplyPtr>();
  spawned_.push_back(system_.spawn(Requester<apply_atom, ApplyCommandPtr, ApplyReplyPtr>, cluster,
                                   ApplyCommandPtr(cmd), reply));
  Pump();
  ASSERT_TRUE(*reply);
  ASSERT_TRUE((*reply)->error);
  EXPECT_NE((*reply)->error->ToString().find("unreachable"), std::string::npos)
      << (*reply)->error->ToString();
  EXPECT_EQ((*reply)->error->kind, engine::ErrorKind::kTransient) << "a retry may get through";
  EXPECT_TRUE(OutstandingWith("PATCH").empty());

  // The cluster comes back: the probe (only armed while not up) finds it.
  down_ = false;
  for (int i = 0; i < 20 && !got->back()->reachable; ++i) {
    Tick();
    Serve();
    AdvanceServing(std::chrono::seconds(60));
  }
  EXPECT_TRUE(got->back()->reachable);
}

// A hang: the probe due 10 s after the last answer goes out and makes no progress. The
// cluster is down at once (not after three failures), an apply is answered at once, a watch
// event of the hung server's old watch does not bring it back; the next probe's answer does.
TEST_F(ClusterActorTest, AProbeThatMadeNoProgressMarksDownAtOnceUntilAProbeIsAnswered) {
  liveness_.probe_interval = std::chrono::seconds(10);
  listed_ = {DeploymentJson("web", "A", 2, "90")};
  ClusterActor cluster = WatchingDeployments();
  auto got = Subscribe(cluster, "A");
  ASSERT_TRUE(got->back()->reachable);
  ASSERT_TRUE(OutstandingWith("GET").size() == 1u) << "only the watch is open";

  Tick();  // the probe timer (and any tick) fires: GET /version goes out
  std::vector<RequestId> probes;
  for (RequestId id : OutstandingWith("GET")) {
    if (PathOf(fake_.Get(id).request) == "/version") probes.push_back(id);
  }
  ASSERT_EQ(probes.size(), 1u);
  EXPECT_EQ(fake_.Get(probes[0]).request.progress_timeout, liveness_.probe_timeout);
  fake_.Fail(probes[0], NetError::kNoProgress, "no response byte for 10000 ms (progress timeout)");
  Pump();
  Tick();
  ASSERT_FALSE(got->back()->reachable) << "one request without progress is a hang";
  bool logged = false;
  for (const auto& line : logs_) logged |= line.find("made no progress") != std::string::npos;
  EXPECT_TRUE(logged);

  // The hung server's old watch still streams: the cluster stays down.
  fake_.Feed(watches_["/apis/apps/v1/deployments"],
             Event("MODIFIED", DeploymentJson("web", "A", 1, "95")));
  Pump();
  Tickle(cluster);
  Pump();
  EXPECT_FALSE(got->back()->reachable);

  auto cmd = std::make_shared<ApplyCommand>();
  cmd->operation_id = "op-h";
  cmd->objects.push_back(
      {{"apps", "Deployment", "shop", "web"}, "", "", DeploymentJson("web", "A", 0, "")});
  auto reply = std::make_shared<ApplyReplyPtr>();
  spawned_.push_back(system_.spawn(Requester<apply_atom, ApplyCommandPtr, ApplyReplyPtr>, cluster,
                                   ApplyCommandPtr(cmd), reply));
  Pump();
  ASSERT_TRUE(*reply);
  ASSERT_TRUE((*reply)->error) << "a down cluster answers an apply at once";
  EXPECT_NE((*reply)->error->ToString().find("no progress"), std::string::npos)
      << (*reply)->error->ToString();
  EXPECT_EQ((*reply)->error->kind, engine::ErrorKind::kTransient) << "a retry may get through";
  EXPECT_TRUE(OutstandingWith("PATCH").empty());

  // The next probe (after the backoff) is answered: up again.
  for (int i = 0; i < 5 && !got->back()->reachable; ++i) {
    Tick();
    Serve();
    Tick();
  }
  EXPECT_TRUE(got->back()->reachable);
}

TEST_F(ClusterActorTest, AppliesNamespacesFirstThenTheRestInParallelThenPrunes) {
  ClusterActor cluster = WatchingDeployments();
  auto cmd = std::make_shared<ApplyCommand>();
  cmd->operation_id = "op-7";
  Json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "shop"}}}};
  cmd->objects.push_back({{"", "Namespace", "", "shop"}, "", "", ns});
  cmd->objects.push_back(
      {{"apps", "Deployment", "shop", "web"}, "", "", DeploymentJson("web", "A", 0, "")});
  cmd->objects.push_back(
      {{"apps", "Deployment", "shop", "bad"}, "", "", DeploymentJson("bad", "A", 0, "")});
  cmd->actions = {{{"", "Namespace", "", "shop"}, false, false},
                  {{"apps", "Deployment", "shop", "web"}, true, false},
                  {{"apps", "Deployment", "shop", "bad"}, false, false}};
  cmd->prune = {{"apps", "Deployment", "shop", "old"}};
  auto reply = std::make_shared<ApplyReplyPtr>();
  spawned_.push_back(system_.spawn(Requester<apply_atom, ApplyCommandPtr, ApplyReplyPtr>, cluster,
                                   ApplyCommandPtr(cmd), reply));
  Pump();

  std::vector<RequestId> patches = OutstandingWith("PATCH");
  ASSERT_EQ(patches.size(), 1u) << "the Namespace alone first";
  EXPECT_NE(PathOf(fake_.Get(patches[0]).request).find("/api/v1/namespaces/shop?"),
            std::string::npos);
  Answer(patches[0]);
  Pump();

  patches = OutstandingWith("PATCH");
  ASSERT_EQ(patches.size(), 2u) << "then both Deployments at once";
  EXPECT_TRUE(OutstandingWith("DELETE").empty()) << "prune waits for every apply";
  for (RequestId id : patches) {
    const std::string path = PathOf(fake_.Get(id).request);
    const bool web = path.find("/deployments/web?") != std::string::npos;
    EXPECT_EQ(path.find("force=true") != std::string::npos, web) << path;
  }
  // Answer out of order: results still come back in command order.
  for (RequestId id : patches) {
    if (PathOf(fake_.Get(id).request).find("/deployments/bad?") != std::string::npos) {
      Answer(id, 422);
    }
  }
  Pump();
  for (RequestId id : OutstandingWith("PATCH")) Answer(id);
  Pump();
  const std::vector<RequestId> deletes = OutstandingWith("DELETE");
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_NE(PathOf(fake_.Get(deletes[0]).request).find("/deployments/old"), std::string::npos);
  EXPECT_NE(fake_.Get(deletes[0]).request.body.find("Background"), std::string::npos);
  EXPECT_FALSE(*reply) << "no reply before the prune ended";
  Answer(deletes[0]);
  Pump();

  ASSERT_TRUE(*reply);
  const ApplyReply& r = **reply;
  EXPECT_EQ(r.operation_id, "op-7");
  EXPECT_FALSE(r.error);
  ASSERT_EQ(r.results.size(), 4u);
  EXPECT_EQ(r.results[0].ref.name, "shop");
  EXPECT_EQ(r.results[0].status, engine::ObjectResultCode::kSynced);
  EXPECT_EQ(r.results[1].status, engine::ObjectResultCode::kSynced);
  EXPECT_EQ(r.results[2].ref.name, "bad");
  EXPECT_EQ(r.results[2].status, engine::ObjectResultCode::kSyncFailed);
  EXPECT_NE(r.results[2].message.find("spec.replicas: Invalid value"), std::string::npos)
      << r.results[2].message;
  EXPECT_EQ(r.results[3].ref.name, "old");
  EXPECT_EQ(r.results[3].status, engine::ObjectResultCode::kPruned);
  ASSERT_EQ(r.applied.size(), 2u);
  EXPECT_EQ(r.applied[0].ref.name, "shop");
  EXPECT_EQ(r.applied[0].resource_version, "501");
  EXPECT_EQ(r.applied[1].ref.name, "web");
  EXPECT_EQ(r.applied[1].generation, 7);

  Serve();
  EXPECT_EQ(watches_.count("/api/v1/namespaces"), 1u) << "applied kinds are watched too";
}

TEST_F(ClusterActorTest, AnApplyThatReachesNoServerIsAnError) {
  ClusterActor cluster = WatchingDeployments();
  auto cmd = std::make_shared<ApplyCommand>();
  cmd->operation_id = "op-2";
  cmd->objects.push_back(
      {{"apps", "Deployment", "shop", "web"}, "", "", DeploymentJson("web", "A", 0, "")});
  auto reply = std::make_shared<ApplyReplyPtr>();
  spawned_.push_back(system_.spawn(Requester<apply_atom, ApplyCommandPtr, ApplyReplyPtr>, cluster,
                                   ApplyCommandPtr(cmd), reply));
  Pump();
  ASSERT_EQ(OutstandingWith("PATCH").size(), 1u) << "not yet known to be down: it tries";
  down_ = true;
  Serve();
  ASSERT_TRUE(*reply);
  ASSERT_TRUE((*reply)->error) << "no request got through";
  EXPECT_NE((*reply)->error->ToString().find("did not answer"), std::string::npos)
      << (*reply)->error->ToString();
  EXPECT_EQ((*reply)->error->kind, engine::ErrorKind::kTransient) << "a retry may get through";
  ASSERT_EQ((*reply)->results.size(), 1u);
  EXPECT_EQ((*reply)->results[0].status, engine::ObjectResultCode::kSyncFailed);
  EXPECT_TRUE((*reply)->applied.empty());
}

TEST_F(ClusterActorTest, DeletesObjectsAndStripsTheMarksOfPreservedOnes) {
  ClusterActor cluster = WatchingDeployments();
  auto cmd = std::make_shared<DeleteCommand>();
  cmd->objects = {{"apps", "Deployment", "shop", "web"}, {"apps", "Deployment", "shop", "gone"}};
  cmd->unmark = {{"apps", "Deployment", "shop", "keep"}};
  auto reply = std::make_shared<DeleteReplyPtr>();
  spawned_.push_back(system_.spawn(Requester<delete_atom, DeleteCommandPtr, DeleteReplyPtr>,
                                   cluster, DeleteCommandPtr(cmd), reply));
  Pump();
  const std::vector<RequestId> patches = OutstandingWith("PATCH");
  ASSERT_EQ(patches.size(), 1u);
  const HttpRequest& patch = fake_.Get(patches[0]).request;
  const Json body = Json::parse(patch.body);
  EXPECT_TRUE(body["metadata"]["annotations"][engine::kTrackingIdAnnotation].is_null());
  EXPECT_TRUE(body["metadata"]["labels"].contains(engine::kAppLabel));
  for (RequestId id : OutstandingWith("DELETE")) {
    if (PathOf(fake_.Get(id).request).find("/gone") != std::string::npos) {
      fake_.Respond(id, 404, R"({"kind":"Status","code":404,"reason":"NotFound"})");
    }
  }
  Pump();
  Serve();
  ASSERT_TRUE(*reply);
  const DeleteReply& r = **reply;
  ASSERT_EQ(r.results.size(), 3u);
  EXPECT_EQ(r.results[0].status, engine::ObjectResultCode::kPruned);
  EXPECT_EQ(r.results[1].status, engine::ObjectResultCode::kPruned) << "already gone is done";
  EXPECT_EQ(r.results[2].ref.name, "keep");
  EXPECT_EQ(r.results[2].status, engine::ObjectResultCode::kSynced);
}

TEST_F(ClusterActorTest, ExitCancelsTheWatchesAndDropsLateCallbacks) {
  listed_ = {DeploymentJson("web", "A", 2, "90")};
  ClusterActor cluster = WatchingDeployments();
  auto got = Subscribe(cluster, "A");
  // An apply in flight when the actor exits.
  auto cmd = std::make_shared<ApplyCommand>();
  cmd->objects.push_back(
      {{"apps", "Deployment", "shop", "web"}, "", "", DeploymentJson("web", "A", 0, "")});
  auto reply = std::make_shared<ApplyReplyPtr>();
  caf::actor requester = system_.spawn(Requester<apply_atom, ApplyCommandPtr, ApplyReplyPtr>,
                                       cluster, ApplyCommandPtr(cmd), reply);
  Pump();
  ASSERT_EQ(OutstandingWith("PATCH").size(), 1u);
  const std::size_t updates = got->size();

  caf::anon_send_exit(cluster, caf::exit_reason::user_shutdown);
  Pump();
  EXPECT_EQ(fake_.Outstanding(), OutstandingWith("PATCH")) << "the watch was cancelled";
  Answer(OutstandingWith("PATCH")[0]);  // its callback finds no actor: dropped
  Pump();
  EXPECT_FALSE(*reply);
  EXPECT_EQ(got->size(), updates);
  EXPECT_EQ(fake_.InFlight(), 0u);
  Tick();  // the requester's timeout ends it
}

// The client goes once the actor has and the client's last request ended: answered (a cluster
// actor stopped while the daemon runs, e.g. its context left the kubeconfig) or dropped
// unanswered (the daemon stops, and its transport with it). A discovery in flight at exit once
// left the client owning itself through its waiters, a leak per stopped actor.
TEST_F(ClusterActorTest, ExitReleasesTheClientOnceItsRequestsEnd) {
  struct Case {
    const char* name;
    bool watching;  // up, with a Deployment informer; else a discovery in flight
    bool answer;    // the server answers what is left after exit; else it is dropped
  };
  const Case cases[] = {
      {"discovery_answered_after_exit", false, true},
      {"discovery_dropped_unanswered", false, false},
      {"informer_running", true, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ClusterActor cluster;
    if (c.watching) {
      cluster = WatchingDeployments();
      ASSERT_EQ(watches_.size(), 1u);
    } else {
      cluster = Spawn();
      Serve();
      caf::anon_send(cluster, watch_kind_atom::value, std::string("apps/v1"),
                     std::string("Deployment"));
      Pump();
      ASSERT_EQ(fake_.InFlight(), 2u) << "/api and /apis";
    }
    caf::anon_send_exit(cluster, caf::exit_reason::user_shutdown);
    cluster = nullptr;
    Pump();
    if (c.answer) {
      Serve();
    } else {
      for (RequestId id : fake_.Outstanding()) fake_.Cancel(id);
    }
    fake_.Advance(std::chrono::seconds(1));  // the release re-checks every 200 ms
    Pump();
    EXPECT_EQ(fake_.InFlight(), 0u);
    EXPECT_TRUE(client_alive_.expired()) << "the stopped actor's client was never freed";
    watches_.clear();
  }
}

}  // namespace
}  // namespace fleetwave::actors
