#include "tools/kubesim/verbs.h"

#include "tools/kubesim/continue_token.h"
#include "tools/kubesim/conversion.h"
#include "tools/kubesim/defaults.h"
#include "tools/kubesim/ssa.h"

namespace fleetwave::kubesim {

Outcome Fail(const ApiError& e) { return {e.code, e.ToJson()}; }

namespace {

constexpr const char* kModified =
    "the object has been modified; please apply your changes to the latest version and try "
    "again";

ApiError NamespaceNotFound(const std::string& ns) { return NotFound("", "namespaces", ns); }

ApplyRequest OwnershipRequest(const Cluster& c, const ResourceType& t, const WriteContext& ctx) {
  ApplyRequest r;
  r.manager = ctx.manager;
  r.api_version = t.ApiVersion(ctx.version);
  r.scope =
      ctx.status ? FieldScope::kStatus : (t.has_status ? FieldScope::kMain : FieldScope::kAll);
  r.subresource = ctx.status ? "status" : "";
  r.now = FormatTime(c.clock().Now());
  return r;
}

// Equal up to the timestamps in managedFields: such a write changes nothing.
bool SameContent(Json a, Json b) {
  for (Json* o : {&a, &b}) {
    auto& md = (*o)["metadata"];
    md.erase("resourceVersion");
    if (md.contains("managedFields"))
      for (auto& e : md["managedFields"]) e.erase("time");
  }
  return a == b;
}

bool HasFinalizers(const Json& object) {
  const auto& md = object["metadata"];
  return md.contains("finalizers") && md["finalizers"].is_array() && !md["finalizers"].empty();
}

// Decoding into the kind's schema drops fields it does not define (Ignore/Warn validation).
void DropUnknownFields(const ResourceType& t, Json& object) {
  for (const auto& f : UnknownFields(t, object)) {
    if (f.rfind("metadata.", 0) == 0)
      object["metadata"].erase(f.substr(9));
    else
      object.erase(f);
  }
}

bool Deleting(const Json& object) { return object["metadata"].contains("deletionTimestamp"); }

Outcome Served(const ResourceType& t, const std::string& version, Json stored, int code = 200) {
  return {code, ToServedVersion(t, std::move(stored), version)};
}

// Checks the target namespace of a namespaced write: it must exist and not be terminating.
std::optional<ApiError> CheckNamespace(Cluster& c, const ResourceType& t, const std::string& ns,
                                       bool creating) {
  if (!t.namespaced) return std::nullopt;
  auto nsobj = c.store().Get(kNamespaces, "", ns);
  if (!nsobj) return NamespaceNotFound(ns);
  if (creating && Deleting(*nsobj))
    return Forbidden(t.plural + " \"\" is forbidden: unable to create new content in namespace " +
                     ns + " because it is being terminated");
  return std::nullopt;
}

// The shared tail of create and create-by-apply: identity, defaults, validation, storage.
Outcome FinishCreate(Cluster& c, const ResourceType& t, Json obj, const WriteContext& ctx,
                     bool track) {
  auto& md = obj["metadata"];
  std::string name = md.value("name", "");
  std::string ns = t.namespaced ? md.value("namespace", "") : "";
  if (c.store().Contains(t.id, ns, name)) {
    ApiError e = AlreadyExists(t.group, t.plural, name);
    return Fail(e);
  }
  if (auto err = CheckNamespace(c, t, ns, true)) return Fail(*err);
  md["uid"] = c.NewUid();
  md["creationTimestamp"] = FormatTime(c.clock().Now());
  for (const char* k : {"resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds",
                        "selfLink", "generation"})
    md.erase(k);
  if (t.has_generation) md["generation"] = 1;
  // The main resource of a kind with a status subresource starts with an empty status.
  if (t.has_status) obj["status"] = InitialStatus(t);
  DropUnknownFields(t, obj);
  ApplyDefaults(t, obj);
  auto causes = Validate(t, obj);
  if (!causes.empty()) return Fail(Invalid(t.group, t.kind, name, std::move(causes)));
  if (track) TrackUpdate(nullptr, obj, OwnershipRequest(c, t, ctx));
  if (ctx.dry_run) return Served(t, ctx.version, std::move(obj), 201);
  return Served(t, ctx.version, c.Commit(t.id, std::move(obj), EventType::kAdded), 201);
}

// The shared tail of update, patch and apply: keeps server-owned fields, bumps generation,
// tracks ownership, and completes a deletion once the last finalizer is gone.
Outcome FinishUpdate(Cluster& c, const ResourceType& t, const Json& old, Json next,
                     const WriteContext& ctx, bool track) {
  const auto& omd = old["metadata"];
  auto& md = next["metadata"];
  if (!md.is_object()) md = Json::object();
  for (const char* k : {"uid", "creationTimestamp", "generation", "deletionTimestamp",
                        "deletionGracePeriodSeconds", "name", "namespace"}) {
    if (omd.contains(k))
      md[k] = omd[k];
    else
      md.erase(k);
  }
  if ((!md.contains("managedFields") || md["managedFields"].empty()) &&
      omd.contains("managedFields"))
    md["managedFields"] = omd["managedFields"];
  if (ctx.status) {
    // Only status changes through the subresource.
    Json merged = old;
    merged["status"] = next.value("status", Json::object());
    merged["metadata"]["managedFields"] = md.value("managedFields", Json::array());
    next = std::move(merged);
  } else if (t.has_status) {
    if (old.contains("status"))
      next["status"] = old["status"];
    else
      next.erase("status");
  }
  DropUnknownFields(t, next);
  ApplyDefaults(t, next);
  auto causes = Validate(t, next);
  if (!causes.empty())
    return Fail(Invalid(t.group, t.kind, omd.value("name", ""), std::move(causes)));
  if (t.has_generation && next.value("spec", Json()) != old.value("spec", Json()))
    md["generation"] = omd.value("generation", 0) + 1;
  if (track) TrackUpdate(&old, next, OwnershipRequest(c, t, ctx));
  next["metadata"]["resourceVersion"] = omd["resourceVersion"];
  if (SameContent(old, next)) return Served(t, ctx.version, old);
  if (ctx.dry_run) return Served(t, ctx.version, std::move(next));
  if (Deleting(next) && !HasFinalizers(next))
    return Served(t, ctx.version, c.Erase(t.id, std::move(next)));
  if (Deleting(next)) c.MarkLifecyclePending();
  return Served(t, ctx.version, c.Commit(t.id, std::move(next), EventType::kModified));
}

// fieldValidation=Strict, as far as kubesim knows the schema (top level and metadata).
std::optional<ApiError> CheckStrict(const ResourceType& t, const WriteContext& ctx,
                                    const Json& object) {
  if (!ctx.strict) return std::nullopt;
  auto unknown = UnknownFields(t, object);
  if (unknown.empty()) return std::nullopt;
  std::string msg = t.kind + " in version \"" + ctx.version + "\" cannot be handled as a " +
                    t.kind + ": strict decoding error: ";
  for (std::size_t i = 0; i < unknown.size(); ++i)
    msg += (i ? ", " : "") + std::string("unknown field \"") + unknown[i] + "\"";
  return BadRequest(msg);
}

std::optional<ApiError> CheckBodyKind(const ResourceType& t, const std::string& version,
                                      const Json& body) {
  if (!body.is_object()) return BadRequest("the body of the request must be a JSON object");
  if (body.contains("kind") && body["kind"] != t.kind)
    return BadRequest("the API version in the data (" + body.value("apiVersion", "") +
                      ") does not match the expected API version (" + t.ApiVersion(version) + ")");
  if (body.contains("apiVersion") && body["apiVersion"] != t.ApiVersion(version))
    return BadRequest("the API version in the data (" + body.value("apiVersion", "") +
                      ") does not match the expected API version (" + t.ApiVersion(version) + ")");
  if (!body.contains("metadata") || !body["metadata"].is_object())
    return BadRequest("Object 'metadata' is missing or not an object");
  return std::nullopt;
}

}  // namespace

Outcome GetObject(Cluster& c, const ResourceType& t, const std::string& version,
                  const std::string& ns, const std::string& name) {
  auto obj = c.store().Get(t.id, t.namespaced ? ns : "", name);
  if (!obj) return Fail(NotFound(t.group, t.plural, name));
  return Served(t, version, std::move(*obj));
}

Outcome ListObjects(Cluster& c, const ResourceType& t, const std::string& version,
                    const ListParams& p, Duration continue_window) {
  ContinueToken token;
  token.resource_version = c.resource_version();
  token.issued = c.clock().Now();
  if (!p.continue_token.empty()) {
    auto decoded = ContinueToken::Decode(p.continue_token);
    if (!decoded)
      return Fail(
          BadRequest("continue key is not valid: incorrect encoded start "
                     "resourceVersion (version meta.k8s.io/v1)"));
    token = *decoded;
    if (token.ExpiredAt(c.clock().Now(), continue_window) ||
        token.resource_version < c.hub().compacted_rv())
      return Fail(Expired(
          "The provided continue parameter is too old to display a consistent list result. You "
          "can start a new list without the continue parameter, or use the continue token in "
          "this response to retrieve the remainder of the results. Continuing with the provided "
          "token results in an inconsistent list - objects that were created, modified, or "
          "deleted between the time the first chunk was returned and now may show up in the "
          "list."));
  }
  Json items = Json::array();
  std::string last_key;
  bool more = false;
  long long remaining = 0;
  c.store().Scan(t.id, t.namespaced ? p.ns : "", token.start_after,
                 [&](const std::string& key, const Json& obj) {
                   if (!p.labels.Matches(obj) || !p.fields.Matches(obj)) return true;
                   if (p.limit > 0 && static_cast<long long>(items.size()) >= p.limit) {
                     more = true;
                     ++remaining;
                     return true;
                   }
                   items.push_back(ToServedVersion(t, obj, version));
                   last_key = key;
                   return true;
                 });
  Json meta = {{"resourceVersion", std::to_string(token.resource_version)}};
  if (more) {
    ContinueToken next = token;
    next.start_after = last_key;
    meta["continue"] = next.Encode();
    // Like the API server, only an unfiltered list knows how many items remain.
    if (p.labels.empty() && p.fields.empty()) meta["remainingItemCount"] = remaining;
  }
  return {200,
          {{"kind", t.kind + "List"},
           {"apiVersion", t.ApiVersion(version)},
           {"metadata", meta},
           {"items", items}}};
}

Outcome CreateObject(Cluster& c, const ResourceType& t, const std::string& ns, Json body,
                     const WriteContext& ctx) {
  if (t.read_only)
    return Fail(
        MethodNotAllowed("create is not supported on resources of kind \"" + t.plural + "\""));
  if (auto err = CheckBodyKind(t, ctx.version, body)) return Fail(*err);
  if (auto err = CheckStrict(t, ctx, body)) return Fail(*err);
  Json obj = ToStorageVersion(t, std::move(body), ctx.version);
  auto& md = obj["metadata"];
  if (t.namespaced) {
    std::string body_ns = md.value("namespace", "");
    if (!body_ns.empty() && body_ns != ns)
      return Fail(
          BadRequest("the namespace of the provided object does not match the "
                     "namespace sent on the request"));
    md["namespace"] = ns;
  } else {
    md.erase("namespace");
  }
  if (md.value("name", "").empty()) {
    std::string prefix = md.value("generateName", "");
    if (prefix.empty())
      return Fail(Invalid(t.group, t.kind, "",
                          {{"FieldValueRequired",
                            "Required value: name or generateName is required", "metadata.name"}}));
    md["name"] = prefix + c.RandomSuffix(5);
  }
  return FinishCreate(c, t, std::move(obj), ctx, true);
}

Outcome UpdateObject(Cluster& c, const ResourceType& t, const std::string& ns,
                     const std::string& name, Json body, const WriteContext& ctx) {
  if (t.read_only)
    return Fail(
        MethodNotAllowed("update is not supported on resources of kind \"" + t.plural + "\""));
  if (auto err = CheckBodyKind(t, ctx.version, body)) return Fail(*err);
  if (auto err = CheckStrict(t, ctx, body)) return Fail(*err);
  std::string key_ns = t.namespaced ? ns : "";
  auto old = c.store().Get(t.id, key_ns, name);
  if (!old) return Fail(NotFound(t.group, t.plural, name));
  if (body["metadata"].value("name", name) != name)
    return Fail(BadRequest("the name of the object (" + body["metadata"].value("name", "") +
                           ") does not match the name on the URL (" + name + ")"));
  std::string rv = body["metadata"].value("resourceVersion", "");
  if (!rv.empty() && rv != (*old)["metadata"]["resourceVersion"])
    return Fail(Conflict(t.group, t.plural, name, kModified));
  Json next = ToStorageVersion(t, std::move(body), ctx.version);
  return FinishUpdate(c, t, *old, std::move(next), ctx, true);
}

Outcome PatchObject(Cluster& c, const ResourceType& t, const std::string& ns,
                    const std::string& name, const Json& patch, PatchType type, bool force,
                    const WriteContext& ctx) {
  if (t.read_only)
    return Fail(
        MethodNotAllowed("patch is not supported on resources of kind \"" + t.plural + "\""));
  std::string key_ns = t.namespaced ? ns : "";
  auto old = c.store().Get(t.id, key_ns, name);
  if (type == PatchType::kApply) {
    if (ctx.manager.empty())
      return Fail(
          BadRequest("PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required "
                     "value: is required for apply patch"));
    if (auto err = CheckBodyKind(t, ctx.version, patch)) return Fail(*err);
    if (auto err = CheckStrict(t, ctx, patch)) return Fail(*err);
    if (!patch.contains("apiVersion") || !patch.contains("kind"))
      return Fail(BadRequest("apiVersion and kind must be set in an apply configuration"));
    if (patch["metadata"].value("name", name) != name)
      return Fail(BadRequest("the name of the object (" + patch["metadata"].value("name", "") +
                             ") does not match the name on the URL (" + name + ")"));
    Json applied = ToStorageVersion(t, patch, ctx.version);
    applied["metadata"]["name"] = name;
    if (t.namespaced) applied["metadata"]["namespace"] = ns;
    ApplyRequest req = OwnershipRequest(c, t, ctx);
    req.force = force;
    if (!old) {
      if (ctx.status) return Fail(NotFound(t.group, t.plural, name));
      ApplyOutcome result = Apply(Json(), applied, req);
      Json obj = std::move(result.object);
      obj["apiVersion"] = applied["apiVersion"];
      obj["kind"] = t.kind;
      return FinishCreate(c, t, std::move(obj), ctx, false);
    }
    ApplyOutcome result = Apply(*old, applied, req);
    if (!result.conflicts.empty())
      return Fail(ConflictError(result.conflicts, t.group, t.plural, name));
    return FinishUpdate(c, t, *old, std::move(result.object), ctx, false);
  }
  if (!old) return Fail(NotFound(t.group, t.plural, name));
  Json served = ToServedVersion(t, *old, ctx.version);
  std::string error;
  auto patched = ApplyPatch(served, patch, type, &error);
  if (!patched) return Fail({422, "Invalid", error});
  if (!patched->is_object() || !(*patched).contains("metadata"))
    return Fail(BadRequest("the patched object has no metadata"));
  if (auto err = CheckStrict(t, ctx, *patched)) return Fail(*err);
  std::string rv = (*patched)["metadata"].value("resourceVersion", "");
  if (!rv.empty() && rv != (*old)["metadata"]["resourceVersion"])
    return Fail(Conflict(t.group, t.plural, name, kModified));
  Json next = ToStorageVersion(t, std::move(*patched), ctx.version);
  return FinishUpdate(c, t, *old, std::move(next), ctx, true);
}

namespace {

Json ScaleOf(const Json& obj) {
  const Json& md = obj["metadata"];
  Json meta = {{"name", md["name"]},
               {"uid", md.value("uid", "")},
               {"resourceVersion", md.value("resourceVersion", "")},
               {"creationTimestamp", md.value("creationTimestamp", "")}};
  if (md.contains("namespace")) meta["namespace"] = md["namespace"];
  std::string selector;
  const Json spec = obj.value("spec", Json::object());
  if (spec.contains("selector") && spec["selector"].contains("matchLabels"))
    for (auto it = spec["selector"]["matchLabels"].begin();
         it != spec["selector"]["matchLabels"].end(); ++it)
      selector += (selector.empty() ? "" : ",") + it.key() + "=" + it.value().get<std::string>();
  const Json status = obj.value("status", Json::object());
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", meta},
          {"spec", {{"replicas", spec.value("replicas", 0)}}},
          {"status", {{"replicas", status.value("replicas", 0)}, {"selector", selector}}}};
}

}  // namespace

