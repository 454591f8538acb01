#include "actors/blocking_pool.h"

#include <exception>
#include <iostream>

namespace fleetwave::actors {

BlockingPool::BlockingPool(std::size_t threads, Log log) : log_(std::move(log)) {
  if (threads == 0) threads = 1;
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
}

BlockingPool::~BlockingPool() { Stop(); }

void BlockingPool::Post(std::function<void()> job) {
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
    if (stop_ && threads_.empty()) return;
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
    try {
      job();
    } catch (const std::exception& e) {
      const std::string msg = std::string("blocking job failed: ") + e.what();
      if (log_)
        log_(msg);
      else
        std::cerr << msg << "\n";
    } catch (...) {
      if (log_)
        log_("blocking job failed: unknown exception");
      else
        std::cerr << "blocking job failed: unknown exception\n";
    }
  }
}

}  // namespace fleetwave::actors
