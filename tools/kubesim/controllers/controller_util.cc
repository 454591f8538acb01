#include "tools/kubesim/controllers/controller_util.h"

#include <cmath>
#include <cstdlib>

namespace fleetwave::kubesim {

namespace {

const Json* At(const Json& object, const char* path) {
  try {
    Json::json_pointer p(path);
    if (!object.contains(p)) return nullptr;
    return &object.at(p);
  } catch (const std::exception&) {
    // A path through a non-object (e.g. spec: null) is simply absent.
    return nullptr;
  }
}

}  // namespace

long long IntAt(const Json& object, const char* path, long long fallback) {
  const Json* v = At(object, path);
  return v && v->is_number_integer() ? v->get<long long>() : fallback;
}

bool BoolAt(const Json& object, const char* path) {
  const Json* v = At(object, path);
  return v && v->is_boolean() && v->get<bool>();
}

std::string StringAt(const Json& object, const char* path) {
  const Json* v = At(object, path);
  return v && v->is_string() ? v->get<std::string>() : "";
}

std::optional<long long> ScaledIntOrPercent(const Json& value, long long total, bool round_up) {
  if (value.is_number_integer()) return value.get<long long>();
  if (!value.is_string()) return std::nullopt;
  std::string s = value.get<std::string>();
  if (s.empty() || s.back() != '%') return std::nullopt;
  char* end = nullptr;
  long long pct = std::strtoll(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size() - 1) return std::nullopt;
  double scaled = static_cast<double>(pct) * static_cast<double>(total) / 100.0;
  return static_cast<long long>(round_up ? std::ceil(scaled) : std::floor(scaled));
}

std::string ShortHash(const Json& value) {
  // FNV-1a over the canonical dump, then the decimal digits mapped onto the safe alphabet,
  // which is how Kubernetes turns its template hash into a label value.
  std::uint32_t h = 2166136261u;
  for (unsigned char ch : value.dump()) {
    h ^= ch;
    h *= 16777619u;
  }
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string digits = std::to_string(h), out;
  for (unsigned char d : digits) out += kAlphabet[d % (sizeof kAlphabet - 1)];
  return out;
}

const Json* FindCondition(const Json& status, const std::string& type) {
  if (!status.is_object() || !status.contains("conditions") || !status["conditions"].is_array())
    return nullptr;
  for (const auto& c : status["conditions"])
    if (c.is_object() && c.value("type", "") == type) return &c;
  return nullptr;
}

void RemoveCondition(Json& status, const std::string& type) {
  if (!status.contains("conditions") || !status["conditions"].is_array()) return;
  Json kept = Json::array();
  for (auto& c : status["conditions"])
    if (!(c.is_object() && c.value("type", "") == type)) kept.push_back(c);
  status["conditions"] = std::move(kept);
}

bool SetCondition(Json& status, const std::string& type, const std::string& cond_status,
                  const std::string& reason, const std::string& message, const std::string& now) {
  Json cond = {{"type", type},          {"status", cond_status},
               {"lastUpdateTime", now}, {"lastTransitionTime", now},
               {"reason", reason},      {"message", message}};
  if (const Json* old = FindCondition(status, type)) {
    if (old->value("status", "") == cond_status && old->value("reason", "") == reason) return false;
    if (old->value("status", "") == cond_status)
      cond["lastTransitionTime"] = old->value("lastTransitionTime", now);
  }
  if (!status.contains("conditions") || !status["conditions"].is_array())
    status["conditions"] = Json::array();
  for (auto& c : status["conditions"])
    if (c.is_object() && c.value("type", "") == type) {
      c = std::move(cond);
      return true;
    }
  status["conditions"].push_back(std::move(cond));
  return true;
}

bool IsControlledBy(const Json& object, const std::string& owner_uid) {
  const auto& md = object["metadata"];
  if (!md.contains("ownerReferences") || !md["ownerReferences"].is_array()) return false;
  for (const auto& r : md["ownerReferences"])
    if (r.is_object() && r.value("uid", "") == owner_uid && r.value("controller", false))
      return true;
  return false;
}

Json ControllerRef(const Json& owner, const std::string& api_version, const std::string& kind) {
  return {{"apiVersion", api_version}, {"kind", kind},       {"name", NameOf(owner)},
          {"uid", UidOf(owner)},       {"controller", true}, {"blockOwnerDeletion", true}};
}

bool IsDeleting(const Json& object) {
  return object.contains("metadata") && object["metadata"].contains("deletionTimestamp");
}

std::string UidOf(const Json& object) { return StringAt(object, "/metadata/uid"); }

long long GenerationOf(const Json& object) { return IntAt(object, "/metadata/generation", 0); }

Json CommitIfChanged(Cluster& c, ResourceId resource, const Json& original, Json updated) {
  if (updated == original) return original;
  return c.Commit(resource, std::move(updated), EventType::kModified);
}

std::optional<Duration> ReadyDelayFor(const Json& pod_template, Duration base) {
  bool slow = false;
  const Json* containers = At(pod_template, "/spec/containers");
  if (containers && containers->is_array())
    for (const auto& ctr : *containers) {
      std::string image = ctr.is_object() ? ctr.value("image", "") : "";
      // Only the tag decides, so a registry host or repository named "fail" does not.
      auto colon = image.rfind(':');
      std::string tag = colon == std::string::npos || image.find('/', colon) != std::string::npos
                            ? ""
                            : image.substr(colon + 1);
      if (tag.find("fail") != std::string::npos) return std::nullopt;
      if (tag.find("slow") != std::string::npos) slow = true;
    }
  return slow ? base * 10 : base;
}

}  // namespace fleetwave::kubesim
