#include "tools/kubesim/controllers/pod_model.h"

namespace fleetwave::kubesim {

SimPod NewPod(std::string revision, int ordinal, TimePoint now, std::optional<Duration> delay) {
  SimPod p;
  p.revision = std::move(revision);
  p.ordinal = ordinal;
  p.created = now;
  if (delay) p.ready_at = now + *delay;
  return p;
}

void PodModel::Retain(const std::set<std::string>& live_owner_uids) {
  for (auto it = pods_.begin(); it != pods_.end();) {
    if (live_owner_uids.count(it->first))
      ++it;
    else
      it = pods_.erase(it);
  }
}

TimePoint PodModel::NextReadyAfter(TimePoint now, TimePoint limit) const {
  TimePoint next = limit;
  for (const auto& [owner, pods] : pods_)
    for (const auto& p : pods)
      if (p.ready_at && *p.ready_at > now && *p.ready_at < next) next = *p.ready_at;
  return next;
}

}  // namespace fleetwave::kubesim
