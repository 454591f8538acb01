#include "tools/kubesim/simulator.h"

#include <cstdio>
#include <iostream>
#include <map>

#include "tools/kubesim/conversion.h"
#include "tools/kubesim/discovery.h"
#include "tools/kubesim/encoding.h"
#include "tools/kubesim/lifecycle.h"
#include "tools/kubesim/table.h"
#include "tools/kubesim/verbs.h"
#include "tools/kubesim/yaml_body.h"

namespace fleetwave::kubesim {

namespace {

using Query = std::map<std::string, std::string>;

Query ParseQuery(const std::string& query) {
  Query q;
  std::size_t start = 0;
  while (start <= query.size()) {
    std::size_t end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    std::string part = query.substr(start, end - start);
    if (!part.empty()) {
      std::size_t eq = part.find('=');
      if (eq == std::string::npos)
        q[UrlDecode(part)] = "";
      else
        q[UrlDecode(part.substr(0, eq))] = UrlDecode(part.substr(eq + 1));
    }
    start = end + 1;
  }
  return q;
}

std::vector<std::string> Segments(const std::string& path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (end > start) out.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// A path segment as a real API server reads it (Go decodes URL.Path): %XX decoded, '+' kept.
// nullopt when the segment cannot address anything: it decodes to hold a '/', or is "." or
// ".." (an API server answers 404 for either).
std::optional<std::string> DecodeSegment(const std::string& raw) {
  auto hex = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '%' && i + 2 < raw.size() && hex(raw[i + 1]) >= 0 && hex(raw[i + 2]) >= 0) {
      out += static_cast<char>(hex(raw[i + 1]) * 16 + hex(raw[i + 2]));
      i += 2;
    } else {
      out += raw[i];
    }
  }
  if (out.find('/') != std::string::npos || out == "." || out == "..") return std::nullopt;
  return out;
}

HttpResponse JsonResponse(int status, const Json& body) {
  return {status, "application/json", body.dump()};
}

HttpResponse Error(const ApiError& e) { return JsonResponse(e.code, e.ToJson()); }

bool Truthy(const Query& q, const char* key) {
  auto it = q.find(key);
  return it != q.end() && (it->second == "1" || it->second == "true" || it->second == "True");
}

std::string Get(const Query& q, const char* key) {
  auto it = q.find(key);
  return it == q.end() ? "" : it->second;
}

// The manager name API servers derive for writes without fieldManager: the User-Agent's
// first product token ("kubectl/v1.32.4 (linux/amd64) ..." -> "kubectl").
std::string DefaultManager(const std::string& user_agent) {
  std::string m = user_agent.substr(0, user_agent.find('/'));
  return m.empty() ? "unknown" : m;
}

}  // namespace

std::string ClusterToken(std::uint64_t seed, int index) {
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(index) + 1;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  char buf[64];
  std::snprintf(buf, sizeof buf, "kubesim-sim-%d-%016llx", index,
                static_cast<unsigned long long>(x));
  return buf;
}

Simulator::Simulator(SimulatorOptions options)
    : options_(std::move(options)), clock_(options_.manual_clock), scheduler_(options_.clusters) {
  for (int i = 0; i < options_.clusters; ++i) {
    clusters_.push_back(std::make_unique<Cluster>(i, ClusterToken(options_.seed, i), options_.seed,
                                                  clock_, options_.cluster));
    // Every cluster starts with the namespaces a fresh cluster has.
    Cluster& c = *clusters_.back();
    for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
      WriteContext ctx{"v1", "kube-apiserver", false, false};
      CreateObject(c, Resource(kNamespaces), "", Json{{"metadata", {{"name", ns}}}}, ctx);
    }
    // Every write, whoever makes it (a request, a controller, the garbage collector), gets
    // the cluster a step on the next tick.
    c.SetChangeListener([this](int index) {
      if (scheduler_.MarkActive(index) && !in_tick_ && wake_) wake_();
    });
  }
}

