#include "tools/kubesim/audit_log.h"

#include <openssl/evp.h>

#include <cstdio>

#include "tools/kubesim/controllers/event_log.h"

namespace fleetwave::kubesim {

std::string BodyHash(const std::string& body) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(body.data(), body.size(), md, &len, EVP_sha256(), nullptr);
  std::string out = "sha256:";
  char hex[3];
  for (unsigned int i = 0; i < len; ++i) {
    std::snprintf(hex, sizeof hex, "%02x", md[i]);
    out += hex;
  }
  return out;
}

void AuditLog::Record(AuditRecord r) {
  r.seq = next_seq_++;
  records_.push_back(std::move(r));
  while (records_.size() > capacity_) records_.pop_front();
}

std::string AuditLog::Lines(const std::string& cluster, const std::string& since) const {
  const SinceFilter filter = SinceFilter::Parse(since);
  std::string out;
  for (const auto& r : records_) {
    if (!cluster.empty() && r.cluster != cluster) continue;
    if (!filter.Admits(r.seq, r.time)) continue;
    nlohmann::json j = {{"seq", r.seq},
                        {"time", FormatMilliTime(r.time)},
                        {"cluster", r.cluster},
                        {"target", r.target},
                        {"verb", r.verb},
                        {"resource", r.resource},
                        {"namespace", r.ns},
                        {"name", r.name},
                        {"fieldManager", r.field_manager},
                        {"userAgent", r.user_agent},
                        {"generation", r.generation},
                        {"bodyHash", r.body_hash},
                        {"annotations", r.annotations},
                        {"code", r.code}};
    if (r.dry_run) j["dryRun"] = true;
    out += j.dump();
    out += '\n';
  }
  return out;
}

}  // namespace fleetwave::kubesim
