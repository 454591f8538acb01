// An informer-like building block: list + watch one resource kind (optionally one namespace,
// label and field selectors) into a cache of *projections* — the caller-chosen fields of each
// object, not whole objects, so a cluster actor watching thousands of workloads stays small —
// with add/update/delete callbacks.
//
// Like client-go's reflector it lists, then watches from the list's resourceVersion; resumes
// a watch that ended from the last resourceVersion seen (bookmarks included); relists when
// the server says that version is gone (HTTP 410 or the 410 ERROR event); reconnects after
// errors with jittered backoff; and the client's stall detection replaces a silent watch. A
// relist diffs the fresh list against the cache and emits the adds, updates and deletes that
// were missed, so after any fault the cache equals a fresh list.
//
// Thread-safety: Start/Stop/Snapshot/Get/stats may be called from any thread. The state
// machine runs on the client's loop thread; callbacks run in order on the given executor.
// After Stop() no further callback is queued.
#pragma once

#include <any>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cluster-clients/cluster_client.h"

namespace fleetwave::clients {

struct Projection {
  std::string ns, name, uid, resource_version;
  long long generation = 0;
  Json fields;  // what the projector chose
  // What the typed projector made of the object (null without one): made once on the loop
  // thread and shared, immutable, by every copy of this projection (cache, callbacks).
  std::shared_ptr<const std::any> typed;
};

using Projector = std::function<Json(const Json& object)>;
// A projector whose result is a C++ value, handed to the callbacks without a JSON encoding;
// they read it back with std::any_cast of the type it returns.
using TypedProjector = std::function<std::any(const Json& object)>;

// A projector keeping the given JSON pointers ("/spec/replicas", "/status") in the shape of
// the original object: {"spec": {"replicas": 3}, "status": {...}}. Absent fields are left out.
Projector ProjectFields(std::vector<std::string> pointers);

struct InformerOptions {
  ResourceRef resource;
  std::string ns;  // "" = all namespaces
  std::string label_selector;
  std::string field_selector;
  Projector project;             // nullptr = metadata only
  TypedProjector project_typed;  // nullptr = none (Projection::typed null)
  int page_size = 500;
  BackoffPolicy backoff{milliseconds(500), 2.0, 0.5, seconds(30), seconds(120)};
};

struct InformerHandlers {
  std::function<void(const Projection&)> on_add;
  std::function<void(const Projection& before, const Projection& after)> on_update;
  std::function<void(const Projection&)> on_delete;
  std::function<void()> on_synced;  // after the first complete list
  // Each failed list or watch (it retries), and each object left out of the cache because
  // of its shape (a message naming the object and the field, ending in "; skipped").
  std::function<void(const Result&)> on_error;
};

struct InformerStats {
  long lists = 0;
  long watches = 0;
  long expired = 0;         // relists forced by 410
  long watch_restarts = 0;  // watches re-opened after an end or error
  long events = 0;
};

class Informer : public std::enable_shared_from_this<Informer> {
 public:
  // `executor` runs the handlers (in order); it must outlive the informer.
  static std::shared_ptr<Informer> Start(std::shared_ptr<ClusterClient> client,
                                         InformerOptions options, InformerHandlers handlers,
                                         Executor* executor);
  void Stop();

  std::vector<Projection> Snapshot() const;  // sorted by namespace/name
  std::optional<Projection> Get(const std::string& ns, const std::string& name) const;
  bool synced() const { return synced_.load(); }
  std::string resource_version() const;
  InformerStats stats() const;

 private:
  Informer(std::shared_ptr<ClusterClient> client, InformerOptions options,
           InformerHandlers handlers, Executor* executor);
  // The projection of a cluster object, or nullopt with `error` naming the bad field.
  std::optional<Projection> Project(const Json& object, std::string* error) const;
  // Runs `body` on the loop thread; an escaped exception is logged once through the client
  // and the informer retries `retry` with backoff, so a bug costs one list or watch.
  void Guarded(void (Informer::*retry)(), const std::function<void()>& body);
  void ReportSkipped(const std::string& message);
  void Relist();
  void OnList(ListResult lr);
  void StartWatch();
  void OnEvent(WatchEvent ev);
  void OnWatchEnd(Result r);
  void RetryLater(void (Informer::*step)(), const Result& why);
  void Emit(std::function<void()> fn);

  std::shared_ptr<ClusterClient> client_;
  const InformerOptions options_;
  const InformerHandlers handlers_;
  Executor* executor_;

  std::atomic<bool> stopped_{false};
  std::atomic<bool> synced_{false};
  // Loop thread.
  std::shared_ptr<WatchHandle> watch_;
  Backoff backoff_;
  TimerId retry_timer_ = 0;
  // Shared with readers.
  mutable std::mutex mu_;
  std::map<std::string, Projection> cache_;  // "ns/name"
  std::string resource_version_;
  InformerStats stats_;
};

}  // namespace fleetwave::clients
