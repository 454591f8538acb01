// Issue 31 (a review defect): the coordinator replaced a cluster's actor only when one of five
// of ClusterConfig's fields changed, so a rotated client key, a new exec plugin, proxy, TLS
// server name, skip-verify or basic-auth password kept the old actor talking with the old
// credentials. A context is now compared as a whole value.
#include <gtest/gtest.h>
#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "actors/atoms.h"
#include "actors/blocking_pool.h"
#include "actors/cluster_pool.h"
#include "actors/coordinator.h"
#include "actors/services.h"
#include "sources/fake_source.h"
#include "store/memory_store.h"

namespace fleetwave::actors {
namespace {

// One argument at least: CAF 0.17 spawns an argument-less function actor through a null
// tuple, which UBSan stops on.
// A cluster actor that never reports and never answers: these tests only look at which
// configurations the coordinator spawns clusters with.
ClusterActor::behavior_type SilentCluster(ClusterActor::pointer, const std::string& /*name*/) {
  return {
      [](watch_kind_atom, const std::string&, const std::string&) {},
      [](subscribe_atom, const std::string&, const LiveSink&) {},
      [](unsubscribe_atom, const std::string&, const LiveSink&) {},
      [](apply_atom, ApplyCommandPtr) -> caf::result<ApplyReplyPtr> {
        return caf::delegated<ApplyReplyPtr>();
      },
      [](delete_atom, DeleteCommandPtr) -> caf::result<DeleteReplyPtr> {
        return caf::delegated<DeleteReplyPtr>();
      },
      [](decide_atom, bool) {},
  };
}

clients::ClusterConfig Prod() {
  clients::ClusterConfig c;
  c.name = "prod";
  c.source_file = "/etc/fleetwave/kubeconfig";
  c.server = "https://prod.example";
  c.ca_pem = "CA";
  c.client_cert_pem = "CERT";
  c.client_key_pem = "KEY";
  return c;
}

DaemonInputs With(const clients::ClusterConfig& cluster) {
  DaemonInputs in;
  in.config_path = "/etc/fleetwave/fleetwave.yaml";
  in.clusters = {{cluster.name, cluster.server, {}}};
  in.cluster_configs = {cluster};
  return in;
}

class CoordinatorClustersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    services_.store = &store_;
    services_.source = &source_;
    services_.pool = &pool_;
    services_.now = [] { return engine::FromUnixSeconds(1'800'000'000); };
    services_.log = [](const std::string&) {};
    cfg_.set("scheduler.policy", caf::atom("testing"));
    system_ = std::make_unique<caf::actor_system>(cfg_);
    sched_ = &dynamic_cast<caf::scheduler::test_coordinator&>(system_->scheduler());
  }
  void TearDown() override {
    if (coordinator_) caf::anon_send(coordinator_, stop_atom::value);
    sched_->run();
    for (auto& a : spawned_) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    sched_->run();
  }
  void Start(const clients::ClusterConfig& cluster) {
    current_ = With(cluster);
    CoordinatorConfig config;
    config.services = &services_;
    config.initial = current_;
    config.load = [this] { return current_; };
    config.spawn_cluster = [this](caf::actor_system& sys, const clients::ClusterConfig& cc) {
      seen_.push_back(cc);
      ClusterActor a = sys.spawn(SilentCluster, cc.name);
      spawned_.push_back(caf::actor_cast<caf::actor>(a));
      return a;
    };
    coordinator_ = SpawnCoordinator(*system_, config);
    sched_->run();
  }
  void ReloadWith(const clients::ClusterConfig& cluster) {
    current_ = With(cluster);
    caf::anon_send(coordinator_, reload_atom::value);
    sched_->run();
  }

  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> system_;
  caf::scheduler::test_coordinator* sched_ = nullptr;
  store::MemoryStore store_;
  sources::FakeSource source_;
  BlockingPool pool_{0};
  Services services_;
  CoordinatorActor coordinator_;
  DaemonInputs current_;
  std::vector<clients::ClusterConfig> seen_;
  std::vector<caf::actor> spawned_;
};

TEST_F(CoordinatorClustersTest, AnUnchangedContextKeepsItsActor) {
  Start(Prod());
  ASSERT_EQ(seen_.size(), 1u);
  ReloadWith(Prod());
  EXPECT_EQ(seen_.size(), 1u);
}

TEST_F(CoordinatorClustersTest, AnyChangedFieldOfAContextRestartsItsActorWithTheNewValue) {
  const std::vector<std::pair<const char*, std::function<void(clients::ClusterConfig&)>>> cases = {
      {"client key", [](clients::ClusterConfig& c) { c.client_key_pem = "NEW KEY"; }},
      {"skip verify", [](clients::ClusterConfig& c) { c.insecure_skip_tls_verify = true; }},
      {"proxy", [](clients::ClusterConfig& c) { c.proxy_url = "http://proxy:3128"; }},
      {"tls server name", [](clients::ClusterConfig& c) { c.tls_server_name = "api.prod"; }},
      {"basic auth", [](clients::ClusterConfig& c) { c.password = "rotated"; }},
      {"exec plugin",
       [](clients::ClusterConfig& c) {
         c.exec = clients::ExecConfig{};
         c.exec->command = "/usr/bin/token-helper";
       }},
  };
  for (const auto& [what, change] : cases) {
    SCOPED_TRACE(what);
    seen_.clear();
    if (coordinator_) {
      caf::anon_send(coordinator_, stop_atom::value);
      sched_->run();
    }
    Start(Prod());
    ASSERT_EQ(seen_.size(), 1u);
    clients::ClusterConfig changed = Prod();
    change(changed);
    ReloadWith(changed);
    ASSERT_EQ(seen_.size(), 2u) << "a changed " << what << " restarts the cluster's actor";
    EXPECT_TRUE(seen_.back() == changed) << "and the new actor has the new value";
  }
}

// Leader election (issue 28): the cluster actors belong to the daemon's pool, so a term's
// coordinator that stops leaves them running, the next term's takes the same actors (their
// caches listed already), and a changed context still gets a new actor.
TEST_F(CoordinatorClustersTest, PooledClustersOutliveATermAndTheNextTermTakesThem) {
  std::vector<bool> deciding;
  ClusterPool pool(*system_, [this, &deciding](caf::actor_system& sys,
                                               const clients::ClusterConfig& cc, bool decides) {
    seen_.push_back(cc);
    deciding.push_back(decides);
    ClusterActor a = sys.spawn(SilentCluster, cc.name);
    spawned_.push_back(caf::actor_cast<caf::actor>(a));
    return a;
  });
  const ClusterActor standby = pool.Acquire(Prod());  // the daemon's start, standing by
  sched_->run();
  auto term = [&] {
    current_ = With(Prod());
    CoordinatorConfig config;
    config.services = &services_;
    config.initial = current_;
    config.load = [this] { return current_; };
    config.spawn_cluster = [&pool](caf::actor_system&, const clients::ClusterConfig& cc) {
      return pool.Acquire(cc);
    };
    config.clusters_outlive_term = true;
    pool.SetDeciding(true);
    CoordinatorActor c = SpawnCoordinator(*system_, config);
    sched_->run();
    return c;
  };
  CoordinatorActor first = term();
  caf::anon_send(first, stop_atom::value);
  sched_->run();
  pool.SetDeciding(false);
  sched_->run();
  coordinator_ = term();
  EXPECT_EQ(seen_.size(), 1u) << "one actor for both terms";
  EXPECT_EQ(deciding, std::vector<bool>{false}) << "spawned standing by";
  EXPECT_EQ(pool.Acquire(Prod()), standby) << "still running: the pool forgets ended actors";

  clients::ClusterConfig changed = Prod();
  changed.password = "rotated";
  ReloadWith(changed);
  ASSERT_EQ(seen_.size(), 2u) << "a changed context gets a new actor";
  EXPECT_TRUE(seen_.back() == changed);
  EXPECT_EQ(deciding.back(), true) << "a leader's new actor decides from its start";
  EXPECT_NE(pool.Acquire(changed), standby);
}

}  // namespace
}  // namespace fleetwave::actors
