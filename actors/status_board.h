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
//  - the state store's health: while the store cannot be used, readiness is false with its
//    error and the store's database is listed with the files, its error as the file's, so the
//    API's `errors` says why (store/store_health.h);
//  - the fleet view derived from them (engine/appset/app_query.h,
//  engine/appset/appset_summary_state.h): per
//    Application a small typed row (set, cluster, step, display status, health, sync, labels)
//    and per set a summary (counts per step, a heat strip, the apps needing attention), kept
//    current on every publish of the set, so a page or CLI at 20,000 apps reads kilobytes;
//  - a sequence number that grows on every change;
//  - a change feed (change_feed.h) of the collections the API lists: every object added,
//    modified (its JSON differs from the last published) or deleted, for the ?watch=1 streams,
//    bounded per collection by bytes.
//
// Cost follows what changed (status_board_set.cc, status_board_views.cc): a set's JSON is kept
// in parts, its status.applicationStatus entries each a snapshot reused while equal, and the
// whole JSON is assembled only when a reader asks for it (once per version, then cached); a
// publish that changes k apps (their Applications or entries) re-derives k rows and updates the
// summary's counters, strips and attention list by taking each old row out and putting the new
// one in: O(k log n) past one pass over the incoming pointers and entries. A change of the
// set's rollout facts (current step, deadline, skipped apps) re-derives every row.
//
// Thread-safety: every method may be called from any thread. Snapshots are immutable JSON
// values behind shared pointers: a publish swaps pointers under a short lock (publishing one set
// touches only that set's entries, whatever the total number of Applications), and a reader
// copies pointers under the lock and serialises (or assembles a set's JSON) after releasing it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "actors/change_feed.h"
#include "actors/publish_origin.h"
#include "engine/appset/app_query.h"
#include "engine/appset/appset_summary_state.h"
#include "engine/appset/board_apps.h"
#include "engine/daemon_status.h"
#include "engine/yaml_json.h"

namespace fleetwave::actors {

struct ClusterStatus {
  std::string name;
  std::string server;
  bool up = false;      // the last request or watch succeeded
  bool synced = false;  // every watch listed at least once
};

// The JSON a cluster has in the API's list and watch: {"name", "server", "up", "synced"}.
engine::Json ClusterJson(const ClusterStatus& cluster);

// Whether the daemon is ready, and why not (engine::ReadinessOf decides what is served).
using Readiness = engine::DaemonReadiness;

class StatusBoard {
 public:
  using JsonPtr = std::shared_ptr<const engine::Json>;

  // The watch collections (ChangeFeed): each list endpoint's name.
  static constexpr const char* kAppSets = "applicationsets";
  static constexpr const char* kApplications = "applications";
  static constexpr const char* kClusters = "clusters";
  static constexpr const char* kWorkloads = "workloads";
  static constexpr const char* kRows = "rows";            // one engine::AppRowJson per app
  static constexpr const char* kSummaries = "summaries";  // one engine::SummaryJson per set
  static constexpr const char* kCollections[] = {kAppSets,   kApplications, kClusters,
                                                 kWorkloads, kRows,         kSummaries};
  // How many apps a set's summary lists by name (the rest are counted): engine::BoardSummaryOf.
  static constexpr size_t kSummaryAttention = engine::kBoardAttentionRows;

  // `feed_bytes` bounds each collection's ring of recent changes by their size (how far a
  // watcher may lag: an ApplicationSet's JSON carries every app's status entry, a megabyte at
  // 2,000 apps, so its ring keeps a few dozen of those and thousands of an Application's), and
  // `feed_capacity` by their number. A watcher further behind relists, as the CLI and the web
  // view do whenever a stream ends.
  explicit StatusBoard(size_t feed_capacity = 16384,
                       size_t feed_bytes = ChangeFeed::kDefaultByteBudget)
      : feed_(feed_capacity, {}, feed_bytes) {}
  StatusBoard(const StatusBoard&) = delete;
  StatusBoard& operator=(const StatusBoard&) = delete;

