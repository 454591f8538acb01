// Where the daemon's blocking work runs: git (libgit2), SQLite commits (fsync), exec plugins,
// kustomize. Never on CAF's scheduler threads, which must stay free to move messages: an actor
// posts a closure here and the closure sends its result back to the actor's mailbox.
//
// A fixed set of threads takes closures in FIFO order; with 0 threads every closure runs inside
// Post, which deterministic actor tests use (the result message then waits in the mailbox for
// the test scheduler like any other). Stop() finishes the running closures, drops the queued
// ones and joins; posting after Stop() is ignored. Stop(deadline) is the daemon's bounded stop:
// it waits for the running closures only until `deadline` and returns what they concern (a git
// fetch, a render of a large set, a kustomize child may run for minutes); the caller then ends
// the process without returning (std::_Exit), which abandons them. Nothing durable is lost
// that way: a store commit is one SQLite transaction, complete or absent after the exit. `on_start`
// runs first on each thread (the daemon lowers their priority below the cluster client's I/O
// thread).
//
// A closure that throws costs one job, never the process, and never leaves its requester
// waiting: a job posted with the object it concerns (a file, a set, a cluster) and an
// `on_failure` answers the requester through it with "<object>: internal error: <what>" (the
// requester turns that into an error on the object, shown in the API). Every failure is logged
// naming the object and reported to `on_job_failed` (the daemon counts it in
// fleetwave_degraded_total{reason="internal"}). A job posted without an object is logged as
// "blocking job failed" and only counted: post the ones someone waits for with their object.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace fleetwave::actors {

class BlockingPool {
 public:
  using Log = std::function<void(const std::string&)>;
  // Called with the job's error ("<object>: internal error: <what>") when the job threw.
  using Failure = std::function<void(const std::string& error)>;
  BlockingPool(std::size_t threads, Log log = nullptr, std::function<void()> on_start = nullptr,
               std::function<void()> on_job_failed = nullptr);
  ~BlockingPool();  // Stop()
  BlockingPool(const BlockingPool&) = delete;
  BlockingPool& operator=(const BlockingPool&) = delete;

  void Post(std::function<void()> job);
  void Post(std::string object, std::function<void()> job, Failure on_failure);
  void Stop();
  // Drops the queued closures and waits for the running ones until `deadline`: empty when every
  // thread ended (joined), else the objects of the closures still running ("(unnamed job)" for
  // one posted without), whose threads are left running. Stop() afterwards joins them.
  std::vector<std::string> Stop(std::chrono::steady_clock::time_point deadline);
  std::size_t queued() const;

 private:
  struct Job {
    std::string object;  // what the job concerns, for its error; may be empty
    std::function<void()> run;
    Failure on_failure;
  };
  void Work(std::size_t index);
  void RunGuarded(const Job& job);
  void Fail(const Job& job, const std::string& what);
  void Report(const std::string& message);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable ended_;  // a thread left Work()
  std::deque<Job> queue_;
  std::size_t working_ = 0;  // threads that have not left Work()
  // Per thread, the object of the closure it runs (nullopt while idle).
  std::vector<std::optional<std::string>> running_;
  bool stop_ = false;
  Log log_;
  std::function<void()> on_job_failed_;
  const bool inline_;
  std::vector<std::thread> threads_;
};

}  // namespace fleetwave::actors
