// Tests that read a StatusBoard's change feed watch its collections first, as the API's watch
// streams do: an unwatched collection keeps no changes (ChangeFeed::Hold).
#pragma once

#include <memory>
#include <vector>

#include "actors/status_board.h"

namespace fleetwave::actors {

inline std::vector<std::unique_ptr<ChangeFeed::Hold>> WatchAll(const StatusBoard& board) {
  std::vector<std::unique_ptr<ChangeFeed::Hold>> holds;
  for (const char* collection : StatusBoard::kCollections) {
    holds.push_back(std::make_unique<ChangeFeed::Hold>(board.feed(), collection));
  }
  return holds;
}

}  // namespace fleetwave::actors
