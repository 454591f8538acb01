// Which applicationStatus entry an app's row reads (engine/appset/board_entries.h).
#include "engine/appset/board_entries.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fleetwave::engine {
namespace {

TEST(EntryOfEachApp, TheLastEntryOfAnAppAndNoneForAnUnnamedOne) {
  using Index = std::map<std::string, std::size_t, std::less<>>;
  struct Case {
    const char* name;
    std::vector<std::string_view> apps;
    Index want;
  } cases[] = {
      {"no entries", {}, {}},
      {"one each", {"a", "b"}, {{"a", 0}, {"b", 1}}},
      {"two of an app: the later", {"a", "b", "a"}, {{"a", 2}, {"b", 1}}},
      {"an entry naming no app is no row's", {"", "a", ""}, {{"a", 1}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(EntryOfEachApp(c.apps), c.want);
  }
}

}  // namespace
}  // namespace fleetwave::engine
