#include "api/api_watch.h"

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

}  // namespace fleetwave::api
