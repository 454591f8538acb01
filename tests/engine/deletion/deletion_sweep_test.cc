// The deletion actor's sweep over every stored deletion (engine::PlanDeletionSweep): held while
// the inputs are untrusted, an app of a set being deleted goes with the set, PendingDeletion
// waits for its due time, otherwise one Deleting round with its log lines, record writes and
// commands.
#include "engine/deletion/deletion_sweep.h"

#include <gtest/gtest.h>

#include "engine/sync/tracking.h"

namespace fleetwave::engine {
namespace {

using V = std::vector<std::string>;

Time T(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

// One stored record: phase 'P' (PendingDeletion) or 'D' (Deleting); apps as "name@cluster"
// ("name@" when it resolved to no cluster). With `reverse`, one RollingSync step selects the
// apps whose name starts with "prod" (env=prod); the others are selected by no step.
struct Rec {
  const char* set;
  const char* app;
  char phase;
  const char* due;
  V apps;
  std::set<std::string> gone = {};
  int64_t revision = 1;
  bool reverse = false;
  int step = 0;
};

// What one app's cluster shows: 'L' observed with one tracked object left, 'E' observed and
// empty, 'U' not observed yet, 'X' the cluster no longer exists.
using ViewSpec = std::map<std::string, char>;  // "set/app/name" -> view

DeletionKey KeyOf(const Rec& r) { return {r.set, r.app}; }
std::string Name(const DeletionKey& k) { return k.appset + "/" + k.app; }

DeletionRecord RecordOf(const Rec& spec) {
  DeletionRecord r = MarkPending(T("2026-03-01T11:00:00Z"), std::chrono::seconds(0), "gone");
  r.phase = spec.phase == 'P' ? DeletionPhase::kPendingDeletion : DeletionPhase::kDeleting;
  r.due = T(spec.due);
  r.gone = spec.gone;
  r.step = spec.step;
  for (const std::string& a : spec.apps) {
    const auto at = a.find('@');
    DeletionApp app{a.substr(0, at), a.substr(at + 1), {}, {}};
    if (app.name.rfind("prod", 0) == 0) app.labels["env"] = "prod";
    r.apps.push_back(app);
  }
  if (spec.reverse) {
    r.strategy.type = "RollingSync";
    r.strategy.deletion_order = "Reverse";
    RolloutStep step;
    step.match_expressions.push_back({"env", "In", {"prod"}, {}});
    r.strategy.steps.push_back(step);
  }
  return r;
}

DeletionAppView ViewOf(const DeletionKey& key, const std::string& app, char spec) {
  DeletionAppView v;
  v.cluster_exists = spec != 'X';
  v.observed = spec == 'L' || spec == 'E';
  if (spec == 'L') {
    LiveObject o;
    o.ref = {"apps", "Deployment", "ns", app};
    o.annotations[kTrackingIdAnnotation] = TrackingId({key.appset, app}, o.ref);
    v.live.push_back(o);
  }
  return v;
}

DeletionSweepInput Input(const std::vector<Rec>& recs, const ViewSpec& views, bool trusted) {
  DeletionSweepInput in;
  in.inputs_trusted = trusted;
  in.now = T("2026-03-01T12:00:00Z");
  for (const auto& spec : recs) {
    const DeletionKey key = KeyOf(spec);
    in.records[key] = {RecordOf(spec), spec.revision};
    for (const auto& a : in.records[key].record.apps) {
      auto v = views.find(Name(key) + "/" + a.name);
      in.views[key][a.name] = ViewOf(key, a.name, v == views.end() ? 'L' : v->second);
    }
  }
  return in;
}

// "put set/app Deleting step=N gone=a,b @rev" | "remove set/app @rev" | "remove set/app always"
std::string Describe(const DeletionWrite& w) {
  std::string rev = w.expected ? "@" + std::to_string(*w.expected) : std::string("always");
  if (!w.record) return "remove " + Name(w.key) + " " + rev;
  std::string gone;
  for (const auto& g : w.record->gone) gone += (gone.empty() ? "" : ",") + g;
  return "put " + Name(w.key) + " " + DeletionPhaseName(w.record->phase) +
         " step=" + std::to_string(w.record->step) + " gone=" + gone + " " + rev;
}

// "set/app: app@cluster delete=N unmark=M"
std::string Describe(const std::pair<DeletionKey, AppDeleteCommand>& c) {
  return Name(c.first) + ": " + c.second.app + "@" + c.second.cluster +
         " delete=" + std::to_string(c.second.plan.delete_now.size()) +
         " unmark=" + std::to_string(c.second.plan.unmark.size());
}

const char* const kHeldText =
    " held: the inputs did not load (empty or unreadable ApplicationSet directory, or a "
    "kubeconfig that failed); nothing is deleted until they do";

TEST(DeletionSweep, DecidesEveryStoredRecord) {
  struct Case {
    const char* name;
    std::vector<Rec> records;
    ViewSpec views;
    bool trusted;
    V log_once;  // "key | text"
    V forget, log, writes, commands, sets_done;
    std::optional<Time> wake_at;
    V watch;
  };
  const Case cases[] = {
      {"UntrustedInputsHoldEveryRecordWhateverItsPhase",
       {{"a", "", 'P', "2026-03-01T11:00:00Z", {"x@c0"}},
        {"b", "y", 'D', "2026-03-01T11:00:00Z", {"y@c0"}}},
       {},
       false,
       {std::string("held a/ | appset=a PendingDeletion") + kHeldText,
        std::string("held b/y | appset=b app=y Deleting") + kHeldText},
       {},
       {},
       {},
       {},
       {},
       std::nullopt,
       {}},
      {"PendingNotDueWaitsAndWakesAtTheEarliestDueTime",
       {{"a", "", 'P', "2026-03-01T12:10:00Z", {"x@c0"}},
        {"b", "y", 'P', "2026-03-01T12:05:00Z", {"y@c0"}}},
       {},
       true,
       {"pending a/ 2026-03-01T12:10:00Z | appset=a PendingDeletion (gone); deleted at "
        "2026-03-01T12:10:00Z unless it reappears",
        "pending b/y 2026-03-01T12:05:00Z | appset=b app=y PendingDeletion (gone); deleted at "
        "2026-03-01T12:05:00Z unless it reappears"},
       {"held a/", "held b/y"},
       {},
       {},
       {},
       {},
       T("2026-03-01T12:05:00Z"),
       {}},
      {"DuePendingEntersDeletingStoredBeforeItsCommands",
       {{"a", "", 'P', "2026-03-01T12:00:00Z", {"x@c0", "z@c1"}, {}, 7}},
       {},
       true,
       {},
       {"held a/"},
       {"appset=a Deleting (gone)"},
       {"put a/ Deleting step=0 gone= @7"},
       {"a/: x@c0 delete=1 unmark=0", "a/: z@c1 delete=1 unmark=0"},
       {},
       std::nullopt,
       {"a/"}},
      {"ReverseOrderIsNamedAndTheLastStepGoesFirst",
       {{"a", "", 'P', "2026-03-01T11:00:00Z", {"dev-x@c0", "prod-x@c1"}, {}, 7, true}},
       {},
       true,
       {},
       {"held a/"},
       {"appset=a Deleting (gone), deletionOrder Reverse", "appset=a deleting step 1"},
       {"put a/ Deleting step=1 gone= @7"},
       {"a/: prod-x@c1 delete=1 unmark=0"},
       {},
       std::nullopt,
       {"a/"}},
      {"AppsNoStepSelectsGoLastWithTheirOwnLine",
       {{"a", "", 'D', "2026-03-01T11:00:00Z", {"dev-x@c0", "prod-x@c1"}, {}, 7, true, 1}},
       {{"a//prod-x", 'E'}},
       true,
       {},
       {"held a/"},
       {"appset=a app=prod-x deleted (its objects are gone from the cluster)",
        "appset=a deleting the apps no step selects"},
       {"put a/ Deleting step=-1 gone=prod-x @7"},
       {"a/: dev-x@c0 delete=1 unmark=0"},
       {},
       std::nullopt,
       {"a/"}},
      {"DeletingRoundThatMovedNothingWritesNothingAndSendsAgain",
       {{"a", "x", 'D', "2026-03-01T11:00:00Z", {"x@c0"}}},
       {},
       true,
       {},
       {"held a/x"},
       {},
       {},
       {"a/x: x@c0 delete=1 unmark=0"},
       {},
       std::nullopt,
       {"a/x"}},
      {"UnobservedClusterWaitsWithoutCommandsOrProgress",
       {{"a", "x", 'D', "2026-03-01T11:00:00Z", {"x@c0"}}},
       {{"a/x/x", 'U'}},
       true,
       {},
       {"held a/x"},
       {},
       {},
       {},
       {},
       std::nullopt,
       {"a/x"}},
      {"AppDoneRemovesOnlyItsRecordIfUnchangedSince",
       {{"a", "x", 'D', "2026-03-01T11:00:00Z", {"x@c0"}, {}, 4},
        {"a", "y", 'D', "2026-03-01T11:00:00Z", {"y@c0"}, {}, 5}},
       {{"a/x/x", 'E'}},
       true,
       {},
       {"held a/x", "held a/y"},
       {"appset=a app=x deleted (its objects are gone from the cluster)"},
       {"remove a/x @4"},
       {"a/y: y@c0 delete=1 unmark=0"},
       {},
       std::nullopt,
       {"a/x", "a/y"}},
      {"AnAppOfASetBeingDeletedGoesWithTheSetsRound",
       {{"a", "", 'D', "2026-03-01T11:00:00Z", {"x@c0"}, {}, 3},
        {"a", "y", 'P', "2026-03-01T12:30:00Z", {"y@c0"}, {}, 4}},
       {},
       true,
       {},
       {"held a/", "held a/y"},
       {},
       {},
       {"a/: x@c0 delete=1 unmark=0"},
       {},
       std::nullopt,
       {"a/"}},
      {"SetDoneTakesEveryRecordOfTheSetAndNoOther",
       {{"a", "", 'D', "2026-03-01T11:00:00Z", {"x@c0"}, {}, 3},
        {"a", "y", 'D', "2026-03-01T11:00:00Z", {"y@c0"}, {}, 4},
        {"b", "", 'P', "2026-03-01T12:30:00Z", {"z@c0"}, {}, 5}},
       {{"a//x", 'E'}},
       true,
       {"pending b/ 2026-03-01T12:30:00Z | appset=b PendingDeletion (gone); deleted at "
        "2026-03-01T12:30:00Z unless it reappears"},
       {"held a/", "held a/y", "held b/"},
       {"appset=a app=x deleted (its objects are gone from the cluster)", "appset=a deleted"},
       {"remove a/ always", "remove a/y always"},
       {},
       {"a"},
       T("2026-03-01T12:30:00Z"),
       {"a/"}},
      {"AppOnAClusterNoLongerKnownIsLeftInPlace",
       {{"a", "", 'D', "2026-03-01T11:00:00Z", {"x@c9", "y@", "z@c0"}, {}, 3}},
       {{"a//x", 'X'}, {"a//y", 'X'}},
       true,
       {},
       {"held a/"},
       {"appset=a app=x cluster c9 is no longer known; its objects are left in place",
        "appset=a app=y cluster (none) is no longer known; its objects are left in place"},
       {"put a/ Deleting step=0 gone=x,y @3"},
       {"a/: z@c0 delete=1 unmark=0"},
       {},
       std::nullopt,
       {"a/"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const DeletionSweep sweep = PlanDeletionSweep(Input(c.records, c.views, c.trusted));
    V log_once, writes, commands, watch;
    for (const auto& l : sweep.log_once) log_once.push_back(l.key + " | " + l.text);
    for (const auto& w : sweep.writes) writes.push_back(Describe(w));
    for (const auto& cmd : sweep.commands) commands.push_back(Describe(cmd));
    for (const auto& k : sweep.watch) watch.push_back(Name(k));
    EXPECT_EQ(log_once, c.log_once);
    EXPECT_EQ(sweep.forget, c.forget);
    EXPECT_EQ(sweep.log, c.log);
    EXPECT_EQ(writes, c.writes);
    EXPECT_EQ(commands, c.commands);
    EXPECT_EQ(sweep.sets_done, c.sets_done);
    EXPECT_EQ(sweep.wake_at, c.wake_at);
    EXPECT_EQ(watch, c.watch);
  }
}

TEST(DeletionSweep, AnAppIsObservedOnlyFromAReachableListedClusterWithItsLabelListed) {
  struct Case {
    bool reachable, synced, label_listed, observed;
  };
  const Case cases[] = {
      {true, true, true, true},    {false, true, true, false},   {true, false, true, false},
      {true, true, false, false},  {false, false, true, false},  {false, true, false, false},
      {true, false, false, false}, {false, false, false, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(DeletionAppObserved(c.reachable, c.synced, c.label_listed), c.observed)
        << "reachable=" << c.reachable << " synced=" << c.synced
        << " label_listed=" << c.label_listed;
  }
}

TEST(DeletionSweep, WhoNamesTheSetAndTheAppWhenThereIsOne) {
  EXPECT_EQ(DeletionWho({"a", ""}), "appset=a");
  EXPECT_EQ(DeletionWho({"a", "x"}), "appset=a app=x");
}

}  // namespace
}  // namespace fleetwave::engine
