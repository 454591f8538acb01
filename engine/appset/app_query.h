// What an operator asks of a fleet of Applications: one row per app with the facts lists filter
// on and summaries count (read once from the Argo-shaped JSON the API serves), the filters
// (`appset`, `step`, `health`, `sync`, `rollout`, `status`, `cluster`, a label selector, a
// search text), and Kubernetes-style paging (`limit`, `continue`). Pure functions pinned by
// tests/engine/fleetview/app_query_test.cc; the API (api/api_routes.cc) and the CLI use them.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/label_query.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// One word per app for an operator: what the rollout is doing with it, failures first. The
// order is the attention order of summaries (most urgent first).
enum class AppDisplayStatus {
  kFailed,       // its last sync operation failed or errored
  kDegraded,     // its health is Degraded
  kLate,         // in the current step, not yet Healthy, after the step's deadline passed
  kSkipped,      // an operator skipped it
  kProgressing,  // synced, waiting for health
  kPending,      // chosen for a sync that has not started
  kWaiting,      // not yet its step's turn (or behind maxUpdate)
  kHealthy,      // done for this revision
};

const char* DisplayStatusName(AppDisplayStatus status);  // "Failed", ..., "Healthy"
std::optional<AppDisplayStatus> ParseDisplayStatus(std::string_view text);  // any case
// Failed, Degraded, Late and Skipped need an operator's attention.
bool NeedsAttention(AppDisplayStatus status);

struct AppRow {
  std::string name;
  std::string appset;
  std::string cluster;    // spec.destination.name, else .server
  int step = 0;           // 1-based RollingSync step; 0: none (AllAtOnce, or no step selects it)
  std::string health;     // status.health.status ("" when absent)
  std::string sync;       // status.sync.status
  std::string rollout;    // its applicationStatus entry's status ("" without RollingSync)
  std::string operation;  // status.operationState.phase
  std::string message;    // the most telling message: operation, health, then rollout entry
  std::map<std::string, std::string> labels;
  AppDisplayStatus status = AppDisplayStatus::kWaiting;

  bool operator==(const AppRow&) const = default;
};

// What of a set's JSON every one of its rows depends on (status.rollout: the current step,
// whether its deadline passed, the skipped apps). When it changes, any row may; otherwise a
// row changes only with its Application or its applicationStatus entry (the StatusBoard
// re-derives only those).
struct RowFacts {
  int current_step = 0;
  bool deadline_exceeded = false;
  std::set<std::string> skipped;

  bool operator==(const RowFacts&) const = default;
};
RowFacts RowFactsOf(const Json& appset);

// One Application's row: `entry` is its applicationStatus entry (nullptr: none), `appset` the
// owner's name. nullopt when `application` is not an object with a metadata.name.
std::optional<AppRow> AppRowOf(const Json& application, const Json* entry, const RowFacts& facts,
                               const std::string& appset);

// The rows of one set's Applications, sorted by name. `appset` is the set's JSON as the API
// serves it (status.applicationStatus, status.rollout.{step,skipped,stepDeadlineExceeded});
// `applications` its Argo Applications (entries that are not objects are skipped). Every field is
// type-checked: a wrong type reads as absent, never throws.
std::vector<AppRow> AppRowsOf(const Json& appset, const std::vector<const Json*>& applications);

// A filter from a list request's query. Each field holds the accepted values (a comma list in
// the query, `health=Degraded,Missing`); empty accepts all. Values compare without case.
struct AppFilter {
  std::set<std::string> appsets;
  std::set<int> steps;
  std::set<std::string> health;
  std::set<std::string> sync;
  std::set<std::string> rollout;
  std::set<AppDisplayStatus> status;
  std::set<std::string> clusters;
  LabelQuery labels;
  std::string search;  // a case-insensitive substring of the name or the cluster

  bool Matches(const AppRow& row) const;
  // Whether any field filters on what only rows know (everything but `appset`): the API can
  // then answer from the board's JSON without building rows.
  bool NeedsRows() const;
};

struct Paging {
  std::optional<size_t> limit;  // nullopt: everything
  std::string start_after;      // the last name of the previous page ("" = first page)
};

struct AppQuery {
  AppFilter filter;
  Paging paging;
};

// Parses `appset=..&step=..&health=..&sync=..&rollout=..&status=..&cluster=..&labelSelector=..
// &search=..&limit=..&continue=..` (URL-encoded values; `watch` is ignored, as are the
// parameters in `ignore`). nullopt with `error` naming the parameter and what is wrong: an
// unknown parameter, a step that is not a positive integer, an unknown status word, a label
// selector that does not parse, a limit outside 1..10000, a continue token that is not one.
std::optional<AppQuery> ParseAppQuery(std::string_view query, std::string* error,
                                      const std::set<std::string>& ignore = {});

// The opaque token that continues a list after `last_name` (and what it decodes to).
std::string EncodeContinue(const std::string& last_name);
std::optional<std::string> DecodeContinue(std::string_view token);

// One page of names sorted ascending: those after `paging.start_after`, at most `limit`;
// `next` is the continue token when more remain (then `remaining` counts them).
struct Page {
  size_t begin = 0;  // index of the first item in the sorted input
  size_t end = 0;    // one past the last
  std::string next;
  size_t remaining = 0;
};
Page PageOf(const std::vector<std::string_view>& sorted_names, const Paging& paging);

}  // namespace fleetwave::engine
