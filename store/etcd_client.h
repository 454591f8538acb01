// etcd v3's JSON gateway (POST /v3/kv/range, /v3/kv/txn, ... with base64 keys and values) over
// libcurl, for EtcdStore and `fleetwave migrate-state`. Kept inside store/ so no other layer
// sees etcd or HTTP.
//
// Endpoints: one is current; a call that cannot connect to it (refused, unresolvable, connect
// timeout) tries the next, so nothing was sent and retrying is safe for every call. A failure
// after the request was sent is retried on the next endpoint only for `idempotent` calls
// (reads); a write is then reported as failed (kIo) - etcd may or may not have applied it, so
// the caller must not count it as acknowledged - and the next call starts at the next endpoint.
// Messages name the endpoint and etcd's own error text, never credentials.
//
// Thread-safety: Call may be called from any thread at once; curl handles are pooled (one per
// concurrent caller, reused so connections stay open). Calls block (bounded by the timeouts).
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/etcd_url.h"
#include "store/store.h"

namespace fleetwave::store {

struct EtcdClientOptions {
  long connect_timeout_ms = 2000;
  // etcd answers a write within its own request timeout (about 7 s, longer while it elects a
  // leader); past this a call fails with kIo.
  long request_timeout_ms = 15000;
};

struct EtcdReply {
  Status status;  // kIo: transport or etcd error; the message names the endpoint
  nlohmann::json body;
  bool ok() const { return status.ok(); }
};

std::string Base64Encode(const std::string& data);
bool Base64Decode(const std::string& text, std::string* out);
// The end of the key range holding every key that starts with `prefix` (etcd's range_end).
std::string PrefixRangeEnd(const std::string& prefix);
// A gateway int64 ("12" or 12; absent = 0).
int64_t JsonInt(const nlohmann::json& obj, const char* field);

class EtcdClient {
 public:
  EtcdClient(EtcdTarget target, EtcdTlsFiles tls, EtcdClientOptions options = {});
  ~EtcdClient();
  EtcdClient(const EtcdClient&) = delete;
  EtcdClient& operator=(const EtcdClient&) = delete;

  // POSTs `request` to `path` ("/v3/kv/range").
  EtcdReply Call(const std::string& path, const nlohmann::json& request, bool idempotent);

  // A streaming call (/v3/watch) on the current endpoint: POSTs `request` and hands each JSON
  // object the gateway streams (one per line) to `on_message`, until the stream ends or fails,
  // or `stop` returns true (asked about once a second, so a Stop of the caller is bounded).
  // Returns why it ended; a failure moves the next call to the next endpoint. No timeout but
  // the connect timeout: a dead connection is found by TCP keepalive.
  Status Stream(const std::string& path, const nlohmann::json& request,
                const std::function<void(const nlohmann::json&)>& on_message,
                const std::function<bool()>& stop);

  const EtcdTarget& target() const { return target_; }
  // "etcd://a:1,b:2/prefix" as configured, for messages.
  std::string Describe() const;

 private:
  struct Attempt {
    bool connected = false;  // the request may have reached etcd
    EtcdReply reply;
  };
  Attempt Once(void* curl, const std::string& endpoint, const std::string& path,
               const std::string& body);
  void* TakeHandle();
  void ReturnHandle(void* handle);

  const EtcdTarget target_;
  const EtcdTlsFiles tls_;
  const EtcdClientOptions options_;
  std::atomic<size_t> current_{0};
  std::mutex mu_;
  std::vector<void*> idle_;  // CURL*
};

}  // namespace fleetwave::store
