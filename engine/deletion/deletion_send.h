// What one delete command of a Deleting round sends to its cluster and says in the log
// (product §3.5): only the objects not asked for already in this process (a round repeats on
// every watch event while the objects are still going), the line naming how many are deleted
// or unmarked, and one line per object deletion leaves in place. Pure; the deletion actor
// keeps the refs it sent and forgets those whose delete failed.
// Pinned by tests/engine/deletion/deletion_send_test.cc.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "engine/deletion/deletion_state.h"
#include "engine/deletion/deletion_sweep.h"
#include "engine/object_ref.h"

namespace fleetwave::engine {

struct DeleteSend {
  std::vector<ObjectRef> objects;  // to delete (background propagation)
  std::vector<ObjectRef> unmark;   // preserveResourcesOnDeletion: tracking marks to remove
  std::string log;                 // "" when nothing is sent
  std::vector<LogOnceLine> kept;   // each kept object once per process
  bool empty() const { return objects.empty() && unmark.empty(); }
};

DeleteSend PlanDeleteSend(const std::string& appset, const AppDeleteCommand& command,
                          const std::set<ObjectRef>& already_sent);

}  // namespace fleetwave::engine
