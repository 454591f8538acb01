// ActorExecutor: closures submitted from any thread run in the target actor, in order, one at
// a time; a throwing closure costs only itself; after the actor exits or Close(), submissions
// are dropped. Deterministic cases on CAF's test coordinator; one concurrency case on the real
// scheduler with a bounded wait on a condition.
#include "actors/actor_executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "actors/atoms.h"

namespace fleetwave::actors {
namespace {

// An actor that only runs closures, logging what escapes them.
RunTarget::behavior_type Runner(RunTarget::pointer, std::shared_ptr<std::vector<std::string>> log) {
  return {[log](run_atom, const RunClosure& fn) {
    RunInActor(fn, [log](const std::string& m) { log->push_back(m); });
  }};
}

class ActorExecutorTest : public ::testing::Test {
 protected:
  static caf::actor_system_config& Testing(caf::actor_system_config& cfg) {
    cfg.set("scheduler.policy", caf::atom("testing"));
    cfg.set("logger.verbosity", caf::atom("quiet"));
    return cfg;
  }
  ActorExecutorTest() : system_(Testing(cfg_)) {}
  caf::scheduler::test_coordinator& sched() {
    return dynamic_cast<caf::scheduler::test_coordinator&>(system_.scheduler());
  }

  caf::actor_system_config cfg_;
  caf::actor_system system_;
};

TEST_F(ActorExecutorTest, RunsClosuresInTheActorInSubmissionOrder) {
  auto log = std::make_shared<std::vector<std::string>>();
  RunTarget runner = system_.spawn(Runner, log);
  ActorExecutor executor(runner);
  std::vector<int> ran;
  for (int i = 0; i < 5; ++i) executor.Submit([&ran, i] { ran.push_back(i); });
  EXPECT_TRUE(ran.empty()) << "Submit only sends; the actor runs them";
  sched().run();
  EXPECT_EQ(ran, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(executor.dropped(), 0);
  caf::anon_send_exit(runner, caf::exit_reason::user_shutdown);
  sched().run();
}

TEST_F(ActorExecutorTest, AThrowingClosureIsLoggedAndTheNextOneRuns) {
  auto log = std::make_shared<std::vector<std::string>>();
  RunTarget runner = system_.spawn(Runner, log);
  ActorExecutor executor(runner);
  bool after = false;
  executor.Submit([] { throw std::runtime_error("boom"); });
  executor.Submit([&after] { after = true; });
  sched().run();
  EXPECT_TRUE(after);
  ASSERT_EQ(log->size(), 1u);
  EXPECT_NE(log->front().find("boom"), std::string::npos) << log->front();
  caf::anon_send_exit(runner, caf::exit_reason::user_shutdown);
  sched().run();
}

TEST_F(ActorExecutorTest, DropsSubmissionsAfterTheActorExits) {
  struct Case {
    const char* name;
    bool close;  // Close() instead of the actor exiting
  };
  for (const Case& c : std::vector<Case>{{"actor exited", false}, {"executor closed", true}}) {
    SCOPED_TRACE(c.name);
    auto log = std::make_shared<std::vector<std::string>>();
    RunTarget runner = system_.spawn(Runner, log);
    ActorExecutor executor(runner);
    if (c.close) {
      executor.Close();
    } else {
      caf::anon_send_exit(runner, caf::exit_reason::user_shutdown);
      sched().run();
      runner = nullptr;  // only the executor's weak reference is left
    }
    auto witness = std::make_shared<int>(0);
    bool ran = false;
    executor.Submit([&ran, witness] { ran = true; });
    sched().run();
    EXPECT_FALSE(ran);
    EXPECT_EQ(executor.dropped(), 1);
    EXPECT_EQ(witness.use_count(), 1) << "the dropped closure was destroyed";
    if (runner) {
      caf::anon_send_exit(runner, caf::exit_reason::user_shutdown);
      sched().run();
    }
  }
}

TEST(ActorExecutorThreadsTest, ClosuresFromManyThreadsRunOneAtATime) {
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", 2);
  cfg.set("logger.verbosity", caf::atom("quiet"));
  caf::actor_system system(cfg);
  auto log = std::make_shared<std::vector<std::string>>();
  RunTarget runner = system.spawn(Runner, log);
  ActorExecutor executor(runner);

  constexpr int kThreads = 4;
  constexpr int kEach = 2000;
  long counter = 0;  // unsynchronised on purpose: only the actor touches it
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        executor.Submit([&] {
          if (++counter == kThreads * kEach) {
            std::lock_guard<std::mutex> lock(mu);
            done = true;
            cv.notify_all();
          }
        });
      }
    });
  }
  for (auto& t : threads) t.join();
  {
    std::unique_lock<std::mutex> lock(mu);
    EXPECT_TRUE(cv.wait_for(lock, std::chrono::seconds(20), [&] { return done; }));
  }
  EXPECT_EQ(counter, kThreads * kEach);
  caf::anon_send_exit(runner, caf::exit_reason::user_shutdown);
}

}  // namespace
}  // namespace fleetwave::actors
