#include "engine/appset/board_entries.h"

namespace fleetwave::engine {

std::map<std::string, std::size_t, std::less<>> EntryOfEachApp(
    const std::vector<std::string_view>& apps) {
  std::map<std::string, std::size_t, std::less<>> out;
  for (std::size_t i = 0; i < apps.size(); ++i) {
    if (!apps[i].empty()) out.insert_or_assign(std::string(apps[i]), i);  // a later one wins
  }
  return out;
}

}  // namespace fleetwave::engine