void Simulator::Tick() {
  TimePoint now = clock_.Now();
  ++ticks_;
  in_tick_ = true;
  ControllerManager& controllers = control_.controllers();
  for (int i : scheduler_.TakeDue(now)) {
    Cluster& c = *clusters_[i];
    ++cluster_steps_;
    try {
      LifecycleTick(c);
      control_.Tick(c);
    } catch (const std::exception& e) {
      std::cerr << "kubesim: internal error in " << c.name() << " tick: " << e.what() << "\n";
    }
    // Its own writes marked it active; it sleeps only when the step changed nothing.
    if (c.lifecycle_pending() || !controllers.Settled(i))
      scheduler_.MarkActive(i);
    else
      scheduler_.Sleep(i, controllers.NextDue(i));
  }
  in_tick_ = false;
  // History compaction is a per-second concern; doing it every tick for thousands of idle
  // clusters would cost CPU for nothing.
  if (now - last_compaction_ >= std::chrono::seconds(1)) {
    last_compaction_ = now;
    for (auto& c : clusters_) c->hub().Compact(now);
  }
}

Json Simulator::Stats() const {
  std::uint64_t decoded = 0, published = 0, serialised = 0, lines = 0, watches = 0;
  for (const auto& c : clusters_) {
    decoded += c->store().decodes();
    published += c->hub().events_published();
    serialised += c->hub().lines_serialised();
    lines += c->hub().lines_sent();
    watches += c->hub().watch_count();
  }
  const ControllerManager& controllers = control_.controllers();
  Json out = {{"ticks", ticks_},
              {"cluster_steps", cluster_steps_},
              {"controller_syncs", controllers.syncs()},
              {"workloads_synced", controllers.objects_synced()},
              {"objects_decoded", decoded},
              {"watch_events", published},
              {"watch_lines_serialised", serialised},
              {"watch_lines_sent", lines},
              {"watches_open", watches},
              {"clusters_active", scheduler_.active_count()},
              {"clusters_timed", scheduler_.timed_count()}};
  for (const auto& [name, n] : server_counters_) out[name] = n;
  return out;
}

HttpResponse Simulator::Admin(const HttpRequest& request, const std::string& path) {
  if (path == "/kubesim/healthz") return {200, "text/plain", "ok"};
  if (path == "/kubesim/stats") {
    if (request.method != "GET") return Error(MethodNotAllowed("use GET"));
    return JsonResponse(200, Stats());
  }
  if (auto r = control_.Admin(request.method, request.target, request.body, clusters_))
    return {r->status, r->content_type, r->body};
  if (path == "/kubesim/clock") {
    if (request.method == "POST") {
      if (!clock_.manual())
        return Error(BadRequest("the clock follows wall time; start with --manual-clock"));
      std::string error;
      auto body = ParseBody(request.body, false, &error);
      if (!body || !body->is_object() || !body->contains("advance") ||
          !(*body)["advance"].is_string())
        return Error(BadRequest("expected {\"advance\": \"5s\"}"));
      auto d = ParseDuration((*body)["advance"].get<std::string>());
      if (!d || d->count() < 0) return Error(BadRequest("invalid duration"));
      // Controllers step as if ticks had elapsed, bounded so huge jumps stay cheap.
      long long ticks = d->count() / (options_.tick_ms * 1000LL);
      ticks = std::max(1LL, std::min(ticks, 100LL));
      Duration step = *d / ticks;
      for (long long i = 0; i < ticks; ++i) {
        clock_.Advance(step);
        Tick();
      }
      clock_.Advance(*d - step * ticks);
    }
    return JsonResponse(200, {{"now", FormatMicroTime(clock_.Now())}, {"manual", clock_.manual()}});
  }
  return Error(NotFoundPath());
}