  // Replaces the set's JSON and all of its Applications (name -> Argo Application object).
  // Applications the set published before and not now are removed. An Application name another
  // set published moves to this set (names are unique across sets; the last publisher wins).
  //
  // Cost follows what changed: each Application is compared once with the one published, and
  // only a different one is copied into a new snapshot and recorded in the feed; an equal one
  // costs no allocation (StatusBoardTest.RepublishingEqualResultKeepsSnapshots). The lock is
  // held to read the set's current pointers and to swap the changed ones, never while JSON is
  // compared or copied.
  void PublishAppSet(const std::string& name, const engine::Json& appset,
                     std::map<std::string, engine::Json> applications);
  // The same for one reconcile's result as the engine returns it: Argo Applications named by
  // their metadata.name (ones without a name are skipped), sorted by name
  // (engine::AppSetReconcileResult::applications); unsorted input is sorted first, and of
  // duplicate names the last wins.
  void PublishReconcile(const std::string& name, const engine::Json& appset,
                        std::vector<engine::Json> applications);
  // The same with shared Applications, which become the snapshots as they are: one that is the
  // snapshot already published costs a pointer comparison
  // (StatusBoardTest.RepublishingTheSamePointersComparesNoJson).
  // `origin` (may be null): which entries of the set's status changed since that publisher's
  // previous publish; when this board took that publish, only those entries are compared
  // (StatusBoardTest.OriginHintsPublishAsFullComparisons).
  void PublishReconcile(const std::string& name, const engine::Json& appset,
                        std::vector<JsonPtr> applications, const PublishOrigin* origin = nullptr);
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
  // The state store's problem (nullopt: it works). While set, readiness() is false with
  // "the state store cannot be used: <error>" whatever SetReady said, and Files() lists
  // `database` (its path) with the error.
  void SetStoreProblem(const std::string& database, std::optional<std::string> error);
  // A stored record that cannot be used (a set's, `where` = "<database>:<key prefix>"): listed
  // in Files() with the error while set; readiness is not affected (only that set is held).
  void SetStoredRecordProblem(const std::string& where, std::optional<std::string> error);

  // A workload's progress-deadline state (workload_actor.h, WorkloadItem), keyed by its
  // "cluster", "namespace", "kind" and "name" fields; Workloads() lists them in that order.
  void PublishWorkload(engine::Json workload);
  void RemoveWorkload(const std::string& cluster, const std::string& ns, const std::string& kind,
                      const std::string& name);
  void RemoveWorkloadsOf(const std::string& cluster);  // the cluster left the configuration
  std::vector<JsonPtr> Workloads() const;

  // A row as the fleet view filters it, with the JSON its lists and watches serve.
  struct Row {
    std::shared_ptr<const engine::AppRow> row;
    JsonPtr json;
  };
  // Every app's row, sorted by name; with a set name, only that set's.
  std::vector<Row> Rows() const;
  std::vector<Row> RowsOf(const std::string& appset) const;
  JsonPtr Summary(const std::string& appset) const;
  std::vector<JsonPtr> Summaries() const;

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
  // Every input file with its last error, and the state database while it cannot be used.
  std::map<std::string, std::optional<std::string>> Files() const;
  Readiness readiness() const;
  // Grows by at least one on every change; never decreases.
  uint64_t sequence() const;

  // A watch collection's items as its list serves them (sorted by name) and the feed version
  // they are current at: the changes after `*version` (feed().Next) follow on exactly. nullopt
  // for a name that is not a collection.
  // A set's item is assembled when first read (FeedObject).
  std::optional<std::vector<FeedObject>> Snapshot(const std::string& collection,
                                                  uint64_t* version) const;
  const ChangeFeed& feed() const { return feed_; }

 private:
  struct AppEntry {
    std::string appset;
    JsonPtr json;
  };
  // A set's Applications, with a version that changes whenever any of them changes (whoever
  // changes it: its own publish, another set taking a name, PublishApplication, RemoveAppSet).
  // Versions come from one counter, so a recreated set never repeats an old one. A publish
  // compares its apps outside the lock and trusts that comparison only if the version it read
  // is still current.
  struct SetApps {
    std::map<std::string, JsonPtr, std::less<>> apps;  // the same pointers as apps_
    uint64_t version = 0;
    // The Applications the last PublishReconcile of shared pointers handed over (each named,
    // in strict name order) and the version it left: while `version` is still that, an equal
    // pointer at the same position is an app whose snapshot is current.
    std::vector<JsonPtr> last_input;
    uint64_t last_input_version = 0;
  };
  // One incoming Application: its name (a map key, or its JSON's metadata.name) and its JSON,
  // which the publish moves into a snapshot when it changed.
  struct Incoming {
    std::string_view name;
    engine::Json* json;  // moved into a snapshot when changed; null with `shared`
    bool name_in_json;   // `name` points into `*json` (re-pointed after the move)
    JsonPtr shared;      // the snapshot itself, when the publisher shares it
    const engine::Json& content() const { return shared ? *shared : *json; }
  };

  // A set's JSON as published, in parts (status_board_set.cc): `head` is the JSON without
  // status.applicationStatus and `entries` that array, each entry a snapshot that the next
  // publish reuses while equal; `full` assembles the JSON when a reader first asks.
  struct SetJson {
    JsonPtr head;
    bool has_list = false;  // status.applicationStatus was an array (not in `head`)
    std::shared_ptr<const std::vector<JsonPtr>> entries;
    size_t bytes = 0;  // ApproximateJsonBytes of the whole
    std::shared_ptr<const LazyJson> full;
  };
  using SetJsonPtr = std::shared_ptr<const SetJson>;
  // What a publish changed in a set's JSON (SetJsonOf).
  struct SetDiff {
    SetJsonPtr next;  // null: equal to the one published
    bool head_changed = false;
    // Entries compared in place (the list kept its shape): each changed one's app, the entry
    // before and after. When the shape changed (`reshaped`), every app of either list is
    // touched instead.
    struct Entry {
      std::string app;
      JsonPtr before, after;
    };
    std::vector<Entry> entries;
    bool reshaped = false;
  };
  // Compares `appset` with `before` (may be null) part by part: O(entries) small comparisons,
  // a copy only of what differs. Takes no lock.
  // With `changed` (positions, ascending): only those entries may differ from `before`'s, and
  // the others are reused without a comparison, when the list kept its length.
  static SetDiff SetJsonOf(const SetJsonPtr& before, const engine::Json& appset,
                           const std::vector<size_t>* changed = nullptr);

