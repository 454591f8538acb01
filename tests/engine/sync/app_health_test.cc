// An app's live health from its inputs (engine/health/app_health.h): unreachable, read-after-write,
// missing objects, the worst object.
#include "engine/health/app_health.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/engine/sync/sync_builders.h"

namespace fleetwave::engine {
namespace {

using testing::Deploy;
using testing::Svc;

TEST(AppHealthTest, Rules) {
  const ReadAfterWriteGate waiting{
      false,
      HealthStatus{HealthCode::kProgressing, "Waiting for Deployment/web to observe generation 4"}};
  const HealthStatus healthy{HealthCode::kHealthy, ""};
  const HealthStatus degraded{HealthCode::kDegraded,
                              "Deployment \"web\" exceeded its progress deadline"};
  struct Case {
    const char* name;
    bool reachable;
    ReadAfterWriteGate gate;
    std::map<ObjectRef, HealthStatus> live;
    HealthCode want;
    std::string want_message;
  };
  const Case cases[] = {
      {"all healthy",
       true,
       {},
       {{Deploy("web"), healthy}, {Svc("web"), healthy}},
       HealthCode::kHealthy,
       ""},
      {"unreachable beats everything",
       false,
       waiting,
       {{Deploy("web"), degraded}},
       HealthCode::kUnknown,
       "cluster is unreachable"},
      {"stale watch data: Progressing, not judged",
       true,
       waiting,
       {{Deploy("web"), degraded}, {Svc("web"), healthy}},
       HealthCode::kProgressing,
       "Waiting for Deployment/web to observe generation 4"},
      {"a desired object absent live: Missing",
       true,
       {},
       {{Deploy("web"), healthy}},
       HealthCode::kMissing,
       "Service/web is Missing"},
      {"the worst object wins",
       true,
       {},
       {{Deploy("web"), degraded}, {Svc("web"), healthy}},
       HealthCode::kDegraded,
       "Deployment/web is Degraded: Deployment \"web\" exceeded its progress deadline"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    AppHealthInput in;
    in.reachable = c.reachable;
    in.gate = c.gate;
    in.desired = {Deploy("web"), Svc("web")};
    in.live = c.live;
    const HealthStatus h = AssessAppHealth(in);
    EXPECT_EQ(HealthCodeName(h.status), HealthCodeName(c.want));
    EXPECT_EQ(h.message, c.want_message);
  }
}

}  // namespace
}  // namespace fleetwave::engine
