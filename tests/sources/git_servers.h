// Test helpers: real git servers on loopback, started and stopped by the test that uses them.
// lighttpd (Debian's lighttpd + lighttpd-mod-openssl) serves `git http-backend` over HTTPS
// with basic auth and a certificate from a CA the test makes; sshd (openssh-server) listens on
// a free loopback port with a host key the test makes, for a client key the test makes. Both
// are in scripts/install-deps.sh: when one is missing the test fails, it is never skipped.
//
// Readiness is a bounded wait on the condition "the port accepts a connection" (and the
// process still runs), never a fixed sleep.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "tests/sources/git_repo.h"

extern char** environ;

namespace fleetwave::sources::testing {

// A port nobody listens on now (the kernel's choice for an ephemeral bind).
inline int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

inline bool Accepts(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

// One server process, its output in `log`; stopped (SIGTERM, reaped) by Stop or the
// destructor.
class ServerProcess {
 public:
  ServerProcess() = default;
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;
  ~ServerProcess() { Stop(); }

  // Starts `argv` and waits (at most 20 s) until `port` accepts connections. False, with the
  // reason in `error`, when it exits or never listens.
  bool Start(const std::vector<std::string>& argv, int port, const std::string& log,
             std::string* error) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int rc = ::posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      pid_ = -1;
      *error = argv[0] + " cannot be started: " + std::strerror(rc);
      return false;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!Accepts(port)) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        *error = argv[0] + " exited before listening on port " + std::to_string(port) +
                 "; its output:\n" + ReadAll(log);
        return false;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        *error = argv[0] + " did not listen on port " + std::to_string(port) + " within 20 s";
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }

  void Stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  static std::string ReadAll(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

 private:
  pid_t pid_ = -1;
};

// A work tree to commit in and the bare repository the servers serve, pushed to by the test.
class ServedRepo {
 public:
  explicit ServedRepo(const std::string& root)
      : work_(Made(root + "/work")), bare_(root + "/repos/repo.git") {
    Run("git init -q --bare -b main '" + bare_ + "'");
    work_.Git("remote add origin '" + bare_ + "'");
  }
  GitRepo& work() { return work_; }
  const std::string& bare() const { return bare_; }
  // Commits everything and pushes `main` (forced, so a rewritten history replaces the old).
  std::string CommitAndPush(const std::string& message) {
    const std::string sha = work_.Commit(message);
    work_.Git("push -q -f origin HEAD:main");
    return sha;
  }

 private:
  static std::string Made(const std::string& dir) {
    fs::create_directories(dir);
    return dir;
  }
  GitRepo work_;
  std::string bare_;
};

// lighttpd + git http-backend over HTTPS, basic auth with one user; the repositories are the
// bare ones under <dir>/repos, served at https://127.0.0.1:<port>/git/<name>.
class HttpsGitServer {
 public:
  HttpsGitServer(std::string dir, std::string user, std::string password)
      : dir_(std::move(dir)), user_(std::move(user)), password_(std::move(password)) {
    port_ = FreeLoopbackPort();
    const std::string ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    Run("cd '" + dir_ + "' && openssl req -x509 " + ec +
        " -keyout ca.key -out ca.pem -days 2 -subj /CN=fleetwave-test-ca");
    Run("cd '" + dir_ + "' && openssl req -new " + ec +
        " -keyout server.key -out server.csr -subj /CN=127.0.0.1");
    WriteFile(dir_ + "/ext.cnf", "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    Run("cd '" + dir_ +
        "' && openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial "
        "-out server.pem -days 2 -extfile ext.cnf");
    // A second CA that signed nothing here: trusting it must not trust the server.
    Run("cd '" + dir_ + "' && openssl req -x509 " + ec +
        " -keyout other-ca.key -out other-ca.pem -days 2 -subj /CN=another-ca");
    WriteFile(dir_ + "/users", user_ + ":" + password_ + "\n");
    fs::create_directories(dir_ + "/www");
    fs::create_directories(dir_ + "/repos");
    WriteFile(dir_ + "/lighttpd.conf",
              "server.modules = (\"mod_openssl\", \"mod_auth\", \"mod_authn_file\", "
              "\"mod_alias\", \"mod_cgi\", \"mod_setenv\")\n"
              "server.document-root = \"" +
                  dir_ +
                  "/www\"\n"
                  "server.bind = \"127.0.0.1\"\n"
                  "server.port = " +
                  std::to_string(port_) +
                  "\n"
                  "server.errorlog = \"" +
                  dir_ +
                  "/lighttpd-error.log\"\n"
                  "ssl.engine = \"enable\"\n"
                  "ssl.pemfile = \"" +
                  dir_ +
                  "/server.pem\"\n"
                  "ssl.privkey = \"" +
                  dir_ +
                  "/server.key\"\n"
                  "alias.url = (\"/git\" => \"/usr/lib/git-core/git-http-backend\")\n"
                  "cgi.assign = (\"\" => \"\")\n"
                  "setenv.set-environment = (\"GIT_PROJECT_ROOT\" => \"" +
                  dir_ +
                  "/repos\", \"GIT_HTTP_EXPORT_ALL\" => \"1\")\n"
                  "auth.backend = \"plain\"\n"
                  "auth.backend.plain.userfile = \"" +
                  dir_ +
                  "/users\"\n"
                  "auth.require = (\"/git\" => (\"method\" => \"basic\", \"realm\" => \"git\", "
                  "\"require\" => \"valid-user\"))\n");
  }

