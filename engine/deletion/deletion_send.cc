#include "engine/deletion/deletion_send.h"

namespace fleetwave::engine {

DeleteSend PlanDeleteSend(const std::string& appset, const AppDeleteCommand& c,
                          const std::set<ObjectRef>& already_sent) {
  DeleteSend out;
  for (const auto& ref : c.plan.delete_now) {
    if (already_sent.count(ref) == 0) out.objects.push_back(ref);
  }
  for (const auto& ref : c.plan.unmark) {
    if (already_sent.count(ref) == 0) out.unmark.push_back(ref);
  }
  if (out.empty()) return out;
  const std::string who = "appset=" + appset + " app=" + c.app + " cluster=" + c.cluster;
  out.log =
      who +
      (out.objects.empty() ? std::string()
                           : " deleting " + std::to_string(out.objects.size()) + " object(s)") +
      (out.unmark.empty() ? std::string()
                          : " removing the tracking marks of " + std::to_string(out.unmark.size()) +
                                " object(s) (preserveResourcesOnDeletion)");
  for (const auto& kept : c.plan.kept) {
    out.kept.push_back(
        {"kept " + appset + "/" + c.app + "/" + kept.ref.KindName(), who + " " + kept.message});
  }
  return out;
}

}  // namespace fleetwave::engine
