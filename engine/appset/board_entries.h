// Which of a set's status.applicationStatus entries an app's row on the StatusBoard reads
// (issue 25: the board's views used to decide it). Pinned by
// tests/engine/fleetview/board_entries_test.cc.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fleetwave::engine {

// `apps`: the application each entry names, in the entries' order ("" for an entry naming
// none, which no row reads). Of two entries of one app the last is the app's, as
// engine::AppRowsOf reads them. The index of each app's entry.
std::map<std::string, std::size_t, std::less<>> EntryOfEachApp(
    const std::vector<std::string_view>& apps);

}  // namespace fleetwave::engine
