// Credentials: the exec plugin protocol (v1 and v1beta1) against a real script, caching until
// expiry on a fake wall clock, re-runs after a 401, token files re-read every 60 s.
#include "cluster-clients/credentials.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <thread>

#include "engine/time.h"
#include "tests/test_paths.h"

namespace fleetwave::clients {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kPlugin = ::fleetwave::test_paths::TestdataDir() + "/kubeconfig/exec-plugin.sh";

ClusterConfig ExecCluster(const std::string& api_version,
                          std::vector<std::pair<std::string, std::string>> env) {
  ClusterConfig c;
  c.name = "exec-ctx";
  c.server = "https://exec.example.test";
  ExecConfig e;
  e.api_version = api_version;
  e.command = kPlugin;
  e.interactive_mode = "Never";
  e.env = std::move(env);
  c.exec = e;
  return c;
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("fw-cred-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string File(const std::string& name) const { return (path / name).string(); }
};

int CountLines(const std::string& path) {
  std::ifstream f(path);
  int n = 0;
  for (std::string line; std::getline(f, line);) ++n;
  return n;
}

// Waits for one Get to answer (plugin runs happen on runner threads).
std::pair<Result, std::shared_ptr<const Credential>> GetNow(CredentialProvider& p) {
  std::promise<std::pair<Result, std::shared_ptr<const Credential>>> done;
  auto f = done.get_future();
  p.Get([&](Result r, std::shared_ptr<const Credential> c) { done.set_value({r, c}); });
  EXPECT_EQ(f.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  return f.get();
}

TEST(ExecPluginTest, SpeaksBothProtocolVersions) {
  for (const char* version :
       {"client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"}) {
    SCOPED_TRACE(version);
    ClusterConfig c = ExecCluster(
        version, {{"FIXTURE_TOKEN", "tok-1"}, {"FIXTURE_EXPIRY", "2030-01-01T00:00:00Z"}});
    ExecOutcome o = RunExecPlugin(*c.exec, c, seconds(10));
    ASSERT_TRUE(o.error.ok()) << o.error.ToString();
    EXPECT_EQ(o.token, "tok-1");
    ASSERT_TRUE(o.expiry.has_value());
    EXPECT_EQ(std::chrono::system_clock::to_time_t(*o.expiry), 1893456000);
  }
}

struct PluginFailure {
  const char* name;
  std::vector<std::pair<std::string, std::string>> env;
  const char* want;
};

TEST(ExecPluginTest, FailuresAreClearAndCarryNoToken) {
  const PluginFailure cases[] = {
      {"exit_status",
       {{"FIXTURE_FAIL", "1"}, {"FIXTURE_TOKEN", "secret-x"}},
       "exited with status 3: error: you must log in again (fixture)"},
      {"wrong_api_version",
       {{"FIXTURE_API_VERSION", "client.authentication.k8s.io/v1alpha1"},
        {"FIXTURE_TOKEN", "secret-x"}},
       "returned apiVersion \"client.authentication.k8s.io/v1alpha1\""},
      {"no_token", {}, "neither a token nor a certificate"},
      {"bad_expiry",
       {{"FIXTURE_TOKEN", "secret-x"}, {"FIXTURE_EXPIRY", "tomorrow"}},
       "invalid expirationTimestamp"},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    ClusterConfig c = ExecCluster("client.authentication.k8s.io/v1", tc.env);
    ExecOutcome o = RunExecPlugin(*c.exec, c, seconds(10));
    EXPECT_EQ(o.error.problem, Problem::kCredentials);
    EXPECT_THAT(o.error.message, HasSubstr(tc.want));
    EXPECT_THAT(o.error.message, HasSubstr("context \"exec-ctx\""));
    EXPECT_THAT(o.error.message, Not(HasSubstr("secret-x")));
  }
  ClusterConfig missing = ExecCluster("client.authentication.k8s.io/v1", {});
  missing.exec->command = "/nonexistent/plugin";
  missing.exec->install_hint = "install the fixture plugin";
  ExecOutcome o = RunExecPlugin(*missing.exec, missing, seconds(10));
  EXPECT_THAT(o.error.message, HasSubstr("cannot run"));
  EXPECT_THAT(o.error.message, HasSubstr("install the fixture plugin"));
}

TEST(ExecPluginTest, CachedUntilExpiryThenRerun) {
  TempDir dir;
  const std::string count = dir.File("runs");
  ClusterConfig c =
      ExecCluster("client.authentication.k8s.io/v1", {{"FIXTURE_TOKEN", "tok"},
                                                      {"FIXTURE_EXPIRY", "2030-01-01T00:10:00Z"},
                                                      {"FIXTURE_COUNT_FILE", count}});
  ExecRunner runner(2);
  WallTime now = std::chrono::system_clock::from_time_t(1893456000);  // 2030-01-01T00:00:00Z
  CredentialProvider p(c, &runner, [&] { return now; });

  auto [r1, c1] = GetNow(p);
  ASSERT_TRUE(r1.ok()) << r1.ToString();
  EXPECT_EQ(c1->authorization, "Bearer tok");
  auto [r2, c2] = GetNow(p);
  EXPECT_EQ(c2, c1);  // cached
  EXPECT_EQ(CountLines(count), 1);

  now += std::chrono::minutes(9);  // 60 s before expiry: still good
  EXPECT_EQ(GetNow(p).second, c1);
  EXPECT_EQ(CountLines(count), 1);

  now += std::chrono::seconds(55);  // within the refresh skew of the expiry
  auto [r3, c3] = GetNow(p);
  ASSERT_TRUE(r3.ok());
  EXPECT_NE(c3, c1);
  EXPECT_EQ(CountLines(count), 2);
}

TEST(ExecPluginTest, RerunAfterUnauthorizedOnceForConcurrentFailures) {
  TempDir dir;
  const std::string count = dir.File("runs");
  ClusterConfig c = ExecCluster("client.authentication.k8s.io/v1beta1",
                                {{"FIXTURE_TOKEN", "tok"}, {"FIXTURE_COUNT_FILE", count}});
  ExecRunner runner(2);
  CredentialProvider p(c, &runner);
  auto first = GetNow(p).second;
  ASSERT_NE(first, nullptr);
  // Two requests fail with the same credential: one plugin run.
  p.Invalidate(first);
  p.Invalidate(first);
  auto second = GetNow(p).second;
  EXPECT_NE(second, first);
  p.Invalidate(first);  // stale: the credential was already replaced
  EXPECT_EQ(GetNow(p).second, second);
  EXPECT_EQ(CountLines(count), 2);
}

TEST(ExecPluginTest, ConcurrentGetsShareOneRun) {
  TempDir dir;
  const std::string count = dir.File("runs");
  ClusterConfig c = ExecCluster("client.authentication.k8s.io/v1",
                                {{"FIXTURE_TOKEN", "tok"}, {"FIXTURE_COUNT_FILE", count}});
  ExecRunner runner(1);
  CredentialProvider p(c, &runner);
  std::mutex mu;
  std::condition_variable cv;
  int answered = 0;
  for (int i = 0; i < 10; ++i)
    p.Get([&](Result r, std::shared_ptr<const Credential>) {
      EXPECT_TRUE(r.ok());
      std::lock_guard<std::mutex> lock(mu);
      ++answered;
      cv.notify_all();
    });
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(20), [&] { return answered == 10; }));
  EXPECT_EQ(CountLines(count), 1);
  EXPECT_EQ(runner.runs(), 1);
}

// A run the runner drops unrun (it stops with the job queued) takes its waiters with it. The
// provider must not keep them: a ClusterClient's waiter holds the client that owns the
// provider, which would then own itself and never be freed (a leak at every daemon exit with a
// plugin run queued).
TEST(ExecPluginTest, ADroppedRunReleasesItsWaiters) {
  TempDir dir;
  ClusterConfig c = ExecCluster("client.authentication.k8s.io/v1", {{"FIXTURE_TOKEN", "tok"}});
  auto runner = std::make_unique<ExecRunner>(1);
  // The runner's only thread is held inside a first job until the test lets it go.
  std::promise<void> started, release;
  std::shared_future<void> released_job = release.get_future().share();
  runner->Run(*c.exec, c, [&started, released_job](ExecOutcome) {
    started.set_value();
    released_job.wait();
  });
  ASSERT_EQ(started.get_future().wait_for(std::chrono::seconds(20)), std::future_status::ready);

  std::promise<void> freed;  // declared before the provider: it may outlive a failing check
  bool answered = false;
  CredentialProvider p(c, runner.get());
  std::shared_ptr<int> held_by_waiter(new int(0), [&freed](int* v) {
    delete v;
    freed.set_value();
  });
  p.Get(
      [held_by_waiter, &answered](Result, std::shared_ptr<const Credential>) { answered = true; });
  held_by_waiter.reset();  // only the queued run's waiter holds it now

  std::thread stopping([&runner] { runner.reset(); });  // drops the queued job, then joins
  const bool released =
      freed.get_future().wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  release.set_value();
  stopping.join();
  EXPECT_TRUE(released) << "the dropped run's waiter is still held";
  EXPECT_FALSE(answered);
}

// Plugin output is untrusted: wrong shapes are credential errors naming the field, on the
// runner thread, and the next run (with good output) works. Each of these crashed the process
// with an uncaught nlohmann exception on the runner thread before.
TEST(ExecPluginTest, OddOutputIsAnErrorAndTheNextRunWorks) {
  const std::string head =
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)";
  const struct {
    const char* name;
    std::string output;
    const char* want;
  } cases[] = {
      {"token_a_number", head + R"("status":{"token":12345}})",
       "status.token is a number, expected a string"},
      {"status_a_list", head + R"("status":["tok"]})",
       "has no status (status is an array, expected an object)"},
      {"not_json", "token=abc\n", "output is not JSON"},
      {"kind_a_number", R"({"kind":7,"status":{"token":"t"}})",
       "not an ExecCredential (kind is a number, expected a string)"},
      {"api_version_a_list", R"({"kind":"ExecCredential","apiVersion":[1],"status":{}})",
       "apiVersion is an array, expected a string"},
      {"expiry_a_number", head + R"("status":{"token":"secret-x","expirationTimestamp":1}})",
       "status.expirationTimestamp is a number, expected a string"},
      {"key_an_object", head + R"("status":{"clientCertificateData":"c","clientKeyData":{}}})",
       "status.clientKeyData is an object, expected a string"},
  };
  TempDir dir;
  const std::string output = dir.File("output");
  ClusterConfig c =
      ExecCluster("client.authentication.k8s.io/v1", {{"FIXTURE_OUTPUT_FILE", output}});
  ExecRunner runner(1);
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    CredentialProvider p(c, &runner);
    std::ofstream(output) << tc.output;
    auto [bad, none] = GetNow(p);
    EXPECT_EQ(none, nullptr);
    EXPECT_EQ(bad.problem, Problem::kCredentials);
    EXPECT_THAT(bad.message, HasSubstr(tc.want));
    EXPECT_THAT(bad.message, HasSubstr("context \"exec-ctx\""));
    EXPECT_THAT(bad.message, Not(HasSubstr("secret-x")));
    std::ofstream(output) << head << R"("status":{"token":"good"}})";
    auto [good, cred] = GetNow(p);
    ASSERT_TRUE(good.ok()) << good.ToString();
    EXPECT_EQ(cred->authorization, "Bearer good");
  }
}

