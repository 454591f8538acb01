// The client commands (`fleetwave get|sync|skip|pause|resume|delete|refresh`) as a user runs
// them, against the real API server (api::ApiServer on 127.0.0.1:0 over a StatusBoard, with
// a command handler that records what reached it): what they print, their exit codes, and error
// messages that name the fix.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/api/api_test_fixture.h"
#include "tools/fleetwave/commands.h"

namespace fleetwave::cli {
namespace {

using engine::Json;

// A port nothing listens on: bound, read, closed.
int ClosedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

struct Ran {
  int rc;
  std::string out;
  std::string err;
};

class ClientCliTest : public api::testing::ApiServerFixture {
 protected:
  void SetUp() override {
    ApiServerFixture::SetUp();
    ::unsetenv("FLEETWAVE_SERVER");
    ::unsetenv("FLEETWAVE_TOKEN");
    ::unsetenv("NO_COLOR");
    Start();
    server_url_ = "http://127.0.0.1:" + std::to_string(server_->port());
  }
  void TearDown() override {
    ::unsetenv("FLEETWAVE_SERVER");
    ::unsetenv("FLEETWAVE_TOKEN");
    ApiServerFixture::TearDown();
  }

  using Command = int (*)(const Argv&, std::ostream&, std::ostream&);
  Ran Run(Command command, Argv args, bool with_server = true) {
    if (with_server) args.insert(args.end(), {"--server", server_url_});
    std::ostringstream out, err;
    const int rc = command(args, out, err);
    return Ran{rc, out.str(), err.str()};
  }

