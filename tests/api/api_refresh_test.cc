// POST /api/v1/refresh: authenticated like every mutation, takes no body, reaches the command
// handler as a "refresh" with no target, and is logged with the caller either way.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/api/api_test_client.h"
#include "tests/api/api_test_fixture.h"

namespace fleetwave::api {
namespace {

using actors::StatusBoard;

using testing::ApiServerFixture;
using testing::Http;

class ApiRefreshTest : public ApiServerFixture {};

TEST_F(ApiRefreshTest, Refresh) {
  Start();
  result_ = ApiCommandResult{202, "refresh of every applicationset requested"};
  struct Case {
    std::string name;
    std::string method;
    std::string token;  // "" = no Authorization header
    std::string body;
    int status;
    bool reaches_handler;
    std::string log;  // a substring of the line logged for it ("" = none expected)
  };
  const std::vector<Case> cases = {
      {"Accepted", "POST", "s3cret-token", "", 202, true,
       "refresh of every applicationset from 127.0.0.1:"},
      {"EmptyObjectBody", "POST", "s3cret-token", "{}", 202, true, ""},
      {"NoToken", "POST", "", "", 401, false, "refresh of every applicationset from 127.0.0.1:"},
      {"WrongToken", "POST", "nope", "", 401, false, "wrong bearer token"},
      {"UnknownField", "POST", "s3cret-token", R"({"revision":"main"})", 400, false,
       "unknown field"},
      {"Get", "GET", "s3cret-token", "", 405, false, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const size_t commands_before = Commands().size();
    const size_t logs_before = Logs().size();
    std::vector<std::pair<std::string, std::string>> headers;
    if (!c.token.empty()) headers.emplace_back("Authorization", "Bearer " + c.token);
    const auto r = Http(server_->port(), c.method, "/api/v1/refresh", headers, c.body);
    EXPECT_EQ(r.status, c.status) << r.body;
    if (c.status == 401) {
      EXPECT_EQ(r.header("www-authenticate"), "Bearer realm=\"fleetwave\"");
    }
    const std::vector<ApiCommand> commands = Commands();
    ASSERT_EQ(commands.size(), commands_before + (c.reaches_handler ? 1 : 0));
    if (c.reaches_handler) {
      EXPECT_EQ(commands.back().kind, "refresh");
      EXPECT_EQ(commands.back().target, "");
      EXPECT_EQ(commands.back().caller.rfind("127.0.0.1:", 0), 0u);
    }
    if (!c.log.empty()) {
      const std::vector<std::string> logs = Logs();
      bool found = false;
      for (size_t i = logs_before; i < logs.size(); ++i) {
        found = found || logs[i].find(c.log) != std::string::npos;
      }
      EXPECT_TRUE(found) << "no log line with \"" << c.log << "\"";
    }
  }
}

}  // namespace
}  // namespace fleetwave::api
