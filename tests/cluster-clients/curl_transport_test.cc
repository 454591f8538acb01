// CurlTransport against a real kubesim (TLS, free port): a handler, timer or posted task that
// throws costs its own request (ended with kHandlerFailed, on_done once) or itself, is logged
// once and counted, and the I/O loop keeps serving other requests. Waits are futures with
// deadlines.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "cluster-clients/curl_transport.h"
#include "cluster-clients/kubeconfig.h"
#include "tests/cluster-clients/kubesim_process.h"

namespace fleetwave::clients {
namespace {

using ::testing::HasSubstr;

constexpr auto kDeadline = std::chrono::seconds(20);

class CurlTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(sim_.Start(1, sim_args_, &error)) << error;
    KubeconfigSet set = LoadKubeconfigs({sim_.kubeconfig()});
    ASSERT_EQ(set.clusters.size(), 1u);
    config_ = set.clusters[0];
    auto ep = std::make_shared<Endpoint>();
    ep->ca_pem = config_.ca_pem;
    endpoint_ = ep;
    CurlTransportOptions o;
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      log_.push_back(line);
    };
    transport_ = std::make_unique<CurlTransport>(o);
  }

  HttpRequest Get(const std::string& path, bool stream = false) {
    HttpRequest q;
    q.endpoint = endpoint_;
    q.url = config_.server + path;
    q.headers = {"Authorization: Bearer " + config_.token};
    q.stream = stream;
    q.timeout = stream ? Duration::zero() : seconds(10);
    return q;
  }

  // Starts `q` on the loop thread and waits for its on_done.
  HttpResponse Run(HttpRequest q, HttpHandlers h = {}) {
    auto p = std::make_shared<std::promise<HttpResponse>>();
    auto f = p->get_future();
    auto inner = std::move(h.on_done);
    // The promise is set after the inner handler (even when it throws), so the test sees
    // everything that handler did.
    h.on_done = [p, inner](HttpResponse r) {
      struct SetAfter {
        std::shared_ptr<std::promise<HttpResponse>> p;
        HttpResponse r;
        ~SetAfter() { p->set_value(r); }
      } set_after{p, r};
      if (inner) inner(r);
    };
    transport_->Post([this, q = std::move(q), h = std::move(h)]() mutable {
      transport_->Start(std::move(q), std::move(h));
    });
    if (f.wait_for(kDeadline) != std::future_status::ready) {
      ADD_FAILURE() << "no on_done within the deadline";
      return {};
    }
    return f.get();
  }

  std::vector<std::string> Log() {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }

  std::vector<std::string> sim_args_;
  testing::KubesimProcess sim_;
  ClusterConfig config_;
  std::shared_ptr<const Endpoint> endpoint_;
  std::mutex mu_;
  std::vector<std::string> log_;
  std::unique_ptr<CurlTransport> transport_;
};

TEST_F(CurlTransportTest, PlainRequestSucceedsOverHttp11) {
  HttpResponse r = Run(Get("/api/v1/namespaces"));
  EXPECT_EQ(r.error, NetError::kNone) << r.error_message;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.http_version, 1);
  EXPECT_THAT(r.body, HasSubstr("NamespaceList"));
  EXPECT_EQ(transport_->stats().handler_exceptions, 0);
}

struct ThrowCase {
  const char* name;
  bool stream;
  const char* which;  // handler that throws: on_headers | on_data | on_done
};

TEST_F(CurlTransportTest, HandlerExceptionFailsOnlyItsRequest) {
  const ThrowCase cases[] = {
      {"stream on_headers throws", true, "on_headers"},
      {"stream on_data throws", true, "on_data"},
      {"on_done throws", false, "on_done"},
  };
  std::int64_t thrown = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string which = c.which;
    HttpHandlers h;
    if (which == "on_headers") h.on_headers = [](int) { throw std::runtime_error("boom"); };
    if (which == "on_data") h.on_data = [](std::string_view) { throw std::logic_error("bug"); };
    auto done_calls = std::make_shared<std::atomic<int>>(0);
    if (which == "on_done") {
      h.on_done = [done_calls](HttpResponse) {
        ++*done_calls;
        throw 42;  // not even a std::exception
      };
    } else {
      h.on_done = [done_calls](HttpResponse) { ++*done_calls; };
    }
    HttpResponse r =
        Run(Get(c.stream ? "/api/v1/namespaces?watch=1" : "/api/v1/namespaces", c.stream),
            std::move(h));
    ++thrown;
    if (which != "on_done") {
      // The stream is ended with a permanent error naming the handler, delivered once.
      EXPECT_EQ(r.error, NetError::kHandlerFailed);
      EXPECT_THAT(r.error_message, HasSubstr(which + " threw"));
    }
    EXPECT_EQ(done_calls->load(), 1);
    // The loop survives: the next request is served.
    HttpResponse next = Run(Get("/api/v1/namespaces"));
    EXPECT_EQ(next.status, 200) << next.error_message;
    EXPECT_EQ(transport_->stats().handler_exceptions, thrown);
    EXPECT_EQ(transport_->InFlight(), 0u);
  }
  // Each exception is logged exactly once.
  const auto log = Log();
  ASSERT_EQ(log.size(), 3u);
  EXPECT_THAT(log[0], HasSubstr("on_headers threw: boom"));
  EXPECT_THAT(log[0], HasSubstr("permanent error"));
  EXPECT_THAT(log[1], HasSubstr("on_data threw: bug"));
  EXPECT_THAT(log[2], HasSubstr("on_done threw: unknown exception"));
}

