// fleetwave.yaml: the daemon's configuration, and the join of the clusters a kubeconfig
// defines with the config's `clusters:` labels. Every field has a default; unknown
// keys and wrong types are issues naming the key and file. Paths are kept as written; the
// caller resolves relative ones against the config file's directory.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "engine/appset/generate.h"
#include "engine/input_limits.h"
#include "engine/issue.h"
#include "engine/repo_url.h"

namespace fleetwave::engine {

struct ClusterLabels {
  std::string name;
  std::map<std::string, std::string> labels;
  SourcePos pos;
};

struct TlsConfig {
  std::string cert_file;
  std::string key_file;
  std::string client_ca_file;  // empty: no client certificates
};

// `liveness:` when a cluster counts as down and how it is probed, in seconds (read at start;
// cluster-clients' LivenessPolicy and ClientOptions::progress_timeout carry them out).
struct LivenessConfig {
  long long probe_interval_seconds = 10;     // while up: GET /version after this long unasked
  long long probe_timeout_seconds = 10;      // a probe without an answer this long: down
  long long progress_timeout_seconds = 30;   // any request or new watch silent this long: down
  long long max_probe_backoff_seconds = 30;  // while down: the longest wait between probes
};

// `etcd:` the TLS files for an etcds:// state (paths relative to fleetwave.yaml's directory).
// caFile empty: the system's CAs; certFile and keyFile (a client certificate) go together.
// maxTxnOps/maxRequestBytes: the cluster's --max-txn-ops and --max-request-bytes (a batch is
// atomic, so one bigger than these is refused; store/etcd_store.h).
struct EtcdConfig {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  std::size_t max_txn_ops = 128;
  std::size_t max_request_bytes = 1536 * 1024;
};

// `leaderElection:` (issue 28; docs/state-store.md, "Leader election"): instances sharing one
// etcd prefix campaign for a lease and only the leader decides and acts. Only with an etcd
// state. `identity` empty: the host name (the daemon resolves it; the engine reads no host).
struct LeaderElectionConfig {
  long long lease_duration_seconds = 10;
  std::string identity;
};

struct Config {
  std::vector<std::string> kubeconfig = {"/etc/fleetwave/kubeconfig"};
  std::vector<ClusterLabels> clusters;
  std::string application_sets = "/etc/fleetwave/applicationsets";
  bool progressive_syncs = true;
  // `clusterHttp2:` HTTP/2 to clusters whose API server offers it by ALPN (one multiplexed
  // connection per cluster, issue 26); false: HTTP/1.1 with keep-alive. Read at start.
  bool cluster_http2 = true;
  // sqlite:///path/state.db, or etcd://HOST:PORT[,...]/PREFIX / etcds://... (engine/etcd_url.h).
  std::string state = "sqlite:///var/lib/fleetwave/state.db";
  EtcdConfig etcd;
  std::optional<LeaderElectionConfig> leader_election;  // nullopt: this instance always leads
  // Where local caches (remote repositories' git mirrors) live when the state is in etcd; with
  // sqlite:// they stay in the database's directory.
  std::string cache_dir = "/var/lib/fleetwave";
  std::string listen_api = "127.0.0.1:8089";
  std::string listen_metrics = "127.0.0.1:9464";
  std::string api_token_file = "/etc/fleetwave/api-token";
  // When set, every read of the API (GET /api/...) needs this file's token (or the mutation
  // token) too: for a listener others can reach. Health probes stay open.
  std::optional<std::string> api_read_token_file;
  // Both listeners (API and metrics) serve TLS 1.2+ only when set; clientCAFile makes client
  // certificates required. Paths relative to fleetwave.yaml's directory.
  std::optional<TlsConfig> tls;
  // Host header names served besides addresses, localhost and the listen host (DNS rebinding).
  std::vector<std::string> listen_allowed_hosts;
  long long git_poll_interval_seconds = 60;
  // `repositories:` credentials per repository URL prefix (longest wins: FindRepository).
  // File paths relative to fleetwave.yaml's directory are resolved by the caller.
  std::vector<RepositoryConfig> repositories;
  // `webhook: {secretFile}`: POST /api/v1/webhook checks pushes against this file's secret
  // (re-read when it changes). Empty: the endpoint refuses every request.
  std::string webhook_secret_file;
  // `analysis: {prometheus}` (issue 29): the Prometheus a RollingSync step's analysis queries
  // when the step names none (http:// or https://). Empty: a step must name its own.
  std::string analysis_prometheus;
  long long deletion_grace_period_seconds = 600;
  std::vector<std::string> workload_kinds = {"CloneSet", "Deployment", "StatefulSet", "DaemonSet"};
  std::vector<std::string> workload_namespaces;  // empty = all
  LivenessConfig liveness;
  // `limits:` the budgets on what one input may cost (sizes in bytes: integers or quantities
  // such as 4Mi); the defaults are InputLimits' own.
  InputLimits limits;
};

struct DecodedConfig {
  Config config;  // defaults where a field is absent or wrong
  Issues issues;
};

DecodedConfig DecodeConfig(const YAML::Node& doc, const std::string& file);

// Parses a Go-style duration ("90s", "10m", "1h30m") into whole seconds.
std::optional<long long> ParseDurationSeconds(const std::string& text);

// The clusters a kubeconfig list defines, as plain values (every context is a cluster named
// after it, with its cluster's server), and the problems found loading them. The engine
// parses no kubeconfig: the caller loads it (cluster-clients' loader, kubectl's merge rules).
struct KubeconfigClusters {
  std::vector<ClusterInfo> clusters;
  Issues issues;
};

// Joins kubeconfig clusters with the config's labels. A label entry naming no context is an
// issue (a typo there would silently exclude a cluster from every generator).
std::vector<ClusterInfo> LabelClusters(std::vector<ClusterInfo> clusters, const Config& config,
                                       const std::string& config_file, Issues* issues);

}  // namespace fleetwave::engine
