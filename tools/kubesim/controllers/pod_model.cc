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

std::optional<TimePoint> PodModel::NextChangeAfter(TimePoint now) const {
  std::optional<TimePoint> next;
  auto consider = [&](TimePoint t) {
    if (t > now && (!next || t < *next)) next = t;
  };
  for (const auto& [uid, owner] : pods_)
    for (const auto& p : owner.pods)
      if (p.ready_at) {
        consider(*p.ready_at);
        consider(*p.ready_at + owner.min_ready);
      }
  return next;
}

}  // namespace fleetwave::kubesim
