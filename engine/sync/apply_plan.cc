#include "engine/sync/apply_plan.h"

#include <algorithm>
#include <map>
#include <set>

namespace fleetwave::engine {
namespace {

// Reverse of the apply order: what lives in a namespace goes before the namespace, custom
// resources before their definition.
int DeleteRank(const ObjectRef& ref) {
  if (IsNamespace(ref)) return 2;
  if (IsCrd(ref)) return 1;
  return 0;
}

void SortForDeletion(std::vector<ObjectRef>& refs) {
  std::sort(refs.begin(), refs.end(), [](const ObjectRef& a, const ObjectRef& b) {
    const int ra = DeleteRank(a), rb = DeleteRank(b);
    return ra != rb ? ra < rb : a < b;
  });
}

}  // namespace

std::string NotManagedMessage(const ObjectRef& ref) {
  return ref.KindName() +
         " exists and is not managed by fleetwave; set fleetwave.io/adopt: \"true\" to adopt it";
}

ApplyPlan PlanApply(const AppIdentity& app, const std::vector<RenderedObject>& desired,
                    const LiveObjects& live, bool prune) {
  std::map<ObjectRef, const LiveObject*> by_ref;
  for (const auto& l : live) by_ref.emplace(l.ref, &l);
  ApplyPlan plan;
  std::set<ObjectRef> wanted;
  for (const auto& d : desired) {
    wanted.insert(d.ref);
    auto it = by_ref.find(d.ref);
    if (it == by_ref.end()) {
      plan.apply.push_back({d.ref, false, false});  // a create: nobody else owns any field
      continue;
    }
    const LiveObject& l = *it->second;
    if (l.IsTrackedBy(app)) {
      plan.apply.push_back({d.ref, true, false});
    } else if (l.AnnotationIsTrue(kAdoptAnnotation) ||
               AnnotationOf(d.object, kAdoptAnnotation) == "true") {
      // Adopted, not forced: a field another manager owns still conflicts and is reported.
      plan.apply.push_back({d.ref, false, true});
    } else {
      plan.refused.push_back({d.ref, NotManagedMessage(d.ref)});
    }
  }
  if (prune) {
    for (const auto& l : live) {
      if (wanted.count(l.ref) || !l.IsTrackedBy(app)) continue;
      (l.HasSyncOption("Prune=false") ? plan.prune_skipped : plan.prune).push_back(l.ref);
    }
    SortForDeletion(plan.prune);
    SortForDeletion(plan.prune_skipped);
  }
  return plan;
}

DeletePlan PlanAppDeletion(const AppIdentity& app, const LiveObjects& live,
                           bool preserve_resources) {
  DeletePlan plan;
  for (const auto& l : live) {
    if (!l.IsTrackedBy(app)) continue;
    if (preserve_resources) {
      plan.unmark.push_back(l.ref);
    } else if (l.HasSyncOption("Delete=false")) {
      plan.kept.push_back(
          {l.ref, l.ref.KindName() + " has Delete=false in its sync options; left in place"});
    } else if ((IsNamespace(l.ref) || IsCrd(l.ref)) &&
               !l.AnnotationIsTrue(kAllowDeleteAnnotation)) {
      plan.kept.push_back({l.ref, l.ref.KindName() +
                                      " is deleted only when annotated fleetwave.io/allow-delete: "
                                      "\"true\"; left in place"});
    } else {
      plan.delete_now.push_back(l.ref);
    }
  }
  SortForDeletion(plan.delete_now);
  SortForDeletion(plan.unmark);
  std::sort(plan.kept.begin(), plan.kept.end(),
            [](const ObjectRefusal& a, const ObjectRefusal& b) { return a.ref < b.ref; });
  plan.done = plan.delete_now.empty();
  return plan;
}

size_t SequentialApplyPrefix(const std::vector<RenderedObject>& objects) {
  size_t n = 0;
  while (n < objects.size() && (IsNamespace(objects[n].ref) || IsCrd(objects[n].ref))) ++n;
  return n;
}

}  // namespace fleetwave::engine
