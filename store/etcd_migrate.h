// `fleetwave migrate-state`: copies every key and value of a store into an etcd prefix, for an
// installation moving from its SQLite file to etcd (docs/state-store.md, "Moving to etcd").
//
// A copy is bigger than one etcd txn may be (etcd_store.h, limits), so it is written in chunks,
// bracketed by the prefix's marker: first {"complete": false}, then the chunks, then
// {"complete": true}. EtcdStore refuses a prefix whose marker says incomplete, so a copy that
// was interrupted is never taken for a state; running it again with `force` starts over.
// Revisions are not copied (etcd assigns them; nothing stores a revision inside a value).
// Thread-compatible; blocks on the network.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "store/etcd_client.h"
#include "store/etcd_url.h"
#include "store/store.h"

namespace fleetwave::store {

struct MigrateResult {
  Status status;  // kInvalid: bad URL or a non-empty target without force; kIo: etcd failed
  size_t keys = 0;
  size_t bytes = 0;         // keys and values
  size_t transactions = 0;  // data chunks written
  size_t replaced = 0;      // keys the target prefix held before (force only)
  bool ok() const { return status.ok(); }
};

// Writes `entries` under the etcd prefix `url`. A prefix that holds anything is refused unless
// `force`, which deletes it first.
MigrateResult CopyIntoEtcd(const std::vector<Entry>& entries, const std::string& url,
                           const EtcdTlsFiles& tls, bool force,
                           const EtcdClientOptions& client_options = {});

}  // namespace fleetwave::store
