// ClusterCache: the cluster actor's entries per app label, change tracking per subscriber,
// and reachability/synced, without CAF.
#include "actors/cluster_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace fleetwave::actors {
namespace {

using clients::Outcome;
using clients::Problem;
using clients::Result;

// Entries are listed by identity: group, kind, namespace, name (the core group first).
LiveEntry Entry(const std::string& kind, const std::string& name, const std::string& rv = "1") {
  engine::LiveObject object;
  object.ref = {kind == "Deployment" ? "apps" : "", kind, "ns", name};
  object.resource_version = rv;
  LiveEntry e;
  e.object = std::make_shared<const engine::LiveObject>(std::move(object));
  return e;
}

std::vector<std::string> Names(const std::vector<LiveEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.object->ref.kind + "/" + e.object->ref.name);
  return out;
}

// What one Flush sends, as "id: label=[names] ..." lines, for compact expectations.
std::vector<std::string> Describe(const std::vector<std::pair<SubscriberId, ClusterUpdate>>& out) {
  std::vector<std::string> lines;
  for (const auto& [id, u] : out) {
    std::string line = std::to_string(id) + (u.reachable ? " up" : " down") +
                       (u.synced ? " synced" : " unsynced") + ":";
    for (const auto& [label, entries] : u.apps) {
      line += " " + label + "=[";
      for (const auto& n : Names(entries)) line += n + ",";
      line += "]";
    }
    lines.push_back(line);
  }
  return lines;
}

TEST(ClusterCacheTest, SubscribeAnswersAtOnceWithTheLabelsEntries) {
  ClusterCache cache("c1", 3);
  cache.Upsert("a", Entry("Deployment", "web"));
  cache.Upsert("a", Entry("Service", "web"));
  cache.Upsert("b", Entry("Deployment", "db"));

  const ClusterUpdate first = cache.Subscribe("a", 1);
  EXPECT_EQ(first.cluster, "c1");
  ASSERT_EQ(first.apps.size(), 1u);
  EXPECT_EQ(Names(first.apps.at("a")), (std::vector<std::string>{"Service/web", "Deployment/web"}));

  const ClusterUpdate empty = cache.Subscribe("nothing-yet", 2);
  ASSERT_EQ(empty.apps.size(), 1u);
  EXPECT_TRUE(empty.apps.at("nothing-yet").empty());
}