  std::string server_url_;
};

TEST_F(ClientCliTest, GetTablesAndFormats) {
  Ran r = Run(RunGet, {"apps"});
  EXPECT_EQ(r.rc, 0) << r.err;
  // The fixture's set lists no applicationStatus: no owner, step or rollout state.
  EXPECT_EQ(r.out,
            "NAME            APPSET   CLUSTER   STEP   SYNC     HEALTH    ROLLOUT   AGE\n"
            "guestbook-dev   -        -         -      Synced   Unknown   -         <unknown>\n"
            "guestbook-qa    -        -         -      Synced   Unknown   -         <unknown>\n");

  r = Run(RunGet, {"clusters", "-o", "wide"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out,
            "NAME   SERVER                     STATUS        UP      SYNCED\n"
            "dev    https://dev.example:6443   Ready         true    true\n"
            "qa     https://qa.example:6443    Unreachable   false   false\n");

  r = Run(RunGet, {"apps", "-o", "json"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(Json::parse(r.out)["kind"], "ApplicationList");

  r = Run(RunGet, {"app", "guestbook-qa", "-o", "yaml"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("kind: Application\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("name: guestbook-qa"), std::string::npos) << r.out;

  r = Run(RunGet, {"appset", "guestbook"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("NAME        STRATEGY    STEP   APPS   STATUS\n", 0), 0u) << r.out;
  r = Run(RunGet, {"appset", "guestbook", "--all"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out.rfind("NAME        STRATEGY   STEP   APPS   STATUS   AGE\n", 0), 0u) << r.out;

  r = Run(RunGet, {"workloads"});
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.err, "No resources found.\n");
}

TEST_F(ClientCliTest, Errors) {
  const std::string closed = "http://127.0.0.1:" + std::to_string(ClosedPort());
  const std::string wrong_token = dir_ + "/wrong";
  std::ofstream(wrong_token) << "nope\n";
  struct Case {
    std::string name;
    Command command;
    Argv args;
    bool with_server;
    int rc;
    std::string err;
  };
  const std::vector<Case> cases = {
      {"DaemonNotRunning",
       RunGet,
       {"apps", "--server", closed},
       false,
       1,
       "fleetwave get: cannot reach the fleetwave daemon at " + closed +
           " (connection refused; server from --server): is `fleetwave run` running? Point "
           "--server URL or FLEETWAVE_SERVER at its API address (listen.api in fleetwave.yaml)\n"},
      {"AppNotFound",
       RunGet,
       {"app", "nope"},
       true,
       1,
       "fleetwave get: application \"nope\" not found (fleetwave get apps lists them)\n"},
      {"AppSetNotFound",
       RunGet,
       {"appset", "nope"},
       true,
       1,
       "fleetwave get: applicationset \"nope\" not found (fleetwave get appsets lists them)\n"},
      {"UnknownResource",
       RunGet,
       {"pods"},
       true,
       2,
       "fleetwave get: unknown resource \"pods\" (one of appsets, apps, clusters, workloads)\n"
       "usage: fleetwave get appsets|apps|clusters|workloads [NAME] [-o wide|json|yaml] "
       "[--watch]\n                     [--all] [--status S[,S]] [--step N[,N]] [--cluster "
       "C[,C]] [-l SELECTOR]\n                     [--appset A] [--server URL] [--token-file "
       "F]\n"},
      {"TokenMissing",
       RunSync,
       {"guestbook-dev"},
       true,
       1,
       "fleetwave sync: this command needs the daemon's API token: pass --token-file F (the file "
       "apiTokenFile names in fleetwave.yaml) or set FLEETWAVE_TOKEN\n"},
      {"TokenWrong",
       RunSync,
       {"guestbook-dev", "--token-file", wrong_token},
       true,
       1,
       "fleetwave sync: the daemon refused the API token from --token-file " + wrong_token +
           " (wrong bearer token): use the token in the daemon's apiTokenFile, with --token-file "
           "F or FLEETWAVE_TOKEN\n"},
      {"TokenFileUnreadable",
       RunSync,
       {"guestbook-dev", "--token-file", dir_ + "/none"},
       true,
       1,
       "fleetwave sync: cannot read the token file " + dir_ +
           "/none given with --token-file (it is the file apiTokenFile names in fleetwave.yaml)\n"},
      {"SyncUnknownApp",
       RunSync,
       {"nope", "--token-file", token_path_},
       true,
       1,
       "fleetwave sync: application \"nope\" not found (fleetwave get apps lists them)\n"},
      {"PauseUnknownSet",
       RunPause,
       {"nope", "--token-file", token_path_},
       true,
       1,
       "fleetwave pause: applicationset \"nope\" not found (fleetwave get appsets lists them)\n"},
      {"SkipNeedsReason",
       RunSkip,
       {"guestbook-dev", "--token-file", token_path_},
       true,
       2,
       "fleetwave skip: a skip needs --reason TEXT (it is logged and kept)\nusage: fleetwave skip "
       "APP --reason TEXT [--server URL] [--token-file F]\n"},
      {"DeleteOnlyAppSets",
       RunDelete,
       {"app", "x", "--token-file", token_path_},
       true,
       2,
       "fleetwave delete: only an ApplicationSet can be deleted (fleetwave delete appset SET)\n"
       "usage: fleetwave delete appset SET [--server URL] [--token-file F]\n"},
      {"RollbackToNothing",
       RunRollback,
       {"guestbook", "--to", "", "--token-file", token_path_},
       true,
       2,
       "fleetwave rollback: --to needs a revision (a commit, tag or branch)\nusage: fleetwave "
       "rollback SET [--to REVISION] [--server URL] [--token-file F]\n  returns every app the "
       "rollout synced to its last healthy revisions (or to REVISION),\n  last step first, and "
       "holds the rolled-back revision until a new commit\n"},
      {"RollbackUnknownSet",
       RunRollback,
       {"nope", "--token-file", token_path_},
       true,
       1,
       "fleetwave rollback: applicationset \"nope\" not found (fleetwave get appsets lists "
       "them)\n"},
      {"RefreshTakesNoArgs",
       RunRefresh,
       {"now", "--token-file", token_path_},
       true,
       2,
       "fleetwave refresh: takes no arguments\nusage: fleetwave refresh [--server URL] "
       "[--token-file F]\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Ran r = Run(c.command, c.args, c.with_server);
    EXPECT_EQ(r.rc, c.rc);
    EXPECT_EQ(r.err, c.err);
  }
  EXPECT_TRUE(Commands().empty()) << "no refused command reached the handler";
}

// Accepted actions print the daemon's answer and reach the handler with what was asked.
TEST_F(ClientCliTest, Actions) {
  struct Case {
    std::string name;
    Command command;
    Argv args;
    std::string kind;
    std::string target;
    std::string detail;  // revision or reason
  };
  const std::vector<Case> cases = {
      {"Sync", RunSync, {"guestbook-dev"}, "sync", "guestbook-dev", ""},
      {"SyncRevision", RunSync, {"guestbook-qa", "--revision", "v2"}, "sync", "guestbook-qa", "v2"},
      {"Skip",
       RunSkip,
       {"guestbook-qa", "--reason", "cluster rebuilt"},
       "skip",
       "guestbook-qa",
       "cluster rebuilt"},
      {"Pause", RunPause, {"guestbook"}, "pause", "guestbook", ""},
      {"Resume", RunResume, {"guestbook"}, "resume", "guestbook", ""},
      {"Abort", RunAbort, {"guestbook"}, "abort", "guestbook", ""},
      {"Rollback", RunRollback, {"guestbook"}, "rollback", "guestbook", ""},
      {"RollbackTo",
       RunRollback,
       {"guestbook", "--to", "v1.4.2"},
       "rollback",
       "guestbook",
       "v1.4.2"},
      {"DeleteAppSet", RunDelete, {"appset", "guestbook"}, "delete", "guestbook", ""},
      {"Refresh", RunRefresh, {}, "refresh", "", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Argv args = c.args;
    args.insert(args.end(), {"--token-file", token_path_});
    const size_t before = Commands().size();
    const Ran r = Run(c.command, args);
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out, "sync of guestbook-dev queued\n");  // the fixture's handler answer
    ASSERT_EQ(Commands().size(), before + 1);
    const api::ApiCommand got = Commands().back();
    EXPECT_EQ(got.kind, c.kind);
    EXPECT_EQ(got.target, c.target);
    EXPECT_EQ(got.revision.value_or(got.reason.value_or("")), c.detail);
  }
}

// FLEETWAVE_SERVER and FLEETWAVE_TOKEN stand in for --server and --token-file.
TEST_F(ClientCliTest, Environment) {
  ::setenv("FLEETWAVE_SERVER", server_url_.c_str(), 1);
  ::setenv("FLEETWAVE_TOKEN", "s3cret-token", 1);
  Ran r = Run(RunRefresh, {}, /*with_server=*/false);
  EXPECT_EQ(r.rc, 0) << r.err;
  ::setenv("FLEETWAVE_TOKEN", "wrong", 1);
  r = Run(RunRefresh, {}, false);
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(
      r.err,
      "fleetwave refresh: the daemon refused the API token from FLEETWAVE_TOKEN (wrong bearer "
      "token): use the token in the daemon's apiTokenFile, with --token-file F or "
      "FLEETWAVE_TOKEN\n");
}

}  // namespace
}  // namespace fleetwave::cli
