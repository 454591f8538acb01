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

namespace fleetwave::store {

namespace {

std::string DecodedField(const nlohmann::json& kv, const char* field) {
  std::string out;
  const auto it = kv.find(field);
  if (it != kv.end() && it->is_string()) Base64Decode(it->get<std::string>(), &out);
  return out;
}

}  // namespace

EtcdPrefixWatch::EtcdPrefixWatch(std::unique_ptr<EtcdClient> client, std::string prefix,
                                 int64_t base, std::function<void(const Change&)> changed,
                                 std::function<void(const std::string&)> log,
                                 std::chrono::milliseconds retry)
    : client_(std::move(client)),
      layout_{client_->target().prefix},
      prefix_(std::move(prefix)),
      base_(base),
      changed_(std::move(changed)),
      log_(std::move(log)),
      retry_(retry) {}

EtcdPrefixWatch::~EtcdPrefixWatch() { Stop(); }

void EtcdPrefixWatch::Start() {
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "fw-etcd-mirror");
    Loop();
  });
}

void EtcdPrefixWatch::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool EtcdPrefixWatch::Stopping() {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

int64_t EtcdPrefixWatch::ReadAll(std::string* problem) {
  const std::string from = layout_.DataPrefix() + prefix_;
  const EtcdReply r = client_->Call(
      "/v3/kv/range",
      {{"key", Base64Encode(from)}, {"range_end", Base64Encode(PrefixRangeEnd(from))}}, true);
  if (!r.ok()) {
    *problem = r.status.message;
    return 0;
  }
  const auto header = r.body.find("header");
  const int64_t revision = header != r.body.end() ? JsonInt(*header, "revision") : 0;
  entries_.clear();
  const size_t skip = layout_.DataPrefix().size();
  const auto kvs = r.body.find("kvs");
  if (kvs != r.body.end() && kvs->is_array()) {
    for (const auto& kv : *kvs) {
      const std::string key = DecodedField(kv, "key");
      if (key.size() < skip) continue;
      entries_[key.substr(skip)] = {key.substr(skip), DecodedField(kv, "value"),
                                    JsonInt(kv, "mod_revision") - base_};
    }
  }
  return revision;
}

void EtcdPrefixWatch::Loop() {
  const std::string from = layout_.DataPrefix() + prefix_;
  const size_t skip = layout_.DataPrefix().size();
  std::string last_problem;
  while (!Stopping()) {
    std::string problem;
    const int64_t read_at = ReadAll(&problem);
    if (read_at > 0) {
      Change reset;
      reset.reset = true;
      reset.revision = read_at - base_;
      reset.entries = &entries_;
      changed_(reset);
      // From the revision after the read: nothing between the read and the watch is missed.
      const nlohmann::json request = {{"create_request",
                                       {{"key", Base64Encode(from)},
                                        {"range_end", Base64Encode(PrefixRangeEnd(from))},
                                        {"start_revision", std::to_string(read_at + 1)}}}};
      bool canceled = false;
      Status ended = client_->Stream(
          "/v3/watch", request,
          [&](const nlohmann::json& message) {
            const auto result = message.find("result");
            if (result == message.end() || !result->is_object()) return;
            if (result->value("canceled", false)) {
              canceled = true;
              return;
            }
            const auto events = result->find("events");
            if (events == result->end() || !events->is_array() || events->empty()) return;
            Change change;
            for (const auto& event : *events) {
              const auto kv = event.find("kv");
              if (kv == event.end() || !kv->is_object()) continue;
              const std::string key = DecodedField(*kv, "key");
              if (key.size() < skip) continue;
              const std::string store_key = key.substr(skip);
              // proto3 JSON leaves out the default: no "type" is a PUT.
              if (event.value("type", std::string("PUT")) == "DELETE") {
                entries_.erase(store_key);
              } else {
                entries_[store_key] = {store_key, DecodedField(*kv, "value"),
                                       JsonInt(*kv, "mod_revision") - base_};
              }
              change.keys.insert(store_key);
            }
            const auto header = result->find("header");
            change.revision =
                (header != result->end() ? JsonInt(*header, "revision") : read_at) - base_;
            change.entries = &entries_;
            last_problem.clear();
            changed_(change);
          },
          [&] { return canceled || Stopping(); });
      if (Stopping()) return;
      problem = canceled ? "etcd canceled the watch (compacted past its revision?)" : ended.message;
    }
    if (problem != last_problem && log_) {
      log_("state: the watch of " + prefix_ + " in etcd ended (" + problem +
           "); it reads the prefix again");
    }
    last_problem = problem;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, retry_, [this] { return stop_; });
  }
}

}  // namespace fleetwave::store
