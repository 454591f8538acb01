#include "cluster-clients/exec_plugin.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "cluster-clients/base64.h"
#include "cluster-clients/json_fields.h"
#include "engine/time.h"

extern char** environ;

namespace fleetwave::clients {
namespace {

// A credential is a few kilobytes; a plugin printing more than this is not a plugin.
constexpr std::size_t kMaxOutput = 1 << 20;

Result CredError(std::string message) {
  return ErrorResult(Outcome::kPermanent, Problem::kCredentials, std::move(message));
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n')) ++i;
  return s.substr(i);
}

void CloseFd(int fd) {
  if (fd >= 0) ::close(fd);
}

}  // namespace

std::string ExecPluginName(const ExecConfig& exec, const ClusterConfig& cluster) {
  return "exec plugin " + exec.command + " (context \"" + cluster.name + "\")";
}

std::string ExecInfo(const ExecConfig& exec, const ClusterConfig& cluster) {
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
  // The kubeconfig is user input: replace bytes that are not UTF-8 rather than throw.
  return info.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Result SpawnExecPlugin(const ExecConfig& exec, const ClusterConfig& cluster,
                       SpawnedPlugin* plugin) {
  const std::string who = ExecPluginName(exec, cluster);
  std::vector<std::string> env_strings;
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, "KUBERNETES_EXEC_INFO=", 21) != 0) env_strings.push_back(*e);
  }
  for (const auto& [k, v] : exec.env) env_strings.push_back(k + "=" + v);
  env_strings.push_back("KUBERNETES_EXEC_INFO=" + ExecInfo(exec, cluster));
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_strings = {exec.command};
  arg_strings.insert(arg_strings.end(), exec.args.begin(), exec.args.end());
  std::vector<char*> argv;
  for (auto& s : arg_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return CredError(who + ": cannot create a pipe");
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    CloseFd(out_pipe[0]);
    CloseFd(out_pipe[1]);
    return CredError(who + ": cannot create a pipe");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  pid_t pid = 0;
  const int rc =
      ::posix_spawnp(&pid, exec.command.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  CloseFd(out_pipe[1]);
  CloseFd(err_pipe[1]);
  if (rc != 0) {
    CloseFd(out_pipe[0]);
    CloseFd(err_pipe[0]);
    std::string msg = who + ": cannot run: " + std::strerror(rc);
    if (!exec.install_hint.empty()) msg += " (" + Trim(exec.install_hint) + ")";
    return CredError(msg);
  }
  *plugin = SpawnedPlugin{pid, out_pipe[0], err_pipe[0]};
  return Result{};
}

PluginRun DrainExecPlugin(const SpawnedPlugin& plugin, Duration timeout) {
  PluginRun run;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool out_open = true, err_open = true, within_limits = true;
  char buf[4096];
  while ((out_open || err_open) && within_limits) {
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= Duration::zero()) {
      within_limits = false;
      break;
    }
    pollfd fds[2] = {{out_open ? plugin.stdout_fd : -1, POLLIN, 0},
                     {err_open ? plugin.stderr_fd : -1, POLLIN, 0}};
    const int rc = ::poll(fds, 2, static_cast<int>(std::max<long long>(1, ToMillis(left))));
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) {
      within_limits = false;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (!fds[i].revents) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? run.out : run.err).append(buf, static_cast<std::size_t>(n));
        if (run.out.size() > kMaxOutput || run.err.size() > kMaxOutput) within_limits = false;
      } else if (n == 0 || errno != EINTR) {
        (i == 0 ? out_open : err_open) = false;
      }
    }
  }
  CloseFd(plugin.stdout_fd);
  CloseFd(plugin.stderr_fd);
  if (!within_limits) ::kill(plugin.pid, SIGKILL);
  int status = 0;
  while (::waitpid(plugin.pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.finished = within_limits;
  run.exited = WIFEXITED(status);
  run.exit_code = run.exited ? WEXITSTATUS(status) : -1;
  return run;
}

ExecOutcome DecodeExecCredential(const PluginRun& run, const ExecConfig& exec,
                                 const ClusterConfig& cluster, Duration timeout) {
  ExecOutcome outcome;
  const std::string who = ExecPluginName(exec, cluster);
  if (!run.finished) {
    outcome.error = CredError(who + ": did not finish within " +
                              std::to_string(ToMillis(timeout) / 1000) + "s");
    return outcome;
  }
  if (!run.exited || run.exit_code != 0) {
    std::string msg = who + ": exited with status " + std::to_string(run.exit_code);
    // The plugin's own explanation, first line only: plugins print guidance there.
    const std::string first = Trim(run.err.substr(0, run.err.find('\n')));
    if (!first.empty()) msg += ": " + first.substr(0, 200);
    outcome.error = CredError(msg);
    return outcome;
  }
  // stdout is untrusted: every field is read without throwing, and a wrong shape is an error
  // naming the field (exec_plugin_test.cc, DecodeRejectsWrongShapes).
  const Json doc = Json::parse(run.out, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    outcome.error = CredError(who + ": output is not JSON, expected an ExecCredential");
    return outcome;
  }
  FieldReader fields(doc);
  const std::string kind = fields.String({"kind"});
  if (!fields.ok() || kind != "ExecCredential") {
    outcome.error = CredError(who + ": output is not an ExecCredential" +
                              (fields.ok() ? "" : " (" + fields.error() + ")"));
    return outcome;
  }
  const std::string api_version = fields.String({"apiVersion"});
  if (!fields.ok()) {
    outcome.error = CredError(who + ": ExecCredential " + fields.error());
    return outcome;
  }
  if (api_version != exec.api_version) {
    outcome.error = CredError(who + ": returned apiVersion \"" + api_version + "\", expected \"" +
                              exec.api_version + "\"");
    return outcome;
  }
  if (!fields.Object({"status"})) {
    outcome.error = CredError(who + ": ExecCredential has no status" +
                              (fields.ok() ? "" : " (" + fields.error() + ")"));
    return outcome;
  }
  outcome.token = fields.String({"status", "token"});
  outcome.client_cert_pem = fields.String({"status", "clientCertificateData"});
  outcome.client_key_pem = fields.String({"status", "clientKeyData"});
  const std::string expiry = fields.String({"status", "expirationTimestamp"});
  if (!fields.ok()) {
    // Never echo the value: it may be (part of) the credential.
    outcome = ExecOutcome{};
    outcome.error = CredError(who + ": ExecCredential " + fields.error());
    return outcome;
  }
  if (outcome.client_cert_pem.empty() != outcome.client_key_pem.empty()) {
    outcome = ExecOutcome{};
    outcome.error = CredError(who + ": clientCertificateData and clientKeyData must come together");
    return outcome;
  }
  if (outcome.token.empty() && outcome.client_cert_pem.empty()) {
    outcome.error = CredError(who + ": ExecCredential has neither a token nor a certificate");
    return outcome;
  }
  if (!expiry.empty()) {
    auto t = engine::ParseRfc3339(expiry);
    if (!t) {
      outcome = ExecOutcome{};
      outcome.error = CredError(who + ": invalid expirationTimestamp");
      return outcome;
    }
    outcome.expiry = std::chrono::time_point_cast<WallTime::duration>(*t);
  }
  return outcome;
}

ExecOutcome RunExecPlugin(const ExecConfig& exec, const ClusterConfig& cluster, Duration timeout) {
  SpawnedPlugin plugin;
  if (Result spawned = SpawnExecPlugin(exec, cluster, &plugin); !spawned.ok()) {
    ExecOutcome outcome;
    outcome.error = std::move(spawned);
    return outcome;
  }
  return DecodeExecCredential(DrainExecPlugin(plugin, timeout), exec, cluster, timeout);
}

}  // namespace fleetwave::clients