Outcome GetScale(Cluster& c, const ResourceType& t, const std::string& ns,
                 const std::string& name) {
  auto obj = c.store().Get(t.id, ns, name);
  if (!obj) return Fail(NotFound(t.group, t.plural, name));
  return {200, ScaleOf(*obj)};
}

Outcome UpdateScale(Cluster& c, const ResourceType& t, const std::string& ns,
                    const std::string& name, const Json& body, std::optional<PatchType> type,
                    const WriteContext& ctx) {
  auto obj = c.store().Get(t.id, ns, name);
  if (!obj) return Fail(NotFound(t.group, t.plural, name));
  Json scale = ScaleOf(*obj);
  if (type) {
    std::string error;
    auto patched = ApplyPatch(scale, body, *type, &error);
    if (!patched) return Fail({422, "Invalid", error});
    scale = std::move(*patched);
  } else {
    scale = body;
  }
  if (!scale.contains("spec") || !scale["spec"].contains("replicas") ||
      !scale["spec"]["replicas"].is_number_integer())
    return Fail(Invalid("autoscaling", "Scale", name,
                        {{"FieldValueRequired", "Required value", "spec.replicas"}}));
  std::string rv = scale.contains("metadata") ? scale["metadata"].value("resourceVersion", "") : "";
  if (!rv.empty() && rv != (*obj)["metadata"]["resourceVersion"])
    return Fail(Conflict("autoscaling", "scales", name, kModified));
  Json next = *obj;
  next["spec"]["replicas"] = scale["spec"]["replicas"];
  WriteContext main = ctx;
  main.version = t.versions.front();
  main.status = false;
  Outcome out = FinishUpdate(c, t, *obj, std::move(next), main, true);
  if (out.code != 200) return out;
  return {200, ScaleOf(out.body)};
}

