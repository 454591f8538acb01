// What a standby's read API shows (issue 28; docs/state-store.md, "What a standby serves"): the
// leader's committed state, read from etcd through a watch of the store's "appsets/" prefix
// (store::EtcdPrefixWatch), decoded per set by engine::SharedAppSetViewOf and published into
// the daemon's one StatusBoard, so every read route, the fleet summaries and `fleetwave get`
// answer from it, and their watch streams carry on across a change of role.
//
// Active while this instance stands by: it publishes every set at once when activated (and
// removes the sets the board holds that the shared state does not, a former term's), then each
// set whose records changed. Inactive while it leads: the deciding actors publish, as without
// leader election. While active, the actors' own publishes of sets are dropped by the daemon
// (a former term's actors may still be stopping).
//
// Thread-safety: every method from any thread; OnChange comes from the watch's thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "actors/status_board.h"
#include "engine/yaml_json.h"
#include "store/etcd_watch.h"

namespace fleetwave::cli {

class SharedStateView {
 public:
  // `specs`: per set the spec summary ({"file", "strategy"}) this instance's own inputs give it.
  SharedStateView(actors::StatusBoard& board, std::map<std::string, engine::Json> specs,
                  std::function<void(const std::string&)> log);

  // The "appsets/" prefix watch's report.
  void OnChange(const store::EtcdPrefixWatch::Change& change);
  void SetActive(bool active);
  bool active() const { return active_.load(); }
  // The store revision the shown state is current at (0 before the first read).
  int64_t revision() const { return revision_.load(); }

 private:
  // Publishes the set's view (or removes it when it has no records). REQUIRES: mu_ held.
  void PublishLocked(const std::string& appset);

  actors::StatusBoard& board_;
  const std::map<std::string, engine::Json> specs_;
  const std::function<void(const std::string&)> log_;
  std::atomic<bool> active_{false};
  std::atomic<int64_t> revision_{0};
  std::mutex mu_;
  std::map<std::string, store::Entry> entries_;  // the mirror's copy
  std::set<std::string> shown_;                  // sets this view published
  std::map<std::string, std::string> problems_;  // set -> the decoding error logged last
};

}  // namespace fleetwave::cli