  // A set's fleet view: its rollout facts, each app's entry, the rows' summary and its JSON.
  struct SetView {
    engine::RowFacts facts;
    bool has_facts = false;
    std::map<std::string, JsonPtr, std::less<>> entry_of;  // app -> its entry (last of dups)
    engine::SummaryState summary;
    std::shared_ptr<const engine::AppSetSummary> published;  // what `summaries_` serves
  };

  // PublishReconcile's: sorts `apps` by name, the last of equal names winning, then publishes.
  void PublishIncoming(const std::string& name, const engine::Json& appset,
                       std::vector<Incoming> apps, const PublishOrigin* origin = nullptr);
  // PublishAppSet/PublishReconcile (takes mu_). REQUIRES: `apps` sorted by name, unique.
  // `partial`: `apps` are only the set's changed apps, against its apps at that version (the
  // others stay, none goes); false, changing nothing, when the set's apps are no longer at it.
  // `input`: the pointers handed over, kept for the next PublishReconcile to compare with.
  // `origin`: as PublishReconcile's.
  bool PublishSorted(const std::string& name, const engine::Json& appset,
                     std::vector<Incoming> apps, const uint64_t* partial = nullptr,
                     std::vector<JsonPtr>* input = nullptr, const PublishOrigin* origin = nullptr);
  // Makes `json` the app's snapshot, owned by `appset`. REQUIRES: mu_ held, the app not owned
  // by another set (DropAppLocked first).
  void SetAppLocked(const std::string& appset, std::string_view app, JsonPtr json);
  void DropAppLocked(std::string_view app);
  // Records the change from `before` to `after` (either may be null) in the feed: ADDED,
  // DELETED, MODIFIED when the JSON differs, nothing when it is equal (a reconcile that changed
  // nothing costs watchers nothing). REQUIRES: mu_ held.
  using WorkloadKey = std::tuple<std::string, std::string, std::string, std::string>;
  // A workload's name in the feed: "cluster/namespace/kind/name".
  static std::string WorkloadName(const WorkloadKey& key);
  void RecordLocked(const char* collection, const std::string& name, const JsonPtr& before,
                    const JsonPtr& after);
  // Makes `diff` the set's JSON and records it. REQUIRES: mu_ held, diff.next not null.
  void SetAppSetLocked(const std::string& name, const SetDiff& diff);
  // Brings the set's rows and summary up to date with what is published now
  // (status_board_views.cc): re-derives the rows of the `touched` apps and of the apps whose
  // entries `set` (the set's new JSON, if it changed) changed, or every row of the set when its
  // rollout facts changed, and updates the summary with the rows that changed. Drops the
  // views of a set that is gone. REQUIRES: mu_ held.
  void UpdateViewsLocked(const std::string& appset, const std::vector<std::string>& touched,
                         const SetDiff* set);
  // Drops the set's rows and summary (the set is gone). REQUIRES: mu_ held.
  void DropViewsLocked(const std::string& appset);

  mutable std::mutex mu_;
  std::map<std::string, SetJsonPtr> appsets_;
  // The publish each set's JSON came from last: (PublishOrigin::source, seq), (0, 0) for one
  // without an origin. A publish whose origin follows it may name its changed entries.
  std::map<std::string, std::pair<uint64_t, uint64_t>> appset_origin_;
  std::map<std::string, AppEntry, std::less<>> apps_;  // app name -> owner + JSON
  std::map<std::string, SetApps> set_apps_;            // appset -> its apps
  uint64_t last_set_version_ = 0;
  std::map<std::string, ClusterStatus> clusters_;
  std::map<std::string, std::optional<std::string>> files_;  // file -> last error
  // (cluster, namespace, kind, name) -> the workload's deadline state
  std::map<std::tuple<std::string, std::string, std::string, std::string>, JsonPtr> workloads_;
  Readiness readiness_{false, "starting"};
  std::string store_database_;
  std::optional<std::string> store_problem_;
  std::map<std::string, std::string> record_problems_;     // where -> error
  std::map<std::string, Row, std::less<>> rows_;           // app name -> its row
  std::map<std::string, std::set<std::string>> set_rows_;  // appset -> its rows' names
  std::map<std::string, FeedObject> summaries_;            // appset -> its summary's JSON
  std::map<std::string, SetView> views_;                   // appset -> its fleet view
  uint64_t sequence_ = 0;
  ChangeFeed feed_;
};

}  // namespace fleetwave::actors