Dispatch Simulator::Handle(const HttpRequest& request, int bound_cluster) {
  // A bug in one request must not take down every simulated cluster: report it as a 500.
  try {
    Dispatch d = Route(request, bound_cluster);
    // Every mutating request is audited, failed ones included; a collection's reads only with
    // --audit-lists (ControlOptions::audit_lists).
    if (request.method != "GET" || options_.control.audit_lists) {
      int index = ControlPlane::ClusterOf(request.target, bound_cluster, cluster_count());
      control_.Audit({request.method, request.target, request.content_type, request.body,
                      request.user_agent, index, d.response.status, d.response.body,
                      index >= 0 ? clusters_[index].get() : nullptr},
                     clock_.Now());
    }
    return d;
  } catch (const std::exception& e) {
    std::cerr << "kubesim: internal error on " << request.method << " " << request.target << ": "
              << e.what() << "\n";
    return {Error({500, "InternalError", std::string("Internal error occurred: ") + e.what()}),
            std::nullopt};
  }
}

Dispatch Simulator::Route(const HttpRequest& request, int bound_cluster) {
  std::string path = request.target;
  std::string query;
  if (auto q = path.find('?'); q != std::string::npos) {
    query = path.substr(q + 1);
    path = path.substr(0, q);
  }
  if (path.rfind("/kubesim/", 0) == 0) return {Admin(request, path), std::nullopt};
  int index = bound_cluster;
  std::string prefix;
  if (index < 0) {
    auto segs = Segments(path);
    if (segs.size() < 2 || segs[0] != "clusters") return {Error(NotFoundPath()), std::nullopt};
    for (auto& c : clusters_)
      if (c->name() == segs[1]) index = c->index();
    if (index < 0) return {Error(NotFound("", "clusters", segs[1])), std::nullopt};
    prefix = "/clusters/" + segs[1];
    path = path.substr(prefix.size());
  }
  Cluster& c = *clusters_[index];
  const std::string& auth = request.authorization;
  // kubectl (client-go) never sends bearer tokens over plain HTTP, so without TLS a request
  // with no Authorization header is let in; a wrong token is refused either way.
  bool anonymous_ok = !options_.tls && auth.empty();
  if (!anonymous_ok &&
      (auth.size() < 7 || auth.compare(0, 7, "Bearer ") != 0 || auth.substr(7) != c.token()))
    return {Error(Unauthorized()), std::nullopt};
  return ClusterRequest(c, request, path, query, prefix);
}

