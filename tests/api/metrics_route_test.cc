// /metrics as the daemon serves it: Metrics::Text() through MetricsHandler on an HttpServer
// (prometheus-cpp's Exposer is gone). The live scrape parses and passes promtool,
// other paths and methods are refused, and clients that hold the listener (a request head that
// never ends) do not delay a scrape: with the Exposer's two threads, 4 such clients held
// /metrics for 40 s (issue 30).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "api/http_server.h"
#include "api/metrics_route.h"
#include "metrics/metrics.h"
#include "tests/api/api_test_client.h"
#include "tests/metrics/exposition.h"

namespace fleetwave::api {
namespace {

using Clock = std::chrono::steady_clock;

class MetricsRouteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    metrics_.ClusterState("east", true);
    server_ =
        std::make_unique<HttpServer>(MetricsHandler([this] { return metrics_.Text(); }), nullptr);
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    options.name = "metrics";
    options.handler_threads = 1;
    options.log = [](const std::string&) {};
    const auto error = server_->Start(options);
    ASSERT_EQ(error, std::nullopt) << *error;
  }

  testing::HttpResult Scrape(const std::string& method = "GET",
                             const std::string& path = "/metrics") {
    return testing::Http(server_->port(), method, path);
  }

  metrics::Metrics metrics_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(MetricsRouteTest, ServesTheExposition) {
  const testing::HttpResult r = Scrape();
  ASSERT_EQ(r.status, 200) << r.error;
  EXPECT_EQ(r.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const auto samples = metrics::testing::ParseSamples(r.body);
  EXPECT_EQ(metrics::testing::Find(samples, "fleetwave_build_info").size(), 1u);
  const auto up = metrics::testing::Find(samples, "fleetwave_cluster_up", {{"cluster", "east"}});
  ASSERT_EQ(up.size(), 1u);
  EXPECT_EQ(up[0].value, 1);
  EXPECT_EQ(metrics::testing::Find(samples, "process_open_fds").size(), 1u);
  // The live scrape passes promtool's lint (a test dependency: scripts/install-deps.sh).
  const auto path = std::filesystem::temp_directory_path() /
                    ("fleetwave-scrape-" + std::to_string(::getpid()) + ".prom");
  std::ofstream(path) << r.body;
  FILE* p = ::popen(("promtool check metrics < " + path.string() + " 2>&1").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string lint;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) lint.append(buf, n);
  EXPECT_EQ(::pclose(p), 0) << lint;
  EXPECT_EQ(lint, "");
  std::filesystem::remove(path);

  const testing::HttpResult head = Scrape("HEAD");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, "");
}

TEST_F(MetricsRouteTest, OtherPathsAndMethodsAreRefused) {
  EXPECT_EQ(Scrape("GET", "/").status, 404);
  EXPECT_EQ(Scrape("GET", "/api/v1/applications").status, 404);
  const testing::HttpResult post = Scrape("POST");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.header("allow"), "GET, HEAD");
}

TEST_F(MetricsRouteTest, ClientsHoldingTheListenerDelayNoScrape) {
  std::vector<int> holders;
  for (int i = 0; i < 4; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(server_->port()));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)), 0);
    const std::string partial = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    ASSERT_EQ(::send(fd, partial.data(), partial.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(partial.size()));
    holders.push_back(fd);
  }
  const auto start = Clock::now();
  const testing::HttpResult r = Scrape();
  EXPECT_EQ(r.status, 200);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));
  for (int fd : holders) ::close(fd);
}

}  // namespace
}  // namespace fleetwave::api
