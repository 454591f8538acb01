// The `state:` URL of the etcd backend: etcd://HOST:PORT[,HOST:PORT...]/PREFIX, or etcds://
// for TLS (certificates from fleetwave.yaml's `etcd: {caFile, certFile, keyFile}`). Every
// fleetwave key lives under PREFIX, so one etcd cluster can hold other data beside it.
// Pure parsing, shared by the config check (config.cc) and the store (store/etcd_store.cc), so
// `fleetwave validate` and `fleetwave run` judge a URL the same way. Thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fleetwave::engine {

struct EtcdUrl {
  bool tls = false;
  std::vector<std::string> endpoints;  // "host:port", in the URL's order
  std::string prefix;                  // "/fleetwave": a leading '/', no trailing '/'
};

// Whether `url` names the etcd backend at all (etcd:// or etcds://).
bool IsEtcdUrl(const std::string& url);
// `url` for messages: credentials (user:password@) shown as ***@.
std::string ShownUrl(const std::string& url);
// nullopt when `url` is well formed (then `out` is set); otherwise what is wrong with it
// ("endpoint \"h\" is not HOST:PORT").
std::optional<std::string> ParseEtcdUrl(const std::string& url, EtcdUrl* out);
// What every message about a bad etcd URL ends with.
inline constexpr const char* kEtcdUrlForm =
    "etcd://HOST:PORT[,HOST:PORT...]/PREFIX, or etcds:// for TLS";

}  // namespace fleetwave::engine
