// What a hostile manifest or a hostile cluster can make the client do (issue 30), on a fake
// transport: names and namespaces never change a request's path or query (each is one escaped
// segment; ".", ".." and empty segments are refused before sending), query values are escaped,
// and a watch line or a response body past its bound fails with an error naming the cluster
// and the resource, the watch restarted with backoff by the informer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster-clients/cluster_client.h"
#include "cluster-clients/informer.h"
#include "tests/cluster-clients/fake_transport.h"

namespace fleetwave::clients {
namespace {

using testing::FakeTransport;
using ::testing::HasSubstr;

constexpr const char* kServer = "https://c1.example.test/clusters/sim-2";

class HostileInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.name = "sim-2";
    config_.server = kServer;
    options_.seed = 1;
    options_.rate_limit = {0, 1};
    options_.backoff = {milliseconds(200), 2.0, 0.5, seconds(5), seconds(60)};
  }
  std::shared_ptr<ClusterClient> Make() {
    return ClusterClient::Create(config_, &t_, &exec_, nullptr, options_);
  }
  // Answers the discovery round an apply starts: apps/v1 deployments.
  void AnswerDiscovery() {
    for (RequestId id : t_.Outstanding()) {
      const std::string url = t_.Get(id).request.url;
      if (url == std::string(kServer) + "/api") {
        t_.Respond(id, 200, R"({"kind":"APIVersions","versions":["v1"]})");
      } else if (url == std::string(kServer) + "/apis") {
        t_.Respond(
            id, 200,
            R"({"kind":"APIGroupList","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}]}]})");
      }
    }
    for (RequestId id : t_.Outstanding()) {
      const std::string url = t_.Get(id).request.url;
      if (url == std::string(kServer) + "/api/v1") {
        t_.Respond(
            id, 200,
            R"({"resources":[{"name":"namespaces","kind":"Namespace","namespaced":false}]})");
      } else if (url == std::string(kServer) + "/apis/apps/v1") {
        t_.Respond(
            id, 200,
            R"({"resources":[{"name":"deployments","kind":"Deployment","namespaced":true}]})");
      }
    }
  }

  FakeTransport t_;
  InlineExecutor exec_;
  ClusterConfig config_;
  ClientOptions options_;
};

TEST_F(HostileInputTest, ANamespaceIsOneEscapedSegment) {
  auto c = Make();
  c->Get(DeploymentsResource(), "x/../../../../../../sim-0/apis/apps/v1/namespaces/default", "web",
         [](Result) {});
  t_.RunUntilIdle();
  ASSERT_EQ(t_.Outstanding().size(), 1u);
  EXPECT_EQ(t_.Get(t_.Oldest()).request.url,
            std::string(kServer) +
                "/apis/apps/v1/namespaces/"
                "x%2F..%2F..%2F..%2F..%2F..%2F..%2Fsim-0%2Fapis%2Fapps%2Fv1%2Fnamespaces%2Fdefault"
                "/deployments/web");
}

TEST_F(HostileInputTest, AnApplyCannotAddAQueryOrLeaveItsPath) {
  auto c = Make();
  const Json obj = {
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata",
       {{"name", "../../../../api/v1/namespaces/kube-system"}, {"namespace", "x?dryRun=All#"}}}};
  c->Apply(obj, {}, [](Result) {});
  t_.RunUntilIdle();
  AnswerDiscovery();
  ASSERT_EQ(t_.Outstanding().size(), 1u);
  const auto& req = t_.Get(t_.Oldest()).request;
  EXPECT_EQ(req.method, "PATCH");
  EXPECT_EQ(req.url, std::string(kServer) +
                         "/apis/apps/v1/namespaces/x%3FdryRun%3DAll%23/deployments/"
                         "..%2F..%2F..%2F..%2Fapi%2Fv1%2Fnamespaces%2Fkube-system"
                         "?fieldManager=fleetwave");
}

