// Table test for the answers the coordinator gives an operator's command itself
// (engine/coordinator_commands.h), the rule actors/coordinator.cc used to hold.
#include "engine/coordinator_commands.h"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

struct Case {
  const char* name;
  bool stopping;
  bool set_runs;
  std::optional<CommandAnswer> want;
};

TEST(CoordinatorCommandsTest, RefusedWhileStoppingOrForASetThatDoesNotRun) {
  const std::vector<Case> cases = {
      {"a running set: its actor answers", false, true, std::nullopt},
      {"no such set", false, false,
       CommandAnswer{CommandOutcome::kNotFound, "sync refused: no applicationset web"}},
      {"stopping", true, true,
       CommandAnswer{CommandOutcome::kUnavailable, "sync refused: the daemon is stopping"}},
      {"stopping wins over an unknown set", true, false,
       CommandAnswer{CommandOutcome::kUnavailable, "sync refused: the daemon is stopping"}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(RefuseAtCoordinator(c.stopping, c.set_runs, "sync", "web"), c.want) << c.name;
  }
}

TEST(CoordinatorCommandsTest, ASetDeletionIsTakenWhileStoppingButNotForAnUnknownSet) {
  const CommandAnswer unknown{CommandOutcome::kNotFound,
                              "deletion of web refused: no applicationset web"};
  struct Case {
    const char* name;
    bool stopping, set_runs;
    std::optional<CommandAnswer> want;
  } cases[] = {
      {"running, known set: passed on", false, true, std::nullopt},
      {"stopping, known set: still passed on to the deletion actor", true, true, std::nullopt},
      {"running, unknown set", false, false, unknown},
      {"stopping, unknown set: not found, not unavailable", true, false, unknown},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(RefuseSetDeletionAtCoordinator(c.stopping, c.set_runs, "deletion of web", "web"),
              c.want)
        << c.name;
  }
}

TEST(CoordinatorCommandsTest, AnInternalErrorIsCutAt200Characters) {
  const std::string tail = "; what loaded before stays in force where it could be kept";
  const std::string prefix = "/etc/fleetwave.yaml: internal error applying a change: ";
  struct Case {
    const char* name;
    std::string error, shown;
  } cases[] = {
      {"short: whole", "bad key", "bad key"},
      {"empty", "", ""},
      {"exactly 200: whole", std::string(200, 'x'), std::string(200, 'x')},
      {"201: the first 200 and a mark", std::string(200, 'x') + "y",
       std::string(200, 'x') + "...(cut)"},
      {"a whole document: the first 200", std::string(5000, 'z'),
       std::string(200, 'z') + "...(cut)"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(InternalErrorLine("/etc/fleetwave.yaml", "applying a change", c.error),
              prefix + c.shown + tail)
        << c.name;
  }
}

TEST(CoordinatorCommandsTest, ARefreshOfEverySetIsLoggedAndCounted) {
  const RefreshOutcome got = RefreshEveryOutcome(3, "alice");
  EXPECT_EQ(got.line, "refresh of every ApplicationSet requested by alice");
  EXPECT_EQ(got.answer,
            (CommandAnswer{CommandOutcome::kAccepted, "refresh of 3 applicationset(s) started"}));
}

struct WebhookCase {
  const char* name;
  std::vector<std::string> repo_urls;
  std::vector<std::string> refreshed;
  std::string line;
  std::string answer;
};

TEST(CoordinatorCommandsTest, AWebhookNamesTheSetsItRefreshesAndNoCredentials) {
  const std::vector<WebhookCase> cases = {
      {"none follows it",
       {"https://git.example/shop.git"},
       {},
       "webhook push to refs/heads/main of https://git.example/shop.git from hook: no "
       "applicationset follows it",
       "refresh of 0 applicationset(s) started"},
      {"two sets, in order",
       {"https://git.example/shop.git", "git@git.example:shop.git"},
       {"guestbook", "shop"},
       "webhook push to refs/heads/main of https://git.example/shop.git from hook: refreshing "
       "guestbook, shop",
       "refresh of 2 applicationset(s) started: guestbook, shop"},
      {"credentials in the URL are not logged",
       {"https://user:s3cret@git.example/shop.git"},
       {"shop"},
       "",
       "refresh of 1 applicationset(s) started: shop"},
      {"no URL",
       {},
       {},
       "webhook push to refs/heads/main of  from hook: no applicationset follows it",
       "refresh of 0 applicationset(s) started"},
  };
  for (const auto& c : cases) {
    const RefreshOutcome got =
        WebhookRefreshOutcome(c.repo_urls, "refs/heads/main", "hook", c.refreshed);
    if (!c.line.empty()) {
      EXPECT_EQ(got.line, c.line) << c.name;
    }
    EXPECT_EQ(got.line.find("s3cret"), std::string::npos) << c.name;
    EXPECT_EQ(got.answer, (CommandAnswer{CommandOutcome::kAccepted, c.answer})) << c.name;
  }
}

}  // namespace
}  // namespace fleetwave::engine
