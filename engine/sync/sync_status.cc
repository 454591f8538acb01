#include "engine/sync/sync_status.h"

#include <map>
#include <set>

#include "engine/sync/drift.h"

namespace fleetwave::engine {
namespace {

std::string StringMember(const Json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

ObjectSync Compare(const RenderedObject& d, const LiveObject* l,
                   const std::vector<IgnoreDifference>& ignore) {
  ObjectSync s;
  s.ref = d.ref;
  if (l == nullptr) {
    s.status = SyncCode::kOutOfSync;
    s.reason = SyncReason::kMissing;
    s.message = d.ref.KindName() + " is missing";
    return s;
  }
  const std::string live_hash = l->Annotation(kAppliedHashAnnotation);
  if (live_hash != d.applied_hash) {
    s.status = SyncCode::kOutOfSync;
    s.reason = SyncReason::kHashDiffers;
    s.message = d.ref.KindName() + " differs from the desired state (applied hash " +
                (live_hash.empty() ? std::string("none") : live_hash) + ", desired " +
                d.applied_hash + ")";
    return s;
  }
  if (l->managed_values.is_null()) return s;  // nothing known of the live values
  // Copying the rendered object to normalise it was a third of an event's cost, and only a
  // Secret changes.
  const bool normalise = ChangedByNormalising(d.ref);
  const Json normalised = normalise ? NormaliseForComparison(d.ref, d.object) : Json();
  const auto pointer = FirstDifference(normalise ? normalised : d.object, l->managed_values,
                                       l->managed_fields, IgnoredPointersFor(ignore, d.ref));
  if (pointer) {
    s.status = SyncCode::kOutOfSync;
    s.reason = SyncReason::kFieldDrift;
    s.pointer = *pointer;
    s.message = d.ref.KindName() + " has drifted at " + s.pointer;
  }
  return s;
}

}  // namespace

std::string_view SyncCodeName(SyncCode code) {
  switch (code) {
    case SyncCode::kSynced:
      return "Synced";
    case SyncCode::kOutOfSync:
      return "OutOfSync";
    case SyncCode::kUnknown:
      return "Unknown";
  }
  return "Unknown";
}

std::vector<IgnoreDifference> DecodeIgnoreDifferences(const Json& app_spec) {
  std::vector<IgnoreDifference> out;
  if (!app_spec.is_object()) return out;
  auto list = app_spec.find("ignoreDifferences");
  if (list == app_spec.end() || !list->is_array()) return out;
  for (const auto& e : *list) {
    if (!e.is_object()) continue;
    IgnoreDifference d{StringMember(e, "group"),
                       StringMember(e, "kind"),
                       StringMember(e, "name"),
                       StringMember(e, "namespace"),
                       {}};
    auto ptrs = e.find("jsonPointers");
    if (d.kind.empty() || ptrs == e.end() || !ptrs->is_array()) continue;
    for (const auto& p : *ptrs) {
      if (p.is_string() && !p.get<std::string>().empty() && p.get<std::string>()[0] == '/') {
        d.json_pointers.push_back(p.get<std::string>());
      }
    }
    if (!d.json_pointers.empty()) out.push_back(std::move(d));
  }
  return out;
}

std::vector<std::string> IgnoredPointersFor(const std::vector<IgnoreDifference>& ignore,
                                            const ObjectRef& ref) {
  std::vector<std::string> out;
  for (const auto& d : ignore) {
    if (d.group != ref.group || d.kind != ref.kind) continue;
    if (!d.name.empty() && d.name != ref.name) continue;
    if (!d.namespace_.empty() && d.namespace_ != ref.namespace_) continue;
    out.insert(out.end(), d.json_pointers.begin(), d.json_pointers.end());
  }
  return out;
}

AppSync CompareApp(const AppIdentity& app, const std::vector<RenderedObject>& desired,
                   const LiveObjects& live, const std::vector<IgnoreDifference>& ignore,
                   bool reachable) {
  AppSync out;
  if (!reachable) {
    out.status = SyncCode::kUnknown;
    out.reason = SyncReason::kUnreachable;
    out.message = "cluster is unreachable";
    return out;
  }
  std::map<ObjectRef, const LiveObject*> by_ref;
  for (const auto& l : live) by_ref.emplace(l.ref, &l);
  std::set<ObjectRef> wanted;
  for (const auto& d : desired) {
    wanted.insert(d.ref);
    auto it = by_ref.find(d.ref);
    out.objects.push_back(Compare(d, it == by_ref.end() ? nullptr : it->second, ignore));
  }
  for (const auto& [ref, l] : by_ref) {
    if (wanted.count(ref) || !l->IsTrackedBy(app)) continue;
    // Argo shows resources that need pruning as OutOfSync, Prune=false or not: the cluster
    // holds something git no longer has.
    out.objects.push_back({ref, SyncCode::kOutOfSync, SyncReason::kExtraneous, "",
                           ref.KindName() + " is no longer desired (needs pruning)"});
  }
  int out_of_sync = 0;
  for (const auto& o : out.objects) {
    if (o.status != SyncCode::kOutOfSync) continue;
    if (out_of_sync++ == 0) {
      out.status = SyncCode::kOutOfSync;
      out.reason = o.reason;
      out.message = o.message;
    }
    if (o.reason == SyncReason::kFieldDrift && !out.drift) out.drift = Drift{o.ref, o.pointer};
  }
  if (out_of_sync > 1) out.message += " (+" + std::to_string(out_of_sync - 1) + " more)";
  return out;
}

NewRevisionAction DecideNewRevision(const AppSync& at_new_revision) {
  switch (at_new_revision.status) {
    case SyncCode::kSynced:
      return NewRevisionAction::kFastForward;
    case SyncCode::kOutOfSync:
      return NewRevisionAction::kSync;
    case SyncCode::kUnknown:
      return NewRevisionAction::kWait;
  }
  return NewRevisionAction::kWait;
}

}  // namespace fleetwave::engine
