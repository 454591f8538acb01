// Issue 29: POST /api/v1/applicationsets/NAME/rollback is a mutation like abort (bearer token,
// logged with the caller), whose optional body {"to": REVISION} names the revision every app
// returns to; the command handler gets it as the command's revision and its answer is the
// response.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/api_command.h"
#include "tests/api/api_test_fixture.h"

namespace fleetwave::api::testing {
namespace {

class RollbackRouteTest : public ApiServerFixture {
 protected:
  HttpResult Rollback(const std::string& set, const std::string& token,
                      const std::string& body = "") {
    std::vector<std::pair<std::string, std::string>> headers;
    if (!token.empty()) headers.emplace_back("Authorization", "Bearer " + token);
    return Http(server_->port(), "POST", "/api/v1/applicationsets/" + set + "/rollback", headers,
                body);
  }
};

engine::Json Body(const HttpResult& r) { return engine::Json::parse(r.body, nullptr, false); }

TEST_F(RollbackRouteTest, TheCallerAndTheTargetRevisionReachTheHandler) {
  Start();
  struct Case {
    std::string name;
    std::string body;
    std::optional<std::string> to;
  };
  const std::vector<Case> cases = {
      {"NoBody", "", std::nullopt},
      {"EmptyObject", "{}", std::nullopt},
      {"ToARevision", R"({"to": "v1.4.2"})", "v1.4.2"},
  };
  result_ = ApiCommandResult{202, "rollback by 127.0.0.1: the rollout of guestbook is rolled back"};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const size_t before = Commands().size();
    const HttpResult r = Rollback("guestbook", "s3cret-token", c.body);
    EXPECT_EQ(r.status, 202) << r.body;
    EXPECT_EQ(Body(r)["message"], result_.message);
    const auto commands = Commands();
    ASSERT_EQ(commands.size(), before + 1);
    EXPECT_EQ(commands.back().kind, "rollback");
    EXPECT_EQ(commands.back().target, "guestbook");
    EXPECT_EQ(commands.back().revision, c.to);
    EXPECT_EQ(commands.back().reason, std::nullopt);
    EXPECT_EQ(commands.back().caller.rfind("127.0.0.1:", 0), 0u) << commands.back().caller;
  }
  // One log line per rollback, naming the caller and the revision, never the token.
  int lines = 0;
  bool named_revision = false;
  for (const auto& line : Logs()) {
    EXPECT_EQ(line.find("s3cret-token"), std::string::npos) << line;
    if (line.find("rollback of applicationset \"guestbook\" from 127.0.0.1:") ==
        std::string::npos) {
      continue;
    }
    ++lines;
    if (line.find(" to revision v1.4.2: 202 ") != std::string::npos) named_revision = true;
  }
  EXPECT_EQ(lines, 3);
  EXPECT_TRUE(named_revision);
}

TEST_F(RollbackRouteTest, RefusalsComeBeforeTheHandler) {
  Start();
  struct Case {
    std::string name;
    std::string set;
    std::string token;
    std::string body;
    int status;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"MissingToken", "guestbook", "", "", 401, "missing Authorization: Bearer token"},
      {"WrongToken", "guestbook", "wrong", R"({"to": "v1"})", 401, "wrong bearer token"},
      {"UnknownField", "guestbook", "s3cret-token", R"({"revision": "v1"})", 400,
       "unknown field \"revision\" in request body (allowed: to)"},
      {"EmptyTarget", "guestbook", "s3cret-token", R"({"to": ""})", 400,
       "to must be a non-empty string"},
      {"TargetNotAString", "guestbook", "s3cret-token", R"({"to": 3})", 400,
       "to must be a non-empty string"},
      {"NotAnObject", "guestbook", "s3cret-token", R"(["v1"])", 400,
       "request body must be a JSON object, e.g. {\"to\": \"v1.4.2\"}"},
      {"UnknownSet", "nope", "s3cret-token", "", 404, "applicationset \"nope\" not found"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const HttpResult r = Rollback(c.set, c.token, c.body);
    EXPECT_EQ(r.status, c.status) << r.body;
    EXPECT_EQ(Body(r)["message"], c.message);
    EXPECT_TRUE(Commands().empty());
  }
  EXPECT_EQ(Get("/api/v1/applicationsets/guestbook/rollback").status, 405);
}

// The deciding actor's refusal (a rollback already running is a conflict) is the response.
TEST_F(RollbackRouteTest, TheActorsRefusalIsTheResponse) {
  Start();
  const std::string reason =
      "rollback by 127.0.0.1: the rollout of guestbook is already being rolled back";
  result_ = ApiCommandResult{409, reason};
  const HttpResult r = Rollback("guestbook", "s3cret-token", R"({"to": "v1"})");
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_EQ(Body(r)["code"], 409);
  EXPECT_EQ(Body(r)["message"], reason);
}

}  // namespace
}  // namespace fleetwave::api::testing
