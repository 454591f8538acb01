#include "actors/blocking_pool.h"

#include <exception>
#include <iostream>

namespace fleetwave::actors {
namespace {

// An exception's text is the library's, and may quote input (a file's line, a response body):
// only a short excerpt reaches the log and the API.
constexpr std::size_t kMaxWhat = 200;

std::string Excerpt(const std::string& what) {
  std::string out;
  for (char c : what) {
    if (out.size() >= kMaxWhat) return out + "...(cut)";
    out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  }
  return out;
}

}  // namespace

BlockingPool::BlockingPool(std::size_t threads, Log log, std::function<void()> on_start,
                           std::function<void()> on_job_failed)
    : log_(std::move(log)), on_job_failed_(std::move(on_job_failed)), inline_(threads == 0) {
  threads_.reserve(threads);
  running_.resize(threads);
  working_ = threads;
  for (std::size_t i = 0; i < threads; ++i) {
    threads_.emplace_back([this, on_start, i] {
      if (on_start) on_start();
      Work(i);
    });
  }
}

BlockingPool::~BlockingPool() { Stop(); }

void BlockingPool::Post(std::function<void()> job) { Post("", std::move(job), nullptr); }

void BlockingPool::Post(std::string object, std::function<void()> job, Failure on_failure) {
  Job queued{std::move(object), std::move(job), std::move(on_failure)};
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
  }
  if (inline_) {
    RunGuarded(queued);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    queue_.push_back(std::move(queued));
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

std::vector<std::string> BlockingPool::Stop(std::chrono::steady_clock::time_point deadline) {
  std::vector<std::string> still_running;
  {
    std::unique_lock<std::mutex> lock(mu_);
    stop_ = true;
    queue_.clear();
    cv_.notify_all();
    if (!ended_.wait_until(lock, deadline, [this] { return working_ == 0; })) {
      for (const auto& object : running_) {
        if (object) still_running.push_back(object->empty() ? "(unnamed job)" : *object);
      }
      // A thread between two jobs leaves at once: one still counted runs a job or is starting.
      if (still_running.empty()) still_running.push_back("(a thread starting)");
      return still_running;
    }
  }
  Stop();  // every thread left Work(): the joins return at once
  return still_running;
}

std::size_t BlockingPool::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

void BlockingPool::Work(std::size_t index) {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      running_[index].reset();
      cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (stop_) {
        --working_;
        ended_.notify_all();
        return;
      }
      job = std::move(queue_.front());
      queue_.pop_front();
      running_[index] = job.object;
    }
    RunGuarded(job);
  }
}

void BlockingPool::RunGuarded(const Job& job) {
  try {
    job.run();
  } catch (const std::exception& e) {
    Fail(job, Excerpt(e.what()));
  } catch (...) {
    Fail(job, "unknown exception");
  }
}

void BlockingPool::Fail(const Job& job, const std::string& what) {
  const std::string error =
      (job.object.empty() ? std::string("blocking job failed") : job.object + ": internal error") +
      ": " + what;
  Report(job.on_failure ? error : error + " (no one is told: a job without a requester)");
  if (on_job_failed_) on_job_failed_();
  if (!job.on_failure) return;
  // The answer must not be lost to a second exception, nor let one escape the thread.
  try {
    job.on_failure(error);
  } catch (const std::exception& e) {
    Report(error + "; answering the requester failed too: " + Excerpt(e.what()));
  } catch (...) {
    Report(error + "; answering the requester failed too");
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
