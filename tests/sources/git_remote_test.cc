// GitSource on remote repositories (issue 27), against real servers on loopback: lighttpd +
// git http-backend over HTTPS with basic auth, and sshd with a key and a pinned host key. Each
// test starts its own servers (tests/sources/git_servers.h) and its own mirror directory.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sources/git_source.h"
#include "tests/sources/git_repo.h"
#include "tests/sources/git_servers.h"

namespace fleetwave::sources {
namespace {

using testing::GitRepo;
using testing::HttpsGitServer;
using testing::ServedRepo;
using testing::SshGitServer;
using testing::TempDir;
using testing::WriteFile;
using testing::fs::path;

const char* kConfigMap = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: web
data:
  version: "1"
)";

const char* kPassword = "s3cret-token-4711";

std::string Text(const std::optional<engine::Error>& e) { return e ? e->ToString() : ""; }

class HttpsRemoteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string root = tmp_.path();
    testing::fs::create_directories(root + "/server");
    server_ = std::make_unique<HttpsGitServer>(root + "/server", "deploy", kPassword);
    repo_ = std::make_unique<ServedRepo>(root + "/server");
    repo_->work().Write("app/cm.yaml", kConfigMap);
    first_ = repo_->CommitAndPush("first");
    std::string error;
    ASSERT_TRUE(server_->Start(&error)) << error;
    WriteFile(root + "/password", std::string(kPassword) + "\n");
    engine::RepositoryConfig entry;
    entry.url = "https://127.0.0.1:" + std::to_string(server_->port()) + "/git/";
    entry.username = "deploy";
    entry.password_file = root + "/password";
    entry.ca_file = server_->CaFile();
    repositories_ = {entry};
    url_ = server_->Url("repo.git");
  }

  GitSource MakeSource() {
    return GitSource(GitSourceOptions{tmp_.path() + "/mirrors", repositories_, nullptr});
  }

  TempDir tmp_;
  std::unique_ptr<HttpsGitServer> server_;
  std::unique_ptr<ServedRepo> repo_;
  std::vector<engine::RepositoryConfig> repositories_;
  std::string first_, url_;
};

TEST_F(HttpsRemoteTest, FirstCloneReadsThroughTheMirror) {
  GitSource source = MakeSource();
  const Resolution r = source.Resolve(url_, "main");
  ASSERT_TRUE(r.ok()) << Text(r.error);
  EXPECT_EQ(r.snapshot->sha, first_);
  EXPECT_EQ(r.snapshot->repo_url, url_);
  // The mirror is a bare repository under the mirror root, named by the normalised URL.
  EXPECT_EQ(path(r.snapshot->git_dir).parent_path(), path(tmp_.path() + "/mirrors"));
  EXPECT_TRUE(testing::fs::exists(r.snapshot->git_dir + "/HEAD"));
  const ReadResult read = source.Read(*r.snapshot, "app");
  ASSERT_TRUE(read.ok()) << read.errors[0].ToString();
  ASSERT_EQ(read.manifests.size(), 1u);
  EXPECT_EQ(read.manifests[0].object["metadata"]["name"], "web");
  // HEAD and a spelling of the same URL resolve through the same mirror.
  const Resolution head = source.Resolve(url_ + "/", "");
  ASSERT_TRUE(head.ok()) << Text(head.error);
  EXPECT_EQ(head.snapshot->sha, first_);
  EXPECT_EQ(head.snapshot->git_dir, r.snapshot->git_dir);
  EXPECT_EQ(source.Counters(url_).downloads, 1);
}

TEST_F(HttpsRemoteTest, PollOfAnUnchangedRemoteListsRefsAndFetchesNothing) {
  GitSource source = MakeSource();
  ASSERT_TRUE(source.Resolve(url_, "main").ok());
  const MirrorCounters before = source.Counters(url_);
  EXPECT_EQ(before.listings, 1);
  EXPECT_EQ(before.downloads, 1);
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(source.Fetch(url_));
    const Resolution r = source.Resolve(url_, "main");
    ASSERT_TRUE(r.ok()) << Text(r.error);
    EXPECT_EQ(r.snapshot->sha, first_);
  }
  const MirrorCounters after = source.Counters(url_);
  EXPECT_EQ(after.listings, 7);   // one ref listing per poll
  EXPECT_EQ(after.downloads, 1);  // and no fetch
  EXPECT_EQ(after.failures, 0);
}

