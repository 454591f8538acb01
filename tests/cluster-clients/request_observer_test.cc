// ClientOptions::observer: the client reports every request attempt (verb, code, duration on
// the transport's clock) and the informer every watch it re-opens; a relist after 410 is not
// a watch restart.
#include "cluster-clients/request_observer.h"

#include <gtest/gtest.h>

#include "cluster-clients/cluster_client.h"
#include "cluster-clients/informer.h"
#include "tests/cluster-clients/fake_transport.h"

namespace fleetwave::clients {
namespace {

using testing::FakeTransport;

class RecordingObserver final : public RequestObserver {
 public:
  void OnRequest(const std::string& cluster, const std::string& verb, int code,
                 double seconds) override {
    log.push_back(cluster + " " + verb + " " + std::to_string(code) + " " +
                  std::to_string(static_cast<int>(seconds * 1000)) + "ms");
  }
  void OnWatchRestart(const std::string& cluster, const std::string& resource) override {
    log.push_back(cluster + " watch " + resource);
  }
  std::vector<std::string> log;
};

using Strings = std::vector<std::string>;

class RequestObserverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ClusterConfig config;
    config.name = "c1";
    config.server = "https://c1.example.test";
    ClientOptions o;
    o.seed = 7;
    o.rate_limit = {0, 1};
    o.observer = &observer_;
    client_ = ClusterClient::Create(config, &t_, &exec_, nullptr, o);
  }

  FakeTransport t_;
  InlineExecutor exec_;
  RecordingObserver observer_;
  std::shared_ptr<ClusterClient> client_;
};

TEST_F(RequestObserverTest, EveryAttemptIsReportedWithItsCodeAndDuration) {
  struct Case {
    const char* name;
    std::function<void(FakeTransport&)> answer;
    Strings want;
  };
  const std::vector<Case> cases = {
      {"success",
       [](FakeTransport& t) {
         t.Advance(milliseconds(250));
         t.Respond(t.Oldest(), 200, R"({"major":"1"})");
       },
       {"c1 GET 200 250ms"}},
      {"not found is reported, not retried",
       [](FakeTransport& t) { t.Respond(t.Oldest(), 404, R"({"kind":"Status","code":404})"); },
       {"c1 GET 404 0ms"}},
      {"a transient failure then success: two attempts",
       [](FakeTransport& t) {
         t.Advance(milliseconds(100));
         t.Respond(t.Oldest(), 503, R"({"kind":"Status","code":503})");
         t.Advance(*t.NextTimerIn());
         t.Advance(milliseconds(40));
         t.Respond(t.Oldest(), 200, R"({"major":"1"})");
       },
       {"c1 GET 503 100ms", "c1 GET 200 40ms"}},
      {"no response at all has code 0",
       [](FakeTransport& t) {
         t.Fail(t.Oldest(), NetError::kTimeout);
         t.Advance(*t.NextTimerIn());
         t.Respond(t.Oldest(), 200, R"({"major":"1"})");
       },
       {"c1 GET 0 0ms", "c1 GET 200 0ms"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    observer_.log.clear();
    bool done = false;
    client_->ServerVersion([&](Result) { done = true; });
    t_.RunUntilIdle();
    c.answer(t_);
    EXPECT_TRUE(done);
    EXPECT_EQ(observer_.log, c.want);
  }
}

TEST_F(RequestObserverTest, InformerReportsEachReopenedWatch) {
  InformerOptions io;
  io.resource = DeploymentsResource();
  auto informer = Informer::Start(client_, io, {}, &exec_);
  t_.RunUntilIdle();
  t_.Respond(t_.Oldest(), 200,
             R"({"kind":"DeploymentList","metadata":{"resourceVersion":"10"},"items":[]})");
  observer_.log.clear();  // the list itself is a request
  // The server ends the watch at its timeout: resumed, one restart.
  t_.EndStream(t_.Oldest());
  EXPECT_EQ(observer_.log, (Strings{"c1 watch deployments"}));
  // An ERROR event that is not 410: the watch is restarted after a backoff.
  t_.Feed(t_.Oldest(),
          R"({"type":"ERROR","object":{"kind":"Status","code":500,"reason":"InternalError"}})"
          "\n");
  EXPECT_EQ(observer_.log, (Strings{"c1 watch deployments", "c1 watch deployments"}));
  // 410 as an event: a relist, not a restart (the list is an ordinary request).
  t_.Advance(*t_.NextTimerIn());
  observer_.log.clear();
  t_.Feed(t_.Oldest(),
          R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}})"
          "\n");
  EXPECT_EQ(observer_.log, Strings{});
  informer->Stop();
  t_.RunUntilIdle();
}

}  // namespace
}  // namespace fleetwave::clients
