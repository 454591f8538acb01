#include "engine/deletion/deletion_kinds.h"

#include <set>

namespace fleetwave::engine {

std::vector<std::pair<std::string, std::string>> DeletionKindsOf(
    const std::vector<RenderedObject>& objects) {
  std::set<std::pair<std::string, std::string>> kinds;
  for (const RenderedObject& o : objects) {
    auto api = o.object.is_object() ? o.object.find("apiVersion") : o.object.end();
    if (api != o.object.end() && api->is_string())
      kinds.emplace(api->get<std::string>(), o.ref.kind);
  }
  return {kinds.begin(), kinds.end()};
}

}  // namespace fleetwave::engine
