#include "store/etcd_store.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "store/failpoint.h"
#include "store/group_commit.h"
#include "store/state_identity.h"

namespace fleetwave::store {

namespace {

using nlohmann::json;

json Range(const std::string& key, const std::string& range_end = "") {
  json r = {{"key", Base64Encode(key)}};
  if (!range_end.empty()) r["range_end"] = Base64Encode(range_end);
  return r;
}

// The kvs of a range response (absent when empty, as proto3 JSON omits it).
const json& Kvs(const json& range_response) {
  static const json kEmpty = json::array();
  const auto it = range_response.find("kvs");
  return it != range_response.end() && it->is_array() ? *it : kEmpty;
}

// The i-th txn response's range part.
const json& TxnRange(const json& txn, size_t i) {
  static const json kEmpty = json::object();
  const auto it = txn.find("responses");
  if (it == txn.end() || !it->is_array() || i >= it->size()) return kEmpty;
  const json& r = (*it)[i];
  const auto rr = r.find("response_range");
  return rr != r.end() ? *rr : kEmpty;
}

bool Succeeded(const json& txn) {
  const auto it = txn.find("succeeded");
  return it != txn.end() && it->is_boolean() && it->get<bool>();
}

int64_t HeaderRevision(const json& body) {
  const auto it = body.find("header");
  return it != body.end() ? JsonInt(*it, "revision") : 0;
}

std::string KvString(const json& kv, const char* field) {
  std::string out;
  const auto it = kv.find(field);
  if (it != kv.end() && it->is_string()) Base64Decode(it->get<std::string>(), &out);
  return out;
}

}  // namespace

EtcdStore::EtcdStore(std::unique_ptr<EtcdClient> client, int64_t base, EtcdLimits limits)
    : client_(std::move(client)), layout_{client_->target().prefix}, base_(base), limits_(limits) {}

GetResult EtcdStore::Get(const std::string& key) {
  GetResult out;
  EtcdReply r = client_->Call("/v3/kv/range", Range(layout_.Data(key)), true);
  if (!r.ok()) {
    out.status = r.status;
    return out;
  }
  const json& kvs = Kvs(r.body);
  if (kvs.empty()) {
    out.status = {Code::kNotFound, key + ": not found"};
    return out;
  }
  out.entry = {key, KvString(kvs[0], "value"), JsonInt(kvs[0], "mod_revision") - base_};
  return out;
}

ListResult EtcdStore::List(const std::string& prefix) {
  ListResult out;
  // One read-only txn: the keys and the store revision at one etcd revision.
  const std::string from = layout_.DataPrefix() + prefix;
  json txn = {{"success",
               {{{"request_range", Range(from, PrefixRangeEnd(from))}},
                {{"request_range", Range(layout_.RevisionKey())}}}}};
  EtcdReply r = client_->Call("/v3/kv/txn", txn, true);
  if (!r.ok()) {
    out.status = r.status;
    return out;
  }
  const size_t skip = layout_.DataPrefix().size();
  for (const json& kv : Kvs(TxnRange(r.body, 0))) {
    const std::string key = KvString(kv, "key");
    if (key.size() < skip) continue;
    out.entries.push_back(
        {key.substr(skip), KvString(kv, "value"), JsonInt(kv, "mod_revision") - base_});
  }
  const json& rev = Kvs(TxnRange(r.body, 1));
  out.revision = rev.empty() ? 0 : JsonInt(rev[0], "mod_revision") - base_;
  return out;
}

int64_t EtcdStore::Revision() {
  EtcdReply r = client_->Call("/v3/kv/range", Range(layout_.RevisionKey()), true);
  if (!r.ok()) return -1;
  const json& kvs = Kvs(r.body);
  return kvs.empty() ? 0 : JsonInt(kvs[0], "mod_revision") - base_;
}

CommitCounters EtcdStore::Counters() {
  CommitCounters c;
  c.batches = batches_.load();
  c.transactions = c.batches;  // one txn per batch: never grouped (each needs its own revision)
  return c;
}

WriteResult EtcdStore::Commit(const std::vector<Op>& ops) {
  WriteResult out;
  for (const Op& op : ops) {
    if (op.key.empty()) {
      out.status = {Code::kInvalid, "empty key"};
      return out;
    }
  }
  if (ops.empty()) {
    out.revision = Revision();
    if (out.revision < 0) out.status = {Code::kIo, client_->Describe() + ": cannot be read"};
    return out;
  }
  // etcd refuses a txn that writes one key twice: the last operation on a key is what a
  // one-by-one application leaves, so only it is sent. Comparisons all stay (they see the
  // state before the batch either way).
  std::map<std::string, const Op*> last;
  std::vector<std::string> order;
  size_t bytes = 0;
  for (const Op& op : ops) {
    if (last.emplace(op.key, &op).second) order.push_back(op.key);
    last[op.key] = &op;
  }
  for (const auto& [key, op] : last) bytes += layout_.Data(key).size() + op->value.size() + 32;
  if (order.size() + 1 > limits_.max_txn_ops) {
    out.status = {Code::kInvalid,
                  client_->Describe() + ": a batch of " + std::to_string(order.size()) +
                      " keys is more than one etcd transaction holds (" +
                      std::to_string(limits_.max_txn_ops - 1) + " keys: etcd's --max-txn-ops " +
                      std::to_string(limits_.max_txn_ops) +
                      " less the store's revision key); a batch is atomic, so it is not split"};
    return out;
  }
  if (bytes + 4096 > limits_.max_request_bytes) {
    out.status = {Code::kInvalid,
                  client_->Describe() + ": a batch of " + std::to_string(bytes) +
                      " bytes is more than one etcd request holds (etcd's --max-request-bytes " +
                      std::to_string(limits_.max_request_bytes) +
                      "); a batch is atomic, so it is not split"};
    return out;
  }
  json compare = json::array();
  json failure = json::array();
  std::set<std::pair<std::string, int64_t>> compared;
  std::vector<std::string> read_back;
  for (const Op& op : ops) {
    if (!op.expected_revision) continue;
    if (!compared.insert({op.key, *op.expected_revision}).second) continue;
    const std::string k = Base64Encode(layout_.Data(op.key));
    if (*op.expected_revision == 0) {
      compare.push_back(
          {{"key", k}, {"result", "EQUAL"}, {"target", "CREATE"}, {"create_revision", "0"}});
    } else {
      compare.push_back({{"key", k},
                         {"result", "EQUAL"},
                         {"target", "MOD"},
                         {"mod_revision", std::to_string(*op.expected_revision + base_)}});
    }
    if (std::find(read_back.begin(), read_back.end(), op.key) == read_back.end()) {
      read_back.push_back(op.key);
      failure.push_back({{"request_range", Range(layout_.Data(op.key))}});
    }
  }
  if (compare.size() > limits_.max_txn_ops) {
    out.status = {Code::kInvalid, client_->Describe() + ": a batch of " +
                                      std::to_string(compare.size()) +
                                      " comparisons is more than one etcd transaction holds (" +
                                      std::to_string(limits_.max_txn_ops) + ", --max-txn-ops)"};
    return out;
  }
  const int64_t fence = fence_.load();
  if (fence == kNoTerm) {
    out.conflict_key = "<leadership>";
    out.status = {Code::kConflict, client_->Describe() +
                                       ": this instance does not lead (a standby writes "
                                       "nothing); nothing of the batch was written"};
    return out;
  }
  if (fence > 0) {
    const std::string k = Base64Encode(layout_.Leader());
    compare.push_back({{"key", k},
                       {"result", "EQUAL"},
                       {"target", "CREATE"},
                       {"create_revision", std::to_string(fence)}});
    failure.push_back({{"request_range", Range(layout_.Leader())}});
  }
  json success = json::array();
  for (const std::string& key : order) {
    const Op& op = *last[key];
    if (op.kind == Op::Kind::kPut) {
      success.push_back(
          {{"request_put",
            {{"key", Base64Encode(layout_.Data(key))}, {"value", Base64Encode(op.value)}}}});
    } else {
      success.push_back({{"request_delete_range", Range(layout_.Data(key))}});
    }
  }
  // Every batch puts the revision key, so a batch of deletes of absent keys still gets its own
  // revision (etcd does not advance for a txn that changes nothing) and Revision() is exact.
  success.push_back(
      {{"request_put", {{"key", Base64Encode(layout_.RevisionKey())}, {"value", ""}}}});
  json txn = {{"compare", compare}, {"success", success}, {"failure", failure}};
  Failpoint(kFailBeforeCommit);  // the txn built, not sent
  EtcdReply r = client_->Call("/v3/kv/txn", txn, false);
  if (!r.ok()) {
    // The cluster's flags are lower than `etcd:` says: refused before anything was applied.
    if (r.status.message.find("too many operations in txn request") != std::string::npos ||
        r.status.message.find("request is too large") != std::string::npos) {
      out.status = {Code::kInvalid, r.status.message +
                                        " (the batch was refused: etcd.maxTxnOps and "
                                        "etcd.maxRequestBytes must not exceed the cluster's "
                                        "--max-txn-ops and --max-request-bytes)"};
      return out;
    }
    out.status = {Code::kIo, r.status.message + " (the batch may or may not be committed)"};
    return out;
  }
  Failpoint(kFailAfterCommit);  // etcd answered, nothing acknowledged yet
  if (Succeeded(r.body)) {
    out.revision = HeaderRevision(r.body) - base_;
    batches_.fetch_add(1);
    return out;
  }
  // Which comparison failed, from the keys as the failed txn saw them. The fence first: a
  // batch of a former leader is refused for that, whatever its own compares.
  if (fence > 0) {
    const json& kvs = Kvs(TxnRange(r.body, read_back.size()));
    const int64_t term = kvs.empty() ? 0 : JsonInt(kvs[0], "create_revision");
    if (term != fence) {
      out.conflict_key = "<leadership>";
      out.status = {
          Code::kConflict,
          client_->Describe() + ": not the leader any more (leadership term " +
              std::to_string(fence) + " ended; " +
              (kvs.empty() ? std::string("nobody leads") : "led by " + KvString(kvs[0], "value")) +
              "); nothing of the batch was written"};
      return out;
    }
  }
  std::map<std::string, int64_t> current;
  for (size_t i = 0; i < read_back.size(); ++i) {
    const json& kvs = Kvs(TxnRange(r.body, i));
    current[read_back[i]] = kvs.empty() ? 0 : JsonInt(kvs[0], "mod_revision") - base_;
  }
  for (const Op& op : ops) {
    if (!op.expected_revision) continue;
    const int64_t now = current[op.key];
    if (now != *op.expected_revision) return RevisionConflict(op.key, now, *op.expected_revision);
  }
  out.status = {Code::kConflict, client_->Describe() + ": a comparison failed"};
  return out;
}

OpenResult OpenEtcdStore(const std::string& url, const OpenOptions& options,
                         const EtcdClientOptions& client_options) {
  OpenResult out;
  EtcdUrlResult parsed = ParseEtcdUrl(url);
  if (!parsed.ok()) {
    out.status = parsed.status;
    return out;
  }
  auto client = std::make_unique<EtcdClient>(parsed.target, options.etcd_tls, client_options);
  const EtcdLayout layout{parsed.target.prefix};
  const std::string where = client->Describe();
  out.database = where;
  EtcdReply marker = client->Call("/v3/kv/range", Range(layout.Marker()), true);
  if (!marker.ok()) {
    out.status = {Code::kIo, "state: " + where + ": cannot be read: " + marker.status.message};
    return out;
  }
  int64_t base = 0;
  const json& kvs = Kvs(marker.body);
  if (!kvs.empty()) {
    const json value = json::parse(KvString(kvs[0], "value"), nullptr, false);
    if (!value.is_object() || !value.contains("identity")) {
      out.status = {Code::kIdentity, "state: " + where + ": the marker " + layout.Marker() +
                                         " is not fleetwave's ({\"identity\": ...})"};
      return out;
    }
    if (!value.value("complete", false)) {
      out.status = {Code::kIdentity,
                    "state: " + where +
                        ": an unfinished `fleetwave migrate-state` left this prefix half "
                        "copied; run it again with --force"};
      return out;
    }
    base = JsonInt(kvs[0], "create_revision");
  } else {
    // A prefix with keys but no marker is not one fleetwave made: refused, never adopted (its
    // keys' revisions would be older than the store's revision 0).
    json count = Range(layout.prefix + "/", PrefixRangeEnd(layout.prefix + "/"));
    count["count_only"] = true;
    EtcdReply counted = client->Call("/v3/kv/range", count, true);
    if (!counted.ok()) {
      out.status = {Code::kIo, "state: " + where + ": cannot be read: " + counted.status.message};
      return out;
    }
    if (const int64_t n = JsonInt(counted.body, "count"); n > 0) {
      out.status = {Code::kIdentity, "state: " + where + ": the prefix holds " + std::to_string(n) +
                                         " keys but no marker " + layout.Marker() +
                                         "; it was not written by fleetwave (or by an "
                                         "interrupted migrate-state: run it again with --force)"};
      return out;
    }
    const std::string identity = NewIdentity();
    const std::string marker_key = Base64Encode(layout.Marker());
    json txn = {
        {"compare",
         {{{"key", marker_key},
           {"result", "EQUAL"},
           {"target", "CREATE"},
           {"create_revision", "0"}}}},
        {"success",
         {{{"request_put",
            {{"key", marker_key},
             {"value", Base64Encode(json{{"identity", identity}, {"complete", true}}.dump())}}}}}},
        {"failure", {{{"request_range", Range(layout.Marker())}}}}};
    EtcdReply created = client->Call("/v3/kv/txn", txn, false);
    if (!created.ok()) {
      out.status = {Code::kIo,
                    "state: " + where + ": cannot create its marker: " + created.status.message};
      return out;
    }
    if (Succeeded(created.body)) {
      base = HeaderRevision(created.body);
      out.notes.push_back(where + ": new state prefix (identity " + identity + ", marker " +
                          layout.Marker() + ")");
    } else {
      const json& theirs = Kvs(TxnRange(created.body, 0));
      base = theirs.empty() ? 0 : JsonInt(theirs[0], "create_revision");
    }
  }
  out.store = std::make_unique<EtcdStore>(std::move(client), base, options.etcd_limits);
  return out;
}

}  // namespace fleetwave::store
