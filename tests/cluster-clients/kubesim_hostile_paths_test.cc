// Defence in depth for issue 30, judged from kubesim's audit: even with fleetwave's name
// validation skipped (the client is called directly), a hostile namespace or name reaches no
// other cluster, path or query. The apply meant for sim-2 once went to sim-0's endpoint with
// sim-2's token; one in namespace "x?dryRun=All#" became a dry run of another path.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>
#include <sstream>

#include "cluster-clients/cluster_client.h"
#include "cluster-clients/curl_transport.h"
#include "tests/cluster-clients/await_callback.h"
#include "tests/cluster-clients/kubesim_process.h"

namespace fleetwave::clients {
namespace {

using testing::Await;
using ::testing::HasSubstr;

class KubesimHostilePaths : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(sim_.Start(3, {}, &error)) << error;
    set_ = LoadKubeconfigs({sim_.kubeconfig()});
    ASSERT_EQ(set_.clusters.size(), 3u);
  }
  void TearDown() override { executor_.Shutdown(); }

  std::shared_ptr<ClusterClient> Client(int i) {
    ClientOptions o;
    o.max_attempts = 1;
    return ClusterClient::Create(set_.clusters[static_cast<std::size_t>(i)], &transport_,
                                 &executor_, nullptr, o);
  }
  // The audit records of one cluster (JSON lines), read past the client (it wants one JSON
  // document per response).
  std::vector<Json> Audit(const std::string& cluster) {
    auto ep = std::make_shared<Endpoint>();
    ep->ca_pem = set_.clusters[0].ca_pem;
    HttpRequest q;
    q.endpoint = ep;
    q.url = sim_.base_url() + "/kubesim/audit?cluster=" + cluster;
    q.headers = {"Authorization: Bearer " + set_.clusters[0].token};
    auto p = std::make_shared<std::promise<HttpResponse>>();
    auto f = p->get_future();
    HttpHandlers h;
    h.on_done = [p](HttpResponse r) { p->set_value(std::move(r)); };
    transport_.Post([this, q = std::move(q), h = std::move(h)]() mutable {
      transport_.Start(std::move(q), std::move(h));
    });
    EXPECT_EQ(f.wait_for(std::chrono::seconds(20)), std::future_status::ready);
    HttpResponse r = f.get();
    EXPECT_EQ(r.status, 200) << r.error_message;
    std::vector<Json> out;
    std::istringstream lines(r.body);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) out.push_back(Json::parse(line));
    return out;
  }

  testing::KubesimProcess sim_;
  KubeconfigSet set_;
  // The executor outlives the transport: the transport's destructor joins its I/O thread,
  // which may still be handing a finished request to the executor (TSan saw the executor
  // destroyed under that hand-over when it was declared last).
  SerialExecutor executor_;
  CurlTransport transport_;
};

Json Deployment(const std::string& ns, const std::string& name) {
  Json d = Json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{},
    "spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},
    "spec":{"containers":[{"name":"c","image":"nginx"}]}}}})");
  d["metadata"]["name"] = name;
  d["metadata"]["namespace"] = ns;
  return d;
}

TEST_F(KubesimHostilePaths, AHostileNamespaceStaysOnItsClusterPathAndQuery) {
  auto sim2 = Client(2);
  const Result traversal = Await<Result>([&](auto done) {
    sim2->Apply(Deployment("x/../../../../../../sim-0/apis/apps/v1/namespaces/default", "web"), {},
                done);
  });
  const Result query = Await<Result>([&](auto done) {
    sim2->Apply(Deployment("x?dryRun=All#", "../../../../api/v1/namespaces/kube-system"), {}, done);
  });
  // A real API server refuses both: the namespace does not exist / the name is not one.
  EXPECT_FALSE(traversal.ok());
  EXPECT_FALSE(query.ok());
  EXPECT_THAT(traversal.http_status, ::testing::AnyOf(400, 404, 422)) << traversal.ToString();
  EXPECT_THAT(query.http_status, ::testing::AnyOf(400, 404, 422)) << query.ToString();

  EXPECT_TRUE(Audit("sim-0").empty()) << Audit("sim-0").front().dump();
  EXPECT_TRUE(Audit("sim-1").empty());
  const std::vector<Json> audit = Audit("sim-2");
  ASSERT_EQ(audit.size(), 2u);
  EXPECT_EQ(audit[0]["target"],
            "/clusters/sim-2/apis/apps/v1/namespaces/"
            "x%2F..%2F..%2F..%2F..%2F..%2F..%2Fsim-0%2Fapis%2Fapps%2Fv1%2Fnamespaces%2Fdefault"
            "/deployments/web?fieldManager=fleetwave");
  EXPECT_EQ(audit[1]["target"],
            "/clusters/sim-2/apis/apps/v1/namespaces/x%3FdryRun%3DAll%23/deployments/"
            "..%2F..%2F..%2F..%2Fapi%2Fv1%2Fnamespaces%2Fkube-system?fieldManager=fleetwave");
  for (const Json& a : audit) {
    EXPECT_EQ(a.value("dryRun", false), false);
    EXPECT_THAT(a["code"].get<int>(), ::testing::AnyOf(400, 404, 422));
  }
}

TEST_F(KubesimHostilePaths, EscapedSegmentsAreNotFoundLikeOnARealApiServer) {
  auto sim0 = Client(0);
  const Result slash = Await<Result>(
      [&](auto done) { sim0->Get(NamespacesResource(), "", "kube-system/../default", done); });
  EXPECT_EQ(slash.http_status, 404) << slash.ToString();
  const Result plain =
      Await<Result>([&](auto done) { sim0->Get(NamespacesResource(), "", "kube-system", done); });
  EXPECT_TRUE(plain.ok()) << plain.ToString();
}

}  // namespace
}  // namespace fleetwave::clients
