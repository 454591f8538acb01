#include "store/etcd_migrate.h"

#include <string>
#include <vector>

#include "store/etcd_store.h"
#include "store/state_identity.h"

namespace fleetwave::store {

namespace {

using nlohmann::json;

// Well inside etcd's request limit, so a chunk's JSON and base64 overhead never matter.
constexpr size_t kChunkBytes = 512 * 1024;

json Put(const std::string& key, const std::string& value) {
  return {{"request_put", {{"key", Base64Encode(key)}, {"value", Base64Encode(value)}}}};
}

}  // namespace

MigrateResult CopyIntoEtcd(const std::vector<Entry>& entries, const std::string& url,
                           const EtcdTlsFiles& tls, bool force,
                           const EtcdClientOptions& client_options) {
  MigrateResult out;
  EtcdUrlResult parsed = ParseEtcdUrl(url);
  if (!parsed.ok()) {
    out.status = parsed.status;
    return out;
  }
  EtcdClient client(parsed.target, tls, client_options);
  const EtcdLayout layout{parsed.target.prefix};
  const std::string where = client.Describe();
  const std::string all = layout.prefix + "/";
  json count = {{"key", Base64Encode(all)},
                {"range_end", Base64Encode(PrefixRangeEnd(all))},
                {"count_only", true}};
  EtcdReply counted = client.Call("/v3/kv/range", count, true);
  if (!counted.ok()) {
    out.status = {Code::kIo, where + ": cannot be read: " + counted.status.message};
    return out;
  }
  const int64_t existing = JsonInt(counted.body, "count");
  if (existing > 0 && !force) {
    out.status = {Code::kInvalid, where + ": the prefix already holds " + std::to_string(existing) +
                                      " keys; nothing copied (--force deletes them first)"};
    return out;
  }
  if (existing > 0) {
    EtcdReply deleted = client.Call(
        "/v3/kv/deleterange",
        {{"key", Base64Encode(all)}, {"range_end", Base64Encode(PrefixRangeEnd(all))}}, false);
    if (!deleted.ok()) {
      out.status = {Code::kIo, where + ": cannot empty the prefix: " + deleted.status.message};
      return out;
    }
    out.replaced = static_cast<size_t>(existing);
  }
  const std::string identity = NewIdentity();
  auto marker = [&](bool complete) {
    return Put(layout.Marker(), json{{"identity", identity}, {"complete", complete}}.dump());
  };
  auto write = [&](const json& success, const std::string& what) {
    EtcdReply r = client.Call("/v3/kv/txn", {{"success", success}}, false);
    if (!r.ok()) out.status = {Code::kIo, where + ": " + what + ": " + r.status.message};
    return r.ok();
  };
  if (!write(json::array({marker(false)}), "cannot write the marker")) return out;
  json chunk = json::array();
  size_t chunk_bytes = 0;
  auto flush = [&]() {
    if (chunk.empty()) return true;
    chunk.push_back(Put(layout.RevisionKey(), ""));
    const bool ok =
        write(chunk, "cannot write keys " + std::to_string(out.keys - (chunk.size() - 1) + 1) +
                         ".." + std::to_string(out.keys));
    chunk = json::array();
    chunk_bytes = 0;
    ++out.transactions;
    return ok;
  };
  for (const Entry& e : entries) {
    const size_t size = e.key.size() + e.value.size();
    if (size > kEtcdMaxRequestBytes - 4096) {
      out.status = {Code::kInvalid, where + ": " + e.key + " is " + std::to_string(size) +
                                        " bytes, more than one etcd request holds (" +
                                        std::to_string(kEtcdMaxRequestBytes) + ")"};
      return out;
    }
    if (chunk.size() + 1 > kEtcdMaxBatchKeys || chunk_bytes + size > kChunkBytes) {
      if (!flush()) return out;
    }
    chunk.push_back(Put(layout.Data(e.key), e.value));
    chunk_bytes += size;
    ++out.keys;
    out.bytes += size;
  }
  if (!flush()) return out;
  write(json::array({marker(true)}), "cannot complete the marker");
  return out;
}

}  // namespace fleetwave::store
