// The client's HTTP/2 path through a real HTTP/2 server: nghttpx (TLS, h2 by ALPN) in front
// of kubesim (HTTP/1.1). Every verb and the watches of a cluster run as streams of one
// connection; a client asking for HTTP/2 from a server that does not offer it uses HTTP/1.1;
// a proxy crash breaks the connection, and every watch on it resumes on a new one without
// losing an event (the informer's cache equals a fresh list). Waits are conditions with
// deadlines.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>
#include <mutex>

#include "cluster-clients/cluster_client.h"
#include "cluster-clients/curl_transport.h"
#include "cluster-clients/informer.h"
#include "tests/cluster-clients/await_callback.h"
#include "tests/cluster-clients/kubesim_process.h"
#include "tests/cluster-clients/nghttpx_process.h"

namespace fleetwave::clients {
namespace {

constexpr auto kDeadline = std::chrono::seconds(30);

using testing::Await;

template <typename Cond>
bool Eventually(Cond cond) {
  const auto end = std::chrono::steady_clock::now() + kDeadline;
  while (std::chrono::steady_clock::now() < end) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling interval, not sync
  }
  return cond();
}

Json Deployment(const std::string& name, int replicas) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", name}, {"namespace", "h2"}}},
          {"spec",
           {{"replicas", replicas},
            {"selector", {{"matchLabels", {{"app", name}}}}},
            {"template",
             {{"metadata", {{"labels", {{"app", name}}}}},
              {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "nginx:1"}}})}}}}}}}};
}

class CurlHttp2Test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(sim_.Start(1, {}, &error)) << error;
    KubeconfigSet set = LoadKubeconfigs({sim_.kubeconfig()});
    ASSERT_EQ(set.clusters.size(), 1u);
    direct_config_ = set.clusters[0];
    // https://127.0.0.1:PORT/clusters/NAME -> the same path on the proxy.
    const std::string& server = direct_config_.server;
    const auto port_at = server.rfind(':');
    const auto path_at = server.find('/', port_at);
    const int kubesim_port = std::atoi(server.substr(port_at + 1).c_str());
    ASSERT_TRUE(proxy_.Start(kubesim_port, &error)) << error;
    proxy_config_ = direct_config_;
    proxy_config_.server =
        proxy_.base_url() + (path_at == std::string::npos ? "" : server.substr(path_at));
    proxy_config_.ca_pem = proxy_.ca_pem();
    transport_ = std::make_unique<CurlTransport>();
    direct_transport_ = std::make_unique<CurlTransport>();
  }
  void TearDown() override {
    for (auto& i : informers_) i->Stop();
    informers_.clear();
    executor_.Shutdown();
    transport_.reset();
    direct_transport_.reset();
  }

  std::shared_ptr<ClusterClient> Client(const ClusterConfig& c, bool http2, CurlTransport* t) {
    ClientOptions o;
    o.rate_limit = {100, 200};
    o.http2 = http2;
    o.backoff.initial = std::chrono::milliseconds(50);
    o.backoff.cap = std::chrono::milliseconds(500);
    return ClusterClient::Create(c, t, &executor_, nullptr, o);
  }
  std::shared_ptr<ClusterClient> ProxyClient() {
    return Client(proxy_config_, true, transport_.get());
  }
  // Writes that bypass the proxy (while it is down), over kubesim's own HTTP/1.1.
  std::shared_ptr<ClusterClient> DirectClient() {
    return Client(direct_config_, false, direct_transport_.get());
  }

  std::shared_ptr<Informer> Watch(std::shared_ptr<ClusterClient> c, ResourceRef ref) {
    InformerOptions io;
    io.resource = std::move(ref);
    io.ns = "h2";
    io.project = ProjectFields({"/spec/replicas"});
    informers_.push_back(Informer::Start(std::move(c), io, {}, &executor_));
    return informers_.back();
  }

  static Result Apply(ClusterClient& c, const Json& obj) {
    return Await<Result>([&](auto done) { c.Apply(obj, {"h2-test", true}, done); });
  }

  // The cache holds exactly the names and resourceVersions of a fresh list.
  static bool CacheEqualsFreshList(ClusterClient& c, Informer& inf, std::size_t want) {
    ListOptions lo;
    lo.ns = "h2";
    ListResult l = Await<ListResult>([&](auto done) { c.List(DeploymentsResource(), lo, done); });
    std::map<std::string, std::string> fresh, cached;
    for (const auto& item : l.items)
      fresh[item["metadata"]["name"]] = item["metadata"]["resourceVersion"];
    for (const auto& p : inf.Snapshot()) cached[p.name] = p.resource_version;
    return l.result.ok() && fresh == cached && fresh.size() == want;
  }

  testing::KubesimProcess sim_;
  testing::NghttpxProcess proxy_;
  ClusterConfig direct_config_, proxy_config_;
  SerialExecutor executor_;  // outlives the transports (see executor.h on shutdown order)
  std::unique_ptr<CurlTransport> transport_, direct_transport_;
  std::vector<std::shared_ptr<Informer>> informers_;
};

