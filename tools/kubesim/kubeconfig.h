// Renders the kubeconfig kubesim writes for its clients: one cluster, user and context per
// simulated cluster, bearer tokens, and the CA data when serving TLS. Pure, plus an atomic
// file write.
#pragma once

#include <string>
#include <vector>

namespace fleetwave::kubesim {

struct KubeconfigEntry {
  std::string name;    // "sim-3": the cluster, user and context name
  std::string server;  // "https://127.0.0.1:PORT/clusters/sim-3"
  std::string token;
};

std::string RenderKubeconfig(const std::vector<KubeconfigEntry>& entries,
                             const std::string& ca_pem);
// Writes via a temporary file and rename, so readers never see a partial kubeconfig.
bool WriteFileAtomically(const std::string& path, const std::string& content, std::string* error);

}  // namespace fleetwave::kubesim