TEST(ClusterCacheTest, FlushSendsEachSubscriberTheFullListsOfItsChangedLabels) {
  struct Case {
    const char* name;
    std::function<void(ClusterCache&)> change;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"nothing changed", [](ClusterCache&) {}, {}},
      {"a change to label a reaches a's subscribers only, with the whole list",
       [](ClusterCache& c) { c.Upsert("a", Entry("Deployment", "web", "2")); },
       {"1 down unsynced: a=[Service/web,Deployment/web,]",
        "3 down unsynced: a=[Service/web,Deployment/web,]"}},
      {"a removal sends the remaining entries",
       [](ClusterCache& c) {
         c.Remove({"", "Service", "ns", "web"});
       },
       {"1 down unsynced: a=[Deployment/web,]", "3 down unsynced: a=[Deployment/web,]"}},
      {"the last removal sends an empty list",
       [](ClusterCache& c) {
         c.Remove({"apps", "Deployment", "ns", "db"});
       },
       {"2 down unsynced: b=[]", "3 down unsynced: b=[]"}},
      {"an object whose label changed leaves one label and joins the other",
       [](ClusterCache& c) { c.Upsert("b", Entry("Service", "web")); },
       {"1 down unsynced: a=[Deployment/web,]", "2 down unsynced: b=[Service/web,Deployment/db,]",
        "3 down unsynced: a=[Deployment/web,] b=[Service/web,Deployment/db,]"}},
      {"an entry equal to the one held (same version, same health) sends nothing",
       [](ClusterCache& c) { EXPECT_FALSE(c.Upsert("a", Entry("Deployment", "web"))); },
       {}},
      {"the same version with another health is news",
       [](ClusterCache& c) {
         LiveEntry e = Entry("Deployment", "web");
         e.health.status = engine::HealthCode::kDegraded;
         EXPECT_TRUE(c.Upsert("a", e));
       },
       {"1 down unsynced: a=[Service/web,Deployment/web,]",
        "3 down unsynced: a=[Service/web,Deployment/web,]"}},
      {"changes to an unsubscribed label send nothing",
       [](ClusterCache& c) { c.Upsert("z", Entry("Deployment", "other")); },
       {}},
      {"removing an unknown object changes nothing",
       [](ClusterCache& c) {
         c.Remove({"", "ConfigMap", "ns", "ghost"});
       },
       {}},
      {"several changes in one tick coalesce into one update",
       [](ClusterCache& c) {
         c.Upsert("a", Entry("Deployment", "web", "2"));
         c.Upsert("a", Entry("Deployment", "web", "3"));
         c.Upsert("a", Entry("Deployment", "web", "4"));
       },
       {"1 down unsynced: a=[Service/web,Deployment/web,]",
        "3 down unsynced: a=[Service/web,Deployment/web,]"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ClusterCache cache("c1", 3);
    cache.Upsert("a", Entry("Deployment", "web"));
    cache.Upsert("a", Entry("Service", "web"));
    cache.Upsert("b", Entry("Deployment", "db"));
    cache.Subscribe("a", 1);
    cache.Subscribe("b", 2);
    cache.Subscribe("a", 3);
    cache.Subscribe("b", 3);
    cache.Flush();  // what was there before the subscriptions is not news
    c.change(cache);
    EXPECT_EQ(cache.HasPending(), !c.want.empty());
    EXPECT_EQ(Describe(cache.Flush()), c.want);
    EXPECT_FALSE(cache.HasPending());
    EXPECT_TRUE(cache.Flush().empty());
  }
}

TEST(ClusterCacheTest, UnsubscribedAndRemovedSubscribersHearNothing) {
  ClusterCache cache("c1", 3);
  cache.Subscribe("a", 1);
  cache.Subscribe("a", 2);
  cache.Subscribe("b", 2);
  cache.Unsubscribe("a", 1);
  EXPECT_FALSE(cache.Subscribed(1));
  EXPECT_TRUE(cache.Subscribed(2));
  cache.Upsert("a", Entry("Deployment", "web"));
  EXPECT_EQ(Describe(cache.Flush()),
            (std::vector<std::string>{"2 down unsynced: a=[Deployment/web,]"}));
  cache.RemoveSubscriber(2);
  EXPECT_FALSE(cache.HasSubscribers());
  cache.Upsert("a", Entry("Deployment", "web", "2"));
  cache.Upsert("b", Entry("Deployment", "db"));
  EXPECT_FALSE(cache.HasPending());
  EXPECT_TRUE(cache.Flush().empty());
}

Result Ok() { return Result{}; }
Result Refused() {
  return clients::ErrorResult(Outcome::kTransient, Problem::kConnectionRefused, "refused");
}
Result NotFound() { return clients::ErrorResult(Outcome::kNotFound, Problem::kRequest, "404"); }
Result Invalid() { return clients::ErrorResult(Outcome::kPermanent, Problem::kRequest, "422"); }
Result TlsFailure() { return clients::ErrorResult(Outcome::kPermanent, Problem::kTls, "bad CA"); }

TEST(ClusterCacheTest, ReachableOnFirstSuccessDownAfterNConsecutiveFailures) {
  struct Case {
    const char* name;
    int down_after;
    std::vector<Result> results;
    bool reachable, down;
  };
  const std::vector<Case> cases = {
      {"unknown before any request", 3, {}, false, false},
      {"up on the first success", 3, {Ok()}, true, false},
      {"still up after two failures", 3, {Ok(), Refused(), Refused()}, true, false},
      {"down after three failures in a row",
       3,
       {Ok(), Refused(), Refused(), Refused()},
       false,
       true},
      {"a success in between resets the count",
       3,
       {Ok(), Refused(), Refused(), Ok(), Refused(), Refused()},
       true,
       false},
      {"down without ever having been up", 3, {Refused(), TlsFailure(), Refused()}, false, true},
      {"up again on the first success after down",
       3,
       {Refused(), Refused(), Refused(), Ok()},
       true,
       false},
      {"answers about the request prove the server is there",
       3,
       {Refused(), Refused(), NotFound(), Refused(), Invalid()},
       true,
       false},
      {"down_after 1", 1, {Ok(), Refused()}, false, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ClusterCache cache("c1", c.down_after);
    for (const Result& r : c.results) cache.Record(r);
    EXPECT_EQ(cache.reachable(), c.reachable);
    EXPECT_EQ(cache.down(), c.down);
  }
}

TEST(ClusterCacheTest, ClusterFailureCountsConnectionAndServerProblemsOnly) {
  struct Case {
    const char* name;
    Result result;
    bool failure;
  };
  const std::vector<Case> cases = {
      {"ok", Ok(), false},
      {"connection refused", Refused(), true},
      {"5xx", clients::ErrorResult(Outcome::kTransient, Problem::kServerError, "500"), true},
      {"429 after retries", clients::ErrorResult(Outcome::kTransient, Problem::kThrottled, "429"),
       true},
      {"timeout", clients::ErrorResult(Outcome::kTransient, Problem::kTimeout, "t"), true},
      {"TLS", TlsFailure(), true},
      {"401", clients::ErrorResult(Outcome::kPermanent, Problem::kUnauthorized, "401"), true},
      {"credentials plugin failed",
       clients::ErrorResult(Outcome::kPermanent, Problem::kCredentials, "exec"), true},
      {"404", NotFound(), false},
      {"409", clients::ErrorResult(Outcome::kConflict, Problem::kRequest, "409"), false},
      {"422", Invalid(), false},
      {"403", clients::ErrorResult(Outcome::kPermanent, Problem::kForbidden, "403"), false},
      {"410 on a watch", clients::ErrorResult(Outcome::kPermanent, Problem::kExpired, "410"),
       false},
      {"an object skipped for its shape",
       clients::ErrorResult(Outcome::kPermanent, Problem::kOther, "x; skipped"), false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ClusterFailure(c.result), c.failure);
  }
}

TEST(ClusterCacheTest, SyncedOnceEveryStartedWatchListed) {
  ClusterCache cache("c1", 3);
  EXPECT_FALSE(cache.synced()) << "no watch yet";
  cache.WatchStarted("apps/v1/Deployment");
  cache.WatchStarted("v1/Namespace");
  cache.WatchSynced("apps/v1/Deployment");
  EXPECT_FALSE(cache.synced());
  cache.WatchSynced("v1/Namespace");
  EXPECT_TRUE(cache.synced());
  cache.WatchStarted("apps/v1/StatefulSet");
  EXPECT_FALSE(cache.synced()) << "a new watch has not listed yet";
  cache.WatchDropped("apps/v1/StatefulSet");
  EXPECT_TRUE(cache.synced()) << "a kind the cluster does not serve is not waited for";
  cache.WatchStarted("v1/Namespace");
  EXPECT_TRUE(cache.synced()) << "starting a listed watch again keeps it listed";
}

TEST(ClusterCacheTest, AStatusChangeReachesEverySubscriberEvenWithoutEntries) {
  ClusterCache cache("c1", 2);
  cache.Subscribe("a", 1);
  cache.Subscribe("b", 2);
  EXPECT_FALSE(cache.HasPending()) << "the subscribe answer carried the status";
  cache.RecordSuccess();
  EXPECT_EQ(Describe(cache.Flush()),
            (std::vector<std::string>{"1 up unsynced:", "2 up unsynced:"}));
  cache.WatchStarted("k");
  EXPECT_FALSE(cache.HasPending()) << "still unsynced";
  cache.WatchSynced("k");
  cache.Upsert("a", Entry("Deployment", "web"));
  EXPECT_EQ(Describe(cache.Flush()),
            (std::vector<std::string>{"1 up synced: a=[Deployment/web,]", "2 up synced:"}));
  cache.RecordFailure();
  EXPECT_FALSE(cache.HasPending()) << "one failure of two is not down";
  cache.RecordFailure();
  EXPECT_EQ(Describe(cache.Flush()),
            (std::vector<std::string>{"1 down synced:", "2 down synced:"}));
  // Up and down again within one tick: the subscribers last heard "down", so nothing to say.
  cache.RecordSuccess();
  cache.RecordFailure();
  cache.RecordFailure();
  EXPECT_FALSE(cache.HasPending());
}

}  // namespace
}  // namespace fleetwave::actors