TEST_F(HttpsRemoteTest, ObserverSeesEachSyncResultUnderTheNormalisedUrl) {
  std::mutex mu;
  std::vector<std::string> seen;
  GitSource source(GitSourceOptions{tmp_.path() + "/mirrors", repositories_,
                                    [&](const std::string& repo, const std::string& result) {
                                      std::lock_guard<std::mutex> lock(mu);
                                      seen.push_back(result + " " + repo);
                                    }});
  const std::string key = engine::NormalizeRepoUrl(url_);
  ASSERT_TRUE(source.Resolve(url_, "main").ok());
  ASSERT_TRUE(source.Resolve(url_, "main").ok());
  server_->Stop();
  ASSERT_FALSE(source.Resolve(url_, "main").ok());
  EXPECT_EQ(seen,
            (std::vector<std::string>{"fetched " + key, "unchanged " + key, "failed " + key}));
}

TEST_F(HttpsRemoteTest, DoctorCheckListsRefsWithoutAMirror) {
  repo_->work().Git("tag -a v1 -m v1");
  repo_->work().Git("push -q origin v1");
  const RemoteCheck main = CheckRemote(url_, "main", repositories_);
  EXPECT_TRUE(main.ok) << main.problem;
  EXPECT_EQ(main.sha, first_);
  EXPECT_EQ(CheckRemote(url_, "", repositories_).sha, first_);
  EXPECT_EQ(CheckRemote(url_, "v1", repositories_).sha, first_);  // the tag's commit
  const RemoteCheck missing = CheckRemote(url_, "nope", repositories_);
  EXPECT_FALSE(missing.ok);
  EXPECT_EQ(missing.problem, "revision nope is no branch or tag of this repository");
  WriteFile(tmp_.path() + "/password", "wrong-token-0815\n");
  const RemoteCheck denied = CheckRemote(url_, "main", repositories_);
  EXPECT_FALSE(denied.ok);
  EXPECT_NE(denied.problem.find("authentication failed"), std::string::npos) << denied.problem;
  EXPECT_EQ(denied.problem.find("wrong-token"), std::string::npos) << denied.problem;
  EXPECT_FALSE(testing::fs::exists(tmp_.path() + "/mirrors"));
}

TEST_F(HttpsRemoteTest, MirrorsNoSetUsedForAWhileAreRemoved) {
  namespace fs = testing::fs;
  const std::string root = tmp_.path() + "/mirrors";
  auto fake_mirror = [&](const std::string& name, std::chrono::hours age) {
    WriteFile(root + "/" + name + "/HEAD", "ref: refs/heads/main\n");
    WriteFile(root + "/" + name + "/fleetwave-used", "");
    fs::last_write_time(root + "/" + name + "/fleetwave-used",
                        fs::file_time_type::clock::now() - age);
  };
  const std::string old_one(40, 'a'), recent(40, 'b');
  fake_mirror(old_one, std::chrono::hours(24 * 8));
  fake_mirror(recent, std::chrono::hours(24 * 6));
  fake_mirror("not-a-mirror", std::chrono::hours(24 * 30));
  Mirrors mirrors(root, repositories_);
  const Mirrors::Synced synced = mirrors.Sync(url_);  // the first sync prunes
  ASSERT_FALSE(synced.error) << synced.error->ToString();
  EXPECT_FALSE(fs::exists(root + "/" + old_one));
  EXPECT_TRUE(fs::exists(root + "/" + recent));
  EXPECT_TRUE(fs::exists(root + "/not-a-mirror"));
  EXPECT_TRUE(fs::exists(synced.git_dir + "/fleetwave-used"));
  // Once a mirror is unused for long enough it goes too, however it was used before.
  fs::last_write_time(synced.git_dir + "/fleetwave-used",
                      fs::file_time_type::clock::now() - std::chrono::hours(24 * 8));
  EXPECT_EQ(mirrors.PruneUnused(), 1);
  EXPECT_FALSE(fs::exists(synced.git_dir));
}

