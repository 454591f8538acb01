#include "store/etcd_leader.h"

#include <string>
#include <utility>

#include "store/etcd_store.h"

namespace fleetwave::store {

using nlohmann::json;

EtcdLeader::EtcdLeader(std::unique_ptr<EtcdClient> client, std::string identity,
                       int64_t ttl_seconds)
    : client_(std::move(client)), identity_(std::move(identity)), ttl_(ttl_seconds) {}

Campaign EtcdLeader::Run() {
  Campaign out;
  const EtcdLayout layout{client_->target().prefix};
  // A standby campaigns again and again: its lease must still be alive for the put.
  if (Status ignored; lease_ != 0 && !KeepAlive(&ignored)) lease_ = 0;
  if (lease_ == 0) {
    EtcdReply granted = client_->Call("/v3/lease/grant", {{"TTL", std::to_string(ttl_)}}, false);
    if (!granted.ok()) {
      out.status = {Code::kIo, "leader: cannot grant a lease: " + granted.status.message};
      return out;
    }
    lease_ = JsonInt(granted.body, "ID");
  }
  const std::string key = Base64Encode(layout.Leader());
  json txn = {
      {"compare",
       {{{"key", key}, {"result", "EQUAL"}, {"target", "CREATE"}, {"create_revision", "0"}}}},
      {"success",
       {{{"request_put",
          {{"key", key}, {"value", Base64Encode(identity_)}, {"lease", std::to_string(lease_)}}}}}},
      {"failure", {{{"request_range", {{"key", key}}}}}}};
  EtcdReply r = client_->Call("/v3/kv/txn", txn, false);
  if (!r.ok()) {
    out.status = {Code::kIo, "leader: cannot campaign: " + r.status.message};
    return out;
  }
  if (r.body.value("succeeded", false)) {
    out.leader = true;
    out.holder = identity_;
    out.term = JsonInt(r.body["header"], "revision");
    return out;
  }
  const json& responses = r.body["responses"];
  if (responses.is_array() && !responses.empty()) {
    const json& kvs = responses[0]["response_range"]["kvs"];
    if (kvs.is_array() && !kvs.empty()) {
      Base64Decode(kvs[0].value("value", ""), &out.holder);
      // Our own key, held by our live lease: a leader that campaigns again still leads.
      if (out.holder == identity_ && JsonInt(kvs[0], "lease") == lease_) {
        out.leader = true;
        out.term = JsonInt(kvs[0], "create_revision");
      }
    }
  }
  return out;
}

bool EtcdLeader::KeepAlive(Status* why) {
  EtcdReply r = client_->Call("/v3/lease/keepalive", {{"ID", std::to_string(lease_)}}, false);
  if (!r.ok()) {
    *why = {Code::kIo, "leader: cannot renew the lease: " + r.status.message};
    return false;
  }
  const auto result = r.body.find("result");
  if (result == r.body.end() || JsonInt(*result, "TTL") <= 0) {
    *why = {Code::kConflict, "leader: the lease expired"};
    return false;
  }
  return true;
}

Status EtcdLeader::Resign() {
  EtcdReply r = client_->Call("/v3/lease/revoke", {{"ID", std::to_string(lease_)}}, false);
  lease_ = 0;
  if (!r.ok()) return {Code::kIo, "leader: cannot revoke the lease: " + r.status.message};
  return {};
}

}  // namespace fleetwave::store
