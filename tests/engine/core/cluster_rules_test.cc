// The cluster actor's rules as tables (engine/cluster_rules.h): the kinds an apply watches, what
// a delete's, an apply's and an unmark's answer mean, what a workload event does to its deadline
// actor, which stored deadline records a workload listing covers, which reachability change is
// logged, when a down cluster refuses work, when an apply reached no server, and what discovery's
// answer makes the actor do.
#include "engine/cluster_rules.h"

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

RenderedObject Object(const std::string& kind, Json object) {
  RenderedObject o;
  o.ref.kind = kind;
  o.ref.name = "x";
  o.object = std::move(object);
  return o;
}

TEST(KindsToWatch, EachAppliedKindOnceInOrder) {
  struct Case {
    const char* name;
    std::vector<RenderedObject> objects;
    std::vector<WatchedKind> kinds;
  } cases[] = {
      {"nothing applied watches nothing", {}, {}},
      {"each kind once, in apply order",
       {Object("Namespace", {{"apiVersion", "v1"}}),
        Object("Deployment", {{"apiVersion", "apps/v1"}}),
        Object("Namespace", {{"apiVersion", "v1"}})},
       {{"v1", "Namespace"}, {"apps/v1", "Deployment"}}},
      {"the same kind of two versions is two watches",
       {Object("CloneSet", {{"apiVersion", "apps.kruise.io/v1alpha1"}}),
        Object("CloneSet", {{"apiVersion", "apps.kruise.io/v1beta1"}})},
       {{"apps.kruise.io/v1alpha1", "CloneSet"}, {"apps.kruise.io/v1beta1", "CloneSet"}}},
      {"no apiVersion, an empty or non-string one, or no kind names none",
       {Object("ConfigMap", Json::object()), Object("ConfigMap", {{"apiVersion", ""}}),
        Object("ConfigMap", {{"apiVersion", 1}}), Object("", {{"apiVersion", "v1"}}),
        Object("Secret", Json::array())},
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(KindsToWatch(c.objects), c.kinds);
  }
}

TEST(DeletionResult, AlreadyGoneCountsAsDone) {
  const ObjectRef ref{"apps", "Deployment", "web", "api"};
  struct Case {
    const char* name;
    bool ok, not_found;
    ObjectResult result;
  } cases[] = {
      {"deleted", true, false, {ref, ObjectResultCode::kPruned, "pruned"}},
      {"already gone", false, true, {ref, ObjectResultCode::kPruned, "pruned"}},
      {"refused", false, false, {ref, ObjectResultCode::kSyncFailed, "403 forbidden"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(DeletionResult(ref, c.ok, c.not_found, "403 forbidden", "pruned"), c.result);
  }
}

TEST(ApplyAndUnmarkResult, SyncedOnSuccessElseFailedWithTheError) {
  ObjectRef ref;
  ref.kind = "Deployment";
  ref.name = "web";
  EXPECT_EQ(ApplyResult(ref, true, ""), (ObjectResult{ref, ObjectResultCode::kSynced, "applied"}));
  EXPECT_EQ(ApplyResult(ref, false, "422 invalid"),
            (ObjectResult{ref, ObjectResultCode::kSyncFailed, "422 invalid"}));
  EXPECT_EQ(UnmarkResult(ref, true, ""),
            (ObjectResult{ref, ObjectResultCode::kSynced, "tracking marks removed"}));
  EXPECT_EQ(UnmarkResult(ref, false, "403 forbidden"),
            (ObjectResult{ref, ObjectResultCode::kSyncFailed, "403 forbidden"}));
}

TEST(UntrackPatch, RemovesExactlyFleetwavesMarks) {
  Json object = {{"metadata",
                  {{"name", "web"},
                   {"annotations",
                    {{"fleetwave.io/tracking-id", "set:app:apps/Deployment:ns/web"},
                     {"fleetwave.io/applied-hash", "abc"},
                     {"team", "blue"}}},
                   {"labels", {{"fleetwave.io/app", "app"}, {"tier", "web"}}}}},
                 {"spec", {{"replicas", 2}}}};
  object.merge_patch(UntrackPatch());
  const Json expected = {
      {"metadata",
       {{"name", "web"}, {"annotations", {{"team", "blue"}}}, {"labels", {{"tier", "web"}}}}},
      {"spec", {{"replicas", 2}}}};
  EXPECT_EQ(object, expected);
}

TEST(OnWorkloadEvent, ADeadlineGetsAnActorOnlyWhileDeciding) {
  struct Case {
    const char* name;
    bool has_deadline, deciding, has_actor;
    WorkloadEventStep step;  // remember, tell, forget, spawn
  } cases[] = {
      {"a standby only remembers a deadline", true, false, false, {true, false, false, false}},
      {"a standby forgets one that lost its deadline", false, false, false, {}},
      {"a standby leaves a running actor alone", true, false, true, {true, false, false, false}},
      {"deciding: a new deadline spawns an actor", true, true, false, {true, false, false, true}},
      {"deciding: no deadline and no actor is nothing", false, true, false, {}},
      {"deciding: the actor evaluates an update", true, true, true, {true, true, false, false}},
      {"deciding: a lost deadline is told, then forgotten",
       false,
       true,
       true,
       {false, true, true, false}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(OnWorkloadEvent(c.has_deadline, c.deciding, c.has_actor), c.step);
  }
}

// A Deployment as its watch's projection carries it: Kubernetes' condition (reason, revision).
std::optional<Workload> Deployment(std::optional<int> deadline, const std::string& reason,
                                   const std::string& revision = "3",
                                   const std::string& message = "") {
  Json o = {{"apiVersion", "apps/v1"},
            {"kind", "Deployment"},
            {"metadata",
             {{"name", "web"},
              {"namespace", "shop"},
              {"generation", 4},
              {"annotations", {{"deployment.kubernetes.io/revision", revision}}}}},
            {"spec", {{"replicas", 2}}},
            {"status", {{"observedGeneration", 4}, {"replicas", 2}}}};
  if (deadline) o["spec"]["progressDeadlineSeconds"] = *deadline;
  if (!reason.empty()) {
    o["status"]["conditions"] =
        Json::array({{{"type", "Progressing"},
                      {"status", reason == "ProgressDeadlineExceeded" ? "False" : "True"},
                      {"reason", reason},
                      {"message", message},
                      {"lastUpdateTime", "2026-12-07T10:00:00Z"},
                      {"lastTransitionTime", "2026-12-07T10:00:00Z"}}});
  }
  return ReadWorkload(o).workload;
}

TEST(OnEchoedWorkloadEvent, ADeploymentsRowFollowsItsOwnConditionWithNothingHeld) {
  const auto none = std::optional<Workload>();
  const auto progressing = Deployment(600, "ReplicaSetUpdated");
  const auto progressing_again = Deployment(600, "ReplicaSetUpdated", "3", "pods ready");
  const auto exceeded = Deployment(600, "ProgressDeadlineExceeded");
  const auto next_revision = Deployment(600, "ReplicaSetUpdated", "4");
  const auto longer_deadline = Deployment(900, "ReplicaSetUpdated");
  const auto off = Deployment(2147483647, "ReplicaSetUpdated");
  const auto no_condition_yet = Deployment(600, "");
  ASSERT_TRUE(progressing && exceeded && off && no_condition_yet);
  struct Case {
    const char* name;
    std::optional<Workload> before, after;
    bool deciding;
    EchoedWorkloadStep step;  // publish, remove, log
  } cases[] = {
      {"a standby shows nothing", none, exceeded, false, {}},
      {"a standby removes nothing", exceeded, none, false, {}},
      {"listed with a deadline: its row, no line", none, progressing, true, {true, false, false}},
      {"listed timed out: its row, no line", none, exceeded, true, {true, false, false}},
      {"listed before its controller wrote a condition: a row without one",
       none,
       no_condition_yet,
       true,
       {true, false, false}},
      {"listed with its deadline off: no row", none, off, true, {}},
      {"Kubernetes says it timed out: the row and a line",
       progressing,
       exceeded,
       true,
       {true, false, true}},
      {"its first condition: the row and a line",
       no_condition_yet,
       progressing,
       true,
       {true, false, true}},
      {"a new revision: the row and a line", progressing, next_revision, true, {true, false, true}},
      {"only the message changed: the row, no line",
       progressing,
       progressing_again,
       true,
       {true, false, false}},
      {"another deadline: the row shows it",
       progressing,
       longer_deadline,
       true,
       {true, false, false}},
      {"a status change the row does not show: nothing", progressing, progressing, true, {}},
      {"its deadline switched off: the row goes", exceeded, off, true, {false, true, false}},
      {"its deadline switched on again: the row is back",
       off,
       exceeded,
       true,
       {true, false, false}},
      {"deleted: the row goes", exceeded, none, true, {false, true, false}},
      {"deleted with its deadline off: nothing to remove", off, none, true, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(OnEchoedWorkloadEvent(c.before, c.after, c.deciding), c.step);
  }
}

TEST(RecordCoveredByListing, KindAndNamespace) {
  struct Case {
    const char* name;
    const char *record_kind, *record_ns, *listed_kind, *listed_ns;
    bool covered;
  } cases[] = {
      {"same kind, every namespace listed", "Deployment", "a", "Deployment", "", true},
      {"same kind, its namespace listed", "Deployment", "a", "Deployment", "a", true},
      {"same kind, another namespace listed", "Deployment", "a", "Deployment", "b", false},
      {"another kind", "StatefulSet", "a", "Deployment", "", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(RecordCoveredByListing(c.record_kind, c.record_ns, c.listed_kind, c.listed_ns),
              c.covered);
  }
}

TEST(RefusalWhileDown, ADownClusterRefusesWithATransientErrorNamingIt) {
  EXPECT_EQ(RefusalWhileDown(false, "dev", "GET /version: timeout"), std::nullopt);
  const std::optional<Error> refusal = RefusalWhileDown(true, "dev", "GET /version: timeout");
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(*refusal, TransientError("", "cluster dev is unreachable (GET /version: timeout)"));
}

TEST(ReachabilityChangeLine, OnlyAChangeIsLoggedAndAHangSaysSo) {
  struct Case {
    const char* name;
    bool was_up, was_down, up, down, hung;
    std::optional<std::string> line;
  } cases[] = {
      {"coming up", false, true, true, false, false, "reachable"},
      {"first success of a new cluster", false, false, true, false, false, "reachable"},
      {"staying up says nothing", true, false, true, false, false, std::nullopt},
      {"staying down says nothing", false, true, false, true, false, std::nullopt},
      {"failing but not yet down says nothing", true, false, false, false, false, std::nullopt},
      {"going down after failures", true, false, false, true, false,
       "unreachable after 3 consecutive failures; last: GET /version: timeout"},
      {"going down because nothing moved", true, false, false, true, true,
       "unreachable: a request or watch made no progress; last: GET /version: timeout"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ReachabilityChangeLine(c.was_up, c.was_down, c.up, c.down, c.hung, 3,
                                     "GET /version: timeout"),
              c.line);
  }
}

TEST(ApplyReachedNoServer, OnlyWhenEveryRequestFailedBecauseOfTheCluster) {
  struct Case {
    const char* name;
    std::size_t answered;
    std::size_t cluster_failures;
    bool error;
  } cases[] = {
      {"nothing sent (an empty apply) is no error", 0, 0, false},
      {"every request failed because of the cluster", 0, 3, true},
      {"one answer means the cluster was reached", 1, 3, false},
      {"all answered", 4, 0, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ApplyReachedNoServer(c.answered, c.cluster_failures), c.error);
  }
}

TEST(OnDiscovery, NotServedIsFinalAFailureRetriesAndACloneSetTriesItsNextVersion) {
  struct Case {
    const char* name;
    DiscoveryAnswer answer;
    std::size_t versions_left;
    DiscoveryStep step;
  } cases[] = {
      {"served is watched", DiscoveryAnswer::kServed, 0, DiscoveryStep::kWatch},
      {"served with versions left is still watched", DiscoveryAnswer::kServed, 1,
       DiscoveryStep::kWatch},
      {"not served in the last version is not retried", DiscoveryAnswer::kNotServed, 0,
       DiscoveryStep::kNotServed},
      {"not served with a version left tries it", DiscoveryAnswer::kNotServed, 1,
       DiscoveryStep::kTryNextVersion},
      {"a failure retries later", DiscoveryAnswer::kFailed, 0, DiscoveryStep::kRetryLater},
      {"a failure retries the same version, not the next", DiscoveryAnswer::kFailed, 1,
       DiscoveryStep::kRetryLater},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(OnDiscovery(c.answer, c.versions_left), c.step);
  }
}

TEST(WorkloadWatchNamespaces, EmptyMeansEveryNamespace) {
  struct Case {
    const char* name;
    std::vector<std::string> configured, watched;
  } cases[] = {
      {"none configured: one cluster-scoped watch", {}, {""}},
      {"one configured: only it", {"shop"}, {"shop"}},
      {"several, in their order", {"shop", "billing"}, {"shop", "billing"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(WorkloadWatchNamespaces(c.configured), c.watched);
  }
}

TEST(ClusterStatusToTell, WhenReachableOrSyncedChangedSinceLastTold) {
  struct Case {
    const char* name;
    bool reachable, synced, told_reachable, told_synced, tell;
  } cases[] = {
      {"nothing changed", true, true, true, true, false},
      {"still down and unlisted", false, false, false, false, false},
      {"became unreachable", false, true, true, true, true},
      {"became reachable", true, false, false, false, true},
      {"finished listing", true, true, true, false, true},
      {"a new watch not listed yet", true, false, true, true, true},
      {"both changed", false, false, true, true, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ClusterStatusToTell(c.reachable, c.synced, c.told_reachable, c.told_synced), c.tell);
  }
}

}  // namespace
}  // namespace fleetwave::engine