TEST(ExecRunnerTest, RunnerSurvivesAThrowingJob) {
  ClusterConfig c = ExecCluster("client.authentication.k8s.io/v1", {{"FIXTURE_TOKEN", "tok"}});
  ExecRunner runner(1);  // one thread: the second job needs the thread the first one threw on
  runner.Run(*c.exec, c, [](ExecOutcome) { throw std::runtime_error("callback bug"); });
  std::promise<ExecOutcome> second;
  runner.Run(*c.exec, c, [&](ExecOutcome o) { second.set_value(std::move(o)); });
  auto f = second.get_future();
  ASSERT_EQ(f.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  ExecOutcome o = f.get();
  EXPECT_TRUE(o.error.ok()) << o.error.ToString();
  EXPECT_EQ(o.token, "tok");
  EXPECT_EQ(runner.runs(), 2);
}

TEST(TokenFileTest, ReReadEverySixtySecondsAndAfterUnauthorized) {
  TempDir dir;
  const std::string token = dir.File("token");
  std::ofstream(token) << "first\n";
  ClusterConfig c;
  c.name = "tf";
  c.token_file = token;
  WallTime now = std::chrono::system_clock::from_time_t(1893456000);
  CredentialProvider p(c, nullptr, [&] { return now; });
  EXPECT_EQ(GetNow(p).second->authorization, "Bearer first");
  std::ofstream(token) << "second\n";
  now += seconds(59);
  EXPECT_EQ(GetNow(p).second->authorization, "Bearer first");
  now += seconds(1);
  auto cred = GetNow(p).second;
  EXPECT_EQ(cred->authorization, "Bearer second");
  std::ofstream(token) << "third\n";
  p.Invalidate(cred);  // a 401
  EXPECT_EQ(GetNow(p).second->authorization, "Bearer third");
  // A vanished file keeps the last good token (as client-go does).
  std::filesystem::remove(token);
  now += seconds(61);
  EXPECT_EQ(GetNow(p).second->authorization, "Bearer third");
}

TEST(TokenFileTest, UnreadableAtStartIsACredentialErrorWithoutContent) {
  ClusterConfig c;
  c.name = "tf";
  c.token_file = "/nonexistent/token";
  CredentialProvider p(c, nullptr);
  auto [r, cred] = GetNow(p);
  EXPECT_EQ(cred, nullptr);
  EXPECT_EQ(r.problem, Problem::kCredentials);
  EXPECT_THAT(r.message, HasSubstr("cannot read tokenFile /nonexistent/token"));
}

TEST(StaticCredentialTest, TokenAndBasicAuth) {
  ClusterConfig c;
  c.token = "abc";
  CredentialProvider p(c, nullptr);
  EXPECT_EQ(GetNow(p).second->authorization, "Bearer abc");
  ClusterConfig b;
  b.username = "admin";
  b.password = "pw";
  CredentialProvider pb(b, nullptr);
  EXPECT_EQ(GetNow(pb).second->authorization, "Basic YWRtaW46cHc=");
  CredentialProvider none(ClusterConfig{}, nullptr);
  EXPECT_EQ(GetNow(none).second->authorization, "");
}

}  // namespace
}  // namespace fleetwave::clients
