// Issue 31: a mutation is answered with what the deciding actor said: the status says what kind
// of answer it is and the body carries the actor's reason.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/api_command.h"
#include "engine/operator_command.h"
#include "tests/api/api_test_fixture.h"

namespace fleetwave::api::testing {
namespace {

using engine::CommandOutcome;

TEST(ApiCommandAnswerTest, EachOutcomeHasItsStatus) {
  const std::vector<std::pair<CommandOutcome, int>> cases = {
      {CommandOutcome::kAccepted, 202}, {CommandOutcome::kUnchanged, 200},
      {CommandOutcome::kInvalid, 400},  {CommandOutcome::kNotFound, 404},
      {CommandOutcome::kConflict, 409}, {CommandOutcome::kUnavailable, 503},
  };
  for (const auto& [outcome, status] : cases) {
    SCOPED_TRACE(engine::CommandOutcomeName(outcome));
    EXPECT_EQ(HttpStatusOf(outcome), status);
  }
}

class ApiCommandAnswerRouteTest : public ApiServerFixture {};

TEST_F(ApiCommandAnswerRouteTest, ARefusedSyncIsAnsweredWithTheActorsStatusAndReason) {
  Start();
  const std::string reason =
      "manual sync by 127.0.0.1 of application guestbook-qa refused: cluster qa is unreachable";
  result_ = ApiCommandResult{503, reason};
  HttpResult r = Sync("guestbook-qa", "s3cret-token");
  EXPECT_EQ(r.status, 503) << r.body;
  const engine::Json body = engine::Json::parse(r.body);
  EXPECT_EQ(body["code"], 503);
  EXPECT_EQ(body["message"], reason);

  result_ = ApiCommandResult{409, "an operation is already running (op-1)"};
  r = Sync("guestbook-qa", "s3cret-token");
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_EQ(engine::Json::parse(r.body)["message"], "an operation is already running (op-1)");
}

}  // namespace
}  // namespace fleetwave::api::testing
