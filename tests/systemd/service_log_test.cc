// The journal fields and priority of a daemon log line (tools/fleetwave/service_log.h), on the
// line shapes the actors and the engine write.
#include "tools/fleetwave/service_log.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <string>
#include <utility>
#include <vector>

namespace fleetwave::cli {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

TEST(ParseLogLineTest, FieldsAndPriority) {
  struct Case {
    const char* name;
    const char* line;
    Fields fields;
    int priority;
  };
  const Case cases[] = {
      {"plain", "fleetwave run: stopping", {}, kPriorityInfo},
      {"sync started",
       "appset=guestbook app=guestbook-sim-0 cluster=sim-0 sync started (rollout) "
       "operation=guestbook-sim-0-3f2a revision=abc123",
       {{"APPSET", "guestbook"},
        {"APP", "guestbook-sim-0"},
        {"CLUSTER", "sim-0"},
        {"OPERATION", "guestbook-sim-0-3f2a"}},
       kPriorityInfo},
      {"step in parentheses",
       "appset=guestbook app=guestbook-sim-1 cluster=sim-1 promoted to Pending (step 2)",
       {{"APPSET", "guestbook"}, {"APP", "guestbook-sim-1"}, {"CLUSTER", "sim-1"}, {"STEP", "2"}},
       kPriorityInfo},
      {"step complete",
       "appset=guestbook step 3 complete",
       {{"APPSET", "guestbook"}, {"STEP", "3"}},
       kPriorityInfo},
      {"step not a number", "appset=s step by step", {{"APPSET", "s"}}, kPriorityInfo},
      {"operation in parentheses, punctuation trimmed",
       "app=a manual sync by alice (operation=a-1): cluster=c0:",
       {{"APP", "a"}, {"OPERATION", "a-1"}, {"CLUSTER", "c0"}},
       kPriorityInfo},
      {"first occurrence wins", "appset=one appset=two", {{"APPSET", "one"}}, kPriorityInfo},
      {"warning", "warning: /etc/fleetwave/x.yaml: unknown key", {}, kPriorityWarning},
      {"warning after the prefix",
       "appset=s warning: automated sync is off",
       {{"APPSET", "s"}},
       kPriorityWarning},
      {"failed actor",
       "cluster=c0 actor failed (unhandled exception); restarting it",
       {{"CLUSTER", "c0"}},
       kPriorityError},
      {"cluster unreachable",
       "cluster=c0 cluster c0: unreachable after 3 consecutive failures; last: GET /version",
       {{"CLUSTER", "c0"}},
       kPriorityWarning},
      {"empty value is no field", "app= cluster=c", {{"CLUSTER", "c"}}, kPriorityInfo},
      {"a word that only contains a key", "reapp=x subcluster=y", {}, kPriorityInfo},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const JournalEntry e = ParseLogLine(c.line);
    EXPECT_EQ(e.fields, c.fields);
    EXPECT_EQ(e.priority, c.priority);
  }
}

TEST(StderrIsJournalTest, OnlyWhenJournalStreamNamesStderr) {
  ASSERT_EQ(unsetenv("JOURNAL_STREAM"), 0);
  EXPECT_FALSE(StderrIsJournal());
  ASSERT_EQ(setenv("JOURNAL_STREAM", "1:1", 1), 0);
  EXPECT_FALSE(StderrIsJournal());
  ASSERT_EQ(setenv("JOURNAL_STREAM", "garbage", 1), 0);
  EXPECT_FALSE(StderrIsJournal());
  struct stat st {};
  ASSERT_EQ(fstat(2, &st), 0);
  const std::string mine = std::to_string(static_cast<unsigned long long>(st.st_dev)) + ":" +
                           std::to_string(static_cast<unsigned long long>(st.st_ino));
  ASSERT_EQ(setenv("JOURNAL_STREAM", mine.c_str(), 1), 0);
  EXPECT_TRUE(StderrIsJournal());
  unsetenv("JOURNAL_STREAM");
}

}  // namespace
}  // namespace fleetwave::cli
