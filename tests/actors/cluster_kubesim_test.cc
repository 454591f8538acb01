// The cluster actor against a real kubesim over TLS (CurlTransport, CAF's real scheduler):
// watch Deployments and Namespaces, subscribe an app's label, apply its rendered objects, see
// the Deployment healthy once kubesim's controller made it available, then take the cluster
// down (kubesim's `down` fault: connections reset, watches dropped) and see reachable false,
// an apply answered at once with an error, and reachable again once the fault is cleared.
// Every wait is a condition with a deadline.
#include <gtest/gtest.h>

#include <caf/all.hpp>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>

#include "actors/atoms.h"
#include "actors/cluster_actor.h"
#include "cluster-clients/curl_transport.h"
#include "cluster-clients/kubeconfig.h"
#include "engine/appset/render.h"
#include "tests/cluster-clients/await_callback.h"
#include "tests/cluster-clients/kubesim_process.h"

namespace fleetwave::actors {
namespace {

using clients::Json;
using Clock = std::chrono::steady_clock;

constexpr auto kDeadline = std::chrono::seconds(30);

// What a subscriber knows: the latest status and, per label, the latest complete entry list
// (updates replace a label's list, as protocol.h says).
struct Inbox {
  std::mutex mu;
  std::condition_variable cv;
  int updates = 0;
  bool reachable = false;
  bool synced = false;
  std::map<std::string, std::vector<LiveEntry>> apps;

  void Add(const ClusterUpdatePtr& u) {
    std::lock_guard<std::mutex> lock(mu);
    ++updates;
    reachable = u->reachable;
    synced = u->synced;
    for (const auto& [label, entries] : u->apps) apps[label] = entries;
    cv.notify_all();
  }
  // Waits until `pred` (called under the lock) holds, or the deadline passes.
  template <typename Pred>
  bool WaitFor(Pred pred, Clock::duration deadline = kDeadline) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_until(lock, Clock::now() + deadline, [&] { return pred(*this); });
  }
};

LiveSink::behavior_type Subscriber(LiveSink::pointer, std::shared_ptr<Inbox> inbox) {
  return {[inbox](live_atom, const ClusterUpdatePtr& u) { inbox->Add(u); }};
}

using clients::testing::Await;

std::optional<engine::HealthCode> HealthOf(const Inbox& in, const std::string& label,
                                           const std::string& kind) {
  auto it = in.apps.find(label);
  if (it == in.apps.end()) return std::nullopt;
  for (const LiveEntry& e : it->second) {
    if (e.object->ref.kind == kind) return e.health.status;
  }
  return std::nullopt;
}

engine::RenderResult RenderGuestbook(const engine::AppIdentity& app) {
  engine::RenderInput in;
  in.app = app;
  in.destination_namespace = "guestbook";
  in.discovery = engine::Discovery::BuiltIn();
  in.manifests.push_back(
      {"test:ns.yaml:1:1",
       {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "guestbook"}}}}});
  in.manifests.push_back(
      {"test:deploy.yaml:1:1",
       {{"apiVersion", "apps/v1"},
        {"kind", "Deployment"},
        {"metadata", {{"name", "web"}}},
        {"spec",
         {{"replicas", 2},
          {"selector", {{"matchLabels", {{"app", "web"}}}}},
          {"template",
           {{"metadata", {{"labels", {{"app", "web"}}}}},
            {"spec",
             {{"containers", Json::array({{{"name", "web"}, {"image", "nginx:1.25"}}})}}}}}}}}});
  return engine::Render(in);
}

