#include "store/etcd_url.h"

#include <string>

namespace fleetwave::store {

EtcdUrlResult ParseEtcdUrl(const std::string& url) {
  EtcdUrlResult out;
  if (auto wrong = engine::ParseEtcdUrl(url, &out.target)) {
    out.status = {Code::kInvalid, "state: \"" + engine::ShownUrl(url) + "\": " + *wrong +
                                      " (expected " + engine::kEtcdUrlForm + ")"};
  }
  return out;
}

}  // namespace fleetwave::store
