// What the daemon remembers, named: a thin typed layer over `Store` that owns the key layout
// and stores values as JSON text. Callers never spell a key. The layout (every <segment> is
// escaped by keys::Segment, so names containing '/' cannot collide):
//
//   appsets/<appset>/status/<app>        the app's status entry
//   appsets/<appset>/pin/<app>           the app's pinned revision
//   appsets/<appset>/applied/<app>       the spec hash last applied to the app
//   appsets/<appset>/spec/<app>          the Application spec fleetwave last wrote for the app
//   appsets/<appset>/operation/<app>     the app's current or last sync operation
//   appsets/<appset>/conditions          the set's conditions
//   appsets/<appset>/rollout             status.rollout (step clock, pause, skips)
//   deletions/<appset>/set               a pending deletion of the whole set and its phase
//   deletions/<appset>/app/<app>         a pending deletion of one app and its phase
//   workloads/<cluster>/<ns>/<kind>/<name>  a workload's deadline condition and its revision
//   inputs/<file path>                   the last good copy of an input file (raw text)
//   watches/<cluster>                    the kinds the leader watches on the cluster (a list
//                                        of "apiVersion Kind"), so a standby watches them too
//
// Reading: LoadAppSet reads one set's records in one listing, at one store revision, so an
// appset actor recomputes from one consistent view. Writing: StateBatch collects puts and
// deletes (optionally compare-and-set on a record's revision) and Commit applies them
// atomically; the record enabling an action is committed, durably, before Commit returns, so
// "commit, then act" is the whole write-ahead protocol.
//
// Losing the database: every reader treats a missing record as "never happened" (no pin, no
// operation, no pending deletion), which is the consistent empty state the daemon rebuilds from
// the clusters. Nothing here infers a deletion from a missing record.
//
// Thread-safety: as the underlying Store (any thread, blocking). StateBatch is a plain value.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/store.h"

namespace fleetwave::store {

using Json = nlohmann::json;

namespace keys {
// Escapes one key segment: '%', '/' and control bytes become %XX.
std::string Segment(const std::string& name);
std::string Unsegment(const std::string& segment);

std::string AppSetPrefix(const std::string& appset);  // "appsets/<appset>/"
std::string AppStatus(const std::string& appset, const std::string& app);
std::string Pin(const std::string& appset, const std::string& app);
std::string AppliedHash(const std::string& appset, const std::string& app);
std::string AppSpec(const std::string& appset, const std::string& app);
std::string Operation(const std::string& appset, const std::string& app);
std::string Conditions(const std::string& appset);
std::string Rollout(const std::string& appset);
std::string SetDeletion(const std::string& appset);
std::string AppDeletion(const std::string& appset, const std::string& app);
inline constexpr const char* kDeletionsPrefix = "deletions/";
std::string Workload(const std::string& cluster, const std::string& ns, const std::string& kind,
                     const std::string& name);
std::string WorkloadClusterPrefix(const std::string& cluster);
inline constexpr const char* kInputsPrefix = "inputs/";
std::string InputFile(const std::string& path);
inline constexpr const char* kAppSetsPrefix = "appsets/";
inline constexpr const char* kWatchesPrefix = "watches/";
std::string WatchedKinds(const std::string& cluster);
// The set a key under kAppSetsPrefix belongs to ("appsets/<appset>/..."), the cluster of a key
// under kWatchesPrefix; nullopt for any other key.
std::optional<std::string> AppSetOfKey(const std::string& key);
std::optional<std::string> ClusterOfWatchesKey(const std::string& key);
}  // namespace keys

// A stored value and the revision that wrote it (for compare-and-set).
struct Record {
  Json value;
  int64_t revision = 0;
};

// Everything stored about one ApplicationSet, keyed by app name where per app.
struct AppSetRecords {
  std::map<std::string, Record> statuses, pins, applied_hashes, operations, specs;
  std::optional<Record> conditions, rollout;
  int64_t revision = 0;  // the store revision this view was read at
};

struct PendingDeletion {
  std::string appset;
  std::string app;  // "" for the whole set
  Record record;    // phase and whatever the deletion needs to resume
};

struct WorkloadRecord {
  std::string cluster, ns, kind, name;
  Record record;  // condition and the workload revision it was computed for
};

template <typename T>
struct Loaded {
  Status status;  // kCorrupt names the key whose value does not decode
  T value{};
  bool ok() const { return status.ok(); }
};

class StateBatch {
 public:
  // `expected`: nullopt = unconditional; 0 = must not exist; N = must be at revision N.
  using Expected = std::optional<int64_t>;

