// Leader election at the API (issue 28): GET /api/v1/leader says who leads on every instance,
// and a standby refuses every mutation with 503 naming the leader, without handing it to the
// command handler; the leader's mutations go through as before.
#include <atomic>
#include <mutex>
#include <string>

#include "tests/api/api_test_fixture.h"

namespace fleetwave::api::testing {
namespace {

class ApiLeaderTest : public ApiServerFixture {
 protected:
  void StartAs(bool leader) {
    is_leader_ = leader;
    ApiServerOptions options;
    options.leader = [this] {
      return LeaderStatus{is_leader_ ? "host-a" : "host-b", "host-a", is_leader_.load(), 57};
    };
    Start(options);
  }
  std::atomic<bool> is_leader_{true};
};

TEST_F(ApiLeaderTest, TheLeaderSaysSoAndItsMutationsGoThrough) {
  StartAs(true);
  const HttpResult leader = Get("/api/v1/leader");
  ASSERT_EQ(leader.status, 200);
  EXPECT_EQ(engine::Json::parse(leader.body),
            (engine::Json{{"leader", "host-a"}, {"self", "host-a"}, {"isLeader", true}}));
  EXPECT_EQ(Sync("guestbook-dev", "s3cret-token").status, 202);
  EXPECT_EQ(Commands().size(), 1u);
  // The leader's reads are its own board's, as without leader election.
  EXPECT_EQ(Get("/api/v1/applications").header("x-fleetwave-served-by"), "");
}

TEST_F(ApiLeaderTest, AStandbyRefusesEveryMutationNamingTheLeader) {
  StartAs(false);
  const HttpResult leader = Get("/api/v1/leader");
  ASSERT_EQ(leader.status, 200);
  EXPECT_EQ(engine::Json::parse(leader.body),
            (engine::Json{{"leader", "host-b"}, {"self", "host-a"}, {"isLeader", false}}));
  const int port = server_->port();
  const std::vector<std::pair<std::string, std::string>> auth = {
      {"Authorization", "Bearer s3cret-token"}};
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"POST", "/api/v1/applications/guestbook-dev/sync"},
           {"POST", "/api/v1/applicationsets/guestbook/pause"},
           {"DELETE", "/api/v1/applicationsets/guestbook"},
           {"PUT", "/api/v1/applicationsets/guestbook"},
           {"POST", "/api/v1/refresh"}}) {
    const HttpResult r = Http(port, method, path, auth);
    EXPECT_EQ(r.status, 503) << method << " " << path;
    const engine::Json body = engine::Json::parse(r.body, nullptr, false);
    EXPECT_EQ(body.value("leader", ""), "host-b") << r.body;
    EXPECT_EQ(body.value("message", ""),
              "this instance (host-a) is a standby and changes nothing; send it to the leader "
              "(host-b)");
  }
  EXPECT_TRUE(Commands().empty()) << "a standby hands no mutation to the command handler";
  // Reads are served, from the shared state, and say so.
  const HttpResult read = Get("/api/v1/applications");
  EXPECT_EQ(read.status, 200);
  EXPECT_EQ(read.header("x-fleetwave-served-by"), "standby host-a (leader host-b), shared state");
  EXPECT_EQ(read.header("x-fleetwave-state-revision"), "57");
  // Leadership won later: mutations go through from then on.
  is_leader_ = true;
  EXPECT_EQ(Sync("guestbook-dev", "s3cret-token").status, 202);
}

TEST_F(ApiLeaderTest, WithoutLeaderElectionTheOnlyInstanceLeads) {
  Start();
  const HttpResult leader = Get("/api/v1/leader");
  ASSERT_EQ(leader.status, 200);
  EXPECT_EQ(engine::Json::parse(leader.body),
            (engine::Json{{"leader", nullptr}, {"self", nullptr}, {"isLeader", true}}));
}

}  // namespace
}  // namespace fleetwave::api::testing
