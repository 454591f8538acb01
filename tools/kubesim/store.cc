#include "tools/kubesim/store.h"

namespace fleetwave::kubesim {

std::string ObjectKey(const std::string& ns, const std::string& name) { return ns + "/" + name; }

ObjectStore::ObjectStore() : by_resource_(AllResources().size()) {}

std::optional<Json> ObjectStore::Get(ResourceId resource, const std::string& ns,
                                     const std::string& name) const {
  const auto& m = by_resource_[resource];
  auto it = m.find(ObjectKey(ns, name));
  if (it == m.end()) return std::nullopt;
  ++decodes_;
  return Json::from_cbor(it->second);
}

bool ObjectStore::Contains(ResourceId resource, const std::string& ns,
                           const std::string& name) const {
  return by_resource_[resource].count(ObjectKey(ns, name)) > 0;
}

void ObjectStore::Put(ResourceId resource, const std::string& ns, const std::string& name,
                      const Json& object) {
  auto bytes = Json::to_cbor(object);
  bytes.shrink_to_fit();
  by_resource_[resource][ObjectKey(ns, name)] = std::move(bytes);
}

void ObjectStore::Erase(ResourceId resource, const std::string& ns, const std::string& name) {
  by_resource_[resource].erase(ObjectKey(ns, name));
}

void ObjectStore::Scan(
    ResourceId resource, const std::string& ns, const std::string& after,
    const std::function<bool(const std::string& key, const Json& object)>& visit) const {
  const auto& m = by_resource_[resource];
  std::string prefix = ns.empty() ? "" : ns + "/";
  auto it = after.empty() ? m.lower_bound(prefix) : m.upper_bound(after);
  for (; it != m.end(); ++it) {
    if (!prefix.empty() && it->first.compare(0, prefix.size(), prefix) != 0) break;
    ++decodes_;
    if (!visit(it->first, Json::from_cbor(it->second))) return;
  }
}

std::size_t ObjectStore::Count(ResourceId resource, const std::string& ns) const {
  if (ns.empty()) return by_resource_[resource].size();
  std::size_t n = 0;
  Scan(resource, ns, "", [&n](const std::string&, const Json&) {
    ++n;
    return true;
  });
  return n;
}

std::size_t ObjectStore::BytesUsed() const {
  std::size_t n = 0;
  for (const auto& m : by_resource_)
    for (const auto& [k, v] : m) n += k.size() + v.size();
  return n;
}

}  // namespace fleetwave::kubesim
