// The daemon's published state, as the HTTP API serves it: the actors write snapshots here after
// every reconcile, and the API reads only this board, never the actors (a busy or restarting
// actor never delays or fails a GET).
//
// What it holds:
//  - per ApplicationSet a JSON object (metadata.name, a spec summary, Argo-shaped status:
//    applicationStatus, conditions, rollout) and the Argo-shaped Applications it generated;
//    an Application belongs to exactly one set, and publishing a set replaces that set's
//    previous Applications (ones no longer published disappear);
//  - per cluster its name, server and whether it is up and its watches have synced;
//  - per input file its last load error ("file:line:col: message") or none;
//  - readiness (config and store loaded) with the reason while not ready;
//  - a sequence number that grows on every change (for ?watch streams later).
//
// Thread-safety: every method may be called from any thread. Snapshots are immutable JSON
// values behind shared pointers: a publish swaps pointers under a short lock (publishing one set
// touches only that set's entries, whatever the total number of Applications), and a reader
// copies pointers under the lock and serialises after releasing it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/yaml_json.h"

namespace fleetwave::actors {

struct ClusterStatus {
  std::string name;
  std::string server;
  bool up = false;      // the last request or watch succeeded
  bool synced = false;  // every watch listed at least once
};

struct Readiness {
  bool ready = false;
  std::string reason;  // why not ready; empty when ready
};

class StatusBoard {
 public:
  using JsonPtr = std::shared_ptr<const engine::Json>;

  StatusBoard() = default;
  StatusBoard(const StatusBoard&) = delete;
  StatusBoard& operator=(const StatusBoard&) = delete;

  // Replaces the set's JSON and all of its Applications (name -> Argo Application object).
  // Applications the set published before and not now are removed. An Application name another
  // set published moves to this set (names are unique across sets; the last publisher wins).
  void PublishAppSet(const std::string& name, engine::Json appset,
                     std::map<std::string, engine::Json> applications);
  // Replaces or adds one Application of a set, leaving the set's others as they are.
  void PublishApplication(const std::string& appset, const std::string& name,
                          engine::Json application);
  // Removes the set and every Application it owns (its file was deleted).
  void RemoveAppSet(const std::string& name);

  void PublishCluster(ClusterStatus cluster);
  void RemoveCluster(const std::string& name);

  // The file's last load outcome: an error text, or nullopt when it loaded cleanly.
  void SetFileStatus(const std::string& file, std::optional<std::string> error);
  void RemoveFile(const std::string& file);

  void SetReady(bool ready, std::string reason = "");

  // Readers. Lists are sorted by name; a missing object is nullptr / nullopt.
  JsonPtr AppSet(const std::string& name) const;
  std::vector<JsonPtr> AppSets() const;
  JsonPtr Application(const std::string& name) const;
  std::vector<JsonPtr> Applications() const;
  std::vector<JsonPtr> ApplicationsOf(const std::string& appset) const;
  // The set that owns the Application, if any (the daemon routes commands with it).
  std::optional<std::string> ApplicationOwner(const std::string& name) const;
  std::optional<ClusterStatus> Cluster(const std::string& name) const;
  std::vector<ClusterStatus> Clusters() const;
  std::map<std::string, std::optional<std::string>> Files() const;
  Readiness readiness() const;
  // Grows by at least one on every change; never decreases.
  uint64_t sequence() const;

 private:
  struct AppEntry {
    std::string appset;
    JsonPtr json;
  };

  void DropAppLocked(const std::string& app);

  mutable std::mutex mu_;
  std::map<std::string, JsonPtr> appsets_;
  std::map<std::string, AppEntry> apps_;                   // app name -> owner + JSON
  std::map<std::string, std::set<std::string>> set_apps_;  // appset -> its app names
  std::map<std::string, ClusterStatus> clusters_;
  std::map<std::string, std::optional<std::string>> files_;  // file -> last error
  Readiness readiness_{false, "starting"};
  uint64_t sequence_ = 0;
};

}  // namespace fleetwave::actors
