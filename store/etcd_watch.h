// A watch of one etcd key (issue 28): the leadership thread's way to learn at once that the
// leader key was deleted or expired (a resignation, a lease etcd let run out) or re-created,
// instead of at its next poll. Over the JSON gateway's streaming /v3/watch
// (EtcdClient::Stream), on a thread of its own; the stream is reopened after a failure (a
// member down, a compaction) with a pause of `retry`, and every (re)opening counts as a change,
// since something may have changed while nothing watched. A poll stays the caller's fallback:
// the watch only makes it earlier.
//
// Thread-safety: Start/Stop from the owning thread; `changed` and `log` run on the watch's
// thread, one at a time.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "store/etcd_client.h"

namespace fleetwave::store {

class EtcdKeyWatch {
 public:
  // `key`: the whole etcd key (EtcdLayout::Leader()).
  EtcdKeyWatch(std::unique_ptr<EtcdClient> client, std::string key, std::function<void()> changed,
               std::function<void(const std::string&)> log,
               std::chrono::milliseconds retry = std::chrono::milliseconds(1000));
  ~EtcdKeyWatch();
  EtcdKeyWatch(const EtcdKeyWatch&) = delete;
  EtcdKeyWatch& operator=(const EtcdKeyWatch&) = delete;

  void Start();
  // Ends the stream and the thread; bounded by about a second (curl's progress callback).
  void Stop();

 private:
  void Loop();
  bool Stopping();

  std::unique_ptr<EtcdClient> client_;
  const std::string key_;
  const std::function<void()> changed_;
  const std::function<void(const std::string&)> log_;
  const std::chrono::milliseconds retry_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace fleetwave::store