  StateBatch& PutAppStatus(const std::string& appset, const std::string& app, const Json& v,
                           Expected expected = std::nullopt);
  StateBatch& PutPin(const std::string& appset, const std::string& app, const Json& v,
                     Expected expected = std::nullopt);
  StateBatch& PutAppliedHash(const std::string& appset, const std::string& app,
                             const std::string& hash, Expected expected = std::nullopt);
  StateBatch& PutAppSpec(const std::string& appset, const std::string& app, const Json& spec,
                         Expected expected = std::nullopt);
  StateBatch& PutOperation(const std::string& appset, const std::string& app, const Json& v,
                           Expected expected = std::nullopt);
  StateBatch& PutConditions(const std::string& appset, const Json& v,
                            Expected expected = std::nullopt);
  StateBatch& PutRollout(const std::string& appset, const Json& v,
                         Expected expected = std::nullopt);
  // app "" = the whole set.
  StateBatch& PutDeletion(const std::string& appset, const std::string& app, const Json& v,
                          Expected expected = std::nullopt);
  StateBatch& PutWorkload(const std::string& cluster, const std::string& ns,
                          const std::string& kind, const std::string& name, const Json& v,
                          Expected expected = std::nullopt);
  StateBatch& PutInputFile(const std::string& path, const std::string& text);
  // `kinds`: a list of "apiVersion Kind".
  StateBatch& PutWatchedKinds(const std::string& cluster, const Json& kinds);

  // Forgets everything about one app of a set (status, pin, hash, operation, its deletion).
  StateBatch& RemoveApp(const std::string& appset, const std::string& app);
  StateBatch& RemoveDeletion(const std::string& appset, const std::string& app);
  StateBatch& RemoveWorkload(const std::string& cluster, const std::string& ns,
                             const std::string& kind, const std::string& name);
  StateBatch& Remove(std::string key, Expected expected = std::nullopt);

  const std::vector<Op>& ops() const { return ops_; }

 private:
  StateBatch& PutJson(std::string key, const Json& v, Expected expected);
  std::vector<Op> ops_;
};

// One set's records from a listing of its keys (entries of other keys are ignored), as
// LoadAppSet reads them: `entries` hold whole store keys ("appsets/<appset>/..."). A standby
// decodes the leader's records from its watch of the store with it (docs/state-store.md).
Loaded<AppSetRecords> AppSetRecordsOf(const std::string& appset, const std::vector<Entry>& entries,
                                      int64_t revision);

class State {
 public:
  explicit State(Store& store) : store_(store) {}

  // Commits the batch atomically and durably (see the write-ahead note above).
  WriteResult Commit(const StateBatch& batch) { return store_.Commit(batch.ops()); }

  Loaded<AppSetRecords> LoadAppSet(const std::string& appset);
  Loaded<std::vector<PendingDeletion>> LoadDeletions();
  Loaded<std::vector<WorkloadRecord>> LoadWorkloads(const std::string& cluster);
  // The last good copy of an input file, nullopt when none was stored.
  Loaded<std::optional<std::string>> LoadInputFile(const std::string& path);
  // Every stored input file, path -> text.
  Loaded<std::map<std::string, std::string>> LoadInputFiles();

 private:
  Store& store_;
};

}  // namespace fleetwave::store
