// A live Argo CD Application as the rollout engine sees it: the few fields of
// `kubectl get applications -o yaml` that RollingSync decisions read.
// Everything else of the object is ignored. Values only; decoding never throws.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/issue.h"
#include "engine/time.h"
#include "engine/yaml_json.h"

namespace fleetwave::engine {

// What the rollout reads of an operation (operationState.operation): the values of its `info`
// entries (a rollback's sync back names itself in its Reason) and the revisions its `sync`
// asks for. Made from the operation's JSON, which is not kept: the copy was 1.3 KB per app at
// N=500 and made at every decision of the app.
struct OperationSummary {
  OperationSummary() = default;
  // Implicit: it stands for the operation it is made from (decoding, tests, the engine's own
  // records all hold the JSON).
  OperationSummary(const Json& operation);  // NOLINT(google-explicit-constructor)
  std::vector<std::string> info_values;     // string values of `info[].value`, in order
  bool has_sync = false;                    // `sync` is an object
  // sync.revisions (a non-string item as ""), else [sync.revision]; empty when neither.
  std::vector<std::string> sync_revisions;
  bool operator==(const OperationSummary&) const = default;
};

// status.operationState: the last sync operation the app ran (or is running).
struct OperationState {
  std::string phase;  // Running | Terminating | Succeeded | Failed | Error
  std::optional<Time> started_at;
  OperationSummary operation;
};

// One entry of status.conditions of an Application (InvalidSpecError, UnknownError, ...).
struct ApplicationCondition {
  std::string type;
  std::string message;
};

// A 64-bit hash of an Application spec's content, computed once when an app is decoded or
// generated so that a reconcile compares a desired and a live spec as two integers
// (SpecFingerprintsEqual) and walks both documents only when the integers differ. Equal
// fingerprints mean equal specs up to a 2^-64 chance; different ones mean nothing (1 and 1.0
// are equal JSON with different fingerprints) and the caller compares in full.
// 0 is "no fingerprint": the spec is not an object, or holds a NaN, which never equals
// itself, so only the full comparison may judge it.
// Pinned by tests/engine/rollingsync/spec_fingerprint_test.cc.
uint64_t SpecFingerprint(const Json& spec);

// True only when both fingerprints exist and are equal: the specs are then equal.
inline bool SpecFingerprintsEqual(uint64_t a, uint64_t b) { return a != 0 && a == b; }

struct Application {
  std::string name;
  std::map<std::string, std::string> labels;
  Json spec = Json::object();  // spec as written (source(s), destination, syncPolicy, ...)
  // SpecFingerprint(spec), set by DecodeApplication; 0 = none (always compared in full).
  // Whoever changes `spec` afterwards recomputes it.
  uint64_t spec_fingerprint = 0;
  std::string sync_status;  // status.sync.status: Synced | OutOfSync | Unknown | ""
  // status.sync.revisions when non-empty, else [status.sync.revision] when set, else []:
  // the list RollingSync pins (Argo's ApplicationStatus.GetRevisions).
  std::vector<std::string> revisions;
  std::string health_status;  // status.health.status
  std::optional<Time> reconciled_at;
  std::optional<OperationState> operation_state;
  std::vector<ApplicationCondition> conditions;

  // An app with spec.sources (non-empty) syncs through sync.revisions, not sync.revision.
  bool IsMultiSource() const;
  bool HasCondition(const std::string& type) const;
};

struct DecodedApplications {
  std::vector<Application> apps;  // in input order
  Issues issues;
};

// Decodes one Application object. `path` locates it in the input for issues (e.g. "items[3]").
// Returns nullopt (with an issue) when it has no metadata.name; other malformed fields
// (a non-RFC 3339 time, a non-string label) are issues and read as absent.
std::optional<Application> DecodeApplication(const Json& object, const std::string& file,
                                             const std::string& path, Issues& issues);

// Decodes what `kubectl get applications -o yaml|json` prints: a `kind: List` (or any object
// with `items`), a bare array, or a single Application object, and appends the Applications to
// `into`. Call once per document of a multi-document input. A name seen before is an issue.
void DecodeApplicationDocument(const Json& document, const std::string& file,
                               DecodedApplications& into);

}  // namespace fleetwave::engine
