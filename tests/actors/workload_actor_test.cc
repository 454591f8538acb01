// The workload actor (actors/workload_actor.h) on CAF's deterministic test scheduler with a
// fake clock: the test advances the actor clock and Services::now together, so a timer is
// seen to fire at an exact instant. The store is a MemoryStore behind a wrapper that records
// (and can fail) commits; the blocking pool runs jobs inline; publishers record what they get.
#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "actors/atoms.h"
#include "actors/blocking_pool.h"
#include "actors/services.h"
#include "actors/workload_actor.h"
#include "engine/progress/workload.h"
#include "store/memory_store.h"
#include "store/state.h"

namespace fleetwave::actors {
namespace {

using engine::Json;
using std::chrono::milliseconds;
using std::chrono::seconds;

// A store that records each commit in the shared event list and fails while `fail` is set.
class RecordingStore final : public store::Store {
 public:
  explicit RecordingStore(std::vector<std::string>* events) : events_(events) {}
  store::GetResult Get(const std::string& key) override { return inner_.Get(key); }
  store::ListResult List(const std::string& prefix) override { return inner_.List(prefix); }
  store::WriteResult Commit(const std::vector<store::Op>& ops) override {
    if (fail) {
      events_->push_back("commit failed");
      store::WriteResult r;
      r.status = {store::Code::kIo, "disk full"};
      return r;
    }
    events_->push_back("commit");
    return inner_.Commit(ops);
  }
  int64_t Revision() override { return inner_.Revision(); }
  bool fail = false;

 private:
  std::vector<std::string>* events_;
  store::MemoryStore inner_;
};

struct CloneSetSpec {
  std::string revision = "web-1";
  std::optional<int64_t> deadline = 5;
  bool paused = false;
  int64_t updated_available = 0;  // of 2 replicas
};

WorkloadPtr CloneSet(const CloneSetSpec& c) {
  Json o = {{"apiVersion", "apps.kruise.io/v1alpha1"},
            {"kind", "CloneSet"},
            {"metadata", {{"name", "web"}, {"namespace", "shop"}, {"generation", 1}}},
            {"spec", {{"replicas", 2}, {"updateStrategy", {{"paused", c.paused}}}}},
            {"status",
             {{"observedGeneration", 1},
              {"replicas", 2},
              {"updatedReplicas", 2},
              {"updatedAvailableReplicas", c.updated_available},
              {"currentRevision", "web-0"},
              {"updateRevision", c.revision}}}};
  if (c.deadline) o["spec"]["progressDeadlineSeconds"] = *c.deadline;
  engine::WorkloadRead read = engine::ReadWorkload(o);
  EXPECT_TRUE(read.workload) << read.error.value_or(engine::Error{}).message;
  return std::make_shared<const engine::Workload>(*read.workload);
}

// Records what the workload actor tells its cluster actor.
struct ParentLog {
  std::vector<WorkloadView> views;
};
DeadlineSink::behavior_type Parent(DeadlineSink::pointer, std::shared_ptr<ParentLog> log) {
  return {[log](deadline_atom, const WorkloadViewPtr& v) { log->views.push_back(*v); }};
}

class WorkloadActorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    services_.store = &store_;
    services_.pool = &pool_;
    services_.now = [this] { return now_; };
    services_.log = [this](const std::string& line) { log_.push_back(line); };
    services_.publish.workload = [this](const Json& item) {
      events_.push_back("publish");
      published_.push_back(item);
    };
    services_.publish.workload_removed = [this](const std::string& cluster, const std::string& ns,
                                                const std::string& kind, const std::string& name) {
      events_.push_back("removed " + cluster + "/" + ns + "/" + kind + "/" + name);
    };
    services_.publish.progress_evaluated = [this] { ++evaluations_; };
    cfg_.set("scheduler.policy", caf::atom("testing"));
    system_ = std::make_unique<caf::actor_system>(cfg_);
    sched_ = &dynamic_cast<caf::scheduler::test_coordinator&>(system_->scheduler());
    parent_ = system_->spawn(Parent, parent_log_);
  }
  void TearDown() override {
    if (actor_) caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(parent_, caf::exit_reason::user_shutdown);
    sched_->run();
  }

