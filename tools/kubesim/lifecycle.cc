#include "tools/kubesim/lifecycle.h"

#include <algorithm>
#include <set>
#include <vector>

#include "tools/kubesim/verbs.h"

namespace fleetwave::kubesim {

namespace {

struct Ref {
  const ResourceType* type;
  std::string ns;
  std::string name;
};

bool Deleting(const Json& o) { return o["metadata"].contains("deletionTimestamp"); }

bool HasFinalizer(const Json& o, const char* f) {
  const auto& md = o["metadata"];
  if (!md.contains("finalizers") || !md["finalizers"].is_array()) return false;
  for (const auto& e : md["finalizers"])
    if (e == f) return true;
  return false;
}

std::vector<std::string> OwnerUids(const Json& o) {
  std::vector<std::string> out;
  const auto& md = o["metadata"];
  if (md.contains("ownerReferences") && md["ownerReferences"].is_array())
    for (const auto& r : md["ownerReferences"])
      if (r.is_object() && r.contains("uid") && r["uid"].is_string()) out.push_back(r["uid"]);
  return out;
}

// Removes finalizer `f` through the normal update path (which erases the object when it was
// the last finalizer of a deleting object).
void DropFinalizer(Cluster& c, const ResourceType& t, Json obj, const char* f) {
  auto& fin = obj["metadata"]["finalizers"];
  fin.erase(std::remove(fin.begin(), fin.end(), Json(f)), fin.end());
  if (fin.empty()) obj["metadata"].erase("finalizers");
  WriteContext ctx;
  ctx.version = t.versions.front();
  ctx.manager = "kube-controller-manager";
  std::string ns = NamespaceOf(obj);
  std::string name = NameOf(obj);
  UpdateObject(c, t, ns, name, std::move(obj), ctx);
}

bool StepNamespaces(Cluster& c) {
  bool pending = false;
  std::vector<Json> terminating;
  c.store().Scan(kNamespaces, "", "", [&](const std::string&, const Json& ns) {
    if (Deleting(ns)) terminating.push_back(ns);
    return true;
  });
  for (auto& ns : terminating) {
    pending = true;
    std::string name = NameOf(ns);
    std::vector<Ref> contents;
    for (const auto& t : AllResources()) {
      if (!t.namespaced) continue;
      c.store().Scan(t.id, name, "", [&](const std::string&, const Json& o) {
        contents.push_back({&t, name, NameOf(o)});
        return true;
      });
    }
    if (!contents.empty()) {
      for (const auto& r : contents) {
        auto o = c.store().Get(r.type->id, r.ns, r.name);
        if (!o || Deleting(*o)) continue;
        if (r.type->read_only) {
          // Controller-owned kinds (events, replicasets) are not deletable by clients, but the
          // namespace controller removes them.
          c.Erase(r.type->id, std::move(*o));
          continue;
        }
        DeleteObject(c, *r.type, r.ns, r.name, {"Background", {}, {}, false});
      }
      continue;
    }
    // Empty: the "kubernetes" spec finalizer is done, then the namespace itself goes.
    if (ns.contains("spec") && ns["spec"].contains("finalizers") &&
        !ns["spec"]["finalizers"].empty()) {
      ns["spec"]["finalizers"] = Json::array();
      ns = c.Commit(kNamespaces, std::move(ns), EventType::kModified);
      continue;
    }
    if (!ns["metadata"].contains("finalizers") || ns["metadata"]["finalizers"].empty())
      c.Erase(kNamespaces, std::move(ns));
  }
  return pending;
}

bool StepGarbage(Cluster& c) {
  bool pending = false;
  std::set<std::string> live_uids;
  std::vector<std::pair<const ResourceType*, Json>> all;
  for (const auto& t : AllResources()) {
    c.store().Scan(t.id, "", "", [&](const std::string&, const Json& o) {
      live_uids.insert(o["metadata"].value("uid", ""));
      all.emplace_back(&t, o);
      return true;
    });
  }
  auto dependents_of = [&all](const std::string& uid) {
    std::vector<std::pair<const ResourceType*, Json>> out;
    for (const auto& [t, o] : all)
      for (const auto& u : OwnerUids(o))
        if (u == uid) out.emplace_back(t, o);
    return out;
  };
  for (auto& [t, o] : all) {
    std::string uid = o["metadata"].value("uid", "");
    if (Deleting(o) && HasFinalizer(o, "orphan")) {
      pending = true;
      for (auto& [dt, d] : dependents_of(uid)) {
        auto& refs = d["metadata"]["ownerReferences"];
        refs.erase(std::remove_if(refs.begin(), refs.end(),
                                  [&uid](const Json& r) { return r.value("uid", "") == uid; }),
                   refs.end());
        if (refs.empty()) d["metadata"].erase("ownerReferences");
        c.Commit(dt->id, d, EventType::kModified);
      }
      DropFinalizer(c, *t, o, "orphan");
      continue;
    }
    if (Deleting(o) && HasFinalizer(o, "foregroundDeletion")) {
      pending = true;
      auto deps = dependents_of(uid);
      if (deps.empty()) {
        DropFinalizer(c, *t, o, "foregroundDeletion");
      } else {
        for (auto& [dt, d] : deps) {
          if (Deleting(d)) continue;
          if (dt->read_only)
            c.Erase(dt->id, d);
          else
            DeleteObject(c, *dt, NamespaceOf(d), NameOf(d), {"Foreground", {}, {}, false});
        }
      }
      continue;
    }
    auto owners = OwnerUids(o);
    if (!owners.empty() && !Deleting(o) &&
        std::none_of(owners.begin(), owners.end(),
                     [&live_uids](const std::string& u) { return live_uids.count(u) > 0; })) {
      pending = true;
      if (t->read_only)
        c.Erase(t->id, o);
      else
        DeleteObject(c, *t, NamespaceOf(o), NameOf(o), {"Background", {}, {}, false});
    }
  }
  return pending;
}

}  // namespace

void LifecycleTick(Cluster& cluster) {
  if (!cluster.TakeLifecyclePending()) return;
  bool pending = StepNamespaces(cluster);
  pending = StepGarbage(cluster) || pending;
  if (pending) cluster.MarkLifecyclePending();
}

}  // namespace fleetwave::kubesim
