#include "api/api_watch.h"

#include "engine/progress/workload.h"

namespace fleetwave::api {

const std::string& BookmarkLine() {
  static const std::string line =
      "{\"type\":\"BOOKMARK\",\"object\":{\"initialEventsEnd\":true}}\n";
  return line;
}

std::string WatchLine(const char* type, const engine::Json& object) {
  std::string line = "{\"type\":\"";
  line += type;
  line += "\",\"object\":";
  line += object.dump(-1, ' ', false, engine::Json::error_handler_t::replace);
  line += "}\n";
  return line;
}

std::string WatchSelection::NameOf(const engine::Json& object) {
  if (const engine::Json* name = engine::FieldAt(object, {"metadata", "name"});
      name != nullptr && name->is_string()) {
    return name->get<std::string>();
  }
  const engine::Json* name = engine::FieldAt(object, {"name"});
  return name != nullptr && name->is_string() ? name->get<std::string>() : std::string();
}

bool WatchSelection::Admit(const engine::Json& object) {
  if (!(*filter_)(object)) return false;
  held_.insert(NameOf(object));
  return true;
}

const char* WatchSelection::Translate(actors::ChangeType type, const std::string& name,
                                      const engine::Json& object) {
  const bool held = held_.count(name) > 0;
  const bool matches = type != actors::ChangeType::kDeleted && (*filter_)(object);
  if (matches) {
    if (held) return "MODIFIED";
    held_.insert(name);
    return "ADDED";
  }
  if (!held) return nullptr;
  held_.erase(name);
  return "DELETED";
}

}  // namespace fleetwave::api
