// GET /api/v1/workloads over a real ApiServer (api_test_fixture.h) and the StatusBoard's
// workload entries: items in cluster/namespace/kind/name order, replaced per workload,
// removed per workload and per cluster.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "actors/status_board.h"
#include "tests/api/api_test_fixture.h"

namespace fleetwave::api {
namespace {

using actors::StatusBoard;

using engine::Json;
using testing::ApiServerFixture;
using testing::HttpResult;

class WorkloadApiTest : public ApiServerFixture {
 protected:
  static Json Item(const std::string& cluster, const std::string& ns, const std::string& kind,
                   const std::string& name, bool exceeded = false) {
    return Json{{"cluster", cluster},
                {"namespace", ns},
                {"kind", kind},
                {"name", name},
                {"revision", "r1"},
                {"deadlineSeconds", 5},
                {"condition", nullptr},
                {"exceeded", exceeded},
                {"requeueAt", nullptr},
                {"problems", Json::array()},
                {"controllerCondition", nullptr}};
  }
  std::vector<std::string> Listed() {
    const HttpResult r = Get("/api/v1/workloads");
    EXPECT_EQ(r.status, 200);
    const Json body = Json::parse(r.body, nullptr, false);
    std::vector<std::string> out;
    if (!body.is_object() || !body["items"].is_array()) return out;
    for (const Json& i : body["items"]) {
      out.push_back(i["cluster"].get<std::string>() + "/" + i["namespace"].get<std::string>() +
                    "/" + i["kind"].get<std::string>() + "/" + i["name"].get<std::string>() +
                    (i["exceeded"].get<bool>() ? " exceeded" : ""));
    }
    return out;
  }
};

TEST_F(WorkloadApiTest, WorkloadsAreListedInOrder) {
  Start();
  EXPECT_EQ(Listed(), std::vector<std::string>{});
  board_.PublishWorkload(Item("qa", "shop", "CloneSet", "web"));
  board_.PublishWorkload(Item("dev", "shop", "StatefulSet", "db"));
  board_.PublishWorkload(Item("dev", "shop", "CloneSet", "web"));
  board_.PublishWorkload(Item("dev", "a", "DaemonSet", "agent"));
  EXPECT_EQ(Listed(),
            (std::vector<std::string>{"dev/a/DaemonSet/agent", "dev/shop/CloneSet/web",
                                      "dev/shop/StatefulSet/db", "qa/shop/CloneSet/web"}));

  board_.PublishWorkload(Item("dev", "shop", "CloneSet", "web", true));  // replaces
  board_.RemoveWorkload("dev", "a", "DaemonSet", "agent");
  EXPECT_EQ(Listed(),
            (std::vector<std::string>{"dev/shop/CloneSet/web exceeded", "dev/shop/StatefulSet/db",
                                      "qa/shop/CloneSet/web"}));

  board_.RemoveWorkloadsOf("dev");  // the cluster left the configuration
  EXPECT_EQ(Listed(), (std::vector<std::string>{"qa/shop/CloneSet/web"}));
}

TEST_F(WorkloadApiTest, OnlyGetAndHead) {
  Start();
  const HttpResult r = testing::Http(server_->port(), "POST", "/api/v1/workloads");
  EXPECT_EQ(r.status, 405);
}

}  // namespace
}  // namespace fleetwave::api
