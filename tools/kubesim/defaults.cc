#include "tools/kubesim/defaults.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <string>

#include "tools/kubesim/encoding.h"
#include "tools/kubesim/quantity.h"

namespace fleetwave::kubesim {

namespace {

void Default(Json& object, const char* key, const Json& value) {
  if (!object.contains(key) || object[key].is_null()) object[key] = value;
}

void DefaultPodTemplate(Json& spec) {
  if (!spec.contains("template") || !spec["template"].is_object()) return;
  Json& tpl = spec["template"];
  if (!tpl.contains("spec") || !tpl["spec"].is_object()) return;
  Json& pod = tpl["spec"];
  Default(pod, "restartPolicy", "Always");
  Default(pod, "terminationGracePeriodSeconds", 30);
  Default(pod, "dnsPolicy", "ClusterFirst");
  Default(pod, "schedulerName", "default-scheduler");
  Default(pod, "securityContext", Json::object());
  CanonicalizePodQuantities(pod);
  if (pod.contains("containers") && pod["containers"].is_array())
    for (auto& c : pod["containers"]) {
      if (!c.is_object()) continue;
      Default(c, "terminationMessagePath", "/dev/termination-log");
      Default(c, "terminationMessagePolicy", "File");
      Default(c, "resources", Json::object());
      if (!c.contains("imagePullPolicy") && c.contains("image") && c["image"].is_string()) {
        std::string image = c["image"];
        bool latest =
            image.find(':') == std::string::npos || image.substr(image.rfind(':')) == ":latest";
        c["imagePullPolicy"] = latest ? "Always" : "IfNotPresent";
      }
      if (c.contains("ports") && c["ports"].is_array())
        for (auto& p : c["ports"])
          if (p.is_object()) Default(p, "protocol", "TCP");
    }
}

bool ValidName(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  for (char ch : name)
    if (!(std::islower(static_cast<unsigned char>(ch)) ||
          std::isdigit(static_cast<unsigned char>(ch)) || ch == '-' || ch == '.'))
      return false;
  return std::isalnum(static_cast<unsigned char>(name.front())) &&
         std::isalnum(static_cast<unsigned char>(name.back()));
}

}  // namespace

Json InitialStatus(const ResourceType& type) {
  // Status fields Go serialises even when zero (no omitempty), which typed clients require.
  if (type.kind == "StatefulSet") return {{"replicas", 0}, {"availableReplicas", 0}};
  if (type.kind == "DaemonSet")
    return {{"currentNumberScheduled", 0},
            {"numberMisscheduled", 0},
            {"desiredNumberScheduled", 0},
            {"numberReady", 0}};
  if (type.kind == "ReplicaSet") return {{"replicas", 0}};
  if (type.kind == "CloneSet")
    return {{"replicas", 0},        {"readyReplicas", 0},        {"availableReplicas", 0},
            {"updatedReplicas", 0}, {"updatedReadyReplicas", 0}, {"observedGeneration", 0}};
  if (type.kind == "Namespace") return {{"phase", "Active"}};
  if (type.kind == "Service") return {{"loadBalancer", Json::object()}};
  return Json::object();
}

void ApplyDefaults(const ResourceType& type, Json& object) {
  if (type.kind == "Namespace") {
    Default(object, "spec", Json::object());
    Default(object["spec"], "finalizers", Json::array({"kubernetes"}));
    Default(object, "status", Json::object());
    Default(object["status"], "phase", "Active");
    object["metadata"]["labels"]["kubernetes.io/metadata.name"] = object["metadata"]["name"];
    return;
  }
  if (type.kind == "Secret") {
    Default(object, "type", "Opaque");
    // stringData is write-only: the API server merges it into data (stringData wins) and
    // never stores it.
    if (auto sd = object.find("stringData"); sd != object.end()) {
      if (sd->is_object()) {
        Json& data = object["data"];
        if (!data.is_object()) data = Json::object();
        for (auto it = sd->begin(); it != sd->end(); ++it)
          if (it.value().is_string()) data[it.key()] = Base64Encode(it.value().get<std::string>());
      }
      object.erase("stringData");
    }
    return;
  }
  if (type.kind == "Service") {
    Default(object, "spec", Json::object());
    Json& spec = object["spec"];
    Default(spec, "type", "ClusterIP");
    Default(spec, "sessionAffinity", "None");
    Default(spec, "ipFamilies", Json::array({"IPv4"}));
    Default(spec, "ipFamilyPolicy", "SingleStack");
    Default(spec, "internalTrafficPolicy", "Cluster");
    if (spec["type"] != "ExternalName" && !spec.contains("clusterIP")) {
      // A stable address per service name stands in for the service IP allocator.
      std::size_t h = std::hash<std::string>{}(object["metadata"].value("namespace", "") + "/" +
                                               object["metadata"].value("name", ""));
      std::string ip =
          "10.96." + std::to_string((h >> 8) % 255) + "." + std::to_string(h % 254 + 1);
      spec["clusterIP"] = ip;
      spec["clusterIPs"] = Json::array({ip});
    }
    if (spec.contains("ports") && spec["ports"].is_array())
      for (auto& p : spec["ports"])
        if (p.is_object()) {
          Default(p, "protocol", "TCP");
          if (p.contains("port")) Default(p, "targetPort", p["port"]);
        }
    Default(object, "status", Json{{"loadBalancer", Json::object()}});
    return;
  }
  if (!object.contains("spec") || !object["spec"].is_object()) return;
  Json& spec = object["spec"];
  if (type.kind == "Deployment") {
    Default(spec, "replicas", 1);
    Default(spec, "revisionHistoryLimit", 10);
    Default(spec, "progressDeadlineSeconds", 600);
    Default(spec, "strategy", Json::object());
    Default(spec["strategy"], "type", "RollingUpdate");
    if (spec["strategy"]["type"] == "RollingUpdate") {
      Default(spec["strategy"], "rollingUpdate", Json::object());
      Default(spec["strategy"]["rollingUpdate"], "maxSurge", "25%");
      Default(spec["strategy"]["rollingUpdate"], "maxUnavailable", "25%");
    }
    DefaultPodTemplate(spec);
  } else if (type.kind == "StatefulSet") {
    Default(spec, "replicas", 1);
    Default(spec, "revisionHistoryLimit", 10);
    Default(spec, "podManagementPolicy", "OrderedReady");
    Default(spec, "updateStrategy", Json::object());
    Default(spec["updateStrategy"], "type", "RollingUpdate");
    if (spec["updateStrategy"]["type"] == "RollingUpdate") {
      Default(spec["updateStrategy"], "rollingUpdate", Json::object());
      Default(spec["updateStrategy"]["rollingUpdate"], "partition", 0);
    }
    Default(spec, "persistentVolumeClaimRetentionPolicy",
            Json{{"whenDeleted", "Retain"}, {"whenScaled", "Retain"}});
    DefaultPodTemplate(spec);
  } else if (type.kind == "DaemonSet") {
    Default(spec, "revisionHistoryLimit", 10);
    Default(spec, "updateStrategy", Json::object());
    Default(spec["updateStrategy"], "type", "RollingUpdate");
    if (spec["updateStrategy"]["type"] == "RollingUpdate") {
      Default(spec["updateStrategy"], "rollingUpdate", Json::object());
      Default(spec["updateStrategy"]["rollingUpdate"], "maxUnavailable", 1);
      Default(spec["updateStrategy"]["rollingUpdate"], "maxSurge", 0);
    }
    DefaultPodTemplate(spec);
  } else if (type.kind == "ReplicaSet") {
    Default(spec, "replicas", 1);
    DefaultPodTemplate(spec);
  } else if (type.kind == "CloneSet") {
    Default(spec, "replicas", 1);
    Default(spec, "revisionHistoryLimit", 10);
    Default(spec, "updateStrategy", Json::object());
    Default(spec["updateStrategy"], "type", "ReCreate");
    DefaultPodTemplate(spec);
  }
}

std::vector<StatusCause> Validate(const ResourceType& type, const Json& object) {
  std::vector<StatusCause> causes;
  std::string name = object["metadata"].value("name", "");
  if (!ValidName(name))
    causes.push_back({"FieldValueInvalid",
                      "Invalid value: \"" + name +
                          "\": a lowercase RFC 1123 subdomain must consist of lower case "
                          "alphanumeric characters, '-' or '.', and must start and end with an "
                          "alphanumeric character",
                      "metadata.name"});
  bool workload = type.kind == "Deployment" || type.kind == "StatefulSet" ||
                  type.kind == "DaemonSet" || type.kind == "ReplicaSet" || type.kind == "CloneSet";
  if (workload) {
    const Json spec = object.value("spec", Json::object());
    if (!spec.contains("selector") || !spec["selector"].is_object())
      causes.push_back({"FieldValueRequired", "Required value", "spec.selector"});
    if (!spec.contains("template") || !spec["template"].is_object())
      causes.push_back({"FieldValueRequired", "Required value", "spec.template"});
    else if (!spec["template"].contains("spec") ||
             !spec["template"]["spec"].contains("containers") ||
             !spec["template"]["spec"]["containers"].is_array() ||
             spec["template"]["spec"]["containers"].empty())
      causes.push_back({"FieldValueRequired", "Required value", "spec.template.spec.containers"});
    if (spec.contains("replicas") && spec["replicas"].is_number_integer() &&
        spec["replicas"].get<long long>() < 0)
      causes.push_back(
          {"FieldValueInvalid",
           "Invalid value: " + spec["replicas"].dump() + ": must be greater than or equal to 0",
           "spec.replicas"});
  }
  return causes;
}

std::vector<std::string> UnknownFields(const ResourceType& type, const Json& object) {
  std::vector<std::string> known = {"apiVersion", "kind", "metadata"};
  const std::string& k = type.kind;
  if (k == "ConfigMap") {
    known.insert(known.end(), {"data", "binaryData", "immutable"});
  } else if (k == "Secret") {
    known.insert(known.end(), {"data", "stringData", "type", "immutable"});
  } else if (k == "ServiceAccount") {
    known.insert(known.end(), {"secrets", "imagePullSecrets", "automountServiceAccountToken"});
  } else if (k == "Event") {
    return {};  // read-only for clients; never validated
  } else {
    known.insert(known.end(), {"spec", "status"});
  }
  static const std::vector<std::string> kMeta = {"name",
                                                 "generateName",
                                                 "namespace",
                                                 "selfLink",
                                                 "uid",
                                                 "resourceVersion",
                                                 "generation",
                                                 "creationTimestamp",
                                                 "deletionTimestamp",
                                                 "deletionGracePeriodSeconds",
                                                 "labels",
                                                 "annotations",
                                                 "ownerReferences",
                                                 "finalizers",
                                                 "managedFields"};
  std::vector<std::string> unknown;
  if (!object.is_object()) return unknown;
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (std::find(known.begin(), known.end(), it.key()) == known.end()) unknown.push_back(it.key());
  }
  if (object.contains("metadata") && object["metadata"].is_object())
    for (auto it = object["metadata"].begin(); it != object["metadata"].end(); ++it)
      if (std::find(kMeta.begin(), kMeta.end(), it.key()) == kMeta.end())
        unknown.push_back("metadata." + it.key());
  return unknown;
}

}  // namespace fleetwave::kubesim