TEST_F(HostileInputTest, DotSegmentsAreNeverSent) {
  auto c = Make();
  std::vector<Result> got;
  auto keep = [&](Result r) { got.push_back(std::move(r)); };
  c->Get(DeploymentsResource(), "..", "web", keep);
  c->Get(DeploymentsResource(), "shop", "..", keep);
  c->Delete(DeploymentsResource(), "shop", ".", {}, keep);
  c->MergePatch(DeploymentsResource(), "shop", "", Json::object(), keep);
  const Json obj = {{"apiVersion", "apps/v1"},
                    {"kind", "Deployment"},
                    {"metadata", {{"name", ".."}, {"namespace", "shop"}}}};
  c->Apply(obj, {}, keep);
  t_.RunUntilIdle();
  AnswerDiscovery();
  EXPECT_TRUE(t_.Outstanding().empty());
  for (const auto& r : t_.log())
    EXPECT_THAT(r.url, ::testing::AnyOf(HasSubstr("/api"), HasSubstr("/apis"))) << r.url;
  for (const auto& r : t_.log())
    EXPECT_THAT(r.url, ::testing::Not(HasSubstr("deployments"))) << r.url;
  ASSERT_EQ(got.size(), 5u);
  for (const auto& r : got) {
    EXPECT_EQ(r.outcome, Outcome::kPermanent);
    EXPECT_THAT(r.message, HasSubstr("deployments on cluster sim-2: "));
    EXPECT_THAT(r.message, HasSubstr("request not sent"));
  }
  EXPECT_THAT(got[0].message, HasSubstr("namespace \"..\" may not be '..'"));
  EXPECT_THAT(got[2].message, HasSubstr("name \".\" may not be '.'"));
  EXPECT_THAT(got[3].message, HasSubstr("name \"\" is empty"));
}

TEST_F(HostileInputTest, SelectorsAndTokensStayQueryValues) {
  auto c = Make();
  ListOptions lo;
  lo.ns = "shop";
  lo.label_selector = "a=b&limit=1#x";
  lo.field_selector = "metadata.name=web?watch=1";
  c->List(DeploymentsResource(), lo, [](ListResult) {});
  t_.RunUntilIdle();
  EXPECT_EQ(
      t_.Get(t_.Oldest()).request.url,
      std::string(kServer) +
          "/apis/apps/v1/namespaces/shop/deployments?limit=500&labelSelector=a%3Db%26limit%3D1"
          "%23x&fieldSelector=metadata.name%3Dweb%3Fwatch%3D1");
  // The continue token comes from the server: it is a value too.
  t_.Respond(
      t_.Oldest(), 200,
      R"({"kind":"List","metadata":{"continue":"t&dryRun=All","resourceVersion":"1"},"items":[]})");
  EXPECT_THAT(t_.Get(t_.Oldest()).request.url, HasSubstr("&continue=t%26dryRun%3DAll"));
}

TEST_F(HostileInputTest, AWatchLineWithoutEndFailsTheWatch) {
  options_.max_watch_event_bytes = 1 << 20;
  auto c = Make();
  std::vector<WatchEvent> events;
  std::optional<Result> ended;
  auto h = c->Watch(
      DeploymentsResource(), {}, [&](WatchEvent e) { events.push_back(std::move(e)); },
      [&](Result r) { ended = std::move(r); });
  t_.RunUntilIdle();
  const RequestId id = t_.Oldest();
  t_.Feed(id, R"({"type":"ADDED","object":{"metadata":{"name":"a"}}})"
              "\n");
  const std::string chunk(64 << 10, 'x');
  for (int i = 0; i < 17 && !ended; ++i) t_.Feed(id, chunk);
  ASSERT_TRUE(ended.has_value()) << "the watch buffered a line of " << 17 * chunk.size()
                                 << " bytes";
  EXPECT_EQ(events.size(), 1u);
  EXPECT_EQ(ended->outcome, Outcome::kTransient);
  EXPECT_EQ(ended->message,
            "watch deployments on cluster sim-2: a watch event exceeds 1048576 bytes "
            "(max_watch_event_bytes); the watch is restarted");
  EXPECT_TRUE(t_.Outstanding().empty());  // the request is cancelled: nothing more is read
}

