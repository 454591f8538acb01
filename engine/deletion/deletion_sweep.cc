#include "engine/deletion/deletion_sweep.h"

#include <set>

namespace fleetwave::engine {
namespace {

const std::map<std::string, DeletionAppView>& ViewsOf(const DeletionSweepInput& input,
                                                      const DeletionKey& key) {
  static const std::map<std::string, DeletionAppView> kNone;
  auto it = input.views.find(key);
  return it == input.views.end() ? kNone : it->second;
}

std::string ClusterOf(const DeletionRecord& r, const std::string& app) {
  std::string cluster;
  for (const auto& a : r.apps) {
    if (a.name == app) cluster = a.cluster;
  }
  return cluster;
}

// The log lines of one planned round, in the order the actor always wrote them.
void LogRound(const DeletionKey& key, const DeletionRecord& r, const DeletionRound& d,
              std::vector<std::string>& log) {
  if (r.phase == DeletionPhase::kPendingDeletion) {
    log.push_back(DeletionWho(key) + " Deleting (" + r.reason + ")" +
                  (r.strategy.ReverseDeletion() ? ", deletionOrder Reverse" : ""));
  }
  for (const auto& app : d.orphaned) {
    const std::string cluster = ClusterOf(r, app);
    log.push_back("appset=" + key.appset + " app=" + app + " cluster " +
                  (cluster.empty() ? "(none)" : cluster) +
                  " is no longer known; its objects are left in place");
  }
  for (const auto& app : d.newly_gone) {
    log.push_back("appset=" + key.appset + " app=" + app +
                  " deleted (its objects are gone from the cluster)");
  }
  if (d.record.step != r.step && !d.done && d.record.step != 0) {
    log.push_back("appset=" + key.appset + " deleting " +
                  (d.record.step < 0 ? std::string("the apps no step selects")
                                     : "step " + std::to_string(d.record.step)));
  }
}

}  // namespace

std::string DeletionWho(const DeletionKey& key) {
  return "appset=" + key.appset + (key.app.empty() ? std::string() : " app=" + key.app);
}

bool DeletionAppObserved(bool reachable, bool synced, bool label_listed) {
  return reachable && synced && label_listed;
}

DeletionSweep PlanDeletionSweep(const DeletionSweepInput& input) {
  DeletionSweep out;
  std::set<std::string> sets_deleting;
  for (const auto& [key, stored] : input.records) {
    if (key.app.empty()) sets_deleting.insert(key.appset);
  }
  for (const auto& [key, stored] : input.records) {
    const DeletionRecord& r = stored.record;
    const std::string held_key = "held " + key.appset + "/" + key.app;
    if (!input.inputs_trusted) {
      out.log_once.push_back(
          {held_key, DeletionWho(key) + " " + DeletionPhaseName(r.phase) +
                         " held: the inputs did not load (empty or unreadable ApplicationSet "
                         "directory, or a kubeconfig that failed); nothing is deleted until they "
                         "do"});
      continue;
    }
    out.forget.push_back(held_key);
    // An app of a set whose whole deletion is recorded goes with the set's round.
    if (!key.app.empty() && sets_deleting.count(key.appset) > 0) continue;
    if (r.phase == DeletionPhase::kPendingDeletion && r.due > input.now) {
      out.log_once.push_back({"pending " + key.appset + "/" + key.app + " " + FormatRfc3339(r.due),
                              DeletionWho(key) + " PendingDeletion (" + r.reason +
                                  "); deleted at " + FormatRfc3339(r.due) +
                                  " unless it reappears"});
      if (!out.wake_at || r.due < *out.wake_at) out.wake_at = r.due;
      continue;
    }
    out.watch.push_back(key);
    DeletionRound d = PlanDeletionRound(key.appset, r, ViewsOf(input, key));
    LogRound(key, r, d, out.log);
    if (d.done) {
      if (key.app.empty()) {
        out.sets_done.push_back(key.appset);
        out.log.push_back("appset=" + key.appset + " deleted");
        // Every deletion record of the set goes with it.
        for (const auto& [other, s] : input.records) {
          if (other.appset == key.appset) out.writes.push_back({other, std::nullopt, std::nullopt});
        }
      } else {
        out.writes.push_back({key, std::nullopt, stored.revision});
      }
      continue;
    }
    if (d.changed) out.writes.push_back({key, d.record, stored.revision});
    for (auto& c : d.commands) out.commands.emplace_back(key, std::move(c));
  }
  return out;
}

}  // namespace fleetwave::engine
