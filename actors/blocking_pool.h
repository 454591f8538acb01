// Where the daemon's blocking work runs: git (libgit2), SQLite commits (fsync), exec plugins,
// kustomize. Never on CAF's scheduler threads, which must stay free to move messages: an actor
// posts a closure here and the closure sends its result back to the actor's mailbox.
//
// A fixed set of threads takes closures in FIFO order; with 0 threads every closure runs inside
// Post, which deterministic actor tests use (the result message then waits in the mailbox for
// the test scheduler like any other). A closure that throws is logged and the
// next one runs (a bug costs one job, never the process). Stop() finishes the running closures,
// drops the queued ones and joins; posting after Stop() is ignored. `on_start` runs first on
// each thread (the daemon lowers their priority below the cluster client's I/O thread).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fleetwave::actors {

class BlockingPool {
 public:
  using Log = std::function<void(const std::string&)>;
  BlockingPool(std::size_t threads, Log log = nullptr, std::function<void()> on_start = nullptr);
  ~BlockingPool();  // Stop()
  BlockingPool(const BlockingPool&) = delete;
  BlockingPool& operator=(const BlockingPool&) = delete;

  void Post(std::function<void()> job);
  void Stop();
  std::size_t queued() const;

 private:
  void Work();
  void RunGuarded(const std::function<void()>& job);
  void Report(const std::string& message);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  Log log_;
  const bool inline_;
  std::vector<std::thread> threads_;
};

}  // namespace fleetwave::actors
