// kubesim's part-2 control plane, in one place the Simulator owns: the simulated workload
// controllers (ticked per cluster), fault injection, the audit trail of mutating requests and
// the rollout event log, plus the admin endpoints that expose them (/kubesim/faults,
// /kubesim/audit, /kubesim/events). Plain C++ without Boost, so it is testable without HTTP.
// Not thread-safe: everything runs on the simulator's io thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tools/kubesim/audit_log.h"
#include "tools/kubesim/cluster.h"
#include "tools/kubesim/controllers/controller_manager.h"
#include "tools/kubesim/controllers/event_log.h"
#include "tools/kubesim/faults.h"

namespace fleetwave::kubesim {

struct ControlOptions {
  ControllerOptions controllers;
  std::size_t audit_capacity = 100000;
  // Reads of a collection (LIST, and watches: verb "list" / "watch") are audited too, with the
  // client's User-Agent: a test tells which client listed what and when (--audit-lists).
  bool audit_lists = false;
  std::size_t event_capacity = 100000;
};

struct AdminReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

// One mutating request as the router saw it, for the audit trail.
struct AuditedRequest {
  std::string method;
  std::string target;
  std::string content_type;
  std::string body;
  std::string user_agent;
  int cluster = -1;
  int code = 0;
  std::string response_body;
  // The addressed cluster: the stored object after the write is the truth for generation and
  // annotations (a /scale or /status reply is not the object itself).
  const Cluster* cluster_ref = nullptr;
};

class ControlPlane {
 public:
  explicit ControlPlane(ControlOptions options = {});

  // One step of every simulated controller over `cluster`.
  void Tick(Cluster& cluster) { controllers_.Tick(cluster); }
  // Serves /kubesim/faults, /kubesim/audit and /kubesim/events; nullopt for other paths.
  std::optional<AdminReply> Admin(const std::string& method, const std::string& target,
                                  const std::string& body,
                                  std::vector<std::unique_ptr<Cluster>>& clusters);
  // Records `r` when it is a mutating request to a cluster (or, with audit_lists, a LIST or
  // watch of a collection).
  void Audit(const AuditedRequest& r, TimePoint now);
  // The cluster a request addresses: `bound_cluster` on a per-cluster port, else the
  // "/clusters/<name>" prefix; -1 for admin paths and unknown clusters.
  static int ClusterOf(const std::string& target, int bound_cluster, int cluster_count);

  // The server ends every open watch of a cluster through this (dropWatches, down).
  void SetWatchDropper(std::function<void(int cluster)> dropper) {
    drop_watches_ = std::move(dropper);
  }
  FaultTable& faults() { return faults_; }
  EventLog& events() { return events_; }
  AuditLog& audit() { return audit_; }
  ControllerManager& controllers() { return controllers_; }
  const ControllerManager& controllers() const { return controllers_; }

 private:
  EventLog events_;
  AuditLog audit_;
  FaultTable faults_;
  ControllerManager controllers_;
  std::function<void(int)> drop_watches_;
  bool audit_lists_ = false;
};

}  // namespace fleetwave::kubesim
