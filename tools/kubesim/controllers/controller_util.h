// Small pieces every simulated workload controller shares: reading typed spec fields out of
// JSON, int-or-percent scaling as Kubernetes' intstr package does it, template hashes, the
// condition-setting rules of apps/v1, and committing an object only when it really changed
// (so idle clusters publish no watch events). Pure functions over JSON plus Cluster::Commit.
// Not thread-safe: io thread only, like the Cluster they write to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tools/kubesim/cluster.h"
#include "tools/kubesim/controllers/pod_model.h"

namespace fleetwave::kubesim {

// Integer at `path` (JSON pointer) or `fallback` when absent or not an integer.
long long IntAt(const Json& object, const char* path, long long fallback);
bool BoolAt(const Json& object, const char* path);
std::string StringAt(const Json& object, const char* path);

// intstr.GetScaledValueFromIntOrPercent: an int is itself, "N%" is N% of `total`, rounded up
// or down. nullopt when `value` is neither.
std::optional<long long> ScaledIntOrPercent(const Json& value, long long total, bool round_up);

// A short stable hash of `value`'s canonical JSON, spelled with the alphabet Kubernetes uses
// for pod-template-hash (no vowels, so no accidental words).
std::string ShortHash(const Json& value);

// apps/v1 SetDeploymentCondition: a condition with the same status and reason is left alone
// (both timestamps kept); a same-status change keeps lastTransitionTime. Returns whether
// anything changed.
bool SetCondition(Json& status, const std::string& type, const std::string& cond_status,
                  const std::string& reason, const std::string& message, const std::string& now);
const Json* FindCondition(const Json& status, const std::string& type);
void RemoveCondition(Json& status, const std::string& type);

// The owned objects of `owner` are those whose controller ownerReference names its uid.
bool IsControlledBy(const Json& object, const std::string& owner_uid);
Json ControllerRef(const Json& owner, const std::string& api_version, const std::string& kind);

bool IsDeleting(const Json& object);
std::string UidOf(const Json& object);
long long GenerationOf(const Json& object);

// Writes `updated` through Commit when it differs from `original`; returns the stored object.
Json CommitIfChanged(Cluster& c, ResourceId resource, const Json& original, Json updated);

// The pod readiness delay of a template by image tag: a tag containing "fail" never gets
// ready (nullopt), "slow" takes ten times `base`.
std::optional<Duration> ReadyDelayFor(const Json& pod_template, Duration base);

}  // namespace fleetwave::kubesim
