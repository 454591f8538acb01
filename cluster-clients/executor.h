// Where user callbacks run. The I/O threads never run caller code directly: they hand
// callbacks to an `Executor`, so a slow callback delays only other callbacks, never network
// I/O. `SerialExecutor` runs them in submission order on one thread (the order of one
// cluster's watch events is preserved); `InlineExecutor` runs them immediately, for unit
// tests driven by a fake transport. Both are thread-safe.
//
// Shutdown order: callbacks call back into clients, which post to their transport, and a
// transport's I/O thread submits to the executor. So: Shutdown() the executor (joins its
// thread; later submissions are dropped), then destroy the transports, then the executor.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace fleetwave::clients {

class Executor {
 public:
  virtual ~Executor() = default;
  virtual void Submit(std::function<void()> fn) = 0;
};

class InlineExecutor final : public Executor {
 public:
  void Submit(std::function<void()> fn) override { fn(); }
};

class SerialExecutor final : public Executor {
 public:
  SerialExecutor();
  ~SerialExecutor() override;  // Shutdown()
  void Submit(std::function<void()> fn) override;
  // Stops: waits for the running callback, drops queued ones and later submissions.
  void Shutdown();
  // Blocks until everything submitted so far has run (tests, shutdown).
  void Drain();

 private:
  void Work();

  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable idle_cv_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  bool busy_ = false;
  std::thread thread_;
};

}  // namespace fleetwave::clients
