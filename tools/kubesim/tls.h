// Generates, at start, a throwaway certificate authority and a serving certificate it signs
// (SAN 127.0.0.1 and localhost), all in memory as PEM. Uses OpenSSL 3. Thread-compatible.
#pragma once

#include <optional>
#include <string>

namespace fleetwave::kubesim {

struct TlsMaterial {
  std::string ca_pem;
  std::string cert_pem;  // serving certificate
  std::string key_pem;   // its private key
};

std::optional<TlsMaterial> GenerateTls(std::string* error);

}  // namespace fleetwave::kubesim