TEST_F(HostileInputTest, TheDefaultWatchEventBoundIs16MiB) {
  auto c = Make();
  std::optional<Result> ended;
  auto h = c->Watch(
      DeploymentsResource(), {}, [](WatchEvent) {}, [&](Result r) { ended = r; });
  t_.RunUntilIdle();
  const RequestId id = t_.Oldest();
  const std::string chunk(1 << 20, 'x');
  for (int i = 0; i < 16; ++i) t_.Feed(id, chunk);
  EXPECT_FALSE(ended.has_value());
  t_.Feed(id, "y");
  ASSERT_TRUE(ended.has_value());
  EXPECT_THAT(ended->message, HasSubstr("exceeds 16777216 bytes"));
}

TEST_F(HostileInputTest, AResponseBodyPastItsBoundFailsTheRequest) {
  options_.max_response_bytes = 1000;
  auto c = Make();
  std::optional<ListResult> got;
  c->List(DeploymentsResource(), {}, [&](ListResult r) { got = std::move(r); });
  t_.RunUntilIdle();
  EXPECT_EQ(t_.Get(t_.Oldest()).request.max_body_bytes, 1000u);
  t_.Respond(t_.Oldest(), 200,
             R"({"kind":"List","metadata":{},"items":[")" + std::string(2000, 'x') + R"("]})");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->result.outcome, Outcome::kPermanent);
  EXPECT_THAT(got->result.message,
              HasSubstr("GET /apis/apps/v1/deployments?limit=500 on cluster sim-2: the response "
                        "exceeds 1000 bytes (max_response_bytes)"));
  EXPECT_TRUE(t_.Outstanding().empty());  // not retried: the same body would come back

  // What the real transport reports when it stopped the transfer itself.
  std::optional<Result> get;
  c->Get(DeploymentsResource(), "shop", "web", [&](Result r) { get = r; });
  t_.RunUntilIdle();
  t_.Fail(t_.Oldest(), NetError::kTooLarge, "the response body exceeds 1000 bytes");
  ASSERT_TRUE(get.has_value());
  EXPECT_EQ(get->outcome, Outcome::kPermanent);
  EXPECT_THAT(get->message, HasSubstr("GET /apis/apps/v1/namespaces/shop/deployments/web on "
                                      "cluster sim-2: the response exceeds 1000 bytes"));
}

TEST_F(HostileInputTest, TheInformerRestartsAnOverflowedWatchWithBackoff) {
  options_.max_watch_event_bytes = 4096;
  auto c = Make();
  InformerOptions io;
  io.resource = DeploymentsResource();
  std::vector<std::string> errors;
  InformerHandlers h;
  h.on_error = [&](const Result& r) { errors.push_back(r.message); };
  auto informer = Informer::Start(c, io, h, &exec_);
  t_.RunUntilIdle();
  t_.Respond(t_.Oldest(), 200, R"({"kind":"List","metadata":{"resourceVersion":"10"},"items":[]})");
  const RequestId w = t_.Oldest();
  EXPECT_THAT(t_.Get(w).request.url, HasSubstr("watch=1"));
  t_.Feed(w, std::string(5000, 'x'));
  EXPECT_TRUE(t_.Outstanding().empty());
  ASSERT_TRUE(t_.NextTimerIn().has_value());
  EXPECT_GE(ToMillis(*t_.NextTimerIn()), 100);  // backoff, not an immediate reconnect
  t_.Advance(*t_.NextTimerIn());
  ASSERT_EQ(t_.Outstanding().size(), 1u);
  EXPECT_THAT(t_.Get(t_.Oldest()).request.url, HasSubstr("watch=1"));
  EXPECT_THAT(t_.Get(t_.Oldest()).request.url, HasSubstr("resourceVersion=10"));
  EXPECT_EQ(informer->stats().watch_restarts, 1);
  informer->Stop();
  t_.RunUntilIdle();
}

}  // namespace
}  // namespace fleetwave::clients
