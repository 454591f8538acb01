// Simulated pods. kubesim serves no Pod objects; a workload's pods live here, in memory,
// keyed by the uid of the object that owns them (a ReplicaSet, StatefulSet, DaemonSet or
// CloneSet). A pod is a revision, a creation time and the time it turns ready (never, for an
// image tag containing "fail"); controllers derive ready/available counts from them at `now`.
// Pods are lost on restart, as a simulator may. Not thread-safe: io thread only.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tools/kubesim/clock.h"

namespace fleetwave::kubesim {

struct SimPod {
  std::string revision;
  int ordinal = 0;  // StatefulSet ordinal / DaemonSet node index; otherwise a serial number
  TimePoint created{};
  std::optional<TimePoint> ready_at;  // nullopt: never ready

  bool Ready(TimePoint now) const { return ready_at && now >= *ready_at; }
  // Ready for at least `min_ready` (minReadySeconds).
  bool Available(TimePoint now, Duration min_ready) const {
    return ready_at && now >= *ready_at + min_ready;
  }
};

// A fresh pod of `revision` created at `now` that turns ready after `delay` (nullopt: never).
SimPod NewPod(std::string revision, int ordinal, TimePoint now, std::optional<Duration> delay);

class PodModel {
 public:
  // The pods of one owner, whose minReadySeconds is `min_ready` (so the model knows when each
  // pod turns available, not only ready).
  std::vector<SimPod>& PodsOf(const std::string& owner_uid, Duration min_ready) {
    Owner& o = pods_[owner_uid];
    o.min_ready = min_ready;
    return o.pods;
  }
  // Forgets the pods of owners that no longer exist (garbage collection of the simulation).
  void Retain(const std::set<std::string>& live_owner_uids);
  std::size_t owner_count() const { return pods_.size(); }
  // The earliest time after `now` at which some pod turns ready or available; nullopt when
  // none ever will. Until then the pods give a settled cluster nothing to do.
  std::optional<TimePoint> NextChangeAfter(TimePoint now) const;

 private:
  struct Owner {
    Duration min_ready{};
    std::vector<SimPod> pods;
  };
  std::map<std::string, Owner> pods_;
};

}  // namespace fleetwave::kubesim
