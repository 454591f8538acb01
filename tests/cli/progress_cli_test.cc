// `fleetwave progress` as a user runs it: YAML and JSON files, standard input, --now, and the
// errors that must name the file.
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/test_paths.h"
#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {
namespace {

const std::string kData = ::fleetwave::test_paths::TestdataDir() + "/progress/";

struct CliRun {
  int rc;
  std::string out;
  std::string err;
};

CliRun Progress(const Argv& args, const std::string& stdin_text = "") {
  std::istringstream in(stdin_text);
  std::streambuf* saved = std::cin.rdbuf(in.rdbuf());
  std::ostringstream out, err;
  const int rc = RunProgress(args, out, err);
  std::cin.rdbuf(saved);
  return {rc, out.str(), err.str()};
}

TEST(ProgressCli, Outputs) {
  struct Case {
    std::string name;
    Argv args;
    std::string expected;  // exact stdout
    std::string expected_err;
  };
  const std::vector<Case> cases = {
      {"v1beta1 YAML, clock carried on from its own condition",
       {"-f", kData + "cloneset-v1beta1-progressing.yaml", "--now", "2026-01-01T10:00:00Z"},
       R"({
  "condition": {
    "type": "Progressing",
    "status": "True",
    "reason": "CloneSetUpdated",
    "message": "CloneSet is progressing",
    "lastUpdateTime": "2026-01-01T09:59:55Z",
    "lastTransitionTime": "2026-01-01T09:59:55Z"
  },
  "requeueAfterSeconds": 6.0
}
)",
       ""},
      {"fractional --now, half a second before the deadline",
       {"-f", kData + "cloneset-v1beta1-progressing.yaml", "--now=2026-01-01T10:00:04.5Z"},
       R"({
  "condition": {
    "type": "Progressing",
    "status": "True",
    "reason": "CloneSetUpdated",
    "message": "CloneSet is progressing",
    "lastUpdateTime": "2026-01-01T09:59:55Z",
    "lastTransitionTime": "2026-01-01T09:59:55Z"
  },
  "requeueAfterSeconds": 0.5
}
)",
       ""},
      {"past the deadline: timed out",
       {"--now", "2026-01-01T10:00:06+00:00", "-f", kData + "cloneset-v1beta1-progressing.yaml"},
       R"({
  "condition": {
    "type": "Progressing",
    "status": "False",
    "reason": "ProgressDeadlineExceeded",
    "message": "CloneSet revision storefront-7f6b5c4d3 has timed out progressing",
    "lastUpdateTime": "2026-01-01T10:00:06Z",
    "lastTransitionTime": "2026-01-01T10:00:06Z"
  },
  "requeueAfterSeconds": -1
}
)",
       ""},
      {"Deployment: Kubernetes' own condition echoed",
       {"-f", kData + "deployment-deadline-exceeded.yaml", "--now", "2026-01-01T10:00:00Z"},
       R"({
  "condition": {
    "type": "Progressing",
    "status": "False",
    "reason": "ProgressDeadlineExceeded",
    "message": "ReplicaSet \"checkout-5b8c9d7f4\" has timed out progressing.",
    "lastUpdateTime": "2026-01-01T09:20:00Z",
    "lastTransitionTime": "2026-01-01T09:20:00Z"
  },
  "requeueAfterSeconds": -1
}
)",
       ""},
      {"OnDelete: no condition, a warning naming the file and field",
       {"-f", kData + "statefulset-ondelete.yaml", "--now", "2026-01-01T10:00:00Z"},
       "{\n  \"condition\": null,\n  \"requeueAfterSeconds\": -1\n}\n",
       kData +
           "statefulset-ondelete.yaml: warning: spec.updateStrategy.type: OnDelete: pods are "
           "replaced only when deleted, so the workload never progresses by itself; the progress "
           "deadline is ignored\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const CliRun r = Progress(c.args);
    EXPECT_EQ(r.rc, 0);
    EXPECT_EQ(r.out, c.expected);
    EXPECT_EQ(r.err, c.expected_err);
  }
}

TEST(ProgressCli, ReadsStandardInput) {
  const std::string object = R"({"apiVersion": "apps/v1", "kind": "DaemonSet",
    "metadata": {"name": "agent", "generation": 2,
                 "annotations": {"fleetwave.io/progress-deadline-seconds": "60"}},
    "status": {"observedGeneration": 2, "desiredNumberScheduled": 3,
               "updatedNumberScheduled": 1, "numberAvailable": 3}})";
  const CliRun r = Progress({"-f", "-", "--now", "2026-01-01T10:00:00.250Z"}, object);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto got = nlohmann::json::parse(r.out);
  EXPECT_EQ(got["condition"]["reason"], "DaemonSetUpdated");
  EXPECT_EQ(got["condition"]["lastUpdateTime"], "2026-01-01T10:00:00Z");
  EXPECT_NEAR(got["requeueAfterSeconds"].get<double>(), 60.75, 1e-9);
}

TEST(ProgressCli, Errors) {
  struct Case {
    std::string name;
    Argv args;
    int rc;
    std::string err;
  };
  const std::vector<Case> cases = {
      {"unreadable file",
       {"-f", kData + "does-not-exist.yaml"},
       1,
       kData + "does-not-exist.yaml: No such file or directory\n"},
      {"bad YAML with line:col",
       {"-f", kData + "broken.yaml"},
       1,
       kData + "broken.yaml:7:15: illegal map value\n"},
      {"unsupported kind",
       {"-f", ::fleetwave::test_paths::TestdataDir() + "/health/job-failed.json"},
       1,
       ::fleetwave::test_paths::TestdataDir() +
           "/health/job-failed.json: unsupported kind \"Job\" (batch/v1); supported: CloneSet "
           "(apps.kruise.io), StatefulSet, DaemonSet, Deployment\n"},
      {"bad --now",
       {"-f", kData + "broken.yaml", "--now", "yesterday"},
       2,
       "fleetwave progress: --now: not an RFC 3339 time: \"yesterday\"\n"},
      {"no file",
       {"--now", "2026-01-01T10:00:00Z"},
       2,
       "usage: fleetwave progress -f WORKLOAD [--now RFC3339]\n"},
      {"unknown flag",
       {"-f", "x.yaml", "--later"},
       2,
       "fleetwave progress: unknown flag --later\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const CliRun r = Progress(c.args);
    EXPECT_EQ(r.rc, c.rc);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, c.err);
  }
}

TEST(ProgressCli, EmptyAndMultiDocumentInput) {
  const CliRun empty = Progress({"-f", "-"}, "");
  EXPECT_EQ(empty.rc, 1);
  EXPECT_EQ(empty.err, "<stdin>: expected one Kubernetes object, found 0 documents\n");
  const CliRun two = Progress({"-f", "-"}, "kind: CloneSet\n---\nkind: CloneSet\n");
  EXPECT_EQ(two.rc, 1);
  EXPECT_EQ(two.err, "<stdin>: expected one Kubernetes object, found 2 documents\n");
}

}  // namespace
}  // namespace fleetwave::cli
