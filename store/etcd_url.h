// The `state:` URL of the etcd backend: etcd://HOST:PORT[,HOST:PORT...]/PREFIX, or etcds://
// for TLS (certificates from fleetwave.yaml's `etcd: {caFile, certFile, keyFile}`). Every
// fleetwave key lives under PREFIX, so one etcd cluster can hold other data beside it.
// Pure parsing; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "store/store.h"

namespace fleetwave::store {

// Client certificates and the CA for etcds:// (paths; empty = not used).
struct EtcdTlsFiles {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
};

struct EtcdTarget {
  bool tls = false;
  std::vector<std::string> endpoints;  // "host:port", in the URL's order
  std::string prefix;                  // "/fleetwave": a leading '/', no trailing '/'
};

struct EtcdUrlResult {
  Status status;  // kInvalid naming the bad part of the URL
  EtcdTarget target;
  bool ok() const { return status.ok(); }
};

// Whether `url` names the etcd backend at all (etcd:// or etcds://).
bool IsEtcdUrl(const std::string& url);
EtcdUrlResult ParseEtcdUrl(const std::string& url);

}  // namespace fleetwave::store