TEST_F(CurlTransportTest, ThrowingTimerAndTaskAreDroppedAndTheLoopGoesOn) {
  std::promise<void> later;
  auto fired = later.get_future();
  transport_->Post([] { throw std::runtime_error("task"); });
  transport_->Post([this, &later] {
    transport_->RunAt(transport_->Now(), [] { throw std::runtime_error("timer"); });
    transport_->RunAt(transport_->Now(), [&later] { later.set_value(); });
  });
  ASSERT_EQ(fired.wait_for(kDeadline), std::future_status::ready);
  HttpResponse r = Run(Get("/api/v1/namespaces"));
  EXPECT_EQ(r.status, 200) << r.error_message;
  EXPECT_EQ(transport_->stats().handler_exceptions, 2);
  const auto log = Log();
  ASSERT_EQ(log.size(), 2u);
  EXPECT_THAT(log[0], HasSubstr("posted task threw: task"));
  EXPECT_THAT(log[1], HasSubstr("timer threw: timer"));
}

}  // namespace
}  // namespace fleetwave::clients

namespace fleetwave::clients {
namespace {

// HttpRequest::progress_timeout against kubesim: a hung cluster (its `hang` fault: the request
// is read and never answered) ends the request as kNoProgress at the bound, not at the whole
// request's timeout; a response whose bytes keep coming (a watch hearing a bookmark every
// second) is never cut by it.
class CurlProgressTest : public CurlTransportTest {
 protected:
  CurlProgressTest() { sim_args_ = {"--bookmark-interval", "1s"}; }

  void Fault(const nlohmann::json& body) {
    HttpRequest q;
    q.endpoint = endpoint_;
    q.method = "POST";
    q.url = sim_.base_url() + "/kubesim/faults";
    q.headers = {"Content-Type: application/json"};
    q.body = body.dump();
    HttpResponse r = Run(std::move(q));
    ASSERT_EQ(r.status, 200) << r.error_message << r.body;
  }
};

TEST_F(CurlProgressTest, ARequestToAHungServerEndsAsNoProgressAtItsBound) {
  Fault({{"cluster", config_.name}, {"hang", true}});
  HttpRequest q = Get("/version");
  q.timeout = seconds(15);
  q.progress_timeout = milliseconds(1500);
  const auto start = std::chrono::steady_clock::now();
  HttpResponse r = Run(std::move(q));
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.error, NetError::kNoProgress) << r.error_message;
  EXPECT_THAT(r.error_message, HasSubstr("1500 ms (progress timeout)"));
  EXPECT_GE(took, milliseconds(1500));
  EXPECT_LT(took, seconds(6)) << "ended by the progress bound, not the request's 15 s";
  EXPECT_EQ(transport_->InFlight(), 0u);

  // Cleared, the same request is answered: the bound cut only the hung one.
  HttpRequest clear;
  clear.endpoint = endpoint_;
  clear.method = "DELETE";
  clear.url = sim_.base_url() + "/kubesim/faults";
  ASSERT_EQ(Run(std::move(clear)).status, 200);
  HttpRequest again = Get("/version");
  again.progress_timeout = milliseconds(1500);
  HttpResponse ok = Run(std::move(again));
  EXPECT_EQ(ok.error, NetError::kNone) << ok.error_message;
  EXPECT_EQ(ok.status, 200);
}

TEST_F(CurlProgressTest, AResponseWhoseBytesKeepComingIsNeverCut) {
  // A 5 s watch with a bookmark each second, under a 2.5 s bound: it ends as the server ends
  // it, normally.
  HttpRequest q = Get("/api/v1/namespaces?watch=1&allowWatchBookmarks=true&timeoutSeconds=5", true);
  q.progress_timeout = milliseconds(2500);
  auto bytes = std::make_shared<std::atomic<std::size_t>>(0);
  HttpHandlers h;
  h.on_data = [bytes](std::string_view chunk) { *bytes += chunk.size(); };
  const auto start = std::chrono::steady_clock::now();
  HttpResponse r = Run(std::move(q), std::move(h));
  EXPECT_EQ(r.error, NetError::kNone) << r.error_message;
  EXPECT_EQ(r.status, 200);
  EXPECT_GE(std::chrono::steady_clock::now() - start, seconds(4));
  EXPECT_GT(bytes->load(), 0u) << "bookmarks arrived";
}

}  // namespace
}  // namespace fleetwave::clients
