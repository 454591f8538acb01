#include "tools/kubesim/control_plane.h"

#include <map>

#include "tools/kubesim/encoding.h"
#include "tools/kubesim/yaml_body.h"

namespace fleetwave::kubesim {

namespace {

std::map<std::string, std::string> Query(const std::string& target) {
  std::map<std::string, std::string> q;
  auto pos = target.find('?');
  if (pos == std::string::npos) return q;
  std::string rest = target.substr(pos + 1);
  std::size_t start = 0;
  while (start <= rest.size()) {
    std::size_t end = rest.find('&', start);
    if (end == std::string::npos) end = rest.size();
    std::string part = rest.substr(start, end - start);
    if (!part.empty()) {
      auto eq = part.find('=');
      q[UrlDecode(part.substr(0, eq))] =
          eq == std::string::npos ? "" : UrlDecode(part.substr(eq + 1));
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

AdminReply JsonReply(int status, const nlohmann::json& body) {
  return {status, "application/json", body.dump()};
}

AdminReply Problem(int status, const std::string& reason, const std::string& message) {
  return JsonReply(status, {{"kind", "Status"},
                            {"apiVersion", "v1"},
                            {"metadata", nlohmann::json::object()},
                            {"status", "Failure"},
                            {"message", message},
                            {"reason", reason},
                            {"code", status}});
}

int ClusterByName(const std::string& name, int cluster_count) {
  if (name.rfind("sim-", 0) != 0 || name.size() == 4) return -1;
  for (char ch : name.substr(4))
    if (ch < '0' || ch > '9') return -1;
  int i = std::atoi(name.c_str() + 4);
  return i < cluster_count && std::to_string(i) == name.substr(4) ? i : -1;
}

nlohmann::json FleetwaveAnnotations(const nlohmann::json& object) {
  nlohmann::json out = nlohmann::json::object();
  if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object())
    return out;
  const auto& md = object["metadata"];
  if (!md.contains("annotations") || !md["annotations"].is_object()) return out;
  for (auto it = md["annotations"].begin(); it != md["annotations"].end(); ++it)
    if (it.key().rfind("fleetwave.io/", 0) == 0) out[it.key()] = it.value();
  return out;
}

}  // namespace

ControlPlane::ControlPlane(ControlOptions options)
    : events_(options.event_capacity),
      audit_(options.audit_capacity),
      controllers_(options.controllers, &events_),
      audit_lists_(options.audit_lists) {}

int ControlPlane::ClusterOf(const std::string& target, int bound_cluster, int cluster_count) {
  std::string path = target.substr(0, target.find('?'));
  if (path.rfind("/kubesim/", 0) == 0) return -1;
  if (bound_cluster >= 0) return bound_cluster;
  auto segs = Segments(path);
  if (segs.size() < 2 || segs[0] != "clusters") return -1;
  return ClusterByName(segs[1], cluster_count);
}

std::optional<AdminReply> ControlPlane::Admin(const std::string& method, const std::string& target,
                                              const std::string& body,
                                              std::vector<std::unique_ptr<Cluster>>& clusters) {
  std::string path = target.substr(0, target.find('?'));
  auto q = Query(target);
  int count = static_cast<int>(clusters.size());
  if (path == "/kubesim/events" || path == "/kubesim/audit") {
    if (method != "GET") return Problem(405, "MethodNotAllowed", "use GET");
    std::string cluster = q.count("cluster") ? q["cluster"] : "";
    std::string since = q.count("since") ? q["since"] : "";
    return AdminReply{
        200, "application/x-ndjson",
        path == "/kubesim/events" ? events_.Lines(cluster, since) : audit_.Lines(cluster, since)};
  }
  if (path != "/kubesim/faults") return std::nullopt;
  if (method == "GET") {
    nlohmann::json all = nlohmann::json::array();
    for (int i = 0; i < count; ++i)
      if (faults_.Find(i)) all.push_back(faults_.ToJson(i));
    return JsonReply(200, {{"faults", all}});
  }
  if (method == "DELETE") {
    if (!q.count("cluster") || q["cluster"].empty()) {
      faults_.ClearAll();
      return JsonReply(200, {{"faults", nlohmann::json::array()}});
    }
    int i = ClusterByName(q["cluster"], count);
    if (i < 0) return Problem(404, "NotFound", "cluster \"" + q["cluster"] + "\" not found");
    faults_.Clear(i);
    return JsonReply(200, faults_.ToJson(i));
  }
  if (method != "POST") return Problem(405, "MethodNotAllowed", "use GET, POST or DELETE");
  std::string error;
  auto parsed = ParseBody(body, false, &error);
  if (!parsed || !parsed->is_object() || !parsed->contains("cluster") ||
      !(*parsed)["cluster"].is_string())
    return Problem(400, "BadRequest", "expected {\"cluster\": \"sim-N\", ...fault fields}");
  int i = ClusterByName((*parsed)["cluster"].get<std::string>(), count);
  if (i < 0)
    return Problem(404, "NotFound",
                   "cluster \"" + (*parsed)["cluster"].get<std::string>() + "\" not found");
  error = faults_.Merge(i, *parsed);
  if (!error.empty()) return Problem(400, "BadRequest", error);
  // One-shot actions happen now and are not remembered.
  if (parsed->value("compactHistory", false)) clusters[i]->ExpireHistory();
  bool drop = parsed->value("dropWatches", false) || faults_.Down(i);
  if (drop && drop_watches_) drop_watches_(i);
  return JsonReply(200, faults_.ToJson(i));
}

void ControlPlane::Audit(const AuditedRequest& r, TimePoint now) {
  if (r.cluster < 0) return;
  const bool read = r.method == "GET";
  if (read && !audit_lists_) return;
  if (!read && r.method != "POST" && r.method != "PUT" && r.method != "PATCH" &&
      r.method != "DELETE")
    return;
  std::string path = r.target.substr(0, r.target.find('?'));
  auto segs = Segments(path);
  std::size_t i = 0;
  if (segs.size() >= 2 && segs[0] == "clusters") i = 2;
  // api/v1/... or apis/<group>/<version>/...
  if (i < segs.size() && segs[i] == "api")
    i += 2;
  else if (i < segs.size() && segs[i] == "apis")
    i += 3;
  else
    return;
  if (i >= segs.size()) return;
  // The group and version sit just before the resource path.
  std::string group = segs[i - 2] == "api" ? "" : segs[i - 2];
  std::string version = segs[i - 1];
  AuditRecord a;
  a.time = now;
  a.cluster = "sim-" + std::to_string(r.cluster);
  a.target = r.target;
  // /namespaces/NS/<plural>/... is namespaced unless it is the namespace itself.
  const ResourceType* inner =
      segs.size() >= i + 3 ? FindResource(group, version, segs[i + 2]) : nullptr;
  if (segs[i] == "namespaces" && inner && inner->namespaced) {
    a.ns = segs[i + 1];
    i += 2;
  }
  a.resource = segs[i];
  if (segs.size() > i + 1) a.name = segs[i + 1];
  if (segs.size() > i + 2) a.resource += "/" + segs[i + 2];
  auto q = Query(r.target);
  if (read) {
    // Only a collection's reads (a LIST or a watch), never a GET of one object or discovery.
    if (!a.name.empty()) return;
    a.verb = q.count("watch") && (q["watch"] == "true" || q["watch"] == "1") ? "watch" : "list";
    a.user_agent = r.user_agent;
    a.field_manager = r.user_agent.substr(0, r.user_agent.find('/'));
    a.code = r.code;
    audit_.Record(std::move(a));
    return;
  }
  if (r.method == "POST")
    a.verb = "create";
  else if (r.method == "PUT")
    a.verb = "update";
  else if (r.method == "PATCH")
    a.verb = "patch";
  else
    a.verb = a.name.empty() ? "deletecollection" : "delete";
  if (q.count("fieldManager")) {
    a.field_manager = q["fieldManager"];
  } else {
    a.field_manager = r.user_agent.substr(0, r.user_agent.find('/'));
    if (a.field_manager.empty()) a.field_manager = "unknown";
  }
  a.user_agent = r.user_agent;
  a.dry_run = q.count("dryRun") && q["dryRun"] == "All";
  a.body_hash = BodyHash(r.body);
  a.code = r.code;
  nlohmann::json response = nlohmann::json::parse(r.response_body, nullptr, false);
  bool is_object = response.is_object() && response.value("kind", "") != "Status" &&
                   response.contains("metadata");
  if (is_object && a.name.empty()) a.name = response["metadata"].value("name", "");
  std::optional<nlohmann::json> stored;
  if (r.cluster_ref && !a.name.empty() && r.code < 300 && !a.dry_run)
    if (const ResourceType* t = FindResource(group, version, segs[i]))
      stored = r.cluster_ref->store().Get(t->id, t->namespaced ? a.ns : "", a.name);
  if (stored) {
    if ((*stored)["metadata"].contains("generation"))
      a.generation = (*stored)["metadata"]["generation"];
    a.annotations = FleetwaveAnnotations(*stored);
  } else if (is_object) {
    if (a.name.empty()) a.name = response["metadata"].value("name", "");
    if (response["metadata"].contains("generation"))
      a.generation = response["metadata"]["generation"];
    a.annotations = FleetwaveAnnotations(response);
  } else {
    // A failed write still names what it tried to write.
    std::string ct = r.content_type.substr(0, r.content_type.find(';'));
    std::string error;
    auto sent =
        ParseBody(r.body, ct == "application/yaml" || ct == "application/apply-patch+yaml", &error);
    if (sent) {
      a.annotations = FleetwaveAnnotations(*sent);
      if (a.name.empty() && sent->is_object() && sent->contains("metadata") &&
          (*sent)["metadata"].is_object())
        a.name = (*sent)["metadata"].value("name", "");
    }
  }
  audit_.Record(std::move(a));
}

}  // namespace fleetwave::kubesim
