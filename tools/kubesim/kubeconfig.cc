#include "tools/kubesim/kubeconfig.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "tools/kubesim/encoding.h"

namespace fleetwave::kubesim {

std::string RenderKubeconfig(const std::vector<KubeconfigEntry>& entries,
                             const std::string& ca_pem) {
  std::string out = "apiVersion: v1\nkind: Config\npreferences: {}\n";
  out += "current-context: " + (entries.empty() ? std::string() : entries[0].name) + "\n";
  out += "clusters:\n";
  for (const auto& e : entries) {
    out += "- name: " + e.name + "\n  cluster:\n    server: " + e.server + "\n";
    if (!ca_pem.empty()) out += "    certificate-authority-data: " + Base64Encode(ca_pem) + "\n";
  }
  out += "users:\n";
  for (const auto& e : entries)
    out += "- name: " + e.name + "\n  user:\n    token: " + e.token + "\n";
  out += "contexts:\n";
  for (const auto& e : entries)
    out += "- name: " + e.name + "\n  context:\n    cluster: " + e.name + "\n    user: " + e.name +
           "\n    namespace: default\n";
  return out;
}

bool WriteFileAtomically(const std::string& path, const std::string& content, std::string* error) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) {
      *error = "cannot write " + tmp + ": " + std::strerror(errno);
      return false;
    }
    f << content;
    if (!f.flush()) {
      *error = "cannot write " + tmp;
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    *error = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace fleetwave::kubesim