TEST_F(HttpsRemoteTest, NewCommitIsFetchedByTheNextPoll) {
  GitSource source = MakeSource();
  ASSERT_TRUE(source.Resolve(url_, "main").ok());
  repo_->work().Write("app/cm.yaml", std::string(kConfigMap) + "  extra: \"2\"\n");
  const std::string second = repo_->CommitAndPush("second");
  const Resolution r = source.Resolve(url_, "main");
  ASSERT_TRUE(r.ok()) << Text(r.error);
  EXPECT_EQ(r.snapshot->sha, second);
  EXPECT_EQ(source.Counters(url_).downloads, 2);
  const ReadResult read = source.Read(*r.snapshot, "app");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read.manifests[0].object["data"]["extra"], "2");
}

TEST_F(HttpsRemoteTest, WrongPasswordKeepsTheLastCommitAndARotatedTokenIsUsedAtOnce) {
  GitSource source = MakeSource();
  const Resolution good = source.Resolve(url_, "main");
  ASSERT_TRUE(good.ok()) << Text(good.error);
  WriteFile(tmp_.path() + "/password", "wrong-token-0815\n");
  repo_->CommitAndPush("second");
  const Resolution bad = source.Resolve(url_, "main");
  ASSERT_FALSE(bad.ok());
  const std::string message = Text(bad.error);
  EXPECT_EQ(bad.error->kind, engine::ErrorKind::kTransient);
  EXPECT_NE(message.find(url_), std::string::npos) << message;
  EXPECT_NE(message.find("authentication failed"), std::string::npos) << message;
  EXPECT_EQ(message.find("wrong-token"), std::string::npos) << message;
  EXPECT_EQ(message.find(kPassword), std::string::npos) << message;
  EXPECT_EQ(source.Counters(url_).failures, 1);
  // What was fetched before is still there to read.
  const ReadResult read = source.Read(*good.snapshot, "app");
  ASSERT_TRUE(read.ok()) << read.errors[0].ToString();
  EXPECT_EQ(read.manifests.size(), 1u);
  // The file is re-read at the next connection: no restart, no new GitSource.
  WriteFile(tmp_.path() + "/password", std::string(kPassword) + "\n");
  const Resolution again = source.Resolve(url_, "main");
  ASSERT_TRUE(again.ok()) << Text(again.error);
  EXPECT_NE(again.snapshot->sha, first_);
}

TEST_F(HttpsRemoteTest, NoCredentialsNamesTheMissingEntry) {
  GitSource source(GitSourceOptions{tmp_.path() + "/mirrors", {}, nullptr});
  const Resolution r = source.Resolve(url_, "main");
  ASSERT_FALSE(r.ok());
  // No caFile either: the certificate is refused before the server asks for a password.
  EXPECT_NE(Text(r.error).find("the TLS certificate of 127.0.0.1 is not trusted"),
            std::string::npos)
      << Text(r.error);
}

TEST_F(HttpsRemoteTest, ACertificateFromAnotherCaIsRefused) {
  repositories_[0].ca_file = server_->OtherCaFile();
  GitSource source = MakeSource();
  const Resolution r = source.Resolve(url_, "main");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(Text(r.error).find("the TLS certificate of 127.0.0.1 is not trusted by caFile " +
                               server_->OtherCaFile()),
            std::string::npos)
      << Text(r.error);
}

TEST_F(HttpsRemoteTest, ServerDownKeepsTheMirrorAndBackResumes) {
  GitSource source = MakeSource();
  const Resolution good = source.Resolve(url_, "main");
  ASSERT_TRUE(good.ok()) << Text(good.error);
  server_->Stop();
  const Resolution down = source.Resolve(url_, "main");
  ASSERT_FALSE(down.ok());
  EXPECT_NE(Text(down.error).find(url_ + ": cannot fetch: "), std::string::npos)
      << Text(down.error);
  EXPECT_TRUE(source.Read(*good.snapshot, "app").ok());
  std::string error;
  ASSERT_TRUE(server_->Start(&error)) << error;
  const std::string second = repo_->CommitAndPush("second");
  const Resolution back = source.Resolve(url_, "main");
  ASSERT_TRUE(back.ok()) << Text(back.error);
  EXPECT_EQ(back.snapshot->sha, second);
}

