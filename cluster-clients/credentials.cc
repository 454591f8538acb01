#include "cluster-clients/credentials.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/time.h"

extern char** environ;

namespace fleetwave::clients {
namespace {

constexpr auto kTokenFileRefresh = seconds(60);
// Refresh a plugin credential this long before it expires, so a request does not race it.
constexpr auto kExpirySkew = seconds(10);

Result CredError(std::string message) {
  return ErrorResult(Outcome::kPermanent, Problem::kCredentials, std::move(message));
}

std::string Base64Encode(const std::string& in) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned int acc = 0;
  int bits = 0;
  for (unsigned char c : in) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kAlphabet[(acc >> bits) & 0x3F]);
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(acc << (6 - bits)) & 0x3F]);
  while (out.size() % 4) out.push_back('=');
  return out;
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n')) ++i;
  return s.substr(i);
}

// Reads everything from the two pipes until both close or the deadline passes.
bool Drain(int out_fd, int err_fd, std::string* out, std::string* err, Duration timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool out_open = true, err_open = true;
  char buf[4096];
  while (out_open || err_open) {
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= Duration::zero()) return false;
    pollfd fds[2] = {{out_open ? out_fd : -1, POLLIN, 0}, {err_open ? err_fd : -1, POLLIN, 0}};
    int rc = ::poll(fds, 2, static_cast<int>(std::max<long long>(1, ToMillis(left))));
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) return false;
    for (int i = 0; i < 2; ++i) {
      if (!fds[i].revents) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? out : err)->append(buf, static_cast<size_t>(n));
        if (out->size() > (1 << 20)) return false;  // a credential is not a megabyte
      } else if (n == 0 || errno != EINTR) {
        (i == 0 ? out_open : err_open) = false;
      }
    }
  }
  return true;
}

}  // namespace

ExecOutcome RunExecPlugin(const ExecConfig& exec, const ClusterConfig& cluster, Duration timeout) {
  ExecOutcome outcome;
  const std::string who = "exec plugin " + exec.command + " (context \"" + cluster.name + "\")";
  // KUBERNETES_EXEC_INFO: the ExecCredential spec the plugin reads.
  Json info = {{"apiVersion", exec.api_version},
               {"kind", "ExecCredential"},
               {"spec", {{"interactive", false}}}};
  if (exec.provide_cluster_info) {
    Json c = {{"server", cluster.server}};
    if (!cluster.ca_pem.empty()) c["certificate-authority-data"] = Base64Encode(cluster.ca_pem);
    if (cluster.insecure_skip_tls_verify) c["insecure-skip-tls-verify"] = true;
    if (!cluster.proxy_url.empty()) c["proxy-url"] = cluster.proxy_url;
    info["spec"]["cluster"] = c;
  }
  std::vector<std::string> env_strings;
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, "KUBERNETES_EXEC_INFO=", 21) != 0) env_strings.push_back(*e);
  }
  for (const auto& [k, v] : exec.env) env_strings.push_back(k + "=" + v);
  env_strings.push_back("KUBERNETES_EXEC_INFO=" + info.dump());
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_strings = {exec.command};
  arg_strings.insert(arg_strings.end(), exec.args.begin(), exec.args.end());
  std::vector<char*> argv;
  for (auto& s : arg_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    outcome.error = CredError(who + ": cannot create a pipe");
    return outcome;
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    outcome.error = CredError(who + ": cannot create a pipe");
    return outcome;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, exec.command.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    std::string msg = who + ": cannot run: " + std::strerror(rc);
    if (!exec.install_hint.empty()) msg += " (" + Trim(exec.install_hint) + ")";
    outcome.error = CredError(msg);
    return outcome;
  }
  std::string out, err;
  const bool finished = Drain(out_pipe[0], err_pipe[0], &out, &err, timeout);
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  if (!finished) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished) {
    outcome.error = CredError(who + ": did not finish within " +
                              std::to_string(ToMillis(timeout) / 1000) + "s");
    return outcome;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string msg = who + ": exited with status " +
                      std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    // The plugin's own explanation, first line only: plugins print guidance there.
    std::string first = Trim(err.substr(0, err.find('\n')));
    if (!first.empty()) msg += ": " + first.substr(0, 200);
    outcome.error = CredError(msg);
    return outcome;
  }
  Json doc = Json::parse(out, nullptr, false);
  if (!doc.is_object() || doc.value("kind", "") != "ExecCredential") {
    outcome.error = CredError(who + ": output is not an ExecCredential");
    return outcome;
  }
  if (doc.value("apiVersion", "") != exec.api_version) {
    outcome.error = CredError(who + ": returned apiVersion \"" + doc.value("apiVersion", "") +
                              "\", expected \"" + exec.api_version + "\"");
    return outcome;
  }
  const Json& st = doc["status"];
  if (!st.is_object()) {
    outcome.error = CredError(who + ": ExecCredential has no status");
    return outcome;
  }
  outcome.token = st.value("token", "");
  outcome.client_cert_pem = st.value("clientCertificateData", "");
  outcome.client_key_pem = st.value("clientKeyData", "");
  if (outcome.client_cert_pem.empty() != outcome.client_key_pem.empty()) {
    outcome.error = CredError(who + ": clientCertificateData and clientKeyData must come together");
    return outcome;
  }
  if (outcome.token.empty() && outcome.client_cert_pem.empty()) {
    outcome.error = CredError(who + ": ExecCredential has neither a token nor a certificate");
    return outcome;
  }
  if (st.contains("expirationTimestamp") && st["expirationTimestamp"].is_string()) {
    auto t = engine::ParseRfc3339(st["expirationTimestamp"].get<std::string>());
    if (!t) {
      outcome.error = CredError(who + ": invalid expirationTimestamp");
      return outcome;
    }
    outcome.expiry = std::chrono::time_point_cast<WallTime::duration>(*t);
  }
  return outcome;
}