Outcome DeleteObject(Cluster& c, const ResourceType& t, const std::string& ns,
                     const std::string& name, const DeleteOptions& options) {
  if (t.read_only)
    return Fail(
        MethodNotAllowed("delete is not supported on resources of kind \"" + t.plural + "\""));
  std::string key_ns = t.namespaced ? ns : "";
  auto obj = c.store().Get(t.id, key_ns, name);
  if (!obj) return Fail(NotFound(t.group, t.plural, name));
  auto& md = (*obj)["metadata"];
  if (options.precondition_uid && *options.precondition_uid != md.value("uid", ""))
    return Fail(Conflict(t.group, t.plural, name,
                         "Precondition failed: UID in precondition: " + *options.precondition_uid +
                             ", UID in object meta: " + md.value("uid", "")));
  if (options.precondition_rv && *options.precondition_rv != md.value("resourceVersion", ""))
    return Fail(Conflict(
        t.group, t.plural, name,
        "Precondition failed: ResourceVersion in precondition: " + *options.precondition_rv +
            ", ResourceVersion in object meta: " + md.value("resourceVersion", "")));
  std::string version = t.versions.front();
  if (Deleting(*obj)) return Served(t, version, std::move(*obj));
  if (options.dry_run) return Served(t, version, std::move(*obj));

  if (t.id == kNamespaces) {
    // Namespaces terminate: their contents go first, over controller ticks.
    md["deletionTimestamp"] = FormatTime(c.clock().Now());
    (*obj)["status"]["phase"] = "Terminating";
    c.MarkLifecyclePending();
    return Served(t, version, c.Commit(t.id, std::move(*obj), EventType::kModified));
  }
  auto add_finalizer = [&md](const char* f) {
    if (!md.contains("finalizers") || !md["finalizers"].is_array())
      md["finalizers"] = Json::array();
    for (const auto& e : md["finalizers"])
      if (e == f) return;
    md["finalizers"].push_back(f);
  };
  if (options.propagation == "Foreground") add_finalizer("foregroundDeletion");
  if (options.propagation == "Orphan") add_finalizer("orphan");
  // Background deletion leaves dependents for the garbage collector.
  c.MarkLifecyclePending();
  if (HasFinalizers(*obj)) {
    md["deletionTimestamp"] = FormatTime(c.clock().Now());
    md["deletionGracePeriodSeconds"] = 0;
    if (t.has_generation) md["generation"] = md.value("generation", 0) + 1;
    return Served(t, version, c.Commit(t.id, std::move(*obj), EventType::kModified));
  }
  std::string uid = md.value("uid", "");
  c.Erase(t.id, std::move(*obj));
  return {200, SuccessStatus(t.group, t.plural, name, uid)};
}

}  // namespace fleetwave::kubesim