TEST_F(HttpsRemoteTest, ForcePushAndDeletedBranchFollowTheRemote) {
  GitSource source = MakeSource();
  repo_->work().Git("branch feature");
  repo_->work().Git("push -q origin feature");
  ASSERT_TRUE(source.Resolve(url_, "feature").ok());
  // main is rewritten: the mirror follows the remote, not its own history.
  repo_->work().Git("checkout -q --orphan rewritten");
  repo_->work().Write("app/cm.yaml", std::string(kConfigMap) + "  rewritten: \"yes\"\n");
  const std::string rewritten = repo_->CommitAndPush("rewritten");
  repo_->work().Git("push -q origin --delete feature");
  const Resolution main = source.Resolve(url_, "main");
  ASSERT_TRUE(main.ok()) << Text(main.error);
  EXPECT_EQ(main.snapshot->sha, rewritten);
  // A vanished branch is an error, never its last commit.
  const Resolution feature = source.Resolve(url_, "feature");
  ASSERT_FALSE(feature.ok());
  EXPECT_NE(Text(feature.error).find("feature"), std::string::npos) << Text(feature.error);
}

TEST_F(HttpsRemoteTest, ConcurrentSetsOnOneRepositoryFetchOnce) {
  GitSource source = MakeSource();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      if (source.Resolve(url_, "main").ok()) ++ok;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), 4);
  EXPECT_EQ(source.Counters(url_).downloads, 1);
}

TEST_F(HttpsRemoteTest, PasswordInRepoUrlIsRefusedAndNeverShown) {
  GitSource source = MakeSource();
  const std::string with_password = "https://deploy:" + std::string(kPassword) +
                                    "@127.0.0.1:" + std::to_string(server_->port()) +
                                    "/git/repo.git";
  const Resolution r = source.Resolve(with_password, "main");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(Text(r.error).find(kPassword), std::string::npos) << Text(r.error);
  EXPECT_NE(Text(r.error).find("deploy:***@"), std::string::npos) << Text(r.error);
}

