// kubeconfig loading as kubectl does it. Several files (a KUBECONFIG-style list) merge with
// "first definition wins" per cluster, user and context name; every context becomes one
// cluster named after it. File references (certificate-authority, client-certificate,
// client-key, tokenFile, an exec command with a path separator) resolve against the file that
// defined the entry. Certificate and key files are read at load time into PEM bytes; token
// files are re-read by the credential provider at run time.
//
// Errors are issues naming the file, the position and the field (or the context) and never
// contain credentials. A malformed file never throws: a wrong type, a null or a list where a
// map belongs is an issue. A broken context is reported and skipped; the others still load.
// This is the one kubeconfig loader: `fleetwave validate` hands ClusterValues() to the engine
// and `fleetwave doctor` uses the full ClusterConfig, so both accept and reject the same
// files. Plain functions and values; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/appset/generate.h"
#include "engine/issue.h"

namespace fleetwave::clients {

// An exec credential plugin (client.authentication.k8s.io/v1 or v1beta1).
struct ExecConfig {
  std::string api_version;
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  bool provide_cluster_info = false;
  std::string interactive_mode;  // Never | IfAvailable | Always
  std::string install_hint;
  bool operator==(const ExecConfig&) const = default;
};

// Everything needed to talk to one cluster (one kubeconfig context).
struct ClusterConfig {
  std::string name;         // the context name
  std::string source_file;  // the kubeconfig file that defined the context
  std::string server;       // URL, path prefix kept, no trailing slash
  std::string ca_pem;       // certificate-authority(-data); empty = system trust
  bool insecure_skip_tls_verify = false;
  std::string proxy_url;
  std::string tls_server_name;
  std::string client_cert_pem;  // client-certificate(-data)
  std::string client_key_pem;   // client-key(-data)
  std::string token;
  std::string token_file;
  std::string username, password;
  std::optional<ExecConfig> exec;
  std::string default_namespace;
  // Whole values: the coordinator replaces a cluster's actor when any field changed.
  bool operator==(const ClusterConfig&) const = default;
};

struct KubeconfigSet {
  std::vector<ClusterConfig> clusters;  // in the order contexts were first defined
  std::string current_context;
  engine::Issues errors;              // file, position, field; "context \"<name>\": <what>"
  std::vector<std::string> warnings;  // e.g. insecure-skip-tls-verify in use
};

// Loads and merges the files in order. A missing or unparsable file is an error naming it.
KubeconfigSet LoadKubeconfigs(const std::vector<std::string>& paths);

// The loaded clusters as the engine sees them: name (the context) and server, no labels.
std::vector<engine::ClusterInfo> ClusterValues(const KubeconfigSet& set);

// Splits a KUBECONFIG value on ':' (empty entries dropped).
std::vector<std::string> SplitKubeconfigPath(const std::string& value);

}  // namespace fleetwave::clients
