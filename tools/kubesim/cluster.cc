#include "tools/kubesim/cluster.h"

#include <cstdio>

namespace fleetwave::kubesim {

std::string NamespaceOf(const Json& object) {
  const auto& md = object["metadata"];
  auto it = md.find("namespace");
  return it != md.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string NameOf(const Json& object) {
  const auto& md = object["metadata"];
  auto it = md.find("name");
  return it != md.end() && it->is_string() ? it->get<std::string>() : "";
}

Cluster::Cluster(int index, std::string token, std::uint64_t seed, const Clock& clock,
                 const ClusterOptions& options)
    : index_(index),
      name_("sim-" + std::to_string(index)),
      token_(std::move(token)),
      clock_(clock),
      // Start well above 0 so clients never mistake a real resourceVersion for "any".
      rv_(1000),
      hub_(options.history_events, options.history_window),
      rng_(seed * 1000003 + static_cast<std::uint64_t>(index)) {}

Json Cluster::Commit(ResourceId resource, Json object, EventType type) {
  object["metadata"]["resourceVersion"] = std::to_string(++rv_);
  std::optional<Json> previous;
  if (type == EventType::kModified && hub_.WantsPrevious(resource))
    previous = store_.Get(resource, NamespaceOf(object), NameOf(object));
  store_.Put(resource, NamespaceOf(object), NameOf(object), object);
  hub_.Publish(type, resource, rv_, object, previous ? &*previous : nullptr, clock_.Now());
  if (on_change_) on_change_(index_);
  return object;
}

Json Cluster::Erase(ResourceId resource, Json object) {
  store_.Erase(resource, NamespaceOf(object), NameOf(object));
  object["metadata"]["resourceVersion"] = std::to_string(++rv_);
  hub_.Publish(EventType::kDeleted, resource, rv_, object, nullptr, clock_.Now());
  if (on_change_) on_change_(index_);
  return object;
}

std::string Cluster::NewUid() {
  std::uint64_t a = rng_(), b = rng_();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string Cluster::RandomSuffix(int n) {
  // The alphabet Kubernetes uses for generateName (no vowels, no confusable digits).
  static constexpr char kChars[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string s;
  for (int i = 0; i < n; ++i) s += kChars[rng_() % (sizeof kChars - 1)];
  return s;
}

}  // namespace fleetwave::kubesim
