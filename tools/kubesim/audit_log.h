// The audit trail behind GET /kubesim/audit: one record per mutating request a client sent
// to a simulated cluster (create, update, patch, delete, deletecollection), with what a test
// needs to check order and concurrency from outside — time, cluster, verb, resource,
// namespace, name, fieldManager, generation after the write, a hash of the request body and
// the object's fleetwave.io/* annotations. Bounded ring. Not thread-safe: io thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include <nlohmann/json.hpp>

#include "tools/kubesim/clock.h"

namespace fleetwave::kubesim {

struct AuditRecord {
  std::uint64_t seq = 0;
  TimePoint time{};
  std::string cluster;
  std::string target;  // the request target exactly as received: path and query, undecoded
  std::string verb;
  std::string resource;  // plural, "/status" appended for the subresource
  std::string ns;
  std::string name;
  std::string field_manager;
  std::string user_agent;     // the request's User-Agent: tells two writers of one manager apart
  nlohmann::json generation;  // null when the kind has none or the write failed
  std::string body_hash;      // "sha256:<hex>"
  nlohmann::json annotations = nlohmann::json::object();
  int code = 0;
  bool dry_run = false;
};

class AuditLog {
 public:
  explicit AuditLog(std::size_t capacity = 100000) : capacity_(capacity) {}
  void Record(AuditRecord r);
  // JSON lines for `cluster` ("" = all) after `since` (sequence number or RFC 3339 time).
  std::string Lines(const std::string& cluster, const std::string& since) const;
  std::size_t size() const { return records_.size(); }

 private:
  std::size_t capacity_;
  std::uint64_t next_seq_ = 1;
  std::deque<AuditRecord> records_;
};

// "sha256:" + the hex SHA-256 of `body`.
std::string BodyHash(const std::string& body);

}  // namespace fleetwave::kubesim