// A listener that never accepts: connections complete in the kernel's backlog and then hear
// nothing, like a hung git server.
class SilentListener {
 public:
  SilentListener() {
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
  ~SilentListener() { ::close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(StalledRemoteTest, AServerThatNeverAnswersFailsTheSyncWithinTheBound) {
  TempDir tmp;
  SilentListener https, ssh;
  Mirrors mirrors(tmp.path() + "/mirrors", {}, nullptr, std::chrono::hours(24 * 7),
                  std::chrono::milliseconds(500));
  for (const std::string& url :
       {"https://127.0.0.1:" + std::to_string(https.port()) + "/repo.git",
        "ssh://git@127.0.0.1:" + std::to_string(ssh.port()) + "/repo.git"}) {
    SCOPED_TRACE(url);
    const auto start = std::chrono::steady_clock::now();
    const Mirrors::Synced synced = mirrors.Sync(url);
    const auto took = std::chrono::steady_clock::now() - start;
    ASSERT_TRUE(synced.error);
    EXPECT_EQ(synced.error->ToString(),
              url + ": cannot fetch: 127.0.0.1 did not answer for 500 ms (timed out)");
    // The bound, with a margin for a loaded 2-core machine; without it this never returns.
    EXPECT_LT(took, std::chrono::seconds(10));
  }
  const RemoteCheck check =
      CheckRemote("https://127.0.0.1:" + std::to_string(https.port()) + "/repo.git", "main", {},
                  std::chrono::milliseconds(500));
  EXPECT_EQ(check.problem, "cannot fetch: 127.0.0.1 did not answer for 500 ms (timed out)");
}

class SshRemoteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string root = tmp_.path();
    testing::fs::create_directories(root + "/server");
    server_ = std::make_unique<SshGitServer>(root + "/server");
    repo_ = std::make_unique<ServedRepo>(root + "/server");
    repo_->work().Write("app/cm.yaml", kConfigMap);
    first_ = repo_->CommitAndPush("first");
    std::string error;
    ASSERT_TRUE(server_->Start(&error)) << error;
    url_ = server_->Url(repo_->bare());
    engine::RepositoryConfig entry;
    entry.url = server_->Url("/");
    entry.ssh_private_key_file = server_->KeyFile();
    entry.known_hosts_file = server_->KnownHosts();
    repositories_ = {entry};
  }

  GitSource MakeSource() {
    return GitSource(GitSourceOptions{tmp_.path() + "/mirrors", repositories_, nullptr});
  }
  std::string Where() const { return "[127.0.0.1]:" + std::to_string(server_->port()); }

  TempDir tmp_;
  std::unique_ptr<SshGitServer> server_;
  std::unique_ptr<ServedRepo> repo_;
  std::vector<engine::RepositoryConfig> repositories_;
  std::string first_, url_;
};

TEST_F(SshRemoteTest, KeyAndPinnedHostKeyClone) {
  GitSource source = MakeSource();
  const Resolution r = source.Resolve(url_, "main");
  ASSERT_TRUE(r.ok()) << Text(r.error);
  EXPECT_EQ(r.snapshot->sha, first_);
  EXPECT_TRUE(source.Read(*r.snapshot, "app").ok());
  const std::string second = repo_->CommitAndPush("second");
  const Resolution next = source.Resolve(url_, "main");
  ASSERT_TRUE(next.ok()) << Text(next.error);
  EXPECT_EQ(next.snapshot->sha, second);
  EXPECT_EQ(source.Counters(url_).downloads, 2);
  ASSERT_TRUE(source.Resolve(url_, "main").ok());
  EXPECT_EQ(source.Counters(url_).downloads, 2);
}

TEST_F(SshRemoteTest, WrongHostKeyIsRefusedNamingTheHost) {
  repositories_[0].known_hosts_file = server_->WrongKnownHosts();
  GitSource source = MakeSource();
  const Resolution r = source.Resolve(url_, "main");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(Text(r.error).find("the host key of " + Where() + " does not match its entry in " +
                               server_->WrongKnownHosts()),
            std::string::npos)
      << Text(r.error);
  EXPECT_EQ(source.Counters(url_).downloads, 0);
}

TEST_F(SshRemoteTest, DoctorCheckRefusesAWrongHostKey) {
  EXPECT_TRUE(CheckRemote(url_, "main", repositories_).ok);
  repositories_[0].known_hosts_file = server_->WrongKnownHosts();
  const RemoteCheck r = CheckRemote(url_, "main", repositories_);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.problem.find("the host key of " + Where() + " does not match"), std::string::npos)
      << r.problem;
}

TEST_F(SshRemoteTest, UnknownHostIsRefused) {
  WriteFile(tmp_.path() + "/empty_known_hosts", "");
  repositories_[0].known_hosts_file = tmp_.path() + "/empty_known_hosts";
  GitSource source = MakeSource();
  const Resolution r = source.Resolve(url_, "main");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(Text(r.error).find("the host key of " + Where() + " is not in "), std::string::npos)
      << Text(r.error);
}

TEST_F(SshRemoteTest, NoEntryMeansNoHostKeyCheckAndIsRefused) {
  GitSource source(GitSourceOptions{tmp_.path() + "/mirrors", {}, nullptr});
  const Resolution r = source.Resolve(url_, "main");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(Text(r.error).find("the host key of " + Where() + " cannot be verified"),
            std::string::npos)
      << Text(r.error);
}

TEST_F(SshRemoteTest, InsecureIgnoreHostKeyAcceptsAnyKey) {
  repositories_[0].known_hosts_file = server_->WrongKnownHosts();
  repositories_[0].insecure_ignore_host_key = true;
  GitSource source = MakeSource();
  const Resolution r = source.Resolve(url_, "main");
  ASSERT_TRUE(r.ok()) << Text(r.error);
  EXPECT_EQ(r.snapshot->sha, first_);
}

TEST_F(SshRemoteTest, RefusedKeyNamesTheKeyFileNotItsContent) {
  const std::string other = tmp_.path() + "/other_key";
  testing::Run("ssh-keygen -q -t ed25519 -N '' -f '" + other + "'");
  repositories_[0].ssh_private_key_file = other;
  GitSource source = MakeSource();
  const Resolution r = source.Resolve(url_, "main");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(Text(r.error).find("authentication failed"), std::string::npos) << Text(r.error);
  EXPECT_NE(Text(r.error).find(other), std::string::npos) << Text(r.error);
}

}  // namespace
}  // namespace fleetwave::sources