TEST_F(CurlHttp2Test, EveryVerbAndTheWatchesShareOneHttp2Connection) {
  auto c = ProxyClient();
  ASSERT_TRUE(
      Apply(*c, {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "h2"}}}})
          .ok());
  auto deployments = Watch(c, DeploymentsResource());
  auto clonesets = Watch(c, CloneSetsResource());
  ASSERT_TRUE(Eventually([&] { return deployments->synced() && clonesets->synced(); }));

  // Every verb: apply (create and update), get, list, merge-patch, delete.
  ASSERT_TRUE(Apply(*c, Deployment("a", 1)).ok());
  ASSERT_TRUE(Apply(*c, Deployment("b", 1)).ok());
  ASSERT_TRUE(Apply(*c, Deployment("a", 2)).ok());
  Result got = Await<Result>([&](auto done) { c->Get(DeploymentsResource(), "h2", "a", done); });
  ASSERT_TRUE(got.ok()) << got.ToString();
  EXPECT_EQ(got.object["spec"]["replicas"], 2);
  ASSERT_TRUE(
      Await<Result>([&](auto done) {
        c->MergePatch(DeploymentsResource(), "h2", "b", {{"spec", {{"replicas", 3}}}}, done);
      }).ok());
  ASSERT_TRUE(Await<Result>([&](auto done) {
                c->Delete(DeploymentsResource(), "h2", "a", {}, done);
              }).ok());
  // The watch delivered all of it.
  EXPECT_TRUE(Eventually([&] {
    auto b = deployments->Get("h2", "b");
    return b && b->fields.value("/spec/replicas"_json_pointer, 0) == 3 &&
           !deployments->Get("h2", "a");
  }));
  EXPECT_TRUE(Eventually([&] { return CacheEqualsFreshList(*c, *deployments, 1); }));

  const CurlTransport::Stats s = transport_->stats();
  EXPECT_GT(s.responses_http2, 7);
  EXPECT_EQ(s.responses_http1, 0);
  // Two watches, discovery and every verb: one connection, opened once.
  EXPECT_EQ(s.sockets_open, 1);
  EXPECT_EQ(s.sockets_opened, 1);
}

// A watch's receive buffer is small (4 KiB, curl_transport.cc), so an event many times its
// size arrives in pieces; over HTTP/2 two watches of the same objects interleave their frames
// on one connection. Every event still arrives whole on both, and over HTTP/1.1 too.
TEST_F(CurlHttp2Test, WatchEventsManyTimesTheStreamBufferArriveWhole) {
  for (const bool http2 : {true, false}) {
    SCOPED_TRACE(http2 ? "HTTP/2 through the proxy" : "HTTP/1.1 to kubesim");
    auto c = http2 ? ProxyClient() : DirectClient();
    ASSERT_TRUE(
        Apply(*c, {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "h2"}}}})
            .ok());
    std::vector<std::shared_ptr<Informer>> watches;
    for (int i = 0; i < 2; ++i) {
      InformerOptions io;
      io.resource = DeploymentsResource();
      io.ns = "h2";
      io.project = ProjectFields({"/metadata/annotations"});
      watches.push_back(Informer::Start(c, io, {}, &executor_));
      informers_.push_back(watches.back());
    }
    ASSERT_TRUE(Eventually([&] { return watches[0]->synced() && watches[1]->synced(); }));
    const std::string prefix = http2 ? "big2-" : "big1-";
    for (int n = 0; n < 4; ++n) {
      Json d = Deployment(prefix + std::to_string(n), 1);
      d["metadata"]["annotations"] = {{"fill", std::string(100'000 + n, 'a' + n)}};
      ASSERT_TRUE(Apply(*c, d).ok());
    }
    for (const auto& w : watches) {
      EXPECT_TRUE(Eventually([&] {
        for (int n = 0; n < 4; ++n) {
          auto got = w->Get("h2", prefix + std::to_string(n));
          if (!got) return false;
          const Json fill = got->fields.value("/metadata/annotations/fill"_json_pointer, Json());
          if (fill != std::string(100'000 + n, 'a' + n)) return false;
        }
        return true;
      }));
    }
  }
  EXPECT_GT(transport_->stats().responses_http2, 0);
  EXPECT_GT(direct_transport_->stats().responses_http1, 0);
}

TEST_F(CurlHttp2Test, Http2OptionUsesHttp11WhereTheServerDoesNotOfferIt) {
  ClusterConfig direct = direct_config_;
  auto c = Client(direct, /*http2=*/true, transport_.get());
  Result got = Await<Result>([&](auto done) { c->Get(NamespacesResource(), "", "default", done); });
  ASSERT_TRUE(got.ok()) << got.ToString();
  EXPECT_EQ(transport_->stats().responses_http2, 0);
  EXPECT_GE(transport_->stats().responses_http1, 1);
}

// Over HTTP/1.1 (a server without h2, or clusterHttp2: false) an open watch holds its
// connection, so the next request opens another; that one resumes the TLS session the cluster
// gave the first, so a second connection or a re-opened watch costs no full handshake (issue
// 26). nghttpx's access log says per request whether its connection resumed a session.
TEST_F(CurlHttp2Test, Http11ConnectionsResumeTheClustersTlsSession) {
  // One idle connection kept at most: the discovery's parallel requests leave none spare for
  // the request below, which must then open a new connection.
  transport_ = std::make_unique<CurlTransport>(CurlTransportOptions{1, 0, nullptr});
  auto c = Client(proxy_config_, /*http2=*/false, transport_.get());
  ASSERT_TRUE(
      Apply(*c, {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "h2"}}}})
          .ok());
  auto deployments = Watch(c, DeploymentsResource());
  ASSERT_TRUE(Eventually([&] { return deployments->synced(); }));
  const std::int64_t opened = transport_->stats().sockets_opened;
  Result got = Await<Result>([&](auto done) { c->Get(NamespacesResource(), "", "h2", done); });
  ASSERT_TRUE(got.ok()) << got.ToString();
  EXPECT_EQ(transport_->stats().sockets_opened, opened + 1) << "the watch holds its connection";
  EXPECT_EQ(transport_->stats().responses_http2, 0);

  std::string get_line, joined;
  ASSERT_TRUE(Eventually([&] {
    joined.clear();
    for (const auto& line : proxy_.AccessLog()) {
      joined += line + "\n";
      const std::string tail = "/api/v1/namespaces/h2";
      if (line.find(" GET ") != std::string::npos && line.size() > tail.size() &&
          line.compare(line.size() - tail.size(), tail.size(), tail) == 0)
        get_line = line;
    }
    return !get_line.empty();
  })) << joined;
  EXPECT_EQ(get_line.substr(0, 2), "r ") << "the second connection did a full handshake\n"
                                         << joined;
}