Dispatch Simulator::ClusterRequest(Cluster& c, const HttpRequest& request, const std::string& path,
                                   const std::string& raw_query, const std::string& prefix) {
  auto segs = Segments(path);
  for (auto& s : segs) {
    auto decoded = DecodeSegment(s);
    if (!decoded) return {Error(NotFoundPath()), std::nullopt};
    s = std::move(*decoded);
  }
  Query q = ParseQuery(raw_query);
  const std::string& method = request.method;
  auto doc = [](const std::optional<Json>& j) -> Dispatch {
    if (!j) return {Error(NotFoundPath()), std::nullopt};
    return {JsonResponse(200, *j), std::nullopt};
  };
  if (segs.empty()) {
    Json paths = Json::array({"/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1",
                              "/apis/apps.kruise.io", "/apis/apps.kruise.io/v1alpha1",
                              "/apis/apps.kruise.io/v1beta1", "/healthz", "/livez", "/openapi/v2",
                              "/openapi/v3", "/readyz", "/version"});
    return {JsonResponse(200, {{"paths", paths}}), std::nullopt};
  }
  if (segs.size() == 1 && segs[0] == "version") return {JsonResponse(200, VersionInfo()), {}};
  if (segs.size() == 1 && (segs[0] == "healthz" || segs[0] == "livez" || segs[0] == "readyz"))
    return {{200, "text/plain", "ok"}, std::nullopt};
  if (segs[0] == "openapi") {
    if (segs.size() == 2 && segs[1] == "v2") return {JsonResponse(200, OpenApiV2()), {}};
    if (segs.size() == 2 && segs[1] == "v3")
      return {JsonResponse(200, OpenApiV3Index(prefix)), std::nullopt};
    if (segs.size() > 2 && segs[1] == "v3") {
      std::string gv;
      for (std::size_t i = 2; i < segs.size(); ++i) gv += (i > 2 ? "/" : "") + segs[i];
      return doc(OpenApiV3(gv));
    }
    return {Error(NotFoundPath()), std::nullopt};
  }
  std::string group, version;
  std::size_t i;
  if (segs[0] == "api") {
    if (segs.size() == 1) return {JsonResponse(200, CoreApiVersions()), std::nullopt};
    version = segs[1];
    i = 2;
  } else if (segs[0] == "apis") {
    if (segs.size() == 1) return {JsonResponse(200, ApiGroupList()), std::nullopt};
    group = segs[1];
    if (segs.size() == 2) return doc(ApiGroup(group));
    version = segs[2];
    i = 3;
  } else {
    return {Error(NotFoundPath()), std::nullopt};
  }
  if (segs.size() == i) return doc(ApiResourceList(group, version));

  // /namespaces/NS/<plural>/... addresses namespaced resources; otherwise "namespaces" is
  // itself the resource (with subresources such as status and finalize).
  std::string ns;
  if (segs[i] == "namespaces" && segs.size() >= i + 3) {
    const ResourceType* inner = FindResource(group, version, segs[i + 2]);
    if (inner && inner->namespaced) {
      ns = segs[i + 1];
      i += 2;
    }
  }
  const ResourceType* t = FindResource(group, version, segs[i]);
  if (!t) return {Error(NotFoundPath()), std::nullopt};
  std::string name = segs.size() > i + 1 ? segs[i + 1] : "";
  std::string sub = segs.size() > i + 2 ? segs[i + 2] : "";
  if (segs.size() > i + 3 ||
      (!sub.empty() && sub != "status" && !(sub == "scale" && t->HasScale()) &&
       !(t->id == kNamespaces && sub == "finalize")))
    return {Error(NotFound(group, t->plural + "/" + sub, name)), std::nullopt};
  if (!sub.empty() && !t->has_status && sub == "status")
    return {Error(NotFound(group, t->plural + "/status", name)), std::nullopt};

  WriteContext ctx;
  ctx.version = version;
  ctx.manager = q.count("fieldManager") ? q["fieldManager"] : DefaultManager(request.user_agent);
  ctx.dry_run = Get(q, "dryRun") == "All";
  ctx.status = sub == "status";
  ctx.strict = Get(q, "fieldValidation") == "Strict";
  std::string ct = request.content_type.substr(0, request.content_type.find(';'));
  if (!request.body.empty() && ct.find("protobuf") != std::string::npos)
    return {Error(UnsupportedMediaType(request.content_type)), std::nullopt};
  bool yaml = ct == "application/yaml" || ct == "application/apply-patch+yaml";
  auto body = [&](Json* out) -> std::optional<ApiError> {
    std::string error;
    auto j = ParseBody(request.body, yaml, &error);
    if (!j) return BadRequest(error);
    *out = std::move(*j);
    return std::nullopt;
  };
  // kubectl get asks for server-side printing; other clients get plain objects and lists.
  bool table = WantsTable(request.accept) && !sub.size();
  bool include_object = Get(q, "includeObject") == "Object";
  auto reply = [](const Outcome& o) -> Dispatch {
    return {JsonResponse(o.code, o.body), std::nullopt};
  };

  if (name.empty()) {
    if (method == "GET") {
      std::string err;
      auto labels = LabelSelector::Parse(Get(q, "labelSelector"), &err);
      if (!labels) return {Error(BadRequest("unable to parse requirement: " + err)), {}};
      auto fields = FieldSelector::Parse(Get(q, "fieldSelector"), &err);
      if (!fields) return {Error(BadRequest(err)), std::nullopt};
      if (Truthy(q, "watch")) {
        WatchPlan plan;
        plan.cluster = c.index();
        plan.filter = {t->id,   version, t->namespaced ? ns : "", *labels,
                       *fields, table,   include_object};
        std::string rv = Get(q, "resourceVersion");
        if (!rv.empty() && rv != "0") {
          try {
            plan.resource_version = std::stoull(rv);
          } catch (const std::exception&) {
            return {Error(BadRequest("invalid resource version \"" + rv + "\"")), {}};
          }
        }
        plan.bookmarks = Truthy(q, "allowWatchBookmarks");
        if (q.count("timeoutSeconds"))
          plan.timeout_seconds = std::atoi(q["timeoutSeconds"].c_str());
        return {{}, plan};
      }
      ListParams p{t->namespaced ? ns : "", *labels, *fields, std::atoll(Get(q, "limit").c_str()),
                   Get(q, "continue")};
      Outcome list = ListObjects(c, *t, version, p, options_.continue_window);
      if (table && list.code == 200)
        list.body = ToTable(*t, list.body["items"].get<std::vector<Json>>(), list.body["metadata"],
                            clock_.Now(), include_object);
      return reply(list);
    }
    if (method == "POST") {
      Json b;
      if (auto e = body(&b)) return {Error(*e), std::nullopt};
      return reply(CreateObject(c, *t, ns, std::move(b), ctx));
    }
    if (method == "DELETE") {
      // deletecollection
      std::string err;
      auto labels = LabelSelector::Parse(Get(q, "labelSelector"), &err);
      auto fields = FieldSelector::Parse(Get(q, "fieldSelector"), &err);
      if (!labels || !fields) return {Error(BadRequest(err)), std::nullopt};
      std::vector<std::string> names;
      c.store().Scan(t->id, t->namespaced ? ns : "", "", [&](const std::string&, const Json& o) {
        if (labels->Matches(o) && fields->Matches(o)) names.push_back(NameOf(o));
        return true;
      });
      for (const auto& n : names) DeleteObject(c, *t, ns, n, {});
      return {JsonResponse(200, {{"kind", "Status"},
                                 {"apiVersion", "v1"},
                                 {"metadata", Json::object()},
                                 {"status", "Success"}}),
              std::nullopt};
    }
    return {Error(MethodNotAllowed("the server does not allow this method on the requested "
                                   "resource")),
            std::nullopt};
  }

  if (sub == "scale") {
    if (method == "GET") return reply(GetScale(c, *t, ns, name));
    if (method != "PUT" && method != "PATCH")
      return {Error(MethodNotAllowed("scale supports get, update and patch")), std::nullopt};
    std::optional<PatchType> type;
    if (method == "PATCH") {
      type = PatchTypeOf(request.content_type);
      if (!type || *type == PatchType::kApply)
        return {Error(UnsupportedMediaType(request.content_type)), std::nullopt};
    }
    Json b;
    if (auto e = body(&b)) return {Error(*e), std::nullopt};
    return reply(UpdateScale(c, *t, ns, name, b, type, ctx));
  }
  if (method == "GET") {
    Outcome got = GetObject(c, *t, version, ns, name);
    if (table && got.code == 200)
      got.body =
          ToTable(*t, {got.body}, {{"resourceVersion", got.body["metadata"]["resourceVersion"]}},
                  clock_.Now(), include_object);
    return reply(got);
  }
  if (method == "PUT") {
    Json b;
    if (auto e = body(&b)) return {Error(*e), std::nullopt};
    if (sub == "finalize") {
      // namespaces/NAME/finalize changes spec.finalizers and nothing else.
      auto current = c.store().Get(kNamespaces, "", name);
      if (!current) return reply(Fail(NotFound("", "namespaces", name)));
      Json next = *current;
      next["spec"]["finalizers"] =
          b.contains("spec") ? b["spec"].value("finalizers", Json::array()) : Json::array();
      if (b.contains("metadata") && b["metadata"].contains("resourceVersion"))
        next["metadata"]["resourceVersion"] = b["metadata"]["resourceVersion"];
      return reply(UpdateObject(c, *t, ns, name, std::move(next), ctx));
    }
    return reply(UpdateObject(c, *t, ns, name, std::move(b), ctx));
  }
  if (method == "PATCH") {
    auto type = PatchTypeOf(request.content_type);
    if (!type) return {Error(UnsupportedMediaType(request.content_type)), std::nullopt};
    Json b;
    if (auto e = body(&b)) return {Error(*e), std::nullopt};
    if (*type != PatchType::kApply && !q.count("fieldManager") && request.user_agent.empty())
      ctx.manager = "unknown";
    return reply(PatchObject(c, *t, ns, name, b, *type, Truthy(q, "force"), ctx));
  }
  if (method == "DELETE") {
    DeleteOptions o;
    o.propagation = Get(q, "propagationPolicy");
    o.dry_run = ctx.dry_run;
    if (!request.body.empty()) {
      std::string err;
      auto b = ParseBody(request.body, yaml, &err);
      if (b && b->is_object()) {
        if (b->contains("propagationPolicy") && (*b)["propagationPolicy"].is_string())
          o.propagation = (*b)["propagationPolicy"];
        if (b->contains("orphanDependents") && (*b)["orphanDependents"] == true)
          o.propagation = "Orphan";
        if (b->contains("preconditions") && (*b)["preconditions"].is_object()) {
          const Json& pre = (*b)["preconditions"];
          if (pre.contains("uid") && pre["uid"].is_string()) o.precondition_uid = pre["uid"];
          if (pre.contains("resourceVersion") && pre["resourceVersion"].is_string())
            o.precondition_rv = pre["resourceVersion"];
        }
        if (b->contains("dryRun") && (*b)["dryRun"].is_array() && !(*b)["dryRun"].empty())
          o.dry_run = true;
      }
    }
    Outcome out = DeleteObject(c, *t, ns, name, o);
    if (out.body.value("kind", "") == t->kind)
      out.body = ToServedVersion(*t, std::move(out.body), version);
    return reply(out);
  }
  return {Error(MethodNotAllowed("the server does not allow this method on the requested "
                                 "resource")),
          std::nullopt};
}