ExecRunner::ExecRunner(int max_concurrent, Duration timeout) : timeout_(timeout) {
  for (int i = 0; i < std::max(1, max_concurrent); ++i) threads_.emplace_back([this] { Work(); });
}

ExecRunner::~ExecRunner() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    jobs_.clear();
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void ExecRunner::Run(ExecConfig exec, ClusterConfig cluster,
                     std::function<void(ExecOutcome)> done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(Job{std::move(exec), std::move(cluster), std::move(done)});
  }
  cv_.notify_one();
}

int ExecRunner::runs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return runs_;
}

void ExecRunner::Work() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
      if (stop_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      ++runs_;
    }
    job.done(RunExecPlugin(job.exec, job.cluster, timeout_));
  }
}

CredentialProvider::CredentialProvider(ClusterConfig cluster, ExecRunner* runner, WallClock wall)
    : cluster_(std::move(cluster)), runner_(runner), wall_(std::move(wall)) {
  if (!wall_) wall_ = [] { return std::chrono::system_clock::now(); };
}

std::shared_ptr<const Credential> CredentialProvider::FromToken(const std::string& token) const {
  auto c = std::make_shared<Credential>();
  if (!token.empty()) {
    c->authorization = "Bearer " + token;
  } else if (!cluster_.username.empty()) {
    c->authorization = "Basic " + Base64Encode(cluster_.username + ":" + cluster_.password);
  }
  return c;
}

void CredentialProvider::Get(Done done) {
  std::unique_lock<std::mutex> lock(mu_);
  const WallTime now = wall_();
  if (cluster_.exec) {
    if (cached_ && (!expiry_ || now + kExpirySkew < *expiry_)) {
      auto c = cached_;
      lock.unlock();
      done(Result{}, c);
      return;
    }
    waiters_.push_back(std::move(done));
    if (exec_running_) return;
    exec_running_ = true;
    lock.unlock();
    if (!runner_) {
      OnExecDone(ExecOutcome{CredError("exec plugin configured but no runner"), {}, {}, {}, {}});
      return;
    }
    runner_->Run(*cluster_.exec, cluster_, [this](ExecOutcome o) { OnExecDone(std::move(o)); });
    return;
  }
  if (!cluster_.token_file.empty()) {
    if (!cached_ || now - token_read_at_ >= kTokenFileRefresh) {
      std::ifstream f(cluster_.token_file);
      std::stringstream ss;
      ss << f.rdbuf();
      const std::string token = Trim(ss.str());
      if (!f || token.empty()) {
        // client-go keeps the last good token (or the kubeconfig's) when a re-read fails.
        if (!cached_ && cluster_.token.empty()) {
          lock.unlock();
          done(CredError("context \"" + cluster_.name + "\": cannot read tokenFile " +
                         cluster_.token_file),
               nullptr);
          return;
        }
        if (!cached_) cached_ = FromToken(cluster_.token);
      } else {
        cached_ = FromToken(token);
      }
      token_read_at_ = now;
    }
  } else if (!cached_) {
    cached_ = FromToken(cluster_.token);
  }
  auto c = cached_;
  lock.unlock();
  done(Result{}, c);
}

void CredentialProvider::OnExecDone(ExecOutcome outcome) {
  std::vector<Done> waiters;
  std::shared_ptr<const Credential> cred;
  Result error = outcome.error;
  {
    std::lock_guard<std::mutex> lock(mu_);
    exec_running_ = false;
    waiters.swap(waiters_);
    if (error.ok()) {
      auto c = std::make_shared<Credential>();
      if (!outcome.token.empty()) c->authorization = "Bearer " + outcome.token;
      c->client_cert_pem = std::move(outcome.client_cert_pem);
      c->client_key_pem = std::move(outcome.client_key_pem);
      cached_ = c;
      expiry_ = outcome.expiry;
      cred = c;
    }
  }
  for (auto& w : waiters) w(error, cred);
}

void CredentialProvider::Invalidate(const std::shared_ptr<const Credential>& used) {
  std::lock_guard<std::mutex> lock(mu_);
  if (used && cached_ != used) return;  // someone already refreshed it
  if (cluster_.exec || !cluster_.token_file.empty()) cached_.reset();
}

}  // namespace fleetwave::clients
