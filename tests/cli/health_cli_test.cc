// `fleetwave health -f OBJECT` as a user runs it.
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_paths.h"
#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {
namespace {

const std::string kHealth = ::fleetwave::test_paths::TestdataDir() + "/health/";

TEST(HealthCli, Outputs) {
  struct Case {
    std::string name;
    std::string file;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"Deployment past its deadline", kHealth + "deployment-progress-deadline-exceeded.json",
       "{\n  \"status\": \"Degraded\",\n  \"message\": \"Deployment \\\"checkout\\\" exceeded its "
       "progress deadline\"\n}\n"},
      {"CloneSet held at its partition", kHealth + "cloneset-at-partition.json",
       "{\n  \"status\": \"Suspended\",\n  \"message\": \"CloneSet has been paused due to "
       "partition ready: 4 of 10 pods updated and available\"\n}\n"},
      {"any other kind exists, so it is healthy", kHealth + "configmap.json",
       "{\n  \"status\": \"Healthy\",\n  \"message\": \"\"\n}\n"},
      {"YAML input", ::fleetwave::test_paths::TestdataDir() + "/progress/statefulset-ondelete.yaml",
       "{\n  \"status\": \"Healthy\",\n  \"message\": \"statefulset has 3 ready pods (0 "
       "updated)\"\n}\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::ostringstream out, err;
    EXPECT_EQ(RunHealth({"-f", c.file}, out, err), 0) << err.str();
    EXPECT_EQ(out.str(), c.expected);
    EXPECT_EQ(err.str(), "");
  }
}

TEST(HealthCli, Errors) {
  struct Case {
    std::string name;
    Argv args;
    std::string stdin_text;
    int rc;
    std::string err;
  };
  const std::vector<Case> cases = {
      {"unreadable file",
       {"-f", kHealth + "nope.json"},
       "",
       1,
       kHealth + "nope.json: No such file or directory\n"},
      {"not an object",
       {"-f", "-"},
       "- a\n- b\n",
       1,
       "<stdin>: expected a Kubernetes object (a mapping with apiVersion and kind)\n"},
      {"no kind",
       {"-f", "-"},
       "metadata: {name: x}\n",
       1,
       "<stdin>: not a Kubernetes object: apiVersion and kind are required\n"},
      {"bad YAML", {"-f", "-"}, "kind: Pod\n  bad: [\n", 1, ""},
      {"no -f", {}, "", 2, "usage: fleetwave health -f OBJECT\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::istringstream in(c.stdin_text);
    std::streambuf* saved = std::cin.rdbuf(in.rdbuf());
    std::ostringstream out, err;
    const int rc = RunHealth(c.args, out, err);
    std::cin.rdbuf(saved);
    EXPECT_EQ(rc, c.rc);
    EXPECT_EQ(out.str(), "");
    if (c.err.empty()) {
      EXPECT_EQ(err.str().rfind("<stdin>:", 0), 0u)
          << err.str();  // names the input, with a position
      EXPECT_NE(err.str().find(":2:"), std::string::npos) << err.str();
    } else {
      EXPECT_EQ(err.str(), c.err);
    }
  }
}

}  // namespace
}  // namespace fleetwave::cli
