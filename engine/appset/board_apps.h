// The StatusBoard's rules over Application names (issue 25: no domain decision in actors/):
// which of one publish's apps are shown, which set owns an app two sets publish, which of a
// set's apps leave with its latest publish, and what a set's summary on the board holds. The
// board (actors/status_board*.cc) keeps the snapshots, the locking and the change feed, and
// calls these on names. Pinned by tests/engine/fleetview/board_apps_test.cc.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/appset/appset_summary.h"
#include "engine/appset/appset_summary_state.h"

namespace fleetwave::engine {

// Of one publish's apps named `names`, in the order given, the ones shown: one per name, the
// last of equal names (a later entry is the publisher's later word), in name order. The
// indexes into `names`; strictly sorted input comes back whole.
std::vector<std::size_t> LastOfEachName(const std::vector<std::string_view>& names);

// An Application's name is one object in the fleet (as in Argo CD's namespace), so the board
// shows it once, under the set that published it last: publishing an app that `owner` holds
// takes it from that set when `publisher` is another one.
bool PublishTakesApp(std::string_view owner, std::string_view publisher);

// A publish is the set's whole list: the names it published before (`before`) and not now
// (`now`) are removed. Both strictly sorted; the removed names in order. (An app another set
// took meanwhile is that set's, and the board leaves it: PublishTakesApp.)
std::vector<std::string> AppsLeftOutOfPublish(const std::vector<std::string_view>& before,
                                              const std::vector<std::string_view>& now);

// The summary a set shows on the board: at most kBoardAttentionRows of its rows that need an
// operator's attention (the total is counted apart), named after the set that owns the rows
// (`owner`), whatever name its published JSON carries.
inline constexpr std::size_t kBoardAttentionRows = 50;
AppSetSummary BoardSummaryOf(const SummaryState& state, const std::string& owner);

}  // namespace fleetwave::engine
