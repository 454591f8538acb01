// `fleetwave doctor` against kubesim plus deliberately broken contexts: a wrong token, a wrong
// CA, nothing listening, a server that accepts and never answers, an unresolvable host. Every
// cluster gets one clear problem line, the run ends at its own 9 s budget rather than waiting
// on the hung server, the exit code is 1.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "tests/cluster-clients/kubesim_process.h"
#include "tests/test_paths.h"
#include "tools/fleetwave/commands.h"
#include "tools/fleetwave/doctor_check.h"

namespace fleetwave::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A TCP listener that never accepts: connections complete in the kernel backlog and then
// hear nothing, like a hung API server.
class HangingServer {
 public:
  HangingServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 16);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~HangingServer() { ::close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

void AddContext(YAML::Node& doc, const std::string& name, const std::string& server,
                const std::string& ca_data, const std::string& token) {
  YAML::Node cluster;
  cluster["name"] = name;
  cluster["cluster"]["server"] = server;
  if (!ca_data.empty()) cluster["cluster"]["certificate-authority-data"] = ca_data;
  doc["clusters"].push_back(cluster);
  YAML::Node user;
  user["name"] = name;
  user["user"]["token"] = token;
  doc["users"].push_back(user);
  YAML::Node ctx;
  ctx["name"] = name;
  ctx["context"]["cluster"] = name;
  ctx["context"]["user"] = name;
  doc["contexts"].push_back(ctx);
}

TEST(DoctorTest, OneClearProblemPerClusterWithinTenSeconds) {
  clients::testing::KubesimProcess sim;
  std::string error;
  if (!sim.Start(2, {}, &error)) FAIL() << error;
  HangingServer hang;
  YAML::Node doc = YAML::LoadFile(sim.kubeconfig());
  const std::string ca =
      doc["clusters"][0]["cluster"]["certificate-authority-data"].as<std::string>();
  const std::string server0 = doc["clusters"][0]["cluster"]["server"].as<std::string>();
  std::ifstream other_ca_file(::fleetwave::test_paths::TestdataDir() + "/kubeconfig/ca.crt");
  std::stringstream other_ca;
  other_ca << other_ca_file.rdbuf();
  std::string other_ca_b64;
  {
    // base64 of the fixture CA, via the kubectl-built fixture which embeds it.
    YAML::Node fixture =
        YAML::LoadFile(::fleetwave::test_paths::TestdataDir() + "/kubeconfig/kubectl-built.yaml");
    for (const auto& c : fixture["clusters"])
      if (c["name"].as<std::string>() == "prod-eu")
        other_ca_b64 = c["cluster"]["certificate-authority-data"].as<std::string>();
  }
  AddContext(doc, "bad-token", server0, ca, "not-the-token");
  AddContext(doc, "bad-ca", server0, other_ca_b64, "x");
  AddContext(doc, "refused", "https://127.0.0.1:1", ca, "x");
  AddContext(doc, "hung", "https://127.0.0.1:" + std::to_string(hang.port()), ca, "x");
  AddContext(doc, "no-dns", "https://no-such-host.invalid", ca, "x");
  const std::string path = (sim.dir() / "doctor-kubeconfig").string();
  std::ofstream(path) << YAML::Dump(doc);

  std::ostringstream out, err;
  const auto start = std::chrono::steady_clock::now();
  const int rc = RunDoctor({"--kubeconfig", path, "-o", "json"}, out, err);
  const auto took = std::chrono::steady_clock::now() - start;
  // The property is that the hung server cannot hold the run past doctor's 9 s budget (without
  // the budget it would wait for the kernel's TCP timeout, minutes). The margin absorbs a loaded
  // 2-core CI machine.
  EXPECT_LT(took, std::chrono::seconds(25));
  EXPECT_EQ(rc, 1);
  const auto rows = nlohmann::json::parse(out.str());
  ASSERT_EQ(rows.size(), 7u) << out.str();
  std::map<std::string, nlohmann::json> by;
  for (const auto& r : rows) by[r["cluster"]] = r;
  for (const char* good : {"sim-0", "sim-1"}) {
    SCOPED_TRACE(good);
    EXPECT_EQ(by[good]["ok"], true);
    EXPECT_TRUE(by[good]["problem"].is_null());
    EXPECT_THAT(by[good]["version"].get<std::string>(), StartsWith("v1."));
    EXPECT_GE(by[good]["latencyMs"].get<long long>(), 0);
  }
  const std::pair<const char*, const char*> want[] = {
      {"bad-token", "unauthorized"}, {"bad-ca", "TLS/CA"}, {"refused", "connection refused"},
      {"hung", "timeout"},           {"no-dns", "DNS"},
  };
  for (const auto& [name, prefix] : want) {
    SCOPED_TRACE(name);
    EXPECT_EQ(by[name]["ok"], false);
    EXPECT_THAT(by[name]["problem"].get<std::string>(), StartsWith(prefix));
    EXPECT_THAT(by[name]["problem"].get<std::string>(), ::testing::Not(HasSubstr("not-the-token")));
    EXPECT_EQ(by[name].size(), 5u);
  }
}

TEST(DoctorTest, AllHealthyExitsZeroWithATable) {
  clients::testing::KubesimProcess sim;
  std::string error;
  if (!sim.Start(3, {"--ports"}, &error)) FAIL() << error;
  std::ostringstream out, err;
  EXPECT_EQ(RunDoctor({"--kubeconfig", sim.kubeconfig()}, out, err), 0) << out.str() << err.str();
  EXPECT_THAT(out.str(), HasSubstr("CLUSTER"));
  EXPECT_THAT(out.str(), HasSubstr("sim-2"));
}

TEST(DoctorTest, UsageErrors) {
  std::ostringstream out, err;
  EXPECT_EQ(RunDoctor({"--config", "a", "--kubeconfig", "b"}, out, err), 2);
  EXPECT_EQ(RunDoctor({"-o", "xml"}, out, err), 2);
  EXPECT_EQ(RunDoctor({"--bogus"}, out, err), 2);
}

// Every kind of failure gets a line written for a person: what went wrong first, then the
// attempted action and what the server said; never the client's outcome classes.
TEST(DoctorTest, ProblemLinesByKind) {
  using clients::ErrorResult;
  using clients::Outcome;
  using clients::Problem;
  using clients::ResultFromHttp;
  struct Case {
    const char* name;
    clients::Result result;
    const char* what;
    const char* want;
  };
  const Case cases[] = {
      {"forbidden",
       ResultFromHttp(
           403,
           R"({"kind":"Status","reason":"Forbidden","message":"deployments.apps is forbidden"})",
           std::nullopt),
       "list deployments.apps",
       "forbidden: may not list deployments.apps: deployments.apps is forbidden"},
      {"unauthorized", ResultFromHttp(401, "", std::nullopt), "get /version",
       "unauthorized: the server rejected the credentials (401); check the token, client "
       "certificate or exec plugin"},
      {"tls",
       ErrorResult(Outcome::kPermanent, Problem::kTls,
                   "TLS: cannot verify or establish a secure connection to https://x"),
       "get /version",
       "TLS/CA: the server's certificate is not trusted or the handshake failed; check "
       "certificate-authority(-data) in the kubeconfig: TLS: cannot verify or establish a secure "
       "connection to https://x"},
      {"client timeout",
       ErrorResult(Outcome::kTransient, Problem::kTimeout, "timeout: no answer from https://x"),
       "get /version", "timeout: no answer from https://x"},
      {"gateway timeout", ResultFromHttp(504, "upstream timed out", std::nullopt),
       "list statefulsets.apps",
       "timeout: the server or a proxy gave up on list statefulsets.apps (HTTP 504): upstream "
       "timed out"},
      {"refused",
       ErrorResult(Outcome::kTransient, Problem::kConnectionRefused,
                   "connection refused: https://127.0.0.1:1"),
       "get /version", "connection refused: https://127.0.0.1:1"},
      {"dns",
       ErrorResult(Outcome::kTransient, Problem::kDns,
                   "DNS: cannot resolve the host of https://no.invalid"),
       "get /version", "DNS: cannot resolve the host of https://no.invalid"},
      {"connection reset",
       ErrorResult(Outcome::kTransient, Problem::kConnection,
                   "connection to https://x broken (Connection reset by peer)"),
       "get /version",
       "connection broken: the connection closed during get /version (a proxy, load balancer or "
       "the server dropped it): connection to https://x broken (Connection reset by peer)"},
      {"throttled", ResultFromHttp(429, R"({"kind":"Status","message":"slow down"})", std::nullopt),
       "list deployments.apps",
       "throttled: the server asks fleetwave to slow down (HTTP 429) on list deployments.apps: "
       "slow down"},
      {"server error", ResultFromHttp(500, "", std::nullopt), "get /version",
       "server error: the API server failed to get /version (HTTP 500)"},
      {"expired", ResultFromHttp(410, "", std::nullopt), "watch deployments.apps",
       "expired: the server no longer has the version asked for in watch deployments.apps (HTTP "
       "410)"},
      {"not found", ResultFromHttp(404, "", std::nullopt), "get /version",
       "not found: get /version does not exist on this server (HTTP 404); is the server URL a "
       "Kubernetes API server?"},
      {"bad request", ResultFromHttp(400, R"({"kind":"Status","message":"bad"})", std::nullopt),
       "list deployments.apps",
       "request rejected: the server refused to list deployments.apps (HTTP 400): bad"},
      {"credentials",
       ErrorResult(Outcome::kPermanent, Problem::kCredentials, "exec plugin exited with 1"),
       "get /version", "credentials: exec plugin exited with 1"},
      {"other", ErrorResult(Outcome::kTransient, Problem::kOther, "request canceled"),
       "get /version", "failed: could not get /version: request canceled"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string line = ProblemLine(c.result, c.what);
    EXPECT_EQ(line, c.want);
    for (const char* internal : {"transient", "permanent", "not_found", "conflict"})
      EXPECT_THAT(line, ::testing::Not(HasSubstr(internal)));
  }
}

}  // namespace
}  // namespace fleetwave::cli
