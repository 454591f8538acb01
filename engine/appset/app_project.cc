#include "engine/appset/app_project.h"

#include <algorithm>
#include <set>

#include "engine/sync/retry_policy.h"

namespace fleetwave::engine {
namespace {

std::string Field(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}
std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// A strict reader of one document: every problem becomes an issue naming the file and field.
struct Reader {
  std::string file;
  Issues issues;

  void Add(const YAML::Node& n, const std::string& path, std::string message) {
    issues.push_back({file, PosOf(n), path, std::move(message)});
  }
  bool IsString(const YAML::Node& n) { return n.IsScalar() && YamlToJson(n).is_string(); }
  std::optional<std::string> String(const YAML::Node& n, const std::string& path) {
    if (!IsString(n)) {
      Add(n, path, "wrong type: expected string");
      return std::nullopt;
    }
    return n.Scalar();
  }
  std::optional<bool> Bool(const YAML::Node& n, const std::string& path) {
    const Json v = n.IsScalar() ? YamlToJson(n) : Json();
    if (!v.is_boolean()) {
      Add(n, path, "wrong type: expected boolean");
      return std::nullopt;
    }
    return v.get<bool>();
  }
  bool Map(const YAML::Node& n, const std::string& path) {
    if (n.IsMap()) return true;
    Add(n, path, "wrong type: expected object");
    return false;
  }
  bool List(const YAML::Node& n, const std::string& path) {
    if (n.IsSequence()) return true;
    Add(n, path, "wrong type: expected array");
    return false;
  }
  std::vector<std::string> Strings(const YAML::Node& n, const std::string& path) {
    std::vector<std::string> out;
    if (!List(n, path)) return out;
    for (size_t i = 0; i < n.size(); ++i) {
      if (auto s = String(n[i], Index(path, i))) out.push_back(*s);
    }
    return out;
  }
  void Keys(const YAML::Node& map, const std::string& path, const std::set<std::string>& known,
            const std::set<std::string>& unsupported = {}) {
    for (const auto& kv : map) {
      const std::string key = kv.first.Scalar();
      if (known.count(key)) continue;
      Add(kv.first, Field(path, key),
          unsupported.count(key) ? "field is not supported by fleetwave (it would not be enforced)"
                                 : "unknown field \"" + key + "\"");
    }
  }
};

SyncWindow DecodeWindow(Reader& r, const YAML::Node& n, const std::string& path, int index) {
  SyncWindow w;
  w.index = index;
  if (!r.Map(n, path)) return w;
  r.Keys(n, path,
         {"kind", "schedule", "duration", "timeZone", "applications", "clusters", "namespaces",
          "manualSync", "andOperator", "description", "syncOverrun"});
  if (!n["kind"]) {
    r.Add(n, Field(path, "kind"), "required: allow or deny");
  } else if (auto kind = r.String(n["kind"], Field(path, "kind"))) {
    if (*kind != "allow" && *kind != "deny") {
      r.Add(n["kind"], Field(path, "kind"), "unsupported value \"" + *kind + "\" (allow, deny)");
    }
    w.deny = *kind == "deny";
  }
  if (!n["schedule"]) {
    r.Add(n, Field(path, "schedule"), "required: a cron schedule such as \"0 22 * * *\"");
  } else if (auto s = r.String(n["schedule"], Field(path, "schedule"))) {
    std::string why;
    if (auto parsed = ParseCron(*s, &why)) {
      w.schedule = *parsed;
      w.schedule_text = *s;
    } else {
      r.Add(n["schedule"], Field(path, "schedule"), "invalid schedule \"" + *s + "\": " + why);
    }
  }
  if (!n["duration"]) {
    r.Add(n, Field(path, "duration"), "required: a duration such as 1h or 30m");
  } else if (auto d = r.String(n["duration"], Field(path, "duration"))) {
    const auto parsed = ParseGoDuration(*d);
    const long long secs =
        parsed ? std::chrono::duration_cast<std::chrono::seconds>(*parsed).count() : 0;
    if (secs <= 0) {
      r.Add(n["duration"], Field(path, "duration"),
            "invalid duration \"" + *d + "\": expected a positive Go duration such as 1h or 30m");
    }
    w.duration_text = *d;
    w.duration_seconds = secs;
  }
  if (n["timeZone"]) {
    if (auto tz = r.String(n["timeZone"], Field(path, "timeZone"))) {
      if (!tz->empty() && !IsZoneName(*tz)) {
        r.Add(n["timeZone"], Field(path, "timeZone"),
              "\"" + *tz + "\" is not a time zone name (such as Europe/Berlin)");
      }
      w.time_zone = *tz;
    }
  }
  for (auto [key, list] :
       {std::pair{"applications", &w.applications}, std::pair{"clusters", &w.clusters},
        std::pair{"namespaces", &w.namespaces}}) {
    if (n[key]) *list = r.Strings(n[key], Field(path, key));
  }
  if (w.applications.empty() && w.clusters.empty() && w.namespaces.empty()) {
    r.Add(n, path, "a sync window applies to nothing: give applications, clusters or namespaces");
  }
  if (n["manualSync"])
    w.manual_sync = r.Bool(n["manualSync"], Field(path, "manualSync")).value_or(false);
  if (n["andOperator"]) {
    w.and_operator = r.Bool(n["andOperator"], Field(path, "andOperator")).value_or(false);
  }
  if (n["syncOverrun"]) {
    w.sync_overrun = r.Bool(n["syncOverrun"], Field(path, "syncOverrun"));
    w.sync_overrun_pos = PosOf(n["syncOverrun"]);
  }
  if (n["description"]) {
    w.description = r.String(n["description"], Field(path, "description")).value_or("");
  }
  return w;
}

bool Negated(const std::string& s) { return !s.empty() && s[0] == '!'; }
std::string Positive(const std::string& s) { return Negated(s) ? s.substr(1) : s; }

const Json* Member(const Json* object, const char* key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(key);
  return it == object->end() ? nullptr : &*it;
}

std::string StringMember(const Json* object, const char* key) {
  const Json* v = Member(object, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

// Allowed when a pattern without '!' matches and no '!' pattern does (Argo CD's rule for
// sourceRepos).
bool RepoPermitted(const std::vector<std::string>& patterns, const std::string& repo) {
  bool allowed = false;
  for (const auto& p : patterns) {
    if (Negated(p)) {
      if (GlobMatch(p.substr(1), repo)) return false;
    } else {
      allowed = allowed || GlobMatch(p, repo);
    }
  }
  return allowed;
}

bool DestinationMatches(const ProjectDestination& d, const std::string& server,
                        const std::string& name, const std::string& ns) {
  const bool cluster = (!d.server.empty() && GlobMatch(Positive(d.server), server)) ||
                       (!d.name.empty() && GlobMatch(Positive(d.name), name));
  return cluster && GlobMatch(Positive(d.namespace_), ns);
}

}  // namespace

const AppProject* AppProjects::Find(const std::string& name) const {
  auto it = std::lower_bound(projects.begin(), projects.end(), name,
                             [](const AppProject& p, const std::string& n) { return p.name < n; });
  return it != projects.end() && it->name == name ? &*it : nullptr;
}

Issues SyncOverrunWarnings(const AppProject& project) {
  Issues out;
  for (const SyncWindow& w : project.sync_windows) {
    if (!w.sync_overrun) continue;
    const std::string what =
        w.deny ? "when this deny window starts" : "when this allow window ends";
    out.push_back(
        {project.file, w.sync_overrun_pos,
         "spec.syncWindows[" + std::to_string(w.index) + "].syncOverrun",
         *w.sync_overrun
             ? "has no effect in fleetwave: a sync already running always finishes (retries "
               "included), as with syncOverrun: true on every window"
             : "false is not honoured by fleetwave: a sync already running " + what +
                   " still finishes (retries included), where Argo CD would stop it"});
  }
  return out;
}

bool IsAppProjectDocument(const YAML::Node& doc) {
  return doc.IsMap() && doc["kind"] && doc["kind"].IsScalar() &&
         doc["kind"].Scalar() == "AppProject";
}

DecodedAppProject DecodeAppProject(const YAML::Node& doc, const std::string& file) {
  Reader r{file, {}};
  AppProject p;
  p.file = file;
  r.Keys(doc, "", {"apiVersion", "kind", "metadata", "spec", "status"});
  if (auto v = doc["apiVersion"] ? r.String(doc["apiVersion"], "apiVersion") : std::nullopt;
      !v || *v != "argoproj.io/v1alpha1") {
    r.Add(doc, "apiVersion", "an AppProject is apiVersion argoproj.io/v1alpha1");
  }
  const YAML::Node md = doc["metadata"];
  if (!md || !md.IsMap() || !md["name"]) {
    r.Add(doc, "metadata.name", "required: the project's name");
  } else if (auto name = r.String(md["name"], "metadata.name")) {
    p.name = *name;
    if (p.name.empty()) r.Add(md["name"], "metadata.name", "must not be empty");
  }
  const YAML::Node spec = doc["spec"];
  if (spec && r.Map(spec, "spec")) {
    r.Keys(
        spec, "spec",
        {"description", "destinations", "sourceRepos", "clusterResourceWhitelist", "syncWindows"},
        {"clusterResourceBlacklist", "namespaceResourceBlacklist", "namespaceResourceWhitelist",
         "roles", "signatureKeys", "sourceNamespaces", "orphanedResources",
         "permitOnlyProjectScopedClusters", "destinationServiceAccounts"});
    if (const YAML::Node d = spec["destinations"]; d && r.List(d, "spec.destinations")) {
      for (size_t i = 0; i < d.size(); ++i) {
        const std::string path = Index("spec.destinations", i);
        if (!r.Map(d[i], path)) continue;
        r.Keys(d[i], path, {"server", "name", "namespace"});
        ProjectDestination dest;
        if (d[i]["server"])
          dest.server = r.String(d[i]["server"], Field(path, "server")).value_or("");
        if (d[i]["name"]) dest.name = r.String(d[i]["name"], Field(path, "name")).value_or("");
        if (d[i]["namespace"]) {
          dest.namespace_ = r.String(d[i]["namespace"], Field(path, "namespace")).value_or("");
        }
        if (dest.server.empty() && dest.name.empty()) {
          r.Add(d[i], path, "a destination needs a server or a name");
        }
        p.destinations.push_back(std::move(dest));
      }
    }
    if (spec["sourceRepos"]) p.source_repos = r.Strings(spec["sourceRepos"], "spec.sourceRepos");
    if (const YAML::Node w = spec["clusterResourceWhitelist"];
        w && r.List(w, "spec.clusterResourceWhitelist")) {
      for (size_t i = 0; i < w.size(); ++i) {
        const std::string path = Index("spec.clusterResourceWhitelist", i);
        if (!r.Map(w[i], path)) continue;
        r.Keys(w[i], path, {"group", "kind"});
        GroupKind gk;
        if (w[i]["group"]) gk.group = r.String(w[i]["group"], Field(path, "group")).value_or("");
        if (!w[i]["kind"]) {
          r.Add(w[i], Field(path, "kind"), "required");
        } else {
          gk.kind = r.String(w[i]["kind"], Field(path, "kind")).value_or("");
        }
        p.cluster_resource_whitelist.push_back(std::move(gk));
      }
    }
    if (const YAML::Node w = spec["syncWindows"]; w && r.List(w, "spec.syncWindows")) {
      for (size_t i = 0; i < w.size(); ++i) {
        p.sync_windows.push_back(
            DecodeWindow(r, w[i], Index("spec.syncWindows", i), static_cast<int>(i)));
      }
    }
  }
  DecodedAppProject out;
  out.issues = std::move(r.issues);
  if (out.issues.empty()) out.project = std::move(p);
  return out;
}

std::string ProjectOf(const Json& app_spec) {
  const std::string p = StringMember(&app_spec, "project");
  return p.empty() ? "default" : p;
}

std::string ProjectRefusal(const AppProjects* projects, const ProjectCheckInput& in) {
  if (projects == nullptr || in.spec == nullptr) return "";
  const std::string name = ProjectOf(*in.spec);
  const AppProject* p = projects->Find(name);
  if (p == nullptr) {
    if (name == "default") return "";
    return "Application referencing project " + name + " which does not exist";
  }
  // Sources: spec.source and every spec.sources entry.
  std::vector<std::string> repos;
  if (const Json* s = Member(in.spec, "source")) repos.push_back(StringMember(s, "repoURL"));
  if (const Json* list = Member(in.spec, "sources"); list != nullptr && list->is_array()) {
    for (const Json& s : *list) repos.push_back(StringMember(&s, "repoURL"));
  }
  for (const std::string& repo : repos) {
    if (!RepoPermitted(p->source_repos, repo)) {
      return "application repo " + repo + " is not permitted in project '" + name + "'";
    }
  }
  const Json* dest = Member(in.spec, "destination");
  const std::string server = StringMember(dest, "server");
  const std::string dest_name = StringMember(dest, "name");
  const std::string ns = StringMember(dest, "namespace");
  const std::string cluster_name = dest_name.empty() ? in.cluster : dest_name;
  bool allowed = false, denied = false;
  for (const ProjectDestination& d : p->destinations) {
    const bool deny = Negated(d.server) || Negated(d.name) || Negated(d.namespace_);
    if (!DestinationMatches(d, server, cluster_name, ns)) continue;
    if (deny) {
      denied = true;
    } else {
      allowed = true;
    }
  }
  if (!allowed || denied) {
    const std::string where = !server.empty() || dest_name.empty() ? "server '" + server + "'"
                                                                   : "name '" + dest_name + "'";
    return "application destination " + where + " and namespace '" + ns +
           "' do not match any of the allowed destinations in project '" + name + "'";
  }
  if (in.objects != nullptr) {
    for (const ObjectRef& o : *in.objects) {
      if (!o.namespace_.empty()) continue;
      const bool listed =
          std::any_of(p->cluster_resource_whitelist.begin(), p->cluster_resource_whitelist.end(),
                      [&](const GroupKind& gk) {
                        return GlobMatch(gk.group, o.group) && GlobMatch(gk.kind, o.kind);
                      });
      if (!listed) {
        return "Resource " + o.group + ":" + o.kind + " is not permitted in project " + name + ".";
      }
    }
  }
  return "";
}

const std::vector<SyncWindow>* WindowsOf(const AppProjects* projects, const Json& app_spec) {
  if (projects == nullptr) return nullptr;
  const AppProject* p = projects->Find(ProjectOf(app_spec));
  return p == nullptr || p->sync_windows.empty() ? nullptr : &p->sync_windows;
}

WindowTarget WindowTargetOf(const GeneratedApplication& app) {
  WindowTarget t;
  t.app = app.name;
  const Json* spec = Member(&app.object, "spec");
  const Json* dest = Member(spec, "destination");
  t.server = StringMember(dest, "server");
  t.cluster_name = StringMember(dest, "name");
  if (t.cluster_name.empty()) t.cluster_name = app.cluster;
  t.namespace_ = StringMember(dest, "namespace");
  return t;
}

}  // namespace fleetwave::engine