std::uint64_t Simulator::OpenWatch(const WatchPlan& plan, const std::shared_ptr<WatchSink>& sink) {
  Cluster& c = *clusters_[plan.cluster];
  const ResourceType& t = Resource(plan.filter.resource);
  if (!plan.resource_version) {
    c.store().Scan(t.id, plan.filter.ns, "", [&](const std::string&, const Json& o) {
      if (plan.filter.labels.Matches(o) && plan.filter.fields.Matches(o))
        sink->Send(WatchHub::EventLine("ADDED", WatchHub::Present(plan.filter, o, clock_.Now())));
      return true;
    });
  } else if (c.hub().Compact(clock_.Now()),
             !c.hub().Replay(*plan.resource_version, plan.filter, *sink, clock_.Now())) {
    // Real API servers answer 200 and report the expiry inside the stream.
    ApiError e = Expired("too old resource version: " + std::to_string(*plan.resource_version) +
                         " (" + std::to_string(c.hub().compacted_rv() + 1) + ")");
    e.code = 410;
    Json status = e.ToJson();
    status.erase("details");
    sink->Send(WatchHub::EventLine("ERROR", status));
    return 0;
  }
  return c.hub().Add(plan.filter, sink);
}

void Simulator::CloseWatch(int cluster, std::uint64_t id) { clusters_[cluster]->hub().Remove(id); }

std::string Simulator::BookmarkLine(const WatchPlan& plan) {
  const ResourceType& t = Resource(plan.filter.resource);
  Json o = {{"kind", t.kind},
            {"apiVersion", t.ApiVersion(plan.filter.version)},
            {"metadata",
             {{"resourceVersion", std::to_string(clusters_[plan.cluster]->resource_version())}}}};
  return WatchHub::EventLine("BOOKMARK", o);
}

}  // namespace fleetwave::kubesim
