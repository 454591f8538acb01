// What one attempt sends to its cluster, or why it ends at once (engine/sync/attempt_send.h).
#include "engine/sync/attempt_send.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/appset/render.h"

namespace fleetwave::engine {
namespace {

const AppIdentity kDev{"guestbook", "dev-guestbook"};

// One Deployment `name` of the app, rendered as a sync applies it.
std::vector<RenderedObject> Desired(const std::vector<std::string>& names) {
  RenderInput in;
  in.app = kDev;
  in.destination_namespace = "guestbook";
  for (const auto& name : names) {
    in.manifests.push_back(
        {"guestbook/" + name + ".yaml:1:1",
         Json{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"metadata", {{"name", name}}}}});
  }
  return Render(in).objects;
}

// The live projection of `objects` once applied: tracked, at their applied hash.
std::vector<LiveObject> LiveOf(const std::vector<RenderedObject>& objects) {
  std::vector<LiveObject> out;
  for (const auto& o : objects) {
    LiveObject l;
    l.ref = o.ref;
    l.annotations[kTrackingIdAnnotation] = o.tracking_id;
    l.annotations[kAppliedHashAnnotation] = o.applied_hash;
    out.push_back(std::move(l));
  }
  return out;
}

OperationRecord WithOperation(const char* operation) {
  return StartOperation("op-1", Json::parse(operation), {"r1"}, FromUnixSeconds(1'700'000'000));
}

TEST(AttemptSendTest, PruneRequested) {
  struct Case {
    const char* operation;
    bool want;
  };
  const Case cases[] = {
      {R"({"sync":{"prune":true}})", true},
      {R"({"sync":{"prune":false}})", false},
      {R"({"sync":{}})", false},
      {R"({})", false},
      {R"({"sync":{"prune":"true"}})", false},  // only the boolean asks for it
      {R"({"sync":true})", false},
      {R"({"prune":true})", false},  // at the top level it is not Argo's field
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.operation);
    EXPECT_EQ(PruneRequested(WithOperation(c.operation)), c.want);
  }
}

TEST(AttemptSendTest, PlanAttemptSend) {
  const auto web_api = Desired({"web", "api"});
  const auto web = Desired({"web"});
  const auto web_old = Desired({"web", "old"});
  struct Case {
    const char* name;
    bool cluster_known;
    const char* operation;
    std::vector<RenderedObject> desired;
    std::vector<LiveObject> live;
    bool finish_now;
    std::optional<std::string> error;  // ToString of the error
    size_t applying;
    size_t pruning;
    size_t settled;
  };
  const Case cases[] = {
      {"unknown cluster: ends at once, naming it",
       false,
       R"({"sync":{"prune":true}})",
       web_api,
       {},
       true,
       NotFoundError("", "no cluster named prod-east").ToString(),
       0,
       0,
       0},
      {"nothing live: apply everything",
       true,
       R"({"sync":{}})",
       web_api,
       {},
       false,
       std::nullopt,
       2,
       0,
       0},
      {"one live at its hash: apply the other", true, R"({"sync":{}})", web_api, LiveOf(web), false,
       std::nullopt, 1, 0, 1},
      {"all live at their hash: ends at once with the settled results", true,
       R"({"sync":{"prune":true}})", web_api, LiveOf(web_api), true, std::nullopt, 0, 0, 2},
      {"a tracked object no longer desired, prune asked: prune only", true,
       R"({"sync":{"prune":true}})", web, LiveOf(web_old), false, std::nullopt, 0, 1, 1},
      {"a tracked object no longer desired, no prune: nothing to send", true, R"({"sync":{}})", web,
       LiveOf(web_old), true, std::nullopt, 0, 0, 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const AttemptTarget target{kDev, "prod-east", c.cluster_known};
    const AttemptSendPlan plan =
        PlanAttemptSend(target, WithOperation(c.operation), Json::object(), c.desired, c.live);
    EXPECT_EQ(plan.finish_now, c.finish_now);
    EXPECT_EQ(plan.error ? std::optional<std::string>(plan.error->ToString()) : std::nullopt,
              c.error);
    EXPECT_EQ(plan.attempt.apply.size(), c.applying);
    EXPECT_EQ(plan.attempt.prune.size(), c.pruning);
    EXPECT_EQ(plan.attempt.settled.size(), c.settled);
  }
}

TEST(AttemptSendTest, UnknownClusterErrorIsNotFound) {
  const AttemptSendPlan plan = PlanAttemptSend({kDev, "prod-east", false}, WithOperation("{}"),
                                               Json::object(), Desired({"web"}), {});
  ASSERT_TRUE(plan.error.has_value());
  EXPECT_EQ(plan.error->kind, NotFoundError("", "x").kind);
  EXPECT_NE(plan.error->ToString().find("no cluster named prod-east"), std::string::npos);
}

TEST(AttemptSendTest, AttemptSendLine) {
  EXPECT_EQ(AttemptSendLine({kDev, "prod-east", true}, 3, 0),
            "app=dev-guestbook cluster=prod-east applying 3 object(s), pruning 0");
  EXPECT_EQ(AttemptSendLine({kDev, "sim-1", true}, 0, 2),
            "app=dev-guestbook cluster=sim-1 applying 0 object(s), pruning 2");
}

}  // namespace
}  // namespace fleetwave::engine
