// Which Applications to delete now when an ApplicationSet is deleted
// (pinned by tests/engine/rollingsync/deletion_plan_test.cc).
// With deletionOrder Reverse (RollingSync enabled) the apps go step by step from the last step
// to the first, all apps of one step together, and an earlier step starts only once every app
// of the later one is gone; apps no step selects go last. Otherwise everything goes at once.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "engine/appset/appset.h"
#include "engine/appset/generate.h"

namespace fleetwave::engine {

struct DeletionPlan {
  std::vector<std::string> delete_now;  // sorted by name; empty when done
  // 1-based step being deleted; -1 for the unmatched apps; 0 for all-at-once or done.
  int step = 0;
  bool done = false;  // every app is gone
};

// `apps` are the set's stored apps (their labels decide the steps, with the set's last good
// strategy); `gone` names the apps whose tracked objects are all gone from their cluster.
DeletionPlan PlanDeletion(const Strategy& strategy, const std::vector<GeneratedApplication>& apps,
                          const std::set<std::string>& gone);

}  // namespace fleetwave::engine
