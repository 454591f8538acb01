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
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "store/etcd_client.h"
#include "store/etcd_store.h"

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

// A mirror of every store key under one prefix, kept current by a watch of that prefix (issue
// 28: a standby serves the leader's committed state, docs/state-store.md). It reads the prefix
// once (its keys and values at one etcd revision R), then watches the prefix from R + 1 and
// applies each put and delete in revision order; after the stream ends (a member down, a
// compaction past R, etcd cancelling it) it waits `retry` and reads the prefix again, reporting
// a reset. Keys are the Store's (relative to the data prefix, EtcdLayout), revisions are store
// revisions (etcd's less `base`), so what it holds is what EtcdStore::List would list.
//
// Thread-safety: Start/Stop from the owning thread; `changed` and `log` run on the watch's
// thread, one at a time, and the Change's entries are valid only during the call.
class EtcdPrefixWatch {
 public:
  struct Change {
    // The prefix was read afresh (the first read, or after the stream ended): any key may have
    // changed, and keys absent from `entries` are gone.
    bool reset = false;
    std::set<std::string> keys;  // put or deleted since the last call (when not a reset)
    int64_t revision = 0;        // the store revision everything under the prefix is current at
    const std::map<std::string, Entry>* entries = nullptr;  // the whole mirror after the change
  };

  // `prefix`: a store key prefix ("appsets/"); `base`: EtcdStore::base().
  EtcdPrefixWatch(std::unique_ptr<EtcdClient> client, std::string prefix, int64_t base,
                  std::function<void(const Change&)> changed,
                  std::function<void(const std::string&)> log,
                  std::chrono::milliseconds retry = std::chrono::milliseconds(1000));
  ~EtcdPrefixWatch();
  EtcdPrefixWatch(const EtcdPrefixWatch&) = delete;
  EtcdPrefixWatch& operator=(const EtcdPrefixWatch&) = delete;

  void Start();
  // Ends the stream and the thread; bounded by about a second (curl's progress callback).
  void Stop();

 private:
  void Loop();
  bool Stopping();
  // Reads the whole prefix into entries_; returns the etcd revision read at (0: failed).
  int64_t ReadAll(std::string* problem);

  std::unique_ptr<EtcdClient> client_;
  const EtcdLayout layout_;
  const std::string prefix_;
  const int64_t base_;
  const std::function<void(const Change&)> changed_;
  const std::function<void(const std::string&)> log_;
  const std::chrono::milliseconds retry_;
  std::map<std::string, Entry> entries_;  // the watch thread's only
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace fleetwave::store
