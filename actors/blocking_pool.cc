#include "actors/blocking_pool.h"

#include <exception>
#include <iostream>

namespace fleetwave::actors {

BlockingPool::BlockingPool(std::size_t threads, Log log, std::function<void()> on_start)
    : log_(std::move(log)), inline_(threads == 0) {
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) {
    threads_.emplace_back([this, on_start] {
      if (on_start) on_start();
      Work();
    });
  }
}

BlockingPool::~BlockingPool() { Stop(); }

void BlockingPool::Post(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
  }
  if (inline_) {
    RunGuarded(job);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    queue_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void BlockingPool::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    queue_.clear();
  }
  cv_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

std::size_t BlockingPool::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

void BlockingPool::Work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    RunGuarded(job);
  }
}

void BlockingPool::RunGuarded(const std::function<void()>& job) {
  try {
    job();
  } catch (const std::exception& e) {
    Report(std::string("blocking job failed: ") + e.what());
  } catch (...) {
    Report("blocking job failed: unknown exception");
  }
}

void BlockingPool::Report(const std::string& message) {
  if (log_) {
    log_(message);
  } else {
    std::cerr << message << "\n";
  }
}

}  // namespace fleetwave::actors
