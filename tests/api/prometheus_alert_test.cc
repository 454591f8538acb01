// The alert pipeline against a real Prometheus (Debian's `prometheus`): started on a free port,
// scraping this process's /metrics every second with a copy of examples/prometheus/alerts.yaml
// whose `for:` is shortened. A workload past its progress deadline makes
// FleetwaveProgressDeadlineExceeded fire (seen through Prometheus's HTTP API), and the alert
// resolves once the workload recovers. The daemon's end-to-end test does the same with kubesim
// behind the metrics; this one pins the rules, the exposition and the scrape together.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <thread>

#include "api/http_server.h"
#include "api/metrics_route.h"
#include "engine/yaml_json.h"
#include "metrics/metrics.h"
#include "tests/metrics/local_http.h"
#include "tests/test_paths.h"

namespace fleetwave::metrics {
namespace {

namespace fs = std::filesystem;
using engine::Json;

constexpr const char* kPrometheus = "/usr/bin/prometheus";
constexpr auto kDeadline = std::chrono::seconds(90);  // a loaded CI machine starts slowly

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// One Prometheus child process in a scratch directory; stopped (SIGTERM, then SIGKILL) and
// cleaned up on destruction.
class PrometheusProcess {
 public:
  ~PrometheusProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      int status = 0;
      while (waitpid(pid_, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > until) {
          kill(pid_, SIGKILL);
          waitpid(pid_, &status, 0);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Writes the config and rules and starts the server; false with `error` set on failure.
  bool Start(int metrics_port, const std::string& rules, std::string* error) {
    dir_ = fs::temp_directory_path() / ("fleetwave-prometheus-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "data");
    std::ofstream(dir_ / "alerts.yaml") << rules;
    std::ofstream(dir_ / "prometheus.yml")
        << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
        << "rule_files: [alerts.yaml]\n"
        << "scrape_configs:\n  - job_name: fleetwave\n    static_configs:\n"
        << "      - targets: ['127.0.0.1:" << metrics_port << "']\n";
    port_ = testing::FreePort();
    if (port_ == 0) {
      *error = "no free port";
      return false;
    }
    const std::string config = "--config.file=" + (dir_ / "prometheus.yml").string();
    const std::string storage = "--storage.tsdb.path=" + (dir_ / "data").string();
    const std::string listen = "--web.listen-address=127.0.0.1:" + std::to_string(port_);
    const std::string log = (dir_ / "prometheus.log").string();
    pid_ = fork();
    if (pid_ < 0) {
      *error = "fork failed";
      return false;
    }
    if (pid_ == 0) {
      FILE* out = freopen(log.c_str(), "w", stdout);
      if (out != nullptr) dup2(fileno(out), STDERR_FILENO);
      execl(kPrometheus, kPrometheus, config.c_str(), storage.c_str(), listen.c_str(),
            "--log.level=warn", static_cast<char*>(nullptr));
      _exit(127);
    }
    return true;
  }

  // GET /api/v1/<path> as JSON (null when unreachable or not JSON).
  Json Api(const std::string& path) const {
    const auto r = testing::HttpGet(port_, "/api/v1/" + path);
    if (r.status != 200) return Json();
    return Json::parse(r.body, nullptr, false);
  }

  bool Exited() {
    int status = 0;
    return pid_ > 0 && waitpid(pid_, &status, WNOHANG) == pid_ && ((pid_ = -1), true);
  }
  std::string Log() const { return ReadAll(dir_ / "prometheus.log"); }

 private:
  fs::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

// The alert's state in /api/v1/alerts ("firing", "pending"), or "" when it is not active.
std::string AlertState(const Json& alerts, const std::string& name, const std::string& workload) {
  const Json* list = &alerts;
  for (const char* key : {"data", "alerts"}) {
    if (!list->is_object() || !list->contains(key)) return "";
    list = &(*list)[key];
  }
  if (!list->is_array()) return "";
  for (const Json& a : *list) {
    const Json labels = a.value("labels", Json::object());
    if (labels.value("alertname", "") == name && labels.value("name", "") == workload) {
      return a.value("state", "");
    }
  }
  return "";
}

// Polls `condition` until it holds or the deadline passes (the server works at its own pace).
bool WaitFor(const std::function<bool()>& condition) {
  const auto until = std::chrono::steady_clock::now() + kDeadline;
  while (std::chrono::steady_clock::now() < until) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return condition();
}

TEST(PrometheusAlertTest, ProgressDeadlineExceededFiresAndResolves) {
  ASSERT_TRUE(fs::exists(kPrometheus))
      << kPrometheus << " not found: install Debian's `prometheus` package "
      << "(scripts/install-deps.sh)";
  Metrics metrics;
  // Served as the daemon serves it: api/'s HTTP server with the metrics route.
  api::HttpServer server(api::MetricsHandler([&metrics] { return metrics.Text(); }), nullptr);
  api::HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  options.name = "metrics";
  options.log = [](const std::string&) {};
  ASSERT_EQ(server.Start(options), std::nullopt);
  const WorkloadId web{"east", "shop", "CloneSet", "web"};
  metrics.WorkloadCondition(web, "ReplicaSetUpdated", false);
  metrics.ClusterState("east", true);

  // The shipped rules, with every `for:` cut to 2s so the test takes seconds, not minutes.
  const std::string rules = std::regex_replace(
      ReadAll(fs::path(::fleetwave::test_paths::SourceDir()) / "examples/prometheus/alerts.yaml"),
      std::regex(R"(for: \d+[smh])"), "for: 2s");
  PrometheusProcess prom;
  std::string error;
  ASSERT_TRUE(prom.Start(server.port(), rules, &error)) << error;

  // Prometheus is up, has loaded the six rules and scrapes us.
  ASSERT_TRUE(WaitFor([&] {
    if (prom.Exited()) return true;
    const Json targets = prom.Api("targets");
    return targets.is_object() && targets.dump().find("\"health\":\"up\"") != std::string::npos;
  })) << prom.Log();
  ASSERT_FALSE(prom.Exited()) << "prometheus exited:\n" << prom.Log();
  EXPECT_EQ(AlertState(prom.Api("alerts"), "FleetwaveProgressDeadlineExceeded", "web"), "");

  // The CloneSet misses its deadline: the alert goes pending, then fires.
  metrics.WorkloadCondition(web, "ProgressDeadlineExceeded", true);
  EXPECT_TRUE(WaitFor([&] {
    return AlertState(prom.Api("alerts"), "FleetwaveProgressDeadlineExceeded", "web") == "firing";
  })) << prom.Log();

  // It recovers: the alert resolves (no longer active).
  metrics.WorkloadCondition(web, "NewReplicaSetAvailable", false);
  EXPECT_TRUE(WaitFor([&] {
    return AlertState(prom.Api("alerts"), "FleetwaveProgressDeadlineExceeded", "web") == "";
  })) << prom.Log();
  // Nothing else fired on the way (the cluster stayed up, no set is stalled).
  const Json alerts = prom.Api("alerts");
  ASSERT_TRUE(alerts.is_object());
  EXPECT_EQ(alerts["data"]["alerts"].size(), 0u) << alerts.dump();
}

}  // namespace
}  // namespace fleetwave::metrics
