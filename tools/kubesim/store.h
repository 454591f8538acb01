// One cluster's objects, kept compactly (CBOR bytes, decoded on access) and ordered by
// "namespace/name" per resource type so lists and continue tokens walk them in a stable order.
// Knows nothing of verbs or resourceVersions. Not thread-safe: used from the io thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/kubesim/resources.h"

namespace fleetwave::kubesim {

using Json = nlohmann::json;

// "namespace/name"; cluster-scoped objects use an empty namespace ("/name").
std::string ObjectKey(const std::string& ns, const std::string& name);

class ObjectStore {
 public:
  ObjectStore();
  std::optional<Json> Get(ResourceId resource, const std::string& ns,
                          const std::string& name) const;
  bool Contains(ResourceId resource, const std::string& ns, const std::string& name) const;
  void Put(ResourceId resource, const std::string& ns, const std::string& name, const Json& object);
  void Erase(ResourceId resource, const std::string& ns, const std::string& name);
  // Visits objects of `resource` in key order, restricted to `ns` when non-empty, starting
  // strictly after `after` when non-empty. `visit` returns false to stop.
  void Scan(ResourceId resource, const std::string& ns, const std::string& after,
            const std::function<bool(const std::string& key, const Json& object)>& visit) const;
  std::size_t Count(ResourceId resource, const std::string& ns) const;
  std::size_t BytesUsed() const;
  // Objects decoded from storage so far (every Get and every object a Scan visits).
  std::uint64_t decodes() const { return decodes_; }

 private:
  mutable std::uint64_t decodes_ = 0;
  std::vector<std::map<std::string, std::vector<std::uint8_t>>> by_resource_;
};

}  // namespace fleetwave::kubesim