  WorkloadActor Spawn(std::optional<Json> stored = std::nullopt) {
    WorkloadActorConfig config;
    config.cluster = "dev";
    config.ref = {"apps.kruise.io", "CloneSet", "shop", "web"};
    config.services = &services_;
    config.stored = std::move(stored);
    config.parent = parent_;
    config.retry_after = milliseconds(500);
    actor_ = SpawnWorkloadActor(*system_, config);
    sched_->run();
    return actor_;
  }
  void Update(const CloneSetSpec& spec) {
    caf::anon_send(actor_, workload_atom::value, CloneSet(spec));
    sched_->run();
  }
  // Moves both clocks; due timers fire and every message is handled.
  void Advance(std::chrono::microseconds d) {
    now_ += d;
    sched_->advance_time(std::chrono::duration_cast<caf::timespan>(d));
    sched_->run();
  }
  const Json& Last() const { return published_.back(); }
  std::string LastReason() const {
    return published_.empty() ? "" : Last()["condition"]["reason"].get<std::string>();
  }
  std::optional<Json> StoredRecord() {
    auto loaded = store::State(store_).LoadWorkloads("dev");
    EXPECT_TRUE(loaded.ok());
    if (loaded.value.empty()) return std::nullopt;
    return loaded.value.front().record.value;
  }
  static std::string At(int seconds_after_t0) {
    return engine::FormatRfc3339(kT0 + seconds(seconds_after_t0));
  }

