#include "store/etcd_watch.h"

#include <pthread.h>

#include <utility>

namespace fleetwave::store {

EtcdKeyWatch::EtcdKeyWatch(std::unique_ptr<EtcdClient> client, std::string key,
                           std::function<void()> changed,
                           std::function<void(const std::string&)> log,
                           std::chrono::milliseconds retry)
    : client_(std::move(client)),
      key_(std::move(key)),
      changed_(std::move(changed)),
      log_(std::move(log)),
      retry_(retry) {}

EtcdKeyWatch::~EtcdKeyWatch() { Stop(); }

void EtcdKeyWatch::Start() {
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "fw-etcd-watch");
    Loop();
  });
}

void EtcdKeyWatch::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool EtcdKeyWatch::Stopping() {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

void EtcdKeyWatch::Loop() {
  const nlohmann::json request = {{"create_request", {{"key", Base64Encode(key_)}}}};
  std::string last_problem;
  while (!Stopping()) {
    bool canceled = false;  // etcd ended the watch (a compaction): open a new stream
    Status ended = client_->Stream(
        "/v3/watch", request,
        [&](const nlohmann::json& message) {
          const auto result = message.find("result");
          if (result == message.end() || !result->is_object()) return;
          if (result->value("canceled", false)) canceled = true;
          const auto events = result->find("events");
          // Created: what happened while nothing watched is unknown, so it counts as a change.
          if (result->value("created", false) ||
              (events != result->end() && events->is_array() && !events->empty())) {
            last_problem.clear();
            changed_();
          }
        },
        [&] { return canceled || Stopping(); });
    if (Stopping()) return;
    if (canceled) ended = {Code::kIo, "etcd canceled the watch"};
    if (ended.message != last_problem && log_) {
      log_("leader: the watch of " + key_ + " ended (" + ended.message + "); polling meanwhile");
    }
    last_problem = ended.message;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, retry_, [this] { return stop_; });
  }
}

}  // namespace fleetwave::store
