// The etcd backend's URL for the store: engine/etcd_url.h's parse, as a Status naming the bad
// part, plus the TLS files of fleetwave.yaml's `etcd:` block. Thread-safe.
#pragma once

#include <string>
#include <vector>

#include "engine/etcd_url.h"
#include "store/store.h"

namespace fleetwave::store {

// Client certificates and the CA for etcds:// (paths; empty = not used).
struct EtcdTlsFiles {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
};

// What the etcd cluster accepts in one request, as its flags are set: etcd 3.4's defaults are
// --max-txn-ops 128 and --max-request-bytes 1.5 MiB. fleetwave.yaml's `etcd: {maxTxnOps,
// maxRequestBytes}` must match the cluster's flags (a bigger value than the cluster's makes
// etcd refuse the batch instead of fleetwave).
struct EtcdLimits {
  size_t max_txn_ops = 128;
  size_t max_request_bytes = 1536 * 1024;
};

using EtcdTarget = engine::EtcdUrl;

struct EtcdUrlResult {
  Status status;  // kInvalid naming the bad part of the URL (never its credentials)
  EtcdTarget target;
  bool ok() const { return status.ok(); }
};

inline bool IsEtcdUrl(const std::string& url) { return engine::IsEtcdUrl(url); }
EtcdUrlResult ParseEtcdUrl(const std::string& url);

}  // namespace fleetwave::store
