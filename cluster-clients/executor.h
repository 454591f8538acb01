// Where user callbacks run. The I/O threads never run caller code directly: they hand
// callbacks to an `Executor`, so a slow callback delays only other callbacks, never network
// I/O. `SerialExecutor` runs them in submission order on one thread (the order of one
// cluster's watch events is preserved); `InlineExecutor` runs them immediately, for unit
// tests driven by a fake transport. Both are thread-safe.
//
// A callback that throws is the caller's bug, but it must not end the process or stop the
// executor: the exception is logged once (the `log` given at construction, else stderr) and
// the next callback runs (executor_test.cc pins this).
//
// Shutdown order: callbacks call back into clients, which post to their transport, and a
// transport's I/O thread submits to the executor. So: Shutdown() the executor (joins its
// thread; later submissions are dropped), then destroy the transports, then the executor.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace fleetwave::clients {

using LogSink = std::function<void(const std::string&)>;

class Executor {
 public:
  virtual ~Executor() = default;
  virtual void Submit(std::function<void()> fn) = 0;
};

// Runs `fn`; an exception escaping it goes to `log` (stderr when null) instead of the caller.
void RunCallback(const std::function<void()>& fn, const LogSink& log) noexcept;

class InlineExecutor final : public Executor {
 public:
  explicit InlineExecutor(LogSink log = nullptr) : log_(std::move(log)) {}
  void Submit(std::function<void()> fn) override { RunCallback(fn, log_); }

 private:
  LogSink log_;
};

class SerialExecutor final : public Executor {
 public:
  explicit SerialExecutor(LogSink log = nullptr);
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
  const LogSink log_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  bool busy_ = false;
  std::thread thread_;
};

}  // namespace fleetwave::clients
