#include "tools/kubesim/table.h"

#include <cstdio>
#include <ctime>
#include <optional>

namespace fleetwave::kubesim {

namespace {

struct Column {
  const char* name;
  const char* type;
  const char* format;
  int priority;
};

std::vector<Column> ColumnsFor(const std::string& kind) {
  if (kind == "Namespace") return {{"Name", "string", "name", 0}, {"Status", "string", "", 0}};
  if (kind == "ConfigMap") return {{"Name", "string", "name", 0}, {"Data", "integer", "", 0}};
  if (kind == "Secret")
    return {{"Name", "string", "name", 0}, {"Type", "string", "", 0}, {"Data", "integer", "", 0}};
  if (kind == "ServiceAccount")
    return {{"Name", "string", "name", 0}, {"Secrets", "integer", "", 0}};
  if (kind == "Service")
    return {{"Name", "string", "name", 0},
            {"Type", "string", "", 0},
            {"Cluster-IP", "string", "", 0},
            {"External-IP", "string", "", 0},
            {"Port(s)", "string", "", 0}};
  if (kind == "Deployment")
    return {{"Name", "string", "name", 0},
            {"Ready", "string", "", 0},
            {"Up-to-date", "integer", "", 0},
            {"Available", "integer", "", 0}};
  if (kind == "StatefulSet") return {{"Name", "string", "name", 0}, {"Ready", "string", "", 0}};
  if (kind == "DaemonSet")
    return {{"Name", "string", "name", 0},     {"Desired", "integer", "", 0},
            {"Current", "integer", "", 0},     {"Ready", "integer", "", 0},
            {"Up-to-date", "integer", "", 0},  {"Available", "integer", "", 0},
            {"Node Selector", "string", "", 0}};
  if (kind == "ReplicaSet")
    return {{"Name", "string", "name", 0},
            {"Desired", "integer", "", 0},
            {"Current", "integer", "", 0},
            {"Ready", "integer", "", 0}};
  if (kind == "CloneSet")
    return {{"Name", "string", "name", 0}, {"Desired", "integer", "", 0},
            {"Updated", "integer", "", 0}, {"Updated_Ready", "integer", "", 0},
            {"Ready", "integer", "", 0},   {"Total", "integer", "", 0}};
  if (kind == "Event")
    return {{"Name", "string", "name", 1},
            {"Type", "string", "", 0},
            {"Reason", "string", "", 0},
            {"Object", "string", "", 0},
            {"Message", "string", "", 0}};
  return {{"Name", "string", "name", 0}};
}

long long Int(const Json& o, const char* a, const char* b) {
  if (!o.contains(a) || !o[a].is_object() || !o[a].contains(b) || !o[a][b].is_number()) return 0;
  return o[a][b].get<long long>();
}

std::string Str(const Json& o, const char* a, const char* b, const char* fallback) {
  if (!o.contains(a) || !o[a].is_object() || !o[a].contains(b) || !o[a][b].is_string())
    return fallback;
  return o[a][b].get<std::string>();
}

Json Cells(const std::string& kind, const Json& o) {
  Json c = Json::array({o["metadata"].value("name", "")});
  if (kind == "Namespace") {
    c.push_back(Str(o, "status", "phase", "Active"));
  } else if (kind == "ConfigMap") {
    c.push_back(o.value("data", Json::object()).size() +
                o.value("binaryData", Json::object()).size());
  } else if (kind == "Secret") {
    c.push_back(o.value("type", "Opaque"));
    c.push_back(o.value("data", Json::object()).size());
  } else if (kind == "ServiceAccount") {
    c.push_back(o.value("secrets", Json::array()).size());
  } else if (kind == "Service") {
    c.push_back(Str(o, "spec", "type", "ClusterIP"));
    c.push_back(Str(o, "spec", "clusterIP", "<none>"));
    c.push_back("<none>");
    std::string ports;
    if (o.contains("spec") && o["spec"].contains("ports") && o["spec"]["ports"].is_array())
      for (const auto& p : o["spec"]["ports"]) {
        if (!ports.empty()) ports += ",";
        ports += (p.contains("port") ? p["port"].dump() : "?") + "/" + p.value("protocol", "TCP");
      }
    c.push_back(ports.empty() ? "<none>" : ports);
  } else if (kind == "Deployment" || kind == "StatefulSet") {
    long long want = o.contains("spec") && o["spec"].contains("replicas")
                         ? o["spec"]["replicas"].get<long long>()
                         : 1;
    c.push_back(std::to_string(Int(o, "status", "readyReplicas")) + "/" + std::to_string(want));
    if (kind == "Deployment") {
      c.push_back(Int(o, "status", "updatedReplicas"));
      c.push_back(Int(o, "status", "availableReplicas"));
    }
  } else if (kind == "DaemonSet") {
    c.push_back(Int(o, "status", "desiredNumberScheduled"));
    c.push_back(Int(o, "status", "currentNumberScheduled"));
    c.push_back(Int(o, "status", "numberReady"));
    c.push_back(Int(o, "status", "updatedNumberScheduled"));
    c.push_back(Int(o, "status", "numberAvailable"));
    c.push_back("<none>");
  } else if (kind == "ReplicaSet") {
    c.push_back(Int(o, "spec", "replicas"));
    c.push_back(Int(o, "status", "replicas"));
    c.push_back(Int(o, "status", "readyReplicas"));
  } else if (kind == "CloneSet") {
    c.push_back(Int(o, "spec", "replicas"));
    c.push_back(Int(o, "status", "updatedReplicas"));
    c.push_back(Int(o, "status", "updatedReadyReplicas"));
    c.push_back(Int(o, "status", "readyReplicas"));
    c.push_back(Int(o, "status", "replicas"));
  } else if (kind == "Event") {
    c.push_back(o.value("type", ""));
    c.push_back(o.value("reason", ""));
    c.push_back(Str(o, "involvedObject", "kind", "") + "/" + Str(o, "involvedObject", "name", ""));
    c.push_back(o.value("message", ""));
  }
  return c;
}

std::optional<TimePoint> ParseTime(const std::string& s) {
  std::tm tm{};
  if (s.size() < 20 || !strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return std::nullopt;
  return TimePoint(std::chrono::seconds(timegm(&tm)));
}

}  // namespace

bool WantsTable(const std::string& accept) { return accept.find("as=Table") != std::string::npos; }

std::string HumanDuration(Duration d) {
  long long s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  if (s < -1) return "<invalid>";
  if (s < 0) return "0s";
  char buf[32];
  long long m = s / 60, h = s / 3600, days = h / 24, y = days / 365;
  if (s < 120) {
    std::snprintf(buf, sizeof buf, "%llds", s);
  } else if (m < 10) {
    if (s % 60 == 0)
      std::snprintf(buf, sizeof buf, "%lldm", m);
    else
      std::snprintf(buf, sizeof buf, "%lldm%llds", m, s % 60);
  } else if (h < 3) {
    std::snprintf(buf, sizeof buf, "%lldm", m);
  } else if (h < 8) {
    if (m % 60 == 0)
      std::snprintf(buf, sizeof buf, "%lldh", h);
    else
      std::snprintf(buf, sizeof buf, "%lldh%lldm", h, m % 60);
  } else if (h < 48) {
    std::snprintf(buf, sizeof buf, "%lldh", h);
  } else if (h < 192) {
    if (h % 24 == 0)
      std::snprintf(buf, sizeof buf, "%lldd", days);
    else
      std::snprintf(buf, sizeof buf, "%lldd%lldh", days, h % 24);
  } else if (days < 365 * 2) {
    std::snprintf(buf, sizeof buf, "%lldd", days);
  } else if (days < 365 * 8) {
    if (days % 365 == 0)
      std::snprintf(buf, sizeof buf, "%lldy", y);
    else
      std::snprintf(buf, sizeof buf, "%lldy%lldd", y, days % 365);
  } else {
    std::snprintf(buf, sizeof buf, "%lldy", y);
  }
  return buf;
}

Json ToTable(const ResourceType& type, const std::vector<Json>& objects, const Json& list_meta,
             TimePoint now, bool include_object) {
  Json defs = Json::array();
  for (const auto& c : ColumnsFor(type.kind))
    defs.push_back({{"name", c.name},
                    {"type", c.type},
                    {"format", c.format},
                    {"description", std::string(c.name) + " of the " + type.kind},
                    {"priority", c.priority}});
  defs.push_back({{"name", "Age"},
                  {"type", "string"},
                  {"format", ""},
                  {"description", "Time since creation"},
                  {"priority", 0}});
  Json rows = Json::array();
  for (const auto& o : objects) {
    Json cells = Cells(type.kind, o);
    auto created = ParseTime(o["metadata"].value("creationTimestamp", ""));
    cells.push_back(created ? HumanDuration(now - *created) : "<unknown>");
    Json object = include_object ? o
                                 : Json{{"kind", "PartialObjectMetadata"},
                                        {"apiVersion", "meta.k8s.io/v1"},
                                        {"metadata", o["metadata"]}};
    rows.push_back({{"cells", cells}, {"object", object}});
  }
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", list_meta},
          {"columnDefinitions", defs},
          {"rows", rows}};
}

}  // namespace fleetwave::kubesim
