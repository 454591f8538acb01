// Read-after-write gating (engine/sync/read_after_write.h).
#include "engine/sync/read_after_write.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "tests/engine/sync/sync_builders.h"

namespace fleetwave::engine {
namespace {

using testing::Deploy;
using testing::Svc;

LiveObject Seen(const ObjectRef& ref, std::string rv, std::optional<int64_t> observed) {
  LiveObject l;
  l.ref = ref;
  l.resource_version = std::move(rv);
  l.observed_generation = observed;
  return l;
}

TEST(ReadAfterWriteTest, ResourceVersionOrder) {
  struct Case {
    const char* observed;
    const char* applied;
    bool want;
  };
  const Case cases[] = {
      {"10", "9", true},
      {"9", "10", false},
      {"10", "10", true},
      {"010", "10", true},
      {"99999999999999999999", "100000000000000000000", false},
      {"abc", "abc", true},
      {"abd", "abc", false},
      {"12", "abc", false},
      {"", "", true},
      {"5", "", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.observed) + " vs " + c.applied);
    EXPECT_EQ(ResourceVersionAtLeast(c.observed, c.applied), c.want);
  }
}

TEST(ReadAfterWriteTest, Gate) {
  struct Case {
    const char* name;
    std::vector<AppliedObject> applied;
    std::vector<LiveObject> live;
    std::string want_waiting;  // "" = ready
  };
  const ObjectRef d = Deploy("web");
  const ObjectRef s = Svc("web");
  const Case cases[] = {
      {"nothing applied", {}, {}, ""},
      {"caught up", {{d, "10", 4}}, {Seen(d, "12", 4)}, ""},
      {"watch has not delivered the object",
       {{d, "10", 4}},
       {},
       "Waiting for Deployment/web to observe generation 4"},
      {"older resourceVersion",
       {{d, "10", 4}},
       {Seen(d, "9", 4)},
       "Waiting for Deployment/web to observe generation 4"},
      {"controller has not observed the generation",
       {{d, "10", 4}},
       {Seen(d, "11", 3)},
       "Waiting for Deployment/web to observe generation 4"},
      {"no observedGeneration yet on a kind that reports one",
       {{d, "10", 1}},
       {Seen(d, "10", {})},
       "Waiting for Deployment/web to observe generation 1"},
      {"kinds without observedGeneration wait only for the version",
       {{s, "10", 1}},
       {Seen(s, "10", {})},
       ""},
      {"an object that reports observedGeneration is held to it",
       {{s, "10", 2}},
       {Seen(s, "10", 1)},
       "Waiting for Service/web to observe generation 2"},
      {"opaque versions must be equal",
       {{s, "a1", 1}},
       {Seen(s, "b2", {})},
       "Waiting for Service/web to observe generation 1"},
      {"the first object not caught up names the wait",
       {{s, "10", 1}, {d, "11", 2}},
       {Seen(s, "10", {}), Seen(d, "11", 1)},
       "Waiting for Deployment/web to observe generation 2"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const ReadAfterWriteGate g = GateReadAfterWrite(c.applied, c.live);
    EXPECT_EQ(g.ready, c.want_waiting.empty());
    if (c.want_waiting.empty()) {
      EXPECT_FALSE(g.waiting);
    } else {
      ASSERT_TRUE(g.waiting);
      EXPECT_EQ(g.waiting->status, HealthCode::kProgressing);
      EXPECT_EQ(g.waiting->message, c.want_waiting);
    }
  }
}

}  // namespace
}  // namespace fleetwave::engine