  bool Start(std::string* error) {
    return process_.Start({"/usr/sbin/lighttpd", "-D", "-f", dir_ + "/lighttpd.conf"}, port_,
                          dir_ + "/lighttpd.out", error);
  }
  void Stop() { process_.Stop(); }

  std::string Url(const std::string& repo) const {
    return "https://127.0.0.1:" + std::to_string(port_) + "/git/" + repo;
  }
  std::string CaFile() const { return dir_ + "/ca.pem"; }
  std::string OtherCaFile() const { return dir_ + "/other-ca.pem"; }
  int port() const { return port_; }

 private:
  std::string dir_, user_, password_;
  int port_ = 0;
  ServerProcess process_;
};

// sshd on a free loopback port, logging in the test's own user with a key the test makes; the
// host key is pinned in known_hosts (and a second, wrong, known_hosts names another key).
class SshGitServer {
 public:
  explicit SshGitServer(std::string dir) : dir_(std::move(dir)) {
    port_ = FreeLoopbackPort();
    Run("ssh-keygen -q -t ed25519 -N '' -C host -f '" + dir_ + "/host_key'");
    Run("ssh-keygen -q -t ed25519 -N '' -C other -f '" + dir_ + "/other_host_key'");
    Run("ssh-keygen -q -t ed25519 -N '' -C client -f '" + dir_ + "/client_key'");
    Run("cp '" + dir_ + "/client_key.pub' '" + dir_ + "/authorized_keys'");
    fs::permissions(dir_ + "/authorized_keys", fs::perms::owner_read | fs::perms::owner_write);
    const std::string where = "[127.0.0.1]:" + std::to_string(port_) + " ";
    WriteFile(dir_ + "/known_hosts",
              where + Run("cut -d' ' -f1,2 '" + dir_ + "/host_key.pub'") + "\n");
    WriteFile(dir_ + "/wrong_known_hosts",
              where + Run("cut -d' ' -f1,2 '" + dir_ + "/other_host_key.pub'") + "\n");
    WriteFile(dir_ + "/sshd_config", "Port " + std::to_string(port_) +
                                         "\n"
                                         "ListenAddress 127.0.0.1\n"
                                         "HostKey " +
                                         dir_ +
                                         "/host_key\n"
                                         "AuthorizedKeysFile " +
                                         dir_ +
                                         "/authorized_keys\n"
                                         "PidFile none\n"
                                         "UsePAM no\n"
                                         "PasswordAuthentication no\n"
                                         "KbdInteractiveAuthentication no\n"
                                         "PermitRootLogin prohibit-password\n"
                                         "StrictModes no\n");
    // sshd refuses to start without its privilege separation directory.
    std::error_code ec;
    fs::create_directories("/run/sshd", ec);
  }

  bool Start(std::string* error) {
    return process_.Start({"/usr/sbin/sshd", "-D", "-e", "-f", dir_ + "/sshd_config"}, port_,
                          dir_ + "/sshd.out", error);
  }

  // ssh://<this user>@127.0.0.1:<port><path>
  std::string Url(const std::string& path) const {
    const passwd* pw = ::getpwuid(::getuid());
    return "ssh://" + std::string(pw != nullptr ? pw->pw_name : "root") +
           "@127.0.0.1:" + std::to_string(port_) + path;
  }
  std::string KeyFile() const { return dir_ + "/client_key"; }
  std::string KnownHosts() const { return dir_ + "/known_hosts"; }
  std::string WrongKnownHosts() const { return dir_ + "/wrong_known_hosts"; }
  int port() const { return port_; }

 private:
  std::string dir_;
  int port_ = 0;
  ServerProcess process_;
};

}  // namespace fleetwave::sources::testing
