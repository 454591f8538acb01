#include "engine/config.h"

#include <limits>
#include <regex>
#include <set>

#include "engine/etcd_url.h"

namespace fleetwave::engine {
namespace {

std::string TypeOf(const YAML::Node& n) {
  if (n.IsMap()) return "object";
  if (n.IsSequence()) return "array";
  if (n.IsNull()) return "null";
  const Json v = YamlToJson(n);
  if (v.is_boolean()) return "boolean";
  if (v.is_number()) return "number";
  return "string";
}

class Reader {
 public:
  Reader(std::string file, Issues& issues) : file_(std::move(file)), issues_(issues) {}

  void Add(const YAML::Node& n, const std::string& path, const std::string& msg) {
    issues_.push_back({file_, PosOf(n), path, msg});
  }
  bool Is(const YAML::Node& n, const std::string& path, const std::string& want) {
    if (TypeOf(n) == want) return true;
    Add(n, path, "wrong type: expected " + want + ", got " + TypeOf(n));
    return false;
  }
  void Keys(const YAML::Node& map, const std::string& path, const std::set<std::string>& allowed) {
    for (const auto& kv : map) {
      const std::string k = kv.first.Scalar();
      if (!allowed.count(k))
        Add(kv.first, path.empty() ? k : path + "." + k, "unknown field \"" + k + "\"");
    }
  }
  void Str(const YAML::Node& n, const std::string& path, std::string& out) {
    if (n && Is(n, path, "string")) out = n.Scalar();
  }
  std::vector<std::string> StrList(const YAML::Node& n, const std::string& path) {
    std::vector<std::string> out;
    if (!Is(n, path, "array")) return out;
    for (size_t i = 0; i < n.size(); ++i) {
      if (Is(n[i], path + "[" + std::to_string(i) + "]", "string")) out.push_back(n[i].Scalar());
    }
    return out;
  }
  void Duration(const YAML::Node& n, const std::string& path, long long& out) {
    if (!n || !Is(n, path, "string")) return;
    if (auto s = ParseDurationSeconds(n.Scalar())) {
      out = *s;
    } else {
      Add(n, path, "invalid duration \"" + n.Scalar() + "\" (examples: 90s, 10m, 1h30m)");
    }
  }
  void HostPort(const YAML::Node& n, const std::string& path, std::string& out) {
    if (!n || !Is(n, path, "string")) return;
    static const std::regex re("(\\[[0-9a-fA-F:]+\\]|[A-Za-z0-9.-]+):([0-9]{1,5})");
    std::smatch m;
    const std::string v = n.Scalar();
    // The length bound comes first: libstdc++'s regex recurses once per character, and no
    // host:port is longer (a DNS name is at most 253 characters).
    if (v.size() > 300 || !std::regex_match(v, m, re) || std::stoi(m[2]) > 65535) {
      Add(n, path, "invalid address \"" + v + "\" (expected host:port, e.g. 127.0.0.1:8089)");
      return;
    }
    out = v;
  }