TEST(ClusterKubesimTest, AppliesWatchesReportsHealthAndReachability) {
  clients::testing::KubesimProcess sim;
  std::string error;
  ASSERT_TRUE(sim.Start(1, {}, &error)) << error;
  clients::KubeconfigSet set = clients::LoadKubeconfigs({sim.kubeconfig()});
  ASSERT_TRUE(set.errors.empty());
  ASSERT_EQ(set.clusters.size(), 1u);

  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", 2);
  cfg.set("logger.verbosity", caf::atom("quiet"));
  caf::actor_system system(cfg);
  std::mutex log_mu;
  std::vector<std::string> logs;
  {
    // Declared after the actor system, so the transport stops (joining its loop thread)
    // while the system, whose actors have exited by then, still exists.
    clients::CurlTransport transport;
    clients::SerialExecutor admin_executor;
    clients::ClusterConfig admin_config = set.clusters[0];
    admin_config.name = "kubesim-admin";
    admin_config.server = sim.base_url();
    auto admin = clients::ClusterClient::Create(admin_config, &transport, &admin_executor, nullptr);
    auto fault = [&](const std::string& method, const std::string& path, const Json& body) {
      clients::RawRequest r;
      r.method = method;
      r.path = path;
      if (!body.is_null()) {
        r.body = body.dump();
        r.content_type = "application/json";
      }
      r.idempotent = false;
      return Await<clients::Result>([&](auto done) { admin->Request(r, done); });
    };

    ClusterActorConfig config;
    config.cluster = set.clusters[0];
    config.transport = &transport;
    config.options.max_attempts = 2;
    config.options.backoff.initial = std::chrono::milliseconds(50);
    config.options.backoff.cap = std::chrono::milliseconds(200);
    config.liveness.down_backoff.initial = std::chrono::milliseconds(300);
    config.liveness.down_backoff.cap = std::chrono::milliseconds(300);
    config.log = [&](const std::string& line) {
      std::lock_guard<std::mutex> lock(log_mu);
      logs.push_back(line);
    };
    ClusterActor cluster = SpawnClusterActor(system, config);
    auto inbox = std::make_shared<Inbox>();
    LiveSink subscriber = system.spawn(Subscriber, inbox);

    const engine::AppIdentity app{"guestbook-set", "guestbook"};
    const std::string label = engine::AppLabelValue(app);
    caf::anon_send(cluster, watch_kind_atom::value, std::string("apps/v1"),
                   std::string("Deployment"));
    caf::anon_send(cluster, watch_kind_atom::value, std::string("v1"), std::string("Namespace"));
    caf::anon_send(cluster, subscribe_atom::value, label, subscriber);
    ASSERT_TRUE(inbox->WaitFor([&](Inbox& in) { return in.apps.count(label) > 0; }))
        << "the subscription is answered";
    ASSERT_TRUE(inbox->WaitFor([](Inbox& in) { return in.reachable && in.synced; }));

    const engine::RenderResult rendered = RenderGuestbook(app);
    ASSERT_TRUE(rendered.issues.empty());
    auto cmd = std::make_shared<ApplyCommand>();
    cmd->appset = app.appset;
    cmd->app = app.app;
    cmd->operation_id = "op-1";
    cmd->objects = rendered.objects;
    for (const auto& o : rendered.objects) cmd->actions.push_back({o.ref, false, false});
    caf::scoped_actor self{system};
    ApplyReplyPtr reply;
    self->request(cluster, kDeadline, apply_atom::value, ApplyCommandPtr(cmd))
        .receive([&](const ApplyReplyPtr& r) { reply = r; },
                 [&](const caf::error& e) { ADD_FAILURE() << system.render(e); });
    ASSERT_TRUE(reply);
    EXPECT_FALSE(reply->error);
    ASSERT_EQ(reply->results.size(), 2u);
    for (const auto& r : reply->results) {
      EXPECT_EQ(r.status, engine::ObjectResultCode::kSynced) << r.ref.KindName() << r.message;
    }
    ASSERT_EQ(reply->applied.size(), 2u);
    EXPECT_EQ(reply->applied[0].ref.kind, "Namespace") << "Namespaces first";
    EXPECT_EQ(reply->applied[1].ref.kind, "Deployment");
    EXPECT_FALSE(reply->applied[1].resource_version.empty());
    EXPECT_EQ(reply->applied[1].generation, 1);

    // kubesim's controller makes the Deployment available; the watch brings it here.
    EXPECT_TRUE(inbox->WaitFor([&](Inbox& in) {
      return HealthOf(in, label, "Deployment") == engine::HealthCode::kHealthy &&
             HealthOf(in, label, "Namespace") == engine::HealthCode::kHealthy;
    })) << "the Deployment became healthy";
    {
      std::lock_guard<std::mutex> lock(inbox->mu);
      for (const LiveEntry& e : inbox->apps[label]) {
        EXPECT_EQ(e.object->Annotation(engine::kTrackingIdAnnotation),
                  engine::TrackingId(app, e.object->ref));
      }
    }

    // The cluster goes down: connections reset, watches dropped.
    ASSERT_TRUE(
        fault("POST", "/kubesim/faults", {{"cluster", set.clusters[0].name}, {"down", true}}).ok());
    EXPECT_TRUE(inbox->WaitFor([](Inbox& in) { return !in.reachable; })) << "reachable false";
    {
      std::lock_guard<std::mutex> lock(inbox->mu);
      EXPECT_EQ(HealthOf(*inbox, label, "Deployment"), engine::HealthCode::kHealthy)
          << "the receiver keeps its entries; it knows the cluster is down";
    }
    const auto asked = Clock::now();
    reply = nullptr;
    self->request(cluster, kDeadline, apply_atom::value, ApplyCommandPtr(cmd))
        .receive([&](const ApplyReplyPtr& r) { reply = r; },
                 [&](const caf::error& e) { ADD_FAILURE() << system.render(e); });
    ASSERT_TRUE(reply);
    EXPECT_TRUE(reply->error) << "a down cluster answers at once";
    EXPECT_LT(Clock::now() - asked, std::chrono::seconds(2));

    ASSERT_TRUE(fault("DELETE", "/kubesim/faults?cluster=" + set.clusters[0].name, nullptr).ok());
    EXPECT_TRUE(inbox->WaitFor([](Inbox& in) { return in.reachable; })) << "up again";

    self->send_exit(cluster, caf::exit_reason::user_shutdown);
    self->send_exit(subscriber, caf::exit_reason::user_shutdown);
    self->wait_for(cluster, subscriber);
    admin_executor.Shutdown();
  }
  std::lock_guard<std::mutex> lock(log_mu);
  bool said_down = false, said_up = false;
  for (const auto& line : logs) {
    said_down |= line.find("unreachable after") != std::string::npos;
    said_up |= line.find(": reachable") != std::string::npos;
  }
  EXPECT_TRUE(said_down);
  EXPECT_TRUE(said_up);
}

