// A standby's view of the shared state (tools/fleetwave/shared_state_view.h): the prefix watch's
// reports turned into the board's sets while active - every set at activation with a former
// term's sets removed, then only the sets whose records changed - nothing while inactive, the
// last good view kept when a record does not decode, and a set gone with its records.
#include "tools/fleetwave/shared_state_view.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace fleetwave::cli {
namespace {

using engine::Json;

class SharedStateViewTest : public ::testing::Test {
 protected:
  // Applies puts (value) and deletes (nullopt) to the mirror and reports them as the watch does.
  void Change(const std::map<std::string, std::optional<std::string>>& changes, int64_t revision,
              bool reset = false) {
    store::EtcdPrefixWatch::Change c;
    for (const auto& [key, value] : changes) {
      if (value) {
        mirror_[key] = {key, *value, revision};
      } else {
        mirror_.erase(key);
      }
      c.keys.insert(key);
    }
    c.reset = reset;
    c.revision = revision;
    c.entries = &mirror_;
    view_.OnChange(c);
  }
  Json Set(const std::string& name) {
    auto set = board_.AppSet(name);
    return set ? *set : Json();
  }

  actors::StatusBoard board_;
  std::vector<std::string> logs_;
  SharedStateView view_{board_,
                        {{"guestbook", Json{{"file", "sets/guestbook.yaml"},
                                            {"strategy", {{"type", "RollingSync"}}}}}},
                        [this](const std::string& line) { logs_.push_back(line); }};
  std::map<std::string, store::Entry> mirror_;
};

TEST_F(SharedStateViewTest, ActivationShowsEverySetAndRemovesAFormerTermsOnes) {
  board_.PublishReconcile("retired", Json{{"metadata", {{"name", "retired"}}}},
                          std::vector<Json>{});
  Change({{"appsets/guestbook/rollout", R"({"step": 2})"},
          {"appsets/guestbook/status/app-1",
           R"({"application": "app-1", "status": "Progressing", "step": "2"})"},
          {"appsets/guestbook/spec/app-1", R"({"destination": {"name": "sim-1"}})"}},
         7, true);
  EXPECT_TRUE(Set("guestbook").is_null()) << "inactive (leading): nothing published";
  EXPECT_FALSE(Set("retired").is_null());
  EXPECT_EQ(view_.revision(), 7);

  view_.SetActive(true);
  const Json set = Set("guestbook");
  EXPECT_EQ(set["status"]["rollout"]["step"], 2);
  EXPECT_EQ(set["status"]["applicationStatus"][0]["status"], "Progressing");
  EXPECT_EQ(set["sharedState"], (Json{{"source", "etcd"}, {"revision", 7}}));
  EXPECT_EQ(set["spec"]["strategy"]["type"], "RollingSync") << "from this instance's inputs";
  ASSERT_NE(board_.Application("app-1"), nullptr);
  EXPECT_EQ((*board_.Application("app-1"))["spec"]["destination"]["name"], "sim-1");
  EXPECT_TRUE(Set("retired").is_null()) << "a set the shared state does not hold goes";
}

TEST_F(SharedStateViewTest, ChangesRepublishTheirSetsKeepTheLastGoodAndRemoveAnEmptiedSet) {
  view_.SetActive(true);
  Change({{"appsets/guestbook/rollout", R"({"step": 1})"}, {"appsets/other/rollout", "{}"}}, 3,
         true);
  EXPECT_EQ(Set("guestbook")["status"]["rollout"]["step"], 1);
  Change({{"appsets/guestbook/rollout", R"({"step": 2})"}}, 4);
  EXPECT_EQ(Set("guestbook")["status"]["rollout"]["step"], 2);
  EXPECT_EQ(Set("guestbook")["sharedState"]["revision"], 4);
  EXPECT_EQ(Set("other")["sharedState"]["revision"], 3) << "untouched: as of its records";

  Change({{"appsets/guestbook/rollout", "not json"}}, 5);
  EXPECT_EQ(Set("guestbook")["status"]["rollout"]["step"], 2) << "the last good view stays";
  ASSERT_EQ(logs_.size(), 1u);
  EXPECT_NE(logs_[0].find("appset=guestbook cannot be shown"), std::string::npos) << logs_[0];
  Change({{"appsets/guestbook/rollout", "still not json"}}, 6);
  EXPECT_EQ(logs_.size(), 1u) << "logged once per problem";

  Change({{"appsets/other/rollout", std::nullopt}}, 7);
  EXPECT_TRUE(Set("other").is_null()) << "every record gone: the leader deleted the set";

  view_.SetActive(false);
  Change({{"appsets/guestbook/rollout", R"({"step": 3})"}}, 8);
  EXPECT_EQ(Set("guestbook")["status"]["rollout"]["step"], 2)
      << "leading: the actors publish, not the shared view";
}

}  // namespace
}  // namespace fleetwave::cli
