// fleetwave.yaml decoding: defaults, every field and durations.
#include "engine/config.h"

#include <gtest/gtest.h>

namespace fleetwave::engine {
namespace {

DecodedConfig Decode(const std::string& text) {
  auto docs = LoadYamlDocuments(text, "fleetwave.yaml");
  EXPECT_TRUE(docs.issues.empty());
  return DecodeConfig(docs.documents.empty() ? YAML::Node() : docs.documents[0], "fleetwave.yaml");
}

TEST(Config, EmptyFileGivesEveryDefault) {
  auto r = Decode("");
  EXPECT_TRUE(r.issues.empty());
  EXPECT_EQ(r.config.kubeconfig, (std::vector<std::string>{"/etc/fleetwave/kubeconfig"}));
  EXPECT_TRUE(r.config.progressive_syncs);
  EXPECT_TRUE(r.config.cluster_http2);
  EXPECT_EQ(r.config.listen_api, "127.0.0.1:8089");
  EXPECT_EQ(r.config.listen_metrics, "127.0.0.1:9464");
  EXPECT_EQ(r.config.git_poll_interval_seconds, 60);
  EXPECT_EQ(r.config.deletion_grace_period_seconds, 600);
  EXPECT_EQ(r.config.workload_kinds.size(), 4u);
  EXPECT_TRUE(r.config.workload_namespaces.empty());
  EXPECT_EQ(r.config.liveness.probe_interval_seconds, 10);
  EXPECT_EQ(r.config.liveness.probe_timeout_seconds, 10);
  EXPECT_EQ(r.config.liveness.progress_timeout_seconds, 30);
  EXPECT_EQ(r.config.liveness.max_probe_backoff_seconds, 30);
  EXPECT_EQ(r.config.analysis_prometheus, "");
}

TEST(Config, AnalysisPrometheusIsTheStepsDefault) {
  auto r = Decode("analysis: {prometheus: 'http://prometheus.monitoring:9090'}\n");
  EXPECT_TRUE(r.issues.empty());
  EXPECT_EQ(r.config.analysis_prometheus, "http://prometheus.monitoring:9090");
}

TEST(Config, AnEtcdStateWithItsTlsFilesAndCacheDir) {
  auto r = Decode(R"(state: etcds://10.0.0.1:2379,10.0.0.2:2379/fleetwave
etcd: {caFile: ca.pem, certFile: client.pem, keyFile: client-key.pem, maxTxnOps: 16384,
       maxRequestBytes: 8Mi}
cacheDir: /var/cache/fleetwave
)");
  ASSERT_TRUE(r.issues.empty()) << FormatIssue(r.issues[0]);
  EXPECT_EQ(r.config.state, "etcds://10.0.0.1:2379,10.0.0.2:2379/fleetwave");
  EXPECT_EQ(r.config.etcd.ca_file, "ca.pem");
  EXPECT_EQ(r.config.etcd.cert_file, "client.pem");
  EXPECT_EQ(r.config.etcd.key_file, "client-key.pem");
  EXPECT_EQ(r.config.cache_dir, "/var/cache/fleetwave");
  EXPECT_EQ(r.config.etcd.max_txn_ops, 16384u);
  EXPECT_EQ(r.config.etcd.max_request_bytes, 8u * 1024 * 1024);
}

TEST(Config, LeaderElectionWithAnEtcdState) {
  auto r = Decode(R"(state: etcd://10.0.0.1:2379/fleetwave
leaderElection: {leaseDuration: 15s, identity: host-a.example}
)");
  ASSERT_TRUE(r.issues.empty()) << FormatIssue(r.issues[0]);
  ASSERT_TRUE(r.config.leader_election.has_value());
  EXPECT_EQ(r.config.leader_election->lease_duration_seconds, 15);
  EXPECT_EQ(r.config.leader_election->identity, "host-a.example");
}

TEST(Config, LeaderElectionDefaults) {
  EXPECT_FALSE(Decode("").config.leader_election.has_value()) << "off unless configured";
  auto r = Decode("state: etcds://a:1/fw\nleaderElection: {}\n");
  ASSERT_TRUE(r.issues.empty()) << FormatIssue(r.issues[0]);
  ASSERT_TRUE(r.config.leader_election.has_value());
  EXPECT_EQ(r.config.leader_election->lease_duration_seconds, 10);
  EXPECT_EQ(r.config.leader_election->identity, "") << "empty: the daemon uses the host name";
}

TEST(Config, EveryFieldIsDecoded) {
  auto r = Decode(R"(kubeconfig: [/a, /b]
clusters:
  - name: prod-us-east-2
    labels: {env: prod, region: us-east-2}
applicationSets: /sets
progressiveSyncs: false
clusterHttp2: false
state: sqlite:///tmp/state.db
listen: {api: 127.0.0.1:1, metrics: "[::1]:2", allowedHosts: [fleet.example.com]}
apiTokenFile: /token
apiReadTokenFile: /read-token
tls: {certFile: /c, keyFile: /k, clientCAFile: /ca}
git: {pollInterval: 1m30s}
deletion: {gracePeriod: 1h}
workloads: {kinds: [CloneSet], namespaces: [web]}
liveness: {probeInterval: 5s, probeTimeout: 3s, progressTimeout: 1m, maxProbeBackoff: 2m}
webhook: {secretFile: /etc/fleetwave/webhook-secret}
repositories:
  - url: https://git.example.com/platform/
    username: deploy
    passwordFile: /etc/fleetwave/git-token
    caFile: /etc/fleetwave/git-ca.pem
  - url: ssh://git@git.example.com/
    sshPrivateKeyFile: /etc/fleetwave/deploy_key
    knownHostsFile: /etc/fleetwave/known_hosts
  - url: git@other.example.com:org/
    usernameFile: /u
    insecureIgnoreHostKey: true
)");
  ASSERT_TRUE(r.issues.empty()) << FormatIssue(r.issues[0]);
  const Config& c = r.config;
  EXPECT_EQ(c.kubeconfig, (std::vector<std::string>{"/a", "/b"}));
  ASSERT_EQ(c.clusters.size(), 1u);
  EXPECT_EQ(c.clusters[0].labels.at("region"), "us-east-2");
  EXPECT_EQ(c.application_sets, "/sets");
  EXPECT_FALSE(c.progressive_syncs);
  EXPECT_FALSE(c.cluster_http2);
  EXPECT_EQ(c.state, "sqlite:///tmp/state.db");
  EXPECT_EQ(c.listen_metrics, "[::1]:2");
  EXPECT_EQ(c.api_read_token_file, "/read-token");
  ASSERT_TRUE(c.tls.has_value());
  EXPECT_EQ(c.tls->cert_file, "/c");
  EXPECT_EQ(c.tls->key_file, "/k");
  EXPECT_EQ(c.tls->client_ca_file, "/ca");
  EXPECT_EQ(c.listen_allowed_hosts, (std::vector<std::string>{"fleet.example.com"}));
  EXPECT_EQ(c.git_poll_interval_seconds, 90);
  EXPECT_EQ(c.deletion_grace_period_seconds, 3600);
  EXPECT_EQ(c.workload_kinds, (std::vector<std::string>{"CloneSet"}));
  EXPECT_EQ(c.workload_namespaces, (std::vector<std::string>{"web"}));
  EXPECT_EQ(c.liveness.probe_interval_seconds, 5);
  EXPECT_EQ(c.liveness.probe_timeout_seconds, 3);
  EXPECT_EQ(c.liveness.progress_timeout_seconds, 60);
  EXPECT_EQ(c.liveness.max_probe_backoff_seconds, 120);
  EXPECT_EQ(c.webhook_secret_file, "/etc/fleetwave/webhook-secret");
  ASSERT_EQ(c.repositories.size(), 3u);
  EXPECT_EQ(c.repositories[0].username, "deploy");
  EXPECT_EQ(c.repositories[0].password_file, "/etc/fleetwave/git-token");
  EXPECT_EQ(c.repositories[0].ca_file, "/etc/fleetwave/git-ca.pem");
  EXPECT_EQ(c.repositories[1].ssh_private_key_file, "/etc/fleetwave/deploy_key");
  EXPECT_EQ(c.repositories[1].known_hosts_file, "/etc/fleetwave/known_hosts");
  EXPECT_FALSE(c.repositories[1].insecure_ignore_host_key);
  EXPECT_EQ(c.repositories[2].username_file, "/u");
  EXPECT_TRUE(c.repositories[2].insecure_ignore_host_key);
}

struct ErrorCase {
  const char* name;
  std::string text;
  std::string want;
};

class ConfigErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ConfigErrors, NameKeyAndFile) {
  auto r = Decode(GetParam().text);
  ASSERT_EQ(r.issues.size(), 1u);
  EXPECT_EQ(FormatIssue(r.issues[0]), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, ConfigErrors,
    ::testing::Values(
        ErrorCase{"UnknownKey", "kubeconfig: /a\nlisten_api: x\n",
                  "fleetwave.yaml:2:1: listen_api: unknown field \"listen_api\""},
        ErrorCase{"UnknownNestedKey", "git: {poll: 1s}\n",
                  "fleetwave.yaml:1:7: git.poll: unknown field \"poll\""},
        ErrorCase{
            "WrongType", "progressiveSyncs: maybe\n",
            "fleetwave.yaml:1:19: progressiveSyncs: wrong type: expected boolean, got string"},
        ErrorCase{"Http2NotBoolean", "clusterHttp2: h2\n",
                  "fleetwave.yaml:1:15: clusterHttp2: wrong type: expected boolean, got string"},
        ErrorCase{"BadDuration", "deletion: {gracePeriod: 10 minutes}\n",
                  "fleetwave.yaml:1:25: deletion.gracePeriod: invalid duration \"10 minutes\" "
                  "(examples: 90s, 10m, "
                  "1h30m)"},
        ErrorCase{"UnsupportedState", "state: redis://x\n",
                  "fleetwave.yaml:1:8: state: unsupported value \"redis://x\" (supported: "
                  "sqlite:///path/to/state.db, etcd://HOST:PORT[,HOST:PORT...]/PREFIX, or "
                  "etcds:// for TLS)"},
        ErrorCase{"EtcdStateWithoutPrefix", "state: etcd://x:2379\n",
                  "fleetwave.yaml:1:8: state: \"etcd://x:2379\": no /PREFIX after the endpoints "
                  "(expected etcd://HOST:PORT[,HOST:PORT...]/PREFIX, or etcds:// for TLS)"},
        ErrorCase{"EtcdStateBadEndpoint", "state: etcd://a:1,b/fw\n",
                  "fleetwave.yaml:1:8: state: \"etcd://a:1,b/fw\": endpoint \"b\" is not "
                  "HOST:PORT (expected etcd://HOST:PORT[,HOST:PORT...]/PREFIX, or etcds:// for "
                  "TLS)"},
        ErrorCase{"EtcdTlsWithoutEtcds", "state: etcd://a:1/fw\netcd: {caFile: ca.pem}\n",
                  "fleetwave.yaml:2:7: etcd: TLS files are used only with state: etcds://... "
                  "(state is \"etcd://a:1/fw\")"},
        ErrorCase{"EtcdCertWithoutKey", "state: etcds://a:1/fw\netcd: {certFile: c.pem}\n",
                  "fleetwave.yaml:2:7: etcd: certFile and keyFile go together (a client "
                  "certificate and its key)"},
        ErrorCase{"LeaderElectionOnSqlite",
                  "state: sqlite:///s.db\nleaderElection: {leaseDuration: 10s}\n",
                  "fleetwave.yaml:2:17: leaderElection: needs the state in etcd (state: "
                  "etcd://... or etcds://...; state is \"sqlite:///s.db\")"},
        ErrorCase{"LeaderElectionWithTheDefaultState", "leaderElection: {}\n",
                  "fleetwave.yaml:1:17: leaderElection: needs the state in etcd (state: "
                  "etcd://... or etcds://...; state is \"sqlite:///var/lib/fleetwave/state.db\")"},
        ErrorCase{"LeaseTooShort", "state: etcd://a:1/fw\nleaderElection: {leaseDuration: 1s}\n",
                  "fleetwave.yaml:2:33: leaderElection.leaseDuration: must be at least 2s "
                  "(etcd's shortest lease with default flags)"},
        ErrorCase{"LeaseNotADuration",
                  "state: etcd://a:1/fw\nleaderElection: {leaseDuration: ten}\n",
                  "fleetwave.yaml:2:33: leaderElection.leaseDuration: invalid duration \"ten\" "
                  "(examples: 90s, 10m, 1h30m)"},
        ErrorCase{"IdentityWithASpace",
                  "state: etcd://a:1/fw\nleaderElection: {identity: 'host a'}\n",
                  "fleetwave.yaml:2:28: leaderElection.identity: \"host a\" is not an identity "
                  "(1 to 253 printable characters without spaces; default: the host name)"},
        ErrorCase{"IdentityNotAString", "state: etcd://a:1/fw\nleaderElection: {identity: [a]}\n",
                  "fleetwave.yaml:2:28: leaderElection.identity: wrong type: expected string, "
                  "got array"},
        ErrorCase{"UnknownLeaderElectionKey",
                  "state: etcd://a:1/fw\nleaderElection: {lease: 10s}\n",
                  "fleetwave.yaml:2:18: leaderElection.lease: unknown field \"lease\""},
        ErrorCase{"UnknownWorkloadKind", "workloads: {kinds: [Rollout]}\n",
                  "fleetwave.yaml:1:21: workloads.kinds[0]: unsupported value \"Rollout\" "
                  "(supported: CloneSet, "
                  "DaemonSet, Deployment, StatefulSet)"},
        ErrorCase{"DuplicateCluster", "clusters: [{name: a}, {name: a}]\n",
                  "fleetwave.yaml:1:30: clusters[1].name: duplicate cluster \"a\""},
        ErrorCase{"TlsNeedsBoth", "tls: {certFile: /c}\n",
                  "fleetwave.yaml:1:6: tls: certFile and keyFile are both required (clientCAFile "
                  "is optional)"},
        ErrorCase{"TlsFileMustBeAString", "tls: {certFile: [/c], keyFile: /k}\n",
                  "fleetwave.yaml:1:17: tls.certFile: wrong type: expected string, got array"},
        ErrorCase{"LivenessBoundOfZero", "liveness: {probeTimeout: 0s}\n",
                  "fleetwave.yaml:1:26: liveness.probeTimeout: must be at least 1s"},
        ErrorCase{"UnknownLivenessKey", "liveness: {timeout: 5s}\n",
                  "fleetwave.yaml:1:12: liveness.timeout: unknown field \"timeout\""},
        ErrorCase{"RepositoryUrlWithPassword",
                  "repositories: [{url: 'https://u:hunter2@git.example.com/'}]\n",
                  "fleetwave.yaml:1:22: repositories[0].url: must not contain a password "
                  "(\"https://u:***@git.example.com/\"): use passwordFile"},
        ErrorCase{"RepositoryUrlNotRemote", "repositories: [{url: /srv/git}]\n",
                  "fleetwave.yaml:1:22: repositories[0].url: \"/srv/git\" is not a remote "
                  "repository URL (https://, http://, ssh:// or user@host:path)"},
        ErrorCase{"RepositoryWithoutUrl", "repositories: [{username: u}]\n",
                  "fleetwave.yaml:1:16: repositories[0].url: required field is missing (a "
                  "repository URL or URL prefix)"},
        ErrorCase{"RepositorySshKeyOnHttps",
                  "repositories: [{url: 'https://h/', sshPrivateKeyFile: /k}]\n",
                  "fleetwave.yaml:1:16: repositories[0]: sshPrivateKeyFile, knownHostsFile and "
                  "insecureIgnoreHostKey are for ssh URLs"},
        ErrorCase{"RepositoryCaFileOnSsh", "repositories: [{url: 'ssh://git@h/', caFile: /c}]\n",
                  "fleetwave.yaml:1:16: repositories[0]: caFile is for https URLs"},
        ErrorCase{"RepositoryUsernameTwice",
                  "repositories: [{url: 'https://h/', username: u, usernameFile: /f}]\n",
                  "fleetwave.yaml:1:16: repositories[0]: username and usernameFile exclude each "
                  "other"},
        ErrorCase{"RepositoryEmptyPasswordFile",
                  "repositories: [{url: 'https://h/', passwordFile: ''}]\n",
                  "fleetwave.yaml:1:50: repositories[0].passwordFile: must not be empty (a "
                  "file's path)"},
        ErrorCase{"RepositoryUnknownKey", "repositories: [{url: 'https://h/', password: x}]\n",
                  "fleetwave.yaml:1:36: repositories[0].password: unknown field \"password\""},
        ErrorCase{"AnalysisPrometheusNotAUrl", "analysis: {prometheus: prometheus:9090}\n",
                  "fleetwave.yaml:1:24: analysis.prometheus: \"prometheus:9090\" is not an "
                  "http:// or https:// URL (e.g. http://prometheus:9090)"},
        ErrorCase{"AnalysisWithoutPrometheus", "analysis: {}\n",
                  "fleetwave.yaml:1:11: analysis.prometheus: required (the Prometheus base URL "
                  "analyses query, e.g. http://prometheus:9090)"},
        ErrorCase{"AnalysisUnknownKey", "analysis: {prometheus: 'http://p:9090', url: x}\n",
                  "fleetwave.yaml:1:41: analysis.url: unknown field \"url\""},
        ErrorCase{"WebhookWithoutSecret", "webhook: {}\n",
                  "fleetwave.yaml:1:10: webhook.secretFile: required (the file holding the "
                  "secret push webhooks are signed with)"},
        ErrorCase{"DuplicateRepository",
                  "repositories: [{url: 'https://h/org/'}, {url: 'https://H/org'}]\n",
                  "fleetwave.yaml:1:47: repositories[1].url: duplicate repository "
                  "\"https://H/org\""},
        ErrorCase{"AllowedHostWithPort", "listen: {allowedHosts: [a.example:80]}\n",
                  "fleetwave.yaml:1:25: listen.allowedHosts[0]: \"a.example:80\" is not a host "
                  "name (a DNS name without port, or \"*\" for any)"}),
    [](const auto& info) { return info.param.name; });

TEST(Duration, GoStyle) {
  EXPECT_EQ(ParseDurationSeconds("90s"), 90);
  EXPECT_EQ(ParseDurationSeconds("10m"), 600);
  EXPECT_EQ(ParseDurationSeconds("1h30m"), 5400);
  EXPECT_FALSE(ParseDurationSeconds(""));
  EXPECT_FALSE(ParseDurationSeconds("10"));
  EXPECT_FALSE(ParseDurationSeconds("5d"));
  EXPECT_FALSE(ParseDurationSeconds("m10"));
}

TEST(Duration, OverflowIsInvalid) {
  EXPECT_FALSE(ParseDurationSeconds("99999999999999999999s"));
  EXPECT_FALSE(ParseDurationSeconds("9999999999999999h"));
  EXPECT_EQ(ParseDurationSeconds("1000000h"), 3600000000LL);
}

}  // namespace
}  // namespace fleetwave::engine