TEST_F(CurlHttp2Test, BrokenConnectionIsDetectedAndEveryWatchResumes) {
  auto c = ProxyClient();
  auto direct = DirectClient();
  ASSERT_TRUE(
      Apply(*c, {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "h2"}}}})
          .ok());
  ASSERT_TRUE(Apply(*c, Deployment("keep", 1)).ok());
  ASSERT_TRUE(Apply(*c, Deployment("change", 1)).ok());
  ASSERT_TRUE(Apply(*c, Deployment("drop", 1)).ok());
  auto deployments = Watch(c, DeploymentsResource());
  auto clonesets = Watch(c, CloneSetsResource());
  ASSERT_TRUE(Eventually([&] { return deployments->synced() && clonesets->synced(); }));
  ASSERT_TRUE(Eventually([&] { return deployments->Snapshot().size() == 3; }));
  ASSERT_EQ(transport_->stats().sockets_open, 1);

  // The proxy crashes: the connection carrying both watches breaks.
  proxy_.Kill();
  ASSERT_TRUE(Eventually([&] { return transport_->stats().sockets_open == 0; }))
      << "the broken connection was not noticed";
  // Changes while the cluster is unreachable through the proxy.
  ASSERT_TRUE(Apply(*direct, Deployment("change", 4)).ok());
  ASSERT_TRUE(Apply(*direct, Deployment("added", 1)).ok());
  ASSERT_TRUE(Await<Result>([&](auto done) {
                direct->Delete(DeploymentsResource(), "h2", "drop", {}, done);
              }).ok());
  std::string error;
  ASSERT_TRUE(proxy_.Restart(&error)) << error;

  // Both watches come back on one new connection and nothing was lost.
  EXPECT_TRUE(Eventually([&] { return CacheEqualsFreshList(*direct, *deployments, 3); }));
  auto changed = deployments->Get("h2", "change");
  ASSERT_TRUE(changed);
  EXPECT_EQ(changed->fields.value("/spec/replicas"_json_pointer, 0), 4);
  EXPECT_TRUE(Eventually([&] { return clonesets->synced(); }));
  // An event after the restart arrives through the resumed watch.
  ASSERT_TRUE(Apply(*direct, Deployment("after", 1)).ok());
  EXPECT_TRUE(Eventually([&] { return CacheEqualsFreshList(*direct, *deployments, 4); }));
  EXPECT_GE(deployments->stats().watch_restarts + deployments->stats().expired, 1);
  EXPECT_EQ(transport_->stats().sockets_open, 1);
  EXPECT_EQ(transport_->stats().responses_http1, 0);
}

}  // namespace
}  // namespace fleetwave::clients