// A hung cluster (kubesim's `hang` fault: connections accepted, never answered) holds only its
// own requests: another cluster's actor on the same transport and scheduler applies at once,
// and the hung cluster's actor itself still answers messages. With the default liveness it is
// marked down within 30 s of the fault (its probe makes no progress) while the other stays up,
// and up again once the fault is cleared.
TEST(ClusterKubesimTest, AHungClusterNeverDelaysAnother) {
  clients::testing::KubesimProcess sim;
  std::string error;
  ASSERT_TRUE(sim.Start(2, {}, &error)) << error;
  clients::KubeconfigSet set = clients::LoadKubeconfigs({sim.kubeconfig()});
  ASSERT_TRUE(set.errors.empty());
  ASSERT_EQ(set.clusters.size(), 2u);

  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", 2);
  cfg.set("logger.verbosity", caf::atom("quiet"));
  caf::actor_system system(cfg);
  {
    clients::CurlTransport transport;
    clients::SerialExecutor admin_executor;
    clients::ClusterConfig admin_config = set.clusters[0];
    admin_config.name = "kubesim-admin";
    admin_config.server = sim.base_url();
    auto admin = clients::ClusterClient::Create(admin_config, &transport, &admin_executor, nullptr);

    std::vector<caf::actor> actors;  // every actor spawned, to stop at the end
    std::vector<ClusterActor> clusters;
    std::vector<std::shared_ptr<Inbox>> inboxes;
    const engine::AppIdentity app{"guestbook-set", "guestbook"};
    const std::string label = engine::AppLabelValue(app);
    for (const clients::ClusterConfig& c : set.clusters) {
      ClusterActorConfig config;
      config.cluster = c;
      config.transport = &transport;
      config.log = [](const std::string&) {};
      const ClusterActor cluster = SpawnClusterActor(system, config);
      clusters.push_back(cluster);
      inboxes.push_back(std::make_shared<Inbox>());
      const LiveSink sink = system.spawn(Subscriber, inboxes.back());
      actors.push_back(caf::actor_cast<caf::actor>(cluster));
      actors.push_back(caf::actor_cast<caf::actor>(sink));
      caf::anon_send(cluster, watch_kind_atom::value, std::string("apps/v1"),
                     std::string("Deployment"));
      caf::anon_send(cluster, subscribe_atom::value, label, sink);
    }
    for (auto& in : inboxes) {
      ASSERT_TRUE(in->WaitFor([](Inbox& i) { return i.reachable && i.synced; }));
    }
    const ClusterActor hung = clusters[0];
    const ClusterActor healthy = clusters[1];

    clients::RawRequest hang;
    hang.method = "POST";
    hang.path = "/kubesim/faults";
    hang.body = Json{{"cluster", set.clusters[0].name}, {"hang", true}}.dump();
    hang.content_type = "application/json";
    hang.idempotent = false;
    ASSERT_TRUE(Await<clients::Result>([&](auto done) { admin->Request(hang, done); }).ok());
    const auto hung_at = Clock::now();

    const engine::RenderResult rendered = RenderGuestbook(app);
    auto cmd = std::make_shared<ApplyCommand>();
    cmd->operation_id = "op-1";
    cmd->objects = rendered.objects;
    caf::anon_send(hung, apply_atom::value, ApplyCommandPtr(cmd));  // never answered in time

    const auto asked = Clock::now();
    caf::scoped_actor self{system};
    ApplyReplyPtr reply;
    self->request(healthy, kDeadline, apply_atom::value, ApplyCommandPtr(cmd))
        .receive([&](const ApplyReplyPtr& r) { reply = r; },
                 [&](const caf::error& e) { ADD_FAILURE() << system.render(e); });
    ASSERT_TRUE(reply);
    EXPECT_FALSE(reply->error);
    for (const auto& r : reply->results) {
      EXPECT_EQ(r.status, engine::ObjectResultCode::kSynced) << r.ref.KindName() << r.message;
    }
    EXPECT_LT(Clock::now() - asked, std::chrono::seconds(5));

    // The hung cluster's actor still handles messages: a new subscription is answered.
    auto late = std::make_shared<Inbox>();
    const LiveSink late_sink = system.spawn(Subscriber, late);
    actors.push_back(caf::actor_cast<caf::actor>(late_sink));
    caf::anon_send(hung, subscribe_atom::value, label, late_sink);
    EXPECT_TRUE(late->WaitFor([](Inbox& i) { return i.updates > 0; }));

    EXPECT_TRUE(
        inboxes[0]->WaitFor([](Inbox& i) { return !i.reachable; }, std::chrono::seconds(40)))
        << "the hung cluster is marked down";
    EXPECT_LT(Clock::now() - hung_at, std::chrono::seconds(30)) << "within 30 s of the hang";
    {
      std::lock_guard<std::mutex> lock(inboxes[1]->mu);
      EXPECT_TRUE(inboxes[1]->reachable) << "the other cluster stays up";
    }
    clients::RawRequest clear;
    clear.method = "DELETE";
    clear.path = "/kubesim/faults";
    clear.idempotent = false;
    ASSERT_TRUE(Await<clients::Result>([&](auto done) { admin->Request(clear, done); }).ok());
    EXPECT_TRUE(inboxes[0]->WaitFor([](Inbox& i) { return i.reachable; }, std::chrono::seconds(60)))
        << "up again once the hang is cleared";

    for (const auto& a : actors) self->send_exit(a, caf::exit_reason::user_shutdown);
    for (const auto& a : actors) self->wait_for(a);
    admin_executor.Shutdown();
  }
}

}  // namespace
}  // namespace fleetwave::actors
