// Fault injection per simulated cluster, as set through POST /kubesim/faults: refuse
// connections (down), accept and never answer (hang), added latency, a rate of 500/503
// errors, a rate of 429s with Retry-After, delayed watch events, plus the one-shot actions
// dropWatches and compactHistory that the control plane performs when they are posted.
// FaultTable only decides; the server carries the decision out on the wire.
// Not thread-safe: io thread only.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

namespace fleetwave::kubesim {

struct ClusterFaults {
  bool down = false;
  bool hang = false;
  int latency_ms = 0;
  double error_rate = 0;
  int error_code = 500;
  double throttle_rate = 0;
  int retry_after_seconds = 1;
  int watch_delay_ms = 0;
};

// What the server does with one request of a faulty cluster.
struct FaultAction {
  enum Kind { kNone, kReset, kHang, kRespond } kind = kNone;
  int latency_ms = 0;   // wait this long first (any kind)
  int status = 0;       // kRespond
  std::string body;     // kRespond: a kind: Status object
  int retry_after = 0;  // kRespond with 429: the Retry-After header (seconds)
};

class FaultTable {
 public:
  explicit FaultTable(std::uint64_t seed = 1) : rng_(seed) {}
  // Merges the fields of `body` into `cluster`'s faults. Returns an error message for a
  // malformed body ("" on success). One-shot fields are not stored here.
  std::string Merge(int cluster, const nlohmann::json& body);
  void Clear(int cluster) { faults_.erase(cluster); }
  void ClearAll() { faults_.clear(); }
  const ClusterFaults* Find(int cluster) const;
  // Rolls the dice for one request of `cluster`.
  FaultAction Decide(int cluster);
  bool Down(int cluster) const;
  int WatchDelayMs(int cluster) const;
  nlohmann::json ToJson(int cluster) const;
  bool empty() const { return faults_.empty(); }

 private:
  std::map<int, ClusterFaults> faults_;
  std::mt19937_64 rng_;
};

}  // namespace fleetwave::kubesim