  static inline const engine::Time kT0 = engine::FromUnixSeconds(1'800'000'000);
  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> system_;
  caf::scheduler::test_coordinator* sched_ = nullptr;
  std::vector<std::string> events_;
  RecordingStore store_{&events_};
  BlockingPool pool_{0};
  engine::Time now_ = kT0;
  Services services_;
  std::vector<std::string> log_;
  std::vector<Json> published_;
  int evaluations_ = 0;
  std::shared_ptr<ParentLog> parent_log_ = std::make_shared<ParentLog>();
  DeadlineSink parent_;
  WorkloadActor actor_;
};

TEST_F(WorkloadActorTest, TimerFiresExactlyAtTheRequeueNotBefore) {
  Spawn();
  Update({});
  EXPECT_EQ(evaluations_, 1);
  EXPECT_EQ(LastReason(), "CloneSetUpdated");
  EXPECT_EQ(Last()["condition"]["lastUpdateTime"], At(0));
  // remaining 5 s -> requeue after 6 s (the pad keeps it after the second-precision deadline).
  EXPECT_EQ(Last()["requeueAt"], engine::FormatRfc3339(kT0 + seconds(6)).insert(19, ".000"));

  Advance(seconds(6) - milliseconds(1));
  EXPECT_EQ(evaluations_, 1) << "the timer fired early";
  EXPECT_EQ(LastReason(), "CloneSetUpdated");

  Advance(milliseconds(1));
  EXPECT_EQ(evaluations_, 2);
  EXPECT_EQ(LastReason(), "ProgressDeadlineExceeded");
  EXPECT_EQ(Last()["exceeded"], true);
  EXPECT_EQ(Last()["condition"]["message"], "CloneSet revision web-1 has timed out progressing");
  EXPECT_TRUE(Last()["requeueAt"].is_null());
  ASSERT_FALSE(parent_log_->views.empty());
  EXPECT_TRUE(parent_log_->views.back().view.exceeded);

  // Exceeded schedules nothing: a long quiet time costs no evaluation.
  Advance(seconds(600));
  EXPECT_EQ(evaluations_, 2);
}

TEST_F(WorkloadActorTest, NewerUpdateCancelsTheOlderTimer) {
  Spawn();
  Update({});  // web-1: timer for t0+6
  Advance(seconds(3));
  Update({.revision = "web-2"});  // a new revision restarts the clock: timer for t0+9
  EXPECT_EQ(evaluations_, 2);
  EXPECT_EQ(Last()["condition"]["lastUpdateTime"], At(3));

  Advance(seconds(3));  // the older timer's time: it is stale and evaluates nothing
  EXPECT_EQ(evaluations_, 2);
  EXPECT_EQ(LastReason(), "CloneSetUpdated");

  Advance(seconds(3));
  EXPECT_EQ(evaluations_, 3);
  EXPECT_EQ(LastReason(), "ProgressDeadlineExceeded");
  EXPECT_EQ(Last()["revision"], "web-2");
}

TEST_F(WorkloadActorTest, PausedTimeNeverCounts) {
  Spawn();
  Update({});
  Advance(seconds(2));
  Update({.paused = true});
  EXPECT_EQ(LastReason(), "CloneSetPaused");
  EXPECT_TRUE(Last()["requeueAt"].is_null());
  const int before = evaluations_;
  Advance(seconds(60));
  EXPECT_EQ(evaluations_, before) << "a paused workload has no timer";
  EXPECT_EQ(LastReason(), "CloneSetPaused");

  Update({.paused = false});  // t0+62: the clock starts now
  EXPECT_EQ(LastReason(), "CloneSetUpdated");
  EXPECT_EQ(Last()["condition"]["lastUpdateTime"], At(62));
  Advance(seconds(6) - milliseconds(1));
  EXPECT_EQ(LastReason(), "CloneSetUpdated");
  Advance(milliseconds(1));
  EXPECT_EQ(LastReason(), "ProgressDeadlineExceeded");
}

TEST_F(WorkloadActorTest, RestartFromTheStoreKeepsTheOriginalLastUpdateTime) {
  Spawn();
  Update({});
  std::optional<Json> stored = StoredRecord();
  ASSERT_TRUE(stored);
  EXPECT_EQ((*stored)["revision"], "web-1");
  caf::anon_send_exit(actor_, caf::exit_reason::kill);
  sched_->run();

  Advance(seconds(3));  // down for 3 s
  published_.clear();
  log_.clear();
  Spawn(stored);
  Update({});
  EXPECT_EQ(Last()["condition"]["lastUpdateTime"], At(0)) << "the clock restarted";
  EXPECT_TRUE(log_.empty()) << "no transition, nothing logged: " << log_.front();
  Advance(seconds(3) - milliseconds(1));
  EXPECT_EQ(LastReason(), "CloneSetUpdated");
  Advance(milliseconds(1));
  EXPECT_EQ(LastReason(), "ProgressDeadlineExceeded");
}

TEST_F(WorkloadActorTest, PersistsBeforePublishing) {
  Spawn();
  Update({});
  EXPECT_EQ(events_, (std::vector<std::string>{"commit", "publish"}));

  // A failing store: the timeout is neither published nor reported until it is durable.
  events_.clear();
  store_.fail = true;
  const std::size_t views = parent_log_->views.size();
  Advance(seconds(6));
  EXPECT_EQ(events_, (std::vector<std::string>{"commit failed"}));
  EXPECT_EQ(LastReason(), "CloneSetUpdated");
  EXPECT_EQ(parent_log_->views.size(), views);

  store_.fail = false;
  Advance(milliseconds(500));  // the retry
  EXPECT_EQ(events_, (std::vector<std::string>{"commit failed", "commit", "publish"}));
  EXPECT_EQ(LastReason(), "ProgressDeadlineExceeded");
  EXPECT_EQ(StoredRecord().value()["condition"]["reason"], "ProgressDeadlineExceeded");
  ASSERT_EQ(parent_log_->views.size(), views + 1);
  EXPECT_TRUE(parent_log_->views.back().view.exceeded);
}

TEST_F(WorkloadActorTest, EachTransitionIsLoggedOnce) {
  Spawn();
  Update({});
  Update({});  // no transition
  Advance(seconds(6));
  ASSERT_EQ(log_.size(), 2u);
  EXPECT_EQ(log_[0],
            "workload cluster=dev namespace=shop kind=CloneSet name=web revision=web-1: "
            "Progressing=True reason=CloneSetUpdated (CloneSet is progressing)");
  EXPECT_NE(log_[1].find("reason=ProgressDeadlineExceeded"), std::string::npos) << log_[1];
}

TEST_F(WorkloadActorTest, DeadlineRemovedStopsTheActorAndItsSeries) {
  struct Case {
    const char* name;
    bool by_stop;  // the object was deleted, else its deadline was switched off
  };
  for (const Case& c : {Case{"deadline switched off", false}, Case{"object deleted", true}}) {
    SCOPED_TRACE(c.name);
    events_.clear();
    parent_log_->views.clear();
    WorkloadActor a = Spawn();
    Update({});
    ASSERT_TRUE(StoredRecord());
    if (c.by_stop) {
      caf::anon_send(a, stop_atom::value);
      sched_->run();
    } else {
      Update({.deadline = std::nullopt});
    }
    EXPECT_FALSE(StoredRecord()) << "the record stays";
    ASSERT_FALSE(events_.empty());
    EXPECT_EQ(events_.back(), "removed dev/shop/CloneSet/web");
    ASSERT_FALSE(parent_log_->views.empty());
    EXPECT_TRUE(parent_log_->views.back().removed);
    // The actor is gone: a later update reaches nobody and evaluates nothing.
    const int before = evaluations_;
    Update({});
    EXPECT_EQ(evaluations_, before);
    actor_ = nullptr;
  }
}

WorkloadPtr Deployment(const std::optional<std::string>& reason) {
  Json o = {{"apiVersion", "apps/v1"},
            {"kind", "Deployment"},
            {"metadata",
             {{"name", "web"},
              {"namespace", "shop"},
              {"annotations", {{"deployment.kubernetes.io/revision", "3"}}}}},
            {"spec", {{"replicas", 1}, {"progressDeadlineSeconds", 600}}},
            {"status", Json::object()}};
  if (reason) {
    o["status"]["conditions"] = Json::array({{{"type", "Progressing"},
                                              {"status", "True"},
                                              {"reason", *reason},
                                              {"message", "ReplicaSet is progressing."},
                                              {"lastUpdateTime", "2027-01-15T08:00:00Z"},
                                              {"lastTransitionTime", "2027-01-15T08:00:00Z"}}});
  }
  return std::make_shared<const engine::Workload>(*engine::ReadWorkload(o).workload);
}

// A Deployment is read through: Kubernetes' own condition is echoed and nothing is timed; one
// whose controller has not written a condition yet keeps its actor (it has a deadline).
TEST_F(WorkloadActorTest, ADeploymentIsReadThrough) {
  Spawn();
  caf::anon_send(actor_, workload_atom::value, Deployment(std::nullopt));
  sched_->run();
  ASSERT_FALSE(published_.empty());
  EXPECT_TRUE(Last()["condition"].is_null());
  EXPECT_TRUE(Last()["requeueAt"].is_null());
  caf::anon_send(actor_, workload_atom::value, Deployment("ReplicaSetUpdated"));
  sched_->run();
  EXPECT_EQ(LastReason(), "ReplicaSetUpdated");
  EXPECT_EQ(Last()["revision"], "3");
  for (const std::string& e : events_) EXPECT_EQ(e.find("removed"), std::string::npos) << e;
  Advance(seconds(3600));
  EXPECT_EQ(evaluations_, 2) << "a Deployment has no timer";
}

TEST(WorkloadRecordTest, RoundTripsAndRejectsGarbage) {
  engine::PreviousCondition p;
  p.revision = "web-7";
  p.condition.status = "True";
  p.condition.reason = "CloneSetUpdated";
  p.condition.message = "CloneSet is progressing";
  p.condition.last_update_time = engine::FromUnixSeconds(1'800'000'000);
  p.condition.last_transition_time = engine::FromUnixSeconds(1'700'000'000);
  const std::optional<engine::PreviousCondition> back = PreviousFromRecord(WorkloadRecordValue(p));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->revision, p.revision);
  EXPECT_EQ(back->condition, p.condition);
  for (const Json& bad : {Json(), Json("x"), Json{{"condition", 3}}, Json{{"condition", {}}}}) {
    EXPECT_FALSE(PreviousFromRecord(bad)) << bad.dump();
  }
}

}  // namespace
}  // namespace fleetwave::actors
