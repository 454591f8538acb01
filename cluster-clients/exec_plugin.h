// Running an exec credential plugin (client.authentication.k8s.io/v1 and v1beta1), in three
// steps that can be tested apart:
//   spawn  — start the command with KUBERNETES_EXEC_INFO and its env, stdin from /dev/null;
//   drain  — collect stdout and stderr until it exits, with a deadline;
//   decode — turn what it printed into a credential or an error. Pure: no I/O, no clock;
//            the output is untrusted (any bytes), and no shape of it throws.
// Error messages name the plugin and the context and never contain the credential.
// Plain functions; thread-safe (RunExecPlugin blocks the calling thread).
#pragma once

#include <sys/types.h>
#include <chrono>
#include <optional>
#include <string>

#include "cluster-clients/clock.h"
#include "cluster-clients/kubeconfig.h"
#include "cluster-clients/result.h"

namespace fleetwave::clients {

using WallTime = std::chrono::system_clock::time_point;

// What one plugin run produced.
struct ExecOutcome {
  Result error;  // ok() when the plugin produced a credential
  std::string token, client_cert_pem, client_key_pem;
  std::optional<WallTime> expiry;
};

// A plugin process that has been started.
struct SpawnedPlugin {
  pid_t pid = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
};

// How a plugin run ended.
struct PluginRun {
  bool finished = false;  // false: killed at the deadline (or its output was too large)
  bool exited = false;    // exited normally (not by a signal)
  int exit_code = 0;
  std::string out, err;
};

// "exec plugin <command> (context "<name>")": how messages name a plugin.
std::string ExecPluginName(const ExecConfig& exec, const ClusterConfig& cluster);

// The ExecCredential request the plugin reads from KUBERNETES_EXEC_INFO.
std::string ExecInfo(const ExecConfig& exec, const ClusterConfig& cluster);

// Starts the plugin. On failure `error` says why (with the install hint) and nothing runs.
Result SpawnExecPlugin(const ExecConfig& exec, const ClusterConfig& cluster, SpawnedPlugin* plugin);

// Reads the plugin's output until it exits or `timeout` passes (then kills it), reaps it and
// closes its pipes.
PluginRun DrainExecPlugin(const SpawnedPlugin& plugin, Duration timeout);

// Decodes a finished run: the exit status, then stdout as an ExecCredential of
// `exec.api_version`. Pure; unit-tested alone in exec_plugin_test.cc.
ExecOutcome DecodeExecCredential(const PluginRun& run, const ExecConfig& exec,
                                 const ClusterConfig& cluster, Duration timeout);

// spawn + drain + decode, synchronously on the calling thread.
ExecOutcome RunExecPlugin(const ExecConfig& exec, const ClusterConfig& cluster, Duration timeout);

}  // namespace fleetwave::clients