 private:
  std::string file_;
  Issues& issues_;
};

// ---- liveness: (issue 31) ----

void DecodeLiveness(Reader& r, const YAML::Node& l, LivenessConfig& out) {
  struct Key {
    const char* name;
    long long LivenessConfig::*field;
  };
  static const Key keys[] = {
      {"probeInterval", &LivenessConfig::probe_interval_seconds},
      {"probeTimeout", &LivenessConfig::probe_timeout_seconds},
      {"progressTimeout", &LivenessConfig::progress_timeout_seconds},
      {"maxProbeBackoff", &LivenessConfig::max_probe_backoff_seconds},
  };
  std::set<std::string> allowed;
  for (const Key& k : keys) allowed.insert(k.name);
  r.Keys(l, "liveness", allowed);
  for (const Key& k : keys) {
    const YAML::Node n = l[k.name];
    const std::string path = std::string("liveness.") + k.name;
    long long seconds = out.*k.field;
    r.Duration(n, path, seconds);
    if (n && seconds < 1) {
      r.Add(n, path, "must be at least 1s");
    } else {
      out.*k.field = seconds;
    }
  }
}

// ---- leaderElection: (issue 28) ----

// etcd 3.4 raises a lease TTL below its minimum (2 s with default flags) without saying so: a
// shorter leaseDuration would not be the one in force.
constexpr long long kMinLeaseSeconds = 2;
constexpr size_t kMaxIdentityBytes = 253;  // a DNS name, what the default (the host name) is

// `state_node`: fleetwave.yaml's state: (an etcd URL that is itself wrong is reported there).
void DecodeLeaderElection(Reader& r, const YAML::Node& l, const YAML::Node& state_node, Config& c) {
  r.Keys(l, "leaderElection", {"leaseDuration", "identity"});
  LeaderElectionConfig out;
  const YAML::Node d = l["leaseDuration"];
  long long seconds = out.lease_duration_seconds;
  r.Duration(d, "leaderElection.leaseDuration", seconds);
  if (d && seconds < kMinLeaseSeconds) {
    r.Add(d, "leaderElection.leaseDuration",
          "must be at least " + std::to_string(kMinLeaseSeconds) +
              "s (etcd's shortest lease with default flags)");
  } else {
    out.lease_duration_seconds = seconds;
  }
  if (const YAML::Node id = l["identity"]; id && r.Is(id, "leaderElection.identity", "string")) {
    const std::string& v = id.Scalar();
    bool printable = !v.empty() && v.size() <= kMaxIdentityBytes;
    for (char ch : v) printable = printable && ch > ' ' && ch < 0x7f;
    if (!printable) {
      r.Add(id, "leaderElection.identity",
            "\"" + v.substr(0, 64) + "\" is not an identity (1 to 253 printable characters " +
                "without spaces; default: the host name)");
    } else {
      out.identity = v;
    }
  }
  // Leadership is a lease in the shared etcd: a local SQLite file has no second instance.
  if (!(state_node && state_node.IsScalar() && IsEtcdUrl(state_node.Scalar()))) {
    r.Add(l, "leaderElection",
          "needs the state in etcd (state: etcd://... or etcds://...; state is \"" +
              ShownUrl(c.state) + "\")");
    return;
  }
  c.leader_election = out;
}

// ---- limits: (issue 30) ----

// "4194304", "512Ki", "4Mi", "1G": a Kubernetes quantity of bytes without fractions or
// exponents. nullopt when invalid or beyond size_t.
std::optional<std::size_t> ParseByteQuantity(const std::string& text) {
  std::size_t i = 0;
  std::size_t n = 0;
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    const std::size_t d = static_cast<std::size_t>(text[i] - '0');
    if (n > (kMax - d) / 10) return std::nullopt;
    n = n * 10 + d;
  }
  if (i == 0) return std::nullopt;
  static const std::pair<const char*, std::size_t> kUnits[] = {
      {"", 1},
      {"k", 1000},
      {"M", 1000 * 1000},
      {"G", 1000 * 1000 * 1000},
      {"T", 1000ull * 1000 * 1000 * 1000},
      {"P", 1000ull * 1000 * 1000 * 1000 * 1000},
      {"E", 1000ull * 1000 * 1000 * 1000 * 1000 * 1000},
      {"Ki", 1ull << 10},
      {"Mi", 1ull << 20},
      {"Gi", 1ull << 30},
      {"Ti", 1ull << 40},
      {"Pi", 1ull << 50},
      {"Ei", 1ull << 60}};
  const std::string suffix = text.substr(i);
  for (const auto& [unit, scale] : kUnits) {
    if (suffix != unit) continue;
    if (n > kMax / scale) return std::nullopt;
    return n * scale;
  }
  return std::nullopt;
}

// One budget: a positive integer (`sizes` also take a quantity string). A wrong type or value
// is an issue naming the key, and the default stays.
void DecodeLimit(Reader& r, const YAML::Node& n, const std::string& path, bool size,
                 std::size_t& out) {
  if (!n) return;
  const std::string type = TypeOf(n);
  if (size && type == "string") {
    const auto v = ParseByteQuantity(n.Scalar());
    if (!v) {
      std::string shown = n.Scalar().substr(0, 40);
      if (shown.size() < n.Scalar().size()) shown += "...(cut)";
      r.Add(n, path,
            "invalid size \"" + shown +
                "\" (an integer of bytes, or a quantity such as 512Ki, 4Mi, 1G)");
    } else if (*v == 0) {
      r.Add(n, path, "must be at least 1");
    } else {
      out = *v;
    }
    return;
  }
  const Json v = type == "number" ? YamlToJson(n) : Json();
  if (!v.is_number_integer()) {
    r.Add(n, path,
          "wrong type: expected " + std::string(size ? "integer or quantity string" : "integer") +
              ", got " + (type == "number" ? std::string("a fraction") : type));
    return;
  }
  if (v.is_number_unsigned() ? v.get<unsigned long long>() == 0 : v.get<long long>() < 1) {
    r.Add(n, path, "must be at least 1");
    return;
  }
  out = static_cast<std::size_t>(v.get<unsigned long long>());
}

void DecodeLimits(Reader& r, const YAML::Node& l, InputLimits& out) {
  struct Key {
    const char* name;
    bool size;
    std::size_t InputLimits::*field;
  };
  static const Key kKeys[] = {
      {"maxFileBytes", true, &InputLimits::max_file_bytes},
      {"maxAppsPerApplicationSet", false, &InputLimits::max_apps_per_appset},
      {"maxApplicationBytes", true, &InputLimits::max_application_bytes},
      {"maxRenderBytes", true, &InputLimits::max_render_bytes},
      {"maxDocumentDepth", false, &InputLimits::max_document_depth},
      {"maxTemplateDepth", false, &InputLimits::max_template_depth},
      {"maxWatchEventBytes", true, &InputLimits::max_watch_event_bytes},
      {"maxResponseBytes", true, &InputLimits::max_response_bytes},
  };
  std::set<std::string> allowed;
  for (const Key& k : kKeys) allowed.insert(k.name);
  r.Keys(l, "limits", allowed);
  for (const Key& k : kKeys) {
    DecodeLimit(r, l[k.name], std::string("limits.") + k.name, k.size, out.*k.field);
  }
}

// ---- repositories: (issue 27) ----

// Credentials per repository URL prefix. What is wrong is named with the entry's index and
// field, and a URL is only ever shown redacted (a password written into it stays out of every
// message). The secrets themselves live in files read at each connection, never here.
void DecodeRepositories(Reader& r, const YAML::Node& list, std::vector<RepositoryConfig>& out) {
  std::set<std::string> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node e = list[i];
    const std::string p = "repositories[" + std::to_string(i) + "]";
    if (!r.Is(e, p, "object")) continue;
    r.Keys(e, p,
           {"url", "username", "usernameFile", "passwordFile", "caFile", "sshPrivateKeyFile",
            "knownHostsFile", "insecureIgnoreHostKey"});
    RepositoryConfig entry;
    entry.pos = PosOf(e);
    const YAML::Node u = e["url"];
    if (!u) {
      r.Add(e, p + ".url", "required field is missing (a repository URL or URL prefix)");
      continue;
    }
    if (!r.Is(u, p + ".url", "string")) continue;
    entry.url = u.Scalar();
    const std::optional<RepoUrl> url = ParseRepoUrl(entry.url);
    if (!url) {
      r.Add(u, p + ".url",
            "\"" + RedactUrl(entry.url) +
                "\" is not a remote repository URL (https://, http://, ssh:// or user@host:path)");
      continue;
    }
    if (url->has_password) {
      r.Add(u, p + ".url",
            "must not contain a password (\"" + RedactUrl(entry.url) + "\"): use passwordFile");
      continue;
    }
    if (!seen.insert(NormalizeRepoUrl(entry.url)).second) {
      r.Add(u, p + ".url", "duplicate repository \"" + entry.url + "\"");
      continue;
    }
    r.Str(e["username"], p + ".username", entry.username);
    r.Str(e["usernameFile"], p + ".usernameFile", entry.username_file);
    r.Str(e["passwordFile"], p + ".passwordFile", entry.password_file);
    r.Str(e["caFile"], p + ".caFile", entry.ca_file);
    r.Str(e["sshPrivateKeyFile"], p + ".sshPrivateKeyFile", entry.ssh_private_key_file);
    r.Str(e["knownHostsFile"], p + ".knownHostsFile", entry.known_hosts_file);
    if (const YAML::Node k = e["insecureIgnoreHostKey"];
        k && r.Is(k, p + ".insecureIgnoreHostKey", "boolean")) {
      entry.insecure_ignore_host_key = YamlToJson(k).get<bool>();
    }
    for (const char* field :
         {"usernameFile", "passwordFile", "caFile", "sshPrivateKeyFile", "knownHostsFile"}) {
      const YAML::Node f = e[field];
      if (f && f.IsScalar() && f.Scalar().empty()) {
        r.Add(f, p + "." + field, "must not be empty (a file's path)");
      }
    }
    if (e["username"] && e["usernameFile"]) {
      r.Add(e, p, "username and usernameFile exclude each other");
    }
    const bool ssh = url->scheme == "ssh";
    if (!ssh && (e["sshPrivateKeyFile"] || e["knownHostsFile"] || e["insecureIgnoreHostKey"])) {
      r.Add(e, p, "sshPrivateKeyFile, knownHostsFile and insecureIgnoreHostKey are for ssh URLs");
    }
    if (ssh && e["caFile"]) r.Add(e, p, "caFile is for https URLs");
    out.push_back(std::move(entry));
  }
}

}  // namespace

