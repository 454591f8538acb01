#include "cluster-clients/executor.h"

#include <iostream>

#include "cluster-clients/guard.h"

namespace fleetwave::clients {

void RunCallback(const std::function<void()>& fn, const LogSink& log) noexcept {
  auto what = RunGuarded(fn);
  if (!what) return;
  const std::string message = "a callback threw and was abandoned: " + *what;
  if (!log || RunGuarded([&] { log(message); }))
    std::cerr << "fleetwave: error: " << message << "\n";
}

SerialExecutor::SerialExecutor(LogSink log) : log_(std::move(log)), thread_([this] { Work(); }) {}

SerialExecutor::~SerialExecutor() { Shutdown(); }

void SerialExecutor::Shutdown() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
    dropped.swap(queue_);
  }
  cv_.notify_all();
  idle_cv_.notify_all();
  thread_.join();
  // `dropped` is destroyed here, outside the lock: closures may own clients.
}

void SerialExecutor::Submit(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    queue_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

void SerialExecutor::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_cv_.wait(lock, [&] { return stop_ || (queue_.empty() && !busy_); });
}

void SerialExecutor::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    auto fn = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    RunCallback(fn, log_);
    fn = nullptr;  // a closure may own clients: release it outside the lock
    lock.lock();
    busy_ = false;
    if (queue_.empty()) idle_cv_.notify_all();
  }
}

}  // namespace fleetwave::clients
