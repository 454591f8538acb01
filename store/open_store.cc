// The `state:` URL's scheme picks the backend.
#include <string>

#include "store/etcd_store.h"
#include "store/etcd_url.h"
#include "store/sqlite_store.h"

namespace fleetwave::store {

OpenResult OpenStore(const std::string& state_url, const OpenOptions& options) {
  static const std::string kSqlite = "sqlite://";
  if (state_url.compare(0, kSqlite.size(), kSqlite) == 0 && state_url.size() > kSqlite.size()) {
    return OpenSqliteStore(state_url.substr(kSqlite.size()), options);
  }
  if (IsEtcdUrl(state_url)) return OpenEtcdStore(state_url, options);
  OpenResult out;
  out.status = {
      Code::kInvalid,
      "state: unsupported URL \"" + state_url +
          "\" (supported: sqlite:///path/state.db, etcd://HOST:PORT[,HOST:PORT...]/PREFIX, "
          "etcds://...)"};
  return out;
}

}  // namespace fleetwave::store
