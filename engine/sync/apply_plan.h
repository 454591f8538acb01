// What a sync does to one cluster for one Application, and what deleting the Application
// does: which rendered objects are applied (and whether with force), which existing objects
// are refused because fleetwave does not own them, which tracked objects are pruned, and
// which are deleted when the app goes away. Ownership is the tracking-id annotation only
// (engine/sync/tracking.h): nothing without this app's exact id is ever forced, pruned or deleted.
#pragma once

#include <string>
#include <vector>

#include "engine/appset/render.h"
#include "engine/live_objects.h"
#include "engine/object_ref.h"
#include "engine/sync/tracking.h"

namespace fleetwave::engine {

struct ApplyAction {
  ObjectRef ref;
  bool force = false;  // server-side apply force=true: only for objects this app already owns
  bool adopt = false;  // an existing unowned object taken over through fleetwave.io/adopt
  bool operator==(const ApplyAction&) const = default;
};

struct ObjectRefusal {
  ObjectRef ref;
  std::string message;
  bool operator==(const ObjectRefusal&) const = default;
};

struct ApplyPlan {
  std::vector<ApplyAction> apply;        // in render order (Namespaces, CRDs, the rest)
  std::vector<ObjectRefusal> refused;    // existing objects fleetwave may not touch
  std::vector<ObjectRef> prune;          // tracked, no longer desired: delete (prune sync only)
  std::vector<ObjectRef> prune_skipped;  // tracked, no longer desired, Prune=false
};

// `desired` is Render's output; `live` every live object of interest (the desired ones that
// exist and everything carrying this app's label). `prune` is the sync's prune flag; without
// it nothing is pruned or listed as skipped.
//
// Adoption: an existing object whose tracking id is not this app's is refused with
// `<kind>/<name> exists and is not managed by fleetwave; set fleetwave.io/adopt: "true" to
// adopt it`, unless the live object (or the manifest) is annotated fleetwave.io/adopt: "true".
ApplyPlan PlanApply(const AppIdentity& app, const std::vector<RenderedObject>& desired,
                    const LiveObjects& live, bool prune);

struct DeletePlan {
  // Tracked objects to delete (background propagation): ordinary objects first, then CRDs,
  // then Namespaces; by identity within each group.
  std::vector<ObjectRef> delete_now;
  std::vector<ObjectRefusal> kept;  // tracked objects deletion leaves in place, with why
  // preserveResourcesOnDeletion: objects whose tracking marks are removed instead.
  std::vector<ObjectRef> unmark;
  // Nothing left to delete: the app's deletion is complete once the objects of previous
  // plans are gone, i.e. when a plan over the current live objects has delete_now empty.
  bool done = false;
};

// Deleting an Application: every live object tracked by `app`, except those with Delete=false
// in either sync-options annotation, and Namespaces and CRDs unless annotated
// fleetwave.io/allow-delete: "true". With `preserve_resources` nothing is deleted and every
// tracked object is unmarked.
DeletePlan PlanAppDeletion(const AppIdentity& app, const LiveObjects& live,
                           bool preserve_resources);

// `<kind>/<name> exists and is not managed by fleetwave; set fleetwave.io/adopt: "true" to
// adopt it`.
std::string NotManagedMessage(const ObjectRef& ref);

// How many of an apply's objects, from the front, go out one after another before the rest are
// sent at once: the leading Namespaces and CRDs (render order puts them first), so that the
// objects in a namespace, and the custom resources of a new kind, find it there. Pinned by
// apply_plan_test.cc SequentialApplyPrefix.
size_t SequentialApplyPrefix(const std::vector<RenderedObject>& objects);

}  // namespace fleetwave::engine