std::optional<long long> ParseDurationSeconds(const std::string& text) {
  static const std::regex part("([0-9]+)(h|m|s)");
  if (text.empty()) return std::nullopt;
  long long total = 0;
  auto it = std::sregex_iterator(text.begin(), text.end(), part);
  size_t consumed = 0;
  for (; it != std::sregex_iterator(); ++it) {
    if (static_cast<size_t>(it->position()) != consumed) return std::nullopt;
    consumed += it->length();
    // Digits are summed by hand: std::stoll throws on overflow, and a config value must never
    // end the process (Duration.OverflowIsInvalid).
    const std::string digits = (*it)[1];
    const char unit = (*it)[2].str()[0];
    const long long scale = unit == 'h' ? 3600 : unit == 'm' ? 60 : 1;
    const long long limit = std::numeric_limits<long long>::max() / 3600;
    long long n = 0;
    for (char d : digits) {
      if (n > (limit - (d - '0')) / 10) return std::nullopt;
      n = n * 10 + (d - '0');
    }
    if (total > limit - n) return std::nullopt;
    total += n * scale;
  }
  if (consumed != text.size()) return std::nullopt;
  return total;
}

DecodedConfig DecodeConfig(const YAML::Node& doc, const std::string& file) {
  DecodedConfig out;
  Reader r(file, out.issues);
  Config& c = out.config;
  if (!doc || doc.IsNull()) return out;  // an empty file: every default
  if (!r.Is(doc, "", "object")) return out;
  r.Keys(doc, "", {"kubeconfig",  "clusters", "applicationSets", "progressiveSyncs",
                   "state",       "listen",   "apiTokenFile",    "apiReadTokenFile",
                   "tls",         "git",      "repositories",    "webhook",
                   "deletion",    "analysis", "workloads",       "liveness",
                   "limits",      "etcd",     "cacheDir",        "leaderElection",
                   "clusterHttp2"});
  if (const YAML::Node k = doc["kubeconfig"]) {
    if (k.IsSequence()) {
      c.kubeconfig = r.StrList(k, "kubeconfig");
    } else if (r.Is(k, "kubeconfig", "string")) {
      c.kubeconfig = {k.Scalar()};
    }
  }
  if (const YAML::Node cl = doc["clusters"]; cl && r.Is(cl, "clusters", "array")) {
    std::set<std::string> seen;
    for (size_t i = 0; i < cl.size(); ++i) {
      const std::string p = "clusters[" + std::to_string(i) + "]";
      if (!r.Is(cl[i], p, "object")) continue;
      r.Keys(cl[i], p, {"name", "labels"});
      ClusterLabels entry;
      entry.pos = PosOf(cl[i]);
      if (!cl[i]["name"]) {
        r.Add(cl[i], p + ".name", "required field is missing");
        continue;
      }
      r.Str(cl[i]["name"], p + ".name", entry.name);
      if (!seen.insert(entry.name).second)
        r.Add(cl[i]["name"], p + ".name", "duplicate cluster \"" + entry.name + "\"");
      if (const YAML::Node l = cl[i]["labels"]; l && r.Is(l, p + ".labels", "object")) {
        for (const auto& kv : l) {
          const std::string lp = p + ".labels." + kv.first.Scalar();
          if (kv.second.IsScalar()) {
            entry.labels[kv.first.Scalar()] = kv.second.Scalar();
          } else {
            r.Is(kv.second, lp, "string");
          }
        }
      }
      c.clusters.push_back(std::move(entry));
    }
  }
  r.Str(doc["applicationSets"], "applicationSets", c.application_sets);
  if (const YAML::Node p = doc["progressiveSyncs"]; p && r.Is(p, "progressiveSyncs", "boolean")) {
    c.progressive_syncs = YamlToJson(p).get<bool>();
  }
  if (const YAML::Node h = doc["clusterHttp2"]; h && r.Is(h, "clusterHttp2", "boolean")) {
    c.cluster_http2 = YamlToJson(h).get<bool>();
  }
  if (const YAML::Node s = doc["state"]; s && r.Is(s, "state", "string")) {
    EtcdUrl etcd;
    if (IsEtcdUrl(s.Scalar())) {
      if (auto wrong = ParseEtcdUrl(s.Scalar(), &etcd)) {
        r.Add(s, "state",
              "\"" + ShownUrl(s.Scalar()) + "\": " + *wrong + " (expected " + kEtcdUrlForm + ")");
      } else {
        c.state = s.Scalar();
      }
    } else if (s.Scalar().rfind("sqlite://", 0) != 0) {
      r.Add(s, "state",
            "unsupported value \"" + ShownUrl(s.Scalar()) +
                "\" (supported: sqlite:///path/to/state.db, " + kEtcdUrlForm + ")");
    } else {
      c.state = s.Scalar();
    }
  }
  if (const YAML::Node e = doc["etcd"]; e && r.Is(e, "etcd", "object")) {
    r.Keys(e, "etcd", {"caFile", "certFile", "keyFile", "maxTxnOps", "maxRequestBytes"});
    DecodeLimit(r, e["maxTxnOps"], "etcd.maxTxnOps", false, c.etcd.max_txn_ops);
    DecodeLimit(r, e["maxRequestBytes"], "etcd.maxRequestBytes", true, c.etcd.max_request_bytes);
    if (c.etcd.max_txn_ops < 2) r.Add(e["maxTxnOps"], "etcd.maxTxnOps", "must be at least 2");
    r.Str(e["caFile"], "etcd.caFile", c.etcd.ca_file);
    r.Str(e["certFile"], "etcd.certFile", c.etcd.cert_file);
    r.Str(e["keyFile"], "etcd.keyFile", c.etcd.key_file);
    if (c.etcd.cert_file.empty() != c.etcd.key_file.empty()) {
      r.Add(e, "etcd", "certFile and keyFile go together (a client certificate and its key)");
    }
    const bool tls_files =
        !c.etcd.ca_file.empty() || !c.etcd.cert_file.empty() || !c.etcd.key_file.empty();
    if (tls_files && c.state.rfind("etcds://", 0) != 0) {
      r.Add(e, "etcd",
            "TLS files are used only with state: etcds://... (state is \"" + ShownUrl(c.state) +
                "\")");
    }
  }
  if (const YAML::Node l = doc["leaderElection"]; l && r.Is(l, "leaderElection", "object")) {
    DecodeLeaderElection(r, l, doc["state"], c);
  }
  r.Str(doc["cacheDir"], "cacheDir", c.cache_dir);
  if (const YAML::Node l = doc["listen"]; l && r.Is(l, "listen", "object")) {
    r.Keys(l, "listen", {"api", "metrics", "allowedHosts"});
    r.HostPort(l["api"], "listen.api", c.listen_api);
    r.HostPort(l["metrics"], "listen.metrics", c.listen_metrics);
    if (const YAML::Node h = l["allowedHosts"]) {
      const std::vector<std::string> hosts = r.StrList(h, "listen.allowedHosts");
      for (size_t i = 0; i < hosts.size(); ++i) {
        const std::string& name = hosts[i];
        bool ok = !name.empty() && name.size() <= 253;
        for (char ch : name) {
          ok = ok && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                      (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == '*');
        }
        if (!ok || (name.find('*') != std::string::npos && name != "*")) {
          r.Add(h[i], "listen.allowedHosts[" + std::to_string(i) + "]",
                "\"" + name + "\" is not a host name (a DNS name without port, or \"*\" for any)");
        } else {
          c.listen_allowed_hosts.push_back(name);
        }
      }
    }
  }
  r.Str(doc["apiTokenFile"], "apiTokenFile", c.api_token_file);
  std::string read_token_file;
  r.Str(doc["apiReadTokenFile"], "apiReadTokenFile", read_token_file);
  if (!read_token_file.empty()) c.api_read_token_file = read_token_file;
  if (const YAML::Node t = doc["tls"]; t && r.Is(t, "tls", "object")) {
    r.Keys(t, "tls", {"certFile", "keyFile", "clientCAFile"});
    TlsConfig tls;
    r.Str(t["certFile"], "tls.certFile", tls.cert_file);
    r.Str(t["keyFile"], "tls.keyFile", tls.key_file);
    r.Str(t["clientCAFile"], "tls.clientCAFile", tls.client_ca_file);
    if (!t["certFile"] || !t["keyFile"]) {
      r.Add(t, "tls", "certFile and keyFile are both required (clientCAFile is optional)");
    } else if (!tls.cert_file.empty() && !tls.key_file.empty()) {
      c.tls = tls;
    }
    for (const char* field : {"certFile", "keyFile", "clientCAFile"}) {
      const YAML::Node f = t[field];
      if (f && f.IsScalar() && f.Scalar().empty()) {
        r.Add(f, std::string("tls.") + field, "must not be empty (a PEM file's path)");
      }
    }
  }
  if (const YAML::Node g = doc["git"]; g && r.Is(g, "git", "object")) {
    r.Keys(g, "git", {"pollInterval"});
    r.Duration(g["pollInterval"], "git.pollInterval", c.git_poll_interval_seconds);
  }
  if (const YAML::Node rs = doc["repositories"]; rs && r.Is(rs, "repositories", "array")) {
    DecodeRepositories(r, rs, c.repositories);
  }
  if (const YAML::Node w = doc["webhook"]; w && r.Is(w, "webhook", "object")) {
    r.Keys(w, "webhook", {"secretFile"});
    r.Str(w["secretFile"], "webhook.secretFile", c.webhook_secret_file);
    if (!w["secretFile"] || c.webhook_secret_file.empty()) {
      r.Add(w, "webhook.secretFile",
            "required (the file holding the secret push webhooks are signed with)");
    }
  }
  if (const YAML::Node a = doc["analysis"]; a && r.Is(a, "analysis", "object")) {
    r.Keys(a, "analysis", {"prometheus"});
    std::string url;
    r.Str(a["prometheus"], "analysis.prometheus", url);
    if (!a["prometheus"] || url.empty()) {
      r.Add(a, "analysis.prometheus",
            "required (the Prometheus base URL analyses query, e.g. http://prometheus:9090)");
    } else if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
      r.Add(a["prometheus"], "analysis.prometheus",
            "\"" + url + "\" is not an http:// or https:// URL (e.g. http://prometheus:9090)");
    } else {
      c.analysis_prometheus = url;
    }
  }
  if (const YAML::Node d = doc["deletion"]; d && r.Is(d, "deletion", "object")) {
    r.Keys(d, "deletion", {"gracePeriod"});
    r.Duration(d["gracePeriod"], "deletion.gracePeriod", c.deletion_grace_period_seconds);
  }
  if (const YAML::Node w = doc["workloads"]; w && r.Is(w, "workloads", "object")) {
    r.Keys(w, "workloads", {"kinds", "namespaces"});
    if (w["kinds"]) {
      static const std::set<std::string> kinds = {"CloneSet", "Deployment", "StatefulSet",
                                                  "DaemonSet"};
      auto list = r.StrList(w["kinds"], "workloads.kinds");
      for (size_t i = 0; i < list.size(); ++i) {
        if (!kinds.count(list[i])) {
          r.Add(w["kinds"][i], "workloads.kinds[" + std::to_string(i) + "]",
                "unsupported value \"" + list[i] +
                    "\" (supported: CloneSet, DaemonSet, Deployment, StatefulSet)");
        }
      }
      c.workload_kinds = list;
    }
    if (w["namespaces"]) c.workload_namespaces = r.StrList(w["namespaces"], "workloads.namespaces");
  }
  if (const YAML::Node l = doc["liveness"]; l && r.Is(l, "liveness", "object")) {
    DecodeLiveness(r, l, c.liveness);
  }
  if (const YAML::Node l = doc["limits"]; l && r.Is(l, "limits", "object")) {
    DecodeLimits(r, l, c.limits);
  }
  return out;
}

std::vector<ClusterInfo> LabelClusters(std::vector<ClusterInfo> clusters, const Config& config,
                                       const std::string& config_file, Issues* issues) {
  for (size_t i = 0; i < config.clusters.size(); ++i) {
    const ClusterLabels& l = config.clusters[i];
    bool found = false;
    for (ClusterInfo& c : clusters) {
      if (c.name == l.name) {
        c.labels = l.labels;
        found = true;
      }
    }
    if (!found) {
      issues->push_back({config_file, l.pos, "clusters[" + std::to_string(i) + "].name",
                         "no kubeconfig context named \"" + l.name + "\""});
    }
  }
  return clusters;
}

}  // namespace fleetwave::engine
